# tests/relay/lib.sh: helpers for the relay tests.
#     . "$OVSDB_SRCDIR/tests/relay/lib.sh"
# start_upstream ours|ref: starts the upstream server "up" (ours, or the
#   reference; skips if the reference is absent) on up.sock.
# start_relay TARGET_SOCK: starts our relay of Example from unix:TARGET_SOCK
#   on relay.sock (control socket relay.ctl, log relay.log); see serve in
#   tests/e2e/lib.sh.
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
    serve relay ovsdb-server "relay:Example:unix:$1"
}

run_relay_check() {
    python3 "$OVSDB_SRCDIR/tests/relay/relay.py" "$@" \
        || { for _log in relay.log s[0-9].log; do
                 [ -f "$_log" ] && { echo "== $_log"; tail -20 "$_log"; }
             done
             fail "relay scenario $1"; }
}

# server_of ours|ref: the server program of that kind (skips without the
# reference).
server_of() {
    case $1 in
    ours) echo ovsdb-server ;;
    ref) has_reference || skip "reference not installed"
         echo "$REF_OVSDB_SERVER" ;;
    esac
}

# start_backup_pair ACTIVE_KIND BACKUP_KIND: sets APPCTL (skips without
# ovs-appctl) and starts ACTIVE on active.sock, then BACKUP on backup.sock
# with --sync-from the active and --sync-exclude-tables=Example:Interface.
start_backup_pair() {
    APPCTL=$(command -v ovs-appctl || true)
    [ -n "$APPCTL" ] || skip "ovs-appctl not installed"
    active=$(server_of "$1")
    backup=$(server_of "$2")
    start_server active "$active" ovsdb-tool
    start_server backup "$backup" ovsdb-tool \
        --sync-from="unix:$PWD/active.sock" \
        --sync-exclude-tables=Example:Interface
}

# run_backup_pair ACTIVE_KIND BACKUP_KIND, with each KIND "ours" or "ref":
# start_backup_pair, then checks replication (backup.py phase1) and
# sync-status, kills the active, promotes the backup, checks it (phase2),
# and restarts it from its file to check that the replicated rows were
# written.
run_backup_pair() {
    start_backup_pair "$1" "$2"
    python3 "$OVSDB_SRCDIR/tests/relay/backup.py" phase1 \
        "unix:$PWD/active.sock" "unix:$PWD/backup.sock" \
        || fail "replication"
    "$APPCTL" -t "$PWD/backup.ctl" ovsdb-server/sync-status >status
    cat status
    expect_eq "$(cat status)" "state: backup
replicating: unix:$PWD/active.sock
database: Example
exclude: Example:Interface" "sync-status of the backup"
    expect_eq "$("$APPCTL" -t "$PWD/backup.ctl" \
        ovsdb-server/get-active-ovsdb-server)" "unix:$PWD/active.sock" \
        "get-active-ovsdb-server"

    kill_server active
    "$APPCTL" -t "$PWD/backup.ctl" \
        ovsdb-server/disconnect-active-ovsdb-server
    expect_eq "$("$APPCTL" -t "$PWD/backup.ctl" ovsdb-server/sync-status)" \
        "state: active" "sync-status after promotion"
    python3 "$OVSDB_SRCDIR/tests/relay/backup.py" phase2 \
        "unix:$PWD/backup.sock" || fail "promotion"

    # Everything replicated is in the file.
    stop_server backup
    n=$(ovsdb-tool query backup.db \
        '["Example",{"op":"select","table":"Host","where":[]}]' \
        | grep -o '"name":' | wc -l)
    expect_eq "$n" 20 "rows in the backup's file"
}

# run_backup_refint ACTIVE_KIND BACKUP_KIND: backup.py refint on a fresh
# pair, then the backup's sync-status must say it is active.
run_backup_refint() {
    start_backup_pair "$1" "$2"
    python3 "$OVSDB_SRCDIR/tests/relay/backup.py" refint \
        "unix:$PWD/active.sock" "unix:$PWD/backup.sock" || fail "refint"
    expect_eq "$("$APPCTL" -t "$PWD/backup.ctl" ovsdb-server/sync-status)" \
        "state: active" "sync-status after the failed update"
}

# relay_on_cluster KIND KIND KIND: a 3-member cluster, one member of each
# KIND (ours or ref, each made by its own tool; s1 creates it), and our
# relay in front of all three on relay.sock; then the "cluster" scenario.
relay_on_cluster() {
    set -- "$1" "$2" "$3" "$(free_port)" "$(free_port)" "$(free_port)"
    _members= _remotes= _first=
    for _i in 1 2 3; do
        eval "_kind=\$$_i _port=\$$((_i + 3))"
        if [ "$_kind" = ref ]; then
            _tool=$REF_OVSDB_TOOL _server=$REF_OVSDB_SERVER
        else
            _tool=ovsdb-tool _server=ovsdb-server
        fi
        if [ -z "$_first" ]; then
            "$_tool" create-cluster s$_i.db "$SCHEMA" "tcp:127.0.0.1:$_port"
            _first=tcp:127.0.0.1:$_port
        else
            "$_tool" join-cluster s$_i.db Example "tcp:127.0.0.1:$_port" \
                "$_first"
        fi
        serve s$_i "$_server" s$_i.db
        _members="$_members unix:$PWD/s$_i.sock=$PWD/s$_i.pid"
        _remotes="$_remotes${_remotes:+,}unix:$PWD/s$_i.sock"
    done
    serve relay ovsdb-server "relay:Example:$_remotes"
    run_relay_check cluster "unix:$PWD/relay.sock" $_members
}
