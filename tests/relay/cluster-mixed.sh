#!/bin/sh
# tests/relay/cluster-mixed.sh: cluster-ours.sh on a mixed cluster: s1 and
# s3 ours, s2 the reference's (joined by its own tool).
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
command -v python3 >/dev/null || skip "no python3 for the test clients"
trap 'kill_servers' EXIT
relay_on_cluster ours ref ours
