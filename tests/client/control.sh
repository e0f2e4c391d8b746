# tests/client/control.sh: a running ovsdb-client under control, as the
# reference's test suite drives it: a detached monitor-cond whose condition
# "ovs-appctl ovsdb-client/cond_change TABLE COND" changes (the rows that
# leave and enter are printed), "ovsdb-client/block" and "unblock", and a
# detached "transact" (--db-change-aware) that waits for a row and prints
# its result once another client inserts it.  With the reference client
# installed, its outputs are compared with ours.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/client/lib.sh"
command -v ovs-appctl >/dev/null || skip "ovs-appctl not installed"

start_test_server "$SCHEMAS/types.ovsschema"
S=$SOCK
"$OUR_CLIENT" transact "$S" '["Types",
  {"op":"insert","table":"T","row":{"i":1,"s":"one"}},
  {"op":"insert","table":"T","row":{"i":2,"s":"two"}}]' >/dev/null

# run_client WHO BIN: the steps, in directory WHO.
run_client() {
    mkdir "$1" && cd "$1"
    bin=$2
    # Both find the control socket through the pidfile in the run
    # directory.
    OVS_RUNDIR=$PWD
    export OVS_RUNDIR
    "$bin" --detach --no-chdir --pidfile monitor-cond --format=csv "$S" Types \
        '[["i","==",1]]' T i,s > mon.out 2> mon.err \
        || fail "$1: monitor-cond did not start: $(cat mon.err)"
    grep -q ',one$' mon.out || fail "$1: no initial row: $(cat mon.out)"
    reply=$(ovs-appctl -t ovsdb-client ovsdb-client/cond_change T \
        '[["i","==",2]]') || fail "$1: cond_change failed"
    echo "cond_change: $reply" > replies
    wait_until 30 "$1: the new condition's row never came" \
        grep -q ',two$' mon.out
    wait_until 30 "$1: the old condition's row never left" \
        grep -q ',delete,' mon.out
    ovs-appctl -t ovsdb-client ovsdb-client/block >> replies
    ovs-appctl -t ovsdb-client ovsdb-client/unblock >> replies
    "$OUR_CLIENT" transact "$S" '["Types",{"op":"insert","table":"T",
        "row":{"i":2,"s":"again"}}]' >/dev/null
    wait_until 30 "$1: no update after unblock" grep -q ',again$' mon.out
    kill "$(cat ovsdb-client.pid)"

    # A detached transaction that waits for a row to exist.
    "$bin" --detach --no-chdir --pidfile="$PWD/txn.pid" --db-change-aware \
        transact "$S" '["Types",{"op":"wait","table":"T","timeout":60000,
        "where":[["i","==",7]],"columns":["i"],"until":"==",
        "rows":[{"i":7}]},{"op":"select","table":"T",
        "where":[["i","==",7]],"columns":["s"]}]' > txn.out 2> txn.err \
        || fail "$1: detached transact failed: $(cat txn.err)"
    [ -s txn.out ] && fail "$1: transact answered before the row existed"
    "$OUR_CLIENT" transact "$S" "[\"Types\",{\"op\":\"insert\",\"table\":\"T\",
        \"row\":{\"i\":7,\"s\":\"$1\"}}]" >/dev/null
    wait_until 30 "$1: the detached transact never printed" test -s txn.out
    grep -q "\"$1\"" txn.out || fail "$1: transact printed $(cat txn.out)"
    # The next client starts from the same rows.
    "$OUR_CLIENT" transact "$S" '["Types",{"op":"delete","table":"T",
        "where":[["i","==",7]]},{"op":"delete","table":"T",
        "where":[["s","==","again"]]}]' >/dev/null
    mask mon.out | sort > mon.masked
    cd ..
    OVS_RUNDIR=$PWD
}
run_client ours "$OUR_CLIENT"
cat ours/replies ours/mon.masked
expect_eq "$(cat ours/replies)" "cond_change: condition changed" "replies"
if has_reference; then
    run_client ref "$REF_OVSDB_CLIENT"
    diff -u ref/replies ours/replies || fail "control replies differ"
    diff -u ref/mon.masked ours/mon.masked || fail "monitor outputs differ"
    sed "s/\"ref\"/\"ours\"/" ref/txn.out | diff -u - ours/txn.out \
        || fail "transact outputs differ"
else
    echo "reference ovsdb-client not installed: not compared"
fi
echo PASS
