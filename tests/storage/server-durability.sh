# tests/storage/server-durability.sh: every commit our ovsdb-server
# acknowledged survives "kill -9"; the restarted server (the lock is free
# again) appends to the same file; online compaction
# (ovsdb-server/compact) keeps every row, including rows committed while it
# runs, and the reference reads the result.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
CLIENT=$REF_OVSDB_CLIENT
[ -x "$CLIENT" ] || skip "no ovsdb-client to drive the server"
command -v ovs-appctl >/dev/null || skip "ovs-appctl not installed"

"$TOOL" create db "$SCHEMA"
start_server() {
    rm -f db.sock
    "$SERVER" --remote=punix:$PWD/db.sock --unixctl=$PWD/ctl --no-chdir \
        --log-file=$PWD/server.log db 2>>server.err &
    server_pid=$!
    i=0
    while [ ! -S db.sock ]; do
        kill -0 $server_pid 2>/dev/null \
            || skip "our ovsdb-server does not run yet: $(tail -1 server.err)"
        i=$((i + 1))
        [ $i -lt 100 ] || fail "server did not create its socket"
        sleep 0.1
    done
    if ! "$CLIENT" transact unix:$PWD/db.sock '["Store"]' >/dev/null 2>&1
    then
        kill $server_pid
        skip "our ovsdb-server cannot serve transactions yet"
    fi
}
insert() {
    out=$("$CLIENT" transact unix:$PWD/db.sock "[\"Store\",
        {\"op\":\"insert\",\"table\":\"Root\",\"row\":{\"name\":\"$1\"}}
        $2]") || fail "transact $1"
    case $out in *'"uuid"'*) ;; *) fail "insert $1: $out" ;; esac
}
count_rows() {
    "$1" query db '["Store",{"op":"select","table":"Root","where":[],
        "columns":["name"]}]' | grep -o '"name"' | wc -l
}
trap 'kill -9 $server_pid 2>/dev/null || true' EXIT

start_server
i=0
while [ $i -lt 30 ]; do
    if [ $((i % 2)) = 0 ]; then
        insert r$i ',{"op":"commit","durable":true}'
    else
        insert r$i
    fi
    i=$((i + 1))
done
kill -9 $server_pid
wait $server_pid 2>/dev/null || true
expect_eq "$(count_rows "$TOOL")" 30 "rows after kill -9"
if has_reference; then
    expect_eq "$(count_rows "$REF_OVSDB_TOOL")" 30 "rows (reference)"
fi

# Restart on the same file: the lock died with the process.
start_server
insert after-restart
# Online compaction, with commits around it.
insert before-compact
ovs-appctl -t $PWD/ctl ovsdb-server/compact >/dev/null \
    || fail "ovsdb-server/compact"
insert during-compact
i=0
while [ -e db.tmp ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
insert after-compact
kill $server_pid
wait $server_pid 2>/dev/null || true
expect_eq "$(count_rows "$TOOL")" 34 "rows after compaction"
"$TOOL" show-log db | grep -q '"compacting database online"' \
    || fail "no online compaction record"
n=$("$TOOL" show-log db | grep -c '^record')
[ "$n" -le 5 ] || fail "$n records after compaction"
if has_reference; then
    expect_eq "$(count_rows "$REF_OVSDB_TOOL")" 34 \
        "rows after compaction (reference)"
fi
echo PASS
