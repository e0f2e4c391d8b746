# tests/storage/no-column-diff.sh: --disable-file-column-diff (as the
# reference's, and as ovn-ctl passes it): a modified row's changed columns
# are written whole and the record has no "_is_diff", so readers older than
# column diffs read the file; our tool, and the reference's when it is
# installed, read back the same contents.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
CLIENT=$OVSDB_BUILDDIR/ovsdb/ovsdb-client

"$TOOL" create db "$SCHEMA"
"$SERVER" --remote=punix:$PWD/db.sock --unixctl=$PWD/ctl --no-chdir \
    --disable-file-column-diff --log-file=$PWD/server.log db \
    >server.err 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
wait_socket $pid db.sock server.err
"$CLIENT" transact unix:$PWD/db.sock '["Store",{"op":"insert","table":"Root",
    "row":{"name":"a","tags":["set",["x","y"]]}}]' >/dev/null
"$CLIENT" transact unix:$PWD/db.sock '["Store",{"op":"mutate","table":"Root",
    "where":[["name","==","a"]],"mutations":[["tags","insert","z"]]}]' \
    >/dev/null
kill $pid
wait $pid 2>/dev/null || true

last=$(tail -n 1 db)
case $last in
    *_is_diff*) fail "the record is a diff: $last" ;;
esac
case $last in
    *'"tags":["set",["x","y","z"]]'*) ;;
    *) fail "the changed column is not whole: $last" ;;
esac
query='["Store",{"op":"select","table":"Root","where":[],"columns":["tags"]}]'
ours=$("$TOOL" query db "$query")
case $ours in
    *'"x","y","z"'*) ;;
    *) fail "our tool reads $ours" ;;
esac
if has_reference; then
    expect_eq "$("$REF_OVSDB_TOOL" query db "$query")" "$ours" \
        "the reference's tool reads"
else
    echo "skipped: the reference is not installed: not read by its tool"
fi
echo PASS
