#!/bin/sh
# tests/workloads/ssl-transport.sh: the workload driver over TLS (what
# "bench --transport ssl" runs).  Our server listens on pssl: with its
# certificate, the driver connects to ssl:127.0.0.1:PORT with a client
# certificate from the same CA (checked by the server), with 2 I/O threads
# and with none.  A seed workload and the three OVN workloads must pass
# their own checks (every reply, every client's view of its rows, the
# final contents); a driver that trusts another CA must fail to connect.
# Correctness only: no times are asserted.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
. "$OVSDB_SRCDIR/tests/security/pki.shlib"

SCHEMA=$OVSDB_SRCDIR/tests/workloads/workload.ovsschema
driver=$OVSDB_BUILDDIR/tests/workloads/ovsdb-workload
[ -x "$driver" ] || fail "$driver not built"

pki_ca ca
pki_cert ca server
pki_cert ca client
pki_ca other

for threads in 2 0; do
    echo "== $threads I/O threads"
    port=$(free_port)
    start_server ours$threads ovsdb-server ovsdb-tool \
        --n-io-threads=$threads --remote=pssl:$port:127.0.0.1 \
        --private-key="$PWD/server-privkey.pem" \
        --certificate="$PWD/server-cert.pem" --ca-cert="$PWD/ca-cacert.pem"
    track_pid "$(cat ours$threads.pid)"
    tls="--private-key=client-privkey.pem --certificate=client-cert.pem"
    # The listener may come up after the unix socket: wait for it.
    probe() {
        "$driver" $tls --ca-cert=ca-cacert.pem --probe \
            "ssl:127.0.0.1:$port" 2>probe.err
    }
    wait_until 10 "a TLS probe: $(cat probe.err 2>/dev/null)" probe
    "$driver" $tls --ca-cert=ca-cacert.pem --scale=0.01 --workers=4 \
        "ssl:127.0.0.1:$port" update1 queue >seed$threads.jsonl \
        || { cat seed$threads.jsonl; fail "seed workloads over ssl"; }
    cat seed$threads.jsonl
    expect_eq "$(grep -c '"ok":true' seed$threads.jsonl)" 2 \
        "seed workloads passed over ssl"
    "$driver" $tls --ca-cert=ca-cacert.pem --clients=40 --rows=800 \
        "ssl:127.0.0.1:$port" ovn >ovn$threads.jsonl \
        || { cat ovn$threads.jsonl; fail "OVN workloads over ssl"; }
    cat ovn$threads.jsonl
    expect_eq "$(grep -c '"ok":true' ovn$threads.jsonl)" 3 \
        "OVN workloads passed over ssl"
    grep -q '"order_violations":0' ovn$threads.jsonl \
        || fail "ovn-churn: replies before their updates"

    # A driver that trusts another CA refuses our server's certificate.
    if "$driver" $tls --ca-cert=other-cacert.pem --scale=0.01 \
           "ssl:127.0.0.1:$port" update1 >wrong.jsonl 2>wrong.err; then
        fail "a driver trusting another CA connected"
    fi
    grep -q "certificate verify failed" wrong.err \
        || { cat wrong.err; fail "no certificate error from the driver"; }
    kill -0 "$(cat ours$threads.pid)" || fail "the server died"
    stop_server ours$threads
done
