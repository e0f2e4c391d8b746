#!/bin/sh
# tests/workloads/atom-bytes.sh: memory per stored atom on fixed databases
# (tests/workloads/atombytes.py at scale 0.1: an OVN Southbound, an Open
# vSwitch and a seed database, each filled through our server and
# measured after a restart on its file).  The figures are printed, not
# asserted; the test fails only if a database cannot be filled, reopened
# or measured.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "no python3"
python3 "$OVSDB_SRCDIR/tests/workloads/atombytes.py" --scale 0.1 \
    --appctl "$OVSDB_BUILDDIR/utilities/ovsdb-appctl" "$OUR_SERVER" \
    > atoms.out || { cat atoms.out; fail "atombytes.py"; }
cat atoms.out
n=$(grep -c '"alloc_bytes_per_atom"' atoms.out || true)
skipped=$(grep -c '"skipped"' atoms.out || true)
[ $((n + skipped)) -eq 3 ] && [ "$n" -ge 1 ] \
    || fail "expected a figure per shape"
echo PASS
