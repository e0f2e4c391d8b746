# tests/e2e/lib.sh: helpers for end-to-end tests.  Source it:
#     . "$OVSDB_SRCDIR/tests/e2e/lib.sh"
# Each test runs in a fresh $TEST_TMPDIR (the current directory).
set -e

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }

# has_reference: true if the reference Open vSwitch programs are installed.
has_reference() {
    [ -x /usr/sbin/ovsdb-server ] || [ -x /usr/bin/ovsdb-server ]
}
REF_OVSDB_SERVER=$(command -v /usr/sbin/ovsdb-server || true)
REF_OVSDB_TOOL=/usr/bin/ovsdb-tool
REF_OVSDB_CLIENT=/usr/bin/ovsdb-client

# expect_eq ACTUAL EXPECTED MESSAGE
expect_eq() {
    [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

# wait_socket PID SOCKET ERRFILE: waits up to 10 s for the server PID to
# create the unix socket SOCKET; fails, with the last line of ERRFILE, if
# the server exits first, or if it does not create the socket in time.
wait_socket() {
    i=0
    while [ ! -S "$2" ]; do
        kill -0 "$1" 2>/dev/null \
            || fail "server exited: $(tail -1 "$3" 2>/dev/null)"
        i=$((i + 1))
        [ $i -lt 100 ] || fail "server did not create $2"
        sleep 0.1
    done
}
