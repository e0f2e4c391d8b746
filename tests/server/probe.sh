#!/bin/sh
# tests/server/probe.sh: the server sends "echo" inactivity probes and
# drops a client that does not answer them.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
OVSDB_SERVER_PROBE_INTERVAL=300 start_server ours ovsdb-server ovsdb-tool
python3 "$RPC_DIR/robust.py" probe "unix:$PWD/ours.sock" \
    || { cat ours.log; fail "inactivity probe"; }
