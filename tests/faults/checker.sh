#!/bin/sh
# tests/faults/checker.sh: the checkers of tests/faults/checker.py find
# what they must on histories and dumps made up to fail each check
# (a lost insert, a duplicate, a phantom key, diverging members, a stale
# read, a failed compare-and-set or insert that took effect), and pass a
# correct one.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "no python3"
python3 "$OVSDB_SRCDIR/tests/faults/checker.py" --self-test \
    || fail "checker self-test"
