# tests/storage/server-durability.sh: every commit our ovsdb-server
# acknowledged survives "kill -9"; the restarted server (the lock is free
# again) appends to the same file; online compaction
# (ovsdb-server/compact) keeps every row, including rows committed while it
# runs, and the reference reads the result.  With injected write and fsync
# failures (OVSDB_LOG_FAULT, see ovsdb/format/log.h), the failed commits get an
# "I/O error" reply and are not in the file, and the server goes on
# committing once the disk works again.
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
    wait_socket $server_pid db.sock server.err
    "$CLIENT" transact unix:$PWD/db.sock '["Store"]' >/dev/null \
        || fail "our ovsdb-server does not serve an empty transaction"
}
try_insert() {
    out=$("$CLIENT" transact unix:$PWD/db.sock "[\"Store\",
        {\"op\":\"insert\",\"table\":\"Root\",\"row\":{\"name\":\"$1\"}}
        $2]") || fail "transact $1"
}
insert() {
    try_insert "$@"
    case $out in *'"uuid"'*) ;; *) fail "insert $1: $out" ;; esac
    case $out in *error*) fail "insert $1: $out" ;; esac
}
insert_fails() {
    try_insert "$@"
    case $out in *'"I/O error"'*) ;; *) fail "insert $1 did not fail: $out" ;;
    esac
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

# The 3rd and 4th writes fail (disk full): those commits fail, the next
# one works, and the file holds exactly the acknowledged rows.
rm -f db .db.~lock~
"$TOOL" create db "$SCHEMA"
OVSDB_LOG_FAULT=write:3:ENOSPC:2 start_server
insert w1
insert w2
insert_fails w3
insert_fails w4
insert w5
kill -9 $server_pid
wait $server_pid 2>/dev/null || true
names=$("$TOOL" query db '["Store",{"op":"select","table":"Root",
    "where":[],"columns":["name"]}]' | grep -o '"w[0-9]"' | sort | tr -d '\n')
expect_eq "$names" '"w1""w2""w5"' "rows after write failures"

# The 2nd fsync fails: that durable commit fails; the server rewrites the
# file from memory and goes on.
OVSDB_LOG_FAULT=fsync:2:EIO start_server
durable=',{"op":"commit","durable":true}'
insert f1 "$durable"
insert_fails f2 "$durable"
ok=false
for i in 1 2 3 4 5 6 7 8 9 10; do
    try_insert f3 "$durable"
    case $out in *'"uuid"'*) ok=true; break ;; esac
    sleep 0.3
done
$ok || fail "server did not recover after the fsync failure: $out"
kill -9 $server_pid
wait $server_pid 2>/dev/null || true
names=$("$TOOL" query db '["Store",{"op":"select","table":"Root",
    "where":[],"columns":["name"]}]' | grep -o '"[wf][0-9]"' | sort \
    | tr -d '\n')
expect_eq "$names" '"f1""f3""w1""w2""w5"' "rows after fsync failure"
grep -q "commit failed" server.log || fail "failure not logged"
echo PASS
