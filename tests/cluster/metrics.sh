#!/bin/sh
# tests/cluster/metrics.sh: the Raft metrics of a cluster of three of our
# servers, each serving metrics (metrics/set-remote): every member reports
# its role and term with the db label, the roles add up to one leader and
# two followers, and the leader sees both peers connected with their match
# index.  (tests/server/metrics.sh checks the rest, and Prometheus.)
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
M="python3 $OVSDB_SRCDIR/tests/server/metrics.py"

three_of_ours
for n in s1 s2 s3; do
    port=$(free_port)
    eval "PORT_$n=$port"
    appctl $n metrics/set-remote ptcp:$port:127.0.0.1 \
        || fail "metrics/set-remote on $n"
done
port_of() { eval "echo \$PORT_$1"; }
# value NAME METRIC LABELS: member NAME's sample, or nothing.
value() { $M value "$(port_of "$1")" "$2" "$3" 2>/dev/null || true; }
role_is() {
    [ "$(value "$1" ovsdb_raft_role "db=\"$DB\",role=\"$2\"")" = 1 ]
}
# n_with_role ROLE: how many members report ROLE.
n_with_role() {
    _n=0
    for _m in s1 s2 s3; do
        role_is $_m "$1" && _n=$((_n + 1))
    done
    echo $_n
}
roles_settled() {
    [ "$(n_with_role leader)" = 1 ] && [ "$(n_with_role follower)" = 2 ]
}
wait_until 60 "one leader and two followers in the metrics" roles_settled

leader=
for n in s1 s2 s3; do
    role_is $n leader && leader=$n
    term=$(value $n ovsdb_raft_term "db=\"$DB\"")
    [ -n "$term" ] && [ "$term" -ge 1 ] || fail "$n: ovsdb_raft_term '$term'"
    changes=$(value $n ovsdb_raft_leader_changes_total "db=\"$DB\"")
    [ -n "$changes" ] && [ "$changes" -ge 1 ] \
        || fail "$n: ovsdb_raft_leader_changes_total '$changes'"
done
echo "leader by the metrics: $leader"

# peers_ok: the leader has both peers connected, each with a match index.
peers_ok() {
    $M get "$(port_of "$leader")" /metrics >leader.scrape || return 1
    [ "$(grep -c "^ovsdb_raft_peer_connected{db=\"$DB\",.*} 1\$" \
        leader.scrape)" = 2 ] || return 1
    [ "$(grep -Ec "^ovsdb_raft_peer_match_index\{db=\"$DB\",.*\} [1-9]" \
        leader.scrape)" = 2 ]
}
wait_until 30 "the leader's peer metrics" peers_ok
for n in s1 s2 s3; do
    [ $n = "$leader" ] && continue
    grep -q "address=\"$(addr $n)\"" leader.scrape \
        || fail "no peer metrics for $n ($(addr $n))"
done
$M promtool "$(port_of "$leader")" || fail "promtool check metrics"
echo ok
