"""tests/cluster/since-restart.py: the monitor_cond_since history of a
clustered database survives a restart of the server.

usage: since-restart.py before|after REMOTE STATEFILE

"before" inserts rows a and b, takes the transaction id a client would
have seen after a (written to STATEFILE), then inserts c and d.  The
server is restarted.  "after" asks monitor_cond_since from that id and
checks that it is found and that exactly b, c and d come as inserts.
"""
import json
import sys

from rpc import Client

DB = "Store"
ZERO = "00000000-0000-0000-0000-000000000000"
REQ = {"Root": [{"columns": ["name"]}]}


def insert(c, name):
    r = c.transact(DB, [{"op": "insert", "table": "Root",
                         "row": {"name": name}}])
    r = r.get("result") or [{}]
    if "uuid" not in r[0]:
        sys.exit("insert %s failed: %r" % (name, r))


def main():
    phase, remote, state = sys.argv[1:4]
    c = Client(remote)
    if phase == "before":
        insert(c, "a")
        found, last, _ = c.result("monitor_cond_since", [DB, "m", REQ, ZERO])
        insert(c, "b")
        with open(state, "w") as f:
            f.write(last)
        insert(c, "c")
        insert(c, "d")
        return
    with open(state) as f:
        last = f.read().strip()
    found, now, updates = c.result("monitor_cond_since",
                                   [DB, "m", REQ, last])
    if found is not True:
        sys.exit("after the restart, transaction %s is not in the history"
                 % last)
    names = sorted(row["insert"]["name"]
                   for row in updates.get("Root", {}).values())
    if names != ["b", "c", "d"]:
        sys.exit("changes since %s: %s" % (last, json.dumps(updates)))
    if now == last:
        sys.exit("the last transaction id did not move")
    print("found %s after the restart: inserts %s" % (last, names))


if __name__ == "__main__":
    main()
