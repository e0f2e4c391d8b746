# tests/storage/cross-read.sh: files cross-read both ways.  The reference
# ovsdb-tool writes a database through a sequence of transactions (inserts,
# set and map mutations, updates, deletes, garbage collection); our
# ovsdb-tool must read the same rows.  Then the other way round: our
# ovsdb-tool writes the same sequence and the reference reads it, and both
# programs read both files identically.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool

# Ours alone: the sequence gives the expected final state.
"$TOOL" create ours.db "$SCHEMA"
run_txns "$TOOL" ours.db
dump "$TOOL" ours.db > ours-by-ours.txt
cat ours-by-ours.txt
grep -q '"name": "a".*"tags": \["set", \["x", "y", "z"\]\]' ours-by-ours.txt \
    || fail "row a has the wrong tags"
grep -q '"ids": \["set", \[1, 3\]\].*"name": "b"' ours-by-ours.txt \
    || fail "row b has the wrong ids"
grep -q '"opts": \["map", \[\["k1", "changed"\], \["k3", "v3"\]\]\]' \
    ours-by-ours.txt || fail "row a has the wrong opts"
grep -q '"value": 30' ours-by-ours.txt || fail "child c3 missing"
if grep -q '"value": 10\|"value": 20\|"name": "c"' ours-by-ours.txt; then
    fail "deleted or garbage-collected rows came back"
fi
if grep -q 'not saved' ours-by-ours.txt; then
    fail "ephemeral column was saved"
fi
# Every record but the schema is a diff record with a date.
n=$("$TOOL" show-log ours.db | grep -c '^record')
expect_eq "$n" 12 "records in ours.db"
grep -c '"_is_diff":true' ours.db | grep -qx 11 || fail "diff records"

has_reference || skip "reference ovsdb-tool not installed"

"$REF_OVSDB_TOOL" create ref.db "$SCHEMA"
run_txns "$REF_OVSDB_TOOL" ref.db
dump "$REF_OVSDB_TOOL" ref.db > ref-by-ref.txt
dump "$TOOL" ref.db > ref-by-ours.txt
diff -u ref-by-ref.txt ref-by-ours.txt || fail "ours reads ref.db differently"
dump "$REF_OVSDB_TOOL" ours.db > ours-by-ref.txt
diff -u ours-by-ours.txt ours-by-ref.txt \
    || fail "reference reads ours.db differently"

# Same contents up to UUIDs.
dump "$REF_OVSDB_TOOL" ref.db --mask > a.txt
dump "$TOOL" ours.db --mask > b.txt
diff -u a.txt b.txt || fail "same transactions, different contents"

# The reference can append to our file and we to theirs.
"$REF_OVSDB_TOOL" transact ours.db \
    '["Store",{"op":"insert","table":"Root","row":{"name":"r"}}]' >/dev/null
"$TOOL" transact ref.db \
    '["Store",{"op":"insert","table":"Root","row":{"name":"r"}}]' >/dev/null
dump "$TOOL" ours.db --mask > a.txt
dump "$REF_OVSDB_TOOL" ref.db --mask > b.txt
diff -u a.txt b.txt || fail "after appending to each other's files"
grep -q '"name": "r"' a.txt || fail "appended row missing"

# show-log of the reference's file, every verbosity, same output.  With
# -m and -mm the reference lists rows and columns in its hash tables'
# order, which is not the file's, so compare those lines sorted.
"$REF_OVSDB_TOOL" show-log ref.db > ref.log
"$TOOL" show-log ref.db > ours.log
diff -u ref.log ours.log || fail "show-log differs"
for m in -m -mm; do
    "$REF_OVSDB_TOOL" $m show-log ref.db | sort > ref.log
    "$TOOL" $m show-log ref.db | sort > ours.log
    diff -u ref.log ours.log || fail "show-log $m differs"
done
echo PASS
