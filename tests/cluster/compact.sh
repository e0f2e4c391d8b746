#!/bin/sh
# tests/cluster/compact.sh: a member of a 3-member cluster of ours compacts
# its clustered file in a child process (ovsdb/storage/storage.c), not in its main
# loop.  While the leader, then a follower, compacts a large database (the
# child made to last at least CHILD_MSEC by OVSDB_COMPACT_CHILD_DELAY_MSEC),
# clients of every member keep being answered within BOUND_MSEC, far
# below CHILD_MSEC; the transactions committed meanwhile are in the
# compacted file (a restarted member serves them from it); kill -9 of a
# member during its compaction loses nothing; the reference's
# check-cluster accepts the files.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
trap 'kill_servers; [ -n "$probes" ] && kill $probes 2>/dev/null; true' EXIT
CHILD_MSEC=8000
BOUND_MSEC=4000
ROWS=${COMPACT_ROWS:-60000}

# load: inserts $ROWS rows with long names, in transactions of 2000 rows,
# then deletes half of them (so that a snapshot is about half the log), on
# whichever member is leader (a busy machine can make the cluster elect
# another one meanwhile, or a command time out: a transaction that failed
# for that is tried on the next member; one that did commit meanwhile
# fails on the names' index then).
load() {
    python3 - "$PWD" "$ROWS" <<'PY' || fail "loading $ROWS rows"
import sys, time, rpc
socks = ["unix:%s/%s.sock" % (sys.argv[1], n) for n in ("s1", "s2", "s3")]
n = int(sys.argv[2])
def run(ops):
    for attempt in range(60):
        c = rpc.Client(socks[attempt % 3], timeout=120)
        r = c.call("transact", ["Store"] + ops)
        c.close()
        errors = [x for x in r["result"] if x and "error" in x]
        if not errors:
            return r["result"]
        if errors[0]["error"] == "constraint violation":
            # An earlier try committed after all (ours, or the server's
            # own retry after a leader change).
            return None
        if (errors[0]["error"] != "not leader"
                and errors[0].get("details") != "timeout"):
            raise Exception(errors[0])
        time.sleep(0.2)
    raise Exception("no leader took the transaction")
for base in range(0, n, 2000):
    run([{"op": "insert", "table": "Root",
          "row": {"name": "big-%06d-%s" % (i, "x" * 60), "n": i,
                  "tags": ["set", ["a%d" % i, "b%d" % i]]}}
         for i in range(base, min(n, base + 2000))])
run([{"op": "delete", "table": "Root", "where": [["n", ">=", n // 2]]}])
PY
}

# probe TAG SOCK: inserts rows "TAG-<i>" one at a time on SOCK until the
# file "stop" exists, appending each acknowledged name to TAG.acked, and
# "SLOWEST-MS N-ROUND-TRIPS" to TAG.max at the end (and TAG.ready after
# the first).  Its transactions may fail (a follower's that raced another
# member's), only the acknowledged ones count.
cat > probe.py <<'PY'
import sys, os, time, rpc
tag, sock = sys.argv[1], sys.argv[2]
c = rpc.Client("unix:" + sock, timeout=120)
worst, i = 0.0, 0
with open(tag + ".acked", "a") as acked:
    while not os.path.exists("stop"):
        i += 1
        t0 = time.monotonic()
        try:
            r = c.call("transact", ["Store", {
                "op": "insert", "table": "Root",
                "row": {"name": "%s-%d" % (tag, i)}}])
        except (OSError, rpc.Closed):
            break               # Its server was killed (step 4).
        worst = max(worst, time.monotonic() - t0)
        if i == 1:
            open(tag + ".ready", "w").close()
        res = r.get("result")
        if r.get("error") is None and not any("error" in x for x in res):
            acked.write("%s-%d\n" % (tag, i))
            acked.flush()
        time.sleep(0.02)
open(tag + ".max", "w").write("%d %d\n" % (worst * 1000, i))
PY
probes=
probe() {
    rm -f "$1.acked" "$1.max" "$1.ready"
    python3 probe.py "$1" "$2" &
    probes="$probes $!"
    wait_until 60 "probe $1 made no transaction" test -e "$1.ready"
}
start_probes() {
    rm -f stop
    probes=
    for _sp in s1 s2 s3; do probe "p$1-$_sp" "$PWD/$_sp.sock"; done
}
# stop_probes: stops them and checks their slowest round trip.
stop_probes() {
    touch stop
    for p in $probes; do wait $p || fail "a probe failed"; done
    probes=
    for _f in p*.max; do
        read _max _n < "$_f"
        echo "slowest of the $_n round trips of ${_f%.max}: $_max ms"
        [ "$_n" -ge 5 ] || fail "${_f%.max} made only $_n transactions"
        [ "$_max" -lt $BOUND_MSEC ] \
            || fail "${_f%.max} waited $_max ms (bound $BOUND_MSEC ms)"
        mv "$_f" "$_f.done"
    done
    cat p*.acked >> expected
    rm -f p*.acked
}
# compactions NAME: how many compactions member NAME has finished.
compactions() { grep -c 'compacted to [0-9]* bytes' "$1.log" || true; }
# children NAME: how many compaction children member NAME has started.
children() { grep -c "compacting in child process" "$1.log" || true; }
# compact NAME: starts a compaction on member NAME and waits until its
# child runs.
compact() {
    _before=$(children "$1")
    appctl "$1" ovsdb-server/compact >/dev/null || fail "compact $1"
    _started() { [ "$(children "$1")" -gt "$_before" ]; }
    wait_until 30 "$1 did not start compacting" _started "$1"
}

# 1. Three members; a large database.
OVSDB_COMPACT_CHILD_DELAY_MSEC=$CHILD_MSEC
export OVSDB_COMPACT_CHILD_DELAY_MSEC
three_of_ours
load
leader=$(wait_leader 30 s1 s2 s3)
: > expected
for n in s1 s2 s3; do
    wait_until 60 "$n did not settle" settled $n
done

# 2. The leader, then a follower, compacts under probes on every member.
follower=
for n in s1 s2 s3; do
    [ $n = "$leader" ] || { follower=$n; break; }
done
for n in "$leader" "$follower"; do
    before=$(compactions $n)
    size_before=$(stat -c %s $n.db)
    start_probes $n
    compact $n
    _done() { [ "$(compactions $1)" -gt "$2" ]; }
    wait_until 120 "$n did not finish compacting" _done $n "$before"
    stop_probes
    grep 'compaction failed' $n.log && fail "$n: a compaction failed"
    echo "$n: $size_before bytes before, $(stat -c %s $n.db) after"
    [ "$(stat -c %s $n.db)" -lt "$size_before" ] || fail "$n did not shrink"
done
for n in s1 s2 s3; do
    wait_until 60 "$n lost rows committed during a compaction" \
        has_names $n expected
done

# 3. The compacted members restarted serve every row from their files.
for n in "$leader" "$follower"; do
    kill_server $n
    start_member $n "$OUR_SERVER"
    wait_until 60 "$n did not rejoin" is_member $n
    wait_until 60 "$n lost rows after its restart" has_names $n expected
done

# 4. kill -9 of a member while it compacts under probes: nothing is lost.
leader=$(wait_leader 30 s1 s2 s3)
victim=
for n in s1 s2 s3; do
    [ $n = "$leader" ] || victim=$n
done
start_probes k
compact $victim
kill_server $victim
stop_probes_on() {
    touch stop
    for p in $probes; do wait $p 2>/dev/null || true; done
    probes=
    rm -f p*.max
    cat p*.acked >> expected
    rm -f p*.acked
}
stop_probes_on
unset OVSDB_COMPACT_CHILD_DELAY_MSEC
# The child goes with its parent (it held the parent's lock on the file).
start_member $victim "$OUR_SERVER"
wait_until 60 "$victim did not rejoin" is_member $victim
for n in s1 s2 s3; do
    wait_until 60 "$n lost acknowledged rows" has_names $n expected
done
before=$(compactions $victim)
appctl $victim ovsdb-server/compact >/dev/null || fail "compact $victim"
_done() { [ "$(compactions $1)" -gt "$2" ]; }
wait_until 120 "$victim did not compact after its restart" _done $victim "$before"
kill_server $victim
start_member $victim "$OUR_SERVER"
wait_until 60 "$victim did not rejoin" is_member $victim
wait_until 60 "$victim lost rows" has_names $victim expected
for n in s1 s2 s3; do
    wait_until 60 "$n did not settle" settled $n
done
kill_servers
SERVER_PIDS=

# 5. The reference reads the files.
if has_reference; then
    "$REF_OVSDB_TOOL" check-cluster s1.db s2.db s3.db \
        || fail "reference check-cluster rejects the compacted files"
    for n in s1 s2 s3; do
        "$REF_OVSDB_TOOL" cluster-to-standalone $n.standalone $n.db \
            || fail "reference cluster-to-standalone $n"
    done
else
    echo "reference checks skipped: reference ovsdb-tool not installed"
fi
echo PASS
