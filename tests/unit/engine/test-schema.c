/* tests/unit/engine/test-schema.c: schema parsing, validation, get_schema
 * form. */
#include <config.h>
#include "ovsdb/engine/schema.h"

#include <stdlib.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "tests/unit/check.h"

/* Parses 'text'; returns the error as "TAG: details" (malloc'd) or NULL. */
static char *
parse_error(const char *text)
{
    json_t *json = jsonx_from_string(text, NULL);
    if (!json) {
        return xstrdup("bad test JSON");
    }
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(json, &schema);
    json_decref(json);
    if (!error) {
        ovsdb_schema_destroy(schema);
        return NULL;
    }
    char *s = xasprintf("%s: %s",
                        ovsdb_error_tag_string(ovsdb_error_get_tag(error)),
                        ovsdb_error_get_details(error));
    ovsdb_error_destroy(error);
    return s;
}

#define BAD(COLUMNS_OR_TABLE, EXPECTED)                                      \
    do {                                                                     \
        char *e_ = parse_error(COLUMNS_OR_TABLE);                            \
        CHECK_STREQ(e_, EXPECTED);                                           \
        free(e_);                                                            \
    } while (0)

#define COL(TYPE)                                                            \
    "{\"name\":\"x\",\"version\":\"1.0.0\",\"tables\":{\"T\":{\"columns\":"  \
    "{\"a\":" TYPE "}}}}"

static const char full_schema[] =
    "{\"name\":\"c\",\"version\":\"1.2.3\",\"cksum\":\"123 456\",\"tables\":{"
    "\"T\":{\"columns\":{"
    "\"a\":{\"type\":{\"key\":{\"type\":\"integer\",\"minInteger\":0,"
    "\"maxInteger\":10}}},"
    "\"b\":{\"type\":{\"key\":{\"type\":\"real\",\"minReal\":-1.5}}},"
    "\"c\":{\"type\":{\"key\":{\"type\":\"string\",\"enum\":[\"set\","
    "[\"x\",\"y\"]]},\"min\":0,\"max\":3}},"
    "\"d\":{\"type\":{\"key\":{\"type\":\"string\",\"minLength\":1,"
    "\"maxLength\":5},\"value\":{\"type\":\"uuid\",\"refTable\":\"U\","
    "\"refType\":\"weak\"},\"min\":1,\"max\":\"unlimited\"}},"
    "\"e\":{\"type\":\"boolean\",\"ephemeral\":true,\"mutable\":false},"
    "\"f\":{\"type\":{\"key\":{\"type\":\"string\",\"enum\":\"z\"}}},"
    "\"g\":{\"type\":{\"key\":{\"type\":\"uuid\",\"refTable\":\"U\"},"
    "\"min\":0,\"max\":1}},"
    "\"h\":{\"type\":{\"key\":\"integer\",\"min\":1,\"max\":1}},"
    "\"j\":{\"type\":{\"key\":\"string\",\"value\":\"string\",\"min\":0,"
    "\"max\":\"unlimited\"},\"mutable\":true,\"ephemeral\":false}"
    "},\"maxRows\":5,\"indexes\":[[\"a\"],[\"b\",\"h\"]],\"isRoot\":false},"
    "\"U\":{\"columns\":{\"n\":{\"type\":\"integer\"}},\"isRoot\":true}}}";

/* What the reference ovsdb-server 3.1 returns for get_schema. */
static const char full_schema_out[] =
    "{\"cksum\":\"123 456\",\"name\":\"c\",\"tables\":{\"T\":{\"columns\":{"
    "\"a\":{\"type\":{\"key\":{\"maxInteger\":10,\"minInteger\":0,"
    "\"type\":\"integer\"}}},"
    "\"b\":{\"type\":{\"key\":{\"minReal\":-1.5,\"type\":\"real\"}}},"
    "\"c\":{\"type\":{\"key\":{\"enum\":[\"set\",[\"x\",\"y\"]],"
    "\"type\":\"string\"},\"max\":3,\"min\":0}},"
    "\"d\":{\"type\":{\"key\":{\"maxLength\":5,\"minLength\":1,"
    "\"type\":\"string\"},\"max\":\"unlimited\",\"value\":{\"refTable\":"
    "\"U\",\"refType\":\"weak\",\"type\":\"uuid\"}}},"
    "\"e\":{\"ephemeral\":true,\"mutable\":false,\"type\":\"boolean\"},"
    "\"f\":{\"type\":{\"key\":{\"enum\":\"z\",\"type\":\"string\"}}},"
    "\"g\":{\"type\":{\"key\":{\"refTable\":\"U\",\"type\":\"uuid\"},"
    "\"min\":0}},"
    "\"h\":{\"type\":\"integer\"},"
    "\"j\":{\"type\":{\"key\":\"string\",\"max\":\"unlimited\",\"min\":0,"
    "\"value\":\"string\"}}},"
    "\"indexes\":[[\"a\"],[\"b\",\"h\"]],\"maxRows\":5},"
    "\"U\":{\"columns\":{\"n\":{\"type\":\"integer\"}},\"isRoot\":true}},"
    "\"version\":\"1.2.3\"}";

/* A full schema round-trips to the reference's get_schema form. */
static void
test_full_schema(void)
{
    json_t *json = jsonx_from_string(full_schema, NULL);
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(json, &schema);
    CHECK(!error);
    json_decref(json);
    if (!error) {
        json_t *out = ovsdb_schema_to_json(schema);
        char *s = jsonx_to_string_sorted(out);
        CHECK_STREQ(s, full_schema_out);
        free(s);
        json_decref(out);

        const struct ovsdb_table_schema *t = ovsdb_schema_find_table(schema,
                                                                     "T");
        CHECK(t && !t->is_root && t->max_rows == 5 && t->n_indexes == 2);
        CHECK(t->n_columns == OVSDB_N_STD_COLUMNS + 9);
        CHECK_STREQ(t->columns[OVSDB_COL_UUID]->name, "_uuid");
        CHECK_STREQ(t->columns[OVSDB_COL_VERSION]->name, "_version");
        CHECK_STREQ(t->columns[OVSDB_N_STD_COLUMNS]->name, "a");
        const struct ovsdb_column *d = ovsdb_table_schema_find_column(t, "d");
        CHECK(d && d->type.n_min == 1 && d->type.n_max == UINT_MAX);
        CHECK(d->type.value.uuid.ref_table
              == ovsdb_schema_find_table(schema, "U"));
        CHECK(ovsdb_base_type_is_weak_ref(&d->type.value));
        const struct ovsdb_column *e = ovsdb_table_schema_find_column(t, "e");
        CHECK(e && !e->is_mutable && !e->is_persistent);
        CHECK(!ovsdb_table_schema_find_column(t, "zz"));
        CHECK(!ovsdb_schema_find_table(schema, "Z"));

        struct ovsdb_schema *clone = ovsdb_schema_clone(schema);
        CHECK(ovsdb_schema_equals(schema, clone));
        ovsdb_schema_destroy(clone);
        ovsdb_schema_destroy(schema);
    }
}

/* Without isRoot anywhere, every table is a root table. */
static void
test_root_default(void)
{
    struct ovsdb_schema *schema;
    json_t *json = jsonx_from_string(COL("{\"type\":\"integer\"}"), NULL);
    CHECK(!ovsdb_schema_from_json(json, &schema));
    CHECK(schema->tables[0]->is_root);
    json_t *out = ovsdb_schema_to_json(schema);
    char *s = jsonx_to_string_sorted(out);
    CHECK_STREQ(s, "{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":{\"a\":"
                "{\"type\":\"integer\"}}}},\"version\":\"1.0.0\"}");
    free(s);
    json_decref(out);
    ovsdb_schema_destroy(schema);
    json_decref(json);
}

/* Errors in column types, worded as the reference's. */
static void
test_type_errors(void)
{
    BAD(COL("{\"type\":\"foo\"}"),
        "syntax error: \"foo\" is not an atomic-type");
    BAD(COL("{\"type\":{\"key\":\"integer\",\"min\":2,\"max\":1}}"),
        "syntax error: ovsdb type fails constraint checks");
    BAD(COL("{\"type\":{\"key\":\"integer\",\"min\":2}}"),
        "syntax error: ovsdb type fails constraint checks");
    BAD(COL("{\"type\":{\"key\":\"integer\",\"max\":0}}"),
        "syntax error: ovsdb type fails constraint checks");
    BAD(COL("{\"type\":{\"key\":\"integer\",\"min\":-1}}"),
        "syntax error: bad min or max value");
    BAD(COL("{\"type\":{\"key\":\"integer\",\"max\":\"lots\"}}"),
        "syntax error: bad min or max value");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"integer\",\"minInteger\":5,"
            "\"maxInteger\":1}}}"),
        "syntax error: minInteger exceeds maxInteger");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"real\",\"minReal\":5,"
            "\"maxReal\":1}}}"),
        "syntax error: minReal exceeds maxReal");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"string\",\"minLength\":3,"
            "\"maxLength\":1}}}"),
        "syntax error: minLength exceeds maxLength");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"uuid\",\"refTable\":\"Z\"}}}"),
        "syntax error: column a key refers to undefined table Z");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"integer\",\"refTable\":\"T\"}}}"),
        "syntax error: Parsing ovsdb type failed: Member 'refTable' is "
        "present but not allowed here.");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"uuid\",\"refTable\":\"T\","
            "\"refType\":\"bogus\"}}}"),
        "syntax error: refType must be \"strong\" or \"weak\" (not "
        "\"bogus\")");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"integer\",\"minInteger\":1.5}}}"),
        "syntax error: Parsing ovsdb type failed: Type mismatch for member "
        "'minInteger'.");
    BAD(COL("{\"type\":\"integer\",\"mutable\":1}"),
        "syntax error: Parsing schema for column a failed: Type mismatch "
        "for member 'mutable'.");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"string\",\"enum\":[\"set\","
            "[\"a\",\"a\"]]}}}"),
        "ovsdb error: set contains duplicate");
    BAD(COL("{\"type\":{\"key\":{\"type\":\"string\",\"enum\":[\"set\","
            "[1]]}}}"),
        "syntax error: expected string");
    BAD(COL("{}"), "syntax error: Parsing schema for column a failed: "
        "Required 'type' member is missing.");
}

/* Errors in names, versions, tables and indexes, worded as the
 * reference's. */
static void
test_schema_errors(void)
{
    BAD("{\"name\":\"x\",\"version\":\"1.0.0\",\"tables\":{\"T\":{"
        "\"columns\":{\"_a\":{\"type\":\"integer\"}}}}}",
        "syntax error: names beginning with \"_\" are reserved");
    BAD("{\"name\":\"x\",\"version\":\"1.0.0\",\"tables\":{\"_T\":{"
        "\"columns\":{\"a\":{\"type\":\"integer\"}}}}}",
        "syntax error: names beginning with \"_\" are reserved");
    BAD("{\"name\":\"x\",\"version\":\"1.0.0\",\"tables\":{\"T\":{"
        "\"columns\":{\"a b\":{\"type\":\"integer\"}}}}}",
        "syntax error: name must be a valid id");
    BAD("{\"name\":\"x\",\"version\":\"1.0\",\"tables\":{}}",
        "syntax error: schema version \"1.0\" not in format x.y.z");
    BAD("{\"name\":\"1x\",\"version\":\"1.0.0\",\"tables\":{}}",
        "syntax error: Parsing database schema failed: Type mismatch for "
        "member 'name'.");
    BAD("{\"version\":\"1.0.0\",\"tables\":{}}",
        "syntax error: Parsing database schema failed: Required 'name' "
        "member is missing.");
    BAD("[]", "syntax error: Parsing database schema failed: Object "
        "expected.");
    BAD("{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":{}}}}",
        "syntax error: table must have at least one column");
    BAD("{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":{\"a\":{\"type\":"
        "\"integer\"}},\"indexes\":[[\"b\"]]}}}",
        "syntax error: b is not a valid column name");
    BAD("{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":{\"a\":{\"type\":"
        "\"integer\"}},\"indexes\":[[]]}}}",
        "syntax error: index must have at least one column");
    BAD("{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":{\"a\":{\"type\":"
        "\"integer\",\"ephemeral\":true}},\"indexes\":[[\"a\"]]}}}",
        "syntax error: ephemeral columns (such as a) may not be indexed");
    BAD("{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":{\"a\":{\"type\":"
        "\"integer\"}},\"maxRows\":0}}}",
        "syntax error: maxRows must be at least 1");
    BAD("{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":{\"a\":{\"type\":"
        "\"integer\"}},\"foo\":1}}}",
        "syntax error: Parsing table schema for table T failed: Member "
        "'foo' is present but not allowed here.");
}

static void
test_accepted(void)
{
    /* A schema without "version" is accepted (old schemas). */
    CHECK(parse_error("{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":"
                      "{\"a\":{\"type\":\"integer\"}}}}}") == NULL);
    /* Indexing _uuid is allowed. */
    CHECK(parse_error("{\"name\":\"x\",\"tables\":{\"T\":{\"columns\":"
                      "{\"a\":{\"type\":\"integer\"}},\"indexes\":"
                      "[[\"_uuid\"]]}}}") == NULL);
}

/* Every installed reference schema parses and round-trips. */
static void
test_reference_schemas(void)
{
    struct ovsdb_schema *schema;
    static const char *const files[] = {
        "/usr/share/openvswitch/vswitch.ovsschema",
        "/usr/share/ovn/ovn-nb.ovsschema",
        "/usr/share/ovn/ovn-sb.ovsschema",
    };
    for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
        if (access(files[i], R_OK)) {
            continue;
        }
        struct ovsdb_error *error = ovsdb_schema_from_file(files[i], &schema);
        CHECK(!error);
        if (error) {
            char *msg = ovsdb_error_to_string_free(error);
            fprintf(stderr, "%s\n", msg);
            free(msg);
            continue;
        }
        json_t *j1 = ovsdb_schema_to_json(schema);
        struct ovsdb_schema *again;
        CHECK(!ovsdb_schema_from_json(j1, &again));
        CHECK(ovsdb_schema_equals(schema, again));
        json_decref(j1);
        ovsdb_schema_destroy(again);
        ovsdb_schema_destroy(schema);
    }
}

static void
test_versions(void)
{
    CHECK(ovsdb_is_valid_version("1.2.3"));
    CHECK(!ovsdb_is_valid_version("1.2"));
    CHECK(!ovsdb_is_valid_version("1.2.3.4"));
    CHECK(!ovsdb_is_valid_version("a.b.c"));
    CHECK(!ovsdb_is_valid_version("1.2.-3"));
}

static const struct check_case cases[] = {
    CHECK_CASE(test_full_schema), CHECK_CASE(test_root_default),
    CHECK_CASE(test_type_errors), CHECK_CASE(test_schema_errors),
    CHECK_CASE(test_accepted),    CHECK_CASE(test_reference_schemas),
    CHECK_CASE(test_versions),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-schema", cases, ARRAY_SIZE(cases));
}
