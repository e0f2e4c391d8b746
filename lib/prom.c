/* lib/prom.c: Prometheus text exposition lines.  See prom.h. */
#include <config.h>

#include "lib/prom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "lib/ds.h"
#include "lib/util.h"

/* Appends 's' with '\\' and newline escaped, and '"' too if 'quote'
 * (label values; HELP text leaves quotes alone). */
static void
put_escaped(struct ds *out, const char *s, bool quote)
{
    for (; *s; s++) {
        if (*s == '\\') {
            ds_put_cstr(out, "\\\\");
        } else if (*s == '\n') {
            ds_put_cstr(out, "\\n");
        } else if (*s == '"' && quote) {
            ds_put_cstr(out, "\\\"");
        } else {
            ds_put_char(out, *s);
        }
    }
}

void
prom_put_header(struct ds *out, const char *name, const char *type,
                const char *help)
{
    ds_put_format(out, "# HELP %s ", name);
    put_escaped(out, help, false);
    ds_put_format(out, "\n# TYPE %s %s\n", name, type);
}

void
prom_put_label(struct ds *labels, const char *key, const char *value)
{
    if (labels->length) {
        ds_put_char(labels, ',');
    }
    ds_put_format(labels, "%s=\"", key);
    put_escaped(labels, value, true);
    ds_put_char(labels, '"');
}

/* Appends "NAME[SUFFIX][{LABELS}] ". */
static void
put_name(struct ds *out, const char *name, const char *suffix,
         const char *labels)
{
    ds_put_format(out, "%s%s", name, suffix);
    if (labels && labels[0]) {
        ds_put_format(out, "{%s}", labels);
    }
    ds_put_char(out, ' ');
}

void
prom_put_uint(struct ds *out, const char *name, const char *labels,
              unsigned long long value)
{
    put_name(out, name, "", labels);
    ds_put_format(out, "%llu\n", value);
}

/* Appends 'value' as the format spells it: Go's ParseFloat reads "%.17g"
 * back exactly, but not C's "inf" or "nan". */
static void
put_value(struct ds *out, double value)
{
    if (isnan(value)) {
        ds_put_cstr(out, "NaN");
    } else if (isinf(value)) {
        ds_put_cstr(out, value > 0 ? "+Inf" : "-Inf");
    } else {
        /* The shortest of the two that reads back exactly, so that a
         * bound of 0.1 is "0.1", not "0.10000000000000001". */
        char buf[32];
        snprintf(buf, sizeof buf, "%.15g", value);
        if (strtod(buf, NULL) != value) {
            snprintf(buf, sizeof buf, "%.17g", value);
        }
        ds_put_cstr(out, buf);
    }
}

void
prom_put_double(struct ds *out, const char *name, const char *labels,
                double value)
{
    put_name(out, name, "", labels);
    put_value(out, value);
    ds_put_char(out, '\n');
}

void
prom_histogram_init(struct prom_histogram *h, const double *bounds, size_t n)
{
    *h = (struct prom_histogram){ .bounds = bounds,
                                  .n_bounds = MIN(n, PROM_MAX_BUCKETS) };
}

void
prom_histogram_observe(struct prom_histogram *h, double value)
{
    for (size_t i = 0; i < h->n_bounds; i++) {
        if (value <= h->bounds[i]) {
            h->counts[i]++;
            break;
        }
    }
    h->count++;
    h->sum += value;
}

/* Appends NAME_bucket{labels,le="..."}. */
static void
put_bucket(struct ds *out, const char *name, const char *labels, double le,
           uint64_t count)
{
    ds_put_format(out, "%s_bucket{", name);
    if (labels && labels[0]) {
        ds_put_format(out, "%s,", labels);
    }
    ds_put_cstr(out, "le=\"");
    put_value(out, le);
    ds_put_format(out, "\"} %llu\n", (unsigned long long) count);
}

void
prom_put_histogram(struct ds *out, const char *name, const char *labels,
                   const struct prom_histogram *h)
{
    uint64_t cumulative = 0;
    for (size_t i = 0; i < h->n_bounds; i++) {
        cumulative += h->counts[i];
        put_bucket(out, name, labels, h->bounds[i], cumulative);
    }
    put_bucket(out, name, labels, INFINITY, h->count);
    put_name(out, name, "_sum", labels);
    put_value(out, h->sum);
    ds_put_char(out, '\n');
    put_name(out, name, "_count", labels);
    ds_put_format(out, "%llu\n", (unsigned long long) h->count);
}
