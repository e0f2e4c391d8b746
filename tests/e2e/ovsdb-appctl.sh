# tests/e2e/ovsdb-appctl.sh: our control client, ovsdb-appctl, against our
# server (and the reference's, when installed), compared with Open
# vSwitch's ovs-appctl on the same commands: output, error text and exit
# status; targets by pidfile name and by socket path; the failures (no
# pidfile, a stale one, no socket, an error answer, a daemon that never
# answers within --timeout).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
APPCTL=$OVSDB_BUILDDIR/utilities/ovsdb-appctl
export OVS_RUNDIR=$PWD

"$OUR_TOOL" create db "$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema"
"$OUR_SERVER" db --detach --no-chdir --pidfile --log-file="$PWD/server.log" \
    --remote=punix:"$PWD/db.sock" 2>err || fail "server: $(cat err)"
trap 'kill $(cat ovsdb-server.pid 2>/dev/null) 2>/dev/null || true' EXIT
wait_until 20 "no socket" test -S db.sock
pid=$(cat ovsdb-server.pid)
ctl=$PWD/ovsdb-server.$pid.ctl

# run NAME PROGRAM ARG...: runs it, keeping stdout, stderr (program name
# and log prefixes made neutral) and the exit status in NAME.*.
run() {
    name=$1
    shift
    rc=0
    "$@" >"$name.out" 2>"$name.raw" || rc=$?
    sed -e 's/^ovs-appctl: /APPCTL: /' -e 's/^ovsdb-appctl: /APPCTL: /' \
        -e '/|WARN|/d' "$name.raw" >"$name.err"
    echo "$rc" >"$name.rc"
}
expect() {
    name=$1 rc=$2 what=$3
    [ "$(cat "$name.rc")" = "$rc" ] ||
        fail "$what: exit $(cat "$name.rc"), expected $rc ($(cat "$name.err"))"
}

# Ours alone: what it must do.
run ver "$APPCTL" version
expect ver 0 "version by the default target"
grep -q "ovsdb-server (ovsdb)" ver.out || fail "version: $(cat ver.out)"
run list "$APPCTL" -t ovsdb-server list-commands
expect list 0 "list-commands"
grep -q "memory/show" list.out || fail "list-commands lacks memory/show"
run path "$APPCTL" -t "$ctl" vlog/list
expect path 0 "a socket path as target"
run bad "$APPCTL" no/such-command
expect bad 2 "an unknown command"
grep -q "APPCTL: ovsdb-server: server returned an error" bad.err ||
    fail "the error answer: $(cat bad.err)"
run nopid "$APPCTL" -t nobody version
expect nopid 1 "no pidfile"
grep -q "cannot read pidfile \"$PWD/nobody.pid\" (No such file" nopid.err ||
    fail "no pidfile: $(cat nopid.err)"
echo 99999 > stale.pid
run stale "$APPCTL" -t stale version
expect stale 1 "a stale pidfile"
run nosock "$APPCTL" -t "$PWD/no.ctl" version
expect nosock 1 "no socket"
grep -q "cannot connect to \"$PWD/no.ctl\"" nosock.err ||
    fail "no socket: $(cat nosock.err)"
run noarg "$APPCTL"
expect noarg 1 "no command"
run zero "$APPCTL" -T 0 version
expect zero 1 "--timeout=0"
# A socket that accepts and never answers: --timeout ends the wait.
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
time.sleep(60)' "$PWD/hang.ctl" &
hang=$!
wait_until 20 "no hanging socket" test -S hang.ctl
run hung "$APPCTL" -t "$PWD/hang.ctl" --timeout=1 version
expect hung 142 "a daemon that never answers, with --timeout=1"
grep -q "timed out" hung.err || fail "the timeout was not reported"

# The same commands with ovs-appctl: the same answers, save the program
# name (and ovs-appctl's own log lines).
if command -v ovs-appctl >/dev/null; then
    for case in "version" "-t ovsdb-server list-commands" \
                "-t $ctl vlog/list" "no/such-command" "-t nobody version" \
                "-t $PWD/no.ctl version" "-T 0 version" "vlog/set ANY:xyz" \
                "-t ovsdb-server memory/show extra-arg"; do
        # shellcheck disable=SC2086
        run ours "$APPCTL" $case
        # ovs-appctl's default target is ovs-vswitchd; ours ovsdb-server.
        case $case in -*) ref_case=$case ;; *) ref_case="-t ovsdb-server $case" ;; esac
        # shellcheck disable=SC2086
        run theirs ovs-appctl $ref_case
        [ "$(cat ours.rc)" = "$(cat theirs.rc)" ] ||
            fail "$case: exit $(cat ours.rc), ovs-appctl $(cat theirs.rc)"
        diff -u theirs.out ours.out || fail "$case: another output"
        diff -u theirs.err ours.err || fail "$case: another error text"
    done
    run theirs ovs-appctl -t "$PWD/hang.ctl" --timeout=1 version
    expect theirs 142 "ovs-appctl with --timeout (the comparison itself)"
else
    echo "ovs-appctl not installed: no comparison with it"
fi
kill $hang 2>/dev/null || true

# Against the reference's server too, if installed.
if has_reference; then
    mkdir ref
    "$REF_OVSDB_TOOL" create ref/db "$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema"
    OVS_RUNDIR=$PWD/ref "$REF_OVSDB_SERVER" ref/db --detach --no-chdir \
        --pidfile --log-file="$PWD/ref/server.log" \
        --remote=punix:"$PWD/ref/db.sock" 2>err || fail "reference: $(cat err)"
    wait_until 20 "no reference pidfile" test -s ref/ovsdb-server.pid
    OVS_RUNDIR=$PWD/ref run rver "$APPCTL" version
    expect rver 0 "version of the reference's server"
    grep -q "Open vSwitch" rver.out || fail "reference version: $(cat rver.out)"
    OVS_RUNDIR=$PWD/ref run rmem "$APPCTL" -t ovsdb-server memory/show
    expect rmem 0 "memory/show of the reference's server"
    OVS_RUNDIR=$PWD/ref run rexit "$APPCTL" exit
    expect rexit 0 "exit of the reference's server"
else
    echo "reference ovsdb-server not installed: not tried against it"
fi

run exit "$APPCTL" exit
expect exit 0 "exit"
wait_exit "$pid" || fail "the server did not exit"
echo PASS
