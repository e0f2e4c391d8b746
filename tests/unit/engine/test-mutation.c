/* tests/unit/engine/test-mutation.c: every mutator (RFC 7047 section 5.1) and
 * its errors: domain, range, constraint and syntax. */
#include <config.h>
#include "ovsdb/engine/mutation.h"

#include <stdlib.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "tests/unit/check.h"

static const char schema_text[] =
    "{\"name\":\"m\",\"tables\":{\"T\":{\"columns\":{"
    "\"i\":{\"type\":\"integer\"},\"r\":{\"type\":\"real\"},"
    "\"s\":{\"type\":\"string\"},"
    "\"ic\":{\"type\":{\"key\":{\"type\":\"integer\",\"minInteger\":0,"
    "\"maxInteger\":100}}},"
    "\"imm\":{\"type\":\"integer\",\"mutable\":false},"
    "\"is\":{\"type\":{\"key\":\"integer\",\"min\":0,\"max\":3}},"
    "\"m\":{\"type\":{\"key\":\"string\",\"value\":\"integer\",\"min\":0,"
    "\"max\":2}}}}}}";

static struct ovsdb *db;
static const struct ovsdb_table_schema *ts;

/* Applies 'mutations' to a fresh row made from 'row_text'; returns the
 * resulting row as JSON text, or "TAG" of the error. */
static char *
mutate(const char *row_text, const char *mutations)
{
    struct ovsdb_row *row = ovsdb_row_create(ovsdb_get_table(db, "T"));
    json_t *json = jsonx_from_string(row_text, NULL);
    if (ovsdb_row_from_json(row, json, NULL, NULL)) {
        abort();
    }
    json_decref(json);

    json = jsonx_from_string(mutations, NULL);
    struct ovsdb_mutation_set set;
    struct ovsdb_error *error = ovsdb_mutation_set_from_json(ts, json, NULL,
                                                             &set);
    json_decref(json);
    if (!error) {
        error = ovsdb_mutation_set_execute(row, &set);
        ovsdb_mutation_set_destroy(&set);
    }
    char *s;
    if (error) {
        s = xstrdup(ovsdb_error_tag_string(ovsdb_error_get_tag(error)));
        ovsdb_error_destroy(error);
    } else {
        struct ovsdb_column_set cols = OVSDB_COLUMN_SET_INITIALIZER;
        ovsdb_column_set_add(&cols, ovsdb_table_schema_find_column(ts, "i"));
        ovsdb_column_set_add(&cols, ovsdb_table_schema_find_column(ts, "r"));
        ovsdb_column_set_add(&cols, ovsdb_table_schema_find_column(ts,
                                                                   "is"));
        ovsdb_column_set_add(&cols, ovsdb_table_schema_find_column(ts, "m"));
        json_t *out = ovsdb_row_to_json(row, &cols);
        s = jsonx_to_string_sorted(out);
        json_decref(out);
        ovsdb_column_set_destroy(&cols);
    }
    ovsdb_row_destroy(row);
    return s;
}

#define M(ROW, MUTATIONS, EXPECTED)                                          \
    do {                                                                     \
        char *s_ = mutate(ROW, MUTATIONS);                                   \
        CHECK_STREQ(s_, EXPECTED);                                           \
        free(s_);                                                            \
    } while (0)

#define EMPTY "\"is\":[\"set\",[]],\"m\":[\"map\",[]]"

/* Arithmetic on integers and reals, applied in order. */
static void
test_arithmetic(void)
{
    M("{\"i\":7}", "[[\"i\",\"+=\",3],[\"i\",\"*=\",2],[\"i\",\"-=\",1],"
      "[\"i\",\"/=\",2],[\"i\",\"%=\",4]]",
      "{\"i\":1," EMPTY ",\"r\":0}");
    M("{\"i\":-7}", "[[\"i\",\"/=\",2]]", "{\"i\":-3," EMPTY ",\"r\":0}");
    M("{\"i\":-7}", "[[\"i\",\"%=\",2]]", "{\"i\":-1," EMPTY ",\"r\":0}");
    M("{\"r\":1.5}", "[[\"r\",\"*=\",2],[\"r\",\"+=\",1]]",
      "{\"i\":0," EMPTY ",\"r\":4}");
}

/* Element-wise on sets; duplicates are an error. */
static void
test_set_arithmetic(void)
{
    M("{\"is\":[\"set\",[1,2]]}", "[[\"is\",\"+=\",10]]",
      "{\"i\":0,\"is\":[\"set\",[11,12]],\"m\":[\"map\",[]],\"r\":0}");
    M("{\"is\":[\"set\",[1,2]]}", "[[\"is\",\"*=\",0]]",
      "constraint violation");
}

/* Domain, range, constraint and syntax errors, unknown mutators and
 * columns. */
static void
test_errors(void)
{
    M("{\"i\":1}", "[[\"i\",\"/=\",0]]", "domain error");
    M("{\"i\":1}", "[[\"i\",\"%=\",0]]", "domain error");
    M("{\"r\":1}", "[[\"r\",\"/=\",0]]", "domain error");
    M("{\"i\":9223372036854775807}", "[[\"i\",\"+=\",1]]", "range error");
    M("{\"i\":-9223372036854775808}", "[[\"i\",\"-=\",1]]", "range error");
    M("{\"i\":-9223372036854775808}", "[[\"i\",\"/=\",-1]]", "range error");
    M("{\"i\":-9223372036854775808}", "[[\"i\",\"%=\",-1]]", "range error");
    M("{\"i\":4611686018427387904}", "[[\"i\",\"*=\",2]]", "range error");
    M("{\"r\":1e308}", "[[\"r\",\"*=\",10]]", "range error");
    M("{\"ic\":50}", "[[\"ic\",\"+=\",51]]", "constraint violation");
    M("{}", "[[\"imm\",\"+=\",1]]", "constraint violation");
    M("{}", "[[\"_uuid\",\"+=\",1]]", "constraint violation");
    M("{}", "[[\"r\",\"%=\",2]]", "syntax error");
    M("{}", "[[\"s\",\"+=\",\"x\"]]", "syntax error");
    M("{}", "[[\"i\",\"insert\",1]]", "syntax error");
    M("{}", "[[\"i\",\"+=\",1.5]]", "syntax error");
    M("{}", "[[\"i\",\"^=\",1]]", "unknown mutator");
    M("{}", "[[\"zz\",\"+=\",1]]", "unknown column");
    M("{}", "[[\"i\",\"+=\"]]", "syntax error");
    M("{}", "{}", "syntax error");
}

/* Insert and delete on sets, within the set's size limits. */
static void
test_set_insert_delete(void)
{
    M("{\"is\":[\"set\",[1]]}", "[[\"is\",\"insert\",[\"set\",[2,3]]]]",
      "{\"i\":0,\"is\":[\"set\",[1,2,3]],\"m\":[\"map\",[]],\"r\":0}");
    M("{\"is\":[\"set\",[1,2]]}", "[[\"is\",\"insert\",[\"set\",[3,4]]]]",
      "constraint violation");
    M("{\"is\":[\"set\",[1,2]]}", "[[\"is\",\"insert\",[\"set\",[1,2,3,4]]]]",
      "syntax error");
    M("{\"is\":[\"set\",[1,2]]}", "[[\"is\",\"delete\",[\"set\",[2,5,6,7]]]]",
      "{\"i\":0,\"is\":1,\"m\":[\"map\",[]],\"r\":0}");
}

/* Maps: insert keeps existing keys; delete by pairs or by keys. */
static void
test_map_insert_delete(void)
{
    M("{\"m\":[\"map\",[[\"a\",1]]]}",
      "[[\"m\",\"insert\",[\"map\",[[\"a\",9],[\"b\",2]]]]]",
      "{\"i\":0,\"is\":[\"set\",[]],\"m\":[\"map\",[[\"a\",1],[\"b\",2]]],"
      "\"r\":0}");
    M("{\"m\":[\"map\",[[\"a\",1]]]}",
      "[[\"m\",\"insert\",[\"map\",[[\"b\",2],[\"c\",3]]]]]",
      "constraint violation");
    M("{\"m\":[\"map\",[[\"a\",1],[\"b\",2]]]}",
      "[[\"m\",\"delete\",[\"map\",[[\"a\",1],[\"b\",3]]]]]",
      "{\"i\":0,\"is\":[\"set\",[]],\"m\":[\"map\",[[\"b\",2]]],\"r\":0}");
    M("{\"m\":[\"map\",[[\"a\",1],[\"b\",2]]]}",
      "[[\"m\",\"delete\",[\"set\",[\"b\",\"z\"]]]]",
      "{\"i\":0,\"is\":[\"set\",[]],\"m\":[\"map\",[[\"a\",1]]],\"r\":0}");
    M("{}", "[[\"m\",\"+=\",1]]", "syntax error");
}

static const struct check_case cases[] = {
    CHECK_CASE(test_arithmetic),
    CHECK_CASE(test_set_arithmetic),
    CHECK_CASE(test_errors),
    CHECK_CASE(test_set_insert_delete),
    CHECK_CASE(test_map_insert_delete),
};

int
main(int argc, char *argv[])
{
    json_t *json = jsonx_from_string(schema_text, NULL);
    struct ovsdb_schema *schema;
    if (ovsdb_schema_from_json(json, &schema)) {
        abort();
    }
    json_decref(json);
    db = ovsdb_create(schema);
    ts = ovsdb_schema_find_table(schema, "T");

    int status = check_main(argc, argv, "test-mutation", cases,
                            ARRAY_SIZE(cases));
    ovsdb_destroy(db);
    return status;
}
