# tests/storage/group-commit.sh: group commit (ovsdb/storage/storage.h).  Several
# clients' transactions read in one pass of the server's loop share one
# write and one fsync; when that write or fsync fails (OVSDB_LOG_FAULT, see
# ovsdb/format/log.h), every one of them gets the "I/O error", none of them is in
# the database (asked right after, and in the file after kill -9), even
# though each changed the same row as the ones before it, and the server
# goes on serving; a monitor never hears of the failed ones.  Then kill -9
# under a durable load from several clients: every acknowledged
# transaction is in the file, and none is half there.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
command -v python3 >/dev/null || skip "no python3 for the test clients"
GC="python3 $OVSDB_SRCDIR/tests/storage/gc-client.py"
K=6

start_server() {
    rm -f db.sock
    "$SERVER" --remote=punix:$PWD/db.sock --unixctl=$PWD/ctl --no-chdir \
        --log-file=$PWD/server.log db >>server.err 2>&1 &
    server_pid=$!
    wait_socket $server_pid db.sock server.err
}
stop_server() {
    kill -9 $server_pid
    wait $server_pid 2>/dev/null || true
}
trap 'kill -9 $server_pid 2>/dev/null || true' EXIT

# counts: the server's view ("counter N tags T children C roots R").
counts() { $GC check db.sock; }
restart() {
    stop_server
    start_server
}
# burst TAG [durable]: K transactions in one batch; checks that they all
# got the same outcome and prints it ("ok" or the error).
burst() {
    $GC burst db.sock $server_pid $K "$@" > burst.out \
        || fail "burst $1: $(cat burst.out)"
    [ "$(wc -l < burst.out)" = $K ] || fail "burst $1: $(cat burst.out)"
    outcome=$(cut -d' ' -f2- burst.out | sort -u)
    [ "$(echo "$outcome" | wc -l)" = 1 ] \
        || fail "burst $1: mixed outcomes: $(cat burst.out)"
    echo "$outcome"
}

"$TOOL" create db "$SCHEMA"
"$TOOL" transact db '["Store",{"op":"insert","table":"Root",
    "row":{"name":"counter","n":0}}]' >/dev/null

# 1. The batch's single write fails: all K fail, none is in memory (the
# counter row was changed by each of them in turn) or in the file, and a
# monitor never hears of them.
OVSDB_LOG_FAULT=write:1:ENOSPC start_server
ovsdb-client monitor unix:$PWD/db.sock Store Root name > monitor.out 2>&1 &
monitor_pid=$!
trap 'kill -9 $server_pid $monitor_pid 2>/dev/null || true' EXIT
i=0
until grep -q initial monitor.out 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "monitor did not start: $(cat monitor.out)"
    sleep 0.1
done
out=$(burst w durable)
case $out in *'I/O error'*) ;; *) fail "write failure: $out" ;; esac
expect_eq "$(counts)" "counter 0 tags 0 children 0 roots 1" \
    "memory after a failed write"
expect_eq "$(burst a durable)" ok "batch after the failed write"
expect_eq "$(counts)" "counter $K tags $K children $K roots $((K + 1))" \
    "memory after a good batch"
i=0
until grep -q " a$((K - 1)) *\$" monitor.out; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "monitor missed the good batch: $(cat monitor.out)"
    sleep 0.1
done
kill $monitor_pid
grep -q " w[0-9] *\$" monitor.out && fail "monitor saw a failed transaction"
restart
expect_eq "$(counts)" "counter $K tags $K children $K roots $((K + 1))" \
    "file after a failed write"

# 2. The batch's fsync fails: the batch is cut off the file again (and that
# made durable; tests/unit/storage/test-storage.c checks the cut itself), so even a
# crash right away does not bring it back.
stop_server
OVSDB_LOG_FAULT=fsync:1:EIO start_server
out=$(burst f durable)
case $out in *'I/O error'*) ;; *) fail "fsync failure: $out" ;; esac
expect_eq "$(counts)" "counter $K tags $K children $K roots $((K + 1))" \
    "memory after a failed fsync"
stop_server
grep -q '"f[0-9]"' db && fail "the failed batch is in the file"
start_server
expect_eq "$(counts)" "counter $K tags $K children $K roots $((K + 1))" \
    "file after a failed fsync"

# 3. The fsync and the fsync after the cut fail: the log refuses writes
# until the server has rewritten the file from memory, then recovers.
stop_server
OVSDB_LOG_FAULT=fsync:1:EIO:2 start_server
out=$(burst g durable)
case $out in *'I/O error'*) ;; *) fail "double fsync failure: $out" ;; esac
expect_eq "$(counts)" "counter $K tags $K children $K roots $((K + 1))" \
    "memory after a double fsync failure"
ok=false
for i in 1 2 3 4 5 6 7 8 9 10; do
    [ "$(burst h durable)" = ok ] && { ok=true; break; }
    sleep 0.3
done
$ok || fail "server did not recover after the double fsync failure"
restart
expect_eq "$(counts)" \
    "counter $((2 * K)) tags $((2 * K)) children $((2 * K)) roots $((2 * K + 1))" \
    "file after recovery"
grep -q "commit failed ($K transaction(s) in the batch)" server.log \
    || fail "batch failure not logged"

# 4. kill -9 under a durable load from several clients.
n0=$((2 * K))
for round in 1 2; do
    : > acked
    # The load runs until the server dies; kill it once commits are being
    # acknowledged (however long the clients take to start), a little
    # later in round 2.
    $GC load db.sock 8 60 acked &
    load_pid=$!
    wait_until 60 "round $round: no transaction was acknowledged" test -s acked
    sleep 0.$((round * 2))
    stop_server
    wait $load_pid
    # The kill may tear the record being written (an unacknowledged one):
    # ovsdb-tool refuses such a file, as the reference's does, so read it
    # the way a restart does, through the server.
    start_server
    ovsdb-client query unix:$PWD/db.sock '["Store",{"op":"select",
        "table":"Root","where":[],"columns":["name"]}]' \
        | grep -o '"L[0-9]*-[0-9]*-[ab]"' | tr -d '"' | sort > names
    while read -r name; do
        grep -qx "$name-a" names && grep -qx "$name-b" names \
            || fail "round $round: acknowledged $name is not in the file"
    done < acked
    sed 's/-[ab]$//' names | sort | uniq -c | awk '$1 != 2 { print }' \
        > half
    [ ! -s half ] || fail "round $round: half there: $(cat half)"
    pairs=$(sed 's/-[ab]$//' names | sort -u | wc -l)
    set -- $(counts)
    expect_eq "$2" $((n0 + pairs)) "round $round: counter vs pairs"
    echo "round $round: $(wc -l < acked) acknowledged, $pairs in the file"
done
stop_server
echo PASS
