/* lib/allocator.h: the only code that knows which malloc is linked.
 *
 * configure chooses glibc malloc (default), jemalloc (--enable-jemalloc) or
 * tcmalloc (--enable-tcmalloc).  The chosen allocator replaces malloc() for
 * the whole process, so everything (jansson and OpenSSL included) uses it;
 * this module only adds out-of-memory handling and statistics.
 *
 * Everything else calls the x*() functions and free(). */
#ifndef LIB_ALLOCATOR_H
#define LIB_ALLOCATOR_H 1

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "lib/util.h"

/* These abort with a message on out-of-memory; they never return NULL. */
void *xmalloc(size_t) __attribute__((__malloc__));
void *xzalloc(size_t) __attribute__((__malloc__));
void *xcalloc(size_t n, size_t size) __attribute__((__malloc__));
void *xrealloc(void *, size_t);
void *xmemdup(const void *, size_t) __attribute__((__malloc__));
char *xstrdup(const char *) __attribute__((__malloc__));
char *xmemdup0(const char *, size_t) __attribute__((__malloc__));
char *xasprintf(const char *fmt, ...) PRINTF_FORMAT(1, 2);
char *xvasprintf(const char *fmt, va_list);

/* Grows '*base', an array of '*n_alloc' elements of 'elem_size' bytes, so it
 * has room for at least one more element; updates '*n_alloc'. */
void *x2nrealloc(void *base, size_t *n_alloc, size_t elem_size);

struct allocator_stats {
    size_t allocated;      /* Bytes handed out to the program. */
    size_t active;         /* Bytes in pages that hold allocated objects. */
    size_t resident;       /* Bytes the allocator holds in physical memory. */
    size_t mapped;         /* Bytes the allocator has mapped. */
    size_t retained;       /* Address space given back to the kernel's
                            * memory but kept for reuse (0 with glibc). */
    size_t released;       /* Bytes returned to the kernel so far (glibc:
                            * by this module's malloc_trim() calls only). */
    uint64_t n_releases;   /* Calls that returned memory (madvise ranges,
                            * decommits, trims). */
    size_t rss;            /* Process resident set size, bytes. */
    double fragmentation;  /* rss / allocated. */
};

/* Returns the allocator's name and run-time version, e.g. "jemalloc-5.3.0",
 * "tcmalloc-2.10", "glibc-2.36".  The string is static. */
const char *allocator_name(void);

/* Applies the server's built-in tuning of the linked allocator, except
 * where the environment sets the same thing (MALLOC_CONF, TCMALLOC_*,
 * MALLOC_ARENA_MAX and the other MALLOC_*_ variables, GLIBC_TUNABLES):
 * the user's setting wins.  Call once, early in main().  Only programs that
 * call it get the tuning (jemalloc's is a "malloc_conf" string linked in
 * with this function); the others run on the allocator's defaults. */
void allocator_init(void);

/* The run-time part of allocator_init(), in allocator.c (for
 * allocator-tune.c only). */
void allocator_tune(void);

/* Fills in '*stats' from the allocator's own statistics interface. */
void allocator_get_stats(struct allocator_stats *stats);

/* Appends the report of "memory/allocator-stats" to 'out': the allocator's
 * name, the settings in force and where each came from, a summary of
 * '*stats' in megabytes, then the allocator's own statistics text
 * (malloc_stats_print(), MallocExtension_GetStats(), malloc_info()). */
struct ds;
void allocator_report(struct ds *out);

/* Returns free memory to the operating system: jemalloc's purge, tcmalloc's
 * ReleaseFreeMemory, glibc's malloc_trim. */
void allocator_release_free_memory(void);

/* Called after a burst of big allocations was freed (a big transaction).
 * What it does is chosen per allocator by measurement (DESIGN.md,
 * "Allocators"): releasing everything at once made every following burst
 * fault its pages back in. */
void allocator_release_after_burst(void);

/* Returns the process's resident set size in bytes, or 0 if unknown. */
size_t allocator_process_rss(void);

#endif /* lib/allocator.h */
