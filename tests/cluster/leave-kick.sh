#!/bin/sh
# tests/cluster/leave-kick.sh: membership changes in a cluster of four of
# our servers: cluster/change-election-timer, cluster/kick from a follower
# and from the leader, cluster/leave on a follower and on the leader
# (leadership moves first).  A removed server stops serving the database.
# When the reference is installed, the same scenario runs on a reference
# cluster and every control command must answer the same words.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"

# ctl NAME ARGS...: runs the command, records its reply (or error) in
# $replies with the server ids masked.
ctl() {
    _n=$1
    shift
    _out=$(appctl "$_n" "$@" 2>&1) && _rc=0 || _rc=$?
    printf '%s [%s] => %s\n' "$*" "$_rc" "$_out" \
        | sed -e 's/[0-9a-f]\{8\}-[0-9a-f-]\{27\}/<uuid>/g' \
              -e 's/\b[0-9a-f]\{4\}\b/<id>/g' \
              -e 's|[^ ]*/\(s[0-9]\.ctl\)|\1|g' >> "$replies"
}
gone() { ! appctl "$1" cluster/status $DB >/dev/null 2>&1; }
timer_is() { status "$1" | grep -q "^Election timer: $2\$"; }

scenario() {
    prog=$1 tool=$2 replies=$PWD/replies.$3
    : > "$replies"
    mkdir "$3" && cd "$3"
    create_first s1 "$tool"
    start_member s1 "$prog"
    wait_until 30 "s1 never became leader" has_role s1 leader
    for n in s2 s3 s4; do
        create_joiner $n "$tool" s1
        start_member $n "$prog"
        wait_until 60 "$n did not join" is_member $n
    done
    wait_until 30 "s1 does not list 4 servers" n_servers s1 4

    # Election timer: only through the leader, at most doubling.
    ctl s2 cluster/change-election-timer $DB 2000
    ctl s1 cluster/change-election-timer $DB 5000
    ctl s1 cluster/change-election-timer $DB 50
    ctl s1 cluster/change-election-timer $DB 2000
    for n in s1 s2 s3 s4; do
        wait_until 30 "$n timer did not change" timer_is $n 2000
    done
    ctl s1 cluster/change-election-timer $DB 2000
    ctl s1 cluster/change-election-timer $DB 1000
    for n in s1 s2 s3 s4; do
        wait_until 30 "$n timer did not change back" timer_is $n 1000
    done

    # Kick s4 from a follower, then a bad name.
    ctl s2 cluster/kick $DB "$(appctl s4 cluster/sid $DB)"
    wait_until 30 "s1 still lists s4" n_servers s1 3
    wait_until 30 "s4 still serves the database" gone s4
    ctl s2 cluster/kick $DB nosuchserver

    # s3 leaves; then the leader s1 leaves and s2 takes over.
    ctl s3 cluster/leave $DB
    wait_until 30 "s1 still lists s3" n_servers s1 2
    wait_until 30 "s3 still serves the database" gone s3
    ctl s1 cluster/leave $DB
    wait_until 30 "s2 did not take over" has_role s2 leader
    wait_until 30 "s2 still lists s1" n_servers s2 1
    wait_until 30 "s1 still serves the database" gone s1
    insert s2 alone
    names s2 | grep -q '^alone$' || fail "s2 lost its write"
    ctl s2 cluster/leave $DB
    kill_servers
    cd ..
}

scenario "$OUR_SERVER" "$OUR_TOOL" ours
cat replies.ours
grep -q 'started removal\|sent removal request to leader' replies.ours \
    || fail "kick did not start"
if has_reference; then
    scenario "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL" ref
    diff replies.ref replies.ours > replies.diff \
        || fail "replies differ from the reference's: $(cat replies.diff)"
else
    echo "reference not installed: replies not compared"
fi
echo PASS
