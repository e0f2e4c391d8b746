#!/usr/bin/env python3
"""tests/workloads/bigdb.py: the large-database benchmark.

Measures, for one server and its ovsdb-tool, on a database of ROWS Item
rows (workload.ovsschema; 500,000 at scale 1):

  open      start the server on the file; seconds until it answers a
            select of the last row, and its peak RSS (VmHWM) and CPU then;
  offline   "ovsdb-tool compact DB TARGET": seconds, peak RSS and CPU
            (wait4 rusage);
  online    CLIENTS connections doing one-row updates, synchronous round
            trips, while "ovsdb-server/compact" runs: round-trip latency
            p50/p99/max before and during the compaction, and how long the
            compaction took.

make_db() writes the file once (a server fed transactions of 10,000
rows); every subject then works on its own copy.  bench imports this
module (the "bigdb" part of "make bench"); run directly, it is the
correctness smoke of tests/workloads/bigdb.sh:

    bigdb.py --rows N --server BIN --tool BIN [--preload LIB] [--db FILE]

prints one JSON object and exits 1 if a check failed.  Standard library
only; the unixctl protocol (JSON-RPC on the control socket) is spoken
directly, so ovs-appctl is not needed.
"""

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from rpc import Client, Closed  # noqa: E402

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "workload.ovsschema")
DB_NAME = "Workload"
ITEM_COLUMNS = 5                # run, worker, n, value, name: all set.
BATCH = 10000
CLK_TCK = os.sysconf("SC_CLK_TCK")
MB = 1024.0 * 1024.0


class BigdbError(Exception):
    pass


class Rpc:
    """A blocking JSON-RPC connection on a unix socket (a tests/rpc.py
    Client) whose calls return the "result" and raise BigdbError."""

    def __init__(self, path, timeout=600.0):
        self.client = Client("unix:" + path, timeout=timeout)

    def close(self):
        self.client.close()

    def call(self, method, params):
        """Sends a request, returns its "result"; raises on "error"."""
        try:
            msg = self.client.call(method, params)
        except Closed:
            raise BigdbError("connection closed by peer")
        if msg.get("error") is not None:
            raise BigdbError("%s: %s" % (method, msg["error"]))
        return msg.get("result")

    def transact(self, ops):
        result = self.call("transact", [DB_NAME] + ops)
        for i, r in enumerate(result):
            if r is not None and "error" in r:
                raise BigdbError("transact op %d: %s" % (i, r))
        if len(result) > len(ops):
            raise BigdbError("transact: %s" % result[len(ops)])
        return result


def item_row(i):
    return {"run": "bigdb", "worker": i % 10, "n": i, "value": i,
            "name": "item-%d" % i}


def proc_stats(pid):
    """CPU seconds, peak and current RSS in bytes of 'pid', from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
    hwm = rss = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) * 1024
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
    return cpu, hwm, rss


# A symbol that only the allocator's own code defines, for an executable
# that links the allocator's archive (configure's static allocator).
ALLOCATOR_SYMBOLS = {"jemalloc": "mallctl", "tcmalloc": "tc_malloc"}
_linked_allocator = {}


def mapped_allocator(pid):
    """Which of jemalloc/tcmalloc 'pid' runs (else glibc): mapped as a
    shared library (ours built shared, or LD_PRELOADed), or linked into
    its executable."""
    with open("/proc/%d/maps" % pid) as f:
        maps = f.read()
    for a in ALLOCATOR_SYMBOLS:
        if "lib" + a in maps:
            return a
    exe = os.readlink("/proc/%d/exe" % pid)
    if exe not in _linked_allocator:
        nm = subprocess.run(["nm", "--defined-only", exe],
                            stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True).stdout
        defined = {line.split()[-1] for line in nm.splitlines() if line}
        if defined:
            _linked_allocator[exe] = next(
                (a for a, sym in ALLOCATOR_SYMBOLS.items() if sym in defined),
                "glibc")
        else:
            _linked_allocator[exe] = _version_allocator(exe)
    return _linked_allocator[exe]


def _version_allocator(exe):
    """For a stripped 'exe': the allocator its "--version" names
    ("allocator: jemalloc-5.3.0", which only our server prints), else
    glibc."""
    try:
        out = subprocess.run([exe, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    return next((a for a in ALLOCATOR_SYMBOLS if "allocator: " + a in out),
                "glibc")


def count_records(path):
    """Number of "OVSDB JSON" records in the file at 'path'."""
    n = 0
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"OVSDB JSON "):
                n += 1
    return n


class Server:
    """A server process on a copy of a database, in directory 'tmp'."""

    def __init__(self, binary, db, tmp, preload=None):
        self.db = db
        self.sock = os.path.join(tmp, "db.sock")
        self.ctl = os.path.join(tmp, "ovsdb-server.ctl")
        env = dict(os.environ)
        if preload:
            env["LD_PRELOAD"] = preload
        self.out = open(os.path.join(tmp, "server.out"), "w")
        self.t0 = time.time()
        self.proc = subprocess.Popen(
            [binary, db, "--remote=punix:" + self.sock,
             "--unixctl=" + self.ctl,
             "--log-file=" + os.path.join(tmp, "server.log")],
            stdout=self.out, stderr=subprocess.STDOUT, env=env, cwd=tmp)

    def wait_ready(self, probe_ops, timeout):
        """Connects as soon as the socket accepts and runs 'probe_ops';
        returns (seconds since start, result)."""
        deadline = self.t0 + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise BigdbError("server exited with status %d"
                                 % self.proc.returncode)
            try:
                rpc = Rpc(self.sock, timeout=timeout)
            except OSError:
                time.sleep(0.005)
                continue
            try:
                result = rpc.transact(probe_ops)
            finally:
                rpc.close()
            return time.time() - self.t0, result
        raise BigdbError("server did not answer within %d s" % timeout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()


def unixctl(path, command, args=(), timeout=600.0):
    """Runs a unixctl command on control socket 'path'; returns its
    output, raises BigdbError on error."""
    rpc = Rpc(path, timeout=timeout)
    try:
        return rpc.call(command, list(args))
    finally:
        rpc.close()


def last_row_probe(rows):
    return [{"op": "select", "table": "Item",
             "where": [["n", "==", rows - 1]],
             "columns": ["n", "value", "name"]}]


def check_last_row(result, rows):
    got = result[0]["rows"]
    want = item_row(rows - 1)
    if len(got) != 1 or any(got[0][k] != want[k]
                            for k in ("n", "value", "name")):
        raise BigdbError("row n=%d: got %s" % (rows - 1, got))


def check_all_rows(rpc, rows):
    """Checks that the Item table holds exactly n = 0..rows-1."""
    r = rpc.transact([{"op": "select", "table": "Item", "where": [],
                       "columns": ["n"]}])
    ns = sorted(row["n"] for row in r[0]["rows"])
    if ns != list(range(rows)):
        raise BigdbError("Item holds %d rows, not n = 0..%d"
                         % (len(ns), rows - 1))


def make_db(path, rows, server, tool, tmp):
    """Writes a ROWS-row database at 'path' with 'server' and 'tool', in
    transactions of BATCH rows.  Returns seconds taken."""
    t0 = time.time()
    subprocess.run([tool, "create", path, SCHEMA], check=True,
                   capture_output=True)
    srv = Server(server, path, tmp)
    try:
        srv.wait_ready([], 60)
        rpc = Rpc(srv.sock)
        try:
            for start in range(0, rows, BATCH):
                rpc.transact([{"op": "insert", "table": "Item",
                               "row": item_row(i)}
                              for i in range(start, min(rows, start + BATCH))])
        finally:
            rpc.close()
    finally:
        srv.stop()
    return time.time() - t0


def measure_open(binary, db, tmp, preload, rows, timeout=600, full=False):
    """Starts 'binary' on 'db' and times it until it answers."""
    srv = Server(binary, db, tmp, preload)
    try:
        seconds, result = srv.wait_ready(last_row_probe(rows), timeout)
        cpu, hwm, rss = proc_stats(srv.proc.pid)
        allocator = mapped_allocator(srv.proc.pid)
        check_last_row(result, rows)
        if full:
            rpc = Rpc(srv.sock)
            try:
                check_all_rows(rpc, rows)
            finally:
                rpc.close()
    finally:
        srv.stop()
    return {"open_s": seconds, "open_cpu_s": cpu,
            "mapped_allocator": allocator,
            "open_peak_rss_mb": hwm / MB, "open_rss_mb": rss / MB}


def measure_offline(tool, db, target, preload):
    """Times "TOOL compact DB TARGET" (wait4 rusage)."""
    env = dict(os.environ)
    if preload:
        env["LD_PRELOAD"] = preload
    t0 = time.time()
    proc = subprocess.Popen([tool, "compact", db, target], env=env,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    seconds = time.time() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode().strip()
    proc.stderr.close()
    if proc.returncode != 0:
        raise BigdbError("%s compact: exit %d: %s" % (tool, proc.returncode,
                                                      err[:300]))
    n = count_records(target)
    if n != 2:
        raise BigdbError("compacted file has %d records, not 2" % n)
    return {"compact_s": seconds, "compact_cpu_s": ru.ru_utime + ru.ru_stime,
            "compact_peak_rss_mb": ru.ru_maxrss / 1024.0,
            "compacted_size_mb": os.path.getsize(target) / MB}


class Updater(threading.Thread):
    """One client doing one-row updates in synchronous round trips until
    stopped; records (send time, seconds) of each."""

    def __init__(self, sock, uuids, idx):
        super().__init__(daemon=True)
        self.rpc = Rpc(sock)
        self.uuids = uuids
        self.idx = idx
        self.samples = []
        self.stop = False
        self.error = None

    def run(self):
        k = 0
        try:
            while not self.stop:
                uuid = self.uuids[(self.idx + k * 7) % len(self.uuids)]
                k += 1
                op = {"op": "update", "table": "Item",
                      "where": [["_uuid", "==", ["uuid", uuid]]],
                      "row": {"value": -k}}
                t0 = time.time()
                r = self.rpc.transact([op])
                t1 = time.time()
                if r[0].get("count") != 1:
                    raise BigdbError("update counted %s" % r[0])
                self.samples.append((t0, t1 - t0))
        except Exception as e:          # Reported by measure_online().
            self.error = "updater %d: %s" % (self.idx, e)
        finally:
            self.rpc.close()


def percentiles(values):
    """p50, p99, max of 'values' in milliseconds (None if empty: a short
    compaction on a loaded machine may overlap no update)."""
    if not values:
        return None, None, None
    v = sorted(values)
    p = lambda q: v[min(len(v) - 1, int(q * len(v)))] * 1000.0
    return p(0.5), p(0.99), v[-1] * 1000.0


def measure_online(binary, db, tmp, preload, rows, clients, baseline_s,
                   timeout=600):
    """Compacts 'db' online under 'clients' updaters; see the top."""
    srv = Server(binary, db, tmp, preload)
    updaters = []
    try:
        srv.wait_ready(last_row_probe(rows), timeout)
        rpc = Rpc(srv.sock)
        try:
            r = rpc.transact([{"op": "select", "table": "Item",
                               "where": [["n", "<", min(rows, 1000)]],
                               "columns": ["_uuid"]}])
        finally:
            rpc.close()
        uuids = [row["_uuid"][1] for row in r[0]["rows"]]
        if len(uuids) != min(rows, 1000):
            raise BigdbError("found %d rows to update" % len(uuids))
        records_before = count_records(db)
        updaters = [Updater(srv.sock, uuids, i) for i in range(clients)]
        for u in updaters:
            u.start()
        time.sleep(baseline_s)
        cpu0 = proc_stats(srv.proc.pid)[0]
        ino0 = os.stat(db).st_ino
        t0 = time.time()
        unixctl(srv.ctl, "ovsdb-server/compact", timeout=timeout)
        t_reply = time.time()
        # The compaction is over when the new file is in place (a server
        # may reply before that).
        while os.stat(db).st_ino == ino0 and time.time() < t0 + timeout:
            time.sleep(0.002)
        t1 = max(t_reply, time.time())
        if os.stat(db).st_ino == ino0:
            raise BigdbError("database file was not replaced")
        cpu1, hwm, _ = proc_stats(srv.proc.pid)
        time.sleep(min(1.0, baseline_s))
        for u in updaters:
            u.stop = True
        for u in updaters:
            u.join(timeout=60)
        for u in updaters:
            if u.error:
                raise BigdbError(u.error)
        samples = [s for u in updaters for s in u.samples]
        base = [d for t, d in samples if t + d < t0]
        during = [d for t, d in samples if t < t1 and t + d > t0]
        if not base:
            raise BigdbError("no updates before the compaction")
        rec = {"online_compact_s": t1 - t0,
               "online_compact_reply_s": t_reply - t0,
               "online_server_cpu_s": cpu1 - cpu0,
               "online_peak_rss_mb": hwm / MB,
               "online_updates_base": len(base),
               "online_updates_during": len(during),
               "online_records_before": records_before}
        for name, vals in (("base", base), ("during", during)):
            p50, p99, mx = percentiles(vals)
            rec["lat_%s_p50_ms" % name] = p50
            rec["lat_%s_p99_ms" % name] = p99
            rec["lat_%s_max_ms" % name] = mx
        # The compacted file, plus whatever was committed after it.
        rpc = Rpc(srv.sock)
        try:
            check_last_row(rpc.transact(last_row_probe(rows)), rows)
        finally:
            rpc.close()
    finally:
        for u in updaters:
            u.stop = True
        srv.stop()
    return rec


def run_subject(server, tool, preload, src_db, rows, clients, baseline_s,
                full_check=False, keep=False):
    """All three measurements for one server/tool on copies of 'src_db'.
    Returns (record, temporary directory or None if removed)."""
    tmp = tempfile.mkdtemp(prefix="ovsdb-bigdb.")
    rec = {"rows": rows, "atoms": rows * ITEM_COLUMNS, "clients": clients,
           "db_size_mb": os.path.getsize(src_db) / MB, "ok": False}
    try:
        for part in ("open", "offline", "online"):
            d = os.path.join(tmp, part)
            os.mkdir(d)
            db = os.path.join(d, "workload.db")
            shutil.copyfile(src_db, db)
            if part == "open":
                rec.update(measure_open(server, db, d, preload, rows,
                                        full=full_check))
                rec["open_bytes_per_atom"] = (
                    rec["open_peak_rss_mb"] * MB / rec["atoms"])
            elif part == "offline":
                target = os.path.join(d, "compacted.db")
                rec.update(measure_offline(tool, db, target, preload))
                if full_check:
                    # Our server must read the compacted file whole.
                    rec.update({"compacted_" + k: v for k, v in measure_open(
                        server, target, d, preload, rows,
                        full=True).items()})
            else:
                rec.update(measure_online(server, db, d, preload, rows,
                                          clients, baseline_s))
            os.remove(db)
        rec["ok"] = True
    except (BigdbError, OSError, subprocess.CalledProcessError) as e:
        rec["error"] = "%s: %s" % (part, e)
    if rec["ok"] and not keep:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp = None
    return rec, tmp


def main():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, default=500000)
    p.add_argument("--server", required=True)
    p.add_argument("--tool", required=True)
    p.add_argument("--preload", help="LD_PRELOAD for server and tool")
    p.add_argument("--db", help="use this database instead of making one")
    p.add_argument("--make-server", help="server that writes the database "
                   "(default: --server)")
    p.add_argument("--make-tool", help="ovsdb-tool that creates it "
                   "(default: --tool)")
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--baseline", type=float, default=2.0,
                   help="seconds of updates before the compaction")
    p.add_argument("--full-check", action="store_true",
                   help="also check every row after open and compact")
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()

    tmp = tempfile.mkdtemp(prefix="ovsdb-bigdb-src.")
    try:
        db = args.db
        if not db:
            db = os.path.join(tmp, "big.db")
            make_db(db, args.rows, args.make_server or args.server,
                    args.make_tool or args.tool, tmp)
        rec, kept = run_subject(args.server, args.tool, args.preload, db,
                                args.rows, args.clients, args.baseline,
                                full_check=args.full_check, keep=args.keep)
        if kept:
            rec["kept"] = kept
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(rec))
    sys.exit(0 if rec["ok"] else 1)


if __name__ == "__main__":
    main()
