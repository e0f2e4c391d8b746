#!/bin/sh
# tests/cluster/members.sh: a cluster of three of our servers (ovsdb/raft/raft.c)
# on tcp:127.0.0.1.  s1 is made by our create-cluster, s2 and s3 by our
# join-cluster; they elect a leader, a write on a follower is forwarded to
# the leader and seen on every member, the leader is killed with SIGKILL
# under a writer and a new one is elected with no acknowledged write
# lost, the killed member catches up when it comes back, and a
# monitor_cond_since client resumes on any member with found=true; a
# leader left alone steps down.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
trap 'kill_servers; [ -n "$writer" ] && kill $writer 2>/dev/null; true' EXIT

# 1. Create and join.
create_first s1 "$OUR_TOOL"
start_member s1 "$OUR_SERVER"
wait_until 30 "s1 never became leader" has_role s1 leader
create_joiner s2 "$OUR_TOOL" s1
start_member s2 "$OUR_SERVER"
wait_until 60 "s2 did not join" is_member s2
create_joiner s3 "$OUR_TOOL" s1 s2
start_member s3 "$OUR_SERVER"
wait_until 60 "s3 did not join" is_member s3
wait_until 30 "the leader does not list 3 servers" n_servers s1 3
leader=$(wait_leader 30 s1 s2 s3)
echo "leader: $leader"
for n in s1 s2 s3; do
    n_servers $n 3 || { status $n; fail "$n does not list 3 servers"; }
done

# 2. A write on each follower is forwarded; every member serves it.
: > expected
for n in s1 s2 s3; do
    [ $n = "$leader" ] && continue
    insert $n "from-$n"
    echo "from-$n" >> expected
done
insert "$leader" from-leader
echo from-leader >> expected
for n in s1 s2 s3; do
    wait_until 30 "$n does not serve the writes" has_names $n expected
    wait_until 30 "$n did not settle" settled $n
done

# 3. Kill the leader with SIGKILL under a writer that uses every member.
: > acked
$WRITER write acked 120 400 w "$PWD/s1.sock" "$PWD/s2.sock" \
    "$PWD/s3.sock" > writer.out 2>&1 &
writer=$!
n_acked() { [ "$(wc -l < acked)" -ge "$1" ]; }
wait_until 60 "the writer got no acknowledgement" n_acked 50
kill_server "$leader"
others=
for n in s1 s2 s3; do
    [ $n = "$leader" ] || others="$others $n"
done
new_leader=$(wait_leader 60 $others)
echo "new leader after kill -9 of $leader: $new_leader"
wait "$writer" || { cat writer.out; show_logs $others; \
                    fail "the writer did not finish"; }
writer=
cat writer.out
for n in $others; do
    wait_until 30 "$n lost acknowledged writes" has_names $n acked
done

# 4. The killed member comes back and catches up.
start_member "$leader" "$OUR_SERVER"
wait_until 60 "$leader did not rejoin" is_member "$leader"
cat acked expected > all
wait_until 60 "$leader did not catch up" has_names "$leader" all
for n in s1 s2 s3; do
    wait_until 30 "$n did not settle" settled $n
done
names s1 > final.s1
for n in s2 s3; do
    names $n > final.$n
    cmp -s final.s1 final.$n || fail "s1 and $n serve different rows"
done

# 5. A monitor_cond_since client moves between members with found=true.
for pair in "s1 s2" "s2 s3" "s3 s1"; do
    resumes $pair || fail "a client of ${pair% *} does not resume on ${pair#* }"
done

# 6. A leader that loses the majority steps down.
leader=$(wait_leader 30 s1 s2 s3)
for n in s1 s2 s3; do
    [ $n = "$leader" ] || kill_server $n
done
not_leader() { ! has_role "$1" leader; }
wait_until 30 "$leader is still leader without a majority" not_leader "$leader"
echo PASS
