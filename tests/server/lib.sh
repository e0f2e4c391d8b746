# tests/server/lib.sh: helpers for the ovsdb-server end-to-end tests.
#     . "$OVSDB_SRCDIR/tests/server/lib.sh"
# start_server NAME SERVER TOOL [ARGS...]: creates NAME.db from $SCHEMA with
#   TOOL, starts SERVER on unix socket NAME.sock (control socket NAME.ctl,
#   log NAME.log) in the background and waits until it accepts.
# stop_server NAME: kills it (all are killed at exit anyway).
# start_both: starts "ours" (built) and, if installed, "ref" (reference);
#   sets HAVE_REF=true/false.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"

SCHEMA=${SCHEMA:-$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema}
RPC_DIR=$OVSDB_SRCDIR/tests/server
export PYTHONPATH=$RPC_DIR${PYTHONPATH:+:$PYTHONPATH}
SERVER_PIDS=

cleanup_servers() {
    for pid in $SERVER_PIDS; do
        kill "$pid" 2>/dev/null || true
    done
}
trap cleanup_servers EXIT

# create_db TOOL DB SCHEMA: creates DB with TOOL, or with the reference's
# ovsdb-tool (same file format) if TOOL cannot; skips if neither can.
create_db() {
    if ! "$1" create "$2" "$3" 2>/dev/null; then
        rm -f "$2"
        if [ -x "$REF_OVSDB_TOOL" ]; then
            "$REF_OVSDB_TOOL" create "$2" "$3" || fail "cannot create $2"
        else
            skip "$1 cannot create databases"
        fi
    fi
}

start_server() {
    name=$1 server=$2 tool=$3
    shift 3
    rm -f "$name.db" "$name.sock" "$name.ctl"
    create_db "$tool" "$name.db" "$SCHEMA"
    "$server" "$name.db" --remote="punix:$PWD/$name.sock" \
        --unixctl="$PWD/$name.ctl" --log-file="$PWD/$name.log" "$@" \
        2>>"$name.stderr" &
    pid=$!
    SERVER_PIDS="$SERVER_PIDS $pid"
    echo "$pid" >"$name.pid"
    python3 -c "import rpc, sys; sys.exit(0 if rpc.wait_for_socket('$PWD/$name.sock') else 1)" \
        || { cat "$name.stderr" >&2; fail "$name server did not start"; }
}

stop_server() {
    kill "$(cat "$1.pid")" 2>/dev/null || true
}

start_both() {
    start_server ours ovsdb-server ovsdb-tool "$@"
    if has_reference; then
        HAVE_REF=true
        start_server ref "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL" "$@"
    else
        HAVE_REF=false
    fi
}

# run_scenario NAME: runs scenario NAME against ours (must pass its own
# checks) and against the reference if present; then compares the two
# transcripts line by line.
run_scenario() {
    export TARGET=ours
    python3 "$RPC_DIR/scenarios.py" "$1" "unix:$PWD/ours.sock" >ours.out \
        || { cat ours.out; fail "scenario $1 failed against our server"; }
    if $HAVE_REF; then
        TARGET=ref python3 "$RPC_DIR/scenarios.py" "$1" "unix:$PWD/ref.sock" >ref.out \
            || { cat ref.out; fail "scenario $1 failed against the reference"; }
        if ! diff -u ref.out ours.out; then
            fail "scenario $1: transcripts differ (- reference, + ours)"
        fi
    fi
    cat ours.out
}
