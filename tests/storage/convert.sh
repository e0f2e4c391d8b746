# tests/storage/convert.sh: "ovsdb-tool convert" to a schema that adds a
# table and a column, removes columns and retypes one (integer to set of
# integers), in place and to a target; compared with the reference's.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool

"$TOOL" create db "$SCHEMA"
run_txns "$TOOL" db
cp db db.orig
dump2() {
    "$1" query "$2" '["Store",
        {"op":"select","table":"Root","where":[]},
        {"op":"select","table":"Child","where":[]},
        {"op":"select","table":"Extra","where":[]}]' | normalize
}

"$TOOL" convert db "$SCHEMA2" target.db
expect_eq "$("$TOOL" db-version target.db)" 1.3.0 "converted version"
expect_eq "$("$TOOL" needs-conversion target.db "$SCHEMA2")" no \
    "needs-conversion after convert"
dump2 "$TOOL" target.db > target.txt
cat target.txt
grep -q '"flag"' target.txt && fail "removed column still there"
grep -q '"added": \["map", \[\]\]' target.txt || fail "added column missing"
grep -q '"n": 6' target.txt || fail "retyped column lost its value"
grep -q '"n": \["set", \[\]\], "name": "b"' target.txt \
    || fail "retyped default value"
grep -q '"tags": \["set", \["x", "y", "z"\]\]' target.txt \
    || fail "unchanged column lost"

"$TOOL" convert db "$SCHEMA2"
dump2 "$TOOL" db > inplace.txt
diff -u target.txt inplace.txt || fail "in-place convert differs"
expect_eq "$("$TOOL" db-version db)" 1.3.0 "in-place converted version"

# Converting back to a narrower type fails when a value does not fit, and
# leaves the database untouched.
"$TOOL" transact db '["Store",{"op":"update","table":"Root",
    "where":[["name","==","a"]],"row":{"n":["set",[1,2]]}}]' >/dev/null
cp db db.before
if "$TOOL" convert db "$SCHEMA" 2>err; then
    fail "convert of a 2-element set to an integer succeeded"
fi
cat err
cmp db db.before || fail "failed convert changed the file"

# The reference converts by replaying the whole history under the new
# schema, so a retyped column's value depends on its history (a scalar
# 1 then 6 becomes the set {1, 6}); compare on a compacted copy, which has
# no history.
if has_reference; then
    "$TOOL" compact db.orig
    "$TOOL" convert db.orig "$SCHEMA2" target.db.2
    dump2 "$TOOL" target.db.2 > target.txt
    "$REF_OVSDB_TOOL" convert db.orig "$SCHEMA2" ref.db
    dump2 "$REF_OVSDB_TOOL" ref.db > ref.txt
    diff -u ref.txt target.txt || fail "reference converts differently"
    dump2 "$REF_OVSDB_TOOL" target.db > ref-reads-ours.txt
    diff -u target.txt ref-reads-ours.txt \
        || fail "reference reads our converted file differently"
fi
echo PASS
