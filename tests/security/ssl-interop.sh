#!/bin/sh
# tests/security/ssl-interop.sh: our TLS layer against the reference Open
# vSwitch 3.1, both ways: our client (tests/security/ssl-tool) calls
# list_dbs on the reference ovsdb-server over ssl:, and the reference
# ovsdb-client lists the databases of our TLS JSON-RPC peer.  Both sides
# also refuse a certificate from a foreign CA.  Skipped without the
# reference programs.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"

TOOL=$OVSDB_BUILDDIR/tests/security/ssl-tool

pki_ca good
pki_ca evil
pki_cert good server
pki_cert good client
pki_cert evil rogue

echo "== our client, reference server"
"$REF_OVSDB_TOOL" create db.db "$OVSDB_SRCDIR/tests/workloads/workload.ovsschema"
"$REF_OVSDB_SERVER" --remote=pssl:0:127.0.0.1 --private-key=server-privkey.pem \
    --certificate=server-cert.pem --ca-cert=good-cacert.pem \
    --unixctl="$PWD/ref.ctl" --log-file="$PWD/ref.log" --no-chdir db.db \
    2>ref.err &
track_pid $!
port=
for i in $(seq 50); do
    port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' ref.log \
           2>/dev/null | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || fail "reference server did not start: $(cat ref.err)"
name=$(sed -n 's/.*"name" *: *"\([^"]*\)".*/\1/p' \
       "$OVSDB_SRCDIR/tests/workloads/workload.ovsschema" | head -n 1)

out=$("$TOOL" -p client-privkey.pem -c client-cert.pem -C good-cacert.pem \
      call ssl:127.0.0.1:$port list_dbs)
expect_eq "$out" "[\"$name\",\"_Server\"]" "list_dbs from the reference"
if "$TOOL" --timeout=5000 -p rogue-privkey.pem -c rogue-cert.pem \
        -C good-cacert.pem call ssl:127.0.0.1:$port list_dbs \
        >rogue1.out 2>&1; then
    fail "reference server served a foreign certificate"
fi
# Our client must refuse the reference server when it trusts another CA.
if "$TOOL" --timeout=5000 -p client-privkey.pem -c client-cert.pem \
        -C evil-cacert.pem call ssl:127.0.0.1:$port list_dbs \
        >rogue2.out 2>&1; then
    fail "our client accepted a server from an untrusted CA"
fi

echo "== our ovsdb-client, reference server"
OUR_CLIENT=$OVSDB_BUILDDIR/ovsdb/ovsdb-client
out=$("$OUR_CLIENT" --private-key=client-privkey.pem \
      --certificate=client-cert.pem --ca-cert=good-cacert.pem \
      list-dbs ssl:127.0.0.1:$port)
expect_eq "$(echo $out)" "$name _Server" "our ovsdb-client list-dbs over TLS"
ref=$("$REF_OVSDB_CLIENT" -p client-privkey.pem -c client-cert.pem \
      -C good-cacert.pem get-schema ssl:127.0.0.1:$port "$name")
ours=$("$OUR_CLIENT" -p client-privkey.pem -c client-cert.pem \
       -C good-cacert.pem get-schema ssl:127.0.0.1:$port "$name")
expect_eq "$ours" "$ref" "get-schema over TLS"
if timeout 10 "$OUR_CLIENT" -p rogue-privkey.pem -c rogue-cert.pem \
        -C good-cacert.pem list-dbs ssl:127.0.0.1:$port >rogue4.out 2>&1; then
    fail "reference server served our client with a foreign certificate"
fi

echo "== reference client, our server"
"$TOOL" -p server-privkey.pem -c server-cert.pem -C good-cacert.pem \
    serve pssl:0:127.0.0.1 >our.port 2>our.log &
track_pid $!
wait_nonempty our.port || true
oport=$(cat our.port)
[ -n "$oport" ] || fail "our server did not start: $(cat our.log)"
out=$("$REF_OVSDB_CLIENT" --private-key=client-privkey.pem \
      --certificate=client-cert.pem --ca-cert=good-cacert.pem \
      list-dbs ssl:127.0.0.1:$oport)
expect_eq "$out" "ssl_tool" "reference ovsdb-client list-dbs"
if timeout 10 "$REF_OVSDB_CLIENT" --private-key=rogue-privkey.pem \
        --certificate=rogue-cert.pem --ca-cert=good-cacert.pem \
        list-dbs ssl:127.0.0.1:$oport >rogue3.out 2>&1; then
    fail "our server served the reference client with a foreign certificate"
fi
wait_until 20 "refusal not logged" grep -q 'certificate verify failed' our.log
echo "TLS interop checks passed"
