# tests/e2e/version.sh: every program answers --version with the allocator.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
for p in ovsdb-server ovsdb-tool ovsdb-client; do
    out=$("$OVSDB_BUILDDIR/ovsdb/$p" --version)
    echo "$out"
    echo "$out" | head -n 1 | grep -q "^$p (ovsdb) " || fail "$p: bad first line"
    echo "$out" | grep -Eq '^allocator: (glibc|jemalloc|tcmalloc)-[0-9]+\.[0-9]+' \
        || fail "$p: no allocator line"
done
# The allocator in --version is the one the binary is linked with.
alloc=$(grep '^ALLOCATOR = ' "$OVSDB_BUILDDIR/Makefile" | sed 's/.*= //')
"$OVSDB_BUILDDIR/ovsdb/ovsdb-server" --version | grep -q "^allocator: $alloc-" \
    || fail "--version does not name the configured allocator $alloc"
# tests/server/allocator-stats.sh checks that the binary links it.
