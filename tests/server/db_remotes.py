"""tests/server/db_remotes.py: remotes configured in the database.

usage: db_remotes.py UNIX-REMOTE CTL PORT1 PORT2
The server serves the Secure schema (tests/data/schemas/rbac.ovsschema)
with --remote=db:Secure,Global,connections.  Adding Connection rows opens
their listeners; "read_only" refuses writes on that connection; a "role"
subjects its transactions to RBAC (a client without a certificate may
change nothing); removing the rows closes the listeners.
"""
import socket
import subprocess
import sys
import time

from rpc import Client

DB = "Secure"


def check(cond, msg):
    if not cond:
        print("CHECK FAILED: " + msg)
        sys.exit(1)


def wait_tcp(port, up, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            if up:
                return True
        except OSError:
            if not up:
                return True
        time.sleep(0.05)
    return False


def main(unix, ctl, port1, port2):
    port1, port2 = int(port1), int(port2)
    c = Client(unix)
    r = c.call("transact", [DB,
        {"op": "insert", "table": "Connection", "uuid-name": "ro",
         "row": {"target": "ptcp:%d:127.0.0.1" % port1, "read_only": True}},
        {"op": "insert", "table": "Connection", "uuid-name": "rbac",
         "row": {"target": "ptcp:%d:127.0.0.1" % port2,
                 "role": "ovn-controller"}},
        {"op": "insert", "table": "RBAC_Permission", "uuid-name": "perm",
         "row": {"table": "Chassis", "authorization": "name",
                 "insert_delete": True, "update": ["set", ["nb_cfg"]]}},
        {"op": "insert", "table": "RBAC_Role",
         "row": {"name": "ovn-controller",
                 "permissions": ["map", [["Chassis",
                                          ["named-uuid", "perm"]]]]}},
        {"op": "insert", "table": "Global",
         "row": {"connections": ["set", [["named-uuid", "ro"],
                                         ["named-uuid", "rbac"]]]}}])
    check(all("error" not in x for x in r["result"]), "setup: %r" % r)
    check(wait_tcp(port1, True) and wait_tcp(port2, True),
          "listeners from the database")

    ro = Client("tcp:127.0.0.1:%d" % port1)
    r = ro.call("transact", [DB, {"op": "insert", "table": "Chassis",
                                  "row": {"name": "x"}}])
    print("read-only write: %s" % r["result"][0].get("error"))
    check(r["result"][0].get("error") == "not allowed",
          "read-only connection refuses writes: %r" % r)
    r = ro.call("transact", [DB, {"op": "select", "table": "Chassis",
                                  "where": []}])
    check(r["result"][0] == {"rows": []}, "read-only connection reads")

    rb = Client("tcp:127.0.0.1:%d" % port2)
    r = rb.call("transact", [DB, {"op": "insert", "table": "Chassis",
                                  "row": {"name": "x"}}])
    print("rbac write: %r" % (r["result"][0],))
    check(r["result"][0].get("error") == "permission error",
          "RBAC refuses a client without an ID: %r" % r)
    r = c.call("transact", [DB, {"op": "insert", "table": "Chassis",
                                 "row": {"name": "x"}}])
    check("uuid" in r["result"][0], "no role on the unix remote")

    out = subprocess.run(["ovs-appctl", "-t", ctl,
                          "ovsdb-server/list-remotes"],
                         capture_output=True, text=True).stdout
    check("db:Secure,Global,connections" in out, "list-remotes: %r" % out)

    r = c.call("transact", [DB, {"op": "update", "table": "Global",
                                 "where": [],
                                 "row": {"connections": ["set", []]}}])
    check(r["result"][0].get("count") == 1, "clear connections: %r" % r)
    check(wait_tcp(port1, False) and wait_tcp(port2, False),
          "listeners closed when the rows go")


if __name__ == "__main__":
    main(*sys.argv[1:])
