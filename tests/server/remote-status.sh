# tests/server/remote-status.sh: "--remote=db:DB,TABLE,COLUMN" with COLUMN
# referring to rows that have "is_connected" and "status" columns (as
# Open_vSwitch's Manager and OVN's Connection tables): the server writes
# each row's connection status, as the reference does: a listener nobody
# connected to is not connected; one client makes it connected, two add
# "n_connections"; an active remote that cannot connect has a "state".
# Run on our server and, when installed, on the reference, with the same
# checks.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
B=$OVSDB_BUILDDIR/ovsdb
cat > schema <<'JSON'
{"name": "mydb",
 "tables": {
   "Root": {"columns": {
     "managers": {"type": {"key": "string", "min": 0, "max": "unlimited"}},
     "manager_options": {"type": {"key": {"type": "uuid",
                                          "refTable": "Manager"},
                                  "min": 0, "max": "unlimited"}}}},
   "Manager": {"columns": {
     "target": {"type": "string"},
     "is_connected": {"type": {"key": "boolean", "min": 0, "max": 1}},
     "status": {"type": {"key": "string", "value": "string",
                         "min": 0, "max": "unlimited"}}}}}}
JSON
cat > check.py <<'PY'
import sys
import time
import rpc

d = sys.argv[1]
admin = rpc.Client("unix:%s/admin.sock" % d)


def managers():
    r = admin.result("transact", ["mydb", {
        "op": "select", "table": "Manager", "where": [],
        "columns": ["target", "is_connected", "status"]}])
    return {row["target"]: (row["is_connected"], dict(row["status"][1]))
            for row in r[0]["rows"]}


def wait_for(pred, what):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        m = managers()
        if pred(m):
            return m
        time.sleep(0.1)
    raise SystemExit("never: %s (last: %r)" % (what, managers()))


listener = "punix:%s/m.sock" % d
m = wait_for(lambda m: m[listener][0] is False and m[listener][1],
             "the listener's status written")
print("listener alone:", m[listener])
assert "n_connections" not in m[listener][1], m
m = wait_for(lambda m: "state" in m["tcp:127.0.0.1:1"][1],
             "the active remote's state")
assert m["tcp:127.0.0.1:1"][0] is False, m

one = rpc.Client("unix:%s/m.sock" % d)
one.call("echo", [])
m = wait_for(lambda m: m[listener][0] is True, "one client connected")
print("one client:", m[listener])
two = rpc.Client("unix:%s/m.sock" % d)
two.call("echo", [])
m = wait_for(lambda m: m[listener][1].get("n_connections") == "2",
             "two clients counted")
print("two clients:", m[listener])
one.close()
two.close()
wait_for(lambda m: m[listener][0] is False, "the clients gone")
print("ok")
PY

check() {
    rm -rf "$1" && mkdir "$1" && cd "$1"
    "$B/ovsdb-tool" create db ../schema
    "$B/ovsdb-tool" transact db "[\"mydb\",
      {\"op\":\"insert\",\"table\":\"Root\",\"row\":{
        \"managers\":\"punix:$PWD/admin.sock\",
        \"manager_options\":[\"set\",[[\"named-uuid\",\"x\"],
                                   [\"named-uuid\",\"y\"]]]}},
      {\"op\":\"insert\",\"table\":\"Manager\",\"uuid-name\":\"x\",
       \"row\":{\"target\":\"punix:$PWD/m.sock\"}},
      {\"op\":\"insert\",\"table\":\"Manager\",\"uuid-name\":\"y\",
       \"row\":{\"target\":\"tcp:127.0.0.1:1\"}}]" > /dev/null
    "$2" --no-chdir --unixctl="$PWD/ctl" --log-file="$PWD/log" \
        --remote=db:mydb,Root,managers \
        --remote=db:mydb,Root,manager_options db 2> err &
    pid=$!
    SERVER_PIDS="$SERVER_PIDS $pid"
    wait_socket $pid admin.sock err
    python3 ../check.py "$PWD" || fail "$1: $(tail -3 log)"
    kill $pid
    cd ..
}
check ours "$B/ovsdb-server"
if has_reference; then
    check ref "$REF_OVSDB_SERVER"
else
    echo "reference not installed: not compared"
fi
echo PASS
