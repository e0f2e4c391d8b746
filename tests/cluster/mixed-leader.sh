#!/bin/sh
# tests/cluster/mixed-leader.sh: a leader of ours with followers of the
# reference 3.1, then a reference leader with a follower of ours.
#
# s1 is our create-cluster and our server; s2 and s3 join it with the
# reference's join-cluster and server.  Writes on the reference followers
# are forwarded to our leader, and ours reach them.  Then our leader is
# killed under a writer: a reference member takes over with no
# acknowledged write lost, and our s1, restarted, follows it, catches up
# and forwards its own writes to it.  The reference's check-cluster reads
# the three files at the end.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
has_reference || skip "reference ovsdb-server not installed"
command -v python3 >/dev/null || skip "no python3 for the test clients"
trap 'kill_servers; [ -n "$writer" ] && kill $writer 2>/dev/null; true' EXIT

# 1. Our leader, two reference followers.
create_first s1 "$OUR_TOOL"
start_member s1 "$OUR_SERVER"
wait_until 30 "s1 never became leader" has_role s1 leader
insert s1 before-join
appctl s1 ovsdb-server/compact >/dev/null || fail "compact s1"
create_joiner s2 "$REF_OVSDB_TOOL" s1
start_member s2 "$REF_OVSDB_SERVER"
wait_until 60 "reference s2 did not join our leader" is_member s2
create_joiner s3 "$REF_OVSDB_TOOL" s1 s2
start_member s3 "$REF_OVSDB_SERVER"
wait_until 60 "reference s3 did not join our leader" is_member s3
leader=$(wait_leader 30 s1 s2 s3)
expect_eq "$leader" s1 "leader after the joins"
wait_until 30 "s1 does not list 3 servers" n_servers s1 3

# 2. Forwarding from reference followers to our leader, and back.
echo before-join > expected
for n in s2 s3 s1; do
    insert $n "from-$n"
    echo "from-$n" >> expected
done
for n in s1 s2 s3; do
    wait_until 30 "$n does not serve the writes" has_names $n expected
done

# 3. Kill our leader under a writer; a reference member takes over.
: > acked
$WRITER write acked 120 200 w "$PWD/s2.sock" "$PWD/s3.sock" \
    "$PWD/s1.sock" > writer.out 2>&1 &
writer=$!
n_acked() { [ "$(wc -l < acked)" -ge "$1" ]; }
wait_until 60 "the writer got no acknowledgement" n_acked 30
kill_server s1
new_leader=$(wait_leader 60 s2 s3)
echo "new leader: $new_leader"
wait "$writer" || { cat writer.out; show_logs s2 s3; \
                    fail "the writer did not finish"; }
writer=
cat writer.out
for n in s2 s3; do
    wait_until 30 "$n lost acknowledged writes" has_names $n acked
done

# 4. Our s1 comes back as a follower of the reference leader.
start_member s1 "$OUR_SERVER"
wait_until 60 "s1 did not rejoin" is_member s1
has_role s1 follower || fail "s1 is not a follower: $(status s1)"
cat acked expected > all
wait_until 60 "s1 did not catch up" has_names s1 all
insert s1 from-s1-follower
echo from-s1-follower >> all
for n in s1 s2 s3; do
    wait_until 30 "$n does not serve s1's forwarded write" has_names $n all
    wait_until 30 "$n did not settle" settled $n
done
names s1 > final.s1
for n in s2 s3; do
    names $n > final.$n
    cmp -s final.s1 final.$n || fail "s1 and $n serve different rows"
done

# 5. monitor_cond_since clients move between ours and the reference's
# with found=true: the transaction ids are the Raft entry ids.
for pair in "s1 s2" "s2 s1" "s3 s1"; do
    resumes $pair || fail "a client of ${pair% *} does not resume on ${pair#* }"
done

# 6. The reference accepted every message of ours and agrees on the log.
for n in s2 s3; do
    ! grep -i 'Parsing raft\|not allowed here\|misrouted\|wrong cluster' \
        $n.log || fail "reference $n rejected a message"
done
for n in s1 s2 s3; do stop_server $n; done
"$REF_OVSDB_TOOL" check-cluster s1.db s2.db s3.db \
    || fail "the reference's check-cluster rejects the files"
echo PASS
