# tests/interop/vsctl.sh: ovs-vsctl with the installed vswitch.ovsschema.
# The same command script runs against our server and the reference; every
# command's output and exit status, and the database contents afterwards,
# must be the same (UUIDs masked).
. "$OVSDB_SRCDIR/tests/interop/lib.sh"
SCHEMA=/usr/share/openvswitch/vswitch.ovsschema
[ -f "$SCHEMA" ] || skip "no $SCHEMA"
require_client ovs-vsctl
has_reference || skip "reference ovsdb-server not installed (needed to compare)"
start_both

script() {
    cat <<'CMDS'
init
add-br br0
add-br br1
--may-exist add-br br0
add-br br0
add-port br0 p1
add-port br0 p2 -- set Interface p2 type=internal
add-bond br1 bond0 a b
--may-exist add-port br0 p1
set Bridge br0 stp_enable=true other_config:hwaddr="00:11:22:33:44:55"
set Port p1 tag=10 trunks=1,2,3
get Bridge br0 stp_enable
get Bridge br0 other_config:hwaddr
get Port p1 tag trunks
add Bridge br0 other_config k1=v1 k2=v2
remove Bridge br0 other_config k1=v1
remove Port p1 trunks 2
clear Port p1 trunks
--if-exists get Bridge nosuch name
get Bridge nosuch name
find Interface type=internal
list-br
list-ports br0
list-ifaces br1
port-to-br p1
iface-to-br a
br-exists br1
br-exists nosuch
br-set-external-id br0 owner test
br-get-external-id br0
set-manager ptcp:6640 tcp:127.0.0.1:6641
get-manager
set-controller br0 tcp:127.0.0.1:6653
get-controller br0
set-fail-mode br0 secure
get-fail-mode br0
--columns=name,type list Interface
--if-exists del-port br0 nosuch
del-port br0 p2
del-port br0 nosuch
--if-exists del-br nosuch
create Flow_Sample_Collector_Set id=1 bridge=@br -- --id=@br get Bridge br1
destroy Flow_Sample_Collector_Set nosuch
emer-reset
get-manager
list-br
del-br br1
show
CMDS
}

run_script() {
    script | run_cli_script "$1" ovs-vsctl --no-wait --timeout=10
    dump_tables "$1" ovs-vsctl --no-wait --timeout=10 -- Open_vSwitch Bridge \
        Port Interface Manager Controller Flow_Sample_Collector_Set
}

run_script ours >ours.out
run_script ref >ref.out
cat ours.out
compare_outputs out
echo "ovs-vsctl: $(grep -c '^\$ ' ours.out) commands match the reference"
