#!/bin/sh
# tests/cluster/raft-conn.sh: ovsdb/raft/raft-conn joins a reference cluster.
#
# A one-member reference cluster on tcp:127.0.0.1 is compacted (so a
# joiner needs a snapshot); tests/cluster/test-raft-conn joins it with
# add_server_request, scripted follower replies and the snapshot, receives
# the leader's hello_request, then redials with its own hello_request.
# The reference must have logged that hello and list the new server.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
driver=$OVSDB_BUILDDIR/tests/cluster/test-raft-conn
[ -x "$driver" ] || fail "$driver not built"

set -- $(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
ref=tcp:127.0.0.1:$1 ours=tcp:127.0.0.1:$2

"$REF_OVSDB_TOOL" create-cluster s1.db "$OVSDB_SRCDIR/tests/storage/test.ovsschema" \
    "$ref" 2>/dev/null
"$REF_OVSDB_SERVER" s1.db --remote="punix:$PWD/c1.sock" \
    --unixctl="$PWD/s1.ctl" --log-file="$PWD/s1.log" -vraft:file:dbg \
    2>>s1.stderr &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
wait_socket $pid "$PWD/c1.sock" s1.stderr

# Wait for the single member to elect itself, write, compact.
i=0
until ovs-appctl -t "$PWD/s1.ctl" cluster/status Store 2>/dev/null \
        | grep -q '^Role: leader'; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "reference never became leader"
    sleep 0.1
done
"$REF_OVSDB_CLIENT" transact "unix:$PWD/c1.sock" \
    '["Store",{"op":"insert","table":"Root","row":{"name":"a","n":1}}]' \
    >/dev/null
ovs-appctl -t "$PWD/s1.ctl" ovsdb-server/compact

"$driver" "$ours" "$ref" 60 >driver.out 2>driver.err \
    || { cat driver.out; tail -5 driver.err; fail "driver failed"; }
cat driver.out
grep -q 'install_snapshot_request' driver.out \
    || fail "no snapshot was installed"
sid=$(sed -n 's/^server ID //p' driver.out)
short=$(echo "$sid" | cut -c1-4)

# The reference accepted our hello (it logs what it parsed) ...
grep -q "<--$short hello_request: address=\"$ours\"" s1.log \
    || { grep hello s1.log; fail "reference did not log our hello"; }
# ... and never rejected a message of ours.
! grep -i 'Parsing raft\|not allowed here\|misrouted\|wrong cluster' s1.log \
    || fail "reference rejected a message"
# ... and lists us as a member.
ovs-appctl -t "$PWD/s1.ctl" cluster/status Store >status.txt
grep -q "$short at $ours" status.txt || { cat status.txt; fail "not a member"; }
echo "joined as $sid"
