"""tests/workloads/allocbench.py: the allocator parts of "make bench".

- The raw micro-benchmark: runs build/<allocator>/tests/workloads/
  malloc-bench, one variant per process (so each has its own peak RSS).
- The fragmentation table of seed 000 (Redis with small values and with
  1 KB values), for our server: a fresh server per allocator is filled with
  Item rows, 1,000 per transaction, whose "name" is either short
  ("n123456") or 1,024 bytes; then "memory/allocator-stats" gives the
  allocator's allocated bytes and the process RSS, and their ratio.
- The environment that gives each allocator its own defaults instead of
  the server's built-in tuning (the "default" subject).
"""

import json
import os
import re
import shutil
import subprocess
import tempfile

from bigdb import Rpc, proc_stats  # noqa: E402

MB = 1024.0 * 1024.0
VARIANTS = ["large", "small", "mixed"]
VARIANT_LABELS = {
    "large": "large: 4,096-5,119 B, malloc/memset/free (seed 002)",
    "small": "small: 16-256 B, malloc/memset/free",
    "mixed": "mixed lifetimes: 16-8,191 B, half kept in a pool",
}
FRAG_KINDS = {"small": "small values (name of 7-8 bytes)",
              "1kb": "1 KB values (name of 1,024 bytes)"}


def default_env(allocator):
    """Environment that undoes the server's built-in tuning of
    'allocator', i.e. runs it on the allocator's own defaults."""
    cores = os.cpu_count() or 1
    if allocator == "jemalloc":
        return {"MALLOC_CONF": "narenas:%d,background_thread:false"
                % (4 * cores)}
    if allocator == "tcmalloc":
        return {"TCMALLOC_RELEASE_RATE": "1"}
    return {"MALLOC_ARENA_MAX": str(8 * cores)}


def malloc_bench(program, variant, count, live):
    """Runs one variant; returns its JSON record, with "ok" false and
    "error" set on failure."""
    cmd = [program, "--count=%d" % count, "--live=%d" % live, variant]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"variant": variant, "ok": False, "error": str(e)}
    try:
        rec = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        rec = {"variant": variant, "ok": False}
    if r.returncode != 0:
        rec["ok"] = False
        rec["error"] = "exit %d: %s" % (r.returncode, r.stderr.strip()[:300])
    return rec


def parse_allocator_stats(text):
    """The summary of "memory/allocator-stats" as {field: bytes or ratio}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^  (allocated|active|resident|mapped|retained|"
                     r"process RSS|returned to the kernel)\s+([0-9.]+) MB",
                     line)
        if m:
            out[m.group(1).replace(" ", "_")] = float(m.group(2)) * MB
        m = re.match(r"^  fragmentation ratio\s+([0-9.]+)", line)
        if m:
            out["fragmentation"] = float(m.group(1))
    return out


def allocator_stats(ctl):
    r = subprocess.run(["ovs-appctl", "-t", ctl, "memory/allocator-stats"],
                       capture_output=True, text=True, timeout=60)
    return r.stdout if r.returncode == 0 else ""


def run_frag(server, tool, schema, kind, rows, env, wait_for_socket):
    """Fills a fresh server with 'rows' Item rows of 'kind' values; returns
    (record, temporary directory)."""
    tmp = tempfile.mkdtemp(prefix="ovsdb-frag.")
    db = os.path.join(tmp, "frag.db")
    sock = os.path.join(tmp, "db.sock")
    ctl = os.path.join(tmp, "ovsdb-server.ctl")
    rec = {"workload": "frag-" + kind, "rows": rows, "ok": False}
    subprocess.check_call([tool, "create", db, schema])
    full_env = dict(os.environ)
    full_env.update(env)
    srv = subprocess.Popen([server, db, "--remote=punix:" + sock,
                            "--unixctl=" + ctl],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=full_env, cwd=tmp)
    try:
        err = wait_for_socket(sock, srv)
        if err:
            rec["error"] = err
            return rec, tmp
        rpc = Rpc(sock)
        pad = "v" * 1024
        try:
            for start in range(0, rows, 1000):
                ops = [{"op": "insert", "table": "Item",
                        "row": {"run": "frag", "worker": 0, "n": i,
                                "value": i,
                                "name": ("%s%08d" % (pad[:1016], i))
                                if kind == "1kb" else "n%d" % i}}
                       for i in range(start, min(rows, start + 1000))]
                rpc.call("transact", ["Workload"] + ops)
        finally:
            rpc.close()
        stats = parse_allocator_stats(allocator_stats(ctl))
        _, hwm, rss = proc_stats(srv.pid)
        rec.update({"allocated_mb": stats.get("allocated", 0) / MB,
                    "rss_mb": rss / MB, "peak_rss_mb": hwm / MB,
                    "fragmentation": stats.get("fragmentation"),
                    "ok": "allocated" in stats})
        if not rec["ok"]:
            rec["error"] = "no memory/allocator-stats summary"
    finally:
        srv.terminate()
        try:
            srv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()
    return rec, tmp


def cleanup(tmp):
    shutil.rmtree(tmp, ignore_errors=True)
