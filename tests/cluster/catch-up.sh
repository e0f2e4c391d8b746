#!/bin/sh
# tests/cluster/catch-up.sh: a member with many committed entries to apply
# applies them a slice per pass of its loop (ovsdb/storage/storage.c), so that it
# keeps answering its clients meanwhile.  Two of our servers on
# tcp:127.0.0.1:
#   1. s1, a cluster of one, commits $ENTRIES one-row transactions (one
#      entry each);
#   2. s2 joins (s1 is stopped until the probe below runs on s2): it
#      receives the log while joining, and once it is a member it has
#      every entry to apply.  Meanwhile a probe client on s2
#      sends an echo, then a select on _Server.Database, every 50 ms, and
#      ovs-appctl asks s2 for cluster/status again and again.  At least one
#      of those status reports must show s2 as a member with entries not
#      yet applied (a server that applies everything in one pass can never
#      answer in between), the probe's longest wait for an answer must stay
#      under a generous $BOUND_MSEC, and s2 must end with every row.
# For measurements, CATCH_UP_ENTRIES changes the number of entries and
# CATCH_UP_ROWS the rows each inserts (default 1).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
probe=
trap 'kill_servers; [ -n "$probe" ] && kill $probe 2>/dev/null; true' EXIT
ENTRIES=${CATCH_UP_ENTRIES:-30000}
ROWS=${CATCH_UP_ROWS:-1}
BOUND_MSEC=5000

# 1. A cluster of one with $ENTRIES committed entries.
create_first s1 "$OUR_TOOL"
start_member s1 "$OUR_SERVER"
wait_until 30 "s1 never became leader" has_role s1 leader
# (20 clients, each with several transactions in flight: a member takes
# one request per client in a pass of its loop.)
$PYTHON - "$PWD/s1.sock" "$ENTRIES" "$ROWS" <<'PY' \
    || fail "loading $ENTRIES entries"
import sys, threading, rpc
sock, n, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
failed = []
window = 50 if rows < 10 else 2
def load(first, step):
    try:
        load__(first, step)
    except Exception as e:
        failed.append(e)
def load__(first, step):
    c = rpc.Client("unix:" + sock, timeout=600)
    todo = list(range(first, n, step))
    sent = done = 0
    while done < len(todo):
        while sent < len(todo) and sent - done < window:
            i = todo[sent]
            c.send({"id": i, "method": "transact", "params": ["Store"] + [{
                "op": "insert", "table": "Root",
                "row": {"name": "row-%06d-%d" % (i, k), "n": i}}
                for k in range(rows)]})
            sent += 1
        r = c.recv()
        if (r.get("error") is not None
                or any("error" in x for x in r["result"])):
            failed.append(r)
            return
        done += 1
threads = [threading.Thread(target=load, args=(k, 20)) for k in range(20)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if failed:
    raise SystemExit("a transaction failed: %s" % failed[0])
PY
wait_until 60 "s1 did not settle" settled s1

# 2. s2 joins, under the probe and the status requests.  s1 is stopped
# meanwhile, so that s2 cannot join before the probe runs; it joins once
# s1 is back.
stop_server s1
create_joiner s2 "$OUR_TOOL" s1
start_member s2 "$OUR_SERVER"
cat > probe.py <<'PY'
import os, sys, time, rpc
c = rpc.Client("unix:" + sys.argv[1], timeout=120)
# Change-aware, as a client that stays connected must be: the server drops
# unaware clients when the joining database gets its schema.
if c.call("set_db_change_aware", [True]).get("error") is not None:
    raise SystemExit("probe: set_db_change_aware failed")
worst, n, last = 0.0, 0, time.monotonic()
while not os.path.exists("stop"):
    if n % 2:
        r = c.call("transact", ["_Server", {"op": "select",
                                            "table": "Database",
                                            "where": []}])
    else:
        r = c.call("echo", ["probe"])
    if r.get("error") is not None:
        raise SystemExit("probe: %s" % r)
    now = time.monotonic()
    if n and now - last > worst:
        worst = now - last
        sys.stderr.write("probe: waited %d ms until %s\n"
                         % (worst * 1000, time.strftime("%H:%M:%S", time.gmtime())))
    last = now
    n += 1
    if n == 1:
        open("probe.ready", "w").close()
    time.sleep(0.05)
open("probe.max", "w").write("%d %d\n" % (worst * 1000, n))
PY
rm -f stop probe.ready probe.max
$PYTHON probe.py "$PWD/s2.sock" &
probe=$!
wait_until 30 "the probe got no answer" test -e probe.ready
start_member s1 "$OUR_SERVER"

# Status reports until s2 is a member with everything applied.
t0=$(date +%s%N)
seen=0 tries=0
while :; do
    st=$(status s2) || st=
    unapplied=$(echo "$st" | sed -n 's/^Entries not yet applied: //p')
    if echo "$st" | grep -q '^Status: cluster member$'; then
        [ "${unapplied:-0}" -gt 0 ] && seen=$((seen + 1))
        [ "$unapplied" = 0 ] && break
    fi
    tries=$((tries + 1))
    [ $tries -lt 6000 ] || { show_logs s1 s2; fail "s2 did not catch up"; }
done
t1=$(date +%s%N)
touch stop
wait $probe || fail "the probe failed"
probe=
read worst n < probe.max
echo "status reports with s2 a member and entries to apply: $seen"
echo "probe on s2: $n answers, longest wait $worst ms"
echo "s1 restarted to s2 caught up: $(( (t1 - t0) / 1000000 )) ms"
[ $seen -gt 0 ] \
    || fail "s2 never answered while it had committed entries to apply"
[ "$worst" -lt $BOUND_MSEC ] \
    || fail "the probe on s2 waited $worst ms (bound $BOUND_MSEC ms)"
wait_until 60 "s2 did not settle" settled s2
[ "$(names s2 | wc -l)" = $((ENTRIES * ROWS)) ] || fail "s2 lacks rows"
echo PASS
