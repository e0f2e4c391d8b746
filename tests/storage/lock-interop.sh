# tests/storage/lock-interop.sh: our lock on ".DB.~lock~" and the
# reference's exclude each other both ways: the reference ovsdb-tool
# cannot write a file our ovsdb-server serves, and our ovsdb-tool cannot
# write a file the reference server serves (reads still work).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
has_reference || skip "reference Open vSwitch not installed"

"$TOOL" create db "$SCHEMA"
# serve PROGRAM: starts PROGRAM on db; sets server_pid.
serve() {
    rm -f sock
    "$1" --remote=punix:$PWD/sock --unixctl=$PWD/ctl --no-chdir db \
        2>>server.err &
    server_pid=$!
    wait_socket $server_pid sock server.err
}
trap 'kill $server_pid 2>/dev/null || true' EXIT
insert='["Store",{"op":"insert","table":"Root","row":{"name":"x"}}]'

serve "$SERVER"
if "$REF_OVSDB_TOOL" transact db "$insert" 2>err; then
    fail "the reference wrote a file our server holds"
fi
grep -q "failed to lock lockfile" err || fail "$(cat err)"
"$REF_OVSDB_TOOL" query db '["Store"]' >/dev/null || fail "reference read"
kill $server_pid
wait $server_pid 2>/dev/null || true

serve "$REF_OVSDB_SERVER"
if "$TOOL" transact db "$insert" 2>err; then
    fail "we wrote a file the reference server holds"
fi
grep -q "failed to lock lockfile" err || fail "$(cat err)"
"$TOOL" query db '["Store"]' >/dev/null || fail "our read"
kill $server_pid
wait $server_pid 2>/dev/null || true

# Both free again.
"$TOOL" transact db "$insert" | grep -q uuid || fail "write after servers"
echo PASS
