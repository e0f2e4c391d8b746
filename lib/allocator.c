/* lib/allocator.c: see allocator.h.
 *
 * This file holds the only USE_JEMALLOC / USE_TCMALLOC blocks in the tree. */
#include <config.h>
#include "lib/allocator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(USE_JEMALLOC)
#include <jemalloc/jemalloc.h>
#elif defined(USE_TCMALLOC)
#include <gperftools/malloc_extension_c.h>
#include <gperftools/tcmalloc.h>
#else
#include <gnu/libc-version.h>
#include <malloc.h>
#endif

static noreturn void
out_of_memory(size_t size)
{
    fprintf(stderr, "%s: out of memory allocating %zu bytes\n",
            program_name(), size);
    abort();
}

void *
xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        out_of_memory(size);
    }
    return p;
}

void *
xzalloc(size_t size)
{
    return xcalloc(1, size);
}

void *
xcalloc(size_t n, size_t size)
{
    void *p = n && size ? calloc(n, size) : malloc(1);
    if (!p) {
        out_of_memory(n * size);
    }
    return n && size ? p : memset(p, 0, 1);
}

void *
xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p) {
        out_of_memory(size);
    }
    return p;
}

void *
xmemdup(const void *p, size_t size)
{
    void *copy = xmalloc(size);
    memcpy(copy, p, size);
    return copy;
}

char *
xmemdup0(const char *s, size_t length)
{
    char *copy = xmalloc(length + 1);
    memcpy(copy, s, length);
    copy[length] = '\0';
    return copy;
}

char *
xstrdup(const char *s)
{
    return xmemdup0(s, strlen(s));
}

char *
xvasprintf(const char *fmt, va_list args)
{
    va_list args2;
    va_copy(args2, args);
    int needed = vsnprintf(NULL, 0, fmt, args);
    char *s = xmalloc(needed + 1);
    vsnprintf(s, needed + 1, fmt, args2);
    va_end(args2);
    return s;
}

char *
xasprintf(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    char *s = xvasprintf(fmt, args);
    va_end(args);
    return s;
}

void *
x2nrealloc(void *base, size_t *n_alloc, size_t elem_size)
{
    *n_alloc = *n_alloc ? *n_alloc * 2 : 4;
    return xrealloc(base, *n_alloc * elem_size);
}

size_t
allocator_process_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size, resident;
    size_t rss = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &resident) == 2) {
            rss = (size_t) resident * sysconf(_SC_PAGESIZE);
        }
        fclose(f);
    }
    return rss;
}

#if defined(USE_JEMALLOC)
const char *
allocator_name(void)
{
    static char name[64];
    if (!name[0]) {
        const char *version = NULL;
        size_t len = sizeof version;
        if (mallctl("version", &version, &len, NULL, 0) || !version) {
            version = JEMALLOC_VERSION;
        }
        /* "5.3.0-0-g54eaed..." becomes "5.3.0". */
        snprintf(name, sizeof name, "jemalloc-%.*s",
                 (int) strcspn(version, "-"), version);
    }
    return name;
}

static size_t
jemalloc_stat(const char *name)
{
    size_t value = 0, len = sizeof value;
    return mallctl(name, &value, &len, NULL, 0) ? 0 : value;
}

void
allocator_get_stats(struct allocator_stats *stats)
{
    /* jemalloc caches its statistics; bumping "epoch" refreshes them. */
    uint64_t epoch = 1;
    size_t len = sizeof epoch;
    mallctl("epoch", &epoch, &len, &epoch, len);
    stats->allocated = jemalloc_stat("stats.allocated");
    stats->resident = jemalloc_stat("stats.resident");
    stats->rss = allocator_process_rss();
    stats->fragmentation = stats->allocated
                           ? (double) stats->rss / stats->allocated : 0;
}

void
allocator_release_free_memory(void)
{
    char name[64];
    snprintf(name, sizeof name, "arena.%u.purge", MALLCTL_ARENAS_ALL);
    mallctl(name, NULL, NULL, NULL, 0);
}

void
allocator_release_after_burst(void)
{
    allocator_release_free_memory();
}

#elif defined(USE_TCMALLOC)
const char *
allocator_name(void)
{
    static char name[64];
    if (!name[0]) {
        int major, minor;
        const char *patch;
        tc_version(&major, &minor, &patch);
        snprintf(name, sizeof name, "tcmalloc-%d.%d%s", major, minor,
                 patch ? patch : "");
    }
    return name;
}

static size_t
tcmalloc_stat(const char *name)
{
    size_t value = 0;
    return MallocExtension_GetNumericProperty(name, &value) ? value : 0;
}

void
allocator_get_stats(struct allocator_stats *stats)
{
    size_t heap = tcmalloc_stat("generic.heap_size");
    size_t unmapped = tcmalloc_stat("tcmalloc.pageheap_unmapped_bytes");
    stats->allocated = tcmalloc_stat("generic.current_allocated_bytes");
    stats->resident = heap > unmapped ? heap - unmapped : 0;
    stats->rss = allocator_process_rss();
    stats->fragmentation = stats->allocated
                           ? (double) stats->rss / stats->allocated : 0;
}

void
allocator_release_free_memory(void)
{
    MallocExtension_ReleaseFreeMemory();
}

void
allocator_release_after_burst(void)
{
    allocator_release_free_memory();
}

#else /* glibc */
const char *
allocator_name(void)
{
    static char name[64];
    if (!name[0]) {
        snprintf(name, sizeof name, "glibc-%s", gnu_get_libc_version());
    }
    return name;
}

void
allocator_get_stats(struct allocator_stats *stats)
{
#ifdef HAVE_MALLINFO2
    struct mallinfo2 mi = mallinfo2();
    /* In-use bytes: small chunks from arenas plus mmap()ed large chunks. */
    stats->allocated = mi.uordblks + mi.hblkhd;
    /* Bytes obtained from the system: arena space plus mmap()ed chunks,
     * minus what has been released back with madvise/trim. */
    stats->resident = mi.arena + mi.hblkhd;
#else
    stats->allocated = 0;
    stats->resident = 0;
#endif
    stats->rss = allocator_process_rss();
    stats->fragmentation = stats->allocated
                           ? (double) stats->rss / stats->allocated : 0;
}

void
allocator_release_free_memory(void)
{
#ifdef HAVE_MALLOC_TRIM
    malloc_trim(0);
#endif
}

void
allocator_release_after_burst(void)
{
    /* glibc returns the top of its heap and big chunks by itself; a trim
     * here was measured to cost more CPU than the memory it saves. */
}
#endif
