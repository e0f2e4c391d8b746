# tests/cluster/since-restart.sh: a clustered database keeps its
# monitor_cond_since history across a restart, as the reference's does: a
# client that saw a transaction before the restart gets only what came
# after it, not the whole database again (since-restart.py).  The same
# run against the reference, when it is installed.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
command -v python3 >/dev/null || skip "no python3 for the test client"
export PYTHONPATH=$OVSDB_SRCDIR/tests:$PYTHONPATH
PY="python3 $OVSDB_SRCDIR/tests/cluster/since-restart.py"

# check NAME SERVER TOOL
check() {
    name=$1 server=$2 tool=$3
    "$tool" create-cluster $name.db "$SCHEMA" tcp:127.0.0.1:6648 \
        || fail "$name: create-cluster"
    serve $name "$server" $name.db
    $PY before "$SOCK" $name.state || fail "$name: before the restart"
    stop_server $name
    serve $name "$server" $name.db
    $PY after "$SOCK" $name.state || fail "$name: after the restart"
    stop_server $name
}
check ours "$OUR_SERVER" "$OUR_TOOL"
if has_reference; then
    check ref "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL"
fi
