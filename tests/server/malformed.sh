#!/bin/sh
# tests/server/malformed.sh: malformed and oversized input closes only the
# offending connection; another client keeps being served.  Also run
# against the reference, whose reactions (closed/error) must match ours.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
start_both
python3 "$RPC_DIR/robust.py" malformed "unix:$PWD/ours.sock" >ours.out \
    || { cat ours.out; fail "our server"; }
cat ours.out
if $HAVE_REF; then
    TARGET=ref python3 "$RPC_DIR/robust.py" malformed "unix:$PWD/ref.sock" >ref.out \
        || { cat ref.out; fail "reference"; }
    diff -u ref.out ours.out || fail "reactions differ (- reference, + ours)"
fi
