/* tests/unit/monitor/test-monitor-pending.c: the pending changes of
 * ovsdb/monitor (a subscriber that is behind): one change per row, merged from
 * what the client last saw to the row's latest state, as each shape shows it.
 */
#include <config.h>

#include "ovsdb/monitor/monitor.h"

#include <stdarg.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/uuid.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/schema.h"
#include "tests/unit/check.h"

static const char schema_text[] =
    "{\"name\":\"T\",\"version\":\"1.0.0\",\"tables\":{"
    "\"H\":{\"columns\":{\"name\":{\"type\":\"string\"},"
    "\"n\":{\"type\":\"integer\"},"
    "\"s\":{\"type\":{\"key\":\"string\",\"min\":0,\"max\":\"unlimited\"}}}},"
    "\"Other\":{\"columns\":{\"x\":{\"type\":\"integer\"}}}}}";

/* A subscriber that keeps everything pending, as a session whose client
 * does not read. */
struct behind {
    struct ovsdb_monitor *m;
    struct ovsdb_monitor_pending *p;
    struct uuid txn_id;             /* Of the last update. */
    int n_updates;
};

static void
keep_pending(void *b_, const struct ovsdb_monitor_update *u)
{
    struct behind *b = b_;
    ovsdb_monitor_pending_add(b->p, b->m, u);
    b->txn_id = *u->txn_id;
    b->n_updates++;
}

/* Returns the JSON value of the text that 'fmt' makes; the test stops on
 * bad JSON. */
static json_t * PRINTF_FORMAT(1, 2)
jsonf(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    char *text = xvasprintf(fmt, args);
    va_end(args);

    char *error = NULL;
    json_t *json = jsonx_from_string(text, &error);
    if (!json) {
        fprintf(stderr, "bad test JSON %s: %s\n", text, error);
        exit(1);
    }
    free(text);
    return json;
}

/* Executes the operations 'ops' (steals it) on 'db', which must succeed.
 * If 'uuid_s' (UUID_LEN + 1 bytes) is nonnull, stores there the UUID of
 * the row the first operation inserted. */
static void
run_ops(struct ovsdb *db, json_t *ops, char *uuid_s)
{
    json_t *reply = ovsdb_execute(db, ops, false);
    json_decref(ops);
    size_t i;
    json_t *result;
    json_array_foreach (reply, i, result) {
        CHECK(!json_object_get(result, "error"));
    }
    if (uuid_s) {
        json_t *u = json_object_get(json_array_get(reply, 0), "uuid");
        snprintf(uuid_s, UUID_LEN + 1, "%s",
                 json_string_value(json_array_get(u, 1)));
    }
    json_decref(reply);
}

/* Returns the shape of 'requests' on 'hub' (one new reference). */
static struct ovsdb_monitor *
shape(struct ovsdb_monitor_hub *hub, json_t *requests,
      enum ovsdb_monitor_version version)
{
    struct ovsdb_monitor *m = NULL;
    struct ovsdb_error *error = ovsdb_monitor_hub_get(hub, requests, version,
                                                      &m);
    CHECK(!error);
    json_decref(requests);
    return m;
}

/* Takes 'b''s pending changes as sorted text ("null" if none). */
static char *
take(struct behind *b)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    bool any = ovsdb_monitor_pending_take(b->p, b->m, &text);
    CHECK_INTEQ(ovsdb_monitor_pending_n_rows(b->p), 0);
    if (!any) {
        CHECK_INTEQ(text.length, 0);
        ds_destroy(&text);
        return xstrdup("null");
    }
    json_error_t error;
    json_t *updates = jsonx_loadb(text.string, text.length, 0, &error);
    CHECK(updates != NULL);
    ds_destroy(&text);
    char *s = jsonx_to_string_sorted(updates);
    json_decref(updates);
    return s;
}

/* Checks that 'b''s pending changes are {"H":{<uuid>: 'row_update'}}. */
static void
expect_one(struct behind *b, const char *uuid, const char *row_update)
{
    char *expected = xasprintf("{\"H\":{\"%s\":%s}}", uuid, row_update);
    char *s = take(b);
    CHECK_STREQ(s, expected);
    free(s);
    free(expected);
}

static void
expect_none(struct behind *b)
{
    char *s = take(b);
    CHECK_STREQ(s, "null");
    free(s);
}

/* Operations on H (JSON text). */
#define INSERT_H "{\"op\":\"insert\",\"table\":\"H\",\"row\":"
#define WHERE_NAME(NAME) "\"where\":[[\"name\",\"==\",\"" NAME "\"]]"
#define WHERE_UUID "\"where\":[[\"_uuid\",\"==\",[\"uuid\",\"%s\"]]]"

int
main(void)
{
    struct ovsdb_schema *schema;
    json_t *schema_json = jsonf("%s", schema_text);
    struct ovsdb_error *error = ovsdb_schema_from_json(schema_json, &schema);
    CHECK(!error);
    json_decref(schema_json);
    struct ovsdb *db = ovsdb_create(schema);
    struct ovsdb_monitor_hub *hub = ovsdb_monitor_hub_create(db);

    char a[UUID_LEN + 1], b_row[UUID_LEN + 1], c[UUID_LEN + 1];
    run_ops(db, jsonf("[\"T\"," INSERT_H "{\"name\":\"a\",\"n\":1}}]"), a);

    struct behind v2 = {
        .m = shape(hub,
                   jsonf("{\"H\":[{\"columns\":[\"name\",\"n\",\"s\"]}]}"),
                   OVSDB_MONITOR_V2),
        .p = ovsdb_monitor_pending_create(),
    };
    struct behind v1 = {
        .m = shape(hub, jsonf("{\"H\":[{\"columns\":[\"name\",\"n\"]}]}"),
                   OVSDB_MONITOR_V1),
        .p = ovsdb_monitor_pending_create(),
    };
    struct behind cond = {
        .m = shape(hub, jsonf("{\"H\":[{\"columns\":[\"name\",\"n\"],"
                              "\"where\":[[\"n\",\">\",5]]}]}"),
                   OVSDB_MONITOR_V2),
        .p = ovsdb_monitor_pending_create(),
    };
    ovsdb_monitor_subscribe(v2.m, keep_pending, &v2);
    ovsdb_monitor_subscribe(v1.m, keep_pending, &v1);
    ovsdb_monitor_subscribe(cond.m, keep_pending, &cond);

    /* Many modifications of one row: one change, from the first old value
     * to the last new one; the last transaction's id. */
    for (int n = 2; n <= 99; n++) {
        run_ops(db, jsonf("[\"T\",{\"op\":\"update\",\"table\":\"H\","
                          WHERE_NAME("a") ",\"row\":{\"n\":%d}}]", n), NULL);
    }
    CHECK_INTEQ(v2.n_updates, 98);
    CHECK_INTEQ(ovsdb_monitor_pending_n_rows(v2.p), 1);
    CHECK(uuid_equals(ovsdb_monitor_pending_get_txn_id(v2.p), &v2.txn_id));
    CHECK(uuid_equals(&v2.txn_id, ovsdb_monitor_hub_get_last_txn_id(hub)));
    expect_one(&v2, a, "{\"modify\":{\"n\":99}}");
    /* v1: the latest row and the old values of what changed. */
    expect_one(&v1, a, "{\"new\":{\"n\":99,\"name\":\"a\"},"
                       "\"old\":{\"n\":1}}");
    /* The row entered the condition (n > 5) while pending: an insert. */
    expect_one(&cond, a, "{\"insert\":{\"n\":99,\"name\":\"a\"}}");

    /* Changed and changed back: nothing to send (for the condition: it
     * left, then came back). */
    run_ops(db, jsonf("[\"T\",{\"op\":\"update\",\"table\":\"H\","
                      WHERE_NAME("a") ",\"row\":{\"n\":5}}]"), NULL);
    run_ops(db, jsonf("[\"T\",{\"op\":\"update\",\"table\":\"H\","
                      WHERE_NAME("a") ",\"row\":{\"n\":99}}]"), NULL);
    expect_none(&v2);
    expect_none(&v1);
    expect_none(&cond);

    /* Inserted then modified: an insert of the latest state. */
    run_ops(db, jsonf("[\"T\"," INSERT_H "{\"name\":\"b\",\"n\":1}}]"),
            b_row);
    run_ops(db, jsonf("[\"T\",{\"op\":\"mutate\",\"table\":\"H\","
                      WHERE_UUID ",\"mutations\":[[\"s\",\"insert\","
                      "[\"set\",[\"x\",\"y\"]]]]}]", b_row), NULL);
    expect_one(&v2, b_row, "{\"insert\":{\"n\":1,\"name\":\"b\","
                           "\"s\":[\"set\",[\"x\",\"y\"]]}}");
    expect_one(&v1, b_row, "{\"new\":{\"n\":1,\"name\":\"b\"}}");
    expect_none(&cond);       /* Never visible (n is 1). */

    /* A set changed twice: the diff between first and last. */
    run_ops(db, jsonf("[\"T\",{\"op\":\"mutate\",\"table\":\"H\","
                      WHERE_UUID ",\"mutations\":[[\"s\",\"delete\","
                      "\"x\"]]}]", b_row), NULL);
    run_ops(db, jsonf("[\"T\",{\"op\":\"mutate\",\"table\":\"H\","
                      WHERE_UUID ",\"mutations\":[[\"s\",\"insert\","
                      "\"z\"]]}]", b_row), NULL);
    expect_one(&v2, b_row, "{\"modify\":{\"s\":[\"set\",[\"x\",\"z\"]]}}");
    expect_none(&v1);         /* 's' is not in its columns. */

    /* Inserted then deleted: nothing.  Modified then deleted: a
     * deletion. */
    run_ops(db, jsonf("[\"T\"," INSERT_H "{\"name\":\"c\",\"n\":9}}]"), c);
    run_ops(db, jsonf("[\"T\",{\"op\":\"delete\",\"table\":\"H\","
                      WHERE_UUID "}]", c), NULL);
    expect_none(&v2);
    expect_none(&cond);
    run_ops(db, jsonf("[\"T\",{\"op\":\"update\",\"table\":\"H\","
                      WHERE_NAME("a") ",\"row\":{\"n\":7}}]"), NULL);
    run_ops(db, jsonf("[\"T\",{\"op\":\"delete\",\"table\":\"H\","
                      WHERE_NAME("a") "}]"), NULL);
    expect_one(&v2, a, "{\"delete\":null}");
    expect_one(&v1, a, "{\"old\":{\"n\":99,\"name\":\"a\"}}");
    expect_one(&cond, a, "{\"delete\":null}");

    /* Tables the shape does not show are not kept; neither are rows a
     * condition never shows. */
    int before = cond.n_updates;
    run_ops(db, jsonf("[\"T\",{\"op\":\"insert\",\"table\":\"Other\","
                      "\"row\":{\"x\":1}},"
                      "{\"op\":\"update\",\"table\":\"H\","
                      WHERE_NAME("b") ",\"row\":{\"n\":2}}]"), NULL);
    CHECK_INTEQ(cond.n_updates, before);
    CHECK_INTEQ(ovsdb_monitor_pending_n_rows(cond.p), 0);
    CHECK_INTEQ(ovsdb_monitor_pending_n_rows(v2.p), 1);

    /* Destroying a non-empty set frees its rows (valgrind checks). */
    struct behind *all[] = { &v2, &v1, &cond };
    for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
        ovsdb_monitor_unsubscribe(all[i]->m, keep_pending, all[i]);
        ovsdb_monitor_pending_destroy(all[i]->p);
        ovsdb_monitor_unref(all[i]->m);
    }
    ovsdb_monitor_pending_destroy(NULL);
    ovsdb_monitor_hub_destroy(hub);
    ovsdb_destroy(db);
    return check_report("test-monitor-pending");
}
