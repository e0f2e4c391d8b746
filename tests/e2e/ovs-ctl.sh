#!/bin/sh
# tests/e2e/ovs-ctl.sh: Open vSwitch's own ovs-ctl starts and stops our
# server as it starts its own: it creates the database, passes --detach
# --monitor (and, self-confinement off, --no-self-confinement), waits for
# the server, then ovs-vsctl and ovs-appctl work on it.  ovs-ctl captures
# the output of what it starts, so the server must let go of it.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
OVS_CTL=/usr/share/openvswitch/scripts/ovs-ctl
[ -x "$OVS_CTL" ] || skip "no $OVS_CTL (openvswitch-switch not installed)"
command -v ovs-vsctl >/dev/null || skip "no ovs-vsctl"
B=$OVSDB_BUILDDIR/ovsdb
mkdir -p run log db etc/openvswitch
export OVS_RUNDIR=$PWD/run OVS_LOGDIR=$PWD/log OVS_DBDIR=$PWD/db \
    OVS_SYSCONFDIR=$PWD/etc OVS_SBINDIR=$B OVS_BINDIR=$B PATH=$B:$PATH
trap 'kill $(cat run/ovsdb-server.pid 2>/dev/null) 2>/dev/null || true' EXIT
for confinement in --self-confinement --no-self-confinement; do
    out=$(timeout 60 "$OVS_CTL" start --no-ovs-vswitchd --system-id=random \
          --no-record-hostname $confinement \
          --db-schema="$OVSDB_SRCDIR/tests/data/schemas/vswitch.ovsschema" \
          2>&1) || fail "ovs-ctl start ($confinement): $out"
    echo "$out"
    pid=$(cat run/ovsdb-server.pid)
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--monitor" \
        || fail "ovs-ctl did not pass --monitor?"
    ovs-appctl -t ovsdb-server version | grep -q "(ovsdb)" \
        || fail "ovs-ctl started another server"
    ovs-vsctl --timeout=10 --no-wait add-br br0
    ovs-vsctl --timeout=10 --no-wait list-br | grep -qx br0 \
        || fail "ovs-vsctl on the server ovs-ctl started"
    ovs-vsctl --timeout=10 --no-wait del-br br0
    timeout 60 "$OVS_CTL" stop --no-ovs-vswitchd || fail "ovs-ctl stop"
    wait_until 20 "server $pid did not stop" sh -c "! kill -0 $pid 2>/dev/null"
done
echo "ovs-ctl starts and stops our server"
