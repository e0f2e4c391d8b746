#!/bin/sh
# tests/cluster/convert.sh: online "convert" of a clustered database with
# several members.  The conversion is one Raft entry [SCHEMA, SNAPSHOT]
# that every member applies, as the reference's: sent to our leader or to
# a follower of ours (which forwards it, as the reference does), the
# client is answered once the entry is committed; every member then serves
# the new schema with the data kept, a monitoring client of each member
# gets "monitor_canceled", and a restarted member still has the new schema.
# With the reference installed: a conversion sent to a reference leader is
# applied by our follower, and one sent to our leader by reference
# followers; the reference's check-cluster reads every file.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
trap 'kill_servers; kill $MONITORS 2>/dev/null || true' EXIT

# monitor NAME: a client of NAME (aware of database changes, so told, not
# disconnected) that monitors Root and writes the notification's params
# to NAME.canceled when the server cancels its monitor.
MONITORS=
monitor() {
    rm -f "$1.canceled" "$1.monitoring"
    python3 - "$PWD/$1.sock" "$1" <<'PY' &
import sys, rpc
c = rpc.Client("unix:" + sys.argv[1], timeout=120)
c.result("set_db_change_aware", [True])
c.result("monitor_cond", ["Store", "m", {"Root": [{"columns": ["name"]}]}])
open(sys.argv[2] + ".monitoring", "w").close()
n = c.wait_notify("monitor_canceled")
open(sys.argv[2] + ".canceled", "w").write("%s\n" % n["params"])
PY
    MONITORS="$MONITORS $!"
    wait_until 30 "the monitor of $1 did not start" test -e "$1.monitoring"
}

# convert NAME VERSION: ovsdb-client convert on member NAME to schema
# VERSION; fails unless the client succeeds.
convert() {
    "$OUR_CLIENT" convert "unix:$PWD/$1.sock" "schema.$2" > "convert.$1.out" \
        2>&1 || fail "convert on $1 to $2: $(cat "convert.$1.out")"
}

# check_all VERSION NAMES...: every member serves VERSION and the rows of
# 'expected', and has no entry left to apply.
check_all() {
    _v=$1
    shift
    for _n in "$@"; do
        wait_until 30 "$_n does not serve schema $_v" has_version $_n $_v
        wait_until 30 "$_n lost rows in the conversion" has_names $_n expected
        wait_until 30 "$_n did not settle" settled $_n
    done
}

# 1. Three members of ours.
three_of_ours
leader=$(wait_leader 30 s1 s2 s3)
: > expected
for i in 1 2 3; do
    insert "$leader" "row-$i"
    echo "row-$i" >> expected
done
for n in s1 s2 s3; do
    wait_until 30 "$n does not serve the writes" has_names $n expected
done

# 2. A "convert" request whose schema has an ephemeral column is refused
# before anything is proposed, with the words the reference's members log
# when they fail to apply one; ovsdb-client convert, as the reference's,
# makes such columns persistent for a clustered database, and says so.
# Then convert through the leader: every member applies it, monitors are
# canceled, writes go on in the new schema.
new_schema 9.9.9
python3 - "$PWD/$leader.sock" schema.9.9.9 > bad.out <<'PY'
import json, sys, rpc
c = rpc.Client("unix:" + sys.argv[1])
print(c.call("convert", ["Store", json.load(open(sys.argv[2]))]))
PY
grep -q "column scratch is ephemeral but clustered databases do not support ephemeral columns" bad.out \
    || fail "an ephemeral column was not refused: $(cat bad.out)"
convert "$leader" 9.9.9
grep -q "changed 1 columns in 'Store' database from ephemeral to persistent" \
    "convert.$leader.out" || fail "no warning: $(cat "convert.$leader.out")"
check_all 9.9.9 s1 s2 s3
new_schema 2.0.0
for n in s1 s2 s3; do monitor $n; done
convert "$leader" 2.0.0
# The client was answered after the commit: the leader serves it at once.
expect_eq "$(version "$leader")" 2.0.0 "leader's schema after the reply"
check_all 2.0.0 s1 s2 s3
for n in s1 s2 s3; do
    wait_until 30 "the monitor of $n was not canceled" test -s "$n.canceled"
done
insert "$leader" after-convert
echo after-convert >> expected

# 3. Convert through a follower of ours: it is forwarded to the leader.
follower=
for n in s1 s2 s3; do
    [ $n = "$leader" ] || { follower=$n; break; }
done
new_schema 3.0.0
convert "$follower" 3.0.0
expect_eq "$(version "$follower")" 3.0.0 "follower's schema after the reply"
check_all 3.0.0 s1 s2 s3
insert "$follower" after-forwarded
echo after-forwarded >> expected
check_all 3.0.0 s1 s2 s3

# 4. A restarted member (the leader, killed) still has the new schema, and
# so does a member restarted after a compaction.
kill_server "$leader"
start_member "$leader" "$OUR_SERVER"
wait_until 60 "$leader did not rejoin" is_member "$leader"
appctl "$follower" ovsdb-server/compact >/dev/null || fail "compact $follower"
kill_server "$follower"
start_member "$follower" "$OUR_SERVER"
wait_until 60 "$follower did not rejoin" is_member "$follower"
check_all 3.0.0 s1 s2 s3
kill_servers
SERVER_PIDS=

if ! has_reference; then
    echo "PASS (mixed clusters skipped: reference ovsdb-server not installed)"
    exit 0
fi
"$REF_OVSDB_TOOL" check-cluster s1.db s2.db s3.db \
    || fail "reference check-cluster rejects our files"

# 5. A reference leader with a follower of ours: convert on the leader.
rm -f r*.db
create_first r1 "$REF_OVSDB_TOOL"
start_member r1 "$REF_OVSDB_SERVER"
wait_until 30 "r1 never became leader" has_role r1 leader
create_joiner r2 "$OUR_TOOL" r1
start_member r2 "$OUR_SERVER"
wait_until 60 "our r2 did not join the reference" is_member r2
create_joiner r3 "$REF_OVSDB_TOOL" r1 r2
start_member r3 "$REF_OVSDB_SERVER"
wait_until 60 "r3 did not join" is_member r3
leader=$(wait_leader 30 r1 r2 r3)
expect_eq "$leader" r1 "leader of the reference cluster"
: > expected
insert r1 ref-row
echo ref-row >> expected
monitor r2
convert r1 2.0.0
check_all 2.0.0 r1 r2 r3
wait_until 30 "the monitor of r2 was not canceled" test -s r2.canceled
# Forwarded by our follower to the reference leader.
convert r2 3.0.0
expect_eq "$(version r2)" 3.0.0 "our follower's schema after the reply"
check_all 3.0.0 r1 r2 r3
kill_servers
SERVER_PIDS=
"$REF_OVSDB_TOOL" check-cluster r1.db r2.db r3.db \
    || fail "reference check-cluster rejects the mixed files"

# 6. A leader of ours with reference followers: convert on our leader, and
# on a reference follower (which forwards it to ours).
create_first m1 "$OUR_TOOL"
start_member m1 "$OUR_SERVER"
wait_until 30 "m1 never became leader" has_role m1 leader
create_joiner m2 "$REF_OVSDB_TOOL" m1
start_member m2 "$REF_OVSDB_SERVER"
wait_until 60 "reference m2 did not join" is_member m2
create_joiner m3 "$REF_OVSDB_TOOL" m1 m2
start_member m3 "$REF_OVSDB_SERVER"
wait_until 60 "reference m3 did not join" is_member m3
leader=$(wait_leader 30 m1 m2 m3)
expect_eq "$leader" m1 "leader of the mixed cluster"
: > expected
insert m1 our-row
echo our-row >> expected
monitor m3
convert m1 2.0.0
check_all 2.0.0 m1 m2 m3
wait_until 30 "the monitor of m3 was not canceled" test -s m3.canceled
convert m2 3.0.0
check_all 3.0.0 m1 m2 m3
kill_servers
SERVER_PIDS=
"$REF_OVSDB_TOOL" check-cluster m1.db m2.db m3.db \
    || fail "reference check-cluster rejects the files of our leader"
echo PASS
