# tests/relay/lib.sh: helpers for the relay tests.
#     . "$OVSDB_SRCDIR/tests/relay/lib.sh"
# start_upstream ours|ref: starts the upstream server "up" (ours, or the
#   reference; skips if the reference is absent) on up.sock.
# start_relay TARGET_SOCK: starts our relay of Example from unix:TARGET_SOCK
#   on relay.sock (control socket relay.ctl, log relay.log).
# run_relay_check SCENARIO [ARGS...]: runs tests/relay/relay.py.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
export PYTHONPATH=$OVSDB_SRCDIR/tests/relay:$PYTHONPATH

start_upstream() {
    case $1 in
    ours) start_server up ovsdb-server ovsdb-tool ;;
    ref)
        has_reference || skip "reference ovsdb-server not installed"
        start_server up "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL"
        ;;
    esac
}

start_relay() {
    rm -f relay.sock relay.ctl
    ovsdb-server "relay:Example:unix:$1" --remote="punix:$PWD/relay.sock" \
        --unixctl="$PWD/relay.ctl" --log-file="$PWD/relay.log" \
        2>>relay.stderr &
    SERVER_PIDS="$SERVER_PIDS $!"
    echo $! >relay.pid
}

run_relay_check() {
    python3 "$OVSDB_SRCDIR/tests/relay/relay.py" "$@" \
        || { tail -20 relay.log; fail "relay scenario $1"; }
}
