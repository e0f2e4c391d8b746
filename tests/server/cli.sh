#!/bin/sh
# tests/server/cli.sh: the command line: --help, --version, --detach with
# --pidfile (a second server on the same pidfile refuses to start),
# default database and control socket locations, -v and --log-file.
. "$OVSDB_SRCDIR/tests/server/lib.sh"

ovsdb-server --help >help.out || fail "--help"
grep -q -- '--remote=REMOTE' help.out || fail "--help lists --remote"
grep -q -- '--pidfile' help.out || fail "--help lists daemon options"
ovsdb-server --version >version.out || fail "--version"
grep -q 'allocator' version.out || fail "--version names the allocator"
if ovsdb-server --no-such-option 2>/dev/null; then
    fail "unknown option accepted"
fi

# Default database ($OVS_DBDIR/conf.db) and control socket
# ($OVS_RUNDIR/ovsdb-server.PID.ctl), detached with a pidfile.
export OVS_DBDIR=$PWD OVS_RUNDIR=$PWD OVS_LOGDIR=$PWD
create_db ovsdb-tool conf.db "$SCHEMA"
ovsdb-server --detach --no-chdir --pidfile --log-file \
    --remote="punix:$PWD/db.sock" -vfile:dbg || fail "--detach"
[ -f ovsdb-server.pid ] || fail "no pidfile"
pid=$(cat ovsdb-server.pid)
SERVER_PIDS="$SERVER_PIDS $pid"
kill -0 "$pid" || fail "detached server not running"
[ -S "ovsdb-server.$pid.ctl" ] || fail "default control socket missing"
[ -f ovsdb-server.log ] || fail "default log file missing"
python3 - "$PWD/db.sock" <<'PYEOF' || fail "detached server does not serve"
import sys, rpc
c = rpc.Client("unix:" + sys.argv[1])
assert c.call("list_dbs", [])["result"] == ["Example", "_Server"]
PYEOF

# A second server with the same pidfile refuses to start.
if ovsdb-server --pidfile --remote="punix:$PWD/db2.sock" conf.db \
        2>second.err; then
    fail "second server started on a held pidfile"
fi
cat second.err

kill "$pid"
for i in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
done
kill -0 "$pid" 2>/dev/null && fail "server survived SIGTERM"
[ -e ovsdb-server.pid ] && fail "pidfile left behind"
[ -e db.sock ] && fail "socket left behind"

# A database that cannot be opened is a fatal error.
if ovsdb-server --remote="punix:$PWD/x.sock" nonexistent.db 2>err.out; then
    fail "started without its database"
fi
cat err.out
exit 0
