/* lib/allocator.c: see allocator.h.
 *
 * This file holds the only USE_JEMALLOC / USE_TCMALLOC blocks in the tree. */
#include <config.h>
#include "lib/allocator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/ds.h"

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


/* The part of the built-in tuning applied at run time, chosen by
 * measurement (DESIGN.md, "Allocators"); jemalloc's is the "malloc_conf"
 * string in allocator-tune.c. */
#define TUNED_TCMALLOC_RELEASE_RATE 1.0   /* tcmalloc's default. */
#define TUNED_TCMALLOC_AGGRESSIVE_DECOMMIT 1 /* tcmalloc's default: 0. */
#define TUNED_GLIBC_ARENA_MAX 1

#define MB (1024.0 * 1024.0)

static bool tuned;              /* allocator_tune() has run. */

static void
finish_stats(struct allocator_stats *stats)
{
    stats->rss = allocator_process_rss();
    stats->fragmentation = stats->allocated
                           ? (double) stats->rss / stats->allocated : 0;
}

/* Appends one line of the settings part of the report; 'source' says
 * where 'value' comes from. */
static void
put_setting(struct ds *out, const char *name, const char *value,
            const char *source)
{
    ds_put_format(out, "  %-28s %-14s %s\n", name, value, source);
}

/* Returns a description of environment variable 'var' as a source, or NULL
 * if it is unset.  Caller must free with free(). */
static char *
env_source(const char *var)
{
    const char *value = getenv(var);
    return value ? xasprintf("environment %s=%s", var, value) : NULL;
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

void
allocator_tune(void)
{
    /* The options are in malloc_conf, which jemalloc read at its start.
     * A fork stops jemalloc's background thread in the child, so after
     * --detach it must be started again (unless the user's MALLOC_CONF
     * turned it off: then opt.background_thread is false). */
    bool opt = false, on = true;
    size_t len = sizeof opt;
    if (!mallctl("opt.background_thread", &opt, &len, NULL, 0) && opt) {
        mallctl("background_thread", NULL, NULL, &on, sizeof on);
    }
    tuned = true;
}

static size_t
jemalloc_stat(const char *name)
{
    size_t value = 0, len = sizeof value;
    return mallctl(name, &value, &len, NULL, 0) ? 0 : value;
}

static uint64_t
jemalloc_arenas_u64(const char *stat)
{
    char name[96];
    uint64_t value = 0;
    size_t len = sizeof value;
    snprintf(name, sizeof name, "stats.arenas.%u.%s", MALLCTL_ARENAS_ALL,
             stat);
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
    stats->active = jemalloc_stat("stats.active");
    stats->resident = jemalloc_stat("stats.resident");
    stats->mapped = jemalloc_stat("stats.mapped");
    stats->retained = jemalloc_stat("stats.retained");
    stats->released = (jemalloc_arenas_u64("dirty_purged")
                       + jemalloc_arenas_u64("muzzy_purged"))
                      * jemalloc_stat("arenas.page");
    stats->n_releases = jemalloc_arenas_u64("dirty_nmadvise")
                        + jemalloc_arenas_u64("muzzy_nmadvise");
    finish_stats(stats);
}

/* If 'conf', a jemalloc option string "name:value,name:value", sets option
 * 'key', copies the (last) value into 'value' and returns true. */
static bool
conf_lookup(const char *conf, const char *key, char *value, size_t size)
{
    size_t key_len = strlen(key);
    bool found = false;
    while (conf && *conf) {
        size_t len = strcspn(conf, ",");
        if (len > key_len && !strncmp(conf, key, key_len)
            && conf[key_len] == ':') {
            snprintf(value, size, "%.*s", (int) (len - key_len - 1),
                     conf + key_len + 1);
            found = true;
        }
        conf += len + (conf[len] == ',');
    }
    return found;
}

static void
report_settings(struct ds *out)
{
    static const struct {
        const char *name;
        char type;              /* u: unsigned, z: ssize_t, Z: size_t,
                                 * b: bool, s: string. */
    } opts[] = {
        {"narenas", 'u'}, {"dirty_decay_ms", 'z'}, {"muzzy_decay_ms", 'z'},
        {"background_thread", 'b'}, {"tcache", 'b'}, {"retain", 'b'},
        {"thp", 's'}, {"metadata_thp", 's'}, {"oversize_threshold", 'Z'},
    };
    const char *env = getenv("MALLOC_CONF");
    const char *builtin = tuned ? malloc_conf : NULL;

    for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
        char name[64], value[64], given[64];
        union {
            unsigned u;
            ssize_t z;
            size_t zu;
            bool b;
            const char *s;
        } v;
        size_t len;

        snprintf(name, sizeof name, "opt.%s", opts[i].name);
        memset(&v, 0, sizeof v);
        len = opts[i].type == 'u' ? sizeof v.u
              : opts[i].type == 'z' ? sizeof v.z
              : opts[i].type == 'Z' ? sizeof v.zu
              : opts[i].type == 'b' ? sizeof v.b : sizeof v.s;
        if (mallctl(name, &v, &len, NULL, 0)) {
            continue;
        }
        switch (opts[i].type) {
        case 'u':
            snprintf(value, sizeof value, "%u", v.u);
            break;
        case 'z':
            snprintf(value, sizeof value, "%zd", v.z);
            break;
        case 'Z':
            snprintf(value, sizeof value, "%zu", v.zu);
            break;
        case 'b':
            snprintf(value, sizeof value, "%s", v.b ? "true" : "false");
            break;
        default:
            snprintf(value, sizeof value, "%s", v.s ? v.s : "");
            break;
        }
        put_setting(out, opts[i].name, value,
                    conf_lookup(env, opts[i].name, given, sizeof given)
                    ? "environment MALLOC_CONF"
                    : conf_lookup(builtin, opts[i].name, given, sizeof given)
                    ? "built-in malloc_conf" : "jemalloc default");
    }
    bool running = false;
    size_t len = sizeof running;
    if (!mallctl("background_thread", &running, &len, NULL, 0)) {
        put_setting(out, "background_thread now", running ? "running"
                    : "stopped", "mallctl(\"background_thread\")");
    }
    ds_put_format(out, "  built-in malloc_conf: \"%s\"%s\n",
                  malloc_conf ? malloc_conf : "",
                  tuned ? "" : " (not linked into this program)");
    char *source = env_source("MALLOC_CONF");
    ds_put_format(out, "  %s\n", source ? source : "MALLOC_CONF unset");
    free(source);
}

static void
append_to_ds(void *out, const char *s)
{
    ds_put_cstr(out, s);
}

static void
report_native(struct ds *out)
{
    ds_put_cstr(out, "jemalloc malloc_stats_print():\n");
    malloc_stats_print(append_to_ds, out, NULL);
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
    /* Not a purge: that returned every freed page at once, and the next
     * burst faulted them all back in (Queue: 4.6x the page faults, 2.7x
     * the server CPU).  "decay" returns only the pages that have been
     * unused for longer than the decay time, along jemalloc's curve; the
     * background thread does the same when the server is idle. */
    char name[64];
    snprintf(name, sizeof name, "arena.%u.decay", MALLCTL_ARENAS_ALL);
    mallctl(name, NULL, NULL, NULL, 0);
}

#elif defined(USE_TCMALLOC)

static bool decommit_tuned; /* allocator_tune() set it. */

/* gperftools' C API cannot get or set the release rate; its C++ class can.
 * These are TCMallocImplementation's methods, called on the instance that
 * MallocExtension::instance() returns.  Weak, so that a tcmalloc without
 * them still links and the rate is reported as unknown. */
void *tcmalloc_instance(void)
    __asm__("_ZN15MallocExtension8instanceEv") __attribute__((weak));
double tcmalloc_get_release_rate(void *)
    __asm__("_ZN22TCMallocImplementation20GetMemoryReleaseRateEv")
    __attribute__((weak));
void tcmalloc_set_release_rate(void *, double)
    __asm__("_ZN22TCMallocImplementation20SetMemoryReleaseRateEd")
    __attribute__((weak));

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

void
allocator_tune(void)
{
    if (!getenv("TCMALLOC_RELEASE_RATE") && tcmalloc_instance
        && tcmalloc_set_release_rate) {
        tcmalloc_set_release_rate(tcmalloc_instance(),
                                  TUNED_TCMALLOC_RELEASE_RATE);
    }
    if (!getenv("TCMALLOC_AGGRESSIVE_DECOMMIT")) {
        decommit_tuned = MallocExtension_SetNumericProperty(
            "tcmalloc.aggressive_memory_decommit",
            TUNED_TCMALLOC_AGGRESSIVE_DECOMMIT);
    }
    tuned = true;
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
    size_t free_bytes = tcmalloc_stat("tcmalloc.pageheap_free_bytes");
    size_t unmapped = tcmalloc_stat("tcmalloc.pageheap_unmapped_bytes");
    stats->allocated = tcmalloc_stat("generic.current_allocated_bytes");
    stats->active = heap > free_bytes + unmapped
                    ? heap - free_bytes - unmapped : 0;
    stats->resident = heap > unmapped ? heap - unmapped : 0;
    stats->mapped = heap;
    stats->retained = unmapped;
    stats->released = tcmalloc_stat("tcmalloc.pageheap_total_decommit_bytes");
    stats->n_releases = tcmalloc_stat("tcmalloc.pageheap_decommit_count");
    finish_stats(stats);
}

static void
report_settings(struct ds *out)
{
    static const struct {
        const char *name;       /* MallocExtension property. */
        const char *env;        /* Environment variable that sets it. */
        const bool *built_in;   /* Whether allocator_tune() set it. */
    } props[] = {
        { "tcmalloc.aggressive_memory_decommit",
          "TCMALLOC_AGGRESSIVE_DECOMMIT", &decommit_tuned },
        { "tcmalloc.max_total_thread_cache_bytes",
          "TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES", NULL },
        { "tcmalloc.heap_limit_mb", "TCMALLOC_HEAP_LIMIT_MB", NULL },
    };
    char value[64];
    char *source = env_source("TCMALLOC_RELEASE_RATE");

    if (tcmalloc_instance && tcmalloc_get_release_rate) {
        snprintf(value, sizeof value, "%g",
                 tcmalloc_get_release_rate(tcmalloc_instance()));
    } else {
        snprintf(value, sizeof value, "unknown");
    }
    put_setting(out, "release_rate", value,
                source ? source
                : tuned ? "built-in" : "tcmalloc default");
    free(source);
    for (size_t i = 0; i < ARRAY_SIZE(props); i++) {
        size_t v;
        if (!MallocExtension_GetNumericProperty(props[i].name, &v)) {
            continue;
        }
        snprintf(value, sizeof value, "%zu", v);
        source = env_source(props[i].env);
        put_setting(out, props[i].name + strlen("tcmalloc."), value,
                    source ? source
                    : props[i].built_in && *props[i].built_in
                        ? "built-in"
                        : "tcmalloc default");
        free(source);
    }
}

static void
report_native(struct ds *out)
{
    enum { SIZE = 64 * 1024 };
    char *buf = xmalloc(SIZE);
    buf[0] = '\0';
    MallocExtension_GetStats(buf, SIZE);
    ds_put_cstr(out, "tcmalloc MallocExtension_GetStats():\n");
    ds_put_cstr(out, buf);
    free(buf);
}

void
allocator_release_free_memory(void)
{
    MallocExtension_ReleaseFreeMemory();
}

void
allocator_release_after_burst(void)
{
    /* Nothing: ReleaseFreeMemory() here made the next burst fault its
     * pages back in (Queue: 5x the page faults, 2x the server CPU) for a
     * peak only 2% lower.  tcmalloc returns spans at its release rate. */
}

#else /* glibc */
/* glibc has no counter of the memory it returned: this module counts what
 * its own malloc_trim() calls gave back (the drop in RSS). */
static size_t glibc_released;
static uint64_t glibc_n_trims;

/* The mallopt() parameters the report shows: the environment variables and
 * GLIBC_TUNABLES names that set them. */
static const struct {
    const char *name;
    const char *env;
    const char *tunable;
    const char *dflt;           /* glibc's default, as text. */
} glibc_params[] = {
    {"arena_max", "MALLOC_ARENA_MAX", "glibc.malloc.arena_max", "8 x cores"},
    {"trim_threshold", "MALLOC_TRIM_THRESHOLD_",
     "glibc.malloc.trim_threshold", "128K, dynamic"},
    {"mmap_threshold", "MALLOC_MMAP_THRESHOLD_",
     "glibc.malloc.mmap_threshold", "128K, dynamic"},
    {"top_pad", "MALLOC_TOP_PAD_", "glibc.malloc.top_pad", "128K"},
};

/* Returns a description of where the user set glibc parameter 'i', or
 * NULL if they did not.  Caller must free with free(). */
static char *
glibc_param_source(size_t i)
{
    char *source = env_source(glibc_params[i].env);
    const char *tunables = getenv("GLIBC_TUNABLES");
    const char *p = tunables ? strstr(tunables, glibc_params[i].tunable)
                             : NULL;
    if (!source && p) {
        size_t len = strcspn(p, ":");
        source = xasprintf("environment GLIBC_TUNABLES (%.*s)", (int) len, p);
    }
    return source;
}

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
allocator_tune(void)
{
    char *source = glibc_param_source(0);
    if (!source) {
        mallopt(M_ARENA_MAX, TUNED_GLIBC_ARENA_MAX);
    }
    free(source);
    tuned = true;
}

void
allocator_get_stats(struct allocator_stats *stats)
{
#ifdef HAVE_MALLINFO2
    struct mallinfo2 mi = mallinfo2();
    /* In-use bytes: small chunks from arenas plus mmap()ed large chunks. */
    stats->allocated = mi.uordblks + mi.hblkhd;
    stats->active = stats->allocated;
    /* Bytes obtained from the system: arena space plus mmap()ed chunks,
     * minus what has been released back with madvise/trim. */
    stats->resident = mi.arena + mi.hblkhd;
    stats->mapped = mi.arena + mi.hblkhd;
#else
    stats->allocated = stats->active = 0;
    stats->resident = stats->mapped = 0;
#endif
    stats->retained = 0;
    stats->released = glibc_released;
    stats->n_releases = glibc_n_trims;
    finish_stats(stats);
}

static void
report_settings(struct ds *out)
{
    for (size_t i = 0; i < ARRAY_SIZE(glibc_params); i++) {
        char *source = glibc_param_source(i);
        const char *value = getenv(glibc_params[i].env);
        char buf[32];
        if (!source && i == 0 && tuned) {
            snprintf(buf, sizeof buf, "%d", TUNED_GLIBC_ARENA_MAX);
            put_setting(out, glibc_params[i].name, buf, "built-in mallopt");
        } else if (!source) {
            put_setting(out, glibc_params[i].name, glibc_params[i].dflt,
                        "glibc default");
        } else {
            const char *tunable = strstr(getenv("GLIBC_TUNABLES") ?: "",
                                         glibc_params[i].tunable);
            if (!value && tunable) {
                value = tunable + strlen(glibc_params[i].tunable) + 1;
                snprintf(buf, sizeof buf, "%.*s",
                         (int) strcspn(value, ":"), value);
                value = buf;
            }
            put_setting(out, glibc_params[i].name, value ? value : "set",
                        source);
        }
        free(source);
    }
}

static void
report_native(struct ds *out)
{
    ds_put_cstr(out, "  (glibc keeps no such count: \"returned to the "
                "kernel\" is what this\n   module's malloc_trim() calls "
                "gave back, as the drop in RSS)\n");
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    ds_put_cstr(out, "glibc malloc_info():\n");
    if (f) {
        malloc_info(0, f);
        fclose(f);
        ds_put_cstr(out, buf);
    }
    free(buf);
}

void
allocator_release_free_memory(void)
{
#ifdef HAVE_MALLOC_TRIM
    size_t before = allocator_process_rss();
    malloc_trim(0);
    size_t after = allocator_process_rss();
    glibc_released += before > after ? before - after : 0;
    glibc_n_trims++;
#endif
}

void
allocator_release_after_burst(void)
{
    /* glibc returns the top of its heap and big chunks by itself; a trim
     * here was measured to cost more CPU than the memory it saves. */
}
#endif

void
allocator_report(struct ds *out)
{
    struct allocator_stats st;
    allocator_get_stats(&st);

    ds_put_format(out, "allocator: %s\n", allocator_name());
    ds_put_format(out, "settings in force (name, value, where from):\n");
    report_settings(out);
    ds_put_format(out, "summary:\n"
                  "  allocated              %10.1f MB\n"
                  "  active                 %10.1f MB\n"
                  "  resident               %10.1f MB\n"
                  "  mapped                 %10.1f MB\n"
                  "  retained               %10.1f MB\n"
                  "  process RSS            %10.1f MB\n"
                  "  fragmentation ratio    %10.2f    (RSS / allocated)\n"
                  "  returned to the kernel %10.1f MB in %llu calls\n",
                  st.allocated / MB, st.active / MB, st.resident / MB,
                  st.mapped / MB, st.retained / MB, st.rss / MB,
                  st.fragmentation, st.released / MB,
                  (unsigned long long) st.n_releases);
    report_native(out);
}
