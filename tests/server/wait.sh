#!/bin/sh
# tests/server/wait.sh: the "wait" scenario of scenarios.py, against our server
# and, when installed, the reference (transcripts must match).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_both
run_scenario wait
