#!/usr/bin/env python3
"""tests/faults/faults.py: the fault-injection suite's driver (issue 33).

Usage:
    faults.py [options] CLUSTER...

Each CLUSTER is KIND:N, KIND one of "ours", "ref" (the reference
ovsdb-server and ovsdb-tool) or "mixed" (ours and the reference's
alternating, s1 ours), N the number of members.  Clusters run one after
the other, "--rounds" times over the list (so ours and the reference's
interleave); each one in its own directory under --dir:

 1. its members are created (create-cluster, then join-cluster) and
    started, member i listening for Raft on tcp:127.A.B.i:PORT and for
    clients on unix:DIR/si.sock, each with a group id of its own for the
    nftables table (tests/faults/nemesis.py), installed first;
 2. clients (--clients per member, each on its own connection to its
    member, reconnecting after an error) insert unique keys into Item
    (unique index on key: a second application fails) and Bag (no index: a
    second application is a duplicate), and read, write and
    compare-and-set a few registers (Reg rows); every operation's
    invocation and completion go to history.jsonl;
 3. the faults (--faults, in order, each held --hold seconds) are made and
    removed: "isolate" (the leader cut from every other member), "split"
    (a minority with the leader cut from the majority), "bridge" (two
    groups cut from each other, one member connected to both), "kill"
    (SIGKILL of the leader, restart), "pause" (SIGSTOP of the leader until
    the others elect a new one, then SIGCONT), "loss" (--loss % of
    packets dropped between every pair of members);
 4. after each fault is removed, the time until every member agrees on
    one leader in one term (cluster/status) is measured;
 5. the clients stop, every member's contents are dumped once all agree
    (dump.NAME.json; or after a bound, however they differ), and the
    checkers (tests/faults/checker.py) run on the history and the dumps.
Faults are always removed at the end (the table is deleted in a finally).

Options:
    --dir DIR          where the clusters' directories go (default: .)
    --faults LIST      comma-separated (default: all six, as above)
    --hold SECONDS     how long each fault lasts (default 2)
    --rounds N         times over the cluster list (default 1)
    --clients N        clients per member (default 2)
    --registers N      registers (default 3)
    --loss PERCENT     packets dropped by "loss" (default 30)
    --op-timeout SECS  how long a client waits for a reply before it counts
                       the outcome as unknown and reconnects (default 10;
                       a server that retries a transaction after a "cluster
                       error" must have the time to answer)
    --expect-exact K   which clusters must pass check 5: "ours" (default),
                       "all" or "none"; a violation is reported either way
    --summary FILE     also write the results as Markdown to FILE
    --seed N           random seed (default: time)
Exit status: 0 if every cluster passed, 1 if one failed, 77 if nothing
could run (not root, no nftables: the reason is printed).
"""
import argparse
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
import checker  # noqa: E402
import nemesis  # noqa: E402
import rpc  # noqa: E402

DB = "Faults"
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "faults.ovsschema")
ALL_FAULTS = ["isolate", "split", "bridge", "kill", "pause", "loss"]
WAIT = 60.0               # Bound of every wait for a condition.
# Errors after which the transaction certainly did not take effect.
DEFINITE = {"constraint violation", "timed out", "referential integrity "
            "violation", "domain error", "range error", "syntax error",
            "aborted", "not supported", "resources exhausted",
            "unknown database", "duplicate uuid-name"}

_t_start = time.monotonic()


def now():
    return time.monotonic() - _t_start


def log(msg):
    print("[%7.2f] %s" % (now(), msg), flush=True)


class Programs:
    def __init__(self, builddir):
        self.ours = (os.path.join(builddir, "ovsdb", "ovsdb-server"),
                     os.path.join(builddir, "ovsdb", "ovsdb-tool"))
        self.ref = ("/usr/sbin/ovsdb-server", "/usr/bin/ovsdb-tool")

    def has_ref(self):
        return all(os.access(p, os.X_OK) for p in self.ref)

    def of(self, kind):
        return self.ours if kind == "ours" else self.ref


class Member:
    def __init__(self, name, kind, address, port, gid, dir, progs):
        self.name, self.kind, self.address = name, kind, address
        self.remote = "tcp:%s:%d" % (address, port)
        self.gid, self.dir = gid, dir
        self.server, self.tool = progs.of(kind)
        self.db = os.path.join(dir, name + ".db")
        self.sock = os.path.join(dir, name + ".sock")
        self.ctl = os.path.join(dir, name + ".ctl")
        self.proc = None
        self.paused = False

    def create(self, first, others):
        if first:
            argv = [self.tool, "create-cluster", self.db, SCHEMA,
                    self.remote]
        else:
            argv = [self.tool, "join-cluster", self.db, DB, self.remote] + [
                m.remote for m in others]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if p.returncode:
            raise RuntimeError("%s: %s" % (" ".join(argv), p.stderr))

    def start(self):
        for path in (self.sock, self.ctl):
            if os.path.exists(path):
                os.unlink(path)
        argv = nemesis.group_command(self.gid, [
            self.server, self.db, "--remote=punix:" + self.sock,
            "--unixctl=" + self.ctl,
            "--log-file=" + os.path.join(self.dir, self.name + ".log")])
        err = open(os.path.join(self.dir, self.name + ".stderr"), "a")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=err, stderr=err)
        err.close()
        deadline = time.monotonic() + WAIT
        while not rpc.wait_for_socket(self.sock, 0.5):
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited: see %s.stderr"
                                   % (self.name, self.name))
            if time.monotonic() > deadline:
                raise RuntimeError("%s: no socket" % self.name)

    def signal(self, sig):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def kill(self):
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait(timeout=WAIT)
        self.proc = None
        self.paused = False

    def pause(self):
        rpc.stop_process(self.proc.pid)
        self.paused = True

    def resume(self):
        self.signal(signal.SIGCONT)
        self.paused = False

    def stop(self):
        """SIGTERM, then SIGKILL if it lingers."""
        if not self.proc:
            return
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def status(self):
        """cluster/status as a dict, or None if it does not answer."""
        if not self.proc or self.paused:
            return None
        try:
            text = rpc.unixctl(self.ctl, "cluster/status", DB, timeout=2)
        except (OSError, RuntimeError, ValueError, EOFError):
            return None
        st = {}
        for line in text.splitlines():
            m = re.match(r"^([A-Za-z ]+): (.*)$", line)
            if m:
                st.setdefault(m.group(1), m.group(2).strip())
        sid = st.get("Server ID", "").split(" ")[0]
        st["sid"] = sid
        return st

    def dump(self):
        c = rpc.Client("unix:" + self.sock, timeout=10)
        try:
            reply = c.transact(DB, [{"op": "select", "table": t, "where": []}
                                    for t in ("Item", "Bag", "Reg")])
        finally:
            c.close()
        if reply.get("error") is not None:
            raise RuntimeError("dump %s: %s" % (self.name, reply["error"]))
        # "_version" is not replicated: each member makes its own.
        return {t: [{k: v for k, v in row.items() if k != "_version"}
                    for row in r["rows"]]
                for t, r in zip(("Item", "Bag", "Reg"), reply["result"])}


def one_leader(members):
    """The leader's name if every member that runs says "cluster member",
    the same leader and the same term, and exactly one is leader."""
    sts = {}
    for m in members:
        st = m.status()
        if st is None or st.get("Status") != "cluster member":
            return None
        sts[m.name] = st
    leaders = [n for n, st in sts.items() if st.get("Role") == "leader"]
    if len(leaders) != 1:
        return None
    lst = sts[leaders[0]]
    for n, st in sts.items():
        if st.get("Term") != lst.get("Term"):
            return None
        if n != leaders[0] and st.get("Leader") != lst["sid"]:
            return None
    return leaders[0]


def wait_for(what, cond, bound=WAIT, every=0.02):
    deadline = time.monotonic() + bound
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise RuntimeError("%s (waited %d s)" % (what, bound))
        time.sleep(every)


class History:
    def __init__(self, path):
        self.f = open(path, "w")
        self.lock = threading.Lock()
        self.next_id = 0

    def invoke(self, entry):
        with self.lock:
            self.next_id += 1
            entry.update(type="invoke", id=self.next_id, t=now())
            self.f.write(json.dumps(entry) + "\n")
            return self.next_id

    def complete(self, id, result, error=None, read=None):
        e = {"type": result, "id": id, "t": now()}
        if error is not None:
            e["error"] = error
        if read is not None:
            e["read"] = read
        with self.lock:
            self.f.write(json.dumps(e) + "\n")

    def close(self):
        self.f.close()


def outcome(reply):
    """("ok" | "fail" | "unknown", error string or None) of a reply."""
    if reply.get("error") is not None:
        err = reply["error"]
        tag = err.get("error") if isinstance(err, dict) else str(err)
        return ("fail" if tag in DEFINITE else "unknown"), tag
    for r in reply.get("result") or []:
        if isinstance(r, dict) and r.get("error") is not None:
            tag = r["error"]
            return ("fail" if tag in DEFINITE else "unknown"), tag
    return "ok", None


class Client(threading.Thread):
    def __init__(self, cid, member, history, n_regs, stop, timeout):
        super().__init__(daemon=True)
        self.cid, self.member, self.history = cid, member, history
        self.n_regs, self.stop = n_regs, stop
        self.timeout = timeout
        self.rand = random.Random(random.random())
        self.conn = None
        self.seq = 0
        self.known = {}          # Register -> value last seen.
        self.counts = {"ok": 0, "fail": 0, "unknown": 0}

    def unique(self):
        self.seq += 1
        return self.cid * 1000000 + self.seq

    def next_op(self):
        x = self.rand.random()
        if x < 0.4:
            table = "Item" if self.rand.random() < 0.5 else "Bag"
            key = "c%d-%d" % (self.cid, self.unique())
            return ({"f": "insert", "table": table, "key": key},
                    [{"op": "insert", "table": table,
                      "row": {"key": key, "client": self.cid}}])
        reg = self.rand.randrange(self.n_regs)
        where = [["id", "==", reg]]
        if x < 0.6:
            return ({"f": "read", "reg": reg},
                    [{"op": "select", "table": "Reg", "where": where,
                      "columns": ["value"]},
                     # A read-only transaction would be answered from the
                     # member's own copy, however stale; this one goes
                     # through the log like a write.
                     {"op": "mutate", "table": "Reg", "where": where,
                      "mutations": [["touches", "+=", 1]]}])
        v = self.unique()
        if x < 0.8:
            return ({"f": "write", "reg": reg, "value": v},
                    [{"op": "update", "table": "Reg", "where": where,
                      "row": {"value": v}}])
        old = self.known.get(reg, 0)
        return ({"f": "cas", "reg": reg, "old": old, "new": v},
                [{"op": "wait", "table": "Reg", "where": where,
                  "columns": ["value"], "until": "==",
                  "rows": [{"value": old}], "timeout": 0},
                 {"op": "update", "table": "Reg", "where": where,
                  "row": {"value": v}}])

    def call(self, ops):
        c = self.conn
        deadline = time.monotonic() + self.timeout
        rid = c.request("transact", [DB] + ops)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            c.sock.settimeout(left)
            msg = c.recv()
            if msg.get("id") == rid and "method" not in msg:
                return msg

    def disconnect(self):
        if self.conn:
            self.conn.close()
        self.conn = None

    def run(self):
        while not self.stop.is_set():
            if self.conn is None:
                try:
                    self.conn = rpc.Client("unix:" + self.member.sock,
                                           timeout=self.timeout)
                except OSError:
                    self.stop.wait(0.1)
                    continue
            desc, ops = self.next_op()
            desc.update(client=self.cid, member=self.member.name)
            id = self.history.invoke(desc)
            read = None
            try:
                reply = self.call(ops)
                result, error = outcome(reply)
                if result == "ok" and desc["f"] == "read":
                    rows = reply["result"][0]["rows"]
                    if len(rows) != 1:
                        result, error = "fail", "no row"
                    else:
                        read = rows[0]["value"]
            except socket.timeout:
                result, error = "unknown", "client timeout"
                self.disconnect()
            except (OSError, EOFError, ValueError) as e:
                result, error = "unknown", "disconnected: %s" % e
                self.disconnect()
            self.history.complete(id, result, error, read)
            self.counts[result] += 1
            if desc["f"] == "read" and read is not None:
                self.known[desc["reg"]] = read
            elif desc["f"] in ("write", "cas") and result == "ok":
                self.known[desc["reg"]] = desc.get("new", desc.get("value"))
        self.disconnect()


class Run:
    """One cluster, its clients, its faults and its checks."""

    def __init__(self, spec, index, args, progs):
        self.kind, n = spec.split(":")
        n = int(n)
        self.spec, self.args = spec, args
        self.dir = os.path.abspath(os.path.join(
            args.dir, "%02d-%s-%d" % (index, self.kind, n)))
        os.makedirs(self.dir, exist_ok=True)
        subnet = nemesis.pick_subnet()
        port = rpc.free_port()
        gids = nemesis.pick_groups(n)
        self.members = []
        for i in range(n):
            if self.kind == "mixed":
                kind = "ours" if i % 2 == 0 else "ref"
            else:
                kind = self.kind
            self.members.append(Member("s%d" % (i + 1), kind,
                                       subnet + str(i + 1), port, gids[i],
                                       self.dir, progs))
        self.net = nemesis.NetFaults({m.name: (m.address, m.gid)
                                      for m in self.members})
        self.heal_times = []     # (fault, seconds)
        self.notes = []
        self.result = None

    def by_name(self, name):
        return next(m for m in self.members if m.name == name)

    def leader(self):
        return self.by_name(wait_for("one leader among %s" % self.names(),
                                     lambda: one_leader(self.members)))

    def names(self, members=None):
        return " ".join(m.name for m in (members or self.members))

    def start(self):
        log("%s: members %s (%s) on %s" % (
            self.spec, self.names(),
            " ".join(m.kind for m in self.members),
            " ".join(m.remote for m in self.members)))
        self.net.install()
        first = self.members[0]
        first.create(True, [])
        first.start()
        wait_for("%s leader" % first.name,
                 lambda: (first.status() or {}).get("Role") == "leader")
        for i, m in enumerate(self.members[1:], 1):
            m.create(False, self.members[:i])
            m.start()
            wait_for("%s joined" % m.name,
                     lambda: (m.status() or {}).get("Status")
                     == "cluster member")
        self.leader()
        c = rpc.Client("unix:" + first.sock, timeout=30)
        try:
            reply = c.transact(DB, [
                {"op": "insert", "table": "Reg",
                 "row": {"id": r, "value": 0, "touches": 0}}
                for r in range(self.args.registers)])
        finally:
            c.close()
        if outcome(reply)[0] != "ok":
            raise RuntimeError("initial registers: %s" % reply)

    def timed_heal(self, fault, others=None):
        """Waits until every member agrees on one leader; records how long
        that took since now (just after the fault was removed)."""
        t0 = time.monotonic()
        leader = self.leader()
        secs = time.monotonic() - t0
        self.heal_times.append((fault, secs))
        log("  %s healed: one leader (%s) after %.3f s"
            % (fault, leader.name, secs))

    def new_leader_among(self, members, old):
        """Waits until MEMBERS (not OLD) agree on a leader among them."""
        def cond():
            name = one_leader(members)
            return name if name and name != old.name else None
        return wait_for("a new leader among %s" % self.names(members), cond)

    def fault(self, name):
        hold = self.args.hold
        n = len(self.members)
        leader = self.leader()
        rest = [m for m in self.members if m is not leader]
        log(" fault %s (leader %s)" % (name, leader.name))
        if name == "isolate":
            self.net.cut([(leader.name, m.name) for m in rest])
            self.new_leader_among(rest, leader)
            time.sleep(hold)
            self.net.heal()
        elif name == "split":
            minority = [leader] + random.sample(rest, (n - 1) // 2 - 1)
            majority = [m for m in self.members if m not in minority]
            log("  minority %s, majority %s" % (self.names(minority),
                                                self.names(majority)))
            self.net.cut([(a.name, b.name) for a in minority
                          for b in majority])
            self.new_leader_among(majority, leader)
            time.sleep(hold)
            self.net.heal()
        elif name == "bridge":
            order = self.members[:]
            random.shuffle(order)
            half = (n - 1) // 2
            left, bridge, right = (order[:half], order[half],
                                   order[half + 1:])
            log("  %s | %s | %s" % (self.names(left), bridge.name,
                                    self.names(right)))
            self.net.cut([(a.name, b.name) for a in left for b in right])
            time.sleep(hold)
            self.net.heal()
        elif name == "kill":
            leader.kill()
            self.new_leader_among(rest, leader)
            time.sleep(hold)
            leader.start()
        elif name == "pause":
            leader.pause()
            self.new_leader_among(rest, leader)
            leader.resume()
        elif name == "loss":
            self.net.lose([(a.name, b.name) for i, a in
                           enumerate(self.members)
                           for b in self.members[i + 1:]], self.args.loss)
            time.sleep(hold)
            self.net.heal()
        else:
            raise ValueError("unknown fault %s" % name)
        self.timed_heal(name)

    def converge(self):
        """Every member's dump, once all are the same (or after WAIT)."""
        deadline = time.monotonic() + WAIT
        while True:
            dumps = {}
            for m in self.members:
                try:
                    dumps[m.name] = m.dump()
                except (OSError, EOFError, RuntimeError, ValueError) as e:
                    dumps[m.name] = {"error": str(e)}
            texts = {json.dumps({t: sorted(d.get(t, []),
                                           key=lambda r: r["_uuid"][1])
                                 for t in ("Item", "Bag", "Reg")},
                                sort_keys=True)
                     for d in dumps.values()}
            if len(texts) == 1 or time.monotonic() > deadline:
                return dumps
            time.sleep(0.1)

    def run(self):
        """Runs the cluster through the faults and checks it; returns True
        if it passed.  Whatever happens, its members are stopped and its
        nftables table is deleted."""
        try:
            return self._run()
        finally:
            for m in self.members:
                m.stop()
            self.net.remove()

    def _run(self):
        args = self.args
        stop = threading.Event()
        clients = []
        history = None
        try:
            self.start()
            history = History(os.path.join(self.dir, "history.jsonl"))
            cid = 0
            for m in self.members:
                for _ in range(args.clients):
                    cid += 1
                    clients.append(Client(cid, m, history, args.registers,
                                          stop, args.op_timeout))
            for c in clients:
                c.start()
            wait_for("the clients' first acknowledgements",
                     lambda: sum(c.counts["ok"] for c in clients) >= 20)
            for f in args.faults:
                self.fault(f)
            # A little more work with every member healthy.
            base = sum(c.counts["ok"] for c in clients)
            wait_for("progress after the faults",
                     lambda: sum(c.counts["ok"] for c in clients)
                     >= base + 20)
        except Exception as e:
            self.notes.append("error: %s" % e)
            log("%s: ERROR %s" % (self.spec, e))
        finally:
            self.net.heal()
            for m in self.members:
                if m.paused:
                    m.resume()
            stop.set()
            for c in clients:
                c.join(args.op_timeout + 5)
            if history:
                history.close()
        try:
            for m in self.members:
                if m.proc is None:
                    m.start()
            self.leader()
            dumps = self.converge()
        except Exception as e:
            self.notes.append("error at the end: %s" % e)
            dumps = {}
        finally:
            for m in self.members:
                m.stop()
            self.net.remove()
        for name, d in dumps.items():
            with open(os.path.join(self.dir, "dump.%s.json" % name),
                      "w") as f:
                json.dump(d, f, indent=1, sort_keys=True)
        exact = (args.expect_exact == "all" or
                 (args.expect_exact == "ours" and self.kind == "ours"))
        hist = (checker.read_history(os.path.join(self.dir,
                                                  "history.jsonl"))
                if history else [])
        dumps = {n: d for n, d in dumps.items() if "error" not in d}
        if dumps and hist:
            self.result = checker.check(hist, dumps, exact, args.registers)
        else:
            self.result = {"verdict": "fail", "counts": {}}
        self.exact = exact
        with open(os.path.join(self.dir, "check.txt"), "w") as f:
            for n in self.notes:
                print(n, file=f)
            if dumps and hist:
                checker.report(self.result, exact, f)
        if self.notes:
            self.result["verdict"] = "fail"
        log("%s: %s" % (self.spec, self.result["verdict"].upper()))
        with open(os.path.join(self.dir, "check.txt")) as f:
            sys.stdout.write("".join("    " + line for line in f))
        return self.result["verdict"] == "pass"


def median(xs):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def summary(runs, args):
    lines = ["| cluster | ok / failed / unknown ops | lost | duplicate "
             "| divergent | linearizable | exact outcome | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        res = r.result or {}
        c = res.get("counts", {})

        def n(key):
            v = res.get(key)
            return "-" if v is None else str(len(v))
        lin = ("yes" if res.get("linearizable") == []
               and not res.get("undecided") else
               "undecided" if res.get("undecided") else
               "NO (%s)" % n("linearizable") if res.get("linearizable")
               else "-")
        ex = res.get("exact")
        exact = ("-" if ex is None else "ok" if not ex else
                 "%d violations%s" % (len(ex), "" if r.exact
                                      else " (not expected)"))
        lines.append("| %s (%s) | %s / %s / %s | %s | %s | %s | %s | %s "
                     "| %s |" % (
                         r.spec, " ".join(m.kind for m in r.members),
                         c.get("ok", "-"), c.get("fail", "-"),
                         c.get("unknown", "-"), n("loss"),
                         n("duplicates"), n("divergence"), lin, exact,
                         res.get("verdict", "fail").upper()
                         + ("; " + "; ".join(r.notes) if r.notes else "")))
    lines += ["", "Time to one leader after the fault is removed "
              "(seconds: median, max, count):", "",
              "| fault | " + " | ".join(k for k in kinds(runs)) + " |",
              "|---|" + "---|" * len(kinds(runs))]
    faults = []
    for r in runs:
        for f, _ in r.heal_times:
            if f not in faults:
                faults.append(f)
    for f in faults:
        cells = []
        for k in kinds(runs):
            xs = [s for r in runs if r.spec == k
                  for g, s in r.heal_times if g == f]
            cells.append("%.3f, %.3f, %d" % (median(xs), max(xs), len(xs))
                         if xs else "-")
        lines.append("| %s | %s |" % (f, " | ".join(cells)))
    return "\n".join(lines) + "\n"


def kinds(runs):
    out = []
    for r in runs:
        if r.spec not in out:
            out.append(r.spec)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("clusters", nargs="+")
    p.add_argument("--dir", default=".")
    p.add_argument("--faults", default=",".join(ALL_FAULTS))
    p.add_argument("--hold", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--clients", type=int, default=2)
    p.add_argument("--registers", type=int, default=3)
    p.add_argument("--loss", type=int, default=30)
    p.add_argument("--op-timeout", type=float, default=10.0)
    p.add_argument("--expect-exact", choices=["ours", "all", "none"],
                   default="ours")
    p.add_argument("--summary")
    p.add_argument("--seed", type=int)
    args = p.parse_args()
    args.faults = [f for f in args.faults.split(",") if f]
    for f in args.faults:
        if f not in ALL_FAULTS:
            p.error("unknown fault %s" % f)
    # SIGTERM unwinds like an exception, so that every finally removes
    # its faults and stops its members.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    seed = args.seed if args.seed is not None else int(time.time())
    random.seed(seed)
    builddir = os.environ.get("OVSDB_BUILDDIR") or os.getcwd()
    progs = Programs(builddir)
    ok, why = nemesis.available()
    if not ok:
        print("skipped: nftables faults cannot run here: %s" % why)
        return 77
    nemesis.sweep()
    specs = []
    for spec in args.clusters:
        kind = spec.split(":")[0]
        if kind not in ("ours", "ref", "mixed"):
            p.error("unknown cluster kind in %s" % spec)
        if kind != "ours" and not progs.has_ref():
            print("reference ovsdb-server not installed: skipping %s" % spec)
            continue
        specs.append(spec)
    if not specs:
        print("skipped: no cluster to run")
        return 77
    log("seed %d, faults %s, hold %.1f s" % (seed, ",".join(args.faults),
                                             args.hold))
    runs = []
    passed = True
    index = 0
    for _ in range(args.rounds):
        for spec in specs:
            index += 1
            r = Run(spec, index, args, progs)
            runs.append(r)
            passed = r.run() and passed
    text = summary(runs, args)
    print(text)
    if args.summary:
        with open(args.summary, "w") as f:
            f.write("Seed %d; faults %s, each held %.1f s; %d clients per "
                    "member; check 5 expected of: %s.\n\n"
                    % (seed, ", ".join(args.faults), args.hold,
                       args.clients, args.expect_exact) + text)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
