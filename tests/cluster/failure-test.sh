# tests/cluster/failure-test.sh: "cluster/failure-test", the faults that
# Open vSwitch's own cluster tests inject, on a 3-member cluster of ours.
# The command answers as the reference's does ("test engaged", "test
# dismissed", "unknown test scenario").  A leader told to crash before it
# sends a new entry dies when a transaction forwarded by a follower
# reaches it, and the follower whose election is not delayed takes over;
# a follower told to crash on receiving entries dies on the next
# transaction while the others commit it; "transfer-leadership" hands the
# leadership on; a follower that holds a transaction when the leader dies
# (its own election delayed) votes, then learns of the new leader, and
# sends the transaction there.  After each, the member comes back and every
# member serves the same rows, each acknowledged one among them.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
export LC_ALL=C
trap 'kill_servers' EXIT

make_cluster ours ours ours
leader=$(wait_leader 30 $all)
others() { for _n in $all; do [ $_n = "$1" ] || echo $_n; done; }
set -- $(others $leader)
f1=$1 f2=$2
echo "leader $leader, followers $f1 $f2"

ft() { appctl "$1" cluster/failure-test "$2"; }
expect_eq "$(ft $f1 clear)" "test dismissed" "reply to clear"
if out=$(ft $f1 no-such-test 2>&1); then
    fail "an unknown scenario was accepted: $out"
fi
case $out in *"unknown test scenario"*) ;; *) fail "reply: $out" ;; esac

dead() { ! kill -0 "$(cat "$1.pid")" 2>/dev/null; }
# same_everywhere ACKED: every member serves the same rows, with every
# acknowledged one.
same_everywhere() {
    for _n in $all; do
        wait_until 60 "$_n lacks acknowledged rows" has_names $_n "$1"
    done
    wait_until 60 "members differ" sh -c "
        $WRITER names $PWD/s1.sock > n1 && $WRITER names $PWD/s2.sock > n2 &&
        $WRITER names $PWD/s3.sock > n3 && cmp -s n1 n2 && cmp -s n1 n3"
}
# comes_back NAME: restarts NAME, which rejoins.
comes_back() {
    start_member $1 "$OUR_SERVER"
    wait_until 60 "$1 did not come back" is_member $1
}

# 1. The leader crashes before sending a new entry; f2's election is
# delayed, so f1 becomes the leader.
expect_eq "$(ft $f2 delay-election)" "test engaged" "reply to a scenario"
ft $leader crash-before-sending-append-request > /dev/null
$WRITER write a.acked 120 1 a "$PWD/$f1.sock" "$PWD/$f2.sock" \
    > writer.a.out 2>&1 || { cat writer.a.out; fail "no write acknowledged"; }
wait_until 30 "the leader did not crash" dead $leader
grep -q "Raft test: crash before sending append_request" $leader.stderr \
    || fail "no crash message: $(tail -3 $leader.stderr)"
new=$(wait_leader 60 $f1 $f2)
expect_eq "$new" "$f1" "the leader whose election was not delayed"
ft $f2 clear > /dev/null
comes_back $leader
same_everywhere a.acked
echo "crash-before-sending-append-request: ok"

# 2. A follower crashes when entries reach it; the others commit.
leader=$new
set -- $(others $leader)
victim=$1
ft $victim crash-after-receiving-append-request-update > /dev/null
insert $leader b-0
echo b-0 > b.acked
wait_until 30 "the follower did not crash" dead $victim
grep -q "Raft test: crash after receiving append_request with update" \
    $victim.stderr || fail "no crash message: $(tail -3 $victim.stderr)"
insert $leader b-1
echo b-1 >> b.acked
comes_back $victim
same_everywhere b.acked
echo "crash-after-receiving-append-request-update: ok"

# 3. The leader hands the leadership on.
ft $leader transfer-leadership > /dev/null
wait_until 30 "no transfer logged" grep -q "Transferring leadership" \
    $leader.log
moved() { _l=$(leader_of $all) && [ "$_l" != $leader ]; }
wait_until 60 "the leadership did not move" moved
insert $(wait_leader 60 $all) c-0
echo c-0 > c.acked
same_everywhere c.acked
echo "transfer-leadership: ok"

# 4. The leader dies while a follower whose election is delayed holds a
# transaction: the follower votes for the other one (a new term, still no
# leader), learns of the new leader later, and sends it the transaction.
leader=$(wait_leader 60 $all)
set -- $(others $leader)
holder=$1 other=$2
ft $holder delay-election > /dev/null
kill_server $leader
$WRITER strict 1 held "$PWD/$holder.sock" > writer.held 2>&1 \
    || { cat writer.held; show_logs $all; fail "the held transaction failed"; }
expect_eq "$(wait_leader 60 $holder $other)" "$other" \
    "the leader whose election was not delayed"
ft $holder clear > /dev/null
comes_back $leader
echo held-0 > held.acked
same_everywhere held.acked
echo "a transaction held across an election: ok"
echo PASS
