#!/bin/sh
# tests/server/includes.sh: the "includes" scenario of scenarios.py
# (monitor conditions [column, "includes", element], which our server
# indexes), against our server and, when installed, the reference
# (transcripts must match).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_both
run_scenario includes
