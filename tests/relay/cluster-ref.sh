#!/bin/sh
# tests/relay/cluster-ref.sh: our relay in front of a 3-member cluster of
# reference servers; the leader is killed (SIGKILL) under load.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
trap 'kill_servers' EXIT
relay_on_cluster ref ref ref
