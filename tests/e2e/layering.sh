# tests/e2e/layering.sh: lib/ never includes an ovsdb/ header.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
if grep -n '#include "ovsdb/' "$OVSDB_SRCDIR"/lib/*.[ch]; then
    fail "lib/ includes ovsdb/ headers (above)"
fi
# Only lib/allocator.c knows which allocator is linked.
if grep -ln 'USE_JEMALLOC\|USE_TCMALLOC' "$OVSDB_SRCDIR"/lib/*.[ch] \
       "$OVSDB_SRCDIR"/ovsdb/*.[ch] | grep -v 'lib/allocator.c'; then
    fail "allocator-specific code outside lib/allocator.c (above)"
fi
