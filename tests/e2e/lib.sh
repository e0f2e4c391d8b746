# tests/e2e/lib.sh: the one shell library of the test suite.  Every shell
# test sources it, directly or through its area's lib.sh:
#     . "$OVSDB_SRCDIR/tests/e2e/lib.sh"
# Each test runs in a fresh $TEST_TMPDIR (the current directory), made by
# tests/run, which also kills whatever the test leaves running.
#
# Outcomes
#   fail MESSAGE            exits 1.
#   skip MESSAGE            exits 77: only for what the machine lacks (the
#                           reference, a client, python3), never because a
#                           program of ours fails.
#   expect_eq ACTUAL EXPECTED MESSAGE
#
# Programs: OUR_SERVER, OUR_TOOL, OUR_CLIENT (the built ones; "ovsdb-server"
#   etc. on PATH are the same), and the reference's REF_OVSDB_SERVER,
#   REF_OVSDB_TOOL, REF_OVSDB_CLIENT, used by name and only where a test
#   compares with it; has_reference says whether it is installed,
#   sanitized_build whether ours were built with --enable-sanitizers.
#
# Servers (each known by a NAME: NAME.sock, NAME.ctl, NAME.log, NAME.stderr,
# NAME.pid in the current directory; all are killed at exit)
#   create_db TOOL DB SCHEMA    creates DB with TOOL; fails if TOOL cannot.
#   serve NAME PROGRAM ARG...   starts PROGRAM ARG... (databases, options)
#                               listening on unix:$PWD/NAME.sock, waits until
#                               the socket exists; fails if it exits first.
#                               Sets SERVER_PID and SOCK (the remote).
#   start_server NAME SERVER TOOL [ARG...]
#                               creates NAME.db from $SCHEMA with TOOL, then
#                               serve NAME SERVER NAME.db ARG....
#   stop_server NAME            SIGTERM, then waits until it has exited.
#   kill_server NAME            SIGKILL, then waits until it has exited.
#   wait_socket PID SOCKET ERRFILE   (what serve waits with)
#   wait_exit PID [SECONDS]     waits until PID has exited (default 20 s).
#
# Waiting and ports
#   wait_until SECONDS MESSAGE COMMAND...
#                               retries COMMAND every 0.1 s until it
#                               succeeds; fails with MESSAGE after SECONDS.
#   free_port                   prints a TCP port on 127.0.0.1 that is free
#                               and that no other test of this run gets.
#
# Python: PYTHONPATH holds tests/, whose rpc.py is the suite's one JSON-RPC
# client ("import rpc").
set -e

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }

# expect_eq ACTUAL EXPECTED MESSAGE
expect_eq() {
    [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

OUR_SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
OUR_TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
OUR_CLIENT=$OVSDB_BUILDDIR/ovsdb/ovsdb-client

# sanitized_build: true if the programs under test were built with
# --enable-sanitizers.
sanitized_build() {
    grep -q '^SANITIZER_FLAGS = .*-fsanitize' "$OVSDB_BUILDDIR/Makefile" \
        2>/dev/null
}
# (for the Python helpers: their memory bounds mean nothing under ASan)
sanitized_build && export OVSDB_SANITIZED=1

# build_allocator: prints the allocator our build runs on (jemalloc,
# tcmalloc or glibc), as ovsdb-server --version names it: linked from its
# archive, it shows in no ldd.
build_allocator() {
    "$OVSDB_BUILDDIR/ovsdb/ovsdb-server" --version \
        | sed -n 's/^allocator: \([a-z]*\)-.*/\1/p'
}

# has_reference: true if the reference Open vSwitch programs are installed.
has_reference() {
    [ -x /usr/sbin/ovsdb-server ] || [ -x /usr/bin/ovsdb-server ]
}
REF_OVSDB_SERVER=$(command -v /usr/sbin/ovsdb-server || true)
REF_OVSDB_TOOL=/usr/bin/ovsdb-tool
REF_OVSDB_CLIENT=/usr/bin/ovsdb-client

SCHEMA=${SCHEMA:-$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema}
export PYTHONPATH=$OVSDB_SRCDIR/tests${PYTHONPATH:+:$PYTHONPATH}

# The functions below keep their state in variables named _e2e_*, since a
# shell function's variables are the caller's too (a loop's "i" must
# survive "serve").
SERVER_PIDS=
kill_servers() {
    for _e2e_pid in $SERVER_PIDS; do
        kill "$_e2e_pid" 2>/dev/null || true
    done
}
trap kill_servers EXIT

# alive PID: true while PID runs (a zombie has exited).
alive() {
    _e2e_state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
    [ -n "$_e2e_state" ] && [ "$_e2e_state" != Z ]
}

wait_exit() {
    _e2e_n=0
    while alive "$1"; do
        _e2e_n=$((_e2e_n + 1))
        [ $_e2e_n -le $((${2:-20} * 10)) ] || return 1
        sleep 0.1
    done
    wait "$1" 2>/dev/null || true
}

# wait_socket PID SOCKET ERRFILE: waits up to 20 s for the server PID to
# create the unix socket SOCKET; fails, with the last lines of ERRFILE, if
# the server exits first, or if it does not create the socket in time.
wait_socket() {
    _e2e_n=0
    while [ ! -S "$2" ]; do
        alive "$1" || fail "server exited: $(tail -3 "$3" 2>/dev/null)"
        _e2e_n=$((_e2e_n + 1))
        [ $_e2e_n -lt 200 ] || fail "server did not create $2 in 20 s"
        sleep 0.1
    done
}

wait_until() {
    _e2e_secs=$1 _e2e_what=$2
    shift 2
    _e2e_n=0
    until "$@"; do
        _e2e_n=$((_e2e_n + 1))
        [ $_e2e_n -lt $((_e2e_secs * 10)) ] \
            || fail "$_e2e_what (waited $_e2e_secs s)"
        sleep 0.1
    done
}

create_db() {
    rm -f "$2"
    "$1" create "$2" "$3" || fail "$1 create $2 $3 failed"
}

# serve also sets "pid" (= SERVER_PID), as tests/server/lib.sh used to.
serve() {
    _e2e_name=$1 _e2e_program=$2
    shift 2
    rm -f "$_e2e_name.sock" "$_e2e_name.ctl"
    "$_e2e_program" "$@" --remote="punix:$PWD/$_e2e_name.sock" \
        --unixctl="$PWD/$_e2e_name.ctl" --log-file="$PWD/$_e2e_name.log" \
        2>>"$_e2e_name.stderr" </dev/null &
    SERVER_PID=$!
    pid=$SERVER_PID
    SERVER_PIDS="$SERVER_PIDS $SERVER_PID"
    echo "$SERVER_PID" >"$_e2e_name.pid"
    SOCK=unix:$PWD/$_e2e_name.sock
    wait_socket "$SERVER_PID" "$_e2e_name.sock" "$_e2e_name.stderr"
    # The socket exists from bind(); wait until it also accepts.
    python3 -c 'import rpc, sys; sys.exit(not rpc.wait_for_socket(sys.argv[1]))' \
        "$PWD/$_e2e_name.sock" || fail "$_e2e_name ($_e2e_program) does not" \
            "accept: $(tail -3 "$_e2e_name.stderr")"
}

start_server() {
    _e2e_sname=$1 _e2e_server=$2 _e2e_tool=$3
    shift 3
    create_db "$_e2e_tool" "$_e2e_sname.db" "$SCHEMA"
    serve "$_e2e_sname" "$_e2e_server" "$_e2e_sname.db" "$@"
}

stop_server() {
    _e2e_pid=$(cat "$1.pid")
    kill "$_e2e_pid" 2>/dev/null || true
    wait_exit "$_e2e_pid" || {
        kill -9 "$_e2e_pid" 2>/dev/null || true
        fail "$1 (pid $_e2e_pid) did not exit within 20 s of SIGTERM"
    }
}

kill_server() {
    _e2e_pid=$(cat "$1.pid")
    kill -9 "$_e2e_pid" 2>/dev/null || true
    wait_exit "$_e2e_pid" || fail "$1 (pid $_e2e_pid) survived SIGKILL"
}

# free_port: see free_port() in tests/rpc.py (ports 20000-32767, below
# Linux's ephemeral range, each claimed in $TEST_PORTDIR for the whole run).
free_port() {
    python3 -c 'import rpc; print(rpc.free_port())' \
        || fail "free_port: no free port found"
}
