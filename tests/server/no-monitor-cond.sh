#!/bin/sh
# tests/server/no-monitor-cond.sh: the "no_monitor_cond" scenario of
# scenarios.py (ovsdb-server/disable-monitor-cond), against our server and,
# when installed, the reference (transcripts must match).
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_both
run_scenario no_monitor_cond
