# tests/interop/nbctl.sh: ovn-nbctl with the installed ovn-nb.ovsschema and
# ovn-sbctl with ovn-sb.ovsschema, against our server and the reference;
# outputs and final contents must match (UUIDs masked).
. "$OVSDB_SRCDIR/tests/interop/lib.sh"
NB=/usr/share/ovn/ovn-nb.ovsschema
SB=/usr/share/ovn/ovn-sb.ovsschema
[ -f "$NB" ] && [ -f "$SB" ] || skip "OVN schemas not installed"
require_client ovn-nbctl ovn-sbctl
has_reference || skip "reference ovsdb-server not installed (needed to compare)"

SCHEMA=$NB start_both
nb_script() {
    cat <<'CMDS'
ls-add sw0
ls-add sw1
--may-exist ls-add sw0
ls-add sw0
lsp-add sw0 sw0-p1
lsp-add sw0 sw0-p2
lsp-set-addresses sw0-p1 "00:00:00:00:00:01 10.0.0.1"
lsp-set-addresses sw0-p2 "00:00:00:00:00:02 10.0.0.2" "00:00:00:00:00:03 10.0.0.3"
lsp-set-port-security sw0-p1 "00:00:00:00:00:01 10.0.0.1"
lsp-get-addresses sw0-p2
lsp-set-type sw0-p2 localnet
lsp-set-options sw0-p2 network_name=phys
lsp-get-options sw0-p2
lr-add lr0
lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24
lrp-add lr0 lrp1 00:00:00:00:ff:02 10.0.1.254/24 2001:db8::1/64
lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
lr-route-add lr0 0.0.0.0/0 10.0.0.1
lr-route-list lr0
lr-nat-add lr0 snat 172.16.0.1 10.0.0.0/24
lr-nat-list lr0
acl-add sw0 to-lport 1000 "ip4 && tcp.dst == 22" drop
acl-add sw0 from-lport 100 ip4 allow-related
acl-list sw0
acl-del sw0 to-lport 1000 "ip4 && tcp.dst == 22"
lb-add lb0 10.0.0.10:80 10.0.0.1:80,10.0.0.2:80
lb-add lb0 10.0.0.11:80 10.0.0.3:80 tcp
ls-lb-add sw0 lb0
lr-lb-add lr0 lb0
lb-list
ls-lb-list sw0
lsp-del sw0-p2
ls-del sw1
ls-del nosuch
--if-exists ls-del nosuch
ls-list
lr-list
lsp-list sw0
lrp-list lr0
show
CMDS
}

run_nb() {
    nb_script | run_cli_script "$1" ovn-nbctl --timeout=10
    dump_tables "$1" ovn-nbctl --timeout=10 -- Logical_Switch \
        Logical_Switch_Port Logical_Router Logical_Router_Port \
        Logical_Router_Static_Route NAT ACL Load_Balancer
}
run_nb ours >ours.nb
run_nb ref >ref.nb
cat ours.nb
compare_outputs nb
stop_server ours
stop_server ref

SCHEMA=$SB start_both
sb_script() {
    cat <<'CMDS'
init
chassis-add ch0 geneve 127.0.0.1
chassis-add ch1 vxlan 127.0.0.2
chassis-add ch0 geneve 127.0.0.1
--may-exist chassis-add ch0 geneve 127.0.0.1
set Chassis ch0 external_ids:foo=bar
get Chassis ch0 external_ids
chassis-del ch1
list Encap
show
CMDS
}
run_sb() {
    sb_script | run_cli_script "$1" ovn-sbctl --timeout=10
}
run_sb ours >ours.sb
run_sb ref >ref.sb
cat ours.sb
compare_outputs sb
echo "ovn-nbctl: $(grep -c '^\$ ' ours.nb) commands, ovn-sbctl: $(grep -c '^\$ ' ours.sb) commands match the reference"
