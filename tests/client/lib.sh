# tests/client/lib.sh: helpers for the ovsdb-client tests.  Source it after
# tests/e2e/lib.sh.
#
#   start_server SERVER_BIN TOOL_BIN NAME SCHEMA...
#       creates one database per SCHEMA with TOOL_BIN and serves them with
#       SERVER_BIN on unix:$PWD/NAME.sock; sets $SOCK to that remote.
#   stop_servers            kills every server started (also at exit).
#   $CLIENT_TEST_OUR_SERVER overrides which program is "our" server (e.g. a
#   server built in another worktree).
#   start_test_server SCHEMA...
#                           start_server with our server and tool when our
#                           server serves ($CLIENT_TEST_SERVER=ref forces
#                           the reference), else the reference's.
#   our_server_works        true if the built ovsdb-server serves.
#   mask FILE               prints FILE with UUIDs as <uuid> and times as
#                           <time>, and log lines removed.
#   sort_blocks             sorts the lines of each blank-line-separated
#                           block of stdin (the reference prints rows in
#                           hash order).
#   same_output NAME CMD... runs "CMD..." with our client and the
#                           reference client, compares (masked) stdout,
#                           stderr and exit status; fails on a difference.
#   same_sorted NAME CMD... same, but compares sort_blocks of stdout.

OUR_CLIENT=$OVSDB_BUILDDIR/ovsdb/ovsdb-client
OUR_SERVER=${CLIENT_TEST_OUR_SERVER:-$OVSDB_BUILDDIR/ovsdb/ovsdb-server}
OUR_TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SCHEMAS=$OVSDB_SRCDIR/tests/data/schemas

# The reference writes its control socket and logs under these.
export OVS_RUNDIR=$PWD OVS_LOGDIR=$PWD OVS_DBDIR=$PWD

server_pids=
stop_servers() {
    for pid in $server_pids; do
        kill "$pid" 2>/dev/null || true
    done
    server_pids=
}
trap stop_servers EXIT

start_server() {
    server_bin=$1 tool_bin=$2 name=$3
    shift 3
    dbs=
    for schema in "$@"; do
        db=$name.$(basename "$schema" .ovsschema).db
        rm -f "$db"
        "$tool_bin" create "$db" "$schema" || fail "$tool_bin create $db"
        dbs="$dbs $db"
    done
    # shellcheck disable=SC2086
    "$server_bin" --remote="punix:$PWD/$name.sock" \
        --unixctl="$PWD/$name.ctl" --log-file="$PWD/$name.log" \
        $dbs 2>>"$name.err" &
    server_pids="$server_pids $!"
    SOCK=unix:$PWD/$name.sock
    i=0
    while [ ! -S "$name.sock" ]; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "$server_bin did not start: $(cat $name.err)"
        sleep 0.05
    done
}

our_server_works() {
    rm -f probe.db
    "$OUR_TOOL" create probe.db "$SCHEMAS/types.ovsschema" 2>/dev/null \
        || return 1
    "$OUR_SERVER" --remote="punix:$PWD/probe.sock" \
        --unixctl="$PWD/probe.ctl" probe.db >/dev/null 2>&1 &
    probe_pid=$!
    i=0
    while [ ! -S probe.sock ] && [ $i -lt 40 ]; do
        i=$((i + 1))
        sleep 0.05
    done
    ok=false
    if [ -S probe.sock ] \
        && "$OUR_CLIENT" list-dbs "unix:$PWD/probe.sock" 2>/dev/null \
           | grep -q '^Types$'; then
        ok=true
    fi
    kill $probe_pid 2>/dev/null || true
    wait $probe_pid 2>/dev/null || true
    rm -f probe.db probe.sock
    $ok
}

start_test_server() {
    if [ "${CLIENT_TEST_SERVER:-}" != ref ] && our_server_works; then
        echo "server: ours"
        start_server "$OUR_SERVER" "$OUR_TOOL" srv "$@"
    else
        echo "server: reference"
        start_server "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL" srv "$@"
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
