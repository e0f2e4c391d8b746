/* tests/unit/lib/test-prom.c: Prometheus exposition lines. */
#include <config.h>
#include "lib/prom.h"

#include <math.h>
#include "lib/ds.h"
#include "lib/util.h"
#include "tests/unit/check.h"

/* HELP text escapes backslashes and newlines; label values quotes too. */
static void
test_escaping(void)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    prom_put_header(&out, "x_total", "counter", "a \"b\" c\\d\ne");
    CHECK_STREQ(ds_cstr(&out), "# HELP x_total a \"b\" c\\\\d\\ne\n"
                               "# TYPE x_total counter\n");

    struct ds labels = DS_EMPTY_INITIALIZER;
    prom_put_label(&labels, "db", "a\"b\\c\nd");
    prom_put_label(&labels, "role", "leader");
    CHECK_STREQ(ds_cstr(&labels), "db=\"a\\\"b\\\\c\\nd\",role=\"leader\"");
    ds_destroy(&labels);
    ds_destroy(&out);
}

/* Samples with and without labels, and the spelling of special values. */
static void
test_samples(void)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    prom_put_uint(&out, "a", NULL, 18446744073709551615ULL);
    prom_put_uint(&out, "b", "", 0);
    prom_put_double(&out, "c", "x=\"1\"", 0.1);
    prom_put_double(&out, "d", NULL, INFINITY);
    prom_put_double(&out, "e", NULL, -INFINITY);
    prom_put_double(&out, "f", NULL, NAN);
    prom_put_double(&out, "g", NULL, 1.0 / 3);
    CHECK_STREQ(ds_cstr(&out), "a 18446744073709551615\n"
                               "b 0\n"
                               "c{x=\"1\"} 0.1\n"
                               "d +Inf\n"
                               "e -Inf\n"
                               "f NaN\n"
                               "g 0.33333333333333331\n");
    ds_destroy(&out);
}

/* Buckets are cumulative, "+Inf" counts everything, and a value on a
 * bound falls in that bound's bucket. */
static void
test_histogram(void)
{
    static const double bounds[] = { 0.5, 1, 2 };
    struct prom_histogram h;
    prom_histogram_init(&h, bounds, ARRAY_SIZE(bounds));
    prom_histogram_observe(&h, 0.25);
    prom_histogram_observe(&h, 1);
    prom_histogram_observe(&h, 1.5);
    prom_histogram_observe(&h, 7.25);

    struct ds out = DS_EMPTY_INITIALIZER;
    prom_put_histogram(&out, "t_seconds", "db=\"x\"", &h);
    CHECK_STREQ(ds_cstr(&out), "t_seconds_bucket{db=\"x\",le=\"0.5\"} 1\n"
                               "t_seconds_bucket{db=\"x\",le=\"1\"} 2\n"
                               "t_seconds_bucket{db=\"x\",le=\"2\"} 3\n"
                               "t_seconds_bucket{db=\"x\",le=\"+Inf\"} 4\n"
                               "t_seconds_sum{db=\"x\"} 10\n"
                               "t_seconds_count{db=\"x\"} 4\n");
    ds_clear(&out);
    prom_histogram_init(&h, bounds, 1);
    prom_put_histogram(&out, "u", NULL, &h);
    CHECK_STREQ(ds_cstr(&out), "u_bucket{le=\"0.5\"} 0\n"
                               "u_bucket{le=\"+Inf\"} 0\n"
                               "u_sum 0\n"
                               "u_count 0\n");
    ds_destroy(&out);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_escaping),
    CHECK_CASE(test_samples),
    CHECK_CASE(test_histogram),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-prom", cases,
                      sizeof cases / sizeof *cases);
}
