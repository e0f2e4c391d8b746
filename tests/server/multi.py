"""tests/server/multi.py: several databases and remotes in one server.

usage: multi.py UNIX-REMOTE TCP-REMOTE CTL DB2-FILE
Both remotes serve both databases; adding a database through the control
socket shows up in _Server monitors; removing one cancels the monitors of
clients that asked for set_db_change_aware and disconnects the others.
"""
import subprocess
import sys

from rpc import Client, Closed


def check(cond, msg):
    if not cond:
        print("CHECK FAILED: " + msg)
        sys.exit(1)


def appctl(ctl, *args):
    subprocess.run(["ovs-appctl", "-t", ctl] + list(args), check=True)


def main(unix, tcp, ctl, db2):
    u = Client(unix)
    t = Client(tcp)
    for c in (u, t):
        dbs = c.call("list_dbs", [])["result"]
        check(sorted(dbs) == ["Example", "Second", "_Server"],
              "both databases on both remotes: %r" % dbs)
    r = t.call("transact", ["Second", {"op": "insert", "table": "T",
                                       "row": {"n": 7}}])
    check("uuid" in r["result"][0], "transact on Second over TCP: %r" % r)
    r = u.call("transact", ["Second", {"op": "select", "table": "T",
                                       "where": [], "columns": ["n"]}])
    check(r["result"][0]["rows"] == [{"n": 7}], "visible over unix")

    watcher = Client(unix)
    watcher.call("set_db_change_aware", [True])
    init = watcher.call("monitor_cond", ["_Server", "s", {
        "Database": [{"columns": ["name"]}]}])["result"]
    check(sorted(v["initial"]["name"] for v in init["Database"].values())
          == ["Example", "Second", "_Server"], "_Server rows")

    aware = Client(unix)
    aware.call("set_db_change_aware", [True])
    aware.call("monitor_cond", ["Second", "m", {"T": [{}]}])
    unaware = Client(unix)
    unaware.call("monitor_cond", ["Second", "m", {"T": [{}]}])

    appctl(ctl, "ovsdb-server/remove-db", "Second")
    n = aware.wait_notify("monitor_canceled", timeout=5)
    check(n["params"] == ["m"], "monitor_canceled: %r" % n)
    check(aware.call("echo", [1])["result"] == [1], "aware client kept")
    try:
        unaware.wait_notify(timeout=5)
        check(False, "unaware client not disconnected")
    except (Closed, ConnectionResetError):
        pass
    n = watcher.wait_notify("update2", timeout=5)
    check(list(n["params"][1]["Database"].values()) == [{"delete": None}],
          "_Server row deleted: %r" % n)
    # (The reference also disconnects every client that is not
    # db-change-aware, even unrelated ones: use fresh connections.)
    u = Client(unix)
    t = Client(tcp)
    check(sorted(u.call("list_dbs", [])["result"]) == ["Example", "_Server"],
          "list_dbs after remove")
    r = u.call("transact", ["Second", {"op": "comment", "comment": "x"}])
    check(r["error"]["error"] == "unknown database", "removed db unknown")

    appctl(ctl, "ovsdb-server/add-db", db2)
    n = watcher.wait_notify("update2", timeout=5)
    rows = list(n["params"][1]["Database"].values())
    check(rows == [{"insert": {"name": "Second"}}], "_Server insert: %r" % n)
    t = Client(tcp)
    r = t.call("transact", ["Second", {"op": "select", "table": "T",
                                       "where": [], "columns": ["n"]}])
    check(r["result"][0]["rows"] == [{"n": 7}], "data kept across re-add")


if __name__ == "__main__":
    main(*sys.argv[1:])
