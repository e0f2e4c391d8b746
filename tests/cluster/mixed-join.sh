#!/bin/sh
# tests/cluster/mixed-join.sh: a member of ours joins a cluster of the
# reference 3.1 after the reference compacted its log, so that it needs
# the leader's snapshot (install_snapshot_request), then serves the data,
# forwards writes to the reference leader, takes over as leader when the
# reference leader leaves with "ovs-appctl exit" (become_leader), and
# keeps the reference as a follower.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
has_reference || skip "reference ovsdb-server not installed"
command -v python3 >/dev/null || skip "no python3 for the test clients"

# 1. A reference cluster of two, with data, compacted.
create_first s1 "$REF_OVSDB_TOOL"
start_member s1 "$REF_OVSDB_SERVER"
wait_until 30 "reference s1 never became leader" has_role s1 leader
create_joiner s2 "$REF_OVSDB_TOOL" s1
start_member s2 "$REF_OVSDB_SERVER"
wait_until 60 "reference s2 did not join" is_member s2
: > expected
for i in 1 2 3 4 5; do
    insert s1 "ref-$i"
    echo "ref-$i" >> expected
done
appctl s1 ovsdb-server/compact >/dev/null || fail "compact s1"
status s1 | grep -q '^Log: \[[2-9]' || status s1 | grep -q '^Log: \[[1-9][0-9]' \
    || fail "s1 did not compact: $(status s1)"

# 2. Ours joins through both: it needs the snapshot.
create_joiner s3 "$OUR_TOOL" s1 s2
start_member s3 "$OUR_SERVER"
wait_until 60 "s3 did not join the reference cluster" is_member s3
grep -q 'installed snapshot' s3.log || fail "s3 installed no snapshot"
wait_until 30 "s3 does not serve the reference's data" has_names s3 expected
wait_until 30 "the reference does not list s3" n_servers s1 3

# 3. Writes on ours are forwarded to the reference leader.
for i in 1 2 3; do
    insert s3 "ours-$i"
    echo "ours-$i" >> expected
done
for n in s1 s2 s3; do
    wait_until 30 "$n does not serve s3's writes" has_names $n expected
done

# 4. The reference leader exits cleanly and hands over leadership; if ours
# gets it, the reference follows ours.
"$REF_OVSDB_CLIENT" --version >/dev/null
appctl s1 exit >/dev/null 2>&1 || true
wait_exit "$(cat s1.pid)" || fail "s1 did not exit"
leader=$(wait_leader 60 s2 s3)
echo "leader after s1 exited: $leader"
insert s2 from-s2
insert s3 from-s3
printf 'from-s2\nfrom-s3\n' >> expected
for n in s2 s3; do
    wait_until 30 "$n does not serve the writes" has_names $n expected
done
start_member s1 "$REF_OVSDB_SERVER"
wait_until 60 "s1 did not come back" is_member s1
wait_until 60 "s1 did not catch up" has_names s1 expected
if [ "$leader" = s3 ]; then
    has_role s1 follower || fail "reference s1 does not follow ours"
fi
for n in s1 s2; do
    ! grep -i 'Parsing raft\|not allowed here\|misrouted\|wrong cluster' \
        $n.log || fail "reference $n rejected a message"
done
for n in s1 s2 s3; do stop_server $n; done
"$REF_OVSDB_TOOL" check-cluster s1.db s2.db s3.db \
    || fail "the reference's check-cluster rejects the files"
echo PASS
