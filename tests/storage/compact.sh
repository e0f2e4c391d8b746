# tests/storage/compact.sh: "ovsdb-tool compact" keeps the contents, in
# place and to a target, shrinks a file full of history into schema plus
# one snapshot, and the result reads the same in the reference.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool

"$TOOL" create db "$SCHEMA"
run_txns "$TOOL" db
# History that compaction drops: 100 updates of one row.
i=0
while [ $i -lt 100 ]; do
    "$TOOL" transact db "[\"Store\",{\"op\":\"update\",\"table\":\"Root\",
        \"where\":[[\"name\",\"==\",\"a\"]],\"row\":{\"n\":$i}}]" >/dev/null
    i=$((i + 1))
done
dump "$TOOL" db > before.txt
size_before=$(wc -c < db)

"$TOOL" compact db target.db
dump "$TOOL" target.db > target.txt
diff -u before.txt target.txt || fail "compact to target changed contents"

"$TOOL" compact db
dump "$TOOL" db > after.txt
diff -u before.txt after.txt || fail "compact in place changed contents"
size_after=$(wc -c < db)
echo "size $size_before -> $size_after"
[ "$size_after" -lt $((size_before / 4)) ] || fail "compaction did not shrink"
n=$("$TOOL" show-log db | grep -c '^record')
expect_eq "$n" 2 "records after compaction"
"$TOOL" show-log db | grep -q '"compacted by ovsdb-tool ' \
    || fail "no compaction comment"
[ ! -e db.tmp ] || fail "db.tmp left behind"
cmp db target.db >/dev/null 2>&1 && echo "(identical files)"

# The compacted file keeps working.
"$TOOL" transact db '["Store",{"op":"insert","table":"Root",
    "row":{"name":"new"}}]' >/dev/null
dump "$TOOL" db | grep -q '"name": "new"' || fail "insert after compaction"

# A database locked by another process cannot be compacted in place.
python3 -c '
import fcntl, sys, time
f = open(".db.~lock~", "a")
fcntl.lockf(f, fcntl.LOCK_EX)
open("locked", "w").close()
time.sleep(3)
' &
lock_pid=$!
while [ ! -e locked ]; do sleep 0.1; done
if "$TOOL" compact db 2>err; then
    kill $lock_pid
    fail "compacted a locked database"
fi
kill $lock_pid
grep -q "db: failed to lock lockfile" err || fail "lock error: $(cat err)"

if has_reference; then
    dump "$REF_OVSDB_TOOL" db > ref.txt
    dump "$TOOL" db > ours.txt
    diff -u ref.txt ours.txt \
        || fail "reference reads compacted file differently"
    "$REF_OVSDB_TOOL" compact target.db ref-compacted.db
    dump "$TOOL" ref-compacted.db > ref-compacted.txt
    diff -u target.txt ref-compacted.txt \
        || fail "ours reads the reference's compacted file differently"
fi
echo PASS
