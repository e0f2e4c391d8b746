#!/usr/bin/env python3
# tests/cluster/raft-writer.py: a client for the Raft tests (a helper, not
# a test).
#
#   raft-writer.py write ACKED SECONDS MAX TAG SOCK...
#       Inserts Root rows "TAG-<i>" (n = i) one transaction at a time, on
#       the first SOCK that answers, moving to the next one when a server
#       fails a transaction or goes away, for at most SECONDS or MAX rows.
#       Appends each name to the file ACKED as soon as its reply says
#       success; every attempt uses a new name, so a transaction that
#       failed but did commit is never counted twice.  Exits 0 once MAX
#       rows were acknowledged, 1 if time ran out first.
#   raft-writer.py strict N TAG SOCK
#       Inserts Root rows "TAG-<i>" for i in 0..N-1, one transaction at a
#       time, all on SOCK (waiting up to 120 s for each reply), and exits 1
#       at the first reply that is not a success: a member must run a
#       transaction that a cluster could not take again itself ("not
#       leader" during an election, another member's entry first), as the
#       reference does, never hand the client that error.
#   raft-writer.py load ACKED STOP SECONDS TAG SOCK...
#       The same, but with no count: goes on until the file STOP exists
#       (or SECONDS pass), and writes each name to ACKED.tried before it
#       sends it, so that a checker knows every name that might be in the
#       database.  Exits 0 if it stopped on STOP with something acked.
#   raft-writer.py names SOCK [DB TABLE]
#       Prints the names of all Root rows (or TABLE's in DB), sorted, one a
#       line.
#   raft-writer.py server SOCK DB
#       Prints DB's row of _Server.Database: "MODEL CONNECTED LEADER INDEX".
#   raft-writer.py since SOCK [LAST-ID]
#       Sends monitor_cond_since on Root with LAST-ID (default: all zeros)
#       and prints "FOUND LAST-TXN-ID" ("true"/"false").
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import rpc  # noqa: E402


def reply_error(reply):
    if reply.get("error") is not None:
        return str(reply["error"])
    for r in reply["result"]:
        if isinstance(r, dict) and "error" in r:
            return "%s: %s" % (r["error"], r.get("details", ""))
    return None


def write(acked_path, seconds, max_rows, tag, socks, stop=None):
    deadline = time.time() + seconds
    n_acked = 0
    attempt = 0
    which = 0
    client = None
    tried = open(acked_path + ".tried", "a") if stop else None
    with open(acked_path, "a") as acked:
        while n_acked < max_rows and time.time() < deadline:
            if stop and os.path.exists(stop):
                break
            if client is None:
                try:
                    client = rpc.Client("unix:" + socks[which], timeout=10)
                except OSError:
                    which = (which + 1) % len(socks)
                    time.sleep(0.05)
                    continue
            name = "%s-%d" % (tag, attempt)
            attempt += 1
            if tried:
                tried.write(name + "\n")
                tried.flush()
            try:
                reply = client.transact("Store", [
                    {"op": "insert", "table": "Root",
                     "row": {"name": name, "n": attempt}}])
            except (OSError, rpc.Closed, ValueError):
                client.close()
                client = None
                which = (which + 1) % len(socks)
                continue
            error = reply_error(reply)
            if error is None:
                acked.write(name + "\n")
                acked.flush()
                n_acked += 1
            else:
                # Not leader, timeout, lost leadership...: try elsewhere.
                client.close()
                client = None
                which = (which + 1) % len(socks)
                time.sleep(0.05)
    print("%d acknowledged in %d attempts" % (n_acked, attempt))
    if stop:
        return 0 if os.path.exists(stop) and n_acked else 1
    return 0 if n_acked >= max_rows else 1


def strict(n, tag, sock):
    client = rpc.Client("unix:" + sock, timeout=120)
    for i in range(n):
        name = "%s-%d" % (tag, i)
        reply = client.transact("Store", [
            {"op": "insert", "table": "Root", "row": {"name": name, "n": i}}])
        error = reply_error(reply)
        if error is not None:
            print("%s: %s" % (name, error))
            return 1
    print("%d acknowledged" % n)
    return 0


def names(sock, db="Store", table="Root"):
    c = rpc.Client("unix:" + sock, timeout=30)
    reply = c.transact(db, [{"op": "select", "table": table,
                             "where": [], "columns": ["name"]}])
    error = reply_error(reply)
    if error:
        print("select failed: " + error, file=sys.stderr)
        return 1
    for name in sorted(r["name"] for r in reply["result"][0]["rows"]):
        print(name)
    return 0


def server(sock, db):
    c = rpc.Client("unix:" + sock, timeout=30)
    reply = c.transact("_Server", [
        {"op": "select", "table": "Database", "where": [["name", "==", db]],
         "columns": ["model", "connected", "leader", "index"]}])
    error = reply_error(reply)
    if error:
        print("select failed: " + error, file=sys.stderr)
        return 1
    for row in reply["result"][0]["rows"]:
        index = row["index"]
        if isinstance(index, list):     # An empty set: no index.
            index = "-"
        print("%s %s %s %s" % (row["model"], str(row["connected"]).lower(),
                               str(row["leader"]).lower(), index))
    return 0


def since(sock, last):
    c = rpc.Client("unix:" + sock, timeout=30)
    r = c.result("monitor_cond_since",
                 ["Store", None, {"Root": [{"columns": ["name"]}]}, last])
    print("%s %s" % ("true" if r[0] else "false", r[1]))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        sys.exit(write(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]),
                       sys.argv[5], sys.argv[6:]))
    elif sys.argv[1] == "strict":
        sys.exit(strict(int(sys.argv[2]), sys.argv[3], sys.argv[4]))
    elif sys.argv[1] == "load":
        sys.exit(write(sys.argv[2], float(sys.argv[4]), float("inf"),
                       sys.argv[5], sys.argv[6:], stop=sys.argv[3]))
    elif sys.argv[1] == "names":
        sys.exit(names(*sys.argv[2:5]))
    elif sys.argv[1] == "server":
        sys.exit(server(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "since":
        sys.exit(since(sys.argv[2], sys.argv[3] if len(sys.argv) > 3
                       else "00000000-0000-0000-0000-000000000000"))
    sys.exit("usage: see the top of the file")
