/* tests/unit/test-ds.c: dynamic strings. */
#include <config.h>
#include "lib/ds.h"

#include <stdlib.h>
#include "tests/unit/check.h"

int
main(void)
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
    ds_truncate(&s, 3);
    ds_put_char(&s, '\n');
    ds_chomp(&s, '\n');
    CHECK_STREQ(ds_cstr(&s), "abc");
    char *stolen = ds_steal_cstr(&s);
    CHECK_STREQ(stolen, "abc");
    free(stolen);
    CHECK(s.string == NULL);
    ds_destroy(&s);
    return check_report("test-ds");
}
