#!/bin/sh
# tests/relay/cluster-ours.sh: our relay in front of a 3-member cluster of
# our servers (ovsdb/raft.c); the leader is killed (SIGKILL) under load
# through the relay, which follows the cluster to another member; every
# acknowledged insert is in the cluster exactly once and the relay ends
# equal to it.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
command -v python3 >/dev/null || skip "no python3 for the test clients"
trap 'kill_servers' EXIT

set -- "$(free_port)" "$(free_port)" "$(free_port)"
ovsdb-tool create-cluster s1.db "$SCHEMA" "tcp:127.0.0.1:$1"
ovsdb-tool join-cluster s2.db Example "tcp:127.0.0.1:$2" "tcp:127.0.0.1:$1"
ovsdb-tool join-cluster s3.db Example "tcp:127.0.0.1:$3" "tcp:127.0.0.1:$1"
members= remotes=
for i in 1 2 3; do
    serve s$i ovsdb-server s$i.db
    members="$members unix:$PWD/s$i.sock=$PWD/s$i.pid"
    remotes="$remotes${remotes:+,}unix:$PWD/s$i.sock"
done

serve relay ovsdb-server "relay:Example:$remotes"
run_relay_check cluster "unix:$PWD/relay.sock" $members
