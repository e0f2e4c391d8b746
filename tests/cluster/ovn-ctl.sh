# tests/cluster/ovn-ctl.sh: OVN's own start script, ovn-ctl (ovn-common),
# brings up clustered Northbound and Southbound databases with our
# ovsdb-tool and ovsdb-server first on the PATH, as a deployment with
# --db-nb-cluster-local-addr does; ovn-nbctl and ovn-sbctl write to them;
# after ovn-ctl restarts them the data is there.  Skipped when ovn-ctl or
# the OVN clients are not installed (they are not ours).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
OVN_CTL=/usr/share/ovn/scripts/ovn-ctl
[ -x $OVN_CTL ] || skip "ovn-ctl is not installed (ovn-common)"
command -v ovn-nbctl >/dev/null || skip "ovn-nbctl is not installed"
command -v ovn-sbctl >/dev/null || skip "ovn-sbctl is not installed"

export PATH="$OVSDB_BUILDDIR/ovsdb:$PATH"
mkdir -p run db log
export OVN_RUNDIR=$PWD/run OVN_DBDIR=$PWD/db OVN_LOGDIR=$PWD/log
export OVS_RUNDIR=$PWD/run
trap '$OVN_CTL stop_nb_ovsdb >/dev/null 2>&1; $OVN_CTL stop_sb_ovsdb >/dev/null 2>&1' EXIT

# The cluster addresses are only recorded in the files (one member each:
# nobody connects to them), and the databases listen on unix sockets only.
start() {
    $OVN_CTL --db-nb-cluster-local-addr=127.0.0.1 \
        --db-nb-cluster-local-port=6653 --db-nb-create-insecure-remote=no \
        --db-sb-cluster-local-addr=127.0.0.1 \
        --db-sb-cluster-local-port=6654 --db-sb-create-insecure-remote=no \
        start_nb_ovsdb > start.out 2>&1 || fail "start_nb_ovsdb: $(cat start.out)"
    $OVN_CTL --db-sb-cluster-local-addr=127.0.0.1 \
        --db-sb-cluster-local-port=6654 --db-sb-create-insecure-remote=no \
        start_sb_ovsdb >> start.out 2>&1 || fail "start_sb_ovsdb: $(cat start.out)"
}
stop() {
    $OVN_CTL stop_nb_ovsdb >/dev/null
    $OVN_CTL stop_sb_ovsdb >/dev/null
}
NB=unix:$PWD/run/ovnnb_db.sock
SB=unix:$PWD/run/ovnsb_db.sock

start
grep -q "Creating cluster database" start.out \
    || fail "ovn-ctl did not create clustered databases: $(cat start.out)"
# Our server is the one running.
for db in ovnnb_db ovnsb_db; do
    exe=$(readlink /proc/$(cat run/$db.pid)/exe)
    expect_eq "$exe" "$OVSDB_BUILDDIR/ovsdb/ovsdb-server" "$db's server"
done
for db in ovnnb_db:OVN_Northbound ovnsb_db:OVN_Southbound; do
    ovs-appctl -t $PWD/run/${db%%:*}.ctl cluster/status ${db#*:} \
        > status || fail "cluster/status ${db#*:}"
    grep -q "Role: leader" status || fail "${db#*:} is not leader: $(cat status)"
done
ovn-nbctl --db=$NB ls-add sw0
ovn-nbctl --db=$NB lsp-add sw0 sw0-p1
ovn-sbctl --db=$SB chassis-add ch1 geneve 127.0.0.2
ovn-nbctl --db=$NB show > nb.before
ovn-sbctl --db=$SB show > sb.before
grep -q sw0-p1 nb.before || fail "nbctl: $(cat nb.before)"

stop
start
ovn-nbctl --db=$NB show > nb.after
ovn-sbctl --db=$SB show > sb.after
cmp -s nb.before nb.after || fail "Northbound changed over a restart"
cmp -s sb.before sb.after || fail "Southbound changed over a restart"
stop
echo PASS
