#!/bin/sh
# tests/e2e/rundir.sh: relative "unix:" and "punix:" paths are relative to
# the run directory ($OVS_RUNDIR), not to the working directory, in our
# three programs as in the reference's: each program, run from elsewhere,
# reaches the other's server by the same relative name; the default pidfile
# and control socket are there too, for "ovs-appctl -t ovsdb-server".
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
has_reference || skip "reference Open vSwitch not installed"
B=$OVSDB_BUILDDIR/ovsdb
SCHEMA=$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema
mkdir rd elsewhere
export OVS_RUNDIR=$PWD/rd
"$B/ovsdb-tool" create ours.db "$SCHEMA"
"$REF_OVSDB_TOOL" create ref.db "$SCHEMA"
top=$PWD
cd elsewhere
"$B/ovsdb-server" "$top/ours.db" --remote=punix:ours.sock --pidfile \
    --log-file="$top/ours.log" 2>"$top/ours.err" &
ours=$!
"$REF_OVSDB_SERVER" "$top/ref.db" --remote=punix:ref.sock \
    --pidfile=ref.pid --unixctl=ref.ctl --log-file="$top/ref.log" \
    2>"$top/ref.err" &
ref=$!
trap 'kill $ours $ref 2>/dev/null || true' EXIT
wait_socket $ours "$OVS_RUNDIR/ours.sock" "$top/ours.err"
wait_socket $ref "$OVS_RUNDIR/ref.sock" "$top/ref.err"
[ ! -e ours.sock ] || fail "our server put its socket in the working directory"
for client in "$B/ovsdb-client" "$REF_OVSDB_CLIENT"; do
    for sock in ours ref; do
        out=$("$client" list-dbs unix:$sock.sock) \
            || fail "$client list-dbs unix:$sock.sock failed"
        expect_eq "$(echo $out)" "Example _Server" \
            "$client list-dbs unix:$sock.sock"
    done
done
# The default server of ovsdb-client is unix:db.sock in the run directory.
ln -s ours.sock "$OVS_RUNDIR/db.sock"
for client in "$B/ovsdb-client" "$REF_OVSDB_CLIENT"; do
    "$client" list-tables Example | grep -qx Interface \
        || fail "$client did not reach the default server"
done
# Default pidfile and control socket.
[ -f "$OVS_RUNDIR/ovsdb-server.pid" ] || fail "no pidfile in the run directory"
[ -S "$OVS_RUNDIR/ovsdb-server.$ours.ctl" ] \
    || fail "no control socket in the run directory"
if command -v ovs-appctl >/dev/null; then
    ovs-appctl -t ovsdb-server version | grep -q ovsdb \
        || fail "ovs-appctl -t ovsdb-server did not reach our server"
    ovs-appctl -t ovsdb-server exit
    i=0
    while kill -0 $ours 2>/dev/null; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "our server did not exit"
        sleep 0.1
    done
    [ ! -e "$OVS_RUNDIR/ours.sock" ] || fail "socket left behind at exit"
fi
echo "relative unix: paths resolve in \$OVS_RUNDIR for ours and the reference"
