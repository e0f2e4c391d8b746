# tests/workloads/cluster.sh: the "cluster" part of the benchmark
# (clusterbench.py) at a tiny size, for correctness only (no timing
# assertion): a 3-member cluster of our servers takes the write runs on
# its leader and on a follower, elects a new leader after kill -9 of the
# old one, and a fourth member catches up on 2,000 rows with the same
# Item rows as the leader; then the same through bench (its table), and
# on a cluster of the reference's when it is installed.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"

command -v python3 >/dev/null || skip "python3 not installed"
cbench=$OVSDB_SRCDIR/tests/workloads/clusterbench.py
server=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
tool=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
driver=$OVSDB_BUILDDIR/tests/workloads/ovsdb-workload
[ -x "$driver" ] || fail "$driver not built"
export TMPDIR=$PWD               # clusterbench.py's temporary directories.

# check_result FILE NAME: FILE holds one clusterbench.py record that passed.
check_result() {
    cat "$1"
    python3 - "$1" <<'PY' || fail "$2: bad cluster record"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is True, r.get("error")
assert r["rows"] == 2000, r
for where in ("leader", "follower"):
    for w in ("insert", "update1"):
        k = "%s_%s_" % (where, w)
        assert r[k + "txns"] == 150, r
        assert r[k + "p99_ms"] >= r[k + "p50_ms"] > 0, r
        assert r[k + "tps"] > 0 and r[k + "leader_peak_rss_mb"] > 0, r
assert r["elect_s"] > 0 and r["catchup_s"] > 0, r
PY
}

run() {
    python3 "$cbench" --rows 2000 --scale 0.002 --workers 3 --server "$1" \
        --tool "$2" --driver "$driver" >"$3.json" || fail "$3: $(cat "$3.json")"
    check_result "$3.json" "$3"
}
run "$server" "$tool" ours
ls | grep -q ovsdb-cluster && fail "temporary directories left behind"

# bench's "cluster" part (its results and table), on our build as --server
# with the allocator it runs on (bench checks it in the running server).
alloc=$(build_allocator)
[ -n "$alloc" ] || fail "ovsdb-server --version names no allocator"
python3 "$OVSDB_SRCDIR/tests/workloads/bench" --server "$server" \
    --name ours --workloads cluster --cluster-rows 2000 \
    --cluster-scale 0.002 --workers 3 --driver "$driver" \
    --allocators "$alloc" --out bench >bench.out 2>&1 \
    || { cat bench.out; fail "bench cluster failed"; }
cat bench.out
grep -q '^| 2000 rows | [a-z]* ours |$' bench.out || fail "no cluster table"
grep -q '^| Election: kill -9 of the leader to a write answered (s) | [0-9.]* |$' \
    bench.out || fail "no election time in the table"
grep -q '"workload": "cluster"' bench/results.jsonl || fail "no cluster record"

if has_reference; then
    run "$REF_OVSDB_SERVER" "$REF_OVSDB_TOOL" reference
else
    echo "reference part skipped: the reference ovsdb-server is not installed"
fi
