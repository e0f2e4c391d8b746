# tests/e2e/dist-list.sh: tests/dist.mk (the EXTRA_DIST of the suite) names
# every file git tracks under tests/, and each file it names exists, so
# "make dist" ships a suite that runs.  Outside a git checkout (an unpacked
# tarball) only the second half is checked.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
cd "$OVSDB_SRCDIR"
sed -n 's/^	\(tests\/[^ ]*\).*/\1/p' tests/dist.mk | LC_ALL=C sort >"$TEST_TMPDIR/listed"
[ -s "$TEST_TMPDIR/listed" ] || fail "tests/dist.mk lists nothing"
while read -r f; do
    [ -f "$f" ] || fail "tests/dist.mk names $f, which does not exist"
done <"$TEST_TMPDIR/listed"
if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files tests | LC_ALL=C sort >"$TEST_TMPDIR/tracked"
    missing=$(LC_ALL=C comm -23 "$TEST_TMPDIR/tracked" "$TEST_TMPDIR/listed")
    [ -z "$missing" ] || fail "tracked but not in tests/dist.mk" \
        "(run tests/update-dist-list): $missing"
fi
echo "tests/dist.mk lists $(wc -l <"$TEST_TMPDIR/listed") files"
