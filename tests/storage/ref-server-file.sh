# tests/storage/ref-server-file.sh: a database file that the reference
# ovsdb-server wrote while ovs-vsctl configured bridges, ports and
# interfaces (then partly deconfigured them) opens in our ovsdb-tool with
# the same contents as in the reference ovsdb-tool, before and after our
# compaction, and our compacted file opens in the reference.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
VS_SCHEMA=/usr/share/openvswitch/vswitch.ovsschema
has_reference || skip "reference ovsdb-server not installed"
command -v ovs-vsctl >/dev/null || skip "ovs-vsctl not installed"
[ -f "$VS_SCHEMA" ] || skip "$VS_SCHEMA not installed"

"$REF_OVSDB_TOOL" create conf.db "$VS_SCHEMA"
"$REF_OVSDB_SERVER" --remote=punix:$PWD/db.sock --unixctl=$PWD/ctl \
    --no-chdir --log-file=$PWD/server.log --pidfile=$PWD/server.pid \
    --detach conf.db
trap 'kill $(cat server.pid) 2>/dev/null || true' EXIT
vsctl() { ovs-vsctl --db=unix:$PWD/db.sock --no-wait --timeout=10 "$@"; }
vsctl init
vsctl add-br br0 -- set bridge br0 other-config:hwaddr=00:11:22:33:44:55
vsctl add-br br1
for i in 1 2 3 4; do
    vsctl add-port br0 p$i -- set interface p$i type=internal \
        external-ids:idx=$i
done
vsctl set port p1 tag=10 trunks=1,2,3
vsctl add-bond br1 bond0 e1 e2 e3
vsctl set open . external-ids:system-id=host1 other-config:foo=bar
vsctl del-port br0 p2
vsctl remove port p1 trunks 2
vsctl set interface p3 options:remote_ip=10.0.0.1 options:key=5
vsctl remove interface p3 options key
vsctl del-br br1
vsctl add-br br2 -- set bridge br2 stp_enable=true
kill $(cat server.pid)
while [ -e server.pid ]; do sleep 0.1; done
trap - EXIT

query='["Open_vSwitch",
    {"op":"select","table":"Open_vSwitch","where":[]},
    {"op":"select","table":"Bridge","where":[]},
    {"op":"select","table":"Port","where":[]},
    {"op":"select","table":"Interface","where":[]}]'
"$REF_OVSDB_TOOL" query conf.db "$query" | normalize > ref.txt
"$TOOL" query conf.db "$query" | normalize > ours.txt
diff -u ref.txt ours.txt \
    || fail "ours reads the reference server's file differently"
grep -q '"name": "p3"' ours.txt || fail "port p3 missing"
grep -q '"name": "p2"' ours.txt && fail "deleted port p2 present"
grep -q '"trunks": \["set", \[1, 3\]\]' ours.txt || fail "trunks"

"$TOOL" compact conf.db
"$REF_OVSDB_TOOL" query conf.db "$query" | normalize > ref2.txt
diff -u ref.txt ref2.txt \
    || fail "the reference reads our compacted file differently"
"$REF_OVSDB_TOOL" show-log conf.db | grep -q "compacted by ovsdb-tool" \
    || fail "compaction comment"
echo PASS
