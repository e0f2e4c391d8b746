# tests/interop/lib.sh: helpers for the interoperability tests: the real
# OVSDB clients (which nobody here wrote) against our server, and the same
# commands against the reference server for comparison.
#     . "$OVSDB_SRCDIR/tests/interop/lib.sh"
. "$OVSDB_SRCDIR/tests/server/lib.sh"

# The Debian clients' Python modules live in the system interpreter.
SYS_PYTHON=/usr/bin/python3

# require_client PROGRAM...: skips the test unless every PROGRAM is on PATH.
require_client() {
    for p in "$@"; do
        command -v "$p" >/dev/null 2>&1 || skip "$p not installed"
    done
}

# require_pymodule MODULE: skips unless the system python3 can import it.
require_pymodule() {
    $SYS_PYTHON -c "import $1" 2>/dev/null || skip "python module $1 not installed"
}

# mask: replaces UUIDs with <uuid> and sorts lines, so outputs that differ
# only in random UUIDs and hash order compare equal.
mask_sorted() {
    sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' \
        | LC_ALL=C sort
}

# compare_outputs NAME: diffs ref.NAME against ours.NAME (both masked).
compare_outputs() {
    if ! diff -u "ref.$1" "ours.$1"; then
        fail "$1: our server's results differ from the reference's (- reference, + ours)"
    fi
}
