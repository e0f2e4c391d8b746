#!/bin/sh
# tests/server/clients.sh: the reference's own clients against our server:
# ovs-vsctl (which monitors _Server and the Open_vSwitch tables through
# the C IDL) and ovsdb-client.  Outputs compared with the same commands
# against the reference server, UUIDs masked.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
VSWITCH=/usr/share/openvswitch/vswitch.ovsschema
has_reference || skip "reference Open vSwitch not installed"
command -v ovs-vsctl >/dev/null || skip "ovs-vsctl not installed"
[ -f "$VSWITCH" ] || skip "no $VSWITCH"
SCHEMA=$VSWITCH start_both

mask() {
    sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g'
}

clients() {
    db="unix:$PWD/$1.sock"
    vsctl="ovs-vsctl --db=$db --no-wait --timeout=10"
    for cmd in "init" "add-br br0" "add-port br0 p1" "add-port br0 p2" \
               "set Interface p1 type=internal" \
               "br-set-external-id br0 k v" "list-br" "list-ports br0" \
               "br-get-external-id br0" "del-port br0 p2" "show" \
               "get Interface p1 type" \
               "add-br br0" "del-br br0" "list-br"; do
        rc=0
        out=$($vsctl $cmd 2>&1) || rc=$?
        if [ "$cmd" = show ]; then
            # Ports come in UUID order: random.
            out=$(echo "$out" | sort)
        fi
        printf '$ ovs-vsctl %s\n%s\nrc=%s\n' "$cmd" "$out" "$rc"
    done
    client="$REF_OVSDB_CLIENT --timeout=10"
    $client list-dbs "$db"
    $client list-tables "$db" Open_vSwitch | head -5
    $client get-schema-version "$db" Open_vSwitch
    $client get-schema "$db" _Server | head -c 300; echo
    $client transact "$db" '["Open_vSwitch",{"op":"insert","table":"Bridge","row":{"name":"b2"},"uuid-name":"x"},{"op":"mutate","table":"Open_vSwitch","where":[],"mutations":[["bridges","insert",["set",[["named-uuid","x"]]]]]}]'
    echo
    $client dump "$db" Open_vSwitch Bridge name external_ids
    $client query "$db" '["Open_vSwitch",{"op":"select","table":"Bridge","where":[],"columns":["name"]}]'
    echo
    # A monitor: prints the initial rows, then (once they are out) the
    # insert of a new bridge.  Waits for each with a bounded loop.  (The
    # file exists before the client starts, for the first grep.)
    : > monitor.out
    $REF_OVSDB_CLIENT monitor "$db" Open_vSwitch Bridge name \
        > monitor.out 2>/dev/null &
    mon=$!
    for i in $(seq 100); do
        grep -q initial monitor.out && break
        sleep 0.1
    done
    $vsctl add-br br9 >/dev/null
    for i in $(seq 100); do
        grep -q br9 monitor.out && break
        sleep 0.1
    done
    kill $mon
    wait $mon 2>/dev/null || true
    cat monitor.out
}

clients ours 2>&1 | mask >ours.out
cat ours.out
clients ref 2>&1 | mask >ref.out
diff -u ref.out ours.out || fail "client outputs differ (- reference, + ours)"
