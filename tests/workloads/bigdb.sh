# tests/workloads/bigdb.sh: the "bigdb" part of the benchmark at a small
# size, for correctness only (no timing assertions): a file of 3,000 Item
# rows written by our server is opened, compacted by ovsdb-tool and
# compacted online under one-row updates, checking every row after open
# and offline compaction and the last row after online compaction; then
# the same through bench (its tables), and against the reference when it
# is installed (which must read our file).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"

command -v python3 >/dev/null || skip "python3 not installed"
bigdb=$OVSDB_SRCDIR/tests/workloads/bigdb.py
server=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
tool=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
export TMPDIR=$PWD               # bigdb.py's temporary directories.

# check_result FILE NAME: FILE holds one bigdb.py record that passed.
check_result() {
    cat "$1"
    python3 - "$1" "$2" <<'PY' || fail "$2: bad bigdb record"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is True, r.get("error")
assert r["rows"] == 3000 and r["atoms"] == 15000, r
assert r["open_s"] > 0 and r["open_peak_rss_mb"] > 0, r
assert r["compact_s"] > 0 and r["compact_peak_rss_mb"] > 0, r
assert r["online_compact_s"] > 0 and r["online_records_before"] >= 2, r
assert r["online_updates_base"] > 0, r
assert r["lat_base_max_ms"] >= r["lat_base_p50_ms"] > 0, r
if r["online_updates_during"]:
    assert r["lat_during_max_ms"] >= r["lat_during_p50_ms"] > 0, r
PY
}

python3 "$bigdb" --rows 3000 --server "$server" --tool "$tool" \
    --full-check --clients 2 --baseline 0.3 >ours.json \
    || fail "ours: $(cat ours.json)"
check_result ours.json ours
ls | grep -q ovsdb-bigdb && fail "temporary directories left behind"

# bench's "bigdb" part (its results and tables), on our build as --server
# with the allocator it runs on (bench checks it in the running server).
alloc=$(build_allocator)
[ -n "$alloc" ] || fail "ovsdb-server --version names no allocator"
python3 "$OVSDB_SRCDIR/tests/workloads/bench" --server "$server" \
    --name ours --workloads bigdb --bigdb-scale 0.006 --bigdb-clients 2 \
    --bigdb-baseline 0.3 --allocators "$alloc" --out bench \
    >bench.out 2>&1 || { cat bench.out; fail "bench bigdb failed"; }
cat bench.out
grep -q '^| 3000 rows | [a-z]* ours |$' bench.out || fail "no bigdb table"
grep -q '^| ovsdb-tool compact: seconds | [0-9.]* |$' bench.out \
    || fail "no compaction time in the table"
grep -q '"workload": "bigdb"' bench/results.jsonl || fail "no bigdb record"

if has_reference; then
    # The reference opens and compacts the file our server wrote.
    python3 "$bigdb" --rows 3000 --server "$REF_OVSDB_SERVER" \
        --tool "$REF_OVSDB_TOOL" --make-server "$server" --make-tool "$tool" \
        --full-check --clients 2 --baseline 0.3 >ref.json \
        || fail "reference: $(cat ref.json)"
    check_result ref.json reference
fi
