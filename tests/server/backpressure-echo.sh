#!/bin/sh
# tests/server/backpressure-echo.sh: a client that floods the server with
# "echo" requests and never reads the replies, over unix, TCP and TLS: the
# server stops reading from it once its backlog is over the limit, so its
# RSS stays bounded and a healthy client keeps its round trips short; once
# the flooder reads, every request has its reply (tests/server/
# backpressure.py).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
export BACKPRESSURE_CTL="$PWD/ours.ctl"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"
pki_ca ca
pki_cert ca server
pki_cert ca client
start_server ours ovsdb-server ovsdb-tool --remote=ptcp:0:127.0.0.1 \
    --remote=pssl:0:127.0.0.1 --private-key="$PWD/server-privkey.pem" \
    --certificate="$PWD/server-cert.pem" --ca-cert="$PWD/ca-cacert.pem"
track_pid "$(cat ours.pid)"     # pki.shlib's EXIT trap replaced lib.sh's.
ports=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' ours.log)
set -- $ports
[ $# = 2 ] || fail "expected two listening ports in ours.log: $ports"
export BACKPRESSURE_SSL="$PWD/client-privkey.pem,$PWD/client-cert.pem,$PWD/ca-cacert.pem"
for remote in "unix:$PWD/ours.sock" "tcp:127.0.0.1:$1" "ssl:127.0.0.1:$2"; do
    echo "== $remote"
    python3 "$RPC_DIR/backpressure.py" echo "$remote" "$(cat ours.pid)" \
        || { tail -20 ours.log; fail "echo flood over $remote"; }
done
ovs-appctl -t "$PWD/ours.ctl" memory/show | tee mem.out
grep -q 'backlog-pauses:[1-9]' mem.out || fail "memory/show counts no pause"
