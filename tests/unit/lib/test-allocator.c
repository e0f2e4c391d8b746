/* tests/unit/lib/test-allocator.c: allocator name and statistics. */
#include <config.h>
#include "lib/allocator.h"

#include <string.h>
#include "tests/unit/check.h"

/* The name says which allocator is linked, with its version. */
static void
test_name(void)
{
    const char *name = allocator_name();
#if defined(USE_JEMALLOC)
    CHECK(!strncmp(name, "jemalloc-", 9));
#elif defined(USE_TCMALLOC)
    CHECK(!strncmp(name, "tcmalloc-", 9));
#else
    CHECK(!strncmp(name, "glibc-", 6));
#endif
    CHECK(strlen(name) > 9 && strchr(name, '.'));
}

/* 64 MB in small blocks shows up in the statistics, and releasing it
 * lowers the allocated bytes. */
static void
test_stats(void)
{
    struct allocator_stats before, after;
    allocator_get_stats(&before);
    CHECK(before.rss > 0);

    enum { N = 1 << 20, SIZE = 64 };
    char **blocks = xmalloc(N * sizeof *blocks);
    for (size_t i = 0; i < N; i++) {
        blocks[i] = xmalloc(SIZE);
        memset(blocks[i], (int) i, SIZE);
    }
    allocator_get_stats(&after);
#ifndef __SANITIZE_ADDRESS__
    /* (AddressSanitizer's malloc is not the one whose statistics are read.) */
    CHECK(after.allocated >= before.allocated + (size_t) N * SIZE);
    CHECK(after.resident >= after.allocated / 2);
    CHECK(after.rss >= before.rss + (size_t) N * SIZE / 2);
    CHECK(after.fragmentation > 0.5 && after.fragmentation < 4.0);
#endif

    for (size_t i = 0; i < N; i++) {
        free(blocks[i]);
    }
    free(blocks);
    allocator_release_after_burst();
    allocator_release_free_memory();
    struct allocator_stats released;
    allocator_get_stats(&released);
#ifndef __SANITIZE_ADDRESS__
    CHECK(released.allocated < after.allocated);
#endif
}

static void
test_xasprintf(void)
{
    char *s = xasprintf("%s-%d", "x", 42);
    CHECK_STREQ(s, "x-42");
    free(s);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_name),
    CHECK_CASE(test_stats),
    CHECK_CASE(test_xasprintf),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-allocator", cases,
                      sizeof cases / sizeof *cases);
}
