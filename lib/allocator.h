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
    size_t resident;       /* Bytes the allocator holds in physical memory. */
    size_t rss;            /* Process resident set size, bytes. */
    double fragmentation;  /* rss / allocated. */
};

/* Returns the allocator's name and run-time version, e.g. "jemalloc-5.3.0",
 * "tcmalloc-2.10", "glibc-2.36".  The string is static. */
const char *allocator_name(void);

/* Fills in '*stats' from the allocator's own statistics interface. */
void allocator_get_stats(struct allocator_stats *stats);

/* Returns free memory to the operating system: jemalloc's purge, tcmalloc's
 * ReleaseFreeMemory, glibc's malloc_trim. */
void allocator_release_free_memory(void);

/* Called after a burst of big allocations was freed (a big transaction):
 * releases free memory where that lowers the next burst's peak, that is
 * with jemalloc and tcmalloc, which otherwise keep freed pages resident
 * for the same size classes while the next burst may need others. */
void allocator_release_after_burst(void);

/* Returns the process's resident set size in bytes, or 0 if unknown. */
size_t allocator_process_rss(void);

#endif /* lib/allocator.h */
