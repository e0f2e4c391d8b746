#!/usr/bin/env python3
# tests/cluster/raft-watch.py: a monitoring client for the Raft tests (a
# helper, not a test).
#
#   raft-watch.py STOP SOCK
#       Until the file STOP exists: connects to SOCK, starts a
#       monitor_cond on Store's Root table, applies the initial rows and
#       the updates it receives for a moment, then closes and starts over.
#       Every update must make sense on the rows the client has: an
#       "insert" of a row it already has, or a "modify" or "delete" of one
#       it lacks, is a failure (it means a reply showed a row before its
#       transaction was decided, or never showed a decided one).  Once
#       STOP exists, one last monitor runs until its rows are the server's
#       (a "select" on the same connection), for at most 60 s.  Prints what
#       it saw; exits 0 if nothing was wrong, 1 otherwise.
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import rpc  # noqa: E402

DB = "Store"


def apply(rows, table_updates, where):
    for uuid, change in table_updates.get("Root", {}).items():
        if "insert" in change:
            if uuid in rows:
                raise ValueError("%s: insert of a row it has: %s"
                                 % (where, uuid))
            rows[uuid] = change["insert"].get("name")
        elif "initial" in change:
            rows[uuid] = change["initial"].get("name")
        elif "modify" in change:
            if uuid not in rows:
                raise ValueError("%s: modify of a row it lacks: %s"
                                 % (where, uuid))
            if "name" in change["modify"]:
                rows[uuid] = change["modify"]["name"]
        elif "delete" in change:
            if uuid not in rows:
                raise ValueError("%s: delete of a row it lacks: %s"
                                 % (where, uuid))
            del rows[uuid]


def session(sock, seconds, settle):
    """One monitor session; returns the number of updates applied."""
    c = rpc.Client("unix:" + sock, timeout=30)
    try:
        initial = c.result("monitor_cond",
                           [DB, "w", {"Root": [{"columns": ["name"]}]}])
        rows = {}
        apply(rows, initial, "initial reply")
        n = 0
        deadline = time.time() + seconds
        while True:
            for note in c.notes:
                if note.get("method") == "update2":
                    apply(rows, note["params"][1], "update")
                    n += 1
            c.notes = []
            if settle:
                r = c.transact(DB, [{"op": "select", "table": "Root",
                                     "where": [], "columns": ["name"]}])
                names = sorted(row["name"] for row in r["result"][0]["rows"])
                # The select's reply comes after the updates before it.
                for note in c.notes:
                    if note.get("method") == "update2":
                        apply(rows, note["params"][1], "update")
                c.notes = []
                if sorted(rows.values()) == names:
                    return n
            if time.time() >= deadline:
                if settle:
                    raise ValueError("the monitor never matched the rows")
                return n
            c.sock.settimeout(0.1)
            try:
                c.notes.append(c.recv())
            except socket.timeout:
                pass
            finally:
                c.sock.settimeout(30)
    finally:
        c.close()


def main(stop, sock):
    n_sessions = n_updates = 0
    try:
        while not os.path.exists(stop):
            n_updates += session(sock, 0.3, False)
            n_sessions += 1
        n_updates += session(sock, 60, True)
    except (ValueError, RuntimeError, OSError, rpc.Closed) as e:
        print("FAILED after %d sessions: %s" % (n_sessions, e))
        return 1
    print("%d sessions, %d updates, all consistent" % (n_sessions + 1,
                                                      n_updates))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
