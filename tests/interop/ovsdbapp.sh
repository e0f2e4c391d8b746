# tests/interop/ovsdbapp.sh: ovsdbapp (python3-ovsdbapp) doing OVN
# northbound commands against our server; ovn-nbctl reads the result.
. "$OVSDB_SRCDIR/tests/interop/lib.sh"
SCHEMA=/usr/share/ovn/ovn-nb.ovsschema
[ -f "$SCHEMA" ] || skip "no $SCHEMA"
require_client ovn-nbctl
require_pymodule ovsdbapp.schema.ovn_northbound.impl_idl
start_server ours ovsdb-server ovsdb-tool
NB="ovn-nbctl --db=unix:$PWD/ours.sock --timeout=10"
$NB ls-add existing
timeout 60 $SYS_PYTHON "$OVSDB_SRCDIR/tests/interop/ovsdbapp_nb.py" \
    "$PWD/ours.sock" || fail "ovsdbapp against our server"
# What ovsdbapp left is what ovn-nbctl sees.
expect_eq "$($NB lr-list | sed 's/.*(\(.*\))/\1/')" app-lr "routers"
expect_eq "$($NB ls-list | sed 's/.*(\(.*\))/\1/')" existing "switches"
expect_eq "$($NB lb-list | awk 'NR==2 {print $2}')" app-lb "load balancers"
