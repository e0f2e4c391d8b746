"""tests/rpc.py: the test suite's one JSON-RPC 1.0 client (RFC 7047),
blocking, for every test area.  tests/e2e/lib.sh puts tests/ on PYTHONPATH;
a script run on its own adds it itself (see tests/corpus/txncompare.py).

    c = Client("unix:/tmp/x/db.sock")         # or "tcp:127.0.0.1:PORT",
                                               # "ssl:..." with tls=context
    reply = c.call("transact", ["db", {...}])  # the whole reply message
    rows = c.result("transact", [...])         # its "result"; raises on error
    note = c.wait_notify("update2")            # the next such notification
Notifications that arrive while waiting for a reply are queued and returned
by wait_notify() in order.  Echo requests from the server are answered
(unless answer_echo=False).  A closed connection raises Closed.

Also: mask_uuids(obj) replaces every UUID string by <0>, <1>, ... in order
of first appearance, so replies can be compared with the reference's;
wait_for_socket(path) waits until a unix socket accepts; unixctl(path,
command, *args) runs one command on a control socket; stop_process(pid)
sends SIGSTOP and returns once the process is stopped; free_port() gives a
127.0.0.1 TCP port no other test of this run gets (as free_port in
tests/e2e/lib.sh).
"""
import json
import os
import random
import re
import signal
import socket
import time

UUID_RE = re.compile(
    r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')


def connect(remote, timeout=10, tls=None):
    """Returns a socket connected to REMOTE ("unix:PATH", "tcp:HOST:PORT" or,
    with an ssl.SSLContext TLS, "ssl:HOST:PORT")."""
    if remote.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(remote[5:])
        except OSError:
            s.close()
            raise
    elif remote.startswith(("tcp:", "ssl:")):
        host, port = remote[4:].rsplit(":", 1)
        s = socket.create_connection((host.strip("[]"), int(port)), timeout)
        if remote.startswith("ssl:"):
            if tls is None:
                s.close()
                raise ValueError("%s: needs a TLS context" % remote)
            s = tls.wrap_socket(s)
    else:
        raise ValueError(remote)
    s.settimeout(timeout)
    return s


class Closed(EOFError):
    """The peer closed the connection."""


class Client:
    def __init__(self, remote, timeout=10, answer_echo=True, tls=None):
        self.sock = connect(remote, timeout, tls)
        self.timeout = timeout
        self.text = ""
        self.pending = b""
        self.decoder = json.JSONDecoder()
        self.notes = []
        self.next_id = 0
        self.answer_echo = answer_echo
        self.echo_requests = 0

    def close(self):
        self.sock.close()

    def send(self, msg):
        self.sock.sendall(json.dumps(msg).encode())

    def send_raw(self, data):
        self.sock.sendall(data)

    def _message(self):
        """Returns the next complete message in the buffer, or None."""
        text = self.text.lstrip()
        self.text = text
        if not text:
            return None
        try:
            obj, end = self.decoder.raw_decode(text)
        except ValueError:
            return None
        self.text = text[end:]
        return obj

    def recv(self):
        """Returns the next message (dict), raising Closed on EOF."""
        while True:
            obj = self._message()
            if obj is not None:
                if (self.answer_echo and isinstance(obj, dict)
                        and obj.get("method") == "echo"
                        and obj.get("id") is not None):
                    self.echo_requests += 1
                    self.send({"id": obj["id"], "result": obj["params"],
                               "error": None})
                    continue
                return obj
            data = self.sock.recv(1 << 20)
            if not data:
                raise Closed("the server closed the connection")
            # A UTF-8 sequence split between two reads waits for its end.
            data = self.pending + data
            try:
                self.text += data.decode("utf-8")
                self.pending = b""
            except UnicodeDecodeError as e:
                if e.start < len(data) - 3:
                    self.text += data.decode("utf-8", "replace")
                    self.pending = b""
                else:
                    self.text += data[:e.start].decode("utf-8")
                    self.pending = data[e.start:]

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"method": method, "params": params, "id": rid})
        return rid

    def request_raw(self, method, params_text):
        """Like request(), with PARAMS_TEXT sent exactly as given."""
        self.next_id += 1
        rid = self.next_id
        self.send_raw(('{"id":%d,"method":%s,"params":%s}'
                       % (rid, json.dumps(method), params_text)).encode())
        return rid

    def wait_reply(self, rid):
        while True:
            msg = self.recv()
            if msg.get("id") == rid and "method" not in msg:
                return msg
            self.notes.append(msg)

    def call(self, method, params):
        return self.wait_reply(self.request(method, params))

    def result(self, method, params):
        r = self.call(method, params)
        if r.get("error") is not None:
            raise RuntimeError("%s failed: %s" % (method, r["error"]))
        return r["result"]

    def transact(self, db, ops):
        """Sends "transact" on DB with the list OPS; returns the reply."""
        return self.call("transact", [db] + list(ops))

    def wait_notify(self, method=None, timeout=None):
        if timeout is not None:
            self.sock.settimeout(timeout)
        try:
            while True:
                for i, n in enumerate(self.notes):
                    if method is None or n.get("method") == method:
                        return self.notes.pop(i)
                self.notes.append(self.recv())
        finally:
            if timeout is not None:
                self.sock.settimeout(self.timeout)

    def no_notify(self, wait=0.3):
        """Returns pending notifications received within 'wait' seconds."""
        self.sock.settimeout(wait)
        try:
            while True:
                self.notes.append(self.recv())
        except socket.timeout:
            pass
        finally:
            self.sock.settimeout(self.timeout)
        notes, self.notes = self.notes, []
        return notes


def mask_uuids(obj, table=None):
    """Returns 'obj' (JSON-like) with UUIDs replaced by <N> in order."""
    if table is None:
        table = {}

    def sub(m):
        u = m.group(0)
        if u not in table:
            table[u] = "<%d>" % len(table)
        return table[u]

    text = json.dumps(obj, sort_keys=True)
    return json.loads(UUID_RE.sub(sub, text))


def wait_for_socket(path, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            s.close()
            return True
        except OSError:
            s.close()
            time.sleep(0.02)
    return False


def stop_process(pid, timeout=10):
    """Sends SIGSTOP to PID and waits until it is stopped ("T" in
    /proc/PID/stat).  Until then it may still run: a server woken in poll()
    by data sent meanwhile would return from poll() with only that
    connection ready, and a test that wants several requests read in one
    pass of its loop must send them only once it is stopped."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.time() + timeout
    while time.time() < deadline:
        with open("/proc/%d/stat" % pid) as f:
            # The state follows the command name, which is in parentheses.
            if f.read().rsplit(")", 1)[1].split()[0] == "T":
                return
        time.sleep(0.01)
    raise RuntimeError("process %d did not stop" % pid)


def unixctl(path, command, *args, timeout=60):
    """Runs COMMAND ARGS on the control socket PATH; returns its output
    (the "result"), raising RuntimeError with the text of an "error"."""
    c = Client("unix:" + path, timeout=timeout)
    try:
        reply = c.call(command, [str(a) for a in args])
    finally:
        c.close()
    if reply.get("error") is not None:
        raise RuntimeError("%s: %s" % (command, reply["error"]))
    return reply.get("result")


def free_port():
    """A TCP port on 127.0.0.1, free now and claimed (a directory in
    $TEST_PORTDIR) so that no other test of this run gets it."""
    portdir = os.environ.get("TEST_PORTDIR") or os.path.join(os.getcwd(),
                                                             ".ports")
    os.makedirs(portdir, exist_ok=True)
    for _ in range(1000):
        port = random.randint(20000, 32767)
        try:
            os.mkdir(os.path.join(portdir, str(port)))
        except FileExistsError:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError("free_port: no free port found")
