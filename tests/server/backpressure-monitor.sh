#!/bin/sh
# tests/server/backpressure-monitor.sh: a monitor_cond_since client stops
# reading while a writer makes 5,000 updates to the same 10 rows.  Its
# changes are kept pending, one per row, instead of queued: the server's
# RSS stays bounded, a healthy client keeps its round trips short, and once
# the monitor reads it converges on the final contents, still connected,
# with a current last transaction id (tests/server/backpressure.py).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_server ours ovsdb-server ovsdb-tool
python3 "$RPC_DIR/backpressure.py" monitor "unix:$PWD/ours.sock" \
    "$(cat ours.pid)" || { tail -20 ours.log; fail "stalled monitor"; }
ovs-appctl -t "$PWD/ours.ctl" memory/show | tee mem.out
grep -q 'updates-coalesced:[1-9]' mem.out \
    || fail "memory/show counts no coalesced update"
grep -q 'backlog-drops:0' mem.out || fail "a session was dropped"
