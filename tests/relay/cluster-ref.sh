#!/bin/sh
# tests/relay/cluster-ref.sh: our relay in front of a 3-member cluster of
# reference servers; the leader is killed (SIGKILL) under load.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
has_reference || skip "reference ovsdb-server not installed"

ports=$(python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
set -- $ports
"$REF_OVSDB_TOOL" create-cluster s1.db "$SCHEMA" "tcp:127.0.0.1:$1"
"$REF_OVSDB_TOOL" join-cluster s2.db Example "tcp:127.0.0.1:$2" \
    "tcp:127.0.0.1:$1"
"$REF_OVSDB_TOOL" join-cluster s3.db Example "tcp:127.0.0.1:$3" \
    "tcp:127.0.0.1:$1"
members= remotes=
for i in 1 2 3; do
    "$REF_OVSDB_SERVER" s$i.db --remote="punix:$PWD/s$i.sock" \
        --unixctl="$PWD/s$i.ctl" --log-file="$PWD/s$i.log" \
        2>>s$i.stderr &
    SERVER_PIDS="$SERVER_PIDS $!"
    echo $! >s$i.pid
    members="$members unix:$PWD/s$i.sock=$PWD/s$i.pid"
    remotes="$remotes${remotes:+,}unix:$PWD/s$i.sock"
done

rm -f relay.sock
ovsdb-server "relay:Example:$remotes" --remote="punix:$PWD/relay.sock" \
    --unixctl="$PWD/relay.ctl" --log-file="$PWD/relay.log" 2>>relay.stderr &
SERVER_PIDS="$SERVER_PIDS $!"
run_relay_check cluster "unix:$PWD/relay.sock" $members
