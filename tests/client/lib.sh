# tests/client/lib.sh: helpers for the ovsdb-client tests.  Source it after
# tests/e2e/lib.sh (servers: serve, create_db, stop_server there).
#
#   start_test_server SCHEMA...
#                           creates one database per SCHEMA and serves them
#                           on unix:$PWD/srv.sock (sets $SOCK): with our
#                           server and tool, or with the reference's when
#                           $CLIENT_TEST_SERVER=ref (tests/client/
#                           ref-server.sh compares against it by name).
#   serve_schemas SERVER_BIN TOOL_BIN NAME SCHEMA...
#                           the same with the given programs, on NAME.sock.
#   $CLIENT_TEST_OUR_SERVER overrides which program is "our" server (e.g. a
#   server built in another worktree).
#   stop_servers            kills every server started (also at exit).
#   mask FILE               prints FILE with UUIDs as <uuid> and times as
#                           <time>, and log lines removed.
#   sort_blocks             sorts the lines of each blank-line-separated
#                           block of stdin (the reference prints rows in
#                           hash order).
#   same_output NAME CMD... runs "CMD..." with our client and the
#                           reference client, compares (masked) stdout,
#                           stderr and exit status; fails on a difference.
#   same_sorted NAME CMD... same, but compares sort_blocks of stdout.

OUR_SERVER=${CLIENT_TEST_OUR_SERVER:-$OUR_SERVER}
SCHEMAS=$OVSDB_SRCDIR/tests/data/schemas

# The reference writes its control socket and logs under these.
export OVS_RUNDIR=$PWD OVS_LOGDIR=$PWD OVS_DBDIR=$PWD

# Tests here add the servers they start themselves to $server_pids.
server_pids=
stop_servers() {
    kill_servers
    for pid in $server_pids; do
        kill "$pid" 2>/dev/null || true
    done
    SERVER_PIDS= server_pids=
}
trap stop_servers EXIT

serve_schemas() {
    server_bin=$1 tool_bin=$2 name=$3
    shift 3
    dbs=
    for schema in "$@"; do
        db=$name.$(basename "$schema" .ovsschema).db
        create_db "$tool_bin" "$db" "$schema"
        dbs="$dbs $db"
    done
    # shellcheck disable=SC2086
    serve "$name" "$server_bin" $dbs
}

start_test_server() {
    if [ "${CLIENT_TEST_SERVER:-}" = ref ]; then
        echo "server: reference"
        serve_schemas "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL" srv "$@"
    else
        echo "server: ours"
        serve_schemas "$OUR_SERVER" "$OUR_TOOL" srv "$@"
    fi
}

mask() {
    h='[0-9a-f]'
    d='[0-9]'
    sed -E "s/$h{8}-$h{4}-$h{4}-$h{4}-$h{12}/<uuid>/g
            s/$d{4}-$d{2}-$d{2} $d{2}:$d{2}:$d{2}\.$d{3}/<time>/g
            /\|(INFO|WARN|DBG)\|/d" "$@"
}

sort_blocks() {
    awk 'BEGIN { cmd = "sort" }
         /^$/ { close(cmd); print ""; fflush(); next }
         { print | cmd }
         END { close(cmd) }'
}

# sort_json_rows: for --format=json output on stdin, one table per line,
# sorts each table's "data" rows, keeping a monitor's "new" row (whose
# first cell is "") after its "old" row.
sort_json_rows() {
    python3 -c '
import json, sys
for line in sys.stdin:
    t = json.loads(line)
    groups = []
    for row in t.get("data", []):
        if row and row[0] == "" and groups:
            groups[-1].append(row)
        else:
            groups.append([row])
    groups.sort(key=lambda g: json.dumps(g, sort_keys=True))
    t["data"] = [row for g in groups for row in g]
    print(json.dumps(t, sort_keys=True, separators=(",", ":")))
'
}

# run_both NAME CMD...: runs CMD with both clients; NAME.our.* / NAME.ref.*
run_both() {
    name=$1
    shift
    set +e
    "$OUR_CLIENT" "$@" >"$name.our.out" 2>"$name.our.err"
    echo $? >"$name.our.rc"
    "$REF_OVSDB_CLIENT" "$@" >"$name.ref.out" 2>"$name.ref.err"
    echo $? >"$name.ref.rc"
    set -e
    # The reference's program name and ours may differ in path only.
    sed -i 's/^[^:]*ovsdb-client: /ovsdb-client: /' "$name.our.err" \
        "$name.ref.err"
}

compare_files() {
    if ! diff -u "$2" "$3" >"$1.diff"; then
        cat "$1.diff"
        fail "$1: our ovsdb-client differs from the reference"
    fi
}

same_output() {
    name=$1
    shift
    run_both "$name" "$@"
    mask "$name.our.out" >"$name.our.m"
    mask "$name.ref.out" >"$name.ref.m"
    compare_files "$name" "$name.ref.m" "$name.our.m"
    compare_files "$name.rc" "$name.ref.rc" "$name.our.rc"
    echo "same: $*"
}

same_sorted() {
    name=$1
    shift
    run_both "$name" "$@"
    mask "$name.our.out" | sort_blocks >"$name.our.m"
    mask "$name.ref.out" | sort_blocks >"$name.ref.m"
    compare_files "$name" "$name.ref.m" "$name.our.m"
    compare_files "$name.rc" "$name.ref.rc" "$name.our.rc"
    echo "same (sorted): $*"
}

# same_error NAME CMD...: both fail with the same status and message.
same_error() {
    name=$1
    shift
    run_both "$name" "$@"
    compare_files "$name.rc" "$name.ref.rc" "$name.our.rc"
    [ "$(cat "$name.our.rc")" != 0 ] || fail "$name: succeeded"
    compare_files "$name.err" "$name.ref.err" "$name.our.err"
    echo "same error: $(cat "$name.our.err")"
}
