"""tests/server/metrics.py: the HTTP side of tests/server/metrics.sh.

Usage: metrics.py COMMAND PORT [ARGS...], on 127.0.0.1:PORT:
  get PATH              prints the status, the Content-Type, then the body.
  value NAME LABELS     prints the value of sample NAME{LABELS} of /metrics
                        (LABELS as exposed, e.g. 'db="Example"'); exits 1 if
                        there is none.
  raw TEXT              sends TEXT (Python escapes allowed), prints the
                        status line of the reply.
  slow SOCKET           opens a connection that sends nothing, one that
                        sends half a request, one that sends a request and
                        never reads; checks that a scrape and a transaction
                        on unix:SOCKET are served promptly meanwhile, and
                        that the server closes the first two at its timeout.
  promtool              runs "promtool check metrics" on a scrape, and
                        fails on any complaint; says so and passes if
                        promtool is not installed.
  limit                 fills the connection limit with idle connections;
                        checks that one more is closed unanswered, and that
                        scrapes work again once they are gone.
"""
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

HOST = "127.0.0.1"
PROMPT = 3.0         # Seconds in which a request must be served.
MAX_CONNS = 16       # lib/http-server.h.
TIMEOUT = 10.0       # lib/http-server.h, HTTP_SERVER_TIMEOUT_MSEC.


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def get(port, path, timeout=PROMPT):
    """Returns (status, content type, body) of GET 'path'."""
    url = "http://%s:%d%s" % (HOST, port, path)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read().decode()


def sample(body, name, labels):
    want = "%s{%s} " % (name, labels) if labels else name + " "
    for line in body.splitlines():
        if line.startswith(want):
            return line[len(want):]
    return None


def connect(port):
    s = socket.create_connection((HOST, port), timeout=PROMPT)
    return s


def raw(port, text):
    s = connect(port)
    s.sendall(text.encode())
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
        if b"\r\n" in data:
            break           # The status line is all we check.
    s.close()
    return data.split(b"\r\n", 1)[0].decode()


def timed(what, fn):
    start = time.monotonic()
    result = fn()
    secs = time.monotonic() - start
    if secs > PROMPT:
        fail("%s took %.1f s with slow clients connected" % (what, secs))
    return result


def closed_by_server(s, deadline):
    """True if the server closes 's' (EOF or reset) before 'deadline'."""
    while time.monotonic() < deadline:
        s.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            data = s.recv(65536)
        except socket.timeout:
            return False
        except ConnectionResetError:
            return True
        if not data:
            return True
    return False


def slow(port, sock):
    idle = connect(port)
    partial = connect(port)
    partial.sendall(b"GET /met")
    unread = connect(port)
    unread.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    unread.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    opened = time.monotonic()

    for i in range(3):
        status, _, body = timed("a scrape", lambda: get(port, "/metrics"))
        if status != 200 or "ovsdb_build_info" not in body:
            fail("scrape with slow clients: status %d" % status)
        txn = ('["Example",{"op":"insert","table":"Host",'
               '"row":{"name":"slow%d"}}]' % i)
        out = timed("a transaction", lambda: subprocess.run(
            ["ovsdb-client", "--timeout=10", "transact", "unix:" + sock,
             txn], capture_output=True, text=True))
        if out.returncode or "uuid" not in out.stdout:
            fail("transaction with slow clients: %s %s"
                 % (out.stdout, out.stderr))

    deadline = opened + TIMEOUT + 5
    for name, s in (("idle", idle), ("partial", partial)):
        if not closed_by_server(s, deadline):
            fail("the %s connection was not closed at the timeout" % name)
    if time.monotonic() < opened + TIMEOUT - 1:
        fail("slow connections closed before the timeout")
    unread.close()
    print("slow clients: ok")


def limit(port):
    conns = [connect(port) for _ in range(MAX_CONNS)]
    # The server accepts them in its next pass; one more is then refused.
    # Wait for that with a bounded retry: accepting is asynchronous.
    deadline = time.monotonic() + 10
    refused = False
    while not refused and time.monotonic() < deadline:
        extra = connect(port)
        refused = closed_by_server(extra, time.monotonic() + 1)
        extra.close()
    if not refused:
        fail("connection %d was not refused" % (MAX_CONNS + 1))
    for s in conns:
        s.close()
    deadline = time.monotonic() + 10
    while True:
        try:
            if get(port, "/metrics")[0] == 200:
                break
        except (OSError, urllib.error.URLError):
            pass
        if time.monotonic() > deadline:
            fail("no scrape served after the idle connections closed")
        time.sleep(0.1)
    print("connection limit: ok")


def promtool(port):
    if not shutil.which("promtool"):
        print("promtool not installed (Debian package prometheus): "
              "format check skipped")
        return
    status, _, body = get(port, "/metrics")
    if status != 200:
        fail("scrape for promtool: status %d" % status)
    out = subprocess.run(["promtool", "check", "metrics"], input=body,
                         capture_output=True, text=True)
    if out.returncode or out.stdout or out.stderr:
        fail("promtool check metrics: %s%s" % (out.stdout, out.stderr))
    print("promtool: clean")


def main():
    cmd, port = sys.argv[1], int(sys.argv[2])
    args = sys.argv[3:]
    if cmd == "get":
        status, ctype, body = get(port, args[0])
        print(status)
        print(ctype)
        sys.stdout.write(body)
    elif cmd == "value":
        value = sample(get(port, "/metrics")[2], args[0], args[1])
        if value is None:
            sys.exit(1)
        print(value)
    elif cmd == "raw":
        print(raw(port, args[0].encode().decode("unicode_escape")))
    elif cmd == "slow":
        slow(port, args[0])
    elif cmd == "promtool":
        promtool(port)
    elif cmd == "limit":
        limit(port)
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main()
