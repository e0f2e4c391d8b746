/* tests/workloads/malloc-bench.c: the raw allocator micro-benchmark.
 *
 *     malloc-bench [--count=N] [--live=N] [--seed=S] VARIANT...
 *
 * Built in every build tree, so it runs on the allocator that tree links
 * (it names it).  The variants:
 *
 *   large   the loop of the seed 002 write-up: N times malloc() a block of
 *           4,096 + rand() % 1,024 bytes, memset() it, free() it.
 *   small   the same loop with blocks of 16 + rand() % 241 bytes (16-256),
 *           the sizes of the server's rows, strings and JSON values.
 *   mixed   mixed lifetimes: every step allocates and fills one block of
 *           16 to 8,191 bytes (log-uniform, so most are small); half of
 *           them are freed at once (a request's temporaries), the other
 *           half replace a random one of --live long-lived blocks (rows).
 *           The pool is filled before the timed loop and freed after it.
 *
 * Prints one JSON line per variant: wall seconds, ns per step, user and
 * system CPU, minor page faults, peak and final RSS; "mixed" adds the
 * bytes live at the end and the RSS / live ratio.  rand() is used as in
 * the seed, seeded with --seed (default 1) so runs are repeatable. */
#include <config.h>

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "lib/allocator.h"
#include "lib/util.h"

#define MB (1024.0 * 1024.0)

/* Reading a byte of every block before freeing it keeps the compiler from
 * removing a malloc/memset/free triple whose result is unused. */
static volatile unsigned char sink;

struct sample {
    double wall;            /* Seconds. */
    double user, sys;       /* CPU seconds. */
    long minflt;            /* Minor page faults. */
};

static void
sample_now(struct sample *s)
{
    struct timespec ts;
    struct rusage ru;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    getrusage(RUSAGE_SELF, &ru);
    s->wall = ts.tv_sec + ts.tv_nsec / 1e9;
    s->user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    s->sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    s->minflt = ru.ru_minflt;
}

/* VmHWM, not getrusage(): ru_maxrss survives exec(), so it would report
 * the parent's peak when that was bigger. */
static double
peak_rss_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    long kb = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) {
            break;
        }
    }
    if (f) {
        fclose(f);
    }
    return kb / 1024.0;
}

static unsigned char *
alloc_filled(size_t size)
{
    unsigned char *p = malloc(size);
    if (!p) {
        ovs_fatal(0, "out of memory allocating %zu bytes", size);
    }
    memset(p, rand() % 128, size);
    return p;
}

static bool
release(unsigned char *p, size_t size)
{
    bool ok = p[0] == p[size - 1];
    sink = p[size - 1];
    free(p);
    return ok;
}

/* The seed's loop: each block is freed right after it is filled. */
static bool
run_loop(long count, size_t min, size_t spread)
{
    bool ok = true;
    for (long i = 0; i < count; i++) {
        size_t size = min + rand() % spread;
        ok &= release(alloc_filled(size), size);
    }
    return ok;
}

/* The variants that are the seed's loop: sizes min .. min + spread - 1. */
static const struct {
    const char *name;
    size_t min, spread;
} loops[] = {
    {"large", 4096, 1024},
    {"small", 16, 241},
};

static size_t
mixed_size(void)
{
    /* 16 << 0..8 gives 16..4096, plus up to as much again: 16..8191. */
    size_t base = (size_t) 16 << (rand() % 9);
    return base + rand() % base;
}

struct slot {
    unsigned char *p;
    size_t size;
};

/* Fills the pool, times 'count' steps into '*a' and '*b', and leaves the
 * pool live for the caller to measure; free it with free_pool(). */
static bool
run_mixed(long count, struct slot *pool, long live, size_t *live_bytes,
          struct sample *a, struct sample *b)
{
    bool ok = true;
    *live_bytes = 0;
    for (long i = 0; i < live; i++) {
        pool[i].size = mixed_size();
        pool[i].p = alloc_filled(pool[i].size);
        *live_bytes += pool[i].size;
    }
    sample_now(a);
    for (long i = 0; i < count; i++) {
        size_t size = mixed_size();
        unsigned char *p = alloc_filled(size);
        if (rand() % 2) {
            ok &= release(p, size);
        } else {
            struct slot *s = &pool[rand() % live];
            *live_bytes += size - s->size;
            ok &= release(s->p, s->size);
            s->p = p;
            s->size = size;
        }
    }
    sample_now(b);
    return ok;
}

static bool
free_pool(struct slot *pool, long live)
{
    bool ok = true;
    for (long i = 0; i < live; i++) {
        ok &= release(pool[i].p, pool[i].size);
    }
    free(pool);
    return ok;
}

static void
report(const char *variant, long count, const struct sample *a,
       const struct sample *b, bool ok, double live_mb)
{
    double rss = allocator_process_rss() / MB;
    double wall = b->wall - a->wall;
    printf("{\"variant\":\"%s\",\"allocator\":\"%s\",\"count\":%ld,"
           "\"seconds\":%.4f,\"ns_per_op\":%.2f,\"user_s\":%.3f,"
           "\"sys_s\":%.3f,\"minor_faults\":%ld,\"peak_rss_mb\":%.1f,"
           "\"final_rss_mb\":%.1f",
           variant, allocator_name(), count, wall,
           count ? wall * 1e9 / count : 0.0, b->user - a->user,
           b->sys - a->sys, b->minflt - a->minflt, peak_rss_mb(), rss);
    if (live_mb >= 0) {
        printf(",\"live_mb\":%.1f,\"fragmentation\":%.2f", live_mb,
               live_mb > 0 ? rss / live_mb : 0.0);
    }
    printf(",\"ok\":%s}\n", ok ? "true" : "false");
    fflush(stdout);
}

static noreturn void
usage(void)
{
    printf("%s: raw allocator micro-benchmark (allocator %s)\n"
           "usage: %s [OPTIONS] VARIANT...\n"
           "VARIANT is one of:\n"
           "  large   malloc/memset/free of 4096-5119 bytes (seed 002)\n"
           "  small   the same loop, 16-256 bytes\n"
           "  mixed   16-8191 bytes, half freed at once, half kept in a\n"
           "          pool of --live blocks that each step replaces one of\n"
           "  all     all three, in this order\n"
           "Options:\n"
           "  --count=N   steps per variant (default 10000000)\n"
           "  --live=N    long-lived blocks of \"mixed\" (default 100000)\n"
           "  --seed=S    srand() seed (default 1)\n"
           "  -h, --help  show this help\n"
           "Prints one JSON line per variant.\n",
           program_name(), allocator_name(), program_name());
    exit(0);
}

static long
parse_count(const char *s, const char *option, long min)
{
    long long value;
    if (!str_to_llong(s, &value) || value < min) {
        ovs_fatal(0, "%s: \"%s\" is not a number >= %ld", option, s, min);
    }
    return value;
}

int
main(int argc, char *argv[])
{
    static const struct option options[] = {
        {"count", required_argument, NULL, 'c'},
        {"live", required_argument, NULL, 'l'},
        {"seed", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    long count = 10000000, live = 100000;
    unsigned int seed = 1;
    int c;

    set_program_name(argv[0]);
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (c) {
        case 'c':
            count = parse_count(optarg, "--count", 0);
            break;
        case 'l':
            live = parse_count(optarg, "--live", 1);
            break;
        case 's':
            seed = parse_count(optarg, "--seed", 0);
            break;
        case 'h':
            usage();
        default:
            exit(2);
        }
    }
    if (optind >= argc) {
        ovs_fatal(0, "no variant given (try --help)");
    }

    bool all_ok = true;
    for (int i = optind; i < argc; i++) {
        bool all = !strcmp(argv[i], "all");
        bool known = all;
        struct sample a, b;
        bool ok;

        srand(seed);
        for (size_t j = 0; j < ARRAY_SIZE(loops); j++) {
            if (all || !strcmp(argv[i], loops[j].name)) {
                sample_now(&a);
                ok = run_loop(count, loops[j].min, loops[j].spread);
                sample_now(&b);
                report(loops[j].name, count, &a, &b, ok, -1);
                all_ok &= ok;
                known = true;
            }
        }
        if (all || !strcmp(argv[i], "mixed")) {
            struct slot *pool = xcalloc(live, sizeof *pool);
            size_t live_bytes;
            ok = run_mixed(count, pool, live, &live_bytes, &a, &b);
            report("mixed", count, &a, &b, ok, live_bytes / MB);
            ok &= free_pool(pool, live);
            all_ok &= ok;
            known = true;
        }
        if (!known) {
            ovs_fatal(0, "unknown variant \"%s\" (try --help)", argv[i]);
        }
    }
    return all_ok ? 0 : 1;
}
