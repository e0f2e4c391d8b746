"""tests/storage/gc-wait.py: a "wait" that saw a failed batch is retried.

    gc-wait.py SOCKET SERVER_PID
A deletes row "k" and W, in the same pass of the server's loop, waits for
"k" to exist before inserting "w": W's wait fails on the unwritten delete.
The server was started with the first write failing, so A's batch is
undone and "k" is back: W's transaction must be retried then (as if A's
delete had failed before W ran) and succeed, not wait for some unrelated
later commit.  Prints "A: <outcome>" and "W: <outcome>".
"""
import os
import signal
import sys

sys.path.insert(0, os.path.join(os.environ["OVSDB_SRCDIR"], "tests"))
from rpc import Client, stop_process  # noqa: E402


def outcome(reply):
    for r in reply.get("result") or []:
        if isinstance(r, dict) and "error" in r:
            return "error " + r["error"]
    return "error " + str(reply["error"]) if reply.get("error") else "ok"


def main():
    path, pid = sys.argv[1], int(sys.argv[2])
    a = Client("unix:" + path, timeout=5)
    w = Client("unix:" + path, timeout=5)
    for c in (a, w):
        c.call("echo", [])              # The server has both sessions.
    stop_process(pid)
    try:
        a.send({"id": 1, "method": "transact", "params": [
            "Store", {"op": "delete", "table": "Root",
                      "where": [["name", "==", "k"]]}]})
        w.send({"id": 2, "method": "transact", "params": [
            "Store",
            {"op": "wait", "table": "Root", "where": [["name", "==", "k"]],
             "columns": ["name"], "until": "==", "rows": [{"name": "k"}]},
            {"op": "insert", "table": "Root", "row": {"name": "w"}}]})
    finally:
        os.kill(pid, signal.SIGCONT)
    for name, c in (("A", a), ("W", w)):
        try:
            reply = c.recv()
            while reply.get("id") is None:
                reply = c.recv()
            print("%s: %s" % (name, outcome(reply)))
        except Exception as e:          # Timeout: no reply.
            print("%s: no reply (%s)" % (name, type(e).__name__))


main()
