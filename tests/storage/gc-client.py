#!/usr/bin/env python3
# tests/storage/gc-client.py: JSON-RPC clients for tests/storage/
# group-commit.sh (a helper, not a test).
#
#   gc-client.py burst SOCK PID K TAG [durable]
#       Opens K connections, stops the server (SIGSTOP), sends one
#       transaction on each, resumes it (SIGCONT), so that all K requests
#       are read in the same pass of the server's loop, and prints one line
#       per reply: "TAG<i> ok" or "TAG<i> error <error>".  Transaction i
#       inserts Root "TAG<i>" with a new Child, and bumps the "counter"
#       row's n and adds "TAG<i>" to its tags: every transaction of the
#       batch changes the same row.
#   gc-client.py load SOCK K SECONDS ACKED
#       K connections each commit durable transactions in a loop for at
#       most SECONDS (or until the server dies), each inserting Root
#       "L<c>-<i>-a" and "L<c>-<i>-b" and bumping the counter; appends
#       "L<c>-<i>" to the file ACKED as soon as its reply says success.
#   gc-client.py check SOCK
#       Prints "counter N tags T children C roots R" as the server sees it.
import json
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import rpc  # noqa: E402


def connect(path):
    return rpc.Client("unix:" + path, timeout=60)


def reply_error(reply):
    if reply.get("error") is not None:
        return json.dumps(reply["error"])
    for r in reply["result"]:
        if isinstance(r, dict) and "error" in r:
            return r["error"]
    return None


def counter_ops(name, durable):
    ops = [{"op": "mutate", "table": "Root",
            "where": [["name", "==", "counter"]],
            "mutations": [["n", "+=", 1], ["tags", "insert", name]]}]
    if durable:
        ops.append({"op": "commit", "durable": True})
    return ops


def burst(path, pid, k, tag, durable):
    conns = [connect(path) for _ in range(k)]
    for c in conns:
        c.call("echo", [])             # The server has a session for it.
    rpc.stop_process(pid)
    try:
        ids = []
        for i, c in enumerate(conns):
            name = "%s%d" % (tag, i)
            ops = [{"op": "insert", "table": "Child", "row": {"value": i},
                    "uuid-name": "c"},
                   {"op": "insert", "table": "Root",
                    "row": {"name": name, "kids": ["named-uuid", "c"]}}]
            ids.append(c.request("transact",
                                 ["Store"] + ops + counter_ops(name, durable)))
    finally:
        os.kill(pid, signal.SIGCONT)
    for i, c in enumerate(conns):
        error = reply_error(c.wait_reply(ids[i]))
        print("%s%d %s" % (tag, i, "ok" if error is None
                           else "error " + error))


def load(path, k, seconds, acked_path):
    acked = open(acked_path, "a")
    lock = threading.Lock()
    deadline = time.time() + seconds

    def worker(cid):
        try:
            c = connect(path)
            i = 0
            while time.time() < deadline:
                name = "L%d-%d" % (cid, i)
                ops = [{"op": "insert", "table": "Root",
                        "row": {"name": name + "-a"}},
                       {"op": "insert", "table": "Root",
                        "row": {"name": name + "-b"}}]
                reply = c.transact("Store", ops + counter_ops(name, True))
                if reply_error(reply) is None:
                    with lock:
                        acked.write(name + "\n")
                        acked.flush()
                i += 1
        except (OSError, EOFError):
            pass                # The server was killed.

    threads = [threading.Thread(target=worker, args=(c,))
               for c in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def check(path):
    c = connect(path)
    r = c.transact("Store", [
        {"op": "select", "table": "Root",
         "where": [["name", "==", "counter"]]},
        {"op": "select", "table": "Child", "where": [], "columns": ["_uuid"]},
        {"op": "select", "table": "Root", "where": [], "columns": ["name"]}])
    res = r["result"]
    row = res[0]["rows"][0]
    tags = row["tags"]
    n_tags = len(tags[1]) if tags[0] == "set" else 1
    print("counter %d tags %d children %d roots %d"
          % (row["n"], n_tags, len(res[1]["rows"]), len(res[2]["rows"])))


def main():
    cmd = sys.argv[1]
    if cmd == "burst":
        burst(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5],
              len(sys.argv) > 6)
    elif cmd == "load":
        load(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    elif cmd == "check":
        check(sys.argv[2])
    else:
        sys.exit("unknown command " + cmd)


main()
