# tests/cluster/torn.sh: a clustered file with a torn tail (cut at several
# points) or a corrupt record (one flipped byte) reads the same in both
# tools (show-log, check-cluster, cluster-to-standalone: same output and
# status), our cluster-file keeps the records before the bad one and
# reports it, and the next write (the reference server's commit, or our
# compaction) truncates the bad tail so that both tools read the whole
# file again.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/lib.sh"
need_ref_server

"$TOOL" create-cluster good.db "$SCHEMA" unix:$PWD/raft.sock 2>/dev/null
serve_ref good.db
for i in 1 2 3; do
    via_client transact db.sock "[\"Store\",{\"op\":\"insert\",
        \"table\":\"Root\",\"row\":{\"name\":\"r$i\",\"n\":$i}}]" > txn.out
    grep -q uuid txn.out || fail "insert r$i: $(cat txn.out)"
done
stop_ref
size=$(wc -c < good.db)
last=$(tail -n 2 good.db | wc -c)     # The last record, header and body.

# c2s_both FILE: cluster-to-standalone by both tools, same results.
c2s_both() {
    rm -f ref.out.db ours.out.db
    rc_ref=0 rc=0
    "$REF_OVSDB_TOOL" cluster-to-standalone ref.out.db "$1" \
        > out.ref 2> err.ref || rc_ref=$?
    "$TOOL" cluster-to-standalone ours.out.db "$1" \
        > out.ours 2> err.ours || rc=$?
    expect_eq $rc $rc_ref "cluster-to-standalone $1: exit status"
    expect_eq "$(cat out.ours err.ours)" "$(cat out.ref err.ref)" \
        "cluster-to-standalone $1: output"
    if [ $rc = 0 ]; then
        expect_eq "$(dump "$TOOL" ours.out.db)" \
            "$(dump "$TOOL" ref.out.db)" "cluster-to-standalone $1: data"
    fi
}

# check_bad FILE ROWS: both tools agree on FILE; our replay has ROWS rows
# in Root and reports the bad record.
check_bad() {
    for cmd in show-log "-m show-log" check-cluster db-cid; do
        run_both $cmd "$1"
    done
    c2s_both "$1"
    rm -f replay.db
    "$UTIL" replay "$1" replay.db > replay.out
    grep -q '^tail: ' replay.out || fail "$1: bad record not reported"
    n=$(dump "$TOOL" replay.db | head -1 | grep -o '"name"' | wc -l)
    expect_eq $n $2 "$1: rows replayed"
}

# Cuts inside the last record (a commit index) and inside the one before
# it (the third insert).
for cut in 1 5 $((last - 1)) $((last + 3)) $((last + 40)); do
    head -c $((size - cut)) good.db > torn.db
    rows=3
    [ $cut -le $last ] || rows=2
    check_bad torn.db $rows
done

# A flipped byte in the body of the third insert's record.
cp good.db bad.db
python3 - bad.db <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.rindex(b'"r3"') + 2
data[at] ^= 1
open(sys.argv[1], "wb").write(bytes(data))
PY
check_bad bad.db 2

# The next write drops the bad tail: the reference server's commit...
head -c $((size - last - 40)) good.db > torn.db
serve_ref torn.db
via_client transact db.sock '["Store",{"op":"insert","table":"Root",
    "row":{"name":"r4"}}]' > txn.out
grep -q uuid txn.out || fail "insert r4: $(cat txn.out)"
stop_ref
read_all_both torn.db
"$UTIL" replay torn.db replay.db.2 > replay.out
[ ! -s replay.out ] || fail "torn tail left after the server's commit"
# ...or our compaction.
"$UTIL" compact bad.db > compact.out
grep -q '^tail: ' compact.out || fail "bad record not reported by compact"
read_all_both bad.db
"$REF_OVSDB_TOOL" check-cluster bad.db || fail "compacted file"
expect_eq "$(cdump "$REF_OVSDB_TOOL" bad.db | head -1 | grep -o '"name"' \
             | wc -l)" 2 "rows after compacting the corrupt file"
echo PASS
