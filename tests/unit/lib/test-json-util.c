/* tests/unit/lib/test-json-util.c: deterministic JSON output and parsing. */
#include <config.h>
#include "lib/json-util.h"

#include <stdlib.h>
#include <string.h>
#include "lib/util.h"
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

/* Checks that jsonx_loadb_lazy() on 'text' either declines or gives
 * 'expected' (jansson's parse, NULL if it failed) with its "params" array
 * left lazy. */
static void
check_lazy_parse(const char *text, size_t length, const json_t *expected)
{
    struct jsonx_lazy_array *lazy;
    json_t *object = jsonx_loadb_lazy(text, length, "params", &lazy);
    if (!object) {
        CHECK(!lazy);
        return;
    }
    CHECK(expected != NULL);
    if (lazy) {
        CHECK(!json_object_get(object, "params"));
        json_t *params = json_array();
        for (size_t i = 0; i < jsonx_lazy_array_size(lazy); i++) {
            json_t *element = jsonx_lazy_array_get(lazy, i);
            CHECK(element != NULL);
            json_array_append_new(params, element ? element : json_null());
        }
        CHECK(!jsonx_lazy_array_get(lazy, jsonx_lazy_array_size(lazy)));
        json_t *whole = jsonx_lazy_array_to_json(lazy);
        CHECK(json_equal(whole, params));
        json_decref(whole);
        json_object_set_new(object, "params", params);
    }
    bool same = expected && json_equal(object, (json_t *) expected);
    if (!same) {
        char *b = jsonx_to_string_sorted(object);
        fprintf(stderr, "lazy: \"%.*s\": ours %s\n", (int) length, text, b);
        free(b);
    }
    CHECK(same);
    json_decref(object);
    jsonx_lazy_array_destroy(lazy);
}

/* Parses 'text' with jsonx_loadb() with and without its own parser and
 * checks that both give the same value or both fail. */
static void
check_same_parse(const char *text, size_t length, size_t flags)
{
    json_error_t error;
    jsonx_set_fast_parser(false);
    json_t *slow = jsonx_loadb(text, length, flags, &error);
    jsonx_set_fast_parser(true);
    json_t *fast = jsonx_loadb(text, length, flags, &error);
    char *a = slow ? jsonx_to_string_sorted(slow) : NULL;
    char *b = fast ? jsonx_to_string_sorted(fast) : NULL;
    bool same = (!a && !b) || (a && b && !strcmp(a, b)
                               && json_equal(slow, fast));
    if (!same) {
        fprintf(stderr, "flags %zu: \"%.*s\": jansson %s, ours %s\n", flags,
                (int) length, text, a ? a : "(error)", b ? b : "(error)");
    }
    CHECK(same);
    free(a);
    free(b);
    if (!flags) {
        check_lazy_parse(text, length, slow);
    }
    json_decref(slow);
    json_decref(fast);
}

/* Differential test of the parser against jansson on valid texts and on
 * random mutations of them. */
static void
test_parser_fuzz(void)
{
    static const char *seeds[] = {
        "{\"b\":1,\"a\":[true,false,null]}",
        "[1.0,0.1,1e300,0.30000000000000004,-2.5,1E+2,-0,0.0e-0]",
        "\"\\u00e9\\u0001\\t/\\\"x\\ud83d\\ude00\\b\\f\\n\\r\\\\\"",
        "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"a\\u0041\"]",
        "[9223372036854775807,-9223372036854775808,9223372036854775808]",
        "[123456789012345678,1234567890123456789,12345678901234567890]",
        "{\"k\\u00e9y\":{\"\":[[],{}]},\"x\":\"\\u20ac\",\"x\":2}",
        " [ 1 , \"a\" , { \"b\" : [ null ] } ] \n",
        "[\"map\",[[\"k000\",\"1.2.3\"],[\"k001\",\"1.2.4\"],[\"k000\",5]]]",
        "[1e5000,-1e-5000,1.5e-310,100e-2,0.001e3,5e18,5e19]",
        "{\"id\":1,\"method\":\"transact\",\"params\":[\"DB\",{\"op\":"
        "\"insert\",\"row\":{\"n\":[\"set\",[1,2]],\"\\u0041\":0.5}}]}",
        "{\"params\":[1,{\"a\":\"\\u00e9\"},[2,[3]],\"x\",-0.5],"
        "\"id\":null}",
        "{\"params\":[],\"params\":[2],\"method\":\"m\"}",
        "{ \"id\" : [ 1 ] , \"params\" : [ \"a\" , [ ] ] }",
        "\"plain\"",
        "-12",
        "true",
    };
    static const char bytes[] = "\"\\{}[],:.-+eE0159aun \t\n\x01\x80\xc3\xff";
    unsigned int seed = 12345;
    char buf[256];

    for (size_t i = 0; i < ARRAY_SIZE(seeds); i++) {
        size_t n = strlen(seeds[i]);
        for (int round = 0; round < 5000; round++) {
            size_t len = n;
            memcpy(buf, seeds[i], n);
            int n_edits = round ? 1 + round % 3 : 0;
            for (int e = 0; e < n_edits && len; e++) {
                seed = seed * 1103515245 + 12345;
                size_t pos = (seed >> 8) % len;
                char c = bytes[(seed >> 20) % (sizeof bytes - 1)];
                switch ((seed >> 16) % 4) {
                case 0:
                    buf[pos] = c;
                    break;
                case 1:
                    memmove(&buf[pos], &buf[pos + 1], len - pos - 1);
                    len--;
                    break;
                case 2:
                    if (len < sizeof buf - 1) {
                        memmove(&buf[pos + 1], &buf[pos], len - pos);
                        buf[pos] = c;
                        len++;
                    }
                    break;
                default:
                    len = pos;
                    break;
                }
            }
            check_same_parse(buf, len, 0);
            check_same_parse(buf, len, JSON_DECODE_ANY);
            check_same_parse(buf, len,
                             JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK);
        }
    }

    /* Deep nesting goes to jansson, which has its own limit. */
    char deep[4200];
    memset(deep, '[', 2100);
    memset(deep + 2100, ']', 2100);
    check_same_parse(deep, 4200, 0);
    check_same_parse(deep + 1000, 2200, 0);
}

/* Equal strings and integers may be shared, and the tree is still
 * right. */
static void
test_shared_values(void)
{
    json_t *shared = jsonx_from_string("[[\"k\",7],[\"k\",7],\"k\"]", NULL);
    CHECK(json_array_get(json_array_get(shared, 0), 0)
          == json_array_get(json_array_get(shared, 1), 0));
    CHECK(json_array_get(json_array_get(shared, 0), 1)
          == json_array_get(json_array_get(shared, 1), 1));
    json_decref(shared);

    /* The caches grow with the input: at every size, a string or an
     * integer right after an equal one is the same value. */
    for (int n = 1; n <= 20000; n *= 10) {
        struct ds text = DS_EMPTY_INITIALIZER;
        ds_put_char(&text, '[');
        for (int i = 0; i < n; i++) {
            ds_put_format(&text, "%s\"s%d\",\"s%d\",%d,%d", i ? "," : "", i, i,
                          1000 + i, 1000 + i);
        }
        ds_put_char(&text, ']');
        json_t *array = jsonx_from_string(ds_cstr(&text), NULL);
        CHECK(json_array_size(array) == 4 * (size_t) n);
        for (int i = 0; i < n; i++) {
            CHECK(json_array_get(array, 4 * i)
                  == json_array_get(array, 4 * i + 1));
            CHECK(json_array_get(array, 4 * i + 2)
                  == json_array_get(array, 4 * i + 3));
        }
        json_decref(array);
        ds_destroy(&text);
    }
}

/* A lazy array: the envelope parsed, the elements on demand and sharing
 * their strings; what the fast parser declines is left to the caller. */
static void
test_lazy_array(void)
{
    static const char text[] = "{\"method\":\"transact\",\"id\":7,"
                               "\"params\":[\"db\",{\"op\":\"insert\"},"
                               "{\"op\":\"insert\"}]}";
    struct jsonx_lazy_array *lazy;
    json_t *object = jsonx_loadb_lazy(text, strlen(text), "params", &lazy);
    CHECK(object != NULL && lazy != NULL);
    CHECK(json_integer_value(json_object_get(object, "id")) == 7);
    CHECK(jsonx_lazy_array_size(lazy) == 3);
    json_t *a = jsonx_lazy_array_get(lazy, 1);
    json_t *b = jsonx_lazy_array_get(lazy, 2);
    CHECK(json_object_get(a, "op") == json_object_get(b, "op"));
    json_decref(a);
    json_decref(b);
    json_decref(object);
    jsonx_lazy_array_destroy(lazy);

    /* No such member, or not an array: all in the object. */
    object = jsonx_loadb_lazy("{\"params\":{}}", 13, "params", &lazy);
    CHECK(object != NULL && !lazy);
    json_decref(object);

    static const char *const declined[] = {
        /* Twice, errors, and what only jansson parses. */
        "{\"params\":[1],\"params\":[2]}",
        "{\"params\":[1,]}",
        "{\"params\":[1]} x",
        "[1]",
        "{\"params\":[1e5000]}",
    };
    for (size_t i = 0; i < ARRAY_SIZE(declined); i++) {
        lazy = NULL;
        CHECK(!jsonx_loadb_lazy(declined[i], strlen(declined[i]), "params",
                                &lazy));
        CHECK(!lazy);
    }
}

/* Sorted output: keys in order, reals and strings as Open vSwitch prints
 * them. */
static void
test_sorted_output(void)
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
}

static void
test_numbers(void)
{
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
}

/* A parse error and a missing file say what went wrong. */
static void
test_errors(void)
{
    char *error = NULL;
    CHECK(jsonx_from_string("[1,", &error) == NULL);
    CHECK(error != NULL);
    free(error);
    CHECK(jsonx_from_file("/nonexistent/file", &error) == NULL);
    CHECK(error && strstr(error, "/nonexistent/file"));
    free(error);
}

static void
test_tagged_array(void)
{
    json_t *j = jsonx_from_string("[\"set\",[]]", NULL);
    CHECK(jsonx_is_tagged_array(j, "set", 2));
    CHECK(!jsonx_is_tagged_array(j, "map", 2));
    CHECK(!jsonx_is_tagged_array(j, "set", 3));
    json_decref(j);
}

/* Pretty printing, type names, and a lookup that finds nothing. */
static void
test_pretty_and_lookup(void)
{
    json_t *j = json_pack("{s:{s:i}}", "x", "y", 1);
    struct ds s = DS_EMPTY_INITIALIZER;
    jsonx_put_pretty(&s, j, 4);
    CHECK_STREQ(ds_cstr(&s), "{\n    \"x\": {\n        \"y\": 1\n    }\n}");
    ds_destroy(&s);
    CHECK_STREQ(jsonx_type_name(json_object_get(j, "x")), "object");
    CHECK(jsonx_object_get(j, "nope") == NULL);
    json_decref(j);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_parser_fuzz),
    CHECK_CASE(test_shared_values),
    CHECK_CASE(test_sorted_output),
    CHECK_CASE(test_numbers),
    CHECK_CASE(test_errors),
    CHECK_CASE(test_tagged_array),
    CHECK_CASE(test_pretty_and_lookup),
    CHECK_CASE(test_lazy_array),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-json-util", cases, ARRAY_SIZE(cases));
}
