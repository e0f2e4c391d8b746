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
# Then the PKI options themselves come from the database (an SSL row) and
# changing that row changes the server's TLS identity and CA.
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

# run_side NAME SERVER: runs the whole scenario against one server,
# writing NAME.out.
# start NAME SERVER ARGS...: creates NAME.db and starts SERVER on it with
# an admin socket NAME.sock, --remote=db:Secure,Global,connections and
# ARGS; waits for the admin socket.
start() {
    name=$1 server=$2
    shift 2
    "$REF_OVSDB_TOOL" create "$name.db" "$SCHEMA"
    "$server" "$name.db" --remote="punix:$PWD/$name.sock" \
        --remote=db:Secure,Global,connections --unixctl="$PWD/$name.ctl" \
        --log-file="$PWD/$name.log" "$@" 2>"$name.stderr" &
    track_pid $!
    for i in $(seq 50); do
        [ -S "$name.sock" ] && return 0
        sleep 0.1
    done
    fail "$name: server did not start: $(cat $name.stderr)"
}

run_side() {
    echo "== $1: RBAC through db remotes"
    name=$1
    start "$1" "$2" --private-key=server-privkey.pem \
        --certificate=server-cert.pem --ca-cert=ca-cacert.pem

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

    # A read_only Connection (plain TCP, no role): reads only.
    ro_port=$(free_port)
    admin '{"op":"insert","table":"Connection","row":{
              "target":"ptcp:'$ro_port':127.0.0.1","read_only":true},
            "uuid-name":"ro"},
           {"op":"mutate","table":"Global","where":[],"mutations":[
              ["connections","insert",["set",[["named-uuid","ro"]]]]]}' \
        >>"$name.setup"
    wait_port "$ro_port" open || fail "$name: no read_only listener"
    for op in '{"op":"insert","table":"Chassis","row":{"name":"ro"}}' \
              '{"op":"select","table":"Chassis","where":[],"columns":["name"]}'; do
        "$REF_OVSDB_CLIENT" transact "tcp:127.0.0.1:$ro_port" \
            "[\"Secure\",$op]" 2>&1
        echo
    done >>"$name.out"

    # A monitor open on the pssl remote, to be cut off with it.
    "$REF_OVSDB_CLIENT" -p chassis1-privkey.pem -c chassis1-cert.pem \
        -C ca-cacert.pem monitor "ssl:127.0.0.1:$port" Secure Chassis name \
        >"$name.monitor" 2>&1 &
    monitor_pid=$!
    track_pid $monitor_pid
    for i in $(seq 50); do
        grep -q other "$name.monitor" && break
        sleep 0.1
    done
    grep -q other "$name.monitor" || fail "$name: monitor did not start"

    # Dropping the Connection rows closes the listeners and the sessions
    # that came through them.
    admin '{"op":"update","table":"Global","where":[],
            "row":{"connections":["set",[]]}}' >>"$name.setup"
    wait_port "$port" closed || fail "$name: still listening after the Connection row went away"
    wait_port "$ro_port" closed || fail "$name: read_only remote still open"
    for i in $(seq 50); do
        kill -0 $monitor_pid 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 $monitor_pid 2>/dev/null; then
        fail "$name: session outlived its Connection row"
    fi
}

# run_pki_side NAME SERVER: the PKI options read from the database
# ("-p db:..."), following changes to the SSL row.
run_pki_side() {
    echo "== $1: PKI from the database"
    name=$1-pki
    start "$name" "$2" --private-key=db:Secure,SSL,private_key \
        --certificate=db:Secure,SSL,certificate --ca-cert=db:Secure,SSL,ca_cert
    admin() {
        "$REF_OVSDB_CLIENT" transact "unix:$PWD/$name.sock" \
            "[\"Secure\",$1]" >>"$name.setup"
    }
    port=$(free_port)
    admin '{"op":"insert","table":"SSL","row":{
              "private_key":"'$PWD'/server-privkey.pem",
              "certificate":"'$PWD'/server-cert.pem",
              "ca_cert":"'$PWD'/ca-cacert.pem"},"uuid-name":"s"},
           {"op":"insert","table":"Connection","row":{
              "target":"pssl:'$port':127.0.0.1"},"uuid-name":"c"},
           {"op":"insert","table":"Global","row":{
              "connections":["named-uuid","c"],"ssl":["named-uuid","s"]}}'
    wait_port "$port" open || fail "$name: no TLS listener from the database"
    list_dbs() {
        timeout 10 "$REF_OVSDB_CLIENT" -p $1-privkey.pem -c $1-cert.pem \
            -C $2-cacert.pem list-dbs "ssl:127.0.0.1:$port" 2>&1 | tr '\n' ' '
    }
    expect_eq "$(list_dbs chassis1 ca)" "Secure _Server " \
        "$name: TLS with the PKI from the database"
    # New identity and CA in the database: old clients out, new ones in.
    admin '{"op":"update","table":"SSL","where":[],"row":{
              "private_key":"'$PWD'/other-server-privkey.pem",
              "certificate":"'$PWD'/other-server-cert.pem",
              "ca_cert":"'$PWD'/other-cacert.pem"}}'
    for i in $(seq 50); do
        [ "$(list_dbs other-client other)" = "Secure _Server " ] && break
        sleep 0.1
    done
    expect_eq "$(list_dbs other-client other)" "Secure _Server " \
        "$name: TLS after the SSL row changed"
    case $(list_dbs chassis1 ca) in
        *Secure*) fail "$name: client of the old CA still served" ;;
    esac
}

pki_ca other
pki_cert other other-server
pki_cert other other-client
run_pki_side ref "$REF_OVSDB_SERVER"
run_side ref "$REF_OVSDB_SERVER"
grep -q 'prohibit row insertion into table \\"Chassis\\"' ref.out ||
    fail "reference did not refuse as expected: $(cat ref.out)"

run_pki_side ours ovsdb-server
run_side ours ovsdb-server
if ! diff -u ref.out ours.out; then
    fail "RBAC answers differ from the reference"
fi
echo "RBAC and db remotes match the reference"
