# tests/workloads/smoke.sh: every workload at a small scale, for correctness
# only (no timing assertions), against our server and against the
# reference ovsdb-server when installed.
#
# ovsdb-workload checks every reply and the final database contents and
# exits 1 on any error.  Each server must start on a database made by its
# own ovsdb-tool and answer list_dbs and a select (ovsdb-workload --probe).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"

schema=$OVSDB_SRCDIR/tests/workloads/workload.ovsschema
driver=$OVSDB_BUILDDIR/tests/workloads/ovsdb-workload
[ -x "$driver" ] || fail "$driver not built"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null || true; done' EXIT

# start_server DIR SERVER TOOL: creates DIR/db and serves it on
# unix:DIR/db.sock, then checks that it answers list_dbs and a select
# (ovsdb-workload --probe); fails if any of that fails.
start_server() {
    dir=$PWD/$1 server=$2 tool=$3
    mkdir -p "$dir"
    create_db "$tool" "$dir/db" "$schema"
    "$server" "$dir/db" --remote=punix:"$dir/db.sock" \
        --unixctl="$dir/ctl" --log-file="$dir/log" >"$dir/out" 2>&1 &
    echo $! >"$dir/pid"
    pids="$pids $!"
    wait_socket "$(cat "$dir/pid")" "$dir/db.sock" "$dir/out"
    "$driver" --probe "unix:$dir/db.sock" 2>"$dir/why" \
        || fail "$1: ovsdb-workload --probe failed: $(cat "$dir/why")"
}

# run_all NAME DIR: runs every workload against DIR's server and checks the
# output: one line per workload, all "ok":true, then the server still up.
run_all() {
    name=$1 dir=$PWD/$2
    "$driver" --scale=0.01 --workers=4 "unix:$dir/db.sock" all \
        >"$dir/results.jsonl" || fail "$name: ovsdb-workload failed"
    cat "$dir/results.jsonl"
    n=$(grep -c '"ok":true' "$dir/results.jsonl")
    expect_eq "$n" 5 "$name: workloads passed"
    for w in update1 update2 insert queue size; do
        grep -q "\"workload\":\"$w\",\"ok\":true" "$dir/results.jsonl" \
            || fail "$name: no result for $w"
    done
    kill -0 "$(cat "$dir/pid")" || fail "$name: server died"

    # The driver must notice errors: a wrong database name and a socket
    # nobody listens on both fail.
    if "$driver" --scale=0.01 --workers=2 --db=NoSuchDb \
           "unix:$dir/db.sock" insert >/dev/null 2>&1; then
        fail "$name: a workload on a missing database passed"
    fi
    if "$driver" --scale=0.01 "unix:$dir/nobody.sock" update1 \
           >/dev/null 2>&1; then
        fail "$name: a workload without a server passed"
    fi
    kill "$(cat "$dir/pid")"
}

if has_reference; then
    start_server ref "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL"
    run_all reference ref
fi

start_server ours "$OVSDB_BUILDDIR/ovsdb/ovsdb-server" \
    "$OVSDB_BUILDDIR/ovsdb/ovsdb-tool"
run_all ours ours
