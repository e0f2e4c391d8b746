# tests/corpus/txn-corpus-server.sh: the transaction corpus through a live
# server.
#
# The same cases as txn-corpus.sh (tests/data/txn/), but each transaction is
# sent as a JSON-RPC "transact" request to OUR ovsdb-server, over a Unix
# socket, over 127.0.0.1 TCP and over TLS (if openssl can make a
# certificate), on a database made by our "ovsdb-tool create"; replies are
# compared with expected-server.json where a case has one, else with
# expected.json.  When the reference is installed, the
# reference server is checked against the same files first.
#
# Set TXN_CASES to a space-separated list of case names to run only those.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
set +e

command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
compare="python3 $OVSDB_SRCDIR/tests/corpus/txncompare.py"
casedir=$OVSDB_SRCDIR/tests/data/txn
cases=
for c in ${TXN_CASES:-$(ls "$casedir")}; do
    [ -d "$casedir/$c" ] && cases="$cases $casedir/$c"
done
[ -n "$cases" ] || fail "no cases in $casedir"

status=0
if [ -x "$REF_OVSDB_TOOL" ] && [ -n "$REF_OVSDB_SERVER" ]; then
    echo "== reference $REF_OVSDB_SERVER against the golden files"
    $compare check --tool "$REF_OVSDB_TOOL" --server "$REF_OVSDB_SERVER" \
        --remote unix --label reference $cases \
        || { echo "the reference server no longer produces the golden" \
                  "files: re-record with tests/corpus/regenerate and review"
             status=1; }
else
    echo "reference server not installed: golden files not re-checked"
fi

# Our server must serve an empty transaction on a database our tool made;
# if it cannot, that is a failure of ours, said first so the log is clear.
tool=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
server=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
if ! $compare check --tool "$tool" --server "$server" \
        "$OVSDB_SRCDIR/tests/corpus/probe" >probe.out 2>&1; then
    cat probe.out
    fail "our ovsdb-tool + ovsdb-server cannot serve an empty transaction"
fi

remotes="unix tcp"
if command -v openssl >/dev/null 2>&1; then
    remotes="$remotes ssl"
else
    echo "openssl not installed: not testing TLS"
fi
# With the reference installed, it also reads the file our server leaves.
cross=
[ -x "$REF_OVSDB_TOOL" ] && cross="--cross-read $REF_OVSDB_TOOL"
for remote in $remotes; do
    echo "== ours $server over $remote against the golden files"
    $compare check --tool "$tool" --server "$server" --remote $remote $cross \
        --label ours --known "$OVSDB_SRCDIR/tests/corpus/known-mismatches" \
        $cases || status=1
done
exit $status
