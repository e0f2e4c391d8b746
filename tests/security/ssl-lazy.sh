#!/bin/sh
# tests/security/ssl-lazy.sh: OpenSSL is loaded only once TLS is
# configured (lib/stream-ssl.c loads it with dlopen()).  A server started
# with its PKI options pointing into the database, and no SSL row yet,
# must not map libssl or libcrypto; once the SSL row is inserted, a pssl
# remote added with ovs-appctl and one added through the database's
# Connection table must both serve our own client over TLS.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"

SCHEMA=$OVSDB_SRCDIR/tests/data/schemas/rbac.ovsschema
pki_ca ca
pki_cert ca server
pki_cert ca client

maps_openssl() {    # maps_openssl PID: prints the OpenSSL libraries mapped
    grep -o 'lib\(ssl\|crypto\)\.so[.0-9]*' "/proc/$1/maps" | sort -u |
        tr '\n' ' '
}

start_server s "$OUR_SERVER" "$OUR_TOOL" \
    --remote=db:Secure,Global,connections \
    --private-key=db:Secure,SSL,private_key \
    --certificate=db:Secure,SSL,certificate --ca-cert=db:Secure,SSL,ca_cert
expect_eq "$(maps_openssl "$SERVER_PID")" "" \
    "OpenSSL mapped by a server without TLS"

admin() {
    "$OUR_CLIENT" transact "$SOCK" "[\"Secure\",$1]" >>admin.out \
        || fail "admin transaction failed: $1"
}
admin '{"op":"insert","table":"SSL","row":{
          "private_key":"'$PWD'/server-privkey.pem",
          "certificate":"'$PWD'/server-cert.pem",
          "ca_cert":"'$PWD'/ca-cacert.pem"},"uuid-name":"s"},
       {"op":"insert","table":"Global","row":{"ssl":["named-uuid","s"]}}'

list_dbs() {
    timeout 10 "$OUR_CLIENT" -p client-privkey.pem -c client-cert.pem \
        -C ca-cacert.pem list-dbs "ssl:127.0.0.1:$1" 2>&1 | tr '\n' ' '
}
serves() {
    [ "$(list_dbs "$1")" = "Secure _Server " ]
}

echo "== pssl remote added with ovs-appctl"
port1=$(free_port)
ovs-appctl -t "$PWD/s.ctl" ovsdb-server/add-remote "pssl:$port1:127.0.0.1" \
    || fail "add-remote failed"
wait_until 10 "no TLS service on the ovs-appctl remote: $(list_dbs $port1)" \
    serves "$port1"

echo "== pssl remote from the database"
port2=$(free_port)
admin '{"op":"insert","table":"Connection","row":{
          "target":"pssl:'$port2':127.0.0.1"},"uuid-name":"c"},
       {"op":"update","table":"Global","where":[],"row":{
          "connections":["named-uuid","c"]}}'
wait_until 10 "no TLS service on the database remote: $(list_dbs $port2)" \
    serves "$port2"

case $(maps_openssl "$SERVER_PID") in
    *libssl*) ;;
    *) fail "TLS served without libssl mapped: $(maps_openssl "$SERVER_PID")" ;;
esac
stop_server s
