# tests/e2e/layering.sh: the source tree's layers hold (ovsdb/README.md).
# Who calls whom is read from the object files' symbols by layering.py;
# includes are checked here.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
if grep -n '#include "ovsdb/' "$OVSDB_SRCDIR"/lib/*.[ch]; then
    fail "lib/ includes ovsdb/ headers (above)"
fi
# A folder's private header is included only by its own files.
for h in "$OVSDB_SRCDIR"/ovsdb/*/*-private.h; do
    dir=$(basename "$(dirname "$h")")
    name=ovsdb/$dir/$(basename "$h")
    if grep -rln "#include \"$name\"" "$OVSDB_SRCDIR"/ovsdb \
           "$OVSDB_SRCDIR"/lib | grep -v "/ovsdb/$dir/"; then
        fail "$name is included outside ovsdb/$dir/ (above)"
    fi
done
python3 "$OVSDB_SRCDIR/tests/e2e/layering.py" "$OVSDB_BUILDDIR" \
    || fail "the layering is broken (above)"
# Only the allocator module (lib/allocator.c, and lib/allocator-tune.c, its
# built-in tuning, a separate object so that only the server links it)
# knows which allocator is linked.
if grep -rln 'USE_JEMALLOC\|USE_TCMALLOC' "$OVSDB_SRCDIR"/lib \
       "$OVSDB_SRCDIR"/ovsdb --include='*.[ch]' \
       | grep -v 'lib/allocator.c\|lib/allocator-tune.c'; then
    fail "allocator-specific code outside lib/allocator*.c (above)"
fi
