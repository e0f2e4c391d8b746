# tests/e2e/unixctl-appctl.sh: the REFERENCE ovs-appctl drives our unixctl
# server (tests/unit/lib/test-unixctl serve), proving wire compatibility; also
# --detach, --pidfile and clean removal of the socket and pidfile on
# SIGTERM.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
APPCTL=$(command -v ovs-appctl || true)
[ -n "$APPCTL" ] || skip "reference ovs-appctl not installed"

# alive PID: true if PID runs (a zombie nobody reaps does not count).
alive() {
    [ -d /proc/$1 ] && ! grep -q '^State:[[:space:]]*Z' /proc/$1/status
}

SERVER=$OVSDB_BUILDDIR/tests/unit/lib/test-unixctl
CTL=$PWD/ctl.sock
export OVS_RUNDIR=$PWD OVS_LOGDIR=$PWD

"$SERVER" serve --unixctl="$CTL" --detach --no-chdir --pidfile=test.pid \
    --log-file -vconsole:off || fail "server did not start"
[ -S "$CTL" ] || fail "no control socket after --detach returned"
[ -f test.pid ] || fail "no pidfile"
pid=$(cat test.pid)
alive "$pid" || fail "pid $pid in pidfile is not running"

out=$("$APPCTL" -t "$CTL" echo a "b c") || fail "echo failed"
expect_eq "$out" "a b c" "echo reply"

out=$("$APPCTL" -t "$CTL" version)
expect_eq "$out" "test-unixctl (ovsdb) 9.9.9" "version"

# Errors: exit status 2 and the message on stderr, as the reference.
if "$APPCTL" -t "$CTL" fail 2>err.txt; then fail "fail succeeded"; fi
grep -q "^it failed$" err.txt || fail "error text: $(cat err.txt)"
if "$APPCTL" -t "$CTL" nosuch 2>err.txt; then fail "nosuch succeeded"; fi
grep -q '"nosuch" is not a valid command' err.txt || fail "$(cat err.txt)"

out=$("$APPCTL" -t "$CTL" list-commands)
echo "$out" | grep -q "^  vlog/set                {spec | PATTERN:destination:pattern}$" \
    || fail "list-commands: $out"

"$APPCTL" -t "$CTL" vlog/set test_unixctl:file:dbg || fail "vlog/set"
out=$("$APPCTL" -t "$CTL" vlog/list | grep '^test_unixctl ')
expect_eq "$out" "test_unixctl       OFF       INFO        DBG" "vlog/list"

# The log file has reference-format lines.
log=$PWD/test-unixctl.log
[ -f "$log" ] || fail "no log file"
grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z\|[0-9]{5}\|vlog\|INFO\|opened log file ' "$log" \
    || fail "log format: $(cat "$log")"
mv "$log" "$log.old"
"$APPCTL" -t "$CTL" vlog/reopen || fail "vlog/reopen"
[ -f "$log" ] || fail "vlog/reopen did not recreate the log"

# A second instance refuses the live pidfile.
if "$SERVER" serve --unixctl="$PWD/ctl2.sock" --pidfile=test.pid \
        -vconsole:off 2>err2.txt; then
    fail "second instance started despite the pidfile"
fi
grep -q "^test-unixctl: $PWD/test.pid: already running as pid $pid, aborting$" \
    err2.txt || fail "second instance: $(cat err2.txt)"
# --overwrite-pidfile takes over (the first instance keeps running).
"$SERVER" serve --unixctl="$PWD/ctl3.sock" --pidfile=test.pid \
    --overwrite-pidfile --detach --no-chdir -vconsole:off \
    || fail "--overwrite-pidfile refused"
pid3=$(cat test.pid)
[ "$pid3" != "$pid" ] || fail "pidfile not overwritten"
"$APPCTL" -t "$PWD/ctl3.sock" exit || fail "exit third instance"

# SIGTERM: clean exit removes socket and pidfile.
kill "$pid"
for i in $(seq 50); do
    alive "$pid" || break
    sleep 0.1
done
alive "$pid" && fail "still running after SIGTERM"
[ ! -e "$CTL" ] || fail "control socket left behind"
[ ! -e test.pid ] || fail "pidfile left behind"

# Default names: "<rundir>/<program>.pid" and "<rundir>/<program>.<pid>.ctl",
# which "ovs-appctl -t PROGRAM" finds through the pidfile.
"$SERVER" serve --pidfile --detach --no-chdir -vconsole:off \
    || fail "default-name instance"
dpid=$(cat test-unixctl.pid)
[ -S "test-unixctl.$dpid.ctl" ] || fail "no test-unixctl.$dpid.ctl"
out=$("$APPCTL" -t test-unixctl echo by name) || fail "appctl -t by name"
expect_eq "$out" "by name" "echo by program name"
"$APPCTL" -t test-unixctl exit || fail "exit by name"

# "exit" through appctl on a fresh instance.
"$SERVER" serve --unixctl="$CTL" --detach --no-chdir -vconsole:off \
    || fail "restart failed"
"$APPCTL" -t "$CTL" exit || fail "exit"
exit 0
