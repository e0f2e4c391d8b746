#!/bin/sh
# tests/server/db-remotes.sh: --remote=db:DB,TABLE,COLUMN follows the
# database (listeners, read_only, RBAC role); also run against the
# reference when installed.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
command -v ovs-appctl >/dev/null || skip "ovs-appctl not installed"
SCHEMA=$OVSDB_SRCDIR/tests/data/schemas/rbac.ovsschema
start_both --remote=db:Secure,Global,connections
for name in ours ref; do
    [ $name = ref ] && ! $HAVE_REF && continue
    python3 "$RPC_DIR/db_remotes.py" "unix:$PWD/$name.sock" "$PWD/$name.ctl" \
        "$(free_port)" "$(free_port)" >$name.out \
        || { cat $name.out $name.log; fail "$name server"; }
    cat $name.out
done
if $HAVE_REF; then
    diff -u ref.out ours.out || fail "outputs differ (- reference, + ours)"
fi
