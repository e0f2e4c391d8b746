#!/bin/sh
# tests/relay/load-ours.sh: the "load" scenario of relay.py, our relay in
# front of our server.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
start_upstream ours
# The relay reaches the upstream through relay.py's proxy, which cuts the
# connection to make it reconnect.
start_relay "$PWD/proxy.sock"
run_relay_check load "unix:$PWD/up.sock" "unix:$PWD/relay.sock" \
    "$PWD/proxy.sock"
