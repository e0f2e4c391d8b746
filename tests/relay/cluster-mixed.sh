#!/bin/sh
# tests/relay/cluster-mixed.sh: our relay in front of a 3-member mixed
# cluster (s1 and s3 ours, s2 the reference's, joined by its own tool);
# the leader is killed (SIGKILL) under load through the relay, which
# follows the cluster to another member, as in cluster-ours.sh.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
command -v python3 >/dev/null || skip "no python3 for the test clients"
trap 'kill_servers' EXIT

set -- "$(free_port)" "$(free_port)" "$(free_port)"
ovsdb-tool create-cluster s1.db "$SCHEMA" "tcp:127.0.0.1:$1"
"$REF_OVSDB_TOOL" join-cluster s2.db Example "tcp:127.0.0.1:$2" \
    "tcp:127.0.0.1:$1"
ovsdb-tool join-cluster s3.db Example "tcp:127.0.0.1:$3" "tcp:127.0.0.1:$1"
members= remotes=
for i in 1 2 3; do
    if [ $i = 2 ]; then
        serve s$i "$REF_OVSDB_SERVER" s$i.db
    else
        serve s$i ovsdb-server s$i.db
    fi
    members="$members unix:$PWD/s$i.sock=$PWD/s$i.pid"
    remotes="$remotes${remotes:+,}unix:$PWD/s$i.sock"
done

serve relay ovsdb-server "relay:Example:$remotes"
run_relay_check cluster "unix:$PWD/relay.sock" $members
