#!/bin/sh
# tests/relay/basic-ours.sh: the "basic" scenario of relay.py, our relay in
# front of our server.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
start_upstream ours
start_relay "$PWD/up.sock"
run_relay_check basic "unix:$PWD/up.sock" "unix:$PWD/relay.sock"
