"""tests/server/pipeline.py: requests pipelined in one write.

    pipeline.py REMOTE UNIX_PATH_OR_-
Checks that a client that writes many requests at once (transactions
that share a group commit, echo, monitor_cond, get_schema, a read) gets
its replies in request order, sees its own earlier writes in the monitor's
initial contents and in a later select, gets the update of a later write
before that write's reply; that a "wait" with a timeout delays only its
own reply; that a request bigger than a socket read, 300 requests in one
segment, and a request followed by a half-close all work.  Prints
"ok" or raises.
"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.environ["OVSDB_SRCDIR"], "tests/server"))
from rpc import Client, connect  # noqa: E402


def req(id, method, params):
    return json.dumps({"id": id, "method": method, "params": params})


def ins(name):
    return ["Store", {"op": "insert", "table": "Root",
                      "row": {"name": name}}]


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def replies(c, n):
    """Returns the next 'n' replies and the notifications among them, in
    arrival order, as a list of ids ("U" for an update)."""
    order, by_id = [], {}
    while len(by_id) < n:
        m = c.recv()
        if m.get("id") is None:
            order.append("U")
        else:
            order.append(m["id"])
            by_id[m["id"]] = m
    return order, by_id


def main():
    remote = sys.argv[1]
    c = Client(remote)
    c.send_raw("".join([
        req(1, "transact", ins("a")), req(2, "transact", ins("b")),
        req(3, "echo", ["x"]),
        req(4, "monitor_cond", ["Store", "m",
                                {"Root": [{"columns": ["name"]}]}]),
        req(5, "get_schema", ["Store"]),
        req(6, "transact", ["Store", {"op": "select", "table": "Root",
                                      "where": [], "columns": ["name"]}]),
        req(7, "transact", ins("c")),
        req(8, "echo", ["y"])]).encode())
    order, r = replies(c, 8)
    check(order == [1, 2, 3, 4, 5, 6, "U", 7, 8],
          "reply order %s" % order)
    initial = sorted(v["initial"]["name"]
                     for v in r[4]["result"]["Root"].values())
    check(initial == ["a", "b", "k"], "monitor initial %s" % initial)
    rows = sorted(x["name"] for x in r[6]["result"][0]["rows"])
    check(rows == ["a", "b", "k"], "select %s" % rows)

    # A wait delays only its own reply, and times out.
    t0 = time.time()
    c.send_raw((req(10, "transact", [
        "Store", {"op": "wait", "table": "Root",
                  "where": [["name", "==", "zz"]], "columns": ["name"],
                  "until": "!=", "rows": [], "timeout": 600}])
        + req(11, "echo", [])).encode())
    order, r = replies(c, 2)
    check(order == [11, 10], "wait order %s" % order)
    check(time.time() - t0 >= 0.5, "wait returned early")
    check("timed out" in json.dumps(r[10]["result"]), "wait %s" % r[10])

    # A request bigger than a read, then one more in the same write.
    c.send_raw((req(20, "transact", ins("x" * 200000))
                + req(21, "echo", [])).encode())
    order, r = replies(c, 2)
    check(order == ["U", 20, 21], "big order %s" % order)
    check("error" not in json.dumps(r[20]["result"]), "big %s" % r[20])

    # Many requests in one segment.
    c.send_raw("".join(req(100 + i, "echo", [i])
                       for i in range(300)).encode())
    order, r = replies(c, 300)
    check(order == list(range(100, 400)), "300 echoes out of order")

    # A request, then a half-close: the reply still arrives.
    d = connect(remote)
    d.sendall((req(30, "transact", ins("hc")) + req(31, "echo", []))
              .encode())
    d.shutdown(socket.SHUT_WR)
    buf = b""
    while True:
        data = d.recv(65536)
        if not data:
            break
        buf += data
    got = [m["id"] for m in map(json.loads, buf.decode().replace(
        "}{", "}\n{").splitlines())]
    check(got == [30, 31], "half-close replies %s" % got)
    print("ok")


main()
