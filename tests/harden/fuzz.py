#!/usr/bin/env python3
"""tests/harden/fuzz.py: hostile JSON-RPC traffic against an OVSDB server.

usage: fuzz.py SOCKET SCHEMA [--seed N] [--seconds S] [--messages N]
               [--batch N] [--pid PID] [--log FILE] [--requests-only 1]

Connects to the server on unix socket SOCKET, whose database follows the
schema file SCHEMA, and sends batches of generated messages: malformed JSON,
wrong message shapes, every RFC 7047 and OVS-extension method with wrong
parameter types and counts, random and mutated valid requests (conditions and
mutations on every column of every table, huge and negative numbers, deep
nesting, long strings, unknown tables and columns, duplicate ids, requests on
_Server), connections closed mid-message and clients that send and vanish.

After every batch a fresh connection must get its "echo" answered; if not (or
if process PID is gone), the batch is written to FILE (default fuzz-crash.txt)
one message per line (repr of the bytes) and the exit status is 1.  The
traffic depends only on the seed.  With --requests-only 1, every message
is well-formed JSON-RPC (so connections live longer and reach deeper).
Python standard library and tests/rpc.py.
"""
import json
import os
import random
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import rpc  # noqa: E402


def rand_str(rng, n=None):
    if n is None:
        n = rng.choice([0, 1, 3, 8, 40])
    alphabet = "abcXYZ_-09 \"\\/\u00e9\u4e2d\U0001f600\x00\x01\x7f"
    return "".join(rng.choice(alphabet) for _ in range(n))


def rand_uuid(rng):
    h = "%032x" % rng.getrandbits(128)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


INTS = [0, 1, -1, 2**31, -2**31 - 1, 2**63 - 1, -2**63, 2**63, 2**64,
        -2**64, 10**30, -10**30, 4096, 65535]
REALS = [0.0, -0.0, 1.5, -1e308, 1e308, 5e-324, 1e400, -1e400]


def rand_atom(rng, kind=None):
    kind = kind or rng.choice(["integer", "real", "boolean", "string",
                               "uuid", "junk"])
    if kind == "integer":
        return rng.choice(INTS + [rng.randint(-100, 100)])
    if kind == "real":
        return rng.choice(REALS + [rng.uniform(-1e6, 1e6)])
    if kind == "boolean":
        return rng.choice([True, False])
    if kind == "string":
        if rng.random() < 0.05:
            return "x" * rng.choice([1000, 70000, 300000])
        return rand_str(rng)
    if kind == "uuid":
        return rng.choice([["uuid", rand_uuid(rng)], ["named-uuid", "r1"],
                           ["named-uuid", rand_str(rng)], ["uuid", "bad"],
                           ["uuid"], ["uuid", 5], ["set"], ["map", 1]])
    return rand_json(rng, 2)


def rand_json(rng, depth=3):
    c = rng.randrange(8 if depth > 0 else 6)
    if c == 0:
        return None
    if c == 1:
        return rng.choice([True, False])
    if c == 2:
        return rng.choice(INTS)
    if c == 3:
        return rng.choice(REALS[:6])
    if c in (4, 5):
        return rand_str(rng)
    if c == 6:
        return [rand_json(rng, depth - 1) for _ in range(rng.randrange(4))]
    return {rand_str(rng, 3): rand_json(rng, depth - 1)
            for _ in range(rng.randrange(4))}


def deep(n, obj=False):
    s = ""
    for _ in range(n):
        s += '{"a":' if obj else "["
    s += "1"
    for _ in range(n):
        s += "}" if obj else "]"
    return s


class Schema:
    def __init__(self, path):
        with open(path) as f:
            self.doc = json.load(f)
        self.name = self.doc["name"]
        self.tables = self.doc["tables"]

    def table(self, rng):
        return rng.choice(list(self.tables))

    def column(self, rng, table):
        cols = list(self.tables[table]["columns"]) + ["_uuid", "_version"]
        return rng.choice(cols)

    def coltype(self, table, col):
        if col in ("_uuid", "_version"):
            return {"key": "uuid"}
        t = self.tables[table]["columns"][col]["type"]
        if isinstance(t, str):
            return {"key": t}
        t = dict(t)
        for part in ("key", "value"):
            if isinstance(t.get(part), str):
                t[part] = {"type": t[part]}
        return t


def base_kind(b):
    if isinstance(b, str):
        return b
    return b.get("type") if isinstance(b, dict) else "string"


def clean_atom(rng, base):
    """A valid atom of base type 'base' (a schema base type), or None."""
    if isinstance(base, str):
        base = {"type": base}
    if "enum" in base:
        enum = base["enum"]
        if isinstance(enum, list) and enum[0] == "set":
            return rng.choice(enum[1]) if enum[1] else None
        return enum
    kind = base["type"]
    if kind == "integer":
        lo = base.get("minInteger", -2**63)
        hi = base.get("maxInteger", 2**63 - 1)
        return rng.choice([lo, hi, max(lo, min(hi, rng.randint(-5, 5)))])
    if kind == "real":
        lo = base.get("minReal", -1e300)
        hi = base.get("maxReal", 1e300)
        return rng.choice([lo, hi, max(lo, min(hi, rng.uniform(-9, 9)))])
    if kind == "boolean":
        return rng.choice([True, False])
    if kind == "string":
        lo = base.get("minLength", 0)
        return "s" * lo + rand_str(rng, rng.choice([0, 2, 5]))
    if "refTable" in base:
        return None               # A random UUID would break refint.
    return ["uuid", rand_uuid(rng)]


def clean_value(rng, t):
    """A valid value for column type 't', or None if none comes easily."""
    lo = t.get("min", 1)
    hi = t.get("max", 1)
    hi = 3 if hi == "unlimited" else min(hi, 3)
    n = rng.randint(lo, max(lo, hi))
    pairs = []
    for _ in range(n):
        k = clean_atom(rng, t["key"])
        v = clean_atom(rng, t["value"]) if "value" in t else 0
        if k is None or v is None:
            break
        if all(k != pk for pk, _ in pairs):
            pairs.append((k, v))
    if len(pairs) < lo:
        return None
    if "value" in t:
        return ["map", [[k, v] for k, v in pairs]]
    if len(pairs) == 1 and rng.random() < 0.5:
        return pairs[0][0]
    return ["set", [k for k, _ in pairs]]


def typed_value(rng, t):
    """A value for type 't': often valid, sometimes subtly wrong."""
    if rng.random() < 0.6:
        v = clean_value(rng, t)
        if v is not None:
            return v
    key = base_kind(t["key"]) if isinstance(t.get("key"), (str, dict)) \
        else "string"
    value = t.get("value")
    if isinstance(t.get("key"), dict) and "enum" in t["key"] \
            and rng.random() < 0.5:
        enum = t["key"]["enum"]
        if isinstance(enum, list) and enum[0] == "set" and enum[1]:
            return rng.choice(enum[1])
        return enum
    kind = key if rng.random() < 0.85 else None
    if value is not None:
        vkind = base_kind(value) if rng.random() < 0.85 else None
        return ["map", [[rand_atom(rng, kind), rand_atom(rng, vkind)]
                        for _ in range(rng.choice([0, 1, 2, 5, 300]))]]
    if rng.random() < 0.4:
        return ["set", [rand_atom(rng, kind)
                        for _ in range(rng.choice([0, 1, 2, 5, 300]))]]
    return rand_atom(rng, kind)


FUNCTIONS = ["<", "<=", "==", "!=", ">=", ">", "includes", "excludes",
             "bogus", "", None, 1]
MUTATORS = ["+=", "-=", "*=", "/=", "%=", "insert", "delete", "bogus", None]


class Gen:
    def __init__(self, rng, schema):
        self.rng = rng
        self.schema = schema
        self.next_id = 0
        self.requests_only = False

    def id(self):
        r = self.rng.random()
        if r < 0.1:
            return rand_json(self.rng, 1)
        if r < 0.2:
            return 0                  # Duplicate ids.
        self.next_id += 1
        return self.next_id

    def db(self):
        r = self.rng.random()
        if r < 0.75:
            return self.schema.name
        if r < 0.9:
            return "_Server"
        return self.rng.choice(["", "Nope", None, 5, ["x"]])

    def table(self):
        if self.rng.random() < 0.05:
            return self.rng.choice(["Nope", "", None, 3, "_Server"])
        return self.schema.table(self.rng)

    def cond(self, table):
        rng = self.rng
        if rng.random() < 0.05:
            return rng.choice([True, False, rand_json(rng), ["x"]])
        col = self.schema.column(rng, table) if table in \
            self.schema.tables else rand_str(rng)
        if rng.random() < 0.05:
            col = rand_str(rng)
        t = self.schema.coltype(table, col) if table in self.schema.tables \
            and col in self.schema.tables[table]["columns"] else \
            {"key": "uuid"}
        c = [col, rng.choice(FUNCTIONS), typed_value(rng, t)]
        if rng.random() < 0.05:
            c = c[:rng.randrange(3)] + [1] * rng.randrange(2)
        return c

    def conds(self, table):
        return [self.cond(table) for _ in range(self.rng.choice([0, 1, 2, 3]))]

    def row(self, table):
        rng = self.rng
        row = {}
        if table not in self.schema.tables:
            return rand_json(rng)
        for _ in range(rng.choice([0, 1, 2, 4])):
            col = self.schema.column(rng, table)
            if rng.random() < 0.05:
                col = rand_str(rng)
            t = self.schema.coltype(table, col) if col in \
                self.schema.tables[table]["columns"] else {"key": "string"}
            row[col] = typed_value(rng, t)
        return row

    def op(self):
        rng = self.rng
        table = self.table()
        kind = rng.choice(["insert", "select", "update", "mutate", "delete",
                           "wait", "commit", "abort", "comment", "assert",
                           "bogus"])
        op = {"op": kind, "table": table}
        if kind == "insert":
            op["row"] = self.row(table)
            if rng.random() < 0.5:
                op["uuid-name"] = rng.choice(["r1", "r2", rand_str(rng), 1])
            if rng.random() < 0.1:
                op["uuid"] = rand_uuid(rng)
        elif kind in ("select", "update", "delete", "mutate", "wait"):
            op["where"] = self.conds(table)
            if kind == "select" and rng.random() < 0.5:
                op["columns"] = [self.schema.column(rng, table)
                                 if table in self.schema.tables else 1]
            if kind == "update":
                op["row"] = self.row(table)
            if kind == "mutate":
                muts = []
                for _ in range(rng.choice([0, 1, 2])):
                    col = self.schema.column(rng, table) if table in \
                        self.schema.tables else "x"
                    t = self.schema.coltype(table, col) if table in \
                        self.schema.tables and col in \
                        self.schema.tables[table]["columns"] else \
                        {"key": "integer"}
                    muts.append([col, rng.choice(MUTATORS),
                                 typed_value(rng, t)])
                op["mutations"] = muts
            if kind == "wait":
                op["columns"] = [self.schema.column(rng, table)
                                 if table in self.schema.tables else 1]
                op["until"] = rng.choice(["==", "!=", "x"])
                op["rows"] = [self.row(table)]
                op["timeout"] = rng.choice([0, -1, 2**63, 1.5, "x"])
        elif kind == "commit":
            op = {"op": "commit", "durable": rng.choice([True, 1])}
        elif kind == "abort":
            op = {"op": "abort"}
        elif kind == "comment":
            op = {"op": "comment", "comment": rand_str(rng)}
        elif kind == "assert":
            op = {"op": "assert", "lock": rng.choice(["l", 1, None])}
        if rng.random() < 0.1:
            del op[rng.choice(list(op))]
        if rng.random() < 0.05:
            op[rand_str(rng, 3)] = rand_json(rng)
        return op

    def monitor_requests(self, cond):
        rng = self.rng
        if rng.random() < 0.1:
            return rand_json(rng)
        reqs = {}
        for _ in range(rng.choice([0, 1, 2, 3])):
            table = self.table()
            if not isinstance(table, str):
                table = "x"
            r = {}
            if rng.random() < 0.7:
                r["columns"] = [self.schema.column(rng, table)
                                if table in self.schema.tables else "c"
                                for _ in range(rng.randrange(3))]
            if rng.random() < 0.5:
                r["select"] = {k: rng.choice([True, False, 1])
                               for k in rng.sample(
                                   ["initial", "insert", "delete", "modify",
                                    "bogus"], 2)}
            if cond and rng.random() < 0.7:
                r["where"] = self.conds(table) if rng.random() < 0.9 \
                    else rng.choice([True, False, 1])
            reqs[table] = r if rng.random() < 0.8 else [r, r]
        return reqs

    def params(self, method):
        rng = self.rng
        if rng.random() < 0.1:
            return rand_json(rng)
        db = self.db()
        if method == "transact":
            return [db] + [self.op() for _ in range(rng.choice([0, 1, 1, 1, 2, 5]))]
        if method in ("monitor", "monitor_cond", "monitor_cond_since"):
            mid = rng.choice(["m1", "m2", 1, None, [1], rand_str(rng)])
            p = [db, mid, self.monitor_requests(method != "monitor")]
            if method == "monitor_cond_since":
                p.append(rng.choice([rand_uuid(rng), "x", 1,
                                     "00000000-0000-0000-0000-000000000000"]))
            return p[:rng.choice([len(p)] * 5 + [0, 1, 2, 5])]
        if method == "monitor_cond_change":
            return [rng.choice(["m1", "m2", 1]),
                    rng.choice(["m1", "m3", "m2"]),
                    self.monitor_requests(True)][:rng.choice([3, 3, 3, 2])]
        if method == "monitor_cancel":
            return [rng.choice(["m1", "m2", 1, None])]
        if method in ("lock", "steal", "unlock"):
            return [rng.choice(["l", "l2", 1, "", None, "x" * 1000])]
        if method == "get_schema":
            return [db]
        if method == "echo":
            return [rand_json(rng)]
        if method == "cancel":
            return [rng.choice([1, 2, "x", None])]
        if method == "set_db_change_aware":
            return [rng.choice([True, False, 1, "x"])]
        if method == "convert":
            schema = dict(self.schema.doc)
            if rng.random() < 0.5:
                schema = rand_json(rng)
            return [db, schema]
        if method == "list_dbs" or method == "get_server_id":
            return []
        return rand_json(rng)

    METHODS = ["transact", "monitor", "monitor_cond", "monitor_cond_since",
               "monitor_cond_change", "monitor_cancel", "lock", "steal",
               "unlock", "get_schema", "list_dbs", "echo", "cancel",
               "set_db_change_aware", "get_server_id", "convert", "bogus"]

    def request(self):
        rng = self.rng
        method = rng.choice(self.METHODS)
        msg = {"method": method, "params": self.params(method),
               "id": self.id()}
        r = rng.random()
        if r < 0.05:
            msg["id"] = None          # Notification.
        elif r < 0.1:
            del msg[rng.choice(list(msg))]
        elif r < 0.13:
            msg = {"result": rand_json(rng), "id": self.id(),
                   "error": rng.choice([None, "x"])}
        elif r < 0.15:
            msg[rand_str(rng, 4)] = rand_json(rng)
        return json.dumps(msg, ensure_ascii=rng.random() < 0.5).encode(
            "utf-8", "surrogatepass")

    def raw(self):
        rng = self.rng
        if self.requests_only:
            return self.request()
        c = rng.randrange(12)
        if c == 0:
            return deep(rng.choice([10, 100, 1000, 5000]),
                        rng.random() < 0.5).encode()
        if c == 1:
            return b'{"method":"echo","params":[' + \
                deep(rng.choice([50, 200, 2000])).encode() + b'],"id":1}'
        if c == 2:
            return bytes(rng.getrandbits(8) for _ in range(rng.randrange(64)))
        if c == 3:
            return rng.choice([b"}", b"]", b"[", b"{", b'"', b"\\", b"nul",
                               b"[1,]", b'{"a"}', b'{"a":1,}', b"1e99999",
                               b"-", b"0x10", b'"\\ud800"', b'"\\u00"',
                               b"\xff\xfe", b"\xc3\x28", b'"\x00"',
                               b"[" * 100000, b"1" * 100000, b"null",
                               b'{"id":1}', b'{"method":1,"id":1}',
                               b'{"method":"echo","id":1}',
                               b'{"method":"echo","params":{},"id":1}',
                               b"123456789012345678901234567890"])
        if c == 4:
            # A valid request with bytes flipped or truncated.
            b = bytearray(self.request())
            for _ in range(rng.randrange(1, 4)):
                if b:
                    b[rng.randrange(len(b))] = rng.getrandbits(8)
            return bytes(b)
        if c == 5:
            b = self.request()
            return b[:rng.randrange(len(b) + 1)]
        if c == 6:
            b = self.request()
            i = rng.randrange(len(b) + 1)
            return b[:i] + rng.choice([b"{", b"[", b"]", b"}", b",", b":",
                                       b'"']) + b[i:]
        if c == 7:
            return b'{"method":"echo","params":["' + \
                b"y" * rng.choice([10**5, 10**6, 5 * 10**6]) + b'"],"id":1}'
        return self.request()


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(2)
        self.s.connect(path)
        self.s.setblocking(False)

    def send(self, data):
        try:
            self.s.setblocking(True)
            self.s.settimeout(2)
            self.s.sendall(data)
            self.s.setblocking(False)
            return True
        except OSError:
            return False

    def drain(self):
        try:
            while True:
                d = self.s.recv(1 << 16)
                if not d:
                    return False
        except BlockingIOError:
            return True
        except OSError:
            return False

    def close(self, rst=False):
        if rst:
            import struct
            try:
                self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                  struct.pack("ii", 1, 0))
            except OSError:
                pass
        self.s.close()


def echo_ok(path, timeout=10):
    """True if a fresh connection gets its echo answered."""
    try:
        c = rpc.Client("unix:" + path, timeout=timeout)
        try:
            reply = c.call("echo", ["alive"])
        finally:
            c.close()
        return reply.get("result") == ["alive"]
    except (OSError, rpc.Closed):
        return False


def alive(pid):
    if not pid:
        return True
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def run_batch(path, gen, n):
    """Sends 'n' messages over a few connections; returns what was sent."""
    rng = gen.rng
    sent = []
    conns = []
    for _ in range(n):
        if not conns or rng.random() < 0.1:
            try:
                conns.append(Conn(path))
            except OSError:
                sent.append(("connect-failed", b""))
                continue
        ci = rng.randrange(len(conns))
        c = conns[ci]
        msg = gen.raw()
        sent.append((ci, msg))
        if not c.send(msg):
            c.close()
            conns.pop(ci)
            continue
        r = rng.random()
        if r < 0.05:
            # Send and vanish, possibly with a half-sent message.
            c.send(gen.request()[:rng.randrange(1, 20)])
            c.close(rst=rng.random() < 0.5)
            conns.pop(ci)
        elif r < 0.5 and not c.drain():
            c.close()
            conns.pop(ci)
    for c in conns:
        c.drain()
        c.close(rst=rng.random() < 0.3)
    return sent


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    path, schema_path = args[0], args[1]
    opts = {"--seed": 1, "--seconds": 10.0, "--messages": 0, "--batch": 100,
            "--pid": 0, "--log": "fuzz-crash.txt",
            "--requests-only": 0}
    i = 2
    while i < len(args):
        if args[i] not in opts or i + 1 >= len(args):
            print("unknown option " + args[i])
            return 2
        cur = opts[args[i]]
        opts[args[i]] = type(cur)(args[i + 1]) if not isinstance(cur, str) \
            else args[i + 1]
        i += 2
    rng = random.Random(opts["--seed"])
    gen = Gen(rng, Schema(schema_path))
    gen.requests_only = bool(opts["--requests-only"])
    start = time.time()
    total = 0
    batches = 0
    while True:
        if opts["--messages"] and total >= opts["--messages"]:
            break
        if not opts["--messages"] and time.time() - start >= opts["--seconds"]:
            break
        sent = run_batch(path, gen, opts["--batch"])
        total += len(sent)
        batches += 1
        if not alive(opts["--pid"]) or not echo_ok(path):
            with open(opts["--log"], "w") as f:
                for ci, m in sent:
                    f.write("%s %r\n" % (ci, m))
            print("server died or stopped answering after batch %d "
                  "(%d messages, seed %d); batch in %s"
                  % (batches, total, opts["--seed"], opts["--log"]))
            return 1
    print("fuzz: seed %d, %d messages in %d batches, %.1f s, server alive"
          % (opts["--seed"], total, batches, time.time() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
