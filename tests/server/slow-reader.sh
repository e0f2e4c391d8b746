#!/bin/sh
# tests/server/slow-reader.sh: a client that stops reading its monitor
# updates is dropped at the backlog limit (logged); memory stays bounded
# and the other clients keep being served promptly.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
OVSDB_SERVER_BACKLOG_LIMIT=2000000 start_server ours ovsdb-server ovsdb-tool
python3 "$RPC_DIR/robust.py" slow "unix:$PWD/ours.sock" "$(cat ours.pid)" \
    "$PWD/ours.log" || { cat ours.log; fail "slow reader"; }
grep -E "backlog [0-9]+ bytes over limit [0-9]+, closing" ours.log
