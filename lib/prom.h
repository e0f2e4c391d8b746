/* lib/prom.h: lines of the Prometheus text exposition format, 0.0.4.
 *
 * A scrape is one text: per metric family a "# HELP" and a "# TYPE" line,
 * then its samples, each "name{label="value",...} value".  All samples of
 * a family must follow its header, so callers loop over their objects once
 * per family.  Labels are built into a ds with prom_put_label() and passed
 * as text, so one label set serves several families.
 *
 *     struct ds labels = DS_EMPTY_INITIALIZER;
 *     prom_put_label(&labels, "db", name);
 *     prom_put_header(out, "x_rows", "gauge", "Rows in the database.");
 *     prom_put_uint(out, "x_rows", ds_cstr(&labels), n_rows);
 *
 * Nothing here allocates per sample beyond growing 'out'. */
#ifndef LIB_PROM_H
#define LIB_PROM_H 1

#include <stddef.h>
#include <stdint.h>

struct ds;

/* Content-Type of a scrape's body. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Appends the "# HELP" and "# TYPE" lines of family 'name' ('type' is
 * "counter", "gauge" or "histogram"); 'help' is escaped as it must be. */
void prom_put_header(struct ds *out, const char *name, const char *type,
                     const char *help);

/* Appends 'key="value"' to 'labels' (a comma first unless it is empty),
 * with 'value' escaped. */
void prom_put_label(struct ds *labels, const char *key, const char *value);

/* Appends one sample; 'labels' may be NULL or "". */
void prom_put_uint(struct ds *out, const char *name, const char *labels,
                   unsigned long long value);
void prom_put_double(struct ds *out, const char *name, const char *labels,
                     double value);

/* A histogram with fixed upper bounds, counted in place: observing
 * allocates nothing, so it may sit on a hot path. */
#define PROM_MAX_BUCKETS 16
struct prom_histogram {
    const double *bounds;              /* Ascending upper bounds (static). */
    size_t n_bounds;                   /* At most PROM_MAX_BUCKETS. */
    uint64_t counts[PROM_MAX_BUCKETS]; /* Per bucket, not cumulative. */
    uint64_t count; /* All observations (the "+Inf" bucket). */
    double sum;
};

/* Initializes 'h' with 'n' bounds 'bounds' (must outlive 'h'). */
void prom_histogram_init(struct prom_histogram *h, const double *bounds,
                         size_t n);
void prom_histogram_observe(struct prom_histogram *h, double value);

/* Appends the samples of 'h': NAME_bucket{...,le="B"} (cumulative, then
 * le="+Inf"), NAME_sum and NAME_count. */
void prom_put_histogram(struct ds *out, const char *name, const char *labels,
                        const struct prom_histogram *h);

#endif /* lib/prom.h */
