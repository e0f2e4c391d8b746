#!/bin/sh
# tests/server/exactness.sh: the exchanges of exactness.py (lock names,
# column sets of monitor requests, monitor_cond_change ordering, the errors
# of monitor_cond_since) give the same transcript from our server as from
# the reference.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
start_both
status=0
for case in lock-names monitor-columns cond-change cond-change-errors \
        since-errors big-transact; do
    python3 "$RPC_DIR/exactness.py" $case "unix:$PWD/ours.sock" \
        >"$case.ours" || fail "$case: exchange with our server failed"
    python3 "$RPC_DIR/exactness.py" $case "unix:$PWD/ref.sock" \
        >"$case.ref" || fail "$case: exchange with the reference failed"
    [ -s "$case.ref" ] || fail "$case: empty transcript"
    if diff -u "$case.ref" "$case.ours"; then
        echo "$case: same as the reference ($(wc -l <"$case.ref") lines)"
    else
        echo "FAIL: $case: transcripts differ (- reference, + ours)"
        status=1
    fi
done
exit $status
