/* tests/unit/monitor/test-monitor.c: monitor shapes, update composition,
 * sharing, condition changes and the transaction history of ovsdb/monitor. */
#include <config.h>

#include "ovsdb/monitor/monitor.h"

#include <string.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "lib/refbuf.h"
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
    "\"s\":{\"type\":{\"key\":\"string\",\"min\":0,\"max\":\"unlimited\"}},"
    "\"m\":{\"type\":{\"key\":\"string\",\"value\":\"string\","
    "\"min\":0,\"max\":\"unlimited\"}}}},"
    "\"G\":{\"columns\":{\"k\":{\"type\":\"integer\"}}}}}";

/* What a subscriber saw. */
struct seen {
    int n_calls;
    const char *last_body;          /* Pointer identity: shared or not. */
    char *text;                     /* Copy of the last body. */
    struct uuid txn_id;
};

static void
collect(void *seen_, const struct ovsdb_monitor_update *u)
{
    struct seen *seen = seen_;
    seen->n_calls++;
    seen->last_body = u->body;
    free(seen->text);
    seen->text = xmemdup0(u->body, u->body_size);
    seen->txn_id = *u->txn_id;
}

static json_t *
parse(const char *s)
{
    char *error = NULL;
    json_t *json = jsonx_from_string(s, &error);
    if (!json) {
        fprintf(stderr, "bad test JSON: %s\n", error);
        exit(1);
    }
    return json;
}

static void
transact(struct ovsdb *db, const char *ops)
{
    json_t *params = parse(ops);
    json_t *reply = ovsdb_execute(db, params, false);
    char *s = jsonx_to_string_sorted(reply);
    CHECK(!strstr(s, "\"error\""));
    if (strstr(s, "\"error\"")) {
        fprintf(stderr, "transaction failed: %s\n", s);
    }
    free(s);
    json_decref(reply);
    json_decref(params);
}

static struct ovsdb_monitor *
get(struct ovsdb_monitor_hub *hub, const char *requests,
    enum ovsdb_monitor_version version)
{
    json_t *json = parse(requests);
    struct ovsdb_monitor *m;
    struct ovsdb_error *error = ovsdb_monitor_hub_get(hub, json, version, &m);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        fprintf(stderr, "monitor %s: %s\n", requests, s);
        free(s);
        m = NULL;
    }
    json_decref(json);
    return m;
}

/* Returns the error string of a bad monitor request, or NULL. */
static char *
get_error(struct ovsdb_monitor_hub *hub, const char *requests,
          enum ovsdb_monitor_version version)
{
    json_t *json = parse(requests);
    struct ovsdb_monitor *m;
    struct ovsdb_error *error = ovsdb_monitor_hub_get(hub, json, version, &m);
    json_decref(json);
    if (!error) {
        ovsdb_monitor_unref(m);
        return NULL;
    }
    return ovsdb_error_to_string_free(error);
}

static bool
contains(const char *haystack, const char *needle)
{
    bool found = haystack && strstr(haystack, needle);
    if (!found) {
        fprintf(stderr, "'%s' not in '%s'\n", needle,
                haystack ? haystack : "(null)");
    }
    return found;
}

static char *
to_text(json_t *json)
{
    char *s = jsonx_to_string_sorted(json);
    json_decref(json);
    return s;
}

/* The changes after 'last' that ovsdb_monitor_get_since() writes, parsed
 * (NULL, with '*found' false, if it has none for the client). */
static json_t *
since(struct ovsdb_monitor *m, const struct uuid *last, bool *found)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    *found = ovsdb_monitor_get_since(m, last, &text);
    json_t *json = *found ? parse(ds_cstr(&text)) : NULL;
    CHECK(*found || !text.length);
    ds_destroy(&text);
    return json;
}

/* The initial contents of 'm', parsed and written again with sorted
 * members, so that they can be compared as text. */
static char *
initial(struct ovsdb_monitor *m)
{
    struct refbuf *text = ovsdb_monitor_get_initial_text(m);
    char *s = to_text(parse(text->data));
    refbuf_unref(text);
    return s;
}

int
main(void)
{
    json_t *schema_json = parse(schema_text);
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(schema_json, &schema);
    CHECK(!error);
    json_decref(schema_json);
    struct ovsdb *db = ovsdb_create(schema);
    struct ovsdb_monitor_hub *hub = ovsdb_monitor_hub_create(db);

    transact(db, "[\"T\",{\"op\":\"insert\",\"table\":\"H\","
                 "\"row\":{\"name\":\"a\",\"n\":1}}]");

    /* Same request, same shape: shared. */
    const char *all = "{\"H\":[{\"columns\":[\"name\",\"n\",\"s\",\"m\"]}]}";
    struct ovsdb_monitor *m1 = get(hub, all, OVSDB_MONITOR_V2);
    struct ovsdb_monitor *m2 = get(hub, all, OVSDB_MONITOR_V2);
    struct ovsdb_monitor *v1 = get(hub, all, OVSDB_MONITOR_V1);
    struct ovsdb_monitor *cond = get(
        hub, "{\"H\":[{\"columns\":[\"name\",\"n\"],"
        "\"where\":[[\"n\",\">\",5]]}]}", OVSDB_MONITOR_V2);
    CHECK(m1 && m1 == m2);
    CHECK(v1 && v1 != m1);
    CHECK(cond && cond != m1);
    CHECK_INTEQ(ovsdb_monitor_hub_n_monitors(hub), 3);

    char *s = initial(m1);
    CHECK(contains(s, "{\"initial\":{\"n\":1,\"name\":\"a\"}}"));
    free(s);
    s = initial(v1);
    CHECK(contains(s, "{\"new\":{\"m\":[\"map\",[]],\"n\":1,\"name\":\"a\","
                      "\"s\":[\"set\",[]]}}"));
    free(s);
    s = initial(cond);
    CHECK_STREQ(s, "{}");
    free(s);

    /* Two subscribers of one shape get the same serialized body. */
    struct seen a = {0}, b = {0}, c = {0}, d = {0};
    ovsdb_monitor_subscribe(m1, collect, &a);
    ovsdb_monitor_subscribe(m2, collect, &b);
    ovsdb_monitor_subscribe(v1, collect, &c);
    ovsdb_monitor_subscribe(cond, collect, &d);

    transact(db, "[\"T\",{\"op\":\"update\",\"table\":\"H\",\"where\":[],"
                 "\"row\":{\"n\":7,\"s\":[\"set\",[\"x\",\"y\"]],"
                 "\"m\":[\"map\",[[\"k\",\"v\"]]]}}]");
    CHECK_INTEQ(a.n_calls, 1);
    CHECK_INTEQ(b.n_calls, 1);
    CHECK(a.last_body == b.last_body);
    CHECK(contains(a.text, "\"modify\":{"));
    CHECK(contains(a.text, "\"n\":7"));
    CHECK(contains(a.text, "\"s\":[\"set\",[\"x\",\"y\"]]"));
    CHECK(contains(c.text, "\"old\":{"));
    CHECK(contains(c.text, "\"new\":{"));
    /* The row entered 'cond''s condition: an insert of its columns. */
    CHECK(contains(d.text, "\"insert\":{"));
    CHECK(contains(d.text, "\"n\":7"));

    /* Set diffs are symmetric differences; map diffs list changed keys. */
    transact(db, "[\"T\",{\"op\":\"update\",\"table\":\"H\",\"where\":[],"
                 "\"row\":{\"s\":[\"set\",[\"y\",\"z\"]],"
                 "\"m\":[\"map\",[[\"k\",\"w\"],[\"k2\",\"q\"]]]}}]");
    CHECK(contains(a.text, "\"s\":[\"set\",[\"x\",\"z\"]]"));
    CHECK(contains(a.text, "\"m\":[\"map\",[[\"k\",\"w\"],[\"k2\",\"q\"]]]"));
    CHECK_INTEQ(d.n_calls, 1);      /* 'cond' does not show s or m. */

    /* Condition change: rows leaving are deleted, entering inserted. */
    json_t *change = parse("{\"H\":[{\"where\":[[\"n\",\"<\",5]]}]}");
    struct ovsdb_monitor *cond2;
    error = ovsdb_monitor_change_cond(cond, change, &cond2);
    CHECK(!error);
    json_decref(change);
    struct ds cc = DS_EMPTY_INITIALIZER;
    CHECK(ovsdb_monitor_put_cond_change(&cc, cond, cond2));
    CHECK(contains(ds_cstr(&cc), "\"delete\":null"));
    ds_destroy(&cc);
    change = parse("{\"H\":[{\"columns\":[\"n\"]}]}");
    struct ovsdb_monitor *bad;
    error = ovsdb_monitor_change_cond(cond, change, &bad);
    CHECK(error && contains(ovsdb_error_get_details(error),
                            "changing columns is unsupported"));
    ovsdb_error_destroy(error);
    json_decref(change);
    ovsdb_monitor_unref(cond2);

    /* History: a client that knows the last id gets only what follows.
     * The history holds at most as many atoms as the database (as the
     * reference's): a row of many atoms makes room for three changes. */
    struct ds filler = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&filler, "[\"T\",{\"op\":\"insert\",\"table\":\"H\","
                         "\"row\":{\"name\":\"filler\",\"m\":[\"map\",[");
    for (int i = 0; i < 100; i++) {
        ds_put_format(&filler, "%s[\"f%d\",\"v\"]", i ? "," : "", i);
    }
    ds_put_cstr(&filler, "]]}}]");
    transact(db, ds_cstr(&filler));
    ds_destroy(&filler);
    struct uuid last = *ovsdb_monitor_hub_get_last_txn_id(hub);
    bool found;
    s = to_text(since(m1, &last, &found));
    CHECK(found);
    CHECK_STREQ(s, "{}");
    free(s);
    CHECK(uuid_equals(&a.txn_id, &last));
    transact(db, "[\"T\",{\"op\":\"insert\",\"table\":\"H\","
                 "\"row\":{\"name\":\"b\"}}]");
    transact(db, "[\"T\",{\"op\":\"update\",\"table\":\"H\","
                 "\"where\":[[\"name\",\"==\",\"b\"]],\"row\":{\"n\":3}}]");
    transact(db, "[\"T\",{\"op\":\"delete\",\"table\":\"H\","
                 "\"where\":[[\"name\",\"==\",\"a\"]]}]");
    CHECK_INTEQ(ovsdb_monitor_hub_n_history(hub), 3);
    s = to_text(since(m1, &last, &found));
    CHECK(found);
    /* b was inserted and modified: one insert with its final value. */
    CHECK(contains(s, "{\"insert\":{\"n\":3,\"name\":\"b\"}}"));
    CHECK(contains(s, "{\"delete\":null}"));
    free(s);
    struct uuid unknown;
    uuid_generate(&unknown);
    CHECK(!since(m1, &unknown, &found));
    CHECK(!found);
    /* Such a client gets the initial contents instead. */
    s = initial(m1);
    CHECK(contains(s, "\"initial\""));
    free(s);

    /* Bad requests. */
    s = get_error(hub, "{\"Nope\":{}}", OVSDB_MONITOR_V2);
    CHECK(contains(s, "no table named Nope"));
    free(s);
    s = get_error(hub, "{\"H\":{\"columns\":[\"zz\"]}}", OVSDB_MONITOR_V2);
    CHECK(contains(s, "zz is not a valid column name"));
    free(s);
    s = get_error(hub, "{\"H\":{\"where\":[]}}", OVSDB_MONITOR_V1);
    CHECK(contains(s, "not allowed"));
    free(s);
    s = get_error(hub, "[]", OVSDB_MONITOR_V2);
    CHECK(contains(s, "monitor-requests must be object"));
    free(s);

    /* Two tables in one shape and one commit; the shared initial text is
     * the tree's text and stays one buffer while a holder keeps it. */
    struct ovsdb_monitor *two =
        get(hub,
            "{\"H\":[{\"columns\":[\"name\"]}],\"G\":[{\"columns\":[\"k\"]}]}",
            OVSDB_MONITOR_V2);
    struct seen e = { 0 };
    ovsdb_monitor_subscribe(two, collect, &e);
    transact(db, "[\"T\",{\"op\":\"insert\",\"table\":\"G\","
                 "\"row\":{\"k\":7}},{\"op\":\"insert\",\"table\":\"H\","
                 "\"row\":{\"name\":\"two\"}}]");
    CHECK_INTEQ(e.n_calls, 1);
    json_t *body = parse(e.text ? e.text : "{}");
    CHECK_INTEQ(json_object_size(body), 2);
    CHECK(contains(e.text, "{\"insert\":{\"k\":7}}"));
    CHECK(contains(e.text, "{\"insert\":{\"name\":\"two\"}}"));
    json_decref(body);
    struct refbuf *t1 = ovsdb_monitor_get_initial_text(two);
    struct refbuf *t2 = ovsdb_monitor_get_initial_text(two);
    CHECK(t1 == t2);
    s = to_text(parse(t1->data));
    CHECK(contains(s, "\"G\":{"));
    free(s);
    refbuf_unref(t1);
    refbuf_unref(t2);
    ovsdb_monitor_unsubscribe(two, collect, &e);
    ovsdb_monitor_unref(two);
    free(e.text);

    ovsdb_monitor_unsubscribe(m1, collect, &a);
    ovsdb_monitor_unsubscribe(m2, collect, &b);
    ovsdb_monitor_unsubscribe(v1, collect, &c);
    ovsdb_monitor_unsubscribe(cond, collect, &d);
    ovsdb_monitor_unref(m1);
    ovsdb_monitor_unref(m2);
    ovsdb_monitor_unref(v1);
    ovsdb_monitor_unref(cond);
    CHECK_INTEQ(ovsdb_monitor_hub_n_monitors(hub), 0);
    ovsdb_monitor_hub_destroy(hub);
    ovsdb_destroy(db);
    free(a.text);
    free(b.text);
    free(c.text);
    free(d.text);
    return check_report("test-monitor");
}
