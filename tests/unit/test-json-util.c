/* tests/unit/test-json-util.c: deterministic JSON output and parsing. */
#include <config.h>
#include "lib/json-util.h"

#include <stdlib.h>
#include "tests/unit/check.h"

static void
check_roundtrip(const char *in, const char *expected)
{
    char *error;
    json_t *json = jsonx_from_string(in, &error);
    CHECK(json != NULL);
    if (json) {
        char *s = jsonx_to_string_sorted(json);
        CHECK_STREQ(s, expected);
        free(s);
        json_decref(json);
    } else {
        fprintf(stderr, "parse error: %s\n", error);
        free(error);
    }
}

int
main(void)
{
    check_roundtrip("{\"b\":1,\"a\":[true,false,null]}",
                    "{\"a\":[true,false,null],\"b\":1}");
    /* Reals as Open vSwitch prints them (%.15g). */
    check_roundtrip("[1.0,0.1,1e300,0.30000000000000004,-2.5]",
                    "[1,0.1,1e+300,0.3,-2.5]");
    /* Only quotes, backslashes and control characters are escaped. */
    check_roundtrip("\"\\u00e9\\u0001\\t/\\\"x\"",
                    "\"\xc3\xa9\\u0001\\t/\\\"x\"");
    check_roundtrip("[]", "[]");
    check_roundtrip("{}", "{}");
    check_roundtrip("-9223372036854775808", "-9223372036854775808");
    check_roundtrip("[0,-1,9223372036854775807]",
                    "[0,-1,9223372036854775807]");
    /* Objects bigger than the on-stack sort buffer. */
    check_roundtrip("{\"t\":1,\"s\":2,\"r\":3,\"q\":4,\"p\":5,\"o\":6,"
                    "\"n\":7,\"m\":8,\"l\":9,\"k\":10,\"j\":11,\"i\":12,"
                    "\"h\":13,\"g\":14,\"f\":15,\"e\":16,\"d\":17,"
                    "\"c\":18,\"b\":19,\"a\":20}",
                    "{\"a\":20,\"b\":19,\"c\":18,\"d\":17,\"e\":16,"
                    "\"f\":15,\"g\":14,\"h\":13,\"i\":12,\"j\":11,"
                    "\"k\":10,\"l\":9,\"m\":8,\"n\":7,\"o\":6,\"p\":5,"
                    "\"q\":4,\"r\":3,\"s\":2,\"t\":1}");
    /* Numbers read as Open vSwitch reads them: integral values in int64_t
     * range are integers however spelled, others are reals. */
    check_roundtrip("[9223372036854775808,1]", "[9.22337203685478e+18,1]");
    check_roundtrip("[12345678901234567,-9223372036854775809]",
                    "[12345678901234567,-9.22337203685478e+18]");
    check_roundtrip("[9223372036854775807.0,-9223372036854775808.0]",
                    "[9223372036854775807,-9223372036854775808]");
    check_roundtrip("[1.0,1e2,1.5e1,-0.0,0e5,100e-2,1e-2,1.5,0.001e3]",
                    "[1,100,15,0,0,1,0.01,1.5,1]");
    check_roundtrip("{\"a\":\"1.0 -0.0 9223372036854775808\",\"b\":-0}",
                    "{\"a\":\"1.0 -0.0 9223372036854775808\",\"b\":0}");
    json_t *reals = jsonx_from_string("[-1.7976931348623157e308,0.1,"
                                      "0.30000000000000004]", NULL);
    struct ds exact = DS_EMPTY_INITIALIZER;
    jsonx_put_exact(&exact, reals);
    CHECK_STREQ(ds_cstr(&exact),
                "[-1.7976931348623157e+308,0.1,0.30000000000000004]");
    ds_destroy(&exact);
    json_decref(reals);
    json_t *type = jsonx_from_string("[1.0,12345678901234567]", NULL);
    CHECK(json_is_integer(json_array_get(type, 0)));
    CHECK(json_integer_value(json_array_get(type, 1)) == 12345678901234567LL);
    json_decref(type);

    char *error = NULL;
    CHECK(jsonx_from_string("[1,", &error) == NULL);
    CHECK(error != NULL);
    free(error);
    CHECK(jsonx_from_file("/nonexistent/file", &error) == NULL);
    CHECK(error && strstr(error, "/nonexistent/file"));
    free(error);

    json_t *j = jsonx_from_string("[\"set\",[]]", NULL);
    CHECK(jsonx_is_tagged_array(j, "set", 2));
    CHECK(!jsonx_is_tagged_array(j, "map", 2));
    CHECK(!jsonx_is_tagged_array(j, "set", 3));
    json_decref(j);

    j = json_pack("{s:{s:i}}", "x", "y", 1);
    struct ds s = DS_EMPTY_INITIALIZER;
    jsonx_put_pretty(&s, j, 4);
    CHECK_STREQ(ds_cstr(&s), "{\n    \"x\": {\n        \"y\": 1\n    }\n}");
    ds_destroy(&s);
    CHECK_STREQ(jsonx_type_name(json_object_get(j, "x")), "object");
    CHECK(jsonx_object_get(j, "nope") == NULL);
    json_decref(j);

    return check_report("test-json-util");
}
