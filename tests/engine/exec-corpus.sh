# tests/engine/exec-corpus.sh: the transaction corpus (tests/data/txn),
# run through the engine alone (tests/ovsdb-exec, via exec-tool), so
# every reply is checked against the reference's even without the real
# ovsdb-tool.  Each transaction's record is written and replayed by the
# next call, so record output and replay are checked too.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

known=

cases=
for dir in "$OVSDB_SRCDIR"/tests/data/txn/*/; do
    name=$(basename "$dir")
    case " $known " in *" $name "*) continue ;; esac
    cases="$cases $dir"
done
[ -n "$cases" ] || skip "no corpus cases"
python3 "$OVSDB_SRCDIR/tests/corpus/txncompare.py" check \
    --tool "$OVSDB_SRCDIR/tests/engine/exec-tool" --label engine $cases
