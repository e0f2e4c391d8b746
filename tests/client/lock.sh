# tests/client/lock.sh: "lock", "steal" and "unlock" print the reply, then
# each "locked" or "stolen" notification, as the reference ovsdb-client;
# our client and the reference's contend for the same lock.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/client/lib.sh"

has_reference || skip "reference ovsdb-client not installed"

start_test_server "$SCHEMAS/types.ovsschema"
S=$SOCK

# detached NAME BIN ARGS...: runs a lock command that stays connected.
detached() {
    name=$1 bin=$2
    shift 2
    "$bin" --detach --no-chdir --pidfile="$PWD/$name.pid" "$@" \
        >"$name.out" 2>"$name.err" || fail "$name: $(cat "$name.err")"
    server_pids="$server_pids $(cat "$name.pid")"
}

# wait_for FILE LINES: waits until FILE has LINES lines.
wait_for() {
    i=0
    while [ "$(wc -l <"$1")" -lt "$2" ]; do
        i=$((i + 1))
        [ $i -lt 50 ] || fail "$1: $(cat "$1")"
        sleep 0.1
    done
}

detached our-lock "$OUR_CLIENT" lock "$S" L
expect_eq "$(cat our-lock.out)" '{"locked":true}' "our lock"
detached ref-lock "$REF_OVSDB_CLIENT" lock "$S" L
expect_eq "$(cat ref-lock.out)" '{"locked":false}' "reference lock"

# Our steal takes it from our first client.
detached our-steal "$OUR_CLIENT" steal "$S" L
expect_eq "$(cat our-steal.out)" '{"locked":true}' "our steal"
wait_for our-lock.out 3
expect_eq "$(sed -n 2,3p our-lock.out)" 'stolen
["L"]' "stolen notification"

# The reference steals it back; our stealer is told.
detached ref-steal "$REF_OVSDB_CLIENT" steal "$S" L
wait_for our-steal.out 3
expect_eq "$(sed -n 2,3p our-steal.out)" 'stolen
["L"]' "stolen from our steal"

# Through our detached client's control socket, as the reference allows:
# more requests on the same connection, then "exit".
steal_pid=$(cat our-steal.pid)
ctl=$PWD/ovsdb-client.$steal_pid.ctl
ovs-appctl -t "$ctl" unlock L >/dev/null
wait_for our-steal.out 4
expect_eq "$(sed -n 4p our-steal.out)" '{}' "unlock reply"
ovs-appctl -t "$ctl" exit
i=0
while kill -0 "$steal_pid" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 50 ] || fail "our client did not exit"
    sleep 0.1
done

# A client whose lock was stolen stays in the queue, ahead of the later
# waiter: when the reference's stealer goes away, our first client gets
# the lock back.
kill "$(cat ref-steal.pid)"
wait_for our-lock.out 5
expect_eq "$(sed -n 4,5p our-lock.out)" 'locked
["L"]' "locked notification"
expect_eq "$(cat ref-lock.out)" '{"locked":false}' "reference waiter"

# "unlock" without the lock: nothing on stdout, as the reference, and
# the server's error on stderr.
set +e
timeout 1 "$OUR_CLIENT" unlock "$S" L >unlock.out 2>unlock.err
set -e
expect_eq "$(cat unlock.out)" "" "unlock without lock"
grep -q 'unlock request returned error' unlock.err \
    || fail "unlock error: $(cat unlock.err)"
