# tests/storage/group-commit-wait.sh: a transaction whose "wait" failed on
# data of a pending group commit is retried when that batch fails and is
# undone (the data it waited for is back), not only on the next good
# commit.  See tests/storage/gc-wait.py.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
command -v python3 >/dev/null || skip "no python3 for the test clients"

"$TOOL" create db "$SCHEMA"
"$TOOL" transact db '["Store",{"op":"insert","table":"Root",
    "row":{"name":"k"}}]' >/dev/null
OVSDB_LOG_FAULT=write:1:ENOSPC "$SERVER" --remote=punix:$PWD/db.sock \
    --no-chdir --unixctl=$PWD/ctl --log-file=$PWD/server.log db \
    >>server.err 2>&1 &
server_pid=$!
trap 'kill -9 $server_pid 2>/dev/null || true' EXIT
wait_socket $server_pid db.sock server.err

out=$(python3 "$OVSDB_SRCDIR/tests/storage/gc-wait.py" $PWD/db.sock \
      $server_pid) || fail "client: $out"
case $out in
    *'A: error I/O error'*) ;;
    *) fail "A's delete should fail on the injected write error: $out" ;;
esac
case $out in
    *'W: ok'*) ;;
    *) fail "W's wait should be retried after the failed batch: $out" ;;
esac
names=$(ovsdb-client query unix:$PWD/db.sock \
    '["Store",{"op":"select","table":"Root","where":[],"columns":["name"]}]' \
    | grep -o '"name":"[a-z]*"' | sort | tr '\n' ' ')
expect_eq "$names" '"name":"k" "name":"w" ' "rows after the retry"
