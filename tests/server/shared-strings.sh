#!/bin/sh
# tests/server/shared-strings.sh: strings equal across rows are stored once
# (ovsdb/engine/datum.c), and sharing them never lets one row's change
# reach another: 512 rows share 256 map keys, 64 values and 8 chassis
# names; after each of updates, deletes, compaction, a restart and an
# online conversion every row must equal the model kept by
# tests/server/shared-strings.py.  The bytes per atom of the loaded server
# are printed, not asserted.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "no python3"
SCHEMA=$OVSDB_SRCDIR/tests/workloads/workload.ovsschema
step() {
    python3 "$OVSDB_SRCDIR/tests/server/shared-strings.py" "$1" \
        "$PWD/ours.sock" "$PWD/ours.ctl" || fail "step $1"
}
start_server ours "$OUR_SERVER" "$OUR_TOOL"
step load
step update
step delete
"$OVSDB_BUILDDIR/utilities/ovsdb-appctl" -t "$PWD/ours.ctl" \
    ovsdb-server/compact || fail "compaction"
step check
stop_server ours
serve ours "$OUR_SERVER" ours.db
step check
# A conversion to a schema that differs only in its version rebuilds
# every row from JSON.
sed 's/"version": *"[^"]*"/"version": "9.9.9"/' "$SCHEMA" > new.ovsschema
grep -q '"9.9.9"' new.ovsschema || fail "no version in $SCHEMA"
"$OUR_CLIENT" convert "unix:$PWD/ours.sock" new.ovsschema \
    || fail "convert"
step check
step update
stop_server ours
serve ours "$OUR_SERVER" ours.db
step check
echo PASS
