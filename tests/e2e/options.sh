#!/bin/sh
# tests/e2e/options.sh: every option of the reference 3.1 ovsdb-server,
# ovsdb-tool and ovsdb-client is accepted by ours, or refused with a
# message that names it as not supported; never "unrecognized".  The lists
# are the reference's (its --help, its man pages and its sources), each
# with a harmless argument; every option is tried as "OPTION --help".
# Also: --help lists what ovs-ctl and ovn-ctl look for.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
B=$OVSDB_BUILDDIR/ovsdb

SERVER_OPTS="--remote=punix:x --unixctl=x --run=true --detach
--no-self-confinement --no-chdir --pidfile --pidfile=x --overwrite-pidfile
--monitor --user=root -v -vinfo --verbose --verbose=info --log-file=x
--syslog-target=127.0.0.1:1 --syslog-method=libc -px --private-key=x -cx
--certificate=x -Cx --ca-cert=x --bootstrap-ca-cert=x --peer-ca-cert=x
--ssl-protocols=TLSv1.2 --ssl-ciphers=x --record --record=x --replay
--replay=x --sync-from=tcp:127.0.0.1:1 --sync-exclude-tables=a:b --active
--no-dbs --disable-file-column-diff -h -V"
TOOL_OPTS="-m --more --rbac-role=x -v --verbose --verbose=info -o --option
-h -V"
CLIENT_OPTS="--timestamp --force --timeout=1 -t1 --db-change-aware
--no-db-change-aware --leader-only --no-leader-only -v --verbose=info
--log-file=x --syslog-target=127.0.0.1:1 --syslog-method=libc --detach
--no-self-confinement --no-chdir --pidfile --overwrite-pidfile --monitor
--user=root --bootstrap-ca-cert=x -px -cx -Cx --private-key=x
--certificate=x --ca-cert=x --ssl-protocols=TLSv1.2 --ssl-ciphers=x
--format=csv -fcsv --data=json -djson --no-headings --pretty --bare
--max-column-width=3 --record --replay"

check() {
    prog=$1
    shift
    for opt in "$@"; do
        name=${opt%%=*}
        rc=0
        "$B/$prog" "$opt" --help >out 2>err </dev/null || rc=$?
        if grep -q "unrecognized option\|invalid option" err; then
            fail "$prog $opt: $(head -1 err)"
        elif [ $rc != 0 ]; then
            grep -q -- "$name is not supported" err \
                || fail "$prog $opt: exit $rc without naming it: $(head -1 err)"
            echo "$prog $opt: refused: $(head -1 err)"
        fi
    done
}
check ovsdb-server $SERVER_OPTS
check ovsdb-tool $TOOL_OPTS
check ovsdb-client $CLIENT_OPTS
# --cid and --election-timer belong to ovsdb-tool's cluster commands.

# Open vSwitch's test suite and scripts name modules of its library, which
# ours lack; they are accepted (and a name nobody has is still refused).
for prog in ovsdb-server ovsdb-tool ovsdb-client; do
    "$B/$prog" -vtimeval:off -vovsdb_idl:file:dbg -vfile:off --version \
        >out 2>err || fail "$prog refused -vtimeval:off: $(head -1 err)"
    if "$B/$prog" -vno_such_module:off --version >out 2>err; then
        fail "$prog accepted -vno_such_module:off"
    fi
    grep -q 'no destination, level, or module "no_such_module"' err \
        || fail "$prog: $(head -1 err)"
done

"$B/ovsdb-server" --help >help.txt
for opt in --monitor --user --no-self-confinement --disable-file-column-diff \
           --no-dbs --pidfile --detach --unixctl --remote; do
    grep -q -- "$opt" help.txt || fail "ovsdb-server --help lacks $opt"
done
# ovn-ctl decides whether to pass it by grepping --help.
"$B/ovsdb-server" --help | grep -q "disable-file-column-diff" \
    || fail "ovn-ctl would not find --disable-file-column-diff"
for prog in ovsdb-server ovsdb-tool ovsdb-client; do
    "$B/$prog" --help | grep -n "DATBASE\|msgs" \
        && fail "$prog --help carries a typo of the reference"
done

# ovs-ctl starts the server with these (self-confinement off).
"$B/ovsdb-tool" create db.db "$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema"
"$B/ovsdb-server" db.db --no-self-confinement --no-chdir \
    --remote=punix:"$PWD/db.sock" --unixctl="$PWD/ctl" \
    --pidfile="$PWD/pid" --detach --monitor --log-file="$PWD/log" \
    2>err || fail "server refused ovs-ctl's options: $(cat err)"
pid=$(cat pid)
trap 'kill $pid 2>/dev/null || true' EXIT
wait_socket "$pid" db.sock err
# --monitor: a crash of the daemon is followed by a restart.
kill -SEGV "$pid"
i=0
while [ "$(cat pid 2>/dev/null)" = "$pid" ] || [ ! -s pid ] \
      || ! kill -0 "$(cat pid)" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 300 ] || fail "--monitor did not restart the daemon"
    sleep 0.1
done
pid=$(cat pid)
wait_socket "$pid" db.sock err
grep -q "restarting" log || fail "no restart in the log"
kill "$pid"
echo "options: all accepted or refused by name"
