/* tests/workloads/wl-workloads.c: see wl-workloads.h.
 *
 * Threads: each worker is a thread with its own connection.  The threads
 * share only read-only setup data (row UUIDs) and write disjoint slots of
 * the result arrays; they meet at one barrier before the timed phase and
 * are joined after it.  Transactions are written as JSON text directly (a
 * 500,000-row transaction would cost gigabytes as jansson objects) and
 * replies are parsed with jansson and checked. */
#include <config.h>
#include "tests/workloads/wl-workloads.h"

#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/allocator.h"
#include "lib/util.h"
#include "tests/workloads/wl-rpc.h"

#define UUID_LEN 36

/* Seed constants (2016 OVS jemalloc patch), before --scale. */
#define UPDATE_COUNT 25000      /* Updates per worker. */
#define UPDATE1_ROWS 1000
#define UPDATE2_ROWS 200000
#define INSERT_COUNT 25000      /* Inserts per worker. */
#define QUEUE_SLOTS 512         /* Rows the producer updates per request. */
#define QUEUE_MAP_SIZE 256      /* Elements in each row's map. */
#define QUEUE_REQUESTS 10       /* Requests per worker. */
#define SETUP_BATCH 1000        /* Rows per setup transaction. */
#define ITEM_ATOMS 5            /* run, worker, n, value, name. */
#define SLOT_ATOMS (2 + QUEUE_MAP_SIZE) /* run, n, 256 map elements. */
#define REQUEST_ATOMS 4         /* run, worker, seq, served. */

static const long long size_steps[] = {100, 1000, 10000, 100000, 500000};

double
wl_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

void
wl_sync_phase(const struct wl_config *cfg, const char *phase)
{
    if (cfg->sync) {
        cfg->sync(phase);
    }
}

static long long
scaled(long long n, double scale)
{
    long long x = (long long) (n * scale + 0.5);
    return x < 1 ? 1 : x;
}

char *
wl_error_printf(const char *fmt, ...)
{
    va_list args;
    char *s;

    va_start(args, fmt);
    s = xvasprintf(fmt, args);
    va_end(args);
    return s;
}

void
wl_latencies_add(struct wl_latencies *lat, double seconds)
{
    if (lat->n >= lat->alloc) {
        lat->v = x2nrealloc(lat->v, &lat->alloc, sizeof *lat->v);
    }
    lat->v[lat->n++] = seconds;
}

static int
compare_doubles(const void *a_, const void *b_)
{
    double a = *(const double *) a_, b = *(const double *) b_;
    return a < b ? -1 : a > b;
}

/* Sorts 'lat' and stores p50, p99 and max in milliseconds in 'ms'. */
void
wl_latencies_summarize(struct wl_latencies *lat, double ms[3])
{
    if (!lat->n) {
        ms[0] = ms[1] = ms[2] = 0;
        return;
    }
    qsort(lat->v, lat->n, sizeof *lat->v, compare_doubles);
    ms[0] = lat->v[lat->n / 2] * 1e3;
    ms[1] = lat->v[(size_t) (lat->n * 0.99)] * 1e3;
    ms[2] = lat->v[lat->n - 1] * 1e3;
}

/* Checks a "transact" result: an array of at least 'n_ops' objects, none
 * with an "error".  Returns NULL, or an error message (caller must free). */
static char *
check_txn_result(const json_t *result, size_t n_ops)
{
    size_t i;
    json_t *op;

    if (!json_is_array(result) || json_array_size(result) < n_ops) {
        return wl_error_printf("transact: result is not an array of %zu",
                               n_ops);
    }
    json_array_foreach (result, i, op) {
        json_t *error = json_object_get(op, "error");
        if (error && !json_is_null(error)) {
            char *s = json_dumps(op, JSON_COMPACT);
            char *msg = wl_error_printf("transact: operation %zu failed: "
                                        "%.300s", i, s);
            free(s);
            return msg;
        }
        if (i < n_ops && !json_is_object(op)) {
            return wl_error_printf("transact: result %zu is not an object", i);
        }
    }
    return NULL;
}

/* Runs transaction 'ops_text' (a JSON array of operations, without the
 * database name) with 'n_ops' operations.  Returns 0 and the result in
 * '*resultp' (new reference), or -1 with '*errorp' set. */
int
wl_transact(struct wl_rpc *rpc, const char *db, const char *ops_text,
            size_t n_ops, json_t **resultp, char **errorp)
{
    size_t db_len = strlen(db), ops_len = strlen(ops_text);
    char *params = xmalloc(db_len + ops_len + 8);
    json_t *result;

    /* '["DB",' + the operations without their opening bracket. */
    sprintf(params, "[\"%s\",%s", db, ops_text + 1);
    if (wl_rpc_request(rpc, "transact", params, &result)) {
        *errorp = xstrdup(wl_rpc_error(rpc));
        free(params);
        return -1;
    }
    free(params);
    *errorp = check_txn_result(result, n_ops);
    if (*errorp) {
        json_decref(result);
        return -1;
    }
    *resultp = result;
    return 0;
}

/* Returns the UUID string in insert result 'op' ({"uuid":["uuid",S]}), or
 * NULL. */
const char *
wl_insert_uuid(const json_t *op)
{
    json_t *uuid = json_object_get(op, "uuid");
    const char *s = json_string_value(json_array_get(uuid, 1));

    return (json_is_array(uuid) && json_array_size(uuid) == 2
            && !strcmp(json_string_value(json_array_get(uuid, 0)) ?: "",
                       "uuid")
            && s && strlen(s) == UUID_LEN ? s : NULL);
}

/* Checks that every result in 'result' from op 'first' on is an update
 * or mutate that counted exactly one row. */
static char *
check_counts_one(const json_t *result, size_t first, size_t n)
{
    for (size_t i = first; i < first + n; i++) {
        json_t *count = json_object_get(json_array_get(result, i), "count");
        if (!json_is_integer(count) || json_integer_value(count) != 1) {
            return wl_error_printf("transact: operation %zu: count is not 1",
                                   i);
        }
    }
    return NULL;
}

/* Selects 'columns' (JSON text of an array) of the rows of 'table' tagged
 * with this run.  Returns the rows (new reference) or NULL with '*errorp'
 * set. */
static json_t *
select_run_rows(struct wl_rpc *rpc, const struct wl_config *cfg,
                const char *table, const char *columns, char **errorp)
{
    char *ops = xasprintf("[{\"op\":\"select\",\"table\":\"%s\","
                          "\"where\":[[\"run\",\"==\",\"%s\"]],"
                          "\"columns\":%s}]", table, cfg->run, columns);
    json_t *result, *rows;

    if (wl_transact(rpc, cfg->db, ops, 1, &result, errorp)) {
        free(ops);
        return NULL;
    }
    free(ops);
    rows = json_incref(json_object_get(json_array_get(result, 0), "rows"));
    json_decref(result);
    if (!json_is_array(rows)) {
        json_decref(rows);
        *errorp = wl_error_printf("select %s: no rows array", table);
        return NULL;
    }
    return rows;
}

/* Like select_run_rows(), but also fails unless there are exactly 'n'
 * rows. */
static json_t *
select_n_rows(struct wl_rpc *rpc, const struct wl_config *cfg,
              const char *table, const char *columns, long long n,
              char **errorp)
{
    json_t *rows = select_run_rows(rpc, cfg, table, columns, errorp);

    if (rows && json_array_size(rows) != n) {
        *errorp = wl_error_printf("%s has %zu rows, expected %lld", table,
                                  json_array_size(rows), n);
        json_decref(rows);
        return NULL;
    }
    return rows;
}

/* Returns integer column 'column' of 'row', or LLONG_MIN if absent. */
static long long
row_int(const json_t *row, const char *column)
{
    json_t *v = json_object_get(row, column);
    return json_is_integer(v) ? json_integer_value(v) : LLONG_MIN;
}

/* Appends an "insert" into Item to 'ops' (a JSON array being built). */
static void
put_item_insert(struct ds *ops, const struct wl_config *cfg, long long worker,
                long long n, long long value)
{
    ds_put_format(ops, "%s{\"op\":\"insert\",\"table\":\"Item\",\"row\":{"
                  "\"run\":\"%s\",\"worker\":%lld,\"n\":%lld,"
                  "\"value\":%lld,\"name\":\"item-%lld-%lld\"}}",
                  ops->length > 1 ? "," : "", cfg->run, worker, n, value,
                  worker, n);
}

/* Inserts 'n' rows through 'put_row' in batches; stores their UUIDs in
 * 'uuids' (n * (UUID_LEN + 1) bytes).  Returns 0 or -1 with '*errorp'. */
static int
setup_rows(struct wl_rpc *rpc, const struct wl_config *cfg, long long n,
           void (*put_row)(struct ds *, const struct wl_config *, long long),
           char *uuids, char **errorp)
{
    struct ds ops = DS_EMPTY_INITIALIZER;

    for (long long start = 0; start < n; start += SETUP_BATCH) {
        long long end = MIN(n, start + SETUP_BATCH);
        json_t *result;

        ds_clear(&ops);
        ds_put_char(&ops, '[');
        for (long long i = start; i < end; i++) {
            put_row(&ops, cfg, i);
        }
        ds_put_char(&ops, ']');
        if (wl_transact(rpc, cfg->db, ds_cstr(&ops), end - start, &result,
                        errorp)) {
            ds_destroy(&ops);
            return -1;
        }
        for (long long i = start; i < end; i++) {
            const char *uuid = wl_insert_uuid(json_array_get(result,
                                                          i - start));
            if (!uuid) {
                *errorp = wl_error_printf("setup insert %lld: no uuid", i);
                json_decref(result);
                ds_destroy(&ops);
                return -1;
            }
            memcpy(uuids + i * (UUID_LEN + 1), uuid, UUID_LEN + 1);
        }
        json_decref(result);
    }
    ds_destroy(&ops);
    return 0;
}

/* One thread of a timed phase. */
struct worker {
    const struct wl_config *cfg;
    void *job;                  /* The workload's shared state. */
    int idx;                    /* 0 .. n_threads - 1. */
    struct wl_rpc *rpc;
    pthread_barrier_t *barrier;
    int (*prepare)(struct worker *);    /* Before the barrier; optional. */
    int (*body)(struct worker *);       /* The timed work. */
    struct wl_latencies lat;
    long long transactions, operations;
    long long notifications;    /* Monitor updates read (--monitors). */
    char *error;
    pthread_t thread;
    int n_threads;
    /* Threads whose 'body' has returned. */
    atomic_int *n_done;
};

/* --monitors: as an IDL client, monitors every column of Item (what
 * Update 1, Update 2, Insert and Size work on) with monitor_cond, reading
 * the initial contents and then every update. */
static int
monitor_items(struct wl_rpc *rpc, const struct wl_config *cfg, int idx,
              char **errorp)
{
    char *params = xasprintf("[\"%s\",\"items%d\",{\"Item\":[{\"columns\":"
                             "[\"run\",\"worker\",\"n\",\"value\","
                             "\"name\"]}]}]", cfg->db, idx);
    json_t *result;
    int retval = wl_rpc_request(rpc, "monitor_cond", params, &result);

    free(params);
    if (retval) {
        *errorp = wl_error_printf("monitor_cond: %s", wl_rpc_error(rpc));
        return -1;
    }
    json_decref(result);
    return 0;
}

static int
prepare_monitor(struct worker *w)
{
    return w->cfg->monitors ? monitor_items(w->rpc, w->cfg, w->idx,
                                            &w->error) : 0;
}

/* As an IDL client that has nothing more to write, reads the updates that
 * the other threads' transactions cause until every thread is done, so
 * that no connection stops reading while the others still work. */
static void
drain_updates(struct worker *w)
{
    int fd = wl_rpc_fd(w->rpc);
    w->notifications += wl_rpc_discard_notifications(w->rpc);
    while (atomic_load(w->n_done) < w->n_threads) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        if (poll(&pfd, 1, 10) <= 0) {
            continue;
        }
        json_t *msg;
        do {
            if (wl_rpc_try_recv(w->rpc, false, &msg)) {
                return; /* Closed: the check phase will say why. */
            }
            if (msg) {
                w->notifications += json_object_get(msg, "method") != NULL;
                json_decref(msg);
            }
        } while (msg);
    }
}

static void *
worker_main(void *w_)
{
    struct worker *w = w_;
    int error = wl_rpc_open(w->cfg->remote, &w->rpc);

    if (error) {
        w->error = wl_error_printf("worker %d: connect %s: %s", w->idx,
                                   w->cfg->remote, ovs_strerror(error));
    } else if (w->prepare && w->prepare(w)) {
        /* w->error is set. */
    }
    pthread_barrier_wait(w->barrier);
    if (!w->error && w->body(w)) {
        /* w->error is set. */
    }
    atomic_fetch_add(w->n_done, 1);
    if (!w->error && w->prepare == prepare_monitor && w->cfg->monitors) {
        drain_updates(w);
    }
    return NULL;
}

/* Replaces '*rpcp' (NULL, or a connection that sat idle while the workers
 * ran) with a new connection for the final check: over ssl: and tcp:, a server probes a
 * connection that has been idle for 5 s and drops it when no answer comes,
 * as it should (Queue over TLS failed with "Broken pipe" for every server).
 * Returns NULL or an error message. */
static char *
reconnect_for_check(const struct wl_config *cfg, struct wl_rpc **rpcp)
{
    wl_rpc_close(*rpcp);
    int error = wl_rpc_open(cfg->remote, rpcp);
    return (error ? wl_error_printf("connect %s: %s", cfg->remote,
                                    ovs_strerror(error))
                  : NULL);
}

/* Runs 'n' threads: each connects, runs 'prepare', waits for the others,
 * then runs 'body'.  Times the phase from the barrier to the last join and
 * fills in 'res' (timing, counts, latencies, bytes).  Returns 0 or -1 with
 * 'res->error' set to the first thread's error. */
static int
run_threads(const struct wl_config *cfg, void *job, int n,
            int (*prepare)(struct worker *), int (*body)(struct worker *),
            struct wl_result *res)
{
    struct worker *ws = xcalloc(n, sizeof *ws);
    struct wl_latencies all = {NULL, 0, 0};
    long long notifications = 0;
    pthread_barrier_t barrier;
    atomic_int n_done = 0;
    double start;

    wl_sync_phase(cfg, "timed");
    pthread_barrier_init(&barrier, NULL, n + 1);
    for (int i = 0; i < n; i++) {
        struct worker *w = &ws[i];
        w->cfg = cfg;
        w->job = job;
        w->idx = i;
        w->barrier = &barrier;
        w->prepare = prepare;
        w->body = body;
        w->n_done = &n_done;
        w->n_threads = n;
        int error = pthread_create(&w->thread, NULL, worker_main, w);
        if (error) {
            ovs_fatal(error, "pthread_create");
        }
    }
    pthread_barrier_wait(&barrier);
    start = wl_now();
    for (int i = 0; i < n; i++) {
        pthread_join(ws[i].thread, NULL);
    }
    res->seconds = wl_now() - start;
    wl_sync_phase(cfg, "check");
    pthread_barrier_destroy(&barrier);

    for (int i = 0; i < n; i++) {
        struct worker *w = &ws[i];
        if (w->error && !res->error) {
            res->error = w->error;
        } else {
            free(w->error);
        }
        res->transactions += w->transactions;
        res->operations += w->operations;
        notifications += w->notifications;
        if (w->rpc) {
            res->bytes_sent += wl_rpc_bytes_sent(w->rpc);
            res->bytes_received += wl_rpc_bytes_received(w->rpc);
        }
        for (size_t j = 0; j < w->lat.n; j++) {
            wl_latencies_add(&all, w->lat.v[j]);
        }
        free(w->lat.v);
        wl_rpc_close(w->rpc);
    }
    wl_latencies_summarize(&all, res->latency_ms);
    if (cfg->monitors && prepare == prepare_monitor) {
        ds_put_format(&res->extra, ",\"monitors\":true,"
                      "\"notifications\":%lld", notifications);
    }
    free(all.v);
    free(ws);
    return res->error ? -1 : 0;
}

/* Runs one timed transaction for worker 'w' and records it.  Returns 0 and
 * the result (new reference) in '*resultp', or -1 with 'w->error' set. */
static int
worker_transact(struct worker *w, const char *ops, size_t n_ops,
                json_t **resultp)
{
    double t0 = wl_now();
    char *error;

    if (wl_transact(w->rpc, w->cfg->db, ops, n_ops, resultp, &error)) {
        w->error = wl_error_printf("worker %d: %s", w->idx, error);
        free(error);
        return -1;
    }
    wl_latencies_add(&w->lat, wl_now() - t0);
    w->transactions++;
    w->operations += n_ops;
    return 0;
}

/* A simple per-thread PRNG (xorshift64*). */
uint64_t
wl_prng_next(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* Update 1 and Update 2. */
struct update_job {
    long long n_rows, n_updates;
    char *uuids;                /* n_rows UUIDs. */
    long long *expected;        /* Final "value" of each row. */
};

static void
put_update_row(struct ds *ops, const struct wl_config *cfg, long long i)
{
    put_item_insert(ops, cfg, -1, i, 0);
}

static int
update_body(struct worker *w)
{
    struct update_job *job = w->job;
    int n_workers = w->cfg->workers;
    long long n_own = (job->n_rows - w->idx + n_workers - 1) / n_workers;
    uint64_t state = 0x9e3779b97f4a7c15ULL * (w->idx + 1);
    struct ds ops = DS_EMPTY_INITIALIZER;
    int retval = 0;

    /* Worker 'idx' owns rows idx, idx + workers, ...: the final value of
     * each row is known without ordering between workers. */
    for (long long i = 1; i <= job->n_updates && !retval; i++) {
        long long r = w->idx + (wl_prng_next(&state) % n_own) * n_workers;
        json_t *result;

        ds_clear(&ops);
        ds_put_format(&ops, "[{\"op\":\"update\",\"table\":\"Item\","
                      "\"where\":[[\"_uuid\",\"==\",[\"uuid\",\"%s\"]]],"
                      "\"row\":{\"value\":%lld,\"name\":\"w%d-u%lld\"}}]",
                      job->uuids + r * (UUID_LEN + 1), i, w->idx, i);
        retval = worker_transact(w, ds_cstr(&ops), 1, &result);
        w->notifications += wl_rpc_discard_notifications(w->rpc);
        if (!retval) {
            w->error = check_counts_one(result, 0, 1);
            retval = w->error ? -1 : 0;
            json_decref(result);
            job->expected[r] = i;
        }
    }
    ds_destroy(&ops);
    return retval;
}

/* Checks that the run's Item rows are 'n' rows numbered 0..n-1 whose
 * "value" is 'expected[n]'.  Returns NULL or an error (caller frees). */
static char *
check_items(struct wl_rpc *rpc, const struct wl_config *cfg, long long n,
            const long long *expected)
{
    char *error = NULL;
    json_t *rows = select_n_rows(rpc, cfg, "Item", "[\"n\",\"value\"]", n,
                                 &error);
    char *seen;
    json_t *row;
    size_t i;

    if (!rows) {
        return error;
    }
    seen = xzalloc(n);
    json_array_foreach (rows, i, row) {
        long long k = row_int(row, "n");
        if (error) {
            break;
        } else if (k < 0 || k >= n || seen[k]) {
            error = wl_error_printf("Item row with bad or duplicate n %lld",
                                    k);
        } else if (row_int(row, "value") != expected[k]) {
            error = wl_error_printf("Item %lld: value %lld, expected %lld", k,
                                    row_int(row, "value"), expected[k]);
        }
        if (k >= 0 && k < n) {
            seen[k] = 1;
        }
    }
    free(seen);
    json_decref(rows);
    return error;
}

static int
run_update(const struct wl_config *cfg, struct wl_result *res,
           long long n_rows)
{
    struct update_job job;
    struct wl_rpc *rpc;
    double t0 = wl_now();
    int error;

    job.n_rows = MAX(scaled(n_rows, cfg->scale), cfg->workers);
    job.n_updates = scaled(UPDATE_COUNT, cfg->scale);
    job.uuids = xmalloc(job.n_rows * (UUID_LEN + 1));
    job.expected = xcalloc(job.n_rows, sizeof *job.expected);

    error = wl_rpc_open(cfg->remote, &rpc);
    if (error) {
        res->error = wl_error_printf("connect %s: %s", cfg->remote,
                                     ovs_strerror(error));
    } else if (!setup_rows(rpc, cfg, job.n_rows, put_update_row, job.uuids,
                           &res->error)) {
        res->setup_seconds = wl_now() - t0;
        if (!run_threads(cfg, &job, cfg->workers, prepare_monitor,
                         update_body, res)) {
            t0 = wl_now();
            res->error = reconnect_for_check(cfg, &rpc);
            if (!res->error) {
                res->error = check_items(rpc, cfg, job.n_rows, job.expected);
            }
            res->check_seconds = wl_now() - t0;
            res->rows = job.n_rows;
            res->atoms = res->rows * ITEM_ATOMS;
        }
    }
    ds_put_format(&res->extra, ",\"table_rows\":%lld,\"updates_per_worker\""
                  ":%lld", job.n_rows, job.n_updates);
    wl_rpc_close(rpc);
    free(job.uuids);
    free(job.expected);
    return res->error ? -1 : 0;
}

static int
run_update1(const struct wl_config *cfg, struct wl_result *res)
{
    return run_update(cfg, res, UPDATE1_ROWS);
}

static int
run_update2(const struct wl_config *cfg, struct wl_result *res)
{
    return run_update(cfg, res, UPDATE2_ROWS);
}

/* Insert. */
struct insert_job {
    long long n_inserts;
};

static int
insert_body(struct worker *w)
{
    struct insert_job *job = w->job;
    struct ds ops = DS_EMPTY_INITIALIZER;
    int retval = 0;

    for (long long i = 0; i < job->n_inserts && !retval; i++) {
        json_t *result;

        ds_clear(&ops);
        ds_put_char(&ops, '[');
        put_item_insert(&ops, w->cfg, w->idx, i, i);
        ds_put_char(&ops, ']');
        retval = worker_transact(w, ds_cstr(&ops), 1, &result);
        w->notifications += wl_rpc_discard_notifications(w->rpc);
        if (!retval) {
            if (!wl_insert_uuid(json_array_get(result, 0))) {
                w->error = wl_error_printf("worker %d: insert %lld: no uuid",
                                           w->idx, i);
                retval = -1;
            }
            json_decref(result);
        }
    }
    ds_destroy(&ops);
    return retval;
}

/* Checks that the run's Item rows are exactly, for each group g in
 * [0, n_groups), rows numbered 0..counts[g]-1 with worker == g. */
static char *
check_groups(struct wl_rpc *rpc, const struct wl_config *cfg, int n_groups,
             const long long *counts)
{
    long long total = 0, *offsets = xcalloc(n_groups, sizeof *offsets);
    char *error = NULL, *seen;
    json_t *rows, *row;
    size_t i;

    for (int g = 0; g < n_groups; g++) {
        offsets[g] = total;
        total += counts[g];
    }
    rows = select_n_rows(rpc, cfg, "Item", "[\"worker\",\"n\"]", total,
                         &error);
    if (!rows) {
        free(offsets);
        return error;
    }
    seen = xzalloc(total);
    json_array_foreach (rows, i, row) {
        long long g = row_int(row, "worker"), k = row_int(row, "n");
        if (error) {
            break;
        } else if (g < 0 || g >= n_groups || k < 0 || k >= counts[g]
                   || seen[offsets[g] + k]) {
            error = wl_error_printf("Item row (%lld, %lld) unexpected or "
                                    "duplicate", g, k);
        } else {
            seen[offsets[g] + k] = 1;
        }
    }
    free(seen);
    free(offsets);
    json_decref(rows);
    return error;
}

static int
run_insert(const struct wl_config *cfg, struct wl_result *res)
{
    struct insert_job job = { scaled(INSERT_COUNT, cfg->scale) };
    long long *counts = xcalloc(cfg->workers, sizeof *counts);
    struct wl_rpc *rpc = NULL; /* Only the final check needs one. */

    if (!run_threads(cfg, &job, cfg->workers, prepare_monitor, insert_body,
                     res)) {
        double t0 = wl_now();
        for (int i = 0; i < cfg->workers; i++) {
            counts[i] = job.n_inserts;
        }
        res->error = reconnect_for_check(cfg, &rpc);
        if (!res->error) {
            res->error = check_groups(rpc, cfg, cfg->workers, counts);
        }
        res->check_seconds = wl_now() - t0;
        res->rows = job.n_inserts * cfg->workers;
        res->atoms = res->rows * ITEM_ATOMS;
    }
    ds_put_format(&res->extra, ",\"inserts_per_worker\":%lld",
                  job.n_inserts);
    wl_rpc_close(rpc);
    free(counts);
    return res->error ? -1 : 0;
}

/* Size: one client inserts each step's rows in one transaction, then the
 * same number one row per transaction.  Group 2k is step k's bulk rows,
 * group 2k+1 its single-row transactions. */
static int
run_size(const struct wl_config *cfg, struct wl_result *res)
{
    enum { N_STEPS = ARRAY_SIZE(size_steps) };
    long long counts[2 * N_STEPS];
    struct ds ops = DS_EMPTY_INITIALIZER;
    struct wl_latencies lat = {NULL, 0, 0};
    struct wl_rpc *rpc;
    int error = wl_rpc_open(cfg->remote, &rpc);
    double start;

    if (error) {
        res->error = wl_error_printf("connect %s: %s", cfg->remote,
                                     ovs_strerror(error));
        return -1;
    }
    wl_sync_phase(cfg, "timed");
    start = wl_now();
    long long notifications = 0;
    if (cfg->monitors && monitor_items(rpc, cfg, 0, &res->error)) {
        wl_rpc_close(rpc);
        return -1;
    }
    ds_put_cstr(&res->extra, ",\"steps\":[");
    for (int k = 0; k < N_STEPS && !res->error; k++) {
        long long n = scaled(size_steps[k], cfg->scale);
        json_t *result;
        double t0 = wl_now(), t1;

        counts[2 * k] = counts[2 * k + 1] = n;
        ds_clear(&ops);
        ds_put_char(&ops, '[');
        for (long long i = 0; i < n; i++) {
            put_item_insert(&ops, cfg, 2 * k, i, i);
        }
        ds_put_char(&ops, ']');
        if (wl_transact(rpc, cfg->db, ds_cstr(&ops), n, &result,
                        &res->error)) {
            break;
        }
        for (long long i = 0; i < n && !res->error; i++) {
            if (!wl_insert_uuid(json_array_get(result, i))) {
                res->error = wl_error_printf("size %lld: insert %lld: no uuid",
                                             n, i);
            }
        }
        json_decref(result);
        notifications += wl_rpc_discard_notifications(rpc);
        t1 = wl_now();
        wl_latencies_add(&lat, t1 - t0);
        res->transactions++;
        res->operations += n;

        for (long long i = 0; i < n && !res->error; i++) {
            double t2 = wl_now();
            ds_clear(&ops);
            ds_put_char(&ops, '[');
            put_item_insert(&ops, cfg, 2 * k + 1, i, i);
            ds_put_char(&ops, ']');
            if (wl_transact(rpc, cfg->db, ds_cstr(&ops), 1, &result,
                            &res->error)) {
                break;
            }
            if (!wl_insert_uuid(json_array_get(result, 0))) {
                res->error = wl_error_printf("size: insert: no uuid");
            }
            json_decref(result);
            notifications += wl_rpc_discard_notifications(rpc);
            wl_latencies_add(&lat, wl_now() - t2);
            res->transactions++;
            res->operations++;
        }
        ds_put_format(&res->extra, "%s{\"rows\":%lld,\"bulk_seconds\":%.3f,"
                      "\"single_seconds\":%.3f}", k ? "," : "", n, t1 - t0,
                      wl_now() - t1);
    }
    ds_put_char(&res->extra, ']');
    if (cfg->monitors) {
        ds_put_format(&res->extra, ",\"monitors\":true,"
                      "\"notifications\":%lld", notifications);
    }
    res->seconds = wl_now() - start;
    wl_sync_phase(cfg, "check");
    res->bytes_sent = wl_rpc_bytes_sent(rpc);
    res->bytes_received = wl_rpc_bytes_received(rpc);
    wl_latencies_summarize(&lat, res->latency_ms);
    if (!res->error) {
        double t0 = wl_now();
        res->error = check_groups(rpc, cfg, 2 * N_STEPS, counts);
        res->check_seconds = wl_now() - t0;
        for (int g = 0; g < 2 * N_STEPS; g++) {
            res->rows += counts[g];
        }
        res->atoms = res->rows * ITEM_ATOMS;
    }
    free(lat.v);
    ds_destroy(&ops);
    wl_rpc_close(rpc);
    return res->error ? -1 : 0;
}

/* Queue.  Threads 0..workers-1 are the workers; thread 'workers' is the
 * producer. */
struct queue_job {
    long long n_requests;       /* Per worker. */
    char *slot_uuids;           /* QUEUE_SLOTS UUIDs. */
    long long last_request;     /* Number of the last request served. */
};

static void
put_slot_row(struct ds *ops, const struct wl_config *cfg, long long i)
{
    ds_put_format(ops, "%s{\"op\":\"insert\",\"table\":\"Slot\",\"row\":{"
                  "\"run\":\"%s\",\"n\":%lld,\"data\":[\"map\",[]]}}",
                  ops->length > 1 ? "," : "", cfg->run, i);
}

/* Monitors table Request's 'columns' (JSON text), reporting only 'what'
 * ("insert" or "modify") changes: with "monitor", or with
 * --monitor-method's method, which also monitors every column of Slot
 * (the big transactions), as a client that monitors its tables does. */
static int
queue_monitor(struct worker *w, const char *columns, const char *what)
{
    const char *method = w->cfg->monitor_method;
    bool v1 = !method || !strcmp(method, "monitor");
    char *request = xasprintf("{\"columns\":%s,\"select\":{\"initial\":"
                              "false,\"insert\":%s,\"delete\":false,"
                              "\"modify\":%s}}",
                              columns,
                              !strcmp(what, "insert") ? "true" : "false",
                              !strcmp(what, "modify") ? "true" : "false");
    struct ds params = DS_EMPTY_INITIALIZER;
    ds_put_format(&params, "[\"%s\",\"q%d\",{\"Request\":%s%s%s", w->cfg->db,
                  w->idx, v1 ? "" : "[", request, v1 ? "" : "]");
    if (method) {
        ds_put_format(&params,
                      ",\"Slot\":%s{\"columns\":[\"run\",\"n\","
                      "\"data\"],\"select\":{\"initial\":false}}%s",
                      v1 ? "" : "[", v1 ? "" : "]");
    }
    ds_put_char(&params, '}');
    if (method && !strcmp(method, "monitor_cond_since")) {
        ds_put_cstr(&params, ",\"00000000-0000-0000-0000-000000000000\"");
    }
    ds_put_char(&params, ']');
    free(request);

    json_t *result;
    int retval = wl_rpc_request(w->rpc, v1 ? "monitor" : method,
                                ds_cstr(&params), &result);
    ds_destroy(&params);
    if (retval) {
        w->error = wl_error_printf("thread %d: %s: %s", w->idx,
                                   v1 ? "monitor" : method,
                                   wl_rpc_error(w->rpc));
        return -1;
    }
    json_decref(result);
    return 0;
}

static int
queue_prepare(struct worker *w)
{
    return (w->idx == w->cfg->workers
            ? queue_monitor(w, "[\"run\",\"worker\",\"seq\"]", "insert")
            : queue_monitor(w, "[\"served\"]", "modify"));
}

/* Returns the row changes for table Request in update notification
 * 'msg' (borrowed): "update" (rows {"old","new"}), "update2" or "update3"
 * (rows {"insert"|"modify"|"delete": ...}); NULL if 'msg' is something
 * else. */
static json_t *
request_updates(const json_t *msg)
{
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *params = json_object_get(msg, "params");

    if (!method || !json_is_array(params)) {
        return NULL;
    }
    size_t i = (!strcmp(method, "update") || !strcmp(method, "update2") ? 1
                : !strcmp(method, "update3")                            ? 2
                                                                        : 0);
    return i ? json_object_get(json_array_get(params, i), "Request") : NULL;
}

/* The columns of a row change in an update notification that carry its new
 * values: "new" (update), "insert" or "modify" (update2, update3). */
static json_t *
row_news(const json_t *row)
{
    json_t *new = json_object_get(row, "new");
    if (!new) {
        new = json_object_get(row, "insert");
    }
    if (!new) {
        new = json_object_get(row, "modify");
    }
    return new;
}

static int
producer_body(struct worker *w)
{
    struct queue_job *job = w->job;
    const struct wl_config *cfg = w->cfg;
    long long total = job->n_requests * cfg->workers, served = 0;
    char (*pending)[UUID_LEN + 1] = xcalloc(total, sizeof *pending);
    long long n_pending = 0;
    struct ds ops = DS_EMPTY_INITIALIZER;
    int retval = 0;

    while (served < total && !retval) {
        if (served == n_pending) {
            json_t *msg = wl_rpc_recv_notification(w->rpc);
            json_t *rows = msg ? request_updates(msg) : NULL, *row;
            const char *uuid;

            if (!msg) {
                w->error = wl_error_printf("producer: %s",
                                           wl_rpc_error(w->rpc));
                retval = -1;
                break;
            }
            json_object_foreach (rows, uuid, row) {
                json_t *new = row_news(row);
                const char *run = json_string_value(json_object_get(new,
                                                                    "run"));
                if (run && !strcmp(run, cfg->run) && n_pending < total
                    && strlen(uuid) == UUID_LEN) {
                    strcpy(pending[n_pending++], uuid);
                }
            }
            json_decref(msg);
            continue;
        }

        /* Serve request 'served': rewrite every slot, mark it served. */
        ds_clear(&ops);
        ds_put_char(&ops, '[');
        for (int s = 0; s < QUEUE_SLOTS; s++) {
            ds_put_format(&ops, "{\"op\":\"update\",\"table\":\"Slot\","
                          "\"where\":[[\"_uuid\",\"==\",[\"uuid\",\"%s\"]]],"
                          "\"row\":{\"data\":[\"map\",[",
                          job->slot_uuids + s * (UUID_LEN + 1));
            for (int e = 0; e < QUEUE_MAP_SIZE; e++) {
                ds_put_format(&ops, "%s[\"k%03d\",\"%lld.%d.%d\"]",
                              e ? "," : "", e, served, s, e);
            }
            ds_put_cstr(&ops, "]]}},");
        }
        ds_put_format(&ops, "{\"op\":\"update\",\"table\":\"Request\","
                      "\"where\":[[\"_uuid\",\"==\",[\"uuid\",\"%s\"]]],"
                      "\"row\":{\"served\":true}}]", pending[served]);

        json_t *result;
        retval = worker_transact(w, ds_cstr(&ops), QUEUE_SLOTS + 1, &result);
        if (!retval) {
            w->error = check_counts_one(result, 0, QUEUE_SLOTS + 1);
            retval = w->error ? -1 : 0;
            json_decref(result);
            job->last_request = served++;
        }
    }
    ds_destroy(&ops);
    free(pending);
    return retval;
}

/* Returns true if notification 'msg' says request 'uuid' is served. */
static bool
is_served(const json_t *msg, const char *uuid)
{
    json_t *rows = request_updates(msg);
    json_t *new = row_news(json_object_get(rows, uuid));

    return json_is_true(json_object_get(new, "served"));
}

static int
queue_worker_body(struct worker *w)
{
    struct queue_job *job = w->job;
    struct ds ops = DS_EMPTY_INITIALIZER;
    json_t **early = NULL;
    size_t n_early = 0, early_alloc = 0;
    int retval = 0;

    for (long long seq = 0; seq < job->n_requests && !retval; seq++) {
        double t0 = wl_now();
        json_t *result;
        char uuid[UUID_LEN + 1];
        bool served = false;

        ds_clear(&ops);
        ds_put_format(&ops, "[{\"op\":\"insert\",\"table\":\"Request\","
                      "\"row\":{\"run\":\"%s\",\"worker\":%d,\"seq\":%lld,"
                      "\"served\":false}}]", w->cfg->run, w->idx, seq);
        if (wl_transact(w->rpc, w->cfg->db, ds_cstr(&ops), 1, &result,
                        &w->error)) {
            retval = -1;
            break;
        }
        const char *s = wl_insert_uuid(json_array_get(result, 0));
        if (s) {
            strcpy(uuid, s);
        }
        json_decref(result);
        if (!s) {
            w->error = wl_error_printf("worker %d: request: no uuid", w->idx);
            retval = -1;
            break;
        }
        w->transactions++;
        w->operations++;

        /* Wait until the producer marks it served.  The notification can
         * have been queued while the insert's reply was awaited. */
        while (!served) {
            json_t *msg = wl_rpc_recv_notification(w->rpc);
            if (!msg) {
                w->error = wl_error_printf("worker %d: %s", w->idx,
                                           wl_rpc_error(w->rpc));
                retval = -1;
                break;
            }
            served = is_served(msg, uuid);
            if (n_early >= early_alloc) {
                early = x2nrealloc(early, &early_alloc, sizeof *early);
            }
            early[n_early++] = msg;
        }
        for (size_t i = 0; i < n_early; i++) {
            json_decref(early[i]);
        }
        n_early = 0;
        wl_latencies_add(&w->lat, wl_now() - t0);
    }
    free(early);
    ds_destroy(&ops);
    return retval;
}

static int
queue_body(struct worker *w)
{
    return (w->idx == w->cfg->workers ? producer_body(w)
            : queue_worker_body(w));
}

/* Checks the final Request and Slot rows of a queue run. */
static char *
check_queue(struct wl_rpc *rpc, const struct wl_config *cfg,
            const struct queue_job *job)
{
    long long total = job->n_requests * cfg->workers;
    char *error = NULL, *seen;
    json_t *rows, *row;
    size_t i;

    rows = select_n_rows(rpc, cfg, "Request",
                         "[\"worker\",\"seq\",\"served\"]", total, &error);
    if (!rows) {
        return error;
    }
    seen = xzalloc(total);
    json_array_foreach (rows, i, row) {
        long long w = row_int(row, "worker"), s = row_int(row, "seq");
        long long k = w * job->n_requests + s;
        if (error) {
            break;
        } else if (w < 0 || w >= cfg->workers || s < 0
                   || s >= job->n_requests || seen[k]) {
            error = wl_error_printf("Request (%lld, %lld) unexpected", w, s);
        } else if (!json_is_true(json_object_get(row, "served"))) {
            error = wl_error_printf("Request (%lld, %lld) not served", w, s);
        } else {
            seen[k] = 1;
        }
    }
    free(seen);
    json_decref(rows);
    if (error) {
        return error;
    }

    rows = select_n_rows(rpc, cfg, "Slot", "[\"n\",\"data\"]", QUEUE_SLOTS,
                         &error);
    if (!rows) {
        return error;
    }
    json_array_foreach (rows, i, row) {
        json_t *data = json_object_get(row, "data"), *pairs, *pair;
        long long n = row_int(row, "n");
        size_t e;

        pairs = json_array_get(data, 1);
        if (error) {
            break;
        } else if (json_array_size(pairs) != QUEUE_MAP_SIZE) {
            error = wl_error_printf("Slot %lld: %zu map elements", n,
                                    json_array_size(pairs));
            break;
        }
        json_array_foreach (pairs, e, pair) {
            char key[32], value[64];
            snprintf(key, sizeof key, "k%03zu", e);
            snprintf(value, sizeof value, "%lld.%lld.%zu", job->last_request,
                     n, e);
            if (strcmp(json_string_value(json_array_get(pair, 0)) ?: "",
                       key)
                || strcmp(json_string_value(json_array_get(pair, 1)) ?: "",
                          value)) {
                error = wl_error_printf("Slot %lld: element %zu is not "
                                        "%s=%s", n, e, key, value);
                break;
            }
        }
    }
    json_decref(rows);
    return error;
}

static int
run_queue(const struct wl_config *cfg, struct wl_result *res)
{
    struct queue_job job;
    struct wl_rpc *rpc;
    double t0 = wl_now();
    int error;

    job.n_requests = scaled(QUEUE_REQUESTS, cfg->scale);
    job.slot_uuids = xmalloc(QUEUE_SLOTS * (UUID_LEN + 1));
    job.last_request = -1;
    error = wl_rpc_open(cfg->remote, &rpc);
    if (error) {
        res->error = wl_error_printf("connect %s: %s", cfg->remote,
                                     ovs_strerror(error));
    } else if (!setup_rows(rpc, cfg, QUEUE_SLOTS, put_slot_row,
                           job.slot_uuids, &res->error)) {
        res->setup_seconds = wl_now() - t0;
        if (!run_threads(cfg, &job, cfg->workers + 1, queue_prepare,
                         queue_body, res)) {
            t0 = wl_now();
            res->error = reconnect_for_check(cfg, &rpc);
            if (!res->error) {
                res->error = check_queue(rpc, cfg, &job);
            }
            res->check_seconds = wl_now() - t0;
            res->rows = QUEUE_SLOTS + job.n_requests * cfg->workers;
            res->atoms = (QUEUE_SLOTS * SLOT_ATOMS
                          + job.n_requests * cfg->workers * REQUEST_ATOMS);
        }
    }
    ds_put_format(&res->extra, ",\"requests_per_worker\":%lld,"
                  "\"slots\":%d,\"map_size\":%d", job.n_requests,
                  QUEUE_SLOTS, QUEUE_MAP_SIZE);
    if (cfg->monitor_method) {
        ds_put_format(&res->extra, ",\"monitor_method\":\"%s\"",
                      cfg->monitor_method);
    }
    wl_rpc_close(rpc);
    free(job.slot_uuids);
    return res->error ? -1 : 0;
}

int
wl_probe(const struct wl_config *cfg, char **errorp)
{
    struct wl_rpc *rpc;
    json_t *result;
    int error = wl_rpc_open(cfg->remote, &rpc);
    bool found = false;
    size_t i;
    json_t *name;

    *errorp = NULL;
    if (error) {
        *errorp = wl_error_printf("connect %s: %s", cfg->remote,
                                  ovs_strerror(error));
        return -1;
    }
    if (wl_rpc_request(rpc, "list_dbs", "[]", &result)) {
        *errorp = wl_error_printf("list_dbs: %s", wl_rpc_error(rpc));
    } else {
        json_array_foreach (result, i, name) {
            found |= !strcmp(json_string_value(name) ?: "", cfg->db);
        }
        json_decref(result);
        if (!found) {
            *errorp = wl_error_printf("list_dbs: no database %s", cfg->db);
        } else if (!wl_transact(rpc, cfg->db, "[{\"op\":\"select\",\"table\":"
                                "\"Item\",\"where\":[[\"n\",\"==\",-1]]}]", 1,
                                &result, errorp)) {
            json_decref(result);
        }
    }
    wl_rpc_close(rpc);
    return *errorp ? -1 : 0;
}

const struct wl_workload wl_workloads[] = {
    {"update1", "10 workers x 25,000 updates over 1,000 rows", run_update1},
    {"update2", "10 workers x 25,000 updates over 200,000 rows",
     run_update2},
    {"insert", "10 workers x 25,000 single-row inserts", run_insert},
    {"queue", "producer serves 10 workers x 10 requests of 512 rows x 256 "
     "map elements", run_queue},
    {"size", "insert 100..500,000 rows, all in one transaction then one per "
     "transaction", run_size},
    {NULL, NULL, NULL},
};
