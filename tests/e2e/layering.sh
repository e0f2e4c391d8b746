# tests/e2e/layering.sh: lib/ never includes an ovsdb/ header.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
if grep -n '#include "ovsdb/' "$OVSDB_SRCDIR"/lib/*.[ch]; then
    fail "lib/ includes ovsdb/ headers (above)"
fi
# Only the allocator module (lib/allocator.c, and lib/allocator-tune.c, its
# built-in tuning, a separate object so that only the server links it)
# knows which allocator is linked.
if grep -ln 'USE_JEMALLOC\|USE_TCMALLOC' "$OVSDB_SRCDIR"/lib/*.[ch] \
       "$OVSDB_SRCDIR"/ovsdb/*.[ch] \
       | grep -v 'lib/allocator.c\|lib/allocator-tune.c'; then
    fail "allocator-specific code outside lib/allocator*.c (above)"
fi
