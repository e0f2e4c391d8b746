# tests/server/history-size.sh: the transaction history that
# monitor_cond_since catches clients up from holds at most as many atoms as
# the database, as the reference's (Open vSwitch's "ovsdb-server
# transaction history size" test); memory/show reports it with the
# reference's keys, txn-history and txn-history-atoms.  Transactions grow
# until each is a large part of the database, then rows are deleted.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_server ours ovsdb-server ovsdb-tool
python3 - "$PWD" <<'PY'
import sys
import rpc

d = sys.argv[1]
c = rpc.Client("unix:%s/ours.sock" % d)
# Starts the history.
c.result("monitor_cond_since", ["Example", "m", {"Host": [{}]},
                                "00000000-0000-0000-0000-000000000000"])


def memory():
    out = rpc.unixctl("%s/ours.ctl" % d, "memory/show").split("\n")[0]
    return {k: int(v) for k, v in (kv.split(":") for kv in out.split())}


def check(what):
    m = memory()
    if m.get("txn-history", 0) > 1:
        assert m["txn-history-atoms"] <= m["atoms"], (what, m)
    return m


for i in range(1, 60):
    addrs = ["10.%d.%d.%d" % (i, j // 250, j % 250) for j in range(i * 4)]
    c.transact("Example", [{"op": "insert", "table": "Host", "row": {
        "name": "h%d" % i, "address": ["set", addrs]}}])
    m = check("insert %d" % i)
print("after the inserts:", m)
assert m.get("txn-history", 0) > 1, m
for i in range(1, 60):
    c.transact("Example", [{"op": "delete", "table": "Host",
                            "where": [["name", "==", "h%d" % i]]}])
    m = check("delete %d" % i)
print("after the deletes:", m)
PY
[ $? = 0 ] || fail "the history outgrew the database"
echo PASS
