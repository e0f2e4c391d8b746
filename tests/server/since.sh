#!/bin/sh
# tests/server/since.sh: the "since" scenario of scenarios.py, against our server
# and, when installed, the reference (transcripts must match).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_both
run_scenario since
