# tests/server/db-change-aware.sh: when the set of databases changes
# (ovsdb-server/add-db, remove-db, an online "convert"), a client that sent
# set_db_change_aware keeps its connection and sees the change in _Server,
# while one that did not is disconnected, as with the reference, so that it
# reconnects and reads the databases afresh.  The client whose own
# "convert" changed the schema still gets the reply first.  Compared with
# the reference when it is installed.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
B=$OVSDB_BUILDDIR/ovsdb
cat > check.py <<'PY'
import json
import sys
import rpc

sock, ctl, extra_db, schema2 = sys.argv[1:5]
remote = "unix:" + sock


def connected(c):
    try:
        c.call("echo", ["x"])
        return True
    except (rpc.Closed, ConnectionResetError, BrokenPipeError):
        return False


def db_names(c):
    return sorted(c.result("list_dbs", []))


aware = rpc.Client(remote)
assert aware.call("set_db_change_aware", [True]).get("error") is None
aware.result("monitor_cond", ["_Server", "m", {"Database": [{"columns":
                                                             ["name"]}]}])
unaware = rpc.Client(remote)
db_names(unaware)
unaware.result("monitor_cond", ["_Server", "u", {"Database": [{"columns":
                                                               ["name"]}]}])
before = db_names(aware)

rpc.unixctl(ctl, "ovsdb-server/add-db", extra_db)
assert connected(aware), "an aware client was disconnected by add-db"
assert not connected(unaware), "an unaware client survived add-db"
# ... and saw no update of the change that closed it (as the reference).
assert not [n for n in unaware.notes if n.get("method") == "update2"], \
    "an unaware client got an update of add-db: %r" % unaware.notes
added = sorted(set(db_names(aware)) - set(before))
aware.wait_notify("update2")
print("add-db: aware stays, unaware dropped; added", added)

unaware = rpc.Client(remote)
db_names(unaware)
rpc.unixctl(ctl, "ovsdb-server/remove-db", added[0])
assert connected(aware), "an aware client was disconnected by remove-db"
assert not connected(unaware), "an unaware client survived remove-db"
print("remove-db: aware stays, unaware dropped")

# The converting client, unaware, gets its reply before the disconnection.
converter = rpc.Client(remote)
bystander = rpc.Client(remote)
db_names(bystander)
new_schema = json.load(open(schema2))
reply = converter.call("convert", [new_schema["name"], new_schema])
assert reply.get("error") is None and reply.get("result") == {}, reply
assert not connected(converter), "the converting unaware client stayed"
assert not connected(bystander), "an unaware client survived a conversion"
assert connected(aware), "an aware client was disconnected by convert"
print("convert: reply received, unaware clients dropped")
PY

check_server() {
    server=$1 tool=$2
    rm -rf run && mkdir run && cd run
    "$tool" create db.db "$OVSDB_SRCDIR/tests/storage/test.ovsschema"
    "$tool" create extra.db "$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema"
    serve s "$server" db.db
    python3 ../check.py "$PWD/s.sock" "$PWD/s.ctl" "$PWD/extra.db" \
        "$OVSDB_SRCDIR/tests/storage/test2.ovsschema" \
        || { tail -20 s.log; fail "$3"; }
    stop_server s
    cd ..
}
check_server "$B/ovsdb-server" "$B/ovsdb-tool" "our server"
if has_reference; then
    check_server "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL" "the reference"
else
    echo "reference not installed: not compared"
fi
echo PASS
