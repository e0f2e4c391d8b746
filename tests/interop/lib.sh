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

# run_cli_script NAME PROGRAM [OPTION...] < COMMANDS: runs each line of
# COMMANDS as "PROGRAM --db=unix:NAME.sock OPTION... LINE" against server
# NAME and prints the command, its masked output and its exit status.
run_cli_script() {
    name=$1 program=$2
    shift 2
    db="unix:$PWD/$name.sock"
    while IFS= read -r cmd; do
        rc=0
        out=$(eval "$program --db=$db $* $cmd" 2>&1 </dev/null) || rc=$?
        # Error messages name the database path; mask it.
        out=$(printf '%s\n' "$out" | sed "s|$PWD/$name.sock|SOCK|g" | mask_sorted)
        printf '$ %s %s\n%s\nrc=%s\n' "$program" "$cmd" "$out" "$rc"
    done
}

# dump_tables NAME PROGRAM [OPTION...] -- TABLE...: prints every row of
# each TABLE (via PROGRAM list) on server NAME, UUIDs masked, sorted.
dump_tables() {
    name=$1 program=$2
    shift 2
    opts=
    while [ "$1" != -- ]; do
        opts="$opts $1"
        shift
    done
    shift
    for table in "$@"; do
        echo "== $table"
        # shellcheck disable=SC2086
        $program --db="unix:$PWD/$name.sock" $opts list "$table" \
            | grep -v '^_uuid ' | mask_sorted
    done
}
