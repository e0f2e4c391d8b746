# tests/engine/differential-fuzz.sh: random transactions (fixed seed) give
# the reference's replies, through the engine alone (tests/ovsdb-exec with
# a record file, one process per transaction, as "ovsdb-tool transact").
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
[ -x "$REF_OVSDB_TOOL" ] || skip "reference ovsdb-tool not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
python3 "$OVSDB_SRCDIR/tests/engine/fuzz.py" \
    "$OVSDB_BUILDDIR/tests/ovsdb-exec" "$REF_OVSDB_TOOL" 1 60
