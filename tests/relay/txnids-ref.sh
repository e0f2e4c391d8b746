#!/bin/sh
# tests/relay/txnids-ref.sh: the "txnids" scenario of relay.py, two of our
# relays in front of the reference server (skipped without it).  The
# reference keeps transaction history, and so real ids, only for clustered
# databases: its database here is a one-member cluster.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
port=$(free_port)
"$REF_OVSDB_TOOL" create-cluster up.db "$SCHEMA" "tcp:127.0.0.1:$port" \
    || fail "reference create-cluster"
serve up "$REF_OVSDB_SERVER" up.db
start_relay "$PWD/up.sock"
serve relay2 ovsdb-server "relay:Example:unix:$PWD/up.sock"
run_relay_check txnids "unix:$PWD/up.sock" "unix:$PWD/relay.sock" \
    "unix:$PWD/relay2.sock"
