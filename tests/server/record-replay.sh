# tests/server/record-replay.sh: --record and --replay (lib/replay.h).  A
# server records its streams while clients transact over unix and TCP
# (one of them a monitor killed halfway, one listener failing); replayed
# from the recording with no client anywhere, it writes the same database
# (same rows, same UUIDs) and the same log, and exits on the recorded
# "exit" command.  Then the same for ovsdb-client: a monitor replayed with
# no server prints what it printed.  And a replay of nothing fails clearly.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
B=$OVSDB_BUILDDIR/ovsdb
export OVS_RUNDIR=$PWD   # the clients' control sockets

cat > schema <<'EOF'
{"name": "ordinals", "tables": {"ordinals": {"columns": {
  "number": {"type": "integer"}, "name": {"type": "string"}}}}}
EOF
"$B/ovsdb-tool" create db schema
mkdir rec
cp db rec/db.copy

# Strips what differs between two runs of the same thing: the time and
# process id of each log line (and the log's own name), the date and hash
# of each database record.
clean_log() {
    sed -e 's/^[0-9TZ:.-]*|[0-9]*|/|/' -e '/|poll_loop|/d' \
        -e '/|socket_util|/d' -e '/opened log file/d' \
        -e 's/[0-9]*\.ctl/N.ctl/g' "$1"
}
clean_db() {
    sed -e 's/^\(OVSDB JSON [0-9]*\).*/\1/' -e 's/"_date":[0-9]*/"_date":0/' \
        "$1"
}
unixctl() {
    python3 -c 'import rpc, sys; print(rpc.unixctl(*sys.argv[1:]))' "$@"
}

# --- Recording. ---
"$B/ovsdb-server" --record="$PWD/rec" -vfile -vvlog:off --log-file="$PWD/1.log" \
    --detach --no-chdir --pidfile="$PWD/server.pid" --unixctl="$PWD/ctl" \
    --remote=punix:"$PWD/db.sock" --remote=punix:"$PWD/no/such/dir.sock" \
    --remote=ptcp:0:127.0.0.1 db 2>err || fail "server: $(cat err)"
trap 'kill $(cat server.pid 2>/dev/null) 2>/dev/null || true' EXIT
wait_until 20 "no socket" test -S db.sock
grep -q "no/such/dir.sock: listen failed" 1.log \
    || fail "the failing listener was not logged"
port=$(sed -n 's/.*: listening on port \([0-9]*\)$/\1/p' 1.log)
[ -n "$port" ] || fail "no TCP port in the log"

"$B/ovsdb-client" --no-headings monitor unix:$PWD/db.sock ordinals ordinals \
    number name > monitor.out 2>&1 &
mon=$!
wait_until 20 "the monitor never connected" \
    grep -q 'received request, method="monitor' 1.log
for n in 1 2 3 4; do
    remote=unix:$PWD/db.sock
    [ "$n" = 3 ] && remote=tcp:127.0.0.1:$port
    [ "$n" = 4 ] && { kill -9 $mon; wait $mon 2>/dev/null || true; }
    "$B/ovsdb-client" transact "$remote" '["ordinals",
        {"op": "insert", "table": "ordinals",
         "row": {"number": '$n', "name": "n'$n'"}}]' >/dev/null
    "$B/ovsdb-client" transact unix:$PWD/db.sock '["ordinals",
        {"op": "update", "table": "ordinals", "where": [["number", "==", '$n']],
         "row": {"name": "x'$n'"}}]' >/dev/null
done
"$B/ovsdb-client" dump unix:$PWD/db.sock ordinals > dump.recorded
pid=$(cat server.pid)
unixctl "$PWD/ctl" exit >/dev/null
wait_exit "$pid"
ls rec/replay_* >/dev/null 2>&1 || fail "nothing recorded"
[ -e rec/replay_uuid_seed_1 ] || fail "the UUID seed was not recorded"

# --- Replay: no client, no socket. ---
timeout 60 "$B/ovsdb-server" --replay="$PWD/rec" -vfile -vvlog:off \
    --log-file="$PWD/2.log" --no-chdir --pidfile="$PWD/server.pid" \
    --unixctl="$PWD/ctl" \
    --remote=punix:"$PWD/db.sock" --remote=punix:"$PWD/no/such/dir.sock" \
    --remote=ptcp:0:127.0.0.1 rec/db.copy 2>err \
    || fail "the replay failed or did not end with 'exit': $(cat err)"
clean_db db > db.clear
clean_db rec/db.copy > copy.clear
grep -q '"x4"' db.clear || fail "the recorded database lacks the last update"
diff -u db.clear copy.clear || fail "the replay wrote another database"
clean_log 1.log > 1.clear
clean_log 2.log > 2.clear
grep -q 'received request, method="transact"' 1.clear \
    || fail "the log has no transactions to compare"
diff -u 1.clear 2.clear || fail "the replay logged something else"

# --- ovsdb-client: record a monitor, replay it with no server. ---
rm -f db.sock
"$B/ovsdb-server" --no-chdir --detach --pidfile="$PWD/server.pid" \
    --unixctl="$PWD/ctl" --remote=punix:"$PWD/db.sock" db 2>err \
    || fail "server: $(cat err)"
wait_until 20 "no socket" test -S db.sock
mkdir crec
"$B/ovsdb-client" --record="$PWD/crec" --detach --no-chdir \
    --pidfile="$PWD/client.pid" --log-file="$PWD/c1.log" -vfile -vvlog:off \
    --no-headings monitor unix:$PWD/db.sock ordinals ordinals number name \
    > c1.out 2> c1.err
cpid=$(cat client.pid)
"$B/ovsdb-client" transact unix:$PWD/db.sock '["ordinals",
    {"op": "delete", "table": "ordinals", "where": [["number", "==", 2]]}]' \
    >/dev/null
wait_until 20 "the monitor did not print the delete" grep -q delete c1.out
unixctl "$PWD/ctl" exit >/dev/null
wait_until 20 "the client did not exit with the server" \
    sh -c "! kill -0 $cpid 2>/dev/null"
# Detached as recorded (a daemon opens its streams in another order); the
# pidfile exists from when --detach returns until the client exits.
"$B/ovsdb-client" --replay="$PWD/crec" --detach --no-chdir \
    --pidfile="$PWD/client.pid" --log-file="$PWD/c2.log" -vfile -vvlog:off \
    --no-headings monitor unix:$PWD/db.sock ordinals ordinals number name \
    > c2.out 2> c2.err
wait_until 60 "the replayed client did not exit" sh -c '! test -e client.pid'
grep -q delete c2.out || fail "the replayed monitor printed no delete"
diff -u c1.out c2.out || fail "the replayed monitor printed something else"
grep -q "receive failed" c1.err || fail "no error when the server went"
grep -v "opened log file" c1.err > c1.errs
grep -v "opened log file" c2.err > c2.errs
diff -u c1.errs c2.errs || fail "the replayed monitor's errors differ"
clean_log c1.log > c1.clear
clean_log c2.log > c2.clear
diff -u c1.clear c2.clear || fail "the replayed client logged something else"

# --- A replay of nothing says so. ---
mkdir empty
if "$B/ovsdb-client" --replay="$PWD/empty" list-dbs unix:$PWD/db.sock \
    > out 2> err; then
    fail "a replay with no recording succeeded"
fi
grep -q "was not recorded" err || fail "unclear error: $(cat err)"
echo PASS
