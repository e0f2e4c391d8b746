#!/bin/sh
# tests/security/rbac-remotes.sh: RBAC and remotes from the database,
# differential against the reference ovsdb-server.
#
# Each server serves tests/data/schemas/rbac.ovsschema with
# --remote=db:Secure,Global,connections and the PKI options.  An admin on a
# unix socket adds a Connection row (pssl, role "ovn-controller") and the
# RBAC tables; the server must start listening on it.  Then client
# "chassis1" (CN of its certificate) runs a series of transactions over
# TLS, and the answers must be the reference's, byte for byte once UUIDs
# are masked.  Deleting the Connection row must close the listener.
#
# The client is the reference ovsdb-client, so that only the servers
# differ.  Skipped without the reference or python3.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"

SCHEMA=$OVSDB_SRCDIR/tests/data/schemas/rbac.ovsschema
pki_ca ca
pki_cert ca server
pki_cert ca chassis1

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# port_open PORT: true if something accepts TCP connections on PORT.
port_open() {
    python3 -c "import socket, sys; s = socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $1)))"
}

wait_port() {    # wait_port PORT open|closed
    for i in $(seq 100); do
        if port_open "$1"; then
            [ "$2" = open ] && return 0
        else
            [ "$2" = closed ] && return 0
        fi
        sleep 0.1
    done
    return 1
}

# run_side NAME SERVER TOOL: runs the whole scenario against one server,
# writing NAME.out.
run_side() {
    name=$1 server=$2 tool=$3
    "$REF_OVSDB_TOOL" create "$name.db" "$SCHEMA"
    "$server" "$name.db" --remote="punix:$PWD/$name.sock" \
        --remote=db:Secure,Global,connections \
        --private-key=server-privkey.pem --certificate=server-cert.pem \
        --ca-cert=ca-cacert.pem --unixctl="$PWD/$name.ctl" \
        --log-file="$PWD/$name.log" 2>"$name.stderr" &
    track_pid $!
    for i in $(seq 50); do
        [ -S "$name.sock" ] && break
        sleep 0.1
    done
    [ -S "$name.sock" ] || fail "$name: server did not start: $(cat $name.stderr)"

    admin() {
        "$REF_OVSDB_CLIENT" transact "unix:$PWD/$name.sock" "[\"Secure\",$1]"
    }
    port=$(free_port)
    admin '{"op":"insert","table":"Connection","row":{
              "target":"pssl:'$port':127.0.0.1","role":"ovn-controller",
              "inactivity_probe":30000},"uuid-name":"c"},
           {"op":"insert","table":"Global","row":{
              "connections":["named-uuid","c"]}},
           {"op":"insert","table":"RBAC_Permission","row":{
              "table":"Chassis","authorization":["set",["name"]],
              "insert_delete":true,
              "update":["set",["nb_cfg","external_ids"]]},
            "uuid-name":"p1"},
           {"op":"insert","table":"RBAC_Permission","row":{
              "table":"Chassis_Private",
              "authorization":["set",["external_ids:owner"]],
              "insert_delete":false,"update":["set",["nb_cfg"]]},
            "uuid-name":"p2"},
           {"op":"insert","table":"RBAC_Role","row":{
              "name":"ovn-controller","permissions":["map",[
                 ["Chassis",["named-uuid","p1"]],
                 ["Chassis_Private",["named-uuid","p2"]]]]}},
           {"op":"insert","table":"Chassis","row":{"name":"other"}},
           {"op":"insert","table":"Chassis_Private","row":{"name":"cp1",
              "external_ids":["map",[["owner","chassis1"]]]}},
           {"op":"insert","table":"Chassis_Private","row":{"name":"cp2",
              "external_ids":["map",[["owner","zzz"]]]}}' >"$name.setup"
    wait_port "$port" open || fail "$name: did not listen on the db remote"

    as_chassis() {
        echo "--- $1"
        "$REF_OVSDB_CLIENT" -p chassis1-privkey.pem -c chassis1-cert.pem \
            -C ca-cacert.pem transact "ssl:127.0.0.1:$port" \
            "[\"Secure\",$1]" 2>&1 |
            sed 's/"uuid","[0-9a-f-]*"/"uuid","U"/g'
        echo
    }
    {
    as_chassis '{"op":"insert","table":"Chassis","row":{"name":"chassis1"}}'
    as_chassis '{"op":"insert","table":"Chassis","row":{"name":"evil"}}'
    as_chassis '{"op":"insert","table":"Global","row":{}}'
    as_chassis '{"op":"update","table":"Chassis","where":[["name","==","chassis1"]],"row":{"nb_cfg":5}}'
    as_chassis '{"op":"update","table":"Chassis","where":[["name","==","chassis1"]],"row":{"hostname":"h"}}'
    as_chassis '{"op":"update","table":"Chassis","where":[["name","==","nobody"]],"row":{"hostname":"h"}}'
    as_chassis '{"op":"update","table":"Chassis","where":[],"row":{"nb_cfg":7}}'
    as_chassis '{"op":"mutate","table":"Chassis","where":[["name","==","chassis1"]],"mutations":[["external_ids","insert",["map",[["a","b"]]]]]}'
    as_chassis '{"op":"mutate","table":"Chassis","where":[["name","==","chassis1"]],"mutations":[["other_config","insert",["map",[["a","b"]]]]]}'
    as_chassis '{"op":"delete","table":"Chassis","where":[["name","==","other"]]}'
    as_chassis '{"op":"delete","table":"Global","where":[["nb_cfg","==",12345]]}'
    as_chassis '{"op":"update","table":"Chassis_Private","where":[["name","==","cp1"]],"row":{"nb_cfg":3}}'
    as_chassis '{"op":"update","table":"Chassis_Private","where":[["name","==","cp2"]],"row":{"nb_cfg":3}}'
    as_chassis '{"op":"delete","table":"Chassis_Private","where":[["name","==","cp1"]]}'
    as_chassis '{"op":"delete","table":"Chassis_Private","where":[["name","==","nobody"]]}'
    as_chassis '{"op":"select","table":"Chassis","where":[["name","==","chassis1"]],"columns":["name","nb_cfg"]}'
    as_chassis '{"op":"delete","table":"Chassis","where":[["name","==","chassis1"]]}'
    } >"$name.out"

    # Dropping the Connection row closes the listener.
    admin '{"op":"update","table":"Global","where":[],
            "row":{"connections":["set",[]]}}' >>"$name.setup"
    wait_port "$port" closed || fail "$name: still listening after the Connection row went away"
}

run_side ref "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL"
grep -q 'prohibit row insertion into table \\"Chassis\\"' ref.out ||
    fail "reference did not refuse as expected: $(cat ref.out)"

# Until the server links ovsdb/remotes.c, only the reference side runs.
grep -q ovsdb_remotes_collect "$(command -v ovsdb-server)" ||
    skip "our ovsdb-server does not read remotes from the database yet"
run_side ours ovsdb-server ovsdb-tool
if ! diff -u ref.out ours.out; then
    fail "RBAC answers differ from the reference"
fi
echo "RBAC and db remotes match the reference"
