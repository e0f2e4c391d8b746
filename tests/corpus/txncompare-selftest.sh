# tests/corpus/txncompare-selftest.sh: the corpus comparison itself works.
#
# Equivalent outputs (UUIDs renamed, rows and set elements reordered, other
# "details") must compare equal, and each kind of real difference (swapped
# references, error string, count, bool for integer, set for atom, ...)
# must be reported.  Needs no OVSDB program.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
python3 "$OVSDB_SRCDIR/tests/corpus/txncompare.py" selftest
