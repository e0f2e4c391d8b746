#!/bin/sh
# tests/server/appctl.sh: the control socket commands, through the
# reference's ovs-appctl; outputs compared with the reference server's.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
command -v ovs-appctl >/dev/null || skip "ovs-appctl not installed"
start_both

appctl_all() {
    # appctl_all NAME: runs the command set against server NAME.
    a="ovs-appctl -t $PWD/$1.ctl"
    for cmd in "ovsdb-server/list-dbs" "ovsdb-server/list-remotes" \
               "ovsdb-server/add-remote punix:$PWD/$1-2.sock" \
               "ovsdb-server/list-remotes" \
               "ovsdb-server/remove-remote punix:$PWD/$1-2.sock" \
               "ovsdb-server/remove-remote bogus:1" \
               "ovsdb-server/list-remotes" \
               "ovsdb-server/remove-db Nope" \
               "ovsdb-server/remove-db _Server" \
               "ovsdb-server/memory-trim-on-compaction on" \
               "ovsdb-server/memory-trim-on-compaction x" \
               "ovsdb-server/compact" \
               "ovsdb-server/compact Nope" \
               "ovsdb-server/compact _Server" \
               "ovsdb-server/remove-db Example" \
               "ovsdb-server/list-dbs" \
               "ovsdb-server/add-db $PWD/$1.db" \
               "ovsdb-server/add-db $PWD/$1.db" \
               "ovsdb-server/add-remote db:x,y,z" \
               "ovsdb-server/add-remote db:Example,Nope,name" \
               "ovsdb-server/list-remotes" \
               "ovsdb-server/list-dbs"; do
        rc=0
        out=$($a $cmd 2>&1) || rc=$?
        printf '$ %s\n%s\nrc=%s\n' "$cmd" "$out" "$rc" \
            | sed "s|$PWD/$1|DIR/X|g; s|^ovs-appctl: .*: server|ovs-appctl: server|"
    done
}

appctl_all ours >ours.out
cat ours.out
if $HAVE_REF; then
    appctl_all ref >ref.out
    diff -u ref.out ours.out || fail "control socket outputs differ"
fi

# memory/show: the reference's counts plus the allocator's statistics.
ovs-appctl -t "$PWD/ours.ctl" memory/show >mem.out
cat mem.out
grep -q '^atoms:[0-9]* cells:[0-9]* monitors:[0-9]*' mem.out \
    || fail "memory/show counts"
# (Under AddressSanitizer, whose malloc glibc's statistics do not see,
# "allocated" may be 0.)
allocated='[1-9][0-9]*'
sanitized_build && allocated='[0-9]*'
grep -q "^allocator:[a-z]*-[0-9.]* allocated:$allocated bytes ([0-9.]* [KMGT]iB) resident:[0-9]* bytes ([0-9.]* [KMGT]iB) rss:[1-9][0-9]* bytes ([0-9.]* [KMGT]iB) fragmentation_ratio:[0-9.]* (rss/allocated)\$" mem.out \
    || fail "memory/show allocator statistics"
# Refreshed when asked: a big allocation shows at once, not 10 s later.
python3 - "$PWD/ours.sock" <<'EOS'
import sys
import rpc
c = rpc.Client("unix:" + sys.argv[1])
rows = [{"op": "insert", "table": "Host",
         "row": {"name": "big%d" % i, "address": ["set", ["x" * 100]]}}
        for i in range(3000)]
r = c.call("transact", ["Example"] + rows)
assert r.get("error") is None, r
EOS
before=$(sed -n 's/.* allocated:\([0-9]*\) bytes.*/\1/p' mem.out)
after=$(ovs-appctl -t "$PWD/ours.ctl" memory/show \
        | sed -n 's/.* allocated:\([0-9]*\) bytes.*/\1/p')
sanitized_build || [ "$after" -gt $((before + 300000)) ] \
    || fail "memory/show not refreshed when asked: $before then $after bytes"
python3 - "$PWD/ours.sock" <<'EOS'
import sys
import rpc
c = rpc.Client("unix:" + sys.argv[1])
r = c.call("transact", ["Example", {"op": "delete", "table": "Host",
                                    "where": []}])
assert r.get("error") is None, r
EOS

# vlog commands come from lib/vlog.
ovs-appctl -t "$PWD/ours.ctl" vlog/set session:file:dbg || fail "vlog/set"
ovs-appctl -t "$PWD/ours.ctl" vlog/list | grep -q '^session ' \
    || fail "vlog/list shows our modules"

# The transactions of a removed and re-added database are still there.
python3 - "$PWD/ours.sock" <<'PYEOF' || fail "db re-added"
import sys, rpc
c = rpc.Client("unix:" + sys.argv[1])
r = c.call("transact", ["Example", {"op": "insert", "table": "Host",
                                    "row": {"name": "kept"}}])
assert "uuid" in r["result"][0], r
PYEOF
ovs-appctl -t "$PWD/ours.ctl" ovsdb-server/remove-db Example
ovs-appctl -t "$PWD/ours.ctl" ovsdb-server/add-db "$PWD/ours.db"
python3 - "$PWD/ours.sock" <<'PYEOF' || fail "db contents after re-add"
import sys, rpc
c = rpc.Client("unix:" + sys.argv[1])
r = c.call("transact", ["Example", {"op": "select", "table": "Host",
                                    "where": [], "columns": ["name"]}])
assert r["result"][0]["rows"] == [{"name": "kept"}], r
PYEOF

# reconnect drops every client; new ones are served.
python3 - "$PWD/ours.sock" "$PWD/ours.ctl" <<'PYEOF' || fail "reconnect"
import subprocess, sys, rpc
c = rpc.Client("unix:" + sys.argv[1])
assert c.call("echo", [1])["result"] == [1]
subprocess.run(["ovs-appctl", "-t", sys.argv[2], "ovsdb-server/reconnect"],
               check=True)
try:
    c.call("echo", [2])
    sys.exit("client still connected after reconnect")
except (rpc.Closed, ConnectionResetError, BrokenPipeError):
    pass
d = rpc.Client("unix:" + sys.argv[1])
assert d.call("echo", [3])["result"] == [3]
PYEOF

# loop/show: the passes of the main loop, counted afresh after "reset".
a="ovs-appctl -t $PWD/ours.ctl"
$a loop/show reset >loop.out || fail "loop/show reset"
cat loop.out
grep -q '^passes: [1-9][0-9]*$' loop.out || fail "loop/show passes"
grep -q '^longest pass: [0-9]* ms$' loop.out || fail "loop/show longest"
grep -q '^passes over 100 ms: [0-9]*$' loop.out || fail "loop/show over 100"
grep -q '^passes over 1000 ms: [0-9]*$' loop.out \
    || fail "loop/show over 1000"
before=$(sed -n 's/^passes: //p' loop.out)
after=$($a loop/show | sed -n 's/^passes: //p')
[ "$after" -ge 1 ] && [ "$after" -lt "$before" ] \
    || fail "loop/show reset: $before passes, then $after"
if $a loop/show bogus 2>err.out; then
    fail "loop/show accepted a bad argument"
fi
grep -q 'usage: loop/show \[reset\]' err.out || fail "loop/show usage"

# exit stops the server.
ovs-appctl -t "$PWD/ours.ctl" exit || fail "exit"
for i in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 "$(cat ours.pid)" 2>/dev/null || exit 0
    sleep 0.2
done
fail "server still running after exit"
