#!/bin/sh
# tests/server/slow-reader.sh: the hard cap.  A client that does not read
# no longer gets a growing backlog from requests or monitor updates (see
# the backpressure-*.sh tests), but waiting transactions that complete
# together still can: past the hard cap (here 2 MB) the session is
# dropped, logged and counted in memory/show, and the others are served
# throughout (tests/server/backpressure.py hardcap).  A client that
# reads is not dropped for one update bigger than the cap (bigupdate).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
OVSDB_SERVER_BACKLOG_LIMIT=2000000 start_server ours ovsdb-server ovsdb-tool
python3 "$RPC_DIR/backpressure.py" hardcap "unix:$PWD/ours.sock" \
    "$(cat ours.pid)" "$PWD/ours.log" || { cat ours.log; fail "hard cap"; }
grep -E "backlog [0-9]+ bytes over limit [0-9]+, closing" ours.log
python3 "$RPC_DIR/backpressure.py" bigupdate "unix:$PWD/ours.sock" \
    "$(cat ours.pid)" "$PWD/ours.log" || { cat ours.log; fail "big update"; }
ovs-appctl -t "$PWD/ours.ctl" memory/show | tee mem.out
grep -q 'backlog-hard-cap:2000000 .*backlog-drops:1' mem.out \
    || fail "memory/show does not count the drop"
