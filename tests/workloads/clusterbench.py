#!/usr/bin/env python3
"""tests/workloads/clusterbench.py: the clustered-database benchmark.

For one server binary and its ovsdb-tool, builds a cluster of three
members (create-cluster, then join-cluster twice; Raft on tcp:127.0.0.1
free ports, clients on unix sockets, workload.ovsschema) and measures:

  writes     ovsdb-workload's Insert and Update 1 (WORKERS connections,
             one-row transactions, --no-monitors, --scale SCALE), first
             with every writer on the leader, then on a follower (which
             forwards to the leader): commit latency p50/p99, throughput,
             and the leader's CPU seconds in the timed phase and peak RSS
             (VmHWM) at its end;
  election   kill -9 of the leader, then one writer per remaining member
             retrying one-row inserts: seconds from the kill until a
             member answers a write with success;
  catch-up   the killed member restarted, ROWS Item rows written through
             the leader (transactions of 1,000, a failed one retried),
             then a fourth member
             made by join-cluster and started: seconds from its start
             until its _Server.Database index equals the leader's; then
             (untimed) its Item rows must equal the leader's.

bench imports this module (the "cluster" part of "make bench"); run
directly, it is the correctness smoke of tests/workloads/cluster.sh:

    clusterbench.py --server BIN --tool BIN --driver OVSDB-WORKLOAD
                    [--rows N] [--scale S] [--workers N] [--preload LIB]

prints one JSON object and exits 1 if a check failed.  Standard library
only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bigdb                    # noqa: E402 (Rpc, unixctl, proc_stats)
from bigdb import BigdbError, Rpc, proc_stats, unixctl  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from rpc import free_port  # noqa: E402

DB_NAME = bigdb.DB_NAME
MB = 1024.0 * 1024.0
WRITE_RUNS = [("leader", "insert"), ("leader", "update1"),
              ("follower", "insert"), ("follower", "update1")]
LABELS = {"insert": "Insert", "update1": "Update 1"}


def _metrics():
    """bench's table rows: (record key, title, digits)."""
    out = []
    for where, w in WRITE_RUNS:
        k, t = "%s_%s_" % (where, w), "%s, writers on the %s: " % (
            LABELS[w], where)
        out += [(k + "p50_ms", t + "latency p50 (ms)", 2),
                (k + "p99_ms", t + "latency p99 (ms)", 2),
                (k + "tps", t + "transactions/s", 0),
                (k + "leader_cpu_s", t + "leader CPU (s)", 2),
                (k + "leader_peak_rss_mb", t + "leader peak RSS (MB)", 1)]
    return out + [
        ("elect_s", "Election: kill -9 of the leader to a write answered "
         "(s)", 2),
        ("load_s", "Catch-up rows written through the leader (s)", 2),
        ("load_retries", "Catch-up rows: transactions retried (lost "
         "leadership)", 0),
        ("catchup_s", "Catch-up: new member started to its index = the "
         "leader's (s)", 2),
        ("catchup_cpu_s", "Catch-up: new member's CPU (s)", 2),
        ("catchup_peak_rss_mb", "Catch-up: new member's peak RSS (MB)", 1)]


METRICS = _metrics()


class Member:
    """One cluster member: NAME.db, NAME.sock, NAME.ctl in 'tmp'."""

    def __init__(self, tmp, name, server, tool, preload):
        self.tmp, self.name = tmp, name
        self.server, self.tool = os.path.abspath(server), os.path.abspath(tool)
        self.preload = preload
        self.db = os.path.join(tmp, name + ".db")
        self.sock = os.path.join(tmp, name + ".sock")
        self.ctl = os.path.join(tmp, name + ".ctl")
        self.addr = "tcp:127.0.0.1:%d" % free_port()
        self.proc = None
        self.t_start = None

    def tool_run(self, args):
        r = subprocess.run([self.tool] + args, capture_output=True,
                           text=True, cwd=self.tmp)
        if r.returncode != 0:
            raise BigdbError("%s %s: %s" % (self.tool, args[0],
                                            r.stderr.strip()))

    def create(self):
        self.tool_run(["create-cluster", self.db, bigdb.SCHEMA, self.addr])

    def join(self, others):
        self.tool_run(["join-cluster", self.db, DB_NAME, self.addr]
                      + [m.addr for m in others])

    def start(self):
        env = dict(os.environ)
        if self.preload:
            env["LD_PRELOAD"] = self.preload
        out = open(os.path.join(self.tmp, self.name + ".out"), "a")
        self.t_start = time.time()
        self.proc = subprocess.Popen(
            [self.server, self.db, "--remote=punix:" + self.sock,
             "--unixctl=" + self.ctl,
             "--log-file=" + os.path.join(self.tmp, self.name + ".log")],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=self.tmp)
        out.close()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def check_alive(self):
        if not self.alive():
            raise BigdbError("%s exited with status %s" % (
                self.name, self.proc.returncode if self.proc else None))

    def kill(self):
        if self.alive():
            self.proc.kill()
            self.proc.wait()

    def stop(self):
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def status(self):
        """cluster/status as {field: value} ("" if it does not answer)."""
        try:
            text = unixctl(self.ctl, "cluster/status", [DB_NAME], timeout=10)
        except (OSError, BigdbError):
            return {}
        fields = {}
        for line in (text or "").splitlines():
            if ": " in line and not line.startswith(" "):
                k, v = line.split(": ", 1)
                fields[k] = v
        return fields

    def server_db(self):
        """This member's _Server.Database row for the database, or None."""
        try:
            rpc = Rpc(self.sock, timeout=10)
        except OSError:
            return None
        try:
            res = rpc.client.call("transact", ["_Server", {
                "op": "select", "table": "Database",
                "where": [["name", "==", DB_NAME]],
                "columns": ["index", "leader", "connected"]}])
        except (OSError, ValueError, EOFError):
            return None
        finally:
            rpc.close()
        try:
            rows = res["result"][0]["rows"]
        except (KeyError, TypeError, IndexError):
            return None
        return rows[0] if rows else None


def wait_until(what, cond, timeout, members=()):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for m in members:
            m.check_alive()
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    raise BigdbError("timed out after %d s waiting for %s" % (timeout, what))


def leader_of(members):
    for m in members:
        if m.alive() and m.status().get("Role") == "leader":
            return m
    return None


def all_settled(members):
    """True once one member leads, every one follows it and none has
    entries left to commit or apply."""
    lead = leader_of(members)
    if lead is None:
        return None
    for m in members:
        s = m.status()
        if (s.get("Status") != "cluster member"
                or s.get("Leader", "unknown") == "unknown"
                or s.get("Entries not yet committed") != "0"
                or s.get("Entries not yet applied") != "0"):
            return None
    return lead


def run_writers(driver, sock, workload, scale, workers, leader, timeout):
    """ovsdb-workload --sync on 'sock'; samples the leader's CPU at the
    timed phase's ends.  Returns the record's fields."""
    cmd = [driver, "--sync", "--no-monitors", "--scale=%g" % scale,
           "--workers=%d" % workers, "unix:" + sock, workload]
    d = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(timeout, d.kill)
    timer.start()
    samples, result = {}, {}
    try:
        for line in d.stdout:
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if "sync" in obj:
                samples[obj["sync"]] = proc_stats(leader.proc.pid) \
                    if leader.alive() else (0, 0, 0)
                d.stdin.write("\n")
                d.stdin.flush()
            else:
                result = obj
    except (BrokenPipeError, OSError):
        pass
    stderr = d.stderr.read()
    d.wait()
    timer.cancel()
    if d.returncode != 0 or not result.get("ok"):
        raise BigdbError("%s: driver exit %d: %s" % (
            workload, d.returncode, (result.get("error") or stderr)[:500]))
    if "timed" not in samples or "check" not in samples:
        raise BigdbError("%s: driver did not report its timed phase"
                         % workload)
    secs = result["seconds"]
    return {"s": secs, "txns": result["transactions"],
            "tps": result["transactions"] / secs if secs > 0 else None,
            "p50_ms": result["latency_ms"]["p50"],
            "p99_ms": result["latency_ms"]["p99"],
            "max_ms": result["latency_ms"]["max"],
            "leader_cpu_s": samples["check"][0] - samples["timed"][0],
            "leader_peak_rss_mb": samples["check"][1] / MB}


def elect_after_kill(leader, others, timeout):
    """Kills 'leader' with SIGKILL; returns seconds until one of 'others'
    answers a one-row insert with success."""
    done = threading.Event()
    times = []

    def writer(m, k):
        i = 0
        while not done.is_set():
            i += 1
            try:
                rpc = Rpc(m.sock, timeout=timeout)
                try:
                    rpc.transact([{"op": "insert", "table": "Item", "row": {
                        "run": "elect", "worker": k, "n": i}}])
                finally:
                    rpc.close()
            except (OSError, BigdbError, ValueError, EOFError):
                time.sleep(0.005)
                continue
            times.append(time.time())
            done.set()

    leader.kill()
    t0 = time.time()
    threads = [threading.Thread(target=writer, args=(m, k), daemon=True)
               for k, m in enumerate(others)]
    for t in threads:
        t.start()
    done.wait(timeout)
    done.set()
    if not times:
        raise BigdbError("no member answered a write %d s after the kill"
                         % timeout)
    return min(times) - t0


LOAD_BATCH = 1000


def load_rows(members, rows):
    """Writes 'rows' Item rows through the leader in transactions of
    LOAD_BATCH.  A transaction that fails (the leader lost its role under
    a big commit, say) is retried on the then leader unless its first
    row is there (it did commit).  Returns how many were retried."""
    retries = 0
    base = 0
    while base < rows:
        lead = wait_until("a leader", lambda: all_settled(members), 600,
                          members)
        rpc = Rpc(lead.sock, timeout=600)
        try:
            while base < rows:
                rpc.transact([{"op": "insert", "table": "Item",
                               "row": bigdb.item_row(i)}
                              for i in range(base,
                                             min(rows, base + LOAD_BATCH))])
                base += LOAD_BATCH
        except BigdbError:
            retries += 1
            if retries > 100:
                raise
            lead = wait_until("a leader", lambda: all_settled(members),
                              600, members)
            probe = Rpc(lead.sock, timeout=600)
            try:
                got = probe.transact([{"op": "select", "table": "Item",
                                       "where": [["run", "==", "bigdb"],
                                                 ["n", "==", base]]}])
            finally:
                probe.close()
            if got[0]["rows"]:
                base += LOAD_BATCH
        finally:
            rpc.close()
    return retries


def item_ns(m):
    rpc = Rpc(m.sock, timeout=600)
    try:
        # Two integer columns: a check of 500,000 rows must not take
        # longer than the catch-up it checks.
        res = rpc.transact([{"op": "select", "table": "Item",
                             "where": [["run", "==", "bigdb"]],
                             "columns": ["n", "value"]}])
    finally:
        rpc.close()
    return sorted((r["n"], r["value"]) for r in res[0]["rows"])


def run_subject(server, tool, preload, driver, rows, scale, workers,
                timeout=1800, keep=False):
    """The whole cluster benchmark for one subject.  Returns (record,
    temporary directory or None once removed)."""
    tmp = tempfile.mkdtemp(prefix="ovsdb-cluster.")
    # free_port() claims ports in $TEST_PORTDIR (the test suite's), else
    # in this run's directory.
    portdir = os.environ.get("TEST_PORTDIR")
    os.environ["TEST_PORTDIR"] = portdir or os.path.join(tmp, "ports")
    rec = {"ok": False, "rows": rows, "cluster_scale": scale,
           "workers": workers}
    members = [Member(tmp, "s%d" % i, server, tool, preload)
               for i in (1, 2, 3)]
    joiner = None
    try:
        members[0].create()
        members[0].start()
        wait_until("s1 to lead", lambda: leader_of(members[:1]), 60,
                   members[:1])
        for i in (1, 2):
            members[i].join(members[:i])
            members[i].start()
            wait_until("s%d to join" % (i + 1),
                       lambda: all_settled(members[:i + 1]), 120,
                       members[:i + 1])
        lead = all_settled(members)
        rec["mapped_allocator"] = bigdb.mapped_allocator(lead.proc.pid)

        for where, workload in WRITE_RUNS:
            lead = wait_until("a settled cluster", lambda: all_settled(
                members), 120, members)
            target = lead if where == "leader" else \
                next(m for m in members if m is not lead)
            res = run_writers(driver, target.sock, workload, scale, workers,
                              lead, timeout)
            for k, v in res.items():
                rec["%s_%s_%s" % (where, workload, k)] = v

        lead = wait_until("a settled cluster", lambda: all_settled(members),
                          120, members)
        others = [m for m in members if m is not lead]
        rec["elect_s"] = elect_after_kill(lead, others, 120)
        lead.start()
        lead = wait_until("the killed member to rejoin",
                          lambda: all_settled(members), 120, members)

        t0 = time.time()
        rec["load_retries"] = load_rows(members, rows)
        rec["load_s"] = time.time() - t0
        lead = wait_until("a settled cluster", lambda: all_settled(members),
                          600, members)
        joiner = Member(tmp, "s4", server, tool, preload)
        joiner.join(members)
        joiner.start()

        # The leader's index moves once more when s4 is added.
        def caught_up():
            got = joiner.server_db()
            if not got or not got.get("connected"):
                return False
            want = lead.server_db()
            return want is not None and got.get("index") == want.get("index")
        wait_until("s4 to catch up", caught_up, timeout, [joiner])
        rec["catchup_s"] = time.time() - joiner.t_start
        rec["catchup_cpu_s"], rec["catchup_peak_rss_mb"], _ = \
            proc_stats(joiner.proc.pid)
        rec["catchup_peak_rss_mb"] /= MB
        if item_ns(joiner) != item_ns(lead):
            raise BigdbError("s4's Item rows differ from the leader's")
        rec["ok"] = True
    except (BigdbError, OSError) as e:
        rec["error"] = str(e)
    finally:
        for m in members + ([joiner] if joiner else []):
            m.stop()
        if portdir is None:
            del os.environ["TEST_PORTDIR"]
    if rec["ok"] and not keep:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp = None
    return rec, tmp


def main():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--server", required=True)
    p.add_argument("--tool", required=True)
    p.add_argument("--driver", required=True, help="ovsdb-workload")
    p.add_argument("--preload", help="LD_PRELOAD for the server")
    p.add_argument("--rows", type=int, default=500000,
                   help="rows of the catch-up database (default 500,000)")
    p.add_argument("--scale", type=float, default=0.02,
                   help="ovsdb-workload --scale of the write runs "
                   "(default 0.02)")
    p.add_argument("--workers", type=int, default=10)
    p.add_argument("--timeout", type=int, default=1800)
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()
    rec, tmp = run_subject(args.server, args.tool, args.preload, args.driver,
                           args.rows, args.scale, args.workers,
                           args.timeout, args.keep)
    if tmp:
        rec["tmp"] = tmp
    print(json.dumps(rec, sort_keys=True))
    sys.exit(0 if rec["ok"] else 1)


if __name__ == "__main__":
    main()
