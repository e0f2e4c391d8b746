#!/bin/sh
# tests/server/convert.sh: online schema conversion ("convert"), against
# our server and, when installed, the reference.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_both
run_scenario convert
