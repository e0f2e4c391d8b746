#!/bin/sh
# tests/server/tls-storm.sh: TLS connection storms at a small scale (issue
# 32; tests/workloads/tlsstorm.py): 120 clients connect over ssl: with
# RSA-2048 certificates checked both ways, 60 handshakes under way at once,
# each monitors its own rows with monitor_cond, while an established unix
# client sends "echo" every 10 ms.  Three ways: handshakes on 2 I/O
# threads (lib/handshake-pool.c), on 1, and on the main thread
# (--n-io-threads=0, a bounded time per pass).  Every client must get
# exactly its rows, once, and the established client its replies; times
# are printed, not asserted (a storm that has not ended after 150 s, ample
# even under ThreadSanitizer, fails and names the clients left waiting).  Then "ovsdb-server/io-threads" changes the
# number on a running server, with a TLS client served after each change
# and a handshake left under way across one.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "no python3"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"
APPCTL=$OVSDB_BUILDDIR/utilities/ovsdb-appctl

for n in 2 1 0; do
    echo "== $n I/O threads"
    python3 "$OVSDB_SRCDIR/tests/workloads/tlsstorm.py" --clients 120 \
        --rows 360 --inflight 60 --check --timeout 150 \
        --server-arg=--n-io-threads=$n \
        "$OUR_SERVER" > storm$n.out || { cat storm$n.out; fail "the storm"; }
    cat storm$n.out
    grep -q '"clients_wrong": 0' storm$n.out || fail "clients without rows"
done

echo "== ovsdb-server/io-threads"
pki_ca ca
pki_cert ca server
pki_cert ca client
start_server ours ovsdb-server ovsdb-tool --n-io-threads=2 \
    --remote=pssl:0:127.0.0.1 --private-key="$PWD/server-privkey.pem" \
    --certificate="$PWD/server-cert.pem" --ca-cert="$PWD/ca-cacert.pem"
track_pid "$(cat ours.pid)"     # pki.shlib's EXIT trap replaced lib.sh's.
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' ours.log | head -1)
[ -n "$port" ] || fail "no listening port in ours.log"
tls_call() {
    "$OUR_CLIENT" --private-key=client-privkey.pem \
        --certificate=client-cert.pem --ca-cert=ca-cacert.pem \
        list-dbs "ssl:127.0.0.1:$port" > dbs.out 2>&1 \
        || fail "list-dbs over TLS: $(cat dbs.out)"
    grep -q '^_Server$' dbs.out || fail "list-dbs: $(cat dbs.out)"
}
show() { "$APPCTL" -t "$PWD/ours.ctl" ovsdb-server/io-threads "$@"; }
expect_eq "$(show | head -1)" "io-threads: 2" "the option"
tls_call
# A client that connects and sends nothing keeps a handshake under way
# while the number changes; it must not stop the others.
python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
time.sleep(30)' "$port" &
idle=$!
track_pid $idle
in_flight() { show | grep -q '^handshakes-in-flight: 1$'; }
wait_until 30 "the idle client's handshake is not in flight" in_flight
expect_eq "$(show 0 | head -1)" "io-threads: 0" "set to 0"
tls_call
expect_eq "$(show 3 | head -1)" "io-threads: 3" "set to 3"
tls_call
if out=$(show many 2>&1); then
    fail "a bad number was accepted: $out"
fi
case $out in *"not a number"*) ;; *) fail "reply: $out" ;; esac
kill $idle 2>/dev/null || true
echo PASS
