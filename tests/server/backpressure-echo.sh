#!/bin/sh
# tests/server/backpressure-echo.sh: a client that floods the server with
# "echo" requests and never reads the replies, over unix and over TCP: the
# server stops reading from it once its backlog is over the limit, so its
# RSS stays bounded and a healthy client keeps its round trips short; once
# the flooder reads, every request has its reply (tests/server/
# backpressure.py).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_server ours ovsdb-server ovsdb-tool --remote=ptcp:0:127.0.0.1
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' ours.log | tail -1)
[ -n "$port" ] || fail "no TCP port in ours.log"
for remote in "unix:$PWD/ours.sock" "tcp:127.0.0.1:$port"; do
    echo "== $remote"
    python3 "$RPC_DIR/backpressure.py" echo "$remote" "$(cat ours.pid)" \
        || { tail -20 ours.log; fail "echo flood over $remote"; }
done
ovs-appctl -t "$PWD/ours.ctl" memory/show | tee mem.out
grep -q 'backlog-pauses:[1-9]' mem.out || fail "memory/show counts no pause"
