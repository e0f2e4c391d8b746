# tests/server/lib.sh: helpers for the ovsdb-server end-to-end tests.
#     . "$OVSDB_SRCDIR/tests/server/lib.sh"
# start_server, stop_server, create_db, serve: see tests/e2e/lib.sh.
# start_both [ARGS...]: starts "ours" (built) and, if installed, "ref" (the
#   reference), each on a fresh NAME.db from $SCHEMA; sets HAVE_REF.
# run_scenario NAME: tests/server/scenarios.py NAME on both, compared.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"

RPC_DIR=$OVSDB_SRCDIR/tests/server
export PYTHONPATH=$RPC_DIR:$PYTHONPATH

# The names this file used to define.
cleanup_servers() { kill_servers; }

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
