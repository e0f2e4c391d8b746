"""tests/relay/relay.py: checks an ovsdb-server relay against its upstream.

    python3 relay.py basic UPSTREAM RELAY
    python3 relay.py catchup UPSTREAM RELAY PROXY_SOCK
    python3 relay.py load UPSTREAM RELAY PROXY_SOCK
    python3 relay.py cluster RELAY MEMBER=PIDFILE...
    python3 relay.py txnids UPSTREAM RELAY1 RELAY2

UPSTREAM and RELAY are "unix:PATH" remotes serving the Example schema
(ovsdb/schemas/example.ovsschema).  For "catchup" and "load" the relay's
upstream is a proxy this script runs: it listens on PROXY_SOCK and forwards
to UPSTREAM, and can cut every connection through it, so the relay has to
reconnect and catch up while the upstream keeps its history.
For "cluster", each MEMBER is the unix remote of a member of a 3-server
cluster and PIDFILE holds its pid: the leader is killed mid-load.
For "txnids", RELAY1 and RELAY2 relay the same UPSTREAM.
Exits nonzero with a message on the first check that fails.
"""
import os
import socket
import sys
import threading
import time

import rpc

DB = "Example"


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def transact(c, *ops):
    return c.call("transact", [DB] + list(ops))


def ok(reply, what):
    check(reply.get("error") is None, "%s: error %r" % (what, reply))
    for r in reply["result"]:
        check(r is not None and "error" not in r,
              "%s: operation failed: %r" % (what, reply))
    return reply["result"]


def dump(c):
    """Returns {table: {uuid: row}} of every table, _version left out."""
    out = {}
    for table in ("Host", "Interface"):
        rows = ok(transact(c, {"op": "select", "table": table,
                                "where": []}), "select")[0]["rows"]
        out[table] = {}
        for row in rows:
            uuid = row.pop("_uuid")[1]
            row.pop("_version", None)
            out[table][uuid] = row
    return out


def wait_until(pred, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.05)
    fail("timed out waiting for " + what)


def server_row(c):
    rows = ok(c.call("transact", ["_Server", {
        "op": "select", "table": "Database",
        "where": [["name", "==", DB]],
        "columns": ["model", "connected", "leader"]}]), "_Server")[0]["rows"]
    return rows[0] if rows else None


def wait_relay_ready(remote):
    """Waits until the relay serves DB in sync; returns a client."""
    check(rpc.wait_for_socket(remote[5:]), "relay socket")
    c = rpc.Client(remote)
    wait_until(lambda: (server_row(c) or {}).get("connected") is True,
               "relay to connect")
    return c


def wait_same(up, relay, what):
    """Waits until the relay's copy equals the upstream's."""
    state = {}

    def same():
        state["up"], state["relay"] = dump(up), dump(relay)
        return state["up"] == state["relay"]
    try:
        wait_until(same, what)
    except SystemExit:
        print("upstream:", state.get("up"))
        print("relay:   ", state.get("relay"))
        raise


def monitor_since(c, mid, last="00000000-0000-0000-0000-000000000000"):
    return c.result("monitor_cond_since", [DB, mid, {
        "Host": [{"columns": ["name", "address", "external_ids"]}],
        "Interface": [{}]}, last])


# Scenarios.

def basic(up_remote, relay_remote):
    relay = wait_relay_ready(relay_remote)
    up = rpc.Client(up_remote)
    check(server_row(relay) == {"model": "relay", "connected": True,
                                "leader": False},
          "_Server row: %r" % server_row(relay))
    check(relay.result("list_dbs", []) == [DB, "_Server"]
          or sorted(relay.result("list_dbs", [])) == sorted([DB, "_Server"]),
          "list_dbs")
    check(relay.result("get_schema", [DB]) == up.result("get_schema", [DB]),
          "get_schema differs from the upstream's")

    # A monitor on the relay sees writes made through the relay and
    # directly upstream.
    watcher = rpc.Client(relay_remote)
    found, last, initial = monitor_since(watcher, "w")
    check(initial == {} and not found, "empty initial: %r" % initial)

    # Write through the relay, then read it back at once.
    r = ok(transact(relay, {"op": "insert", "table": "Host", "row": {
        "name": "h1", "address": ["set", ["10.0.0.1", "10.0.0.2"]],
        "external_ids": ["map", [["k", "v"]]]}}), "insert via relay")
    h1 = r[0]["uuid"][1]
    rows = ok(transact(relay, {"op": "select", "table": "Host",
                               "where": [["name", "==", "h1"]]}),
              "read own write")[0]["rows"]
    check(len(rows) == 1 and rows[0]["_uuid"] == ["uuid", h1],
          "relay does not show its own committed write: %r" % rows)
    note = watcher.wait_notify("update3", timeout=10)
    check(h1 in note["params"][2]["Host"], "update3 for h1: %r" % note)

    # Changes made upstream reach the relay and its monitors.
    ok(transact(up, {"op": "insert", "table": "Interface",
                     "uuid-name": "i", "row": {"name": "eth0",
                                               "mtu": 1500}},
                {"op": "mutate", "table": "Host",
                 "where": [["_uuid", "==", ["uuid", h1]]],
                 "mutations": [["interfaces", "insert",
                                ["named-uuid", "i"]],
                               ["address", "delete", "10.0.0.1"],
                               ["external_ids", "insert",
                                ["map", [["k2", "v2"]]]]]}),
       "upstream write")
    note = watcher.wait_notify("update3", timeout=10)
    check("Interface" in note["params"][2], "update3 upstream: %r" % note)
    wait_same(up, relay, "upstream insert to reach the relay")

    # Optional and map values change (update2 diffs), then a delete.
    ok(transact(relay, {"op": "update", "table": "Interface",
                        "where": [["name", "==", "eth0"]],
                        "row": {"mtu": 9000, "admin_state": "up"}},
                {"op": "update", "table": "Host",
                 "where": [["name", "==", "h1"]],
                 "row": {"external_ids": ["map", [["k", "changed"]]]}}),
       "update via relay")
    wait_same(up, relay, "update to reach the relay")
    # An optional value is sent whole, not as a diff (as the reference).
    note = watcher.wait_notify("update3", timeout=10)
    mods = list(note["params"][2]["Interface"].values())
    check(mods[0]["modify"]["mtu"] == 9000, "optional update2: %r" % note)
    ok(transact(up, {"op": "update", "table": "Interface",
                     "where": [], "row": {"mtu": ["set", []]}}),
       "clear optional upstream")
    wait_same(up, relay, "cleared optional to reach the relay")

    # Errors come from the upstream, unchanged.
    dup = {"op": "insert", "table": "Host", "row": {"name": "h1"}}
    via_relay = transact(relay, dup)
    direct = transact(up, dup)
    check(rpc.mask_uuids(via_relay["result"])
          == rpc.mask_uuids(direct["result"]),
          "error differs: %r vs %r" % (via_relay, direct))
    check("error" in via_relay["result"][-1], "duplicate accepted")

    # Reads and waits are answered by the relay itself.
    r = transact(relay, {"op": "wait", "table": "Host", "timeout": 0,
                         "where": [["name", "==", "h1"]], "columns": ["name"],
                         "until": "==", "rows": [{"name": "h1"}]})
    check(r["result"] == [{}], "wait: %r" % r)

    # A "wait" that blocks until a write through the relay commits.
    waiter = rpc.Client(relay_remote)
    wid = waiter.request("transact", [DB, {
        "op": "wait", "table": "Host", "timeout": 10000,
        "where": [["name", "==", "h2"]], "columns": ["name"],
        "until": "==", "rows": [{"name": "h2"}]}])
    ok(transact(relay, {"op": "insert", "table": "Host",
                        "row": {"name": "h2"}}), "insert h2")
    r = waiter.wait_reply(wid)
    check(r["result"] == [{}], "wait after insert: %r" % r)

    ok(transact(relay, {"op": "delete", "table": "Host",
                        "where": [["name", "==", "h2"]]}), "delete h2")
    wait_same(up, relay, "delete to reach the relay")
    print("basic: ok")


class Proxy:
    """Forwards unix connections from 'path' to 'target'; cut() drops all
    current ones."""

    def __init__(self, path, target):
        self.target = target
        self.lock = threading.Lock()
        self.conns = []
        self.n_accepted = 0
        if os.path.exists(path):
            os.unlink(path)
        self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ls.bind(path)
        self.ls.listen(8)
        threading.Thread(target=self.accept_loop, daemon=True).start()

    def accept_loop(self):
        while True:
            a, _ = self.ls.accept()
            b = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                b.connect(self.target)
            except OSError:
                a.close()
                continue
            with self.lock:
                self.conns.append((a, b))
                self.n_accepted += 1
            threading.Thread(target=self.pump, args=(a, b),
                             daemon=True).start()
            threading.Thread(target=self.pump, args=(b, a),
                             daemon=True).start()

    def pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            conns, self.conns = self.conns, []
        for a, b in conns:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()


def txnids(up_remote, relay1_remote, relay2_remote):
    """Relays pass the upstream's transaction ids through: update3 carries
    the same id on the upstream and on every relay, so that a client that
    moves to another relay resumes with monitor_cond_since where it was."""
    wait_relay_ready(relay1_remote)
    wait_relay_ready(relay2_remote)
    up = rpc.Client(up_remote)
    watchers = [rpc.Client(r) for r in (up_remote, relay1_remote,
                                         relay2_remote)]
    starts = [monitor_since(w, "w")[1] for w in watchers]
    check(len(set(starts)) == 1, "first ids differ: %r" % starts)
    ok(transact(up, {"op": "insert", "table": "Host",
                     "row": {"name": "t1"}}), "insert t1")
    ids = [w.wait_notify("update3", timeout=10)["params"][1]
           for w in watchers]
    check(len(set(ids)) == 1, "update3 ids differ: %r" % ids)
    check(ids[0] != starts[0], "the id did not change: %r" % ids)

    # A client of relay 1 leaves, more happens, it comes back on relay 2.
    watchers[1].close()
    ok(transact(up, {"op": "insert", "table": "Host",
                     "row": {"name": "t2"}}), "insert t2")
    wait_same(up, rpc.Client(relay2_remote), "t2 to reach relay 2")
    back = rpc.Client(relay2_remote)
    found, last, changes = monitor_since(back, "w", ids[0])
    names = sorted(r["initial"]["name"] if "initial" in r
                   else r["insert"]["name"]
                   for r in changes.get("Host", {}).values())
    check(found, "relay 2 does not know relay 1's id %s" % ids[0])
    check(names == ["t2"], "resumed with %r, not just t2" % names)
    print("txnids: ok")


def catchup(up_remote, relay_remote, proxy_path):
    proxy = Proxy(proxy_path, up_remote[5:])
    relay = wait_relay_ready(relay_remote)
    up = rpc.Client(up_remote)
    watcher = rpc.Client(relay_remote)
    ok(transact(up, {"op": "insert", "table": "Host",
                     "row": {"name": "keep"}},
                {"op": "insert", "table": "Host", "row": {"name": "gone"}}),
       "initial rows")
    wait_same(up, relay, "initial rows")
    found, last, initial = monitor_since(watcher, "w")
    check(len(initial.get("Host", {})) == 2, "initial: %r" % initial)

    # Cut the relay off, change things upstream, let it reconnect.
    proxy.cut()
    wait_until(lambda: server_row(relay)["connected"] is False,
               "relay to notice the cut")
    ok(transact(up, {"op": "delete", "table": "Host",
                     "where": [["name", "==", "gone"]]},
                {"op": "insert", "table": "Host", "row": {"name": "new"}},
                {"op": "mutate", "table": "Host",
                 "where": [["name", "==", "keep"]],
                 "mutations": [["address", "insert", "1.2.3.4"]]}),
       "changes while cut off")
    wait_until(lambda: server_row(relay)["connected"] is True,
               "relay to reconnect")
    wait_same(up, relay, "relay to catch up")

    # The relay's client sees only the difference, not a full resend.
    changes = {}
    deadline = time.time() + 10
    while len(changes) < 3 and time.time() < deadline:
        note = watcher.wait_notify("update3", timeout=10)
        for uuid, upd in note["params"][2].get("Host", {}).items():
            changes[uuid] = list(upd)[0]
    check(sorted(changes.values()) == ["delete", "insert", "modify"],
          "catch-up as seen by a relay client: %r" % changes)
    check(proxy.n_accepted >= 2, "relay did not reconnect through proxy")
    print("catchup: ok")


def load(up_remote, relay_remote, proxy_path, seconds=3, cuts=2):
    """Writes through the relay for at least SECONDS while the relay's
    upstream connection is cut CUTS times, each time 0.3 s after the relay
    (re)connected, and until the relay has reconnected after the last cut
    (however long its backoff): every acknowledged insert is upstream
    exactly once, and the relay ends equal to the upstream."""
    proxy = Proxy(proxy_path, up_remote[5:])
    wait_relay_ready(relay_remote)
    up = rpc.Client(up_remote)
    writers = [rpc.Client(relay_remote, timeout=30) for _ in range(3)]
    acked, canceled = set(), set()
    stop = threading.Event()

    def cutter():
        for k in range(cuts):
            while proxy.n_accepted < k + 1:
                if stop.wait(0.05):
                    return
            if stop.wait(0.3):
                return
            proxy.cut()
    t = threading.Thread(target=cutter, daemon=True)
    t.start()
    end = time.time() + seconds
    deadline = end + 120
    i = 0
    while (time.time() < end or t.is_alive()
           or proxy.n_accepted < cuts + 1):
        if time.time() > deadline:
            stop.set()
            fail("the relay did not reconnect %d times in %d s (%d "
                 "connections)" % (cuts, deadline - end + seconds,
                                   proxy.n_accepted))
        i += 1
        c = writers[i % len(writers)]
        name = "n%d" % i
        r = transact(c, {"op": "insert", "table": "Host",
                         "row": {"name": name}})
        if r.get("error") is None and "error" not in r["result"][0]:
            acked.add(name)
        else:
            canceled.add(name)
    stop.set()
    t.join()
    names = {}
    for row in dump(up)["Host"].values():
        names[row["name"]] = names.get(row["name"], 0) + 1
    lost = acked - set(names)
    check(not lost, "acknowledged but lost: %r" % sorted(lost))
    dups = [k for k, v in names.items() if v > 1]
    check(not dups, "duplicated: %r" % dups)
    extra = set(names) - acked - canceled
    check(not extra, "rows nobody wrote: %r" % extra)
    # Only a transaction in flight at a cut is canceled; the others wait
    # for the reconnection.
    check(len(canceled) <= cuts * len(writers),
          "too many canceled: %d of %d" % (len(canceled), i))
    relay = wait_relay_ready(relay_remote)
    wait_same(up, relay, "relay to converge after the load")
    print("load: ok (%d acknowledged, %d canceled, %d connections)"
          % (len(acked), len(canceled), proxy.n_accepted))


def member_row(remote):
    """REMOTE's _Server row for DB, or None if it cannot be read now."""
    try:
        c = rpc.Client(remote, timeout=10)
        try:
            return server_row(c)
        finally:
            c.close()
    except (OSError, rpc.Closed):
        return None


def all_joined(members):
    """True if every member of MEMBERS says it is connected to its cluster:
    a member still joining is not, and killing the leader before the join
    has committed would leave a cluster of two with one member gone."""
    return all((member_row(remote) or {}).get("connected") is True
               for remote, _ in members)


def find_leader(members):
    for remote, pidfile in members:
        if (member_row(remote) or {}).get("leader") is True:
            return remote, pidfile
    return None


def apply_host_updates(view, updates):
    """Applies monitor UPDATES (update2/3 form) of Host to VIEW, a dict
    from row UUID to name, as an IDL would; fails where an IDL would find
    itself inconsistent."""
    for uuid, change in updates.get("Host", {}).items():
        for kind, row in change.items():
            if kind in ("initial", "insert"):
                check(uuid not in view, "monitor: %s of existing row %s"
                      % (kind, uuid))
                view[uuid] = row.get("name", "")
            elif kind == "delete":
                check(uuid in view, "monitor: delete of unknown row " + uuid)
                del view[uuid]
            elif kind == "modify":
                check(uuid in view, "monitor: modify of unknown row " + uuid)
                if "name" in row:
                    view[uuid] = row["name"]


def cluster(relay_remote, *member_specs, seconds=4, after=20):
    """Writes through the relay to a 3-member cluster and kills the leader
    after a quarter of SECONDS; goes on writing for at least SECONDS and
    until AFTER inserts in a row have been acknowledged after the kill
    (however long the election takes): every acknowledged insert is in the
    cluster exactly once, and the relay ends equal to it, as does the view
    of a client that monitored the relay all along."""
    members = [tuple(spec.split("=", 1)) for spec in member_specs]
    relay = wait_relay_ready(relay_remote)
    leader = None
    wait_until(lambda: all_joined(members), "every member to join")
    wait_until(lambda: find_leader(members) is not None, "a leader")
    writers = [rpc.Client(relay_remote, timeout=30) for _ in range(3)]
    watcher = rpc.Client(relay_remote, timeout=30)
    view = {}
    apply_host_updates(view, monitor_since(watcher, "w")[2])
    acked, failed = set(), set()
    start = time.time()
    deadline = start + seconds + 120
    killed = False
    n_before = streak = 0
    i = 0
    while time.time() < start + seconds or streak < after:
        check(time.time() < deadline,
              "fewer than %d inserts in a row acknowledged in %d s after "
              "the leader was killed" % (after, deadline - start))
        if not killed and time.time() > start + seconds / 4:
            leader = find_leader(members)
            check(leader is not None, "no leader to kill")
            with open(leader[1]) as f:
                os.kill(int(f.read()), 9)
            killed = True
            n_before = len(acked)
        i += 1
        name = "c%d" % i
        r = transact(writers[i % len(writers)],
                     {"op": "insert", "table": "Host",
                      "row": {"name": name}})
        if r.get("error") is None and "error" not in r["result"][0]:
            acked.add(name)
            streak = streak + 1 if killed else 0
        else:
            failed.add(name)
            streak = 0
            if killed:
                time.sleep(0.05)    # Not a busy loop during the election.
    check(n_before > 0, "nothing acknowledged before the leader was killed")
    survivors = [m for m in members if m != leader]
    wait_until(lambda: find_leader(survivors) is not None, "a new leader")
    up = rpc.Client(find_leader(survivors)[0])
    names = {}
    for row in dump(up)["Host"].values():
        names[row["name"]] = names.get(row["name"], 0) + 1
    lost = acked - set(names)
    check(not lost, "acknowledged but lost: %r" % sorted(lost))
    check(not [k for k, v in names.items() if v > 1], "duplicated rows")
    check(not set(names) - acked - failed, "rows nobody wrote")
    relay = wait_relay_ready(relay_remote)
    wait_same(up, relay, "relay to converge after the failover")
    want = sorted(names)

    def watcher_converged():
        for note in watcher.no_notify(0.2):
            if note.get("method") == "update3":
                apply_host_updates(view, note["params"][2])
        return sorted(view.values()) == want
    wait_until(watcher_converged, "a monitor on the relay to converge")
    print("cluster: ok (%d acknowledged, %d failed)" % (len(acked),
                                                       len(failed)))


if __name__ == "__main__":
    cmd = sys.argv[1]
    {"basic": basic, "catchup": catchup, "load": load,
     "cluster": cluster, "txnids": txnids}[cmd](*sys.argv[2:])
