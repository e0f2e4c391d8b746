#!/bin/sh
# tests/server/idle.sh: idle sessions, skipped by the server's loop, still
# get monitor updates, lock notifications and replies, and give back their
# input buffers (idle.py).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_server ours ovsdb-server ovsdb-tool
python3 "$RPC_DIR/idle.py" "unix:$PWD/ours.sock" "$PWD/ours.ctl" 100 \
    || { cat ours.log; fail "idle sessions"; }
