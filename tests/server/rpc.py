"""tests/server/rpc.py: a small blocking JSON-RPC 1.0 client for tests.

    c = Client("unix:/tmp/x/db.sock")
    reply = c.call("transact", ["db", {...}])   # returns the whole reply
    note = c.wait_notify("update2")            # next notification
Notifications that arrive while waiting for a reply are queued and returned
by wait_notify() in order.  Echo requests from the server are answered.
Also mask_uuids(obj) replaces every UUID string by <0>, <1>, ... in order
of first appearance, so replies can be compared with the reference's.
"""
import json
import re
import socket
import time

UUID_RE = re.compile(
    r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')


def connect(remote, timeout=10):
    if remote.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(remote[5:])
    elif remote.startswith("tcp:"):
        host, port = remote[4:].rsplit(":", 1)
        s = socket.create_connection((host.strip("[]"), int(port)))
    else:
        raise ValueError(remote)
    s.settimeout(timeout)
    return s


class Closed(Exception):
    pass


class Client:
    def __init__(self, remote, timeout=10, answer_echo=True):
        self.sock = connect(remote, timeout)
        self.buf = b""
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

    def recv(self):
        """Returns the next message (dict), raising Closed on EOF."""
        while True:
            text = self.buf.decode("utf-8", "replace").lstrip()
            if text:
                try:
                    obj, end = self.decoder.raw_decode(text)
                    self.buf = text[end:].encode()
                    if (self.answer_echo and obj.get("method") == "echo"
                            and obj.get("id") is not None):
                        self.echo_requests += 1
                        self.send({"id": obj["id"], "result": obj["params"],
                                   "error": None})
                        continue
                    return obj
                except ValueError:
                    pass
            data = self.sock.recv(1 << 20)
            if not data:
                raise Closed()
            self.buf += data

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"method": method, "params": params, "id": rid})
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
                self.sock.settimeout(10)

    def no_notify(self, wait=0.3):
        """Returns pending notifications received within 'wait' seconds."""
        self.sock.settimeout(wait)
        try:
            while True:
                self.notes.append(self.recv())
        except socket.timeout:
            pass
        finally:
            self.sock.settimeout(10)
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
            time.sleep(0.02)
    return False
