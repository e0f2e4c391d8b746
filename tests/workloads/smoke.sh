# tests/workloads/smoke.sh: every workload at a small scale, for correctness
# only (no timing assertions), against our server when it can serve
# transactions and against the reference ovsdb-server when installed.
#
# ovsdb-workload checks every reply and the final database contents and
# exits 1 on any error.  Our server counts as "able to serve" once it starts
# on a database made by our ovsdb-tool and answers list_dbs and a select
# (ovsdb-workload --probe); until then its part is skipped (exit 77, with
# the reason), after the reference part has run.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"

schema=$OVSDB_SRCDIR/tests/workloads/workload.ovsschema
driver=$OVSDB_BUILDDIR/tests/workloads/ovsdb-workload
[ -x "$driver" ] || fail "$driver not built"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null || true; done' EXIT

# start_server DIR SERVER TOOL: creates DIR/db and serves it on
# unix:DIR/db.sock.  Returns nonzero, with the reason in DIR/why, if that
# fails.
start_server() {
    dir=$PWD/$1 server=$2 tool=$3
    mkdir -p "$dir"
    if ! "$tool" create "$dir/db" "$schema" >"$dir/why" 2>&1; then
        return 1
    fi
    "$server" "$dir/db" --remote=punix:"$dir/db.sock" \
        --unixctl="$dir/ctl" --log-file="$dir/log" >"$dir/out" 2>&1 &
    echo $! >"$dir/pid"
    pids="$pids $!"
    i=0
    while [ $i -lt 100 ]; do
        if [ -S "$dir/db.sock" ] \
               && "$driver" --probe "unix:$dir/db.sock" 2>"$dir/why"; then
            return 0
        fi
        kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    kill "$(cat "$dir/pid")" 2>/dev/null || true
    [ -s "$dir/why" ] || tail -n 1 "$dir/out" >"$dir/why"
    return 1
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

ran_reference=false
if has_reference; then
    start_server ref "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL" \
        || fail "reference server did not start: $(cat ref/why)"
    run_all reference ref
    ran_reference=true
fi

if start_server ours "$OVSDB_BUILDDIR/ovsdb/ovsdb-server" \
       "$OVSDB_BUILDDIR/ovsdb/ovsdb-tool"; then
    run_all ours ours
else
    $ran_reference && echo "reference: all workloads passed"
    skip "our server cannot serve transactions yet: $(head -c 200 ours/why)"
fi
