# tests/server/metrics.sh: --metrics serves Prometheus metrics over HTTP:
# the exposition format (promtool, if installed), the transaction counter
# moving with transactions, 404/405/400, metrics/set-remote and
# metrics/show-remote, slow and idle scrapers that hurt no one, the
# connection limit, and, if Prometheus is installed, a real Prometheus
# scraping a standalone server and a one-member cluster.
. "$OVSDB_SRCDIR/tests/server/lib.sh"

M="python3 $OVSDB_SRCDIR/tests/server/metrics.py"
ctl() { _name=$1; shift; ovs-appctl -t "$PWD/$_name.ctl" "$@"; }

# scrapes PORT: true once /metrics on PORT answers 200.
scrapes() { $M get "$1" /metrics >/dev/null 2>&1; }

# committed PORT: the Example database's committed transactions.
committed() {
    $M value "$1" ovsdb_transactions_total 'db="Example",result="committed"' \
        || fail "no ovsdb_transactions_total for Example on port $1"
}

# insert NAME: inserts a Host named NAME through the standalone server.
insert() {
    ovsdb-client transact "unix:$PWD/ours.sock" "[\"Example\",
        {\"op\":\"insert\",\"table\":\"Host\",
         \"row\":{\"name\":\"$1\"}}]" >/dev/null || fail "transaction $1"
}

port=$(free_port)
start_server ours ovsdb-server ovsdb-tool --metrics=ptcp:$port:127.0.0.1
wait_until 10 "metrics endpoint on port $port" scrapes $port
expect_eq "$(ctl ours metrics/show-remote)" "ptcp:$port:127.0.0.1" \
    "metrics/show-remote"

# The exposition, and the counter moving.
$M get $port /metrics >scrape1.out
expect_eq "$(sed -n 1p scrape1.out)" 200 "GET /metrics status"
expect_eq "$(sed -n 2p scrape1.out)" \
    "text/plain; version=0.0.4; charset=utf-8" "Content-Type"
for name in ovsdb_build_info ovsdb_start_time_seconds \
    ovsdb_loop_pass_duration_seconds_bucket ovsdb_sessions \
    ovsdb_monitors ovsdb_received_bytes_total ovsdb_sent_bytes_total \
    ovsdb_output_backlog_bytes ovsdb_updates_coalesced_total \
    ovsdb_process_resident_memory_bytes ovsdb_allocator_allocated_bytes \
    ovsdb_allocator_fragmentation_ratio ovsdb_transactions_total \
    ovsdb_commit_batch_duration_seconds_count ovsdb_database_rows \
    ovsdb_database_file_size_bytes ovsdb_database_txn_history; do
    grep -q "^$name[{ ]" scrape1.out || fail "no $name in the scrape"
done
before=$(committed $port)
for i in 1 2 3; do insert host$i; done
after=$(committed $port)
expect_eq "$after" $((before + 3)) "committed transactions after 3 inserts"
rows=$($M value $port ovsdb_database_rows 'db="Example"')
expect_eq "$rows" 3 "ovsdb_database_rows"
batches=$($M value $port ovsdb_commit_batch_duration_seconds_count \
    'db="Example"')
[ "$batches" -ge 3 ] || fail "commit batches: $batches, expected >= 3"
# Atoms are kept by commits, not counted per scrape: the sum over the
# databases must match memory/show, which counts them row by row.
atoms=$(($($M value $port ovsdb_database_atoms 'db="Example"') \
    + $($M value $port ovsdb_database_atoms 'db="_Server"')))
shown=$(ctl ours memory/show | sed -n 's/^atoms:\([0-9]*\) .*/\1/p')
expect_eq "$atoms" "$shown" "ovsdb_database_atoms summed, as memory/show"
received=$($M value $port ovsdb_received_bytes_total 'transport="unix"')
[ "$received" -gt 0 ] || fail "received bytes over unix: $received"
sessions=$($M value $port ovsdb_sessions 'transport="unix"')
[ "$sessions" -ge 0 ] || fail "ovsdb_sessions: $sessions"

$M promtool $port || fail "promtool check metrics"

# Errors.
expect_eq "$($M get $port /nope | sed -n 1p)" 404 "GET /nope"
expect_eq "$($M raw $port 'POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n')" \
    "HTTP/1.1 405 Method Not Allowed" "POST /metrics"
expect_eq "$($M raw $port 'garbage\r\n\r\n')" "HTTP/1.1 400 Bad Request" \
    "garbage"
expect_eq "$($M raw $port 'GET /metrics SPDY/3\r\n\r\n')" \
    "HTTP/1.1 400 Bad Request" "not HTTP/1.x"
big=$(python3 -c 'print("X-Pad: " + "a" * 9000)')
expect_eq "$($M raw $port "GET /metrics HTTP/1.1\\r\\n$big\\r\\n\\r\\n")" \
    "HTTP/1.1 400 Bad Request" "a request over 8 KiB"

# Slow, idle and half-sent scrapes hurt no one, and time out.
$M slow $port "$PWD/ours.sock" || fail "slow scrapers"
$M limit $port || fail "connection limit"

# metrics/set-remote: off, then elsewhere.
ctl ours metrics/set-remote "" || fail "metrics/set-remote \"\""
expect_eq "$(ctl ours metrics/show-remote)" "" "show-remote when off"
! scrapes $port || fail "still served after metrics/set-remote \"\""
! ctl ours metrics/set-remote punix:$PWD/m.sock 2>/dev/null \
    || fail "metrics/set-remote accepted punix:"
port2=$(free_port)
ctl ours metrics/set-remote ptcp:$port2:127.0.0.1 \
    || fail "metrics/set-remote ptcp:$port2"
wait_until 10 "metrics on port $port2" scrapes $port2
ctl ours metrics/set-remote ptcp:$port2:127.0.0.1 \
    || fail "metrics/set-remote to the endpoint in use"
scrapes $port2 || fail "no metrics after setting the same endpoint again"

# A one-member cluster: the Raft metrics, labelled by database.
raft_port=$(free_port)
cport=$(free_port)
ovsdb-tool create-cluster clu.db "$SCHEMA" tcp:127.0.0.1:$raft_port \
    || fail "create-cluster"
serve clu ovsdb-server clu.db --metrics=ptcp:$cport:127.0.0.1
leader() {
    [ "$($M value $cport ovsdb_raft_role 'db="Example",role="leader"' \
        2>/dev/null)" = 1 ]
}
wait_until 20 "the cluster member reports itself leader" leader
term=$($M value $cport ovsdb_raft_term 'db="Example"') \
    || fail "no ovsdb_raft_term"
[ "$term" -ge 1 ] || fail "ovsdb_raft_term $term"
for name in ovsdb_raft_commit_index ovsdb_raft_applied_index \
    ovsdb_raft_log_entries ovsdb_raft_leader_changes_total \
    ovsdb_raft_connected; do
    $M value $cport $name 'db="Example"' >/dev/null \
        || fail "no $name for the clustered database"
done
expect_eq "$($M value $cport ovsdb_raft_role \
    'db="Example",role="follower"')" 0 "follower role of the leader"
ovsdb-client transact "unix:$PWD/clu.sock" '["Example",
    {"op":"insert","table":"Host","row":{"name":"c1"}}]' >/dev/null \
    || fail "transaction on the cluster"
n=$($M value $cport ovsdb_raft_commit_duration_seconds_count 'db="Example"')
[ "$n" -ge 1 ] || fail "raft commits timed: $n, expected >= 1"

# A real Prometheus scraping both.
if ! command -v prometheus >/dev/null; then
    echo "prometheus not installed (Debian package prometheus): scrape by" \
        "Prometheus skipped"
    echo ok
    exit 0
fi
pport=$(free_port)
cat >prometheus.yml <<EOF2
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ovsdb
    static_configs:
      - targets: ['127.0.0.1:$port2']
        labels: {server: standalone}
      - targets: ['127.0.0.1:$cport']
        labels: {server: cluster}
EOF2
prometheus --config.file=prometheus.yml --storage.tsdb.path="$PWD/promdata" \
    --web.listen-address=127.0.0.1:$pport >prometheus.log 2>&1 &
SERVER_PIDS="$SERVER_PIDS $!"

before=$(committed $port2)
for i in 4 5; do insert host$i; done
want=$(committed $port2)
expect_eq "$want" $((before + 2)) "committed transactions after 2 more"
# query EXPR: the first value Prometheus returns for EXPR, or nothing.
query() {
    python3 - "$pport" "$1" <<'EOF2'
import json, sys, urllib.parse, urllib.request
url = ("http://127.0.0.1:%s/api/v1/query?query=%s"
       % (sys.argv[1], urllib.parse.quote(sys.argv[2])))
try:
    with urllib.request.urlopen(url, timeout=3) as r:
        res = json.load(r)["data"]["result"]
except Exception:
    sys.exit(0)
if res:
    print(res[0]["value"][1])
EOF2
}
prom_has() { [ "$(query "$1")" = "$2" ]; }
wait_until 60 "Prometheus reads $want committed transactions" prom_has \
    'ovsdb_transactions_total{server="standalone",db="Example",result="committed"}' \
    "$want"
wait_until 60 "Prometheus reads the cluster member's role" prom_has \
    'ovsdb_raft_role{server="cluster",db="Example",role="leader"}' 1
echo "prometheus: read $want committed transactions and the leader role"
echo ok
