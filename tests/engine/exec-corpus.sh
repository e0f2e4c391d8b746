# tests/engine/exec-corpus.sh: the transaction corpus (tests/data/txn),
# run through the engine alone (tests/ovsdb-exec, via exec-tool), so
# every reply is checked against the reference's even without the real
# ovsdb-tool.  Each transaction's record is written and replayed by the
# next call, so record output and replay are checked too.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

# Cases where the engine is known to differ from the reference are listed,
# with the reason, in tests/corpus/known-mismatches (mode "engine").
python3 "$OVSDB_SRCDIR/tests/corpus/txncompare.py" check \
    --tool "$OVSDB_SRCDIR/tests/engine/exec-tool" --label engine \
    --known "$OVSDB_SRCDIR/tests/corpus/known-mismatches" --mode engine \
    "$OVSDB_SRCDIR"/tests/data/txn/*/
