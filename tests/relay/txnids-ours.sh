#!/bin/sh
# tests/relay/txnids-ours.sh: the "txnids" scenario of relay.py, two of our
# relays in front of our server: transaction ids pass through the relays
# unchanged, so a client resumes on another relay where it left off.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
start_upstream ours
start_relay "$PWD/up.sock"
serve relay2 ovsdb-server "relay:Example:unix:$PWD/up.sock"
run_relay_check txnids "unix:$PWD/up.sock" "unix:$PWD/relay.sock" \
    "unix:$PWD/relay2.sock"
