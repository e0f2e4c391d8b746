#!/bin/sh
# tests/e2e/man.sh: the manual pages render with man(1) without a warning,
# and every option that a program's --help lists is in its page.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v man >/dev/null || fail "man is not installed (run.sh installs man-db)"
B=$OVSDB_BUILDDIR/ovsdb
for prog in ovsdb-server ovsdb-tool ovsdb-client; do
    page=$OVSDB_SRCDIR/man/$prog.1
    [ -f "$page" ] || fail "no $page"
    MANWIDTH=80 man --warnings -l "$page" >"$prog.txt" 2>"$prog.warn" \
        || fail "man -l $page failed: $(cat "$prog.warn")"
    [ ! -s "$prog.warn" ] || fail "$prog.1: $(cat "$prog.warn")"
    grep -q "^NAME" "$prog.txt" || fail "$prog.1 did not render"
    # Rendered text hyphenates and breaks lines: look in the source, with
    # roff's escaped hyphens undone.
    sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page" >"$prog.src"
    "$B/$prog" --help >"$prog.help"
    for opt in $(grep -oE -- '--[a-z][a-z-]*' "$prog.help" | sort -u); do
        grep -q -- "$opt\\b" "$prog.src" \
            || fail "$prog --help lists $opt, $prog.1 does not"
    done
    n=$(grep -oE -- '--[a-z][a-z-]*' "$prog.help" | sort -u | wc -l)
    echo "$prog.1: renders cleanly, has all $n options of --help"
done
