/* tests/workloads/wl-workloads.h: the benchmark workloads.
 *
 * Each workload runs against the "Workload" database (workload.ovsschema)
 * of a live server: a setup phase (not timed), the timed phase with
 * 'workers' parallel connections doing synchronous round trips, and a check
 * of every reply and of the final database contents.  Rows a run creates
 * carry the run's tag in their "run" column, so runs can share a database.
 * See tests/workloads/README.md for what each workload does. */
#ifndef TESTS_WORKLOADS_WL_WORKLOADS_H
#define TESTS_WORKLOADS_WL_WORKLOADS_H 1

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/ds.h"
#include "lib/util.h"

struct wl_rpc;

struct wl_config {
    const char *remote;         /* "unix:PATH" or "tcp:IP:PORT". */
    const char *db;             /* Database name, normally "Workload". */
    double scale;               /* Multiplies every count (min 1). */
    int workers;                /* Parallel connections. */
    const char *run;            /* Tag for the rows this run creates. */
    bool monitors;              /* Workers monitor what they work on. */
    int clients;                /* OVN workloads: clients (0: default). */
    long long rows;             /* OVN workloads: rows (0: default). */
    const char *monitor_method; /* Queue: NULL, or "monitor",
                                 * "monitor_cond" or "monitor_cond_since":
                                 * every client then monitors Request and
                                 * Slot (all columns) with that method. */

    /* If nonnull, called with "timed" just before the timed phase and with
     * "check" just after it, so an observer can sample the server. */
    void (*sync)(const char *phase);
};

struct wl_result {
    double setup_seconds;       /* Untimed preparation. */
    double seconds;             /* The timed phase (wall clock). */
    double check_seconds;       /* Final content check. */
    long long transactions;     /* In the timed phase. */
    long long operations;       /* Operations in those transactions. */
    long long rows;             /* Rows in the workload's tables at the end. */
    long long atoms;            /* Atoms those rows store: each column set
                                 * counts 1, or its number of set or map
                                 * elements. */
    double latency_ms[3];       /* Per round trip: p50, p99, max. */
    size_t bytes_sent, bytes_received;
    struct ds extra;            /* More JSON members, ",\"k\":v" each. */
    char *error;                /* Set on failure: caller must free. */
};

struct wl_workload {
    const char *name;
    const char *description;
    /* Runs the workload; returns 0, or -1 with 'result->error' set. */
    int (*run)(const struct wl_config *, struct wl_result *);
};

/* The workloads, in the seed's order; NULL-terminated by name. */
extern const struct wl_workload wl_workloads[];

/* The OVN-shaped workloads (wl-ovn.c); NULL-terminated by name. */
extern const struct wl_workload wl_ovn_workloads[];

/* Connects to the server and checks that it serves 'cfg->db' and answers
 * a transaction.  Returns 0, or -1 with '*errorp' set (caller must free). */
int wl_probe(const struct wl_config *cfg, char **errorp);

/* Helpers shared by the workload modules. */

/* Seconds on the monotonic clock. */
double wl_now(void);

/* Calls 'cfg->sync(phase)' if set. */
void wl_sync_phase(const struct wl_config *cfg, const char *phase);

/* Returns a formatted message; caller must free. */
char *wl_error_printf(const char *fmt, ...) PRINTF_FORMAT(1, 2);

/* Round-trip latencies of one thread, in seconds. */
struct wl_latencies {
    double *v;
    size_t n, alloc;
};
void wl_latencies_add(struct wl_latencies *, double seconds);
/* Sorts the latencies and stores p50, p99 and max in milliseconds. */
void wl_latencies_summarize(struct wl_latencies *, double ms[3]);

/* Runs transaction 'ops_text' (a JSON array of operations, without the
 * database name) with 'n_ops' operations on 'db'.  Returns 0 and the
 * result in '*resultp' (new reference), or -1 with '*errorp' set (caller
 * must free). */
int wl_transact(struct wl_rpc *rpc, const char *db, const char *ops_text,
                size_t n_ops, json_t **resultp, char **errorp);

/* Returns the UUID string in insert result 'op', or NULL. */
const char *wl_insert_uuid(const json_t *op);

/* A small PRNG (xorshift64*); '*state' must start nonzero. */
uint64_t wl_prng_next(uint64_t *state);

#endif /* tests/workloads/wl-workloads.h */
