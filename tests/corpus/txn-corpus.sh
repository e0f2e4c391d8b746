# tests/corpus/txn-corpus.sh: the differential transaction corpus.
#
# Every case in tests/data/txn/<case>/ (see tests/corpus/txncompare.py for
# the layout) is run through OUR "ovsdb-tool create" + "ovsdb-tool transact"
# + "ovsdb-tool query", masked, and compared with expected.json, which was
# recorded from the reference ovsdb-server 3.1 tools by tests/corpus/
# regenerate.  When the reference is installed, it is run on every case too,
# and the test fails if its output no longer matches expected.json, so the
# golden files stay honest; and the reference ovsdb-tool queries the file
# our tool leaves after each case, which must hold the expected contents.
#
# Set TXN_CASES to a space-separated list of case names to run only those.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
set +e

command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
compare="python3 $OVSDB_SRCDIR/tests/corpus/txncompare.py"
casedir=$OVSDB_SRCDIR/tests/data/txn
if [ -n "$TXN_CASES" ]; then
    cases=
    for c in $TXN_CASES; do cases="$cases $casedir/$c"; done
else
    cases=$(ls -d "$casedir"/*/)
fi
[ -n "$cases" ] || fail "no cases in $casedir"

status=0
if [ -x "$REF_OVSDB_TOOL" ]; then
    echo "== reference $REF_OVSDB_TOOL against expected.json"
    $compare check --tool "$REF_OVSDB_TOOL" --label reference $cases \
        || { echo "the reference no longer produces expected.json:" \
                  "re-record with tests/corpus/regenerate and review"
             status=1; }
else
    echo "reference ovsdb-tool not installed: golden files not re-checked"
fi

# Our ovsdb-tool must create a database and run an empty transaction; if
# it cannot, that is a failure of ours, said first so the log is clear.
ours=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
probe=$OVSDB_SRCDIR/tests/data/schemas/types.ovsschema
if ! "$ours" create probe.db "$probe" >probe.out 2>&1 \
        || [ "$("$ours" transact probe.db '["Types"]' 2>>probe.out)" != "[]" ]
then
    cat probe.out
    fail "our ovsdb-tool cannot create a database and run an empty transaction"
fi

# With the reference installed, it also reads the file each case leaves.
cross=
[ -x "$REF_OVSDB_TOOL" ] && cross="--cross-read $REF_OVSDB_TOOL"
echo "== ours $ours against expected.json"
$compare check --tool "$ours" --label ours $cross \
    --known "$OVSDB_SRCDIR/tests/corpus/known-mismatches" $cases || status=1
exit $status
