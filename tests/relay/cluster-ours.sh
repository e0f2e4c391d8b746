#!/bin/sh
# tests/relay/cluster-ours.sh: our relay in front of a 3-member cluster of
# our servers (ovsdb/raft/raft.c); the leader is killed (SIGKILL) under load
# through the relay, which follows the cluster to another member; every
# acknowledged insert is in the cluster exactly once, and the relay, and a
# client that monitored it all along, end equal to the cluster.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
command -v python3 >/dev/null || skip "no python3 for the test clients"
trap 'kill_servers' EXIT
relay_on_cluster ours ours ours
