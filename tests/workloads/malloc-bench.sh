# tests/workloads/malloc-bench.sh: the raw allocator micro-benchmark at a
# tiny count, for correctness only (no timing assertions): every variant
# runs, checks its blocks and reports the allocator this build links.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"

bench=$OVSDB_BUILDDIR/tests/workloads/malloc-bench
[ -x "$bench" ] || fail "$bench not built"
name=$(ovsdb-server --version | sed -n 's/^allocator: //p')

"$bench" --count=2000 --live=300 all >out.jsonl || fail "malloc-bench failed"
cat out.jsonl
python3 - "$name" out.jsonl <<'PYEOF' || fail "malloc-bench output"
import json, sys
name, path = sys.argv[1], sys.argv[2]
rows = [json.loads(line) for line in open(path)]
assert [r["variant"] for r in rows] == ["large", "small", "mixed"], rows
for r in rows:
    assert r["ok"] is True and r["count"] == 2000, r
    assert r["allocator"] == name, (r["allocator"], name)
    assert r["seconds"] >= 0 and r["peak_rss_mb"] > 0, r
    for k in ("ns_per_op", "user_s", "sys_s", "minor_faults",
              "final_rss_mb"):
        assert k in r, (k, r)
mixed = rows[2]
assert mixed["live_mb"] > 0 and mixed["fragmentation"] > 0, mixed
PYEOF

# One variant alone, --seed, and the errors.
"$bench" --count=10 --seed=7 small | grep -q '"variant":"small"' \
    || fail "single variant"
"$bench" --help | grep -q "usage:" || fail "--help"
! "$bench" --count=10 nosuch 2>err.out || fail "unknown variant accepted"
grep -q 'unknown variant' err.out || fail "unknown variant message"
! "$bench" --count=-1 large 2>/dev/null || fail "negative count accepted"
echo ok
