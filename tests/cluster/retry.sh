#!/bin/sh
# tests/cluster/retry.sh: a transaction that the cluster could not take is
# run again by the member, as the reference does, and never answered with
# the cluster's error.  Three of our servers on tcp:127.0.0.1:
#   1. three writers, one on each member, insert at the same time: the
#      followers' entries race each other and the leader's ("prerequisite
#      check failed" inside the cluster), yet every reply is a success and
#      every member ends with every row once;
#   2. with the leader and another member killed, a write sent to the one
#      left (a candidate: no leader) waits; once a killed member is back
#      and a leader elected, it commits and its reply is a success.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
pids=
trap 'kill_servers; [ -n "$pids" ] && kill $pids 2>/dev/null; true' EXIT

create_first s1 "$OUR_TOOL"
start_member s1 "$OUR_SERVER"
wait_until 30 "s1 never became leader" has_role s1 leader
create_joiner s2 "$OUR_TOOL" s1
start_member s2 "$OUR_SERVER"
wait_until 60 "s2 did not join" is_member s2
create_joiner s3 "$OUR_TOOL" s1 s2
start_member s3 "$OUR_SERVER"
wait_until 60 "s3 did not join" is_member s3
leader=$(wait_leader 30 s1 s2 s3)
echo "leader: $leader"

# 1. Racing writers on every member.
: > expected
for n in s1 s2 s3; do
    $WRITER strict 60 "$n" "$PWD/$n.sock" > "writer.$n" 2>&1 &
    pids="$pids $!"
    i=0
    while [ $i -lt 60 ]; do
        echo "$n-$i" >> expected
        i=$((i + 1))
    done
done
for pid in $pids; do
    wait "$pid" || { cat writer.s1 writer.s2 writer.s3; show_logs s1 s2 s3;
                     fail "a writer got an error"; }
done
pids=
cat writer.s1 writer.s2 writer.s3
sort expected > expected.sorted
for n in s1 s2 s3; do
    wait_until 30 "$n did not settle" settled $n
    names $n > "names.$n"
    cmp -s expected.sorted "names.$n" \
        || fail "$n does not serve each row once: $(diff expected.sorted \
                 "names.$n" | head -5)"
done

# 2. A write with no leader waits for one.
survivor=
for n in s1 s2 s3; do
    if [ $n = "$leader" ]; then
        :
    elif [ -z "$survivor" ]; then
        survivor=$n
    else
        victim=$n
    fi
done
kill_server "$leader"
kill_server "$victim"
wait_until 60 "$survivor did not become a candidate" \
    has_role "$survivor" candidate
# As the reference, the member logs that it lost its cluster (Open
# vSwitch's tests grep this line).
wait_until 60 "$survivor did not log that it lost its cluster" \
    grep -q "raft_is_connected: false" "$survivor.log"
$WRITER strict 1 nolead "$PWD/$survivor.sock" > writer.nolead 2>&1 &
writer=$!
pids=$writer
# The request has reached the member when it counts it as waiting.
waiting() {
    appctl "$survivor" memory/show | grep -q 'triggers:1'
}
wait_until 30 "$survivor never held the write" waiting
start_member "$victim" "$OUR_SERVER"
wait_leader 60 "$survivor" "$victim" > /dev/null
wait "$writer" || { cat writer.nolead; show_logs "$survivor" "$victim";
                    fail "the write without a leader failed"; }
pids=
cat writer.nolead
echo nolead-0 > expected.nolead
for n in "$survivor" "$victim"; do
    wait_until 30 "$n does not serve the write" has_names $n expected.nolead
done
echo PASS
