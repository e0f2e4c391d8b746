#!/bin/sh
# tests/harden/fuzz-smoke.sh: ~10 seconds of fixed-seed hostile JSON-RPC
# traffic (tests/harden/fuzz.py) against our server; fails if the server
# dies or stops answering "echo" on a fresh connection.  The OVN northbound
# schema is used when installed (it has every column type), else ours.
SCHEMA=/usr/share/ovn/ovn-nb.ovsschema
[ -f "$SCHEMA" ] || SCHEMA=$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_server ours ovsdb-server ovsdb-tool
pid=$(cat ours.pid)
FUZZ=$OVSDB_SRCDIR/tests/harden/fuzz.py

# Mixed traffic (malformed bytes, bad shapes, vanishing clients), then
# well-formed requests only, which keep connections and monitors alive longer.
python3 "$FUZZ" "$PWD/ours.sock" "$SCHEMA" --seed 1 --seconds 5 \
    --pid "$pid" --log mixed-crash.txt \
    || { cat mixed-crash.txt ours.stderr >&2; fail "server died (mixed)"; }
python3 "$FUZZ" "$PWD/ours.sock" "$SCHEMA" --seed 2 --seconds 5 \
    --pid "$pid" --requests-only 1 --log req-crash.txt \
    || { cat req-crash.txt ours.stderr >&2; fail "server died (requests)"; }

kill -0 "$pid" || fail "server is gone"
python3 -c "
import rpc, sys
c = rpc.Client('unix:$PWD/ours.sock')
r = c.call('echo', ['still', 'here'])
sys.exit(0 if r.get('result') == ['still', 'here'] else 1)
" || fail "echo after fuzzing"
! grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' ours.stderr \
    || { cat ours.stderr >&2; fail "sanitizer report"; }
echo "fuzz-smoke: server alive after fuzzing"
