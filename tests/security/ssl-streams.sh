#!/bin/sh
# tests/security/ssl-streams.sh: lib/stream-ssl over real sockets, with a
# throwaway PKI.  A JSON-RPC peer (tests/security/ssl-tool) serves on pssl:
# and calls over ssl:.  Checks: a good client works and is identified by its
# certificate's CN; clients without a certificate, with a foreign one, or
# speaking plain TCP are refused and the refusal is logged; the client
# refuses a server it cannot verify; accepted connections have Nagle's
# algorithm off; --ca-cert=none; --ssl-protocols; key
# and certificate reload when the files change; --bootstrap-ca-cert with
# --peer-ca-cert.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"

TOOL=$OVSDB_BUILDDIR/tests/security/ssl-tool
[ -x "$TOOL" ] || fail "$TOOL not built"


pki_ca good
pki_ca evil
pki_cert good server
pki_cert good client
pki_cert evil rogue
pki_cert evil evilserver

# serve NAME OPTIONS...: starts a server logging to NAME.log; sets $PORT.
serve() {
    name=$1
    shift
    "$TOOL" "$@" serve pssl:0:127.0.0.1 >"$name.port" 2>"$name.log" &
    track_pid $!
    wait_nonempty "$name.port" || true
    PORT=$(cat "$name.port")
    [ -n "$PORT" ] || fail "server $name did not start: $(cat "$name.log")"
}

# call PORT KEY CERT CA METHOD [PARAMS]: one request as client.
call() {
    port=$1 key=$2 cert=$3 ca=$4
    shift 4
    "$TOOL" --timeout=5000 -p "$key" -c "$cert" -C "$ca" \
        call "ssl:127.0.0.1:$port" "$@"
}

GOOD="client-privkey.pem client-cert.pem good-cacert.pem"

echo "== good client"
serve main -p server-privkey.pem -c server-cert.pem -C good-cacert.pem
main_port=$PORT
expect_eq "$(call $main_port $GOOD whoami)" '["client"]' "peer id"
expect_eq "$(call $main_port $GOOD echo '[1,"two",{"3":[4]}]')" \
    '[1,"two",{"3":[4]}]' "echo over TLS"
# Nagle's algorithm off on accepted connections, as on tcp: with it, a
# reply's second small record waited for the client's delayed ack.
expect_eq "$(call $main_port $GOOD nodelay)" '[true]' "TCP_NODELAY on pssl"

# A message bigger than one TLS record and than the tx buffer.
big=$(head -c 100000 /dev/zero | tr '\0' 'x')
out=$(call $main_port $GOOD echo "[\"$big\"]")
expect_eq "${#out}" $((100000 + 4)) "100 kB echo length"

echo "== foreign certificate"
if call $main_port rogue-privkey.pem rogue-cert.pem good-cacert.pem \
        whoami >rogue.out 2>&1; then
    fail "client with a foreign certificate was served: $(cat rogue.out)"
fi

echo "== no certificate"
printf '{"method":"list_dbs","params":[],"id":0}' |
    timeout 5 openssl s_client -quiet -connect 127.0.0.1:$main_port \
        -CAfile good-cacert.pem >nocert.out 2>&1 || true
if grep -q ssl_tool nocert.out; then
    fail "client without certificate was served"
fi

echo "== plain TCP"
if "$TOOL" --timeout=5000 call tcp:127.0.0.1:$main_port list_dbs \
        >plain.out 2>&1; then
    fail "plain TCP client was served: $(cat plain.out)"
fi

wait_until 20 "foreign certificate refusal not logged" \
    grep -q 'SSL_accept: .*certificate verify failed' main.log
wait_until 20 "missing certificate refusal not logged" \
    grep -q 'SSL_accept: .*peer did not return a certificate' main.log
grep -q 'received JSON-RPC data on SSL channel' main.log ||
    fail "plain TCP refusal not logged"

echo "== client refuses a server it cannot verify"
serve evil -p evilserver-privkey.pem -c evilserver-cert.pem \
    -C good-cacert.pem
if call $PORT $GOOD whoami >evil.out 2>&1; then
    fail "client accepted a server signed by a foreign CA"
fi
grep -q 'SSL_connect: .*certificate verify failed' evil.out ||
    fail "client did not log the verification failure: $(cat evil.out)"

echo "== --ca-cert=none"
serve none -p server-privkey.pem -c server-cert.pem -C none
none_port=$PORT
expect_eq "$(call $PORT rogue-privkey.pem rogue-cert.pem good-cacert.pem \
             list_dbs)" '["ssl_tool"]' "server with --ca-cert=none"
grep -q 'Peer certificate validation disabled' none.log ||
    fail "--ca-cert=none not warned about"

echo "== --ssl-protocols"
serve tls12 -p server-privkey.pem -c server-cert.pem -C good-cacert.pem \
    --ssl-protocols=TLSv1.2
if "$TOOL" --timeout=5000 --ssl-protocols=TLSv1.3 -p client-privkey.pem \
        -c client-cert.pem -C good-cacert.pem \
        call ssl:127.0.0.1:$PORT list_dbs >proto.out 2>&1; then
    fail "TLSv1.3-only client reached a TLSv1.2-only server"
fi
expect_eq "$("$TOOL" --ssl-protocols='TLSv1.2 TLSv1.3' -p client-privkey.pem \
             -c client-cert.pem -C good-cacert.pem \
             call ssl:127.0.0.1:$PORT list_dbs)" '["ssl_tool"]' \
    "TLSv1.2 negotiated"
echo | timeout 5 openssl s_client -connect 127.0.0.1:$main_port -tls1_1 \
    -cert client-cert.pem -key client-privkey.pem >tls11.out 2>&1 || true
if grep -q '^New, TLSv1.1' tls11.out; then
    fail "default protocols accepted TLSv1.1"
fi

echo "== key and certificate reload"
cp server-privkey.pem live-privkey.pem
cp server-cert.pem live-cert.pem
serve live -p live-privkey.pem -c live-cert.pem -C good-cacert.pem
live_port=$PORT
expect_eq "$(call $live_port $GOOD list_dbs)" '["ssl_tool"]' "before reload"
# Replace the server's identity with one from the evil CA, atomically.
cp evilserver-privkey.pem new-privkey.pem && mv new-privkey.pem live-privkey.pem
cp evilserver-cert.pem new-cert.pem && mv new-cert.pem live-cert.pem
if call $live_port $GOOD list_dbs >reload.out 2>&1; then
    fail "server still presents the old certificate after reload"
fi
expect_eq "$(call $live_port client-privkey.pem client-cert.pem \
             evil-cacert.pem list_dbs)" '["ssl_tool"]' "after reload"

echo "== CA certificate reload"
cp good-cacert.pem live-ca.pem
serve liveca -p server-privkey.pem -c server-cert.pem -C live-ca.pem
expect_eq "$(call $PORT $GOOD list_dbs)" '["ssl_tool"]' "before CA reload"
cp evil-cacert.pem new-ca.pem && mv new-ca.pem live-ca.pem
if call $PORT $GOOD list_dbs >ca-reload.out 2>&1; then
    fail "client from the old CA still accepted after CA reload"
fi
expect_eq "$(call $PORT rogue-privkey.pem rogue-cert.pem good-cacert.pem \
             list_dbs)" '["ssl_tool"]' "client from the new CA"

echo "== bootstrap CA certificate"
serve boot -p server-privkey.pem -c server-cert.pem -C good-cacert.pem \
    --peer-ca-cert=good-cacert.pem
boot_port=$PORT
rm -f learned-ca.pem
if "$TOOL" --timeout=5000 -p client-privkey.pem -c client-cert.pem \
        --bootstrap-ca-cert=learned-ca.pem \
        call ssl:127.0.0.1:$boot_port list_dbs >boot1.out 2>&1; then
    fail "first bootstrap connection should be dropped"
fi
[ -f learned-ca.pem ] || fail "CA not bootstrapped: $(cat boot1.out)"
fp() { openssl x509 -in "$1" -noout -fingerprint -sha256; }
expect_eq "$(fp learned-ca.pem)" "$(fp good-cacert.pem)" "bootstrapped CA"
expect_eq "$("$TOOL" -p client-privkey.pem -c client-cert.pem \
             --bootstrap-ca-cert=learned-ca.pem \
             call ssl:127.0.0.1:$boot_port list_dbs)" '["ssl_tool"]' \
    "connection with the bootstrapped CA"
# A server with no CA store sends only its own certificate: not a CA, so
# nothing is learned.  (With a store OpenSSL completes the chain itself, as
# for the reference.)
rm -f learned2.pem
if "$TOOL" --timeout=5000 -p client-privkey.pem -c client-cert.pem \
        --bootstrap-ca-cert=learned2.pem \
        call ssl:127.0.0.1:$none_port list_dbs >boot2.out 2>&1; then
    fail "bootstrap without a CA in the chain should fail"
fi
[ ! -f learned2.pem ] || fail "a non-CA certificate was saved as CA"

echo "== missing configuration"
if "$TOOL" -C good-cacert.pem serve pssl:0:127.0.0.1 >nokey.out 2>&1; then
    fail "listening without a private key should fail"
fi
grep -q 'Private key must be configured' nokey.out ||
    fail "missing key not reported: $(cat nokey.out)"
echo "all TLS stream checks passed"
