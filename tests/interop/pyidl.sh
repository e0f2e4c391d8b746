# tests/interop/pyidl.sh: the Python IDL (python3-openvswitch) against our
# server: initial contents, another client's change, commit with verify, a
# verify conflict, and reconnect + catch-up after a server restart.
. "$OVSDB_SRCDIR/tests/interop/lib.sh"
SCHEMA=/usr/share/ovn/ovn-nb.ovsschema
[ -f "$SCHEMA" ] || skip "no $SCHEMA"
require_client ovn-nbctl
require_pymodule ovs.db.idl
start_server ours ovsdb-server ovsdb-tool
NB="ovn-nbctl --db=unix:$PWD/ours.sock --timeout=10"
$NB ls-add sw0

wait_file() {
    i=0
    while [ ! -e "$1" ]; do
        i=$((i + 1))
        [ $i -lt 300 ] || fail "timed out waiting for $1"
        sleep 0.1
    done
}

# Live phase.
TRIGGER=$PWD/trigger TRIGGER2=$PWD/trigger2 \
    $SYS_PYTHON "$OVSDB_SRCDIR/tests/interop/pyidl.py" live "$PWD/ours.sock" \
    "$SCHEMA" >live.out 2>&1 &
idl=$!
wait_file trigger
$NB ls-add sw1
wait_file trigger2
$NB set Logical_Switch sw0 other_config:k=theirs
touch trigger2.done
wait $idl || { cat live.out; fail "IDL live phase failed"; }
cat live.out
expect_eq "$($NB get Logical_Switch sw0 other_config:k)" theirs \
    "the conflicting transaction must not have committed"

# Restart phase: the IDL reconnects and catches up.
rm -f trigger
TRIGGER=$PWD/trigger $SYS_PYTHON "$OVSDB_SRCDIR/tests/interop/pyidl.py" \
    restart "$PWD/ours.sock" "$SCHEMA" >restart.out 2>&1 &
idl=$!
wait_file trigger
kill "$(cat ours.pid)"
wait_exit "$(cat ours.pid)" || fail "server did not exit on SIGTERM"
ovsdb-server ours.db --remote="punix:$PWD/ours.sock" --unixctl="$PWD/ours.ctl" \
    --log-file="$PWD/ours2.log" 2>>ours.stderr &
SERVER_PIDS="$SERVER_PIDS $!"
echo $! >ours.pid
python3 -c "import rpc, sys; sys.exit(0 if rpc.wait_for_socket('$PWD/ours.sock') else 1)" \
    || fail "server did not restart"
$NB ls-add after-restart
wait $idl || { cat restart.out; fail "IDL restart phase failed"; }
cat restart.out
# Everything committed before the restart is still there.
expect_eq "$($NB ls-list | sed 's/.*(\(.*\))/\1/' | sort | tr '\n' ' ')" \
    "after-restart sw-py sw0 sw1 " "switches after restart"
