#!/bin/sh
# tests/relay/cluster-ref.sh: our relay in front of a 3-member cluster of
# reference servers; the leader is killed (SIGKILL) under load.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
has_reference || skip "reference ovsdb-server not installed"

set -- "$(free_port)" "$(free_port)" "$(free_port)"
"$REF_OVSDB_TOOL" create-cluster s1.db "$SCHEMA" "tcp:127.0.0.1:$1"
"$REF_OVSDB_TOOL" join-cluster s2.db Example "tcp:127.0.0.1:$2" \
    "tcp:127.0.0.1:$1"
"$REF_OVSDB_TOOL" join-cluster s3.db Example "tcp:127.0.0.1:$3" \
    "tcp:127.0.0.1:$1"
members= remotes=
for i in 1 2 3; do
    serve s$i "$REF_OVSDB_SERVER" s$i.db
    members="$members unix:$PWD/s$i.sock=$PWD/s$i.pid"
    remotes="$remotes${remotes:+,}unix:$PWD/s$i.sock"
done

serve relay ovsdb-server "relay:Example:$remotes"
run_relay_check cluster "unix:$PWD/relay.sock" $members
