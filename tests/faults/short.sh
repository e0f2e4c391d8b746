#!/bin/sh
# tests/faults/short.sh: the fault-injection suite's short run (about 30
# s): a cluster of three of ours, then one of ours and the reference's
# (s2 the reference's; skipped, saying so, without the reference), each
# through every fault of tests/faults/faults.py once, held 1 s, under six
# clients.  No acknowledged insert may be lost, no key duplicated, the
# members must end identical, the registers linearizable; an outcome
# other than the one answered (check 5) fails ours, and is reported for
# the mixed cluster (FAULTS_EXPECT_EXACT=none: reported only for both,
# all: fails both).  Skipped where nftables cannot be used (not root, no
# nft).
# "make check-faults" is the longer run (tests/faults/README.md).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "no python3"
# The driver deletes its nftables table in a finally; if it was killed,
# this does.
trap 'python3 "$OVSDB_SRCDIR/tests/faults/nemesis.py" --sweep
      kill_servers' EXIT
rc=0
python3 "$OVSDB_SRCDIR/tests/faults/faults.py" --dir "$PWD" --hold 1 \
    --expect-exact "${FAULTS_EXPECT_EXACT:-ours}" --summary summary.md \
    ours:3 mixed:3 > faults.out 2>&1 || rc=$?
cat faults.out
[ $rc = 77 ] && skip "$(sed -n 's/^skipped: //p' faults.out)"
[ $rc = 0 ] || fail "a cluster failed its checks (see above; kept $PWD)"
echo PASS
