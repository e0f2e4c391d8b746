"""tests/server/idle.py: sessions with nothing to do are skipped by the
server's loop (ovsdb/server/server.c, "Idle sessions"), and still hear of
everything meant for them.

usage: idle.py UNIX-REMOTE CTL [N]
N clients (default 100) monitor Host and wait for lock "L" (the first
gets it), then sit idle.  Another client inserts a row: every idle client
gets the update.  The owner of "L" unlocks: the next waiter, idle until
then, is told "locked".  An idle client that finally sends "echo" gets its
reply, and one that closes its connection frees its lock for the next.
An idle connection gives back its input buffer (4 kB) after a second
without input although the loop skips it: its wait asks for that time.
"""
import re
import sys
import time

from rpc import Client, unixctl


def check(cond, msg):
    if not cond:
        print("CHECK FAILED: " + msg)
        sys.exit(1)


def allocated(ctl):
    """The server's allocated bytes (memory/show)."""
    out = unixctl(ctl, "memory/show")
    return int(re.search(r"allocated:(\d+)", out).group(1))


def main(remote, ctl, n):
    base = allocated(ctl)
    clients = []
    for i in range(n):
        c = Client(remote)
        c.call("monitor_cond", ["Example", "m", {"Host": [{
            "columns": ["name"]}]}])
        r = c.call("lock", ["L"])["result"]
        check(r == {"locked": i == 0}, "client %d lock: %r" % (i, r))
        clients.append(c)
    # Let the server's loop see them all idle for a few passes.
    for c in clients:
        check(c.no_notify(0.01) == [], "nothing for an idle client")
    # Their input buffers go after a second without input (bounded wait).
    for _ in range(100):
        per_client = (allocated(ctl) - base) / n
        if per_client < 4096:
            break
        time.sleep(0.1)
    print("allocated per idle client: %d bytes" % per_client)
    check(per_client < 4096, "idle clients keep their input buffers")

    writer = Client(remote)
    r = writer.transact("Example", [{"op": "insert", "table": "Host",
                                     "row": {"name": "h1"}}])
    check("uuid" in r["result"][0], "insert: %r" % r)
    for i, c in enumerate(clients):
        note = c.wait_notify("update2", timeout=10)
        rows = list(note["params"][1]["Host"].values())
        check(rows == [{"insert": {"name": "h1"}}],
              "client %d update: %r" % (i, note))

    # Locks: each owner unlocks in turn; the next waiter, idle until
    # then, hears of it.
    for i in range(3):
        r = clients[i].call("unlock", ["L"])
        check(r.get("result") == {}, "unlock %d: %r" % (i, r))
        note = clients[i + 1].wait_notify("locked", timeout=10)
        check(note["params"] == ["L"], "client %d locked: %r"
              % (i + 1, note))
    # The owner closes its connection instead: the next one gets it.
    clients[3].close()
    note = clients[4].wait_notify("locked", timeout=10)
    check(note["params"] == ["L"], "client 4 locked: %r" % note)

    # An idle client's own request.
    r = clients[-1].call("echo", ["still", "here"])
    check(r["result"] == ["still", "here"], "echo: %r" % r)
    print("%d idle clients: update, lock hand-over and echo" % n)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 100)
