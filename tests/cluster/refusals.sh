# tests/cluster/refusals.sh: the commands that work only on standalone
# files (db-version, db-cksum, compact, convert, needs-conversion, query,
# transact) refuse a clustered file as the reference does (same message,
# exit status 1) and leave it untouched; the cluster commands refuse a
# standalone file as the reference does.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/lib.sh"
[ -x "$REF_OVSDB_TOOL" ] || skip "reference ovsdb-tool not installed"

"$TOOL" create-cluster c.db "$SCHEMA" tcp:127.0.0.1:6641 2>/dev/null
"$TOOL" join-cluster j.db Store tcp:127.0.0.1:6641 tcp:127.0.0.1:6642
"$TOOL" create s.db "$SCHEMA"
Q='["Store",{"op":"select","table":"Root","where":[]}]'
I='["Store",{"op":"insert","table":"Root","row":{"name":"x"}}]'
for f in c.db j.db; do
    cp $f orig.db
    for args in "db-version $f" "db-cksum $f" "compact $f" \
                "compact $f out.db" "convert $f $SCHEMA2" \
                "convert $f $SCHEMA2 out.db" "needs-conversion $f $SCHEMA" \
                "query $f $Q" "transact $f $I"; do
        rm -f out.db
        run_both $args
        expect_eq $rc 1 "exit status of ovsdb-tool $args"
        grep -q "cannot apply this operation to clustered database file" \
            err.ours || fail "ovsdb-tool $args: $(cat err.ours)"
        cmp -s $f orig.db || fail "ovsdb-tool $args changed $f"
        [ ! -e out.db ] || [ ! -s out.db ] \
            || fail "ovsdb-tool $args wrote out.db"
    done
done
for args in "db-cid s.db" "db-sid s.db" "db-local-address s.db" \
            "check-cluster s.db" "db-is-clustered s.db" \
            "db-is-standalone c.db" "db-is-standalone s.db"; do
    run_both $args
done
echo PASS
