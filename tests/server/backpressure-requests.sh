#!/bin/sh
# tests/server/backpressure-requests.sh: floods of large "transact"
# requests (100 kB each, with replies as large) and of "get_schema" from a
# client that does not read: as backpressure-echo.sh, the server's RSS
# stays bounded, a healthy client keeps its round trips short, and no
# reply is lost (tests/server/backpressure.py).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
export BACKPRESSURE_CTL="$PWD/ours.ctl"
start_server ours ovsdb-server ovsdb-tool
for case in transact schema; do
    echo "== $case"
    python3 "$RPC_DIR/backpressure.py" $case "unix:$PWD/ours.sock" \
        "$(cat ours.pid)" || { tail -20 ours.log; fail "$case flood"; }
done
