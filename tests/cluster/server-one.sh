# tests/cluster/server-one.sh: our ovsdb-server serving a one-member
# cluster (ovsdb/raft/raft.h, issue 14).  A file made by our ovsdb-tool
# create-cluster is served by our server: it is its own leader, commits
# transactions as Raft entries, reports _Server.Database (model, leader,
# connected, cid, sid, index) and cluster/status, cluster/cid, cluster/sid;
# it survives restarts, kill -9 under durable writers (every acknowledged
# transaction is there after each restart, none half there), online
# compaction and online conversion.  When the reference is installed, its
# tools and server read every file we wrote, our server reads a file that
# the reference's tool and server wrote, and cluster/status is compared
# with the reference's after masking ids and times.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
CLIENT=$OVSDB_BUILDDIR/ovsdb/ovsdb-client
command -v python3 >/dev/null || skip "no python3 for the test clients"
GC="python3 $OVSDB_SRCDIR/tests/storage/gc-client.py"
if has_reference; then HAVE_REF=true; else HAVE_REF=false; fi
# The local address is only recorded: a one-member cluster listens on it
# for no one, so no port is opened.
ADDR=tcp:127.0.0.1:6647

server_pid=
# start_server PROGRAM: serves ./db on db.sock, control socket ./ctl.
start_server() {
    rm -f db.sock
    "$1" --remote=punix:$PWD/db.sock --unixctl=$PWD/ctl --no-chdir \
        --log-file=$PWD/server.log db >>server.err 2>&1 &
    server_pid=$!
    wait_socket $server_pid db.sock server.err
}
stop_server() {
    [ -n "$server_pid" ] || return 0
    kill -9 $server_pid
    wait $server_pid 2>/dev/null || true
    server_pid=
}
trap 'stop_server' EXIT
appctl() { ovs-appctl -t "$PWD/ctl" "$@"; }
transact() {
    "$CLIENT" transact unix:$PWD/db.sock "$1" || fail "transact $1"
}
# server_db COLUMN: the Store row's COLUMN in _Server.Database.
server_db() {
    transact '["_Server",{"op":"select","table":"Database",
        "where":[["name","==","Store"]],"columns":["'"$1"'"]}]' \
        | python3 -c 'import json, sys
v = json.load(sys.stdin)[0]["rows"][0][sys.argv[1]]
if isinstance(v, list):
    v = v[1] if v[0] == "uuid" else (v[1][0] if v[1] else "")
print(str(v).lower() if isinstance(v, bool) else v)' "$1"
}
counts() { $GC check db.sock; }
# names: the Root names in the served database, sorted.
names() {
    transact '["Store",{"op":"select","table":"Root","where":[],
        "columns":["name"]}]' | grep -o '"name":"[^"]*"' | cut -d'"' -f4 \
        | sort
}

# 1. Create, serve, commit; _Server and the control commands.
"$TOOL" create-cluster db "$SCHEMA" $ADDR 2>tool.err \
    || fail "create-cluster: $(cat tool.err)"
cid=$("$TOOL" db-cid db)
sid=$("$TOOL" db-sid db)
start_server "$SERVER"
expect_eq "$(server_db model)" clustered "_Server model"
expect_eq "$(server_db leader)" true "_Server leader"
expect_eq "$(server_db connected)" true "_Server connected"
expect_eq "$(server_db cid)" "$cid" "_Server cid"
expect_eq "$(server_db sid)" "$sid" "_Server sid"
expect_eq "$(appctl cluster/cid Store)" "$cid" "cluster/cid"
expect_eq "$(appctl cluster/sid Store)" "$sid" "cluster/sid"
index0=$(server_db index)
transact '["Store",{"op":"insert","table":"Root",
    "row":{"name":"counter","n":0}}]' >/dev/null
run_txns "$CLIENT" unix:$PWD/db.sock >/dev/null 2>&1 || true
index1=$(server_db index)
[ "$index1" -gt "$index0" ] \
    || fail "_Server index did not move: $index0 -> $index1"
status=$(appctl cluster/status Store)
case $status in
    *"Role: leader"*"Leader: self"*"Vote: self"*) ;;
    *) fail "cluster/status: $status" ;;
esac
if appctl cluster/status Nope 2>err; then fail "status of no cluster"; fi
grep -q "unknown cluster" err || fail "unknown cluster: $(cat err)"
names > names.before

# 2. Restart: same data, a new term, everything committed.
stop_server
start_server "$SERVER"
names > names.after
cmp -s names.before names.after || fail "restart lost data"
case $(appctl cluster/status Store) in
    *"Term: 2"*"Entries not yet committed: 0"*) ;;
    *) fail "after restart: $(appctl cluster/status Store)" ;;
esac

# 3. kill -9 under durable writers, twice: every acknowledged transaction
# is in the file, none half there, and the counter matches.
set -- $(counts)
n0=$2
for round in 1 2; do
    : > acked
    $GC load db.sock 6 3 acked &
    load_pid=$!
    for i in $(seq 100); do
        [ "$(wc -l < acked)" -ge $((10 * round)) ] && break
        sleep 0.1
    done
    stop_server
    wait $load_pid || true
    [ -s acked ] || fail "round $round: no transaction was acknowledged"
    start_server "$SERVER"
    names > names
    while read -r name; do
        grep -qx "$name-a" names && grep -qx "$name-b" names \
            || fail "round $round: acknowledged $name is missing"
    done < acked
    grep '^L' names | sed 's/-[ab]$//' | sort | uniq -c \
        | awk '$1 != 2 { print }' > half
    [ ! -s half ] || fail "round $round: half there: $(cat half)"
    pairs=$(grep '^L' names | sed 's/-[ab]$//' | sort -u | wc -l)
    set -- $(counts)
    expect_eq "$2" $((n0 + pairs)) "round $round: counter vs pairs"
    echo "round $round: $(wc -l < acked) acknowledged, $pairs in the file"
done

# 4. Online compaction: the log becomes a snapshot; commits go on.
appctl ovsdb-server/compact Store >/dev/null || fail "compact"
case $(appctl cluster/status Store) in
    *"Log: ["*) ;;
    *) fail "cluster/status after compact" ;;
esac
transact '["Store",{"op":"insert","table":"Root",
    "row":{"name":"after-compact"}}]' >/dev/null
names > names.compacted
stop_server
start_server "$SERVER"
names > names.reopened
cmp -s names.compacted names.reopened || fail "compaction lost data"

# 5. Online conversion through the server.
"$CLIENT" convert unix:$PWD/db.sock "$SCHEMA2" || fail "convert"
transact '["Store",{"op":"insert","table":"Root",
    "row":{"name":"converted","added":["map",[["k",7]]]}}]' >/dev/null
stop_server
start_server "$SERVER"
transact '["Store",{"op":"select","table":"Root",
    "where":[["name","==","converted"]],"columns":["added"]}]' \
    | grep -q '"k",7' || fail "converted database lost its row"
"$CLIENT" get-schema-version unix:$PWD/db.sock Store > version
expect_eq "$(cat version)" 1.3.0 "schema version after convert"
names > names.converted
stop_server

if ! $HAVE_REF; then
    echo "skipped: the reference is not installed: no cross-reading" \
         "and no cluster/status comparison"
    echo PASS
    exit 0
fi

# 6. The reference reads what we wrote: its tools and its server.
"$REF_OVSDB_TOOL" check-cluster db || fail "reference check-cluster"
expect_eq "$("$REF_OVSDB_TOOL" db-cid db)" "$cid" "reference db-cid"
start_server "$REF_OVSDB_SERVER"
names > names.ref
cmp -s names.converted names.ref || fail "the reference reads other data"
stop_server

# 7. And we read what the reference wrote after its own commits.
rm -f db
"$REF_OVSDB_TOOL" create-cluster db "$SCHEMA" $ADDR 2>/dev/null
start_server "$REF_OVSDB_SERVER"
transact '["Store",{"op":"insert","table":"Root",
    "row":{"name":"counter","n":0}}]' >/dev/null
run_txns "$CLIENT" unix:$PWD/db.sock >/dev/null 2>&1 || true
names > names.refmade
stop_server
start_server "$SERVER"
names > names.ours
cmp -s names.refmade names.ours || fail "we read other data than the reference wrote"
stop_server

# 8. cluster/status: the same history on both servers gives the same
# report once ids and times are masked.
mask() {
    sed -e 's/[0-9]* ms ago/N ms ago/g' \
        -e 's/[0-9a-f]\{8\}-[0-9a-f-]\{27\}/<uuid>/g' \
        -e 's/\b[0-9a-f]\{4\}\b/<id>/g'
}
for prog in ours ref; do
    rm -f db
    "$TOOL" create-cluster db "$SCHEMA" $ADDR 2>/dev/null
    if [ $prog = ours ]; then start_server "$SERVER"
    else start_server "$REF_OVSDB_SERVER"; fi
    transact '["Store",{"op":"insert","table":"Root",
        "row":{"name":"x"}}]' >/dev/null
    # The reference reports the commit of its own no-op entry a little
    # after it starts: wait until nothing is left uncommitted.
    for i in $(seq 50); do
        appctl cluster/status Store > status.$prog
        grep -q "Entries not yet committed: 0" status.$prog && break
        sleep 0.1
    done
    mask < status.$prog > status.$prog.masked
    stop_server
done
diff status.ref.masked status.ours.masked > status.diff \
    || fail "cluster/status differs from the reference's: $(cat status.diff)"
echo PASS
