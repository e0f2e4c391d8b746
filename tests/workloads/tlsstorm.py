#!/usr/bin/env python3
"""tests/workloads/tlsstorm.py: a TLS connection storm (issue 32).

N clients connect at once over ssl: (certificates checked both ways, at
most --inflight handshakes under way), each sends a monitor_cond for its
own rows of a --rows-row table (Binding rows whose chassis is its name) and
stays connected; meanwhile an established client on the unix socket, in a
process of its own, sends "echo" every 10 ms and records how long each
reply took.  One run per server and round, servers interleaved:

    tlsstorm.py [--clients N] [--rows R] [--inflight K] [--rounds M]
                [--key rsa|ec] [--check] [--timeout SECONDS]
                [--server-arg ARG]... SERVER...

SERVER is an ovsdb-server program, with options of its own after it in the
same argument ("build/ovsdb/ovsdb-server --n-io-threads=0"); the ovsdb-tool
beside it (else the one on PATH) creates its database.  Each run prints one
JSON line: wall (first connect to last reply), cpu_per_client_ms and
main_cpu_per_client_ms (the server's CPU, all threads and its main thread,
over the storm, per client), latency p50/p99 (each client's connect to its
monitor reply), probe_max_ms (the longest echo wait of the established
client), longest_pass_ms (the server's longest pass of its main loop, from
its "loop/show"; null where the server has no such command), harness_cpu_s
(this process's own CPU over the storm), peak_rss_mb (VmHWM).  --check fails
(exit 1) unless every client got exactly its rows.  The PKI (RSA-2048 by
default, as ovs-pki makes; --key ec for P-256) is made with openssl in a
temporary directory.
"""
import argparse
import asyncio
import json
import os
import select
import shlex
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import rpc as jsonrpc  # noqa: E402  (tests/rpc.py)
SCHEMA = os.path.join(HERE, "workload.ovsschema")
DB = "Workload"
STORM_TIMEOUT = 600     # seconds: a storm at most, by default


def make_pki(d, key):
    """A CA, a server and a client certificate in 'd' (openssl)."""
    if key == "rsa":
        newkey = ["-newkey", "rsa:2048"]
    else:
        newkey = ["-newkey", "ec", "-pkeyopt",
                  "ec_paramgen_curve:prime256v1"]

    def run(*args):
        subprocess.run(["openssl"] + list(args), cwd=d, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run("req", "-x509", *newkey, "-nodes", "-keyout", "ca-key.pem",
        "-out", "ca-cert.pem", "-days", "2", "-subj", "/CN=storm CA")
    for name in ("server", "client"):
        run("req", *newkey, "-nodes", "-keyout", name + "-key.pem",
            "-out", name + "-req.pem", "-subj", "/CN=" + name)
        run("x509", "-req", "-in", name + "-req.pem", "-CA", "ca-cert.pem",
            "-CAkey", "ca-key.pem", "-CAcreateserial", "-out",
            name + "-cert.pem", "-days", "2")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cpu_ms(pid, tid=None):
    """User+system CPU of a process (or one of its threads), in ms."""
    path = "/proc/%d/stat" % pid if tid is None else \
        "/proc/%d/task/%d/stat" % (pid, tid)
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) * 1000.0 / ticks


def n_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def wait_for_fds(pid, n, timeout=30.0):
    """Waits until the server has at most 'n' fds open (its clients'
    connections closed), for at most 'timeout' seconds."""
    deadline = time.monotonic() + timeout
    while n_fds(pid) > n and time.monotonic() < deadline:
        time.sleep(0.02)


def peak_rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def probe_main(path):
    """The established client: echo every 10 ms until stdin says stop;
    prints the longest wait, the number of echoes, and the error that
    ended it early, if any."""
    # No timeout of its own: a stalled server shows as a long wait.
    rpc = jsonrpc.Client("unix:" + path, timeout=None)
    waits = []
    error = None
    tick = time.monotonic()
    while True:
        wait = None if error else max(0.0, tick - time.monotonic())
        r, _, _ = select.select([sys.stdin], [], [], wait)
        if r:
            break
        start = time.monotonic()
        try:
            rpc.result("echo", ["probe"])
        except (OSError, EOFError) as e:
            error = repr(e)
            continue
        waits.append(time.monotonic() - start)
        tick = max(tick + 0.010, time.monotonic())
    print(json.dumps({"max_ms": max(waits) * 1000 if waits else 0,
                      "n": len(waits), "error": error}))


class Storm:
    """What the clients of one storm share (all on the asyncio thread)."""

    def __init__(self, n, port, ctx, inflight, timeout):
        self.n, self.port, self.ctx, self.timeout = n, port, ctx, timeout
        self.sem = asyncio.Semaphore(inflight)
        self.results = {}        # client: (start, latency, rows, error)
        self.failed = {}         # client: why it could not connect
        self.all_in = asyncio.Event()    # every client has its reply
        self.done = asyncio.Event()      # clients may hang up
        self.t0 = time.monotonic()


async def storm_client(i, st):
    """Client 'i': connect, monitor its rows, record, then stay connected
    (answering echo) until the storm is done."""
    port, ctx, sem, t0, results, done = (st.port, st.ctx, st.sem, st.t0,
                                         st.results, st.done)
    async with sem:
        start = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, ssl=ctx, server_hostname=None,
                ssl_handshake_timeout=st.timeout)
        except (OSError, asyncio.TimeoutError) as e:
            # Counted as a client without its rows.
            st.failed[i] = repr(e)
            if len(st.results) + len(st.failed) == st.n:
                st.all_in.set()
            return
    req = {"method": "monitor_cond", "id": 1,
           "params": [DB, "m%d" % i,
                      {"Binding": [{"where": [["chassis", "==", "ch%d" % i]],
                                    "columns": ["logical_port"]}]}]}
    writer.write(json.dumps(req).encode())
    dec = json.JSONDecoder()
    buf = ""
    got = None
    while not done.is_set():
        try:
            data = await asyncio.wait_for(reader.read(65536), 0.5)
        except asyncio.TimeoutError:
            continue
        except OSError as e:
            data, why = b"", repr(e)
        else:
            why = "the server closed the connection"
        if not data:
            if got is None:
                # Ends the storm now rather than at its timeout.
                st.failed[i] = why + " before the reply"
                if len(results) + len(st.failed) == st.n:
                    st.all_in.set()
            break
        buf += data.decode()
        while True:
            buf = buf.lstrip()
            try:
                msg, end = dec.raw_decode(buf)
            except ValueError:
                break
            buf = buf[end:]
            if msg.get("method") == "echo":
                writer.write(json.dumps({"result": msg["params"],
                                         "error": None,
                                         "id": msg["id"]}).encode())
            elif msg.get("id") == 1 and got is None:
                got = msg
                rows = (msg.get("result") or {}).get("Binding", {})
                results[i] = (start - t0, time.monotonic() - start,
                              sorted(r["initial"]["logical_port"]
                                     for r in rows.values()),
                              msg.get("error"))
                if len(results) + len(st.failed) == st.n:
                    st.all_in.set()
    writer.close()


async def storm(n, port, ctx, inflight, timeout, before_close):
    """Runs the storm; calls 'before_close()' once every client has its
    reply (or failed), before they hang up."""
    st = Storm(n, port, ctx, inflight, timeout)
    t0, done = st.t0, st.done
    tasks = [asyncio.ensure_future(storm_client(i, st)) for i in range(n)]
    # Until every client has its reply or failed, or the timeout.
    try:
        await asyncio.wait_for(st.all_in.wait(), timeout)
    except asyncio.TimeoutError:
        for i in range(n):
            if i not in st.results and i not in st.failed:
                st.failed[i] = "no reply in %d s" % timeout
    wall = (max(r[0] + r[1] for r in st.results.values())
            if st.results else time.monotonic() - t0)
    before_close()
    done.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return wall, st.results, st.failed


def longest_pass_ms(ctl, reset=False):
    """The longest pass of the server's main loop since the last reset,
    from its "loop/show" control command, or None if it has none."""
    try:
        rpc = jsonrpc.Client("unix:" + ctl, timeout=30)
        try:
            text = rpc.result("loop/show", ["reset"] if reset else [])
        finally:
            rpc.close()
    except Exception:       # (the reference has no such command)
        return None
    for line in text.splitlines():
        if line.startswith("longest pass:"):
            return int(line.split()[2])
    return None


def one_run(spec, d, args, rows_of):
    server, *server_args = shlex.split(spec)
    tool = os.path.join(os.path.dirname(os.path.abspath(server)),
                        "ovsdb-tool")
    if not os.path.exists(tool):    # (/usr/sbin, /usr/bin)
        tool = shutil.which("ovsdb-tool") or tool
    run_dir = tempfile.mkdtemp(dir=d)
    db = os.path.join(run_dir, "db")
    subprocess.run([tool, "create", db, SCHEMA], check=True)
    sock = os.path.join(run_dir, "db.sock")
    port = free_port()
    argv = [server, "--remote=punix:" + sock,
            "--remote=pssl:%d:127.0.0.1" % port,
            "--private-key=" + os.path.join(d, "server-key.pem"),
            "--certificate=" + os.path.join(d, "server-cert.pem"),
            "--ca-cert=" + os.path.join(d, "ca-cert.pem"),
            "--unixctl=" + os.path.join(run_dir, "ctl"),
            "--log-file=" + os.path.join(run_dir, "log"),
            "--no-chdir"] + args.server_arg + server_args + [db]
    # (Its stderr is kept: a sanitizer's report goes there.)
    with open(os.path.join(run_dir, "stderr"), "w") as err:
        proc = subprocess.Popen(argv, stderr=err)
    try:
        for _ in range(200):
            if os.path.exists(sock):
                try:
                    rpc = jsonrpc.Client("unix:" + sock,
                                         timeout=STORM_TIMEOUT)
                    break
                except OSError:
                    pass
            if proc.poll() is not None:
                raise RuntimeError("%s exited" % server)
            time.sleep(0.05)
        else:
            raise RuntimeError("%s did not listen" % server)
        ops = [DB] + [{"op": "insert", "table": "Binding",
                       "row": {"run": "storm", "chassis": "ch%d" % c,
                               "logical_port": lp}}
                      for c, lps in rows_of.items() for lp in lps]
        rpc.result("transact", ops)
        probe = subprocess.Popen([sys.executable, __file__, "--probe", sock],
                                 stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        time.sleep(0.2)     # (the probe's first echoes, before the storm)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.load_verify_locations(os.path.join(d, "ca-cert.pem"))
        ctx.load_cert_chain(os.path.join(d, "client-cert.pem"),
                            os.path.join(d, "client-key.pem"))
        ctl = os.path.join(run_dir, "ctl")
        longest_pass_ms(ctl, reset=True)
        fds0 = n_fds(proc.pid)
        cpu0, main0 = cpu_ms(proc.pid), cpu_ms(proc.pid, proc.pid)
        own0 = time.process_time()
        at_close = []
        wall, results, st_failed = asyncio.run(storm(
            args.clients, port, ctx, args.inflight, args.timeout,
            lambda: at_close.extend([cpu_ms(proc.pid),
                                     cpu_ms(proc.pid, proc.pid)])))
        cpu1, main1 = at_close
        own_cpu = time.process_time() - own0
        longest_ms = longest_pass_ms(ctl)
        # Then the clients' departure: they have all closed; the server
        # closes its side as it sees them go.
        wait_for_fds(proc.pid, fds0)
        main2 = cpu_ms(proc.pid, proc.pid)
        out, _ = probe.communicate("stop\n", timeout=60)
        probe_out = json.loads(out)
        lat = sorted(r[1] for r in results.values())
        bad = [i for i in range(args.clients)
               if i not in results or results[i][3]
               or results[i][2] != sorted(rows_of.get(i, []))]
        n = args.clients
        rec = {"server": spec, "clients": n, "rows": args.rows,
               "wall_s": round(wall, 3),
               "cpu_per_client_ms": round((cpu1 - cpu0) / n, 3),
               "main_cpu_per_client_ms": round((main1 - main0) / n, 3),
               # The same, and then the server's closing of every
               # client's session after the storm.
               "main_cpu_with_close_ms": round((main2 - main0) / n, 3),
               "latency_p50_ms": round(1000 * lat[len(lat) // 2], 1)
               if lat else None,
               "latency_p99_ms": round(1000 * lat[min(len(lat) - 1,
                                                     len(lat) * 99 // 100)],
                                       1) if lat else None,
               "probe_max_ms": round(probe_out["max_ms"], 1),
               # The server's longest pass of its main loop over the storm
               # (our "loop/show"; None for a server without it): a probe
               # wait much longer than this was the scheduler's, not the
               # loop's.
               "longest_pass_ms": longest_ms,
               # This harness's own CPU over the storm (one process: its
               # clients' handshakes, signatures and JSON), which bounds
               # how fast clients can get through at all.
               "harness_cpu_s": round(own_cpu, 3),
               "probe_error": probe_out["error"],
               "peak_rss_mb": round(peak_rss_mb(proc.pid), 1),
               "clients_wrong": len(bad),
               "clients_failed": len(st_failed)}
        if bad and args.check:
            for i in bad[:10]:
                print("client %d: %s" % (i, st_failed.get(i, "wrong rows")),
                      file=sys.stderr)
            if proc.poll() is not None:
                print("the server exited with status %d" % proc.returncode,
                      file=sys.stderr)
            for name in ("log", "stderr"):
                with open(os.path.join(run_dir, name)) as f:
                    tail = f.readlines()[-40:]
                print("last lines of the server's %s:\n%s"
                      % (name, "".join(tail)), file=sys.stderr, end="")
        return rec, bad
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--probe":
        probe_main(sys.argv[2])
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--rows", type=int, default=2000)
    p.add_argument("--inflight", type=int, default=200)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--key", choices=["rsa", "ec"], default="rsa")
    p.add_argument("--check", action="store_true")
    p.add_argument("--timeout", type=float, default=STORM_TIMEOUT,
                   help="seconds a storm may take (default %(default)s)")
    p.add_argument("--server-arg", action="append", default=[])
    p.add_argument("servers", nargs="+")
    args = p.parse_args()
    rows_of = {}
    for r in range(args.rows):
        rows_of.setdefault(r % args.clients, []).append("lp%d" % r)
    failed = False
    with tempfile.TemporaryDirectory() as d:
        make_pki(d, args.key)
        for _ in range(args.rounds):
            for server in args.servers:
                rec, bad = one_run(server, d, args, rows_of)
                print(json.dumps(rec), flush=True)
                if bad and args.check:
                    print("clients without exactly their rows: %s"
                          % bad[:10], file=sys.stderr)
                    failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
