#!/bin/sh
# tests/server/backpressure-monitor.sh: a monitor client stops reading
# while a writer goes on: a monitor_cond_since client during 5,000 updates
# to the same 10 rows, then an RFC 7047 "monitor" client (v1 "update"
# notifications: whole new rows, as ovsdb-client monitor, older IDLs and
# active-backup replication get) during 300 transactions of 400 kB that
# each rewrite every row.  Its changes are kept pending, one per row,
# instead of queued: the server's RSS stays bounded, a healthy client keeps
# its round trips short, and once the monitor reads it converges on the
# final contents, still connected (tests/server/backpressure.py).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_server ours ovsdb-server ovsdb-tool
for case in monitor rfcmonitor; do
    python3 "$RPC_DIR/backpressure.py" $case "unix:$PWD/ours.sock" \
        "$(cat ours.pid)" || { tail -20 ours.log; fail "stalled $case"; }
done
ovs-appctl -t "$PWD/ours.ctl" memory/show | tee mem.out
grep -q 'updates-coalesced:[1-9]' mem.out \
    || fail "memory/show counts no coalesced update"
grep -q 'backlog-drops:0' mem.out || fail "a session was dropped"
