# tests/server/pipeline.sh: pipelined requests (tests/server/pipeline.py)
# over a unix socket (read by peeking, lib/stream-fd.c) and over TCP, with
# group commit holding the transactions' replies.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
command -v python3 >/dev/null || skip "no python3 for the test client"

for remote in unix tcp; do
    rm -f db db.sock server.log
    "$TOOL" create db "$SCHEMA"
    "$TOOL" transact db '["Store",{"op":"insert","table":"Root",
        "row":{"name":"k"}}]' >/dev/null
    "$SERVER" --remote=punix:$PWD/db.sock --remote=ptcp:0:127.0.0.1 \
        --no-chdir --unixctl=$PWD/ctl --log-file=$PWD/server.log db \
        >>server.err 2>&1 &
    server_pid=$!
    trap 'kill -9 $server_pid 2>/dev/null || true' EXIT
    wait_socket $server_pid db.sock server.err
    if [ $remote = unix ]; then
        target=unix:$PWD/db.sock
    else
        port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' server.log \
               | tail -1)
        [ -n "$port" ] || fail "no TCP port in server.log"
        target=tcp:127.0.0.1:$port
    fi
    out=$(python3 "$OVSDB_SRCDIR/tests/server/pipeline.py" $target 2>&1) \
        || fail "$remote: $out"
    expect_eq "$out" ok "$remote"
    kill $server_pid
    wait $server_pid 2>/dev/null || true
done
