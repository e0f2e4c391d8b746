/* tests/unit/lib/test-ds.c: dynamic strings. */
#include <config.h>
#include "lib/ds.h"

#include <stdlib.h>
#include "tests/unit/check.h"

/* Appending characters, strings and formats, and growing past 4 kB. */
static void
test_append(void)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    CHECK_STREQ(ds_cstr(&s), "");
    ds_put_cstr(&s, "abc");
    ds_put_char(&s, '-');
    ds_put_format(&s, "%d/%s", 42, "x");
    CHECK_STREQ(ds_cstr(&s), "abc-42/x");
    for (int i = 0; i < 1000; i++) {
        ds_put_format(&s, "%04d", i);
    }
    CHECK_INTEQ(s.length, 8 + 4000);
    ds_destroy(&s);
}

/* Truncating, chomping, and stealing the buffer. */
static void
test_truncate_and_steal(void)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&s, "abcdef");
    ds_truncate(&s, 3);
    ds_put_char(&s, '\n');
    ds_chomp(&s, '\n');
    CHECK_STREQ(ds_cstr(&s), "abc");
    char *stolen = ds_steal_cstr(&s);
    CHECK_STREQ(stolen, "abc");
    free(stolen);
    CHECK(s.string == NULL);
    ds_destroy(&s);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_append),
    CHECK_CASE(test_truncate_and_steal),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-ds", cases,
                      sizeof cases / sizeof *cases);
}
