#!/usr/bin/env python3
"""tests/cluster/raftproxy.py: a logging proxy for JSON-RPC streams.

Usage:
    raftproxy.py --log FILE [--label NAME] [--ready FILE] LISTEN TARGET ...

Each LISTEN TARGET pair makes the proxy accept connections on LISTEN and
forward each one, byte for byte, to a new connection to TARGET.  Addresses
are "tcp:HOST:PORT" (HOST must be a loopback address) or "unix:PATH".  A
tcp LISTEN with port 0 picks a free port; the "--ready" file then lists one
line "LISTEN-AS-GIVEN ACTUAL-ADDRESS" per pair, written once all listen.

Every complete JSON value that crosses the proxy is appended to the log as
one JSON line:
    {"t": 1700000000.123456, "proxy": "s1", "conn": 3, "dir": "c2s",
     "peer": "unix:/tmp/s1.sock", "msg": {...}}
"dir" is "c2s" for bytes from the connecting side to TARGET and "s2c" for
the other way; "conn" numbers connections in the order they were accepted
(per proxy process); "peer" is the LISTEN address.  Bytes that are not JSON
are logged as {"raw": "..."}; "event" lines record "open" and "close".

With "--steal", each unix LISTEN path is expected to be created by the
server itself (an ovsdb-server listening on its Raft local address, which
is also the address its peers dial).  The proxy waits for the server's
socket to appear at LISTEN, renames it to TARGET, and listens at LISTEN in
its place; if the server is restarted and binds LISTEN again, the proxy
does the same again.  That way every connection to the server, from peers
that only know LISTEN, passes through the proxy.

The proxy only relays bytes; it never changes, delays or drops them.  It
runs until it gets SIGTERM or SIGINT.
"""

import argparse
import json
import os
import signal
import socket
import sys
import threading
import time

MAX_PENDING = 256 * 1024 * 1024   # Bytes of one unfinished JSON value.


class JsonSplitter:
    """Finds where back-to-back JSON values end, as a JSON-RPC peer does."""

    def __init__(self):
        self.buf = bytearray()
        self.depth = 0
        self.in_string = False
        self.escape = False
        self.scanned = 0
        self.started = False

    def feed(self, data):
        """Appends 'data' and returns the list of complete values (bytes)."""
        out = []
        self.buf += data
        i = self.scanned
        n = len(self.buf)
        buf = self.buf
        while i < n:
            c = buf[i]
            if self.in_string:
                if self.escape:
                    self.escape = False
                elif c == 0x5c:            # backslash
                    self.escape = True
                elif c == 0x22:            # quote
                    self.in_string = False
            elif c == 0x22:
                self.in_string = True
                self.started = True
            elif c in (0x7b, 0x5b):        # { [
                self.depth += 1
                self.started = True
            elif c in (0x7d, 0x5d):        # } ]
                self.depth -= 1
                if self.depth <= 0:
                    out.append(bytes(buf[:i + 1]))
                    del buf[:i + 1]
                    n = len(buf)
                    i = -1
                    self.depth = 0
                    self.started = False
            elif c in (0x20, 0x0a, 0x0d, 0x09) and not self.started:
                del buf[:i + 1]
                n = len(buf)
                i = -1
            elif not self.started:
                self.started = True
            i += 1
        self.scanned = len(buf)
        if len(buf) > MAX_PENDING:
            out.append(bytes(buf))
            buf.clear()
            self.scanned = 0
        return out


class Log:
    def __init__(self, path, label):
        self.f = open(path, "a", encoding="utf-8")
        self.label = label
        self.lock = threading.Lock()

    def write(self, conn, direction, peer, **fields):
        rec = {"t": round(time.time(), 6), "proxy": self.label,
               "conn": conn, "dir": direction, "peer": peer}
        rec.update(fields)
        line = json.dumps(rec, sort_keys=False, separators=(",", ":"))
        with self.lock:
            self.f.write(line + "\n")
            self.f.flush()


def parse_address(s):
    if s.startswith("unix:"):
        return socket.AF_UNIX, s[5:]
    if s.startswith("tcp:"):
        host, _, port = s[4:].rpartition(":")
        host = host.strip("[]")
        if not (host.startswith("127.") or host in ("::1", "localhost")):
            sys.exit("raftproxy: %s: only loopback addresses are allowed" % s)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        return family, (host, int(port))
    sys.exit("raftproxy: %s: address must be tcp:HOST:PORT or unix:PATH" % s)


def address_string(family, addr):
    if family == socket.AF_UNIX:
        return "unix:" + addr
    host, port = addr[0], addr[1]
    if ":" in host:
        host = "[%s]" % host
    return "tcp:%s:%d" % (host, port)


def pump(src, dst, splitter, log, conn, direction, peer, done):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            for value in splitter.feed(data):
                text = value.decode("utf-8", "replace")
                try:
                    log.write(conn, direction, peer, msg=json.loads(text))
                except ValueError:
                    log.write(conn, direction, peer, raw=text)
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass
        done.release()


class Proxy:
    def __init__(self, listen, target, log, steal=False):
        self.listen_given = listen
        self.family, self.addr = parse_address(listen)
        self.target_family, self.target_addr = parse_address(target)
        self.log = log
        self.steal = steal
        self.sock = None
        self.inode = None
        if steal:
            if self.family != socket.AF_UNIX or \
               self.target_family != socket.AF_UNIX:
                sys.exit("raftproxy: --steal needs unix addresses")
            self.listen = listen
        else:
            self.bind()

    def bind(self):
        sock = socket.socket(self.family, socket.SOCK_STREAM)
        if self.family == socket.AF_UNIX:
            if os.path.exists(self.addr):
                os.unlink(self.addr)
        else:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(self.addr)
        sock.listen(64)
        if self.family == socket.AF_UNIX:
            self.inode = os.stat(self.addr).st_ino
        self.listen = address_string(self.family, sock.getsockname())
        old, self.sock = self.sock, sock
        if old:
            old.close()
        return sock

    def steal_once(self):
        """Takes over LISTEN if a server socket other than ours is there."""
        try:
            st = os.stat(self.addr)
        except OSError:
            return False
        if st.st_ino == self.inode or (st.st_mode & 0o170000) != 0o140000:
            return False
        os.rename(self.addr, self.target_addr)
        self.bind()
        self.log.write(0, "c2s", self.listen, event="stolen")
        return True

    def serve(self, counter):
        if not self.steal:
            self.accept_loop(self.sock, counter)
            return
        while True:
            if self.steal_once():
                threading.Thread(target=self.accept_loop,
                                 args=(self.sock, counter),
                                 daemon=True).start()
            time.sleep(0.001)

    def accept_loop(self, sock, counter):
        while True:
            try:
                client, _ = sock.accept()
            except OSError:
                return
            conn = counter()
            threading.Thread(target=self.relay, args=(client, conn),
                             daemon=True).start()

    def relay(self, client, conn):
        server = socket.socket(self.target_family, socket.SOCK_STREAM)
        try:
            server.connect(self.target_addr)
        except OSError as e:
            self.log.write(conn, "c2s", self.listen, event="refused",
                           error=str(e))
            client.close()
            server.close()
            return
        self.log.write(conn, "c2s", self.listen, event="open")
        done = threading.Semaphore(0)
        for src, dst, direction in ((client, server, "c2s"),
                                    (server, client, "s2c")):
            threading.Thread(target=pump,
                             args=(src, dst, JsonSplitter(), self.log, conn,
                                   direction, self.listen, done),
                             daemon=True).start()
        done.acquire()
        done.acquire()
        self.log.write(conn, "c2s", self.listen, event="close")
        client.close()
        server.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log", required=True)
    ap.add_argument("--label", default="proxy")
    ap.add_argument("--ready")
    ap.add_argument("--steal", action="store_true")
    ap.add_argument("pairs", nargs="+", metavar="LISTEN TARGET")
    args = ap.parse_args()
    if len(args.pairs) % 2:
        ap.error("addresses must come in LISTEN TARGET pairs")

    log = Log(args.log, args.label)
    lock = threading.Lock()
    next_conn = [0]

    def counter():
        with lock:
            next_conn[0] += 1
            return next_conn[0]

    proxies = [Proxy(args.pairs[i], args.pairs[i + 1], log, args.steal)
               for i in range(0, len(args.pairs), 2)]
    if args.ready:
        tmp = args.ready + ".tmp"
        with open(tmp, "w") as f:
            for p in proxies:
                f.write("%s %s\n" % (p.listen_given, p.listen))
        os.rename(tmp, args.ready)
    for p in proxies:
        threading.Thread(target=p.serve, args=(counter,), daemon=True).start()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(3600):
        pass
    for p in proxies:
        if p.sock:
            p.sock.close()
        if p.family == socket.AF_UNIX and p.inode is not None:
            try:
                os.unlink(p.listen[5:])
            except OSError:
                pass


if __name__ == "__main__":
    main()
