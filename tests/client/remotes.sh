# tests/client/remotes.sh: our client reaches a server over every kind of
# remote the reference's does: tcp:, ssl: (with -p/-c/-C) and a passive
# punix: that the server connects to; output and errors as the reference.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
has_reference || skip "reference ovsdb-client not installed"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"
. "$OVSDB_SRCDIR/tests/client/lib.sh"

pki_ca good
pki_ca evil
pki_cert good server
pki_cert good client
pki_cert evil rogue

"$REF_OVSDB_TOOL" create types.db "$SCHEMAS/types.ovsschema"
"$REF_OVSDB_CLIENT" --version >/dev/null
"$REF_OVSDB_SERVER" --remote=ptcp:0:127.0.0.1 --remote=pssl:0:127.0.0.1 \
    --private-key=server-privkey.pem --certificate=server-cert.pem \
    --ca-cert=good-cacert.pem --unixctl="$PWD/srv.ctl" \
    --log-file="$PWD/srv.log" types.db 2>srv.err &
server_pids=$!
i=0
while [ "$(grep -c 'listening on port' srv.log 2>/dev/null)" != 2 ]; do
    i=$((i + 1))
    [ $i -lt 50 ] || fail "server did not start: $(cat srv.err)"
    sleep 0.1
done
ports=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' srv.log)
# The first listener is the TCP one, in --remote order.
tcp_port=$(echo "$ports" | sed -n 1p)
ssl_port=$(echo "$ports" | sed -n 2p)
"$REF_OVSDB_CLIENT" list-dbs tcp:127.0.0.1:$tcp_port >/dev/null 2>&1 || {
    tcp_port=$(echo "$ports" | sed -n 2p)
    ssl_port=$(echo "$ports" | sed -n 1p)
}

"$REF_OVSDB_CLIENT" transact tcp:127.0.0.1:$tcp_port '["Types",
  {"op":"insert","table":"T","row":{"i":1,"s":"over tcp"}}]' >/dev/null

same_output tcp-dump dump tcp:127.0.0.1:$tcp_port Types
same_output tcp-schema get-schema-version tcp:127.0.0.1:$tcp_port Types
# With one database besides _Server, it is the default.
same_output tcp-default-db list-tables tcp:127.0.0.1:$tcp_port
same_output tcp-default-dump dump tcp:127.0.0.1:$tcp_port T
ssl="-p client-privkey.pem -c client-cert.pem -C good-cacert.pem"
# shellcheck disable=SC2086
same_output ssl-dump $ssl dump ssl:127.0.0.1:$ssl_port Types
# shellcheck disable=SC2086
same_output ssl-query $ssl query ssl:127.0.0.1:$ssl_port \
    '["Types",{"op":"select","table":"T","where":[],"columns":["s"]}]'

# A certificate from another CA is refused: both clients fail.
set +e
"$OUR_CLIENT" -p rogue-privkey.pem -c rogue-cert.pem -C evil-cacert.pem \
    list-dbs ssl:127.0.0.1:$ssl_port >rogue.out 2>rogue.err
rc=$?
set -e
[ $rc != 0 ] || fail "listed databases with a foreign certificate"
[ ! -s rogue.out ] || fail "output with a foreign certificate"
echo "foreign certificate refused: $(cat rogue.err)"

# Passive: our client listens, the server connects to it.
"$OUR_CLIENT" list-dbs "punix:$PWD/client.sock" >passive.out 2>passive.err &
client_pid=$!
i=0
while [ ! -S client.sock ]; do
    i=$((i + 1))
    [ $i -lt 50 ] || fail "client did not listen: $(cat passive.err)"
    sleep 0.1
done
ovs-appctl -t "$PWD/srv.ctl" ovsdb-server/add-remote "unix:$PWD/client.sock"
i=0
while kill -0 $client_pid 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 50 ] || fail "passive client did not finish"
    sleep 0.1
done
wait $client_pid || fail "passive list-dbs: $(cat passive.err)"
expect_eq "$(cat passive.out)" "Types
_Server" "passive list-dbs"

same_error bad-method list-dbs frob:1.2.3.4

# A comma-separated list (a cluster's form): the first that connects.
same_output list-first list-dbs "unix:$PWD/none.sock,tcp:127.0.0.1:$tcp_port"
run_both list-none list-dbs "unix:$PWD/none.sock,unix:$PWD/none2.sock"
compare_files list-none.rc list-none.ref.rc list-none.our.rc
expect_eq "$(tail -n 1 list-none.our.err)" \
    "$(tail -n 1 list-none.ref.err)" "no server in the list"
