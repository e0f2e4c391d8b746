/* tests/unit/engine/test-condition.c: parsing and evaluating "where"
 * conditions (RFC 7047 section 5.1) on every type, and their errors. */
#include <config.h>
#include "ovsdb/engine/condition.h"

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
    "{\"name\":\"c\",\"tables\":{\"T\":{\"columns\":{"
    "\"i\":{\"type\":\"integer\"},\"r\":{\"type\":\"real\"},"
    "\"b\":{\"type\":\"boolean\"},\"s\":{\"type\":\"string\"},"
    "\"u\":{\"type\":\"uuid\"},"
    "\"oi\":{\"type\":{\"key\":\"integer\",\"min\":0,\"max\":1}},"
    "\"is\":{\"type\":{\"key\":\"integer\",\"min\":0,\"max\":3}},"
    "\"m\":{\"type\":{\"key\":\"string\",\"value\":\"integer\",\"min\":0,"
    "\"max\":\"unlimited\"}}}}}}";

static struct ovsdb *db;
static const struct ovsdb_table_schema *ts;

static struct ovsdb_row *
make_row(const char *json_text)
{
    struct ovsdb_row *row = ovsdb_row_create(ovsdb_get_table(db, "T"));
    json_t *json = jsonx_from_string(json_text, NULL);
    struct ovsdb_error *error = ovsdb_row_from_json(row, json, NULL, NULL);
    json_decref(json);
    if (error) {
        abort();
    }
    return row;
}

/* Returns 1 if 'row' matches 'cond_text', 0 if not, or -1 on a parse
 * error (then '*tagp' is set). */
static int
eval(const struct ovsdb_row *row, const char *cond_text,
     enum ovsdb_error_tag *tagp)
{
    json_t *json = jsonx_from_string(cond_text, NULL);
    struct ovsdb_condition cond;
    struct ovsdb_error *error = ovsdb_condition_from_json(ts, json, NULL,
                                                          &cond);
    json_decref(json);
    if (error) {
        *tagp = ovsdb_error_get_tag(error);
        ovsdb_error_destroy(error);
        return -1;
    }
    int match = ovsdb_condition_match(row, &cond);
    ovsdb_condition_destroy(&cond);
    return match;
}

#define MATCH(ROW, COND) CHECK(eval(ROW, COND, &tag) == 1)
#define NO_MATCH(ROW, COND) CHECK(eval(ROW, COND, &tag) == 0)
#define BAD(ROW, COND, TAG)                                                  \
    do {                                                                     \
        CHECK(eval(ROW, COND, &tag) == -1);                                  \
        CHECK(tag == TAG);                                                   \
    } while (0)

int
main(void)
{
    json_t *json = jsonx_from_string(schema_text, NULL);
    struct ovsdb_schema *schema;
    if (ovsdb_schema_from_json(json, &schema)) {
        abort();
    }
    json_decref(json);
    db = ovsdb_create(schema);
    ts = ovsdb_schema_find_table(schema, "T");
    enum ovsdb_error_tag tag;

    struct ovsdb_row *row = make_row(
        "{\"i\":5,\"r\":2.5,\"b\":true,\"s\":\"abc\",\"u\":[\"uuid\","
        "\"550e8400-e29b-41d4-a716-446655440000\"],\"oi\":[\"set\",[]],"
        "\"is\":[\"set\",[1,2]],\"m\":[\"map\",[[\"x\",1],[\"y\",2]]]}");

    /* Integers and reals: every function. */
    MATCH(row, "[[\"i\",\"==\",5]]");
    NO_MATCH(row, "[[\"i\",\"!=\",5]]");
    MATCH(row, "[[\"i\",\"<\",6],[\"i\",\"<=\",5],[\"i\",\">\",4],"
          "[\"i\",\">=\",5]]");
    NO_MATCH(row, "[[\"i\",\"<\",5]]");
    MATCH(row, "[[\"i\",\"includes\",5]]");
    MATCH(row, "[[\"i\",\"excludes\",4]]");
    MATCH(row, "[[\"r\",\">\",2],[\"r\",\"<\",2.6]]");
    NO_MATCH(row, "[[\"r\",\">=\",3]]");
    /* Booleans, strings, uuids: equality and inclusion only. */
    MATCH(row, "[[\"b\",\"==\",true],[\"s\",\"==\",\"abc\"]]");
    MATCH(row, "[[\"s\",\"!=\",\"abd\"],[\"s\",\"includes\",\"abc\"]]");
    MATCH(row, "[[\"u\",\"==\",[\"uuid\","
          "\"550e8400-e29b-41d4-a716-446655440000\"]]]");
    BAD(row, "[[\"s\",\"<\",\"x\"]]", OVSDB_E_SYNTAX);
    BAD(row, "[[\"b\",\">\",false]]", OVSDB_E_SYNTAX);
    BAD(row, "[[\"u\",\"<=\",[\"uuid\","
        "\"550e8400-e29b-41d4-a716-446655440000\"]]]", OVSDB_E_SYNTAX);
    /* Sets. */
    MATCH(row, "[[\"is\",\"==\",[\"set\",[2,1]]]]");
    MATCH(row, "[[\"is\",\"includes\",1],[\"is\",\"includes\","
          "[\"set\",[1,2]]]]");
    NO_MATCH(row, "[[\"is\",\"includes\",[\"set\",[1,3]]]]");
    MATCH(row, "[[\"is\",\"excludes\",[\"set\",[3,4,5,6]]]]");
    NO_MATCH(row, "[[\"is\",\"excludes\",[\"set\",[2,7]]]]");
    MATCH(row, "[[\"is\",\"includes\",[\"set\",[]]]]");
    BAD(row, "[[\"is\",\"<\",1]]", OVSDB_E_SYNTAX);
    BAD(row, "[[\"is\",\"==\",[\"set\",[1,2,3,4]]]]", OVSDB_E_SYNTAX);
    BAD(row, "[[\"is\",\"includes\",[\"set\",[1,2,3,4]]]]", OVSDB_E_SYNTAX);
    /* Optional scalars: "<" on an empty value is false. */
    NO_MATCH(row, "[[\"oi\",\"<\",100]]");
    MATCH(row, "[[\"oi\",\"==\",[\"set\",[]]]]");
    /* Maps: pairs, not keys. */
    MATCH(row, "[[\"m\",\"includes\",[\"map\",[[\"x\",1]]]]]");
    NO_MATCH(row, "[[\"m\",\"includes\",[\"map\",[[\"x\",2]]]]]");
    MATCH(row, "[[\"m\",\"excludes\",[\"map\",[[\"x\",2],[\"z\",1]]]]]");
    NO_MATCH(row, "[[\"m\",\"excludes\",[\"map\",[[\"y\",2]]]]]");
    BAD(row, "[[\"m\",\"includes\",[\"set\",[\"x\"]]]]", OVSDB_E_SYNTAX);
    /* Literals, the empty condition, and errors. */
    MATCH(row, "[]");
    MATCH(row, "[true]");
    NO_MATCH(row, "[true,false]");
    BAD(row, "[[\"zz\",\"==\",1]]", OVSDB_E_UNKNOWN_COLUMN);
    BAD(row, "[[\"i\",\"~\",1]]", OVSDB_E_UNKNOWN_FUNCTION);
    BAD(row, "[[\"i\",\"==\"]]", OVSDB_E_SYNTAX);
    BAD(row, "[\"x\"]", OVSDB_E_SYNTAX);
    BAD(row, "{}", OVSDB_E_SYNTAX);
    BAD(row, "[[\"i\",\"==\",\"x\"]]", OVSDB_E_SYNTAX);

    /* A _uuid clause is found for a hash lookup, and to_json round
     * trips. */
    json = jsonx_from_string(
        "[[\"i\",\">\",1],[\"_uuid\",\"==\",[\"uuid\","
        "\"550e8400-e29b-41d4-a716-446655440000\"]]]", NULL);
    struct ovsdb_condition cond, copy;
    CHECK(!ovsdb_condition_from_json(ts, json, NULL, &cond));
    json_decref(json);
    const struct uuid *u = ovsdb_condition_get_uuid(&cond);
    CHECK(u && u->parts[0] == 0x550e8400);
    ovsdb_condition_clone(&copy, &cond);
    CHECK(ovsdb_condition_equals(&cond, &copy));
    json_t *out = ovsdb_condition_to_json(&copy);
    char *s = jsonx_to_string_sorted(out);
    CHECK(strstr(s, "\"_uuid\",\"==\"") && strstr(s, "[\"i\",\">\",1]"));
    free(s);
    json_decref(out);
    ovsdb_condition_destroy(&copy);
    ovsdb_condition_destroy(&cond);

    ovsdb_row_destroy(row);
    ovsdb_destroy(db);
    return check_report("test-condition");
}
