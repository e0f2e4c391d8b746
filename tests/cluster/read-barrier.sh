#!/bin/sh
# tests/cluster/read-barrier.sh: a monitor never sees a transaction that
# is not decided yet.  Three of our servers on tcp:127.0.0.1; a writer
# inserts rows through every member while watchers on each member keep
# starting monitor_cond sessions (tests/cluster/raft-watch.py): every
# update each one gets must apply to the rows it has (no insert of a row
# its initial reply already showed), and each ends with the member's rows.
# A member's proposed transactions are its state before the cluster
# decides them; a monitor request waits until they are decided (the read
# barrier in ovsdb/server/session.c).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
pids=
trap 'kill_servers; [ -n "$pids" ] && kill $pids 2>/dev/null; true' EXIT
WATCH="python3 $OVSDB_SRCDIR/tests/cluster/raft-watch.py"

create_first s1 "$OUR_TOOL"
start_member s1 "$OUR_SERVER"
wait_until 30 "s1 never became leader" has_role s1 leader
create_joiner s2 "$OUR_TOOL" s1
start_member s2 "$OUR_SERVER"
wait_until 60 "s2 did not join" is_member s2
create_joiner s3 "$OUR_TOOL" s1 s2
start_member s3 "$OUR_SERVER"
wait_until 60 "s3 did not join" is_member s3
wait_leader 30 s1 s2 s3 > /dev/null

for n in s1 s2 s3; do
    $WATCH stop "$PWD/$n.sock" > "watch.$n" 2>&1 &
    pids="$pids $!"
done
: > acked
$WRITER write acked 120 300 w "$PWD/s1.sock" "$PWD/s2.sock" \
    "$PWD/s3.sock" > writer.out 2>&1 || { cat writer.out;
                                         fail "the writer did not finish"; }
cat writer.out
touch stop
failed=
for pid in $pids; do
    wait "$pid" || failed=yes
done
pids=
cat watch.s1 watch.s2 watch.s3
[ -z "$failed" ] || fail "a monitor saw an update that does not apply"
echo PASS
