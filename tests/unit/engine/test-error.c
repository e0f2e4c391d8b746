/* tests/unit/engine/test-error.c: error objects and the RFC 7047 tag
 * spellings. */
#include <config.h>
#include "ovsdb/engine/error.h"

#include <stdlib.h>
#include "lib/json-util.h"
#include "tests/unit/check.h"

static void
check_json(struct ovsdb_error *error, const char *expected)
{
    json_t *json = ovsdb_error_to_json_free(error);
    char *s = jsonx_to_string_sorted(json);
    CHECK_STREQ(s, expected);
    free(s);
    json_decref(json);
}

/* Every tag, spelled as RFC 7047 section 4.1.3 and Open vSwitch. */
static void
test_tag_strings(void)
{
    static const struct {
        enum ovsdb_error_tag tag;
        const char *s;
    } tags[] = {
        { OVSDB_E_CONSTRAINT, "constraint violation" },
        { OVSDB_E_DOMAIN, "domain error" },
        { OVSDB_E_RANGE, "range error" },
        { OVSDB_E_TIMED_OUT, "timed out" },
        { OVSDB_E_NOT_SUPP, "not supported" },
        { OVSDB_E_ABORTED, "aborted" },
        { OVSDB_E_NOT_OWNER, "not owner" },
        { OVSDB_E_REFINT, "referential integrity violation" },
        { OVSDB_E_RESOURCES, "resources exhausted" },
        { OVSDB_E_IO, "I/O error" },
        { OVSDB_E_DUP_NAME, "duplicate uuid-name" },
        { OVSDB_E_SYNTAX, "syntax error" },
        { OVSDB_E_UNKNOWN_COLUMN, "unknown column" },
        { OVSDB_E_UNKNOWN_TABLE, "unknown table" },
        { OVSDB_E_UNKNOWN_FUNCTION, "unknown function" },
        { OVSDB_E_UNKNOWN_MUTATOR, "unknown mutator" },
        { OVSDB_E_UNKNOWN_DATABASE, "unknown database" },
        { OVSDB_E_NOT_ALLOWED, "not allowed" },
        { OVSDB_E_INTERNAL, "internal error" },
        { OVSDB_E_OVSDB, "ovsdb error" },
        { OVSDB_E_DUP_UUID, "duplicate uuid" },
        { OVSDB_E_PERMISSION, "permission error" },
        { OVSDB_E_NOT_LEADER, "not leader" },
        { OVSDB_E_CLUSTER, "cluster error" },
        { OVSDB_E_UNKNOWN_OUTCOME, "unknown outcome" },
    };
    CHECK_INTEQ(ARRAY_SIZE(tags), OVSDB_N_ERROR_TAGS);
    for (size_t i = 0; i < ARRAY_SIZE(tags); i++) {
        CHECK_STREQ(ovsdb_error_tag_string(tags[i].tag), tags[i].s);
    }
}

/* An error as JSON: "error", then "details" and "syntax" if present. */
static void
test_to_json(void)
{
    check_json(ovsdb_error(OVSDB_E_ABORTED, "aborted by request"),
               "{\"details\":\"aborted by request\",\"error\":\"aborted\"}");
    check_json(ovsdb_error(OVSDB_E_TIMED_OUT, NULL),
               "{\"error\":\"timed out\"}");

    json_t *syntax = json_pack("{s:i}", "zz", 1);
    check_json(ovsdb_syntax_error(syntax, OVSDB_E_UNKNOWN_COLUMN,
                                  "No column %s in table %s.", "zz", "T"),
               "{\"details\":\"No column zz in table T.\","
               "\"error\":\"unknown column\",\"syntax\":\"{\\\"zz\\\":1}\"}");
    json_decref(syntax);
}

/* Wrapping prefixes the details and keeps the tag; a clone prints the
 * same. */
static void
test_wrap_and_clone(void)
{
    json_t *syntax = json_pack("{s:i}", "zz", 1);
    struct ovsdb_error *e = ovsdb_syntax_error(syntax, OVSDB_E_SYNTAX, "bad");
    e = ovsdb_error_wrap(e, "parsing %s", "x");
    CHECK_STREQ(ovsdb_error_get_details(e), "parsing x: bad");
    CHECK(ovsdb_error_get_tag(e) == OVSDB_E_SYNTAX);
    struct ovsdb_error *clone = ovsdb_error_clone(e);
    char *s = ovsdb_error_to_string_free(e);
    CHECK_STREQ(s, "syntax \"{\"zz\":1}\": syntax error: parsing x: bad");
    free(s);
    s = ovsdb_error_to_string_free(clone);
    CHECK_STREQ(s, "syntax \"{\"zz\":1}\": syntax error: parsing x: bad");
    free(s);
    json_decref(syntax);
}

static void
test_null(void)
{
    CHECK(ovsdb_error_wrap(NULL, "x") == NULL);
    ovsdb_error_destroy(NULL);
}

/* OVSDB_BUG() is an internal error that names its source line. */
static void
test_bug(void)
{
    struct ovsdb_error *e = OVSDB_BUG("oops");
    CHECK(ovsdb_error_get_tag(e) == OVSDB_E_INTERNAL);
    CHECK(strstr(ovsdb_error_get_details(e), "test-error.c:") != NULL);
    ovsdb_error_destroy(e);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_tag_strings),
    CHECK_CASE(test_to_json),
    CHECK_CASE(test_wrap_and_clone),
    CHECK_CASE(test_null),
    CHECK_CASE(test_bug),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-error", cases, ARRAY_SIZE(cases));
}
