# tests/server/monitor-restart.sh: under --monitor, a server restarted after
# a crash serves the databases and remotes that control commands left, not
# those of its command line: ovsdb-server/add-db, remove-db, add-remote and
# remove-remote survive the crash, as with the reference.  The first restart
# comes at once (a second within 10 seconds would wait).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v ovs-appctl >/dev/null || skip "ovs-appctl not installed"
B=$OVSDB_BUILDDIR/ovsdb

"$B/ovsdb-tool" create a.db "$OVSDB_SRCDIR/tests/storage/test.ovsschema"
"$B/ovsdb-tool" create b.db "$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema"
"$B/ovsdb-tool" create c.db "$OVSDB_SRCDIR/tests/data/schemas/vswitch.ovsschema"
"$B/ovsdb-server" a.db b.db --no-chdir --remote=punix:"$PWD/one.sock" \
    --unixctl="$PWD/ctl" --pidfile="$PWD/pid" --detach --monitor \
    --log-file="$PWD/log" 2>err || fail "server did not start: $(cat err)"
pid=$(cat pid)
trap 'kill $(cat pid) 2>/dev/null || true' EXIT
wait_socket "$pid" one.sock err
ctl() { ovs-appctl -t "$PWD/ctl" "$@"; }

b_name=$(ctl ovsdb-server/list-dbs | grep -v '^_Server$\|^Store$')
ctl ovsdb-server/remove-db "$b_name"
ctl ovsdb-server/add-db c.db
ctl ovsdb-server/add-remote punix:"$PWD/two.sock"
ctl ovsdb-server/remove-remote punix:"$PWD/one.sock"
wait_until 30 "two.sock never listened" test -S two.sock
ctl ovsdb-server/list-dbs > dbs.before
ctl ovsdb-server/list-remotes > remotes.before
printf 'Open_vSwitch\nStore\n_Server\n' | diff -u - dbs.before \
    || fail "the control commands did not take effect"

# A crash: the monitor starts a new server, at once.
rm -f two.sock
kill -SEGV "$pid"
wait_until 30 "--monitor did not restart the server" \
    sh -c '[ -s pid ] && [ "$(cat pid)" != '"$pid"' ] && kill -0 "$(cat pid)"'
wait_until 30 "the restarted server does not answer" \
    ovs-appctl -t "$PWD/ctl" version
wait_until 30 "the restarted server forgot the added remote" test -S two.sock
grep -q "waiting until 10 seconds" log && fail "the first restart waited"
ctl ovsdb-server/list-dbs | diff -u dbs.before - \
    || fail "the restarted server serves other databases"
ctl ovsdb-server/list-remotes | diff -u remotes.before - \
    || fail "the restarted server has other remotes"
[ -e one.sock ] && fail "the restarted server listens on a removed remote"
grep -q "restarting" log || fail "no restart in the log"

# The new server's own changes are kept for the next restart too.
ctl ovsdb-server/remove-db Open_vSwitch
pid=$(cat pid)
kill -SEGV "$pid"
wait_until 30 "--monitor did not restart the server again" \
    sh -c '[ -s pid ] && [ "$(cat pid)" != '"$pid"' ] && kill -0 "$(cat pid)"'
wait_until 60 "the restarted server does not answer" \
    ovs-appctl -t "$PWD/ctl" version
printf 'Store\n_Server\n' > dbs.after
ctl ovsdb-server/list-dbs | diff -u dbs.after - \
    || fail "the second restart lost a removal"
ctl exit
echo PASS
