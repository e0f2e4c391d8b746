# tests/cluster/outcome.sh: a transaction whose Raft entry was proposed is
# answered by what happened to that entry, on three members of ours.
#   1. The leader sends its entry, the followers take it, and the leader,
#      hearing nothing more ("stop-raft-rpc-after-sending-append-request"),
#      steps down without learning that it committed; it stays cut off for
#      more than two election timeouts (where it used to give up and run
#      the insert again, which then failed on the name index).  Once it
#      hears again, its client gets a success with the row's UUID, and
#      every member has that row once.
#   2. The leader appends an entry that no one gets ("stop-raft-rpc"); the
#      others elect a leader whose log overwrites it: the insert did not
#      happen, the member runs it again, and its client gets one row.
#   3. As 1, but cut off for good: after 10 election timers (at least
#      60 s) without a leader the client hears "unknown outcome" (not an error that says it
#      did not happen); when the member hears again, the committed row
#      comes back to it from the log, once.
#   4. A follower forwards an insert to a leader that crashes before it
#      sends any entry ("crash-before-sending-append-request"): once the
#      next leader commits an entry of its own term without it, the insert
#      cannot commit any more, so the follower runs it again (where it used
#      to wait 10 election timers and say "unknown outcome"); its client
#      gets one row.  Upstream's "txn on follower-2, leader crash before
#      sending appendReq" tests are the same.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
export LC_ALL=C
client=
trap 'kill_servers; [ -n "$client" ] && kill $client 2>/dev/null; true' EXIT

make_cluster ours ours ours
ft() { appctl "$1" cluster/failure-test "$2" > /dev/null; }
term() { status "$1" | sed -n 's/^Term: //p'; }
term_reaches() { [ "$(term "$1")" -ge "$2" ]; }
not_leader() { ! has_role "$1" leader; }
others() { for _n in $all; do [ $_n = "$1" ] || echo $_n; done; }
uuid_re='[0-9a-f]\{8\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{12\}'

# insert_bg NAME ROW: inserts ROW on member NAME in the background; the
# reply goes to ROW.out, the client's pid to $client.
insert_bg() {
    "$OUR_CLIENT" transact "unix:$PWD/$1.sock" \
        '["'$DB'",{"op":"insert","table":"Root","row":{"name":"'"$2"'"}}]' \
        > "$2.out" 2>&1 &
    client=$!
}
# answered ROW: waits (bounded) for the reply to ROW's insert.
client_done() { ! kill -0 $client 2>/dev/null; }
answered() {
    wait_until 150 "no reply to the insert of $1" client_done
    wait $client || fail "the insert of $1 failed: $(cat "$1.out")"
    client=
}
# uuids NAME ROW: the UUIDs of the Root rows named ROW on member NAME.
uuids() {
    "$OUR_CLIENT" transact "unix:$PWD/$1.sock" \
        '["'$DB'",{"op":"select","table":"Root","columns":["_uuid"],
          "where":[["name","==","'"$2"'"]]}]' | grep -o "$uuid_re"
}
# has_row ROW UUID NAME...: every member NAME has exactly one row ROW, with
# UUID.
has_row() {
    _row=$1 _uuid=$2
    shift 2
    for _m; do
        [ "$(uuids $_m $_row 2>/dev/null)" = "$_uuid" ] || return 1
    done
}
# succeeded ROW: prints the UUID of ROW's insert, which must have
# succeeded.
succeeded() {
    case $(cat "$1.out") in
        *error*) fail "the insert of $1: $(cat "$1.out")" ;;
    esac
    grep -o "$uuid_re" "$1.out" || fail "no UUID for $1: $(cat "$1.out")"
}

# 1. Committed by the next leader while the proposer is cut off.
leader=$(wait_leader 60 $all)
set -- $(others $leader)
t0=$(term $leader)
ft $leader stop-raft-rpc-after-sending-append-request
insert_bg $leader kept
new=$(wait_leader 60 $1 $2)
wait_until 60 "$new does not serve the row" sh -c \
    "$WRITER names $PWD/$new.sock | grep -qx kept"
wait_until 60 "$leader did not step down" not_leader $leader
# It gave up at two election timeouts; starting two elections after its
# first takes at least that long.
wait_until 60 "$leader did not go on with elections" \
    term_reaches $leader $((t0 + 3))
client_done \
    && fail "answered while the outcome was unknown: $(cat kept.out)"
ft $leader clear
answered kept
uuid=$(succeeded kept)
wait_until 60 "the row is not on every member once, as $uuid" \
    has_row kept "$uuid" $all
echo "committed by the next leader: ok"

# 2. Overwritten by the next leader's log.
leader=$(wait_leader 60 $all)
set -- $(others $leader)
cuts() { grep -c "truncating 1 entries from end of log" $1.log || true; }
n_cuts=$(cuts $leader)
ft $leader stop-raft-rpc
insert_bg $leader lost
new=$(wait_leader 60 $1 $2)
ft $leader clear
answered lost
uuid=$(succeeded lost)
[ "$(cuts $leader)" -gt "$n_cuts" ] \
    || fail "$leader did not cut its entry off: $(show_logs $leader)"
wait_until 60 "the row is not on every member once, as $uuid" \
    has_row lost "$uuid" $all
echo "overwritten by the next leader: ok"

# 3. Cut off for too long: the outcome is unknown.
leader=$(wait_leader 60 $all)
set -- $(others $leader)
ft $leader stop-raft-rpc-after-sending-append-request
insert_bg $leader unsure
new=$(wait_leader 60 $1 $2)
answered unsure
grep -q '"error":"unknown outcome"' unsure.out \
    || fail "not an unknown outcome: $(cat unsure.out)"
uuid=$(grep -o "$uuid_re" unsure.out | head -1)
ft $leader clear
wait_until 60 "the row is not on every member once, as $uuid" \
    has_row unsure "$uuid" $all
echo "unknown outcome: ok"

# 4. Forwarded to a leader that dies before appending it.
dead() { ! kill -0 "$(cat "$1.pid")" 2>/dev/null; }
leader=$(wait_leader 60 $all)
set -- $(others $leader)
ft $leader crash-before-sending-append-request
insert_bg $1 forwarded
wait_until 60 "the leader did not crash" dead $leader
answered forwarded
uuid=$(succeeded forwarded)
wait_until 60 "the row is not on the living members once, as $uuid" \
    has_row forwarded "$uuid" $1 $2
echo "forwarded to a leader that died: ok"
echo PASS
