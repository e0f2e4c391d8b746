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

#include <stddef.h>
#include "lib/ds.h"

struct wl_config {
    const char *remote;         /* "unix:PATH" or "tcp:IP:PORT". */
    const char *db;             /* Database name, normally "Workload". */
    double scale;               /* Multiplies every count (min 1). */
    int workers;                /* Parallel connections. */
    const char *run;            /* Tag for the rows this run creates. */

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

/* Connects to the server and checks that it serves 'cfg->db' and answers
 * a transaction.  Returns 0, or -1 with '*errorp' set (caller must free). */
int wl_probe(const struct wl_config *cfg, char **errorp);

#endif /* tests/workloads/wl-workloads.h */
