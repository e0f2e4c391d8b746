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
