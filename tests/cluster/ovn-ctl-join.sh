#!/bin/sh
# tests/cluster/ovn-ctl-join.sh: OVN's start script, ovn-ctl, brings up a
# three-member clustered Northbound database of ours, the way a
# deployment does (--db-nb-cluster-local-addr on the first member, plus
# --db-nb-cluster-remote-addr on the others, which run join-cluster), and
# then adds a member of ours to a running cluster of the reference's.
# ovn-nbctl writes through the leader and through a follower
# (--no-leader-only), and every member serves the data.  Skipped when
# ovn-ctl or ovn-nbctl is not installed; the mixed half needs the
# reference.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
OVN_CTL=/usr/share/ovn/scripts/ovn-ctl
[ -x $OVN_CTL ] || skip "ovn-ctl is not installed (ovn-common)"
command -v ovn-nbctl >/dev/null || skip "ovn-nbctl is not installed"
OURS_PATH="$OVSDB_BUILDDIR/ovsdb:$PATH"
REF_PATH="/usr/sbin:/usr/bin:$PATH"
members=
trap 'for m in $members; do ctl_env $m; $OVN_CTL stop_nb_ovsdb >/dev/null 2>&1; done' EXIT

# ctl_env M: the environment of member M's ovn-ctl (its own directories).
ctl_env() {
    mkdir -p $PWD/$1/run $PWD/$1/db $PWD/$1/log
    export OVN_RUNDIR=$PWD/$1/run OVN_DBDIR=$PWD/$1/db \
        OVN_LOGDIR=$PWD/$1/log OVS_RUNDIR=$PWD/$1/run
}
# start_member M PATH PORT [REMOTE-PORT]: starts member M's NB database
# with the programs first on PATH, its Raft port PORT, joining the member
# at REMOTE-PORT if given.
start_member() {
    ctl_env $1
    members="$members $1"
    _join=
    [ -n "$4" ] && _join="--db-nb-cluster-remote-addr=127.0.0.1 --db-nb-cluster-remote-port=$4"
    PATH=$2 $OVN_CTL --db-nb-cluster-local-addr=127.0.0.1 \
        --db-nb-cluster-local-port=$3 $_join \
        --db-nb-create-insecure-remote=no start_nb_ovsdb > $1.start 2>&1 \
        || fail "$1: start_nb_ovsdb: $(cat $1.start)"
}
nb() { echo "unix:$PWD/$1/run/ovnnb_db.sock"; }
status() {
    ovs-appctl --timeout=30 -t $PWD/$1/run/ovnnb_db.ctl cluster/status \
        OVN_Northbound 2>/dev/null
}
n_servers() {
    [ "$(status $1 | sed -n '/^Servers:/,$p' | grep -c ' at ')" = "$2" ]
}
is_member() {
    status $1 | grep -q '^Status: cluster member$' \
        && ! status $1 | grep -q '^Leader: unknown$'
}
has_switch() {
    ovn-nbctl --no-leader-only --db=$(nb $1) ls-list 2>/dev/null \
        | grep -q "($2)"
}
exe_is() {
    expect_eq "$(readlink /proc/$(cat $1/run/ovnnb_db.pid)/exe)" "$2" \
        "$1's server"
}

# 1. Three members of ours.
p1=$(free_port) p2=$(free_port) p3=$(free_port)
start_member a1 "$OURS_PATH" $p1
start_member a2 "$OURS_PATH" $p2 $p1
start_member a3 "$OURS_PATH" $p3 $p1
for m in a1 a2 a3; do
    exe_is $m "$OVSDB_BUILDDIR/ovsdb/ovsdb-server"
    wait_until 60 "$m is not a member" is_member $m
done
wait_until 30 "a1 does not list 3 servers" n_servers a1 3
status a1 | grep -q '^Role: leader$' || fail "a1 is not leader: $(status a1)"
ovn-nbctl --db=$(nb a1) ls-add sw-leader || fail "ls-add on the leader"
ovn-nbctl --no-leader-only --db=$(nb a3) ls-add sw-follower \
    || fail "ls-add on a follower"
for m in a1 a2 a3; do
    for sw in sw-leader sw-follower; do
        wait_until 30 "$m does not serve $sw" has_switch $m $sw
    done
done

# 2. A member of ours joins two of the reference's.
has_reference || { echo "reference not installed: mixed half skipped"; \
                   echo PASS; exit 0; }
p4=$(free_port) p5=$(free_port) p6=$(free_port)
start_member r1 "$REF_PATH" $p4
start_member r2 "$REF_PATH" $p5 $p4
exe_is r1 "$REF_OVSDB_SERVER"
wait_until 60 "r2 is not a member" is_member r2
ovn-nbctl --db=$(nb r1) ls-add sw-ref || fail "ls-add on the reference"
start_member o3 "$OURS_PATH" $p6 $p4
exe_is o3 "$OVSDB_BUILDDIR/ovsdb/ovsdb-server"
wait_until 60 "o3 did not join the reference cluster" is_member o3
wait_until 30 "r1 does not list 3 servers" n_servers r1 3
wait_until 30 "o3 does not serve sw-ref" has_switch o3 sw-ref
ovn-nbctl --no-leader-only --db=$(nb o3) ls-add sw-ours \
    || fail "ls-add on our follower"
for m in r1 r2 o3; do
    wait_until 30 "$m does not serve sw-ours" has_switch $m sw-ours
done
echo PASS
