#!/bin/sh
# tests/security/hygiene.sh: what a hostile or careless local client can do.
#  - "punix:" sockets are created owner-only (0700), whatever the umask;
#  - JSON-RPC input is bounded: a message nested deeper than 1000 levels or
#    larger than 64 MiB closes that connection (and is logged), over unix
#    and over TLS, while another client keeps being served;
#  - a message nested 900 deep is still fine.
# The peer is tests/security/ssl-tool, which uses lib/jsonrpc with its
# default limits, as the server does.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"

TOOL=$OVSDB_BUILDDIR/tests/security/ssl-tool
pki_ca ca
pki_cert ca server
pki_cert ca client

echo "== unix socket permissions"
(umask 000 && exec "$TOOL" serve "punix:$PWD/db.sock" >unix.port 2>unix.log) &
track_pid $!
wait_nonempty unix.port || fail "unix server did not start"
mode=$(stat -c %a db.sock)
expect_eq "$mode" 700 "punix socket mode under umask 000"

echo "== TLS server"
"$TOOL" -p server-privkey.pem -c server-cert.pem -C ca-cacert.pem \
    serve pssl:0:127.0.0.1 >tls.port 2>tls.log &
track_pid $!
wait_nonempty tls.port || fail "TLS server did not start"

echo "== limits"
python3 - "$PWD/db.sock" "$(cat tls.port)" <<'EOF' || fail "limits"
import socket, ssl, sys

unix_path, tls_port = sys.argv[1], int(sys.argv[2])

def unix():
    s = socket.socket(socket.AF_UNIX)
    s.connect(unix_path)
    s.settimeout(10)
    return s

def tls():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations("ca-cacert.pem")
    ctx.load_cert_chain("client-cert.pem", "client-privkey.pem")
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", tls_port)))
    s.settimeout(10)
    return s

def deep(depth):
    return (b'{"method":"echo","id":1,"params":' + b'[' * depth
            + b']' * depth + b'}')

def closed(s):
    try:
        while True:
            data = s.recv(4096)
            if not data:
                return True
            if b'"result"' in data:
                return False
    except (ConnectionError, ssl.SSLError):
        return True

def echo_ok(s, text):
    s.sendall(b'{"method":"echo","id":7,"params":["%s"]}' % text.encode())
    data = b''
    while b'}' not in data:
        chunk = s.recv(4096)
        if not chunk:
            return False
        data += chunk
    return text.encode() in data

for name, connect in (("unix", unix), ("tls", tls)):
    good = connect()
    assert echo_ok(good, "before"), name + ": echo failed"

    s = connect()
    s.sendall(deep(900))
    assert not closed(s), name + ": 900 levels refused"
    s.close()

    s = connect()
    s.sendall(deep(1001))
    assert closed(s), name + ": 1001 levels accepted"

    s = connect()
    try:
        s.sendall(b'{"method":"echo","id":2,"params":["')
        chunk = b'x' * (1 << 20)
        for i in range(70):
            s.sendall(chunk)
        sent_all = True
    except (ConnectionError, ssl.SSLError, socket.timeout):
        sent_all = False
    assert not sent_all or closed(s), name + ": 70 MiB message accepted"

    assert echo_ok(good, "after"), name + ": good client starved"
    good.close()
print("limits enforced")
EOF

for log in unix.log tls.log; do
    wait_until 20 "$log: deep nesting not logged" \
        grep -q 'nesting deeper than 1000 levels' $log
    wait_until 20 "$log: oversized message not logged" \
        grep -q 'message exceeds maximum size' $log
done
echo "hygiene checks passed"
