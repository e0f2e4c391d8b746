#!/bin/sh
# tests/relay/basic-ref.sh: the "basic" scenario of relay.py, our relay in
# front of the reference server.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
start_upstream ref
start_relay "$PWD/up.sock"
run_relay_check basic "unix:$PWD/up.sock" "unix:$PWD/relay.sock"
