/* tests/unit/engine/test-txn.c: transactions: abort restores, commit-time
 * checks, change iteration, observers, record output and replay. */
#include <config.h>
#include "ovsdb/format/record.h"
#include "ovsdb/engine/txn.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/bitmap.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "tests/unit/check.h"

static const char schema_text[] =
    "{\"name\":\"t\",\"version\":\"1.0.0\",\"tables\":{"
    "\"A\":{\"columns\":{\"name\":{\"type\":\"string\"},"
    "\"n\":{\"type\":\"integer\"},"
    "\"e\":{\"type\":\"integer\",\"ephemeral\":true},"
    "\"m\":{\"type\":{\"key\":\"string\",\"value\":\"integer\",\"min\":0,"
    "\"max\":\"unlimited\"}},"
    "\"b\":{\"type\":{\"key\":{\"type\":\"uuid\",\"refTable\":\"B\"},"
    "\"min\":0,\"max\":\"unlimited\"}},"
    "\"w\":{\"type\":{\"key\":{\"type\":\"uuid\",\"refTable\":\"B\","
    "\"refType\":\"weak\"},\"min\":0,\"max\":\"unlimited\"}}},"
    "\"isRoot\":true,\"indexes\":[[\"name\"]]},"
    "\"B\":{\"columns\":{\"n\":{\"type\":\"integer\"}}}}}";

/* One set column whose default, [0], is below its minimum size. */
static const char rs_schema_text[] =
    "{\"name\":\"t\",\"tables\":{\"T\":{\"columns\":{"
    "\"rs\":{\"type\":{\"key\":\"integer\",\"min\":1,"
    "\"max\":\"unlimited\"}}}}}}";

static struct ovsdb *
create_db_from(const char *text)
{
    json_t *json = jsonx_from_string(text, NULL);
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(json, &schema);
    json_decref(json);
    if (error) {
        abort();
    }
    return ovsdb_create(schema);
}

static struct ovsdb *
create_db(void)
{
    return create_db_from(schema_text);
}

/* Runs 'txn_text' (with "t" as the db name prefix added) and returns the
 * reply as a sorted string with UUIDs kept. */
static char *
run(struct ovsdb *db, const char *ops)
{
    char *text = xasprintf("[\"t\",%s]", ops);
    json_t *params = jsonx_from_string(text, NULL);
    free(text);
    if (!params) {
        abort();
    }
    json_t *reply = ovsdb_execute(db, params, false);
    json_decref(params);
    char *s = jsonx_to_string_sorted(reply);
    json_decref(reply);
    return s;
}

/* Returns the whole contents of 'db' (without _version) as a string. */
static char *
dump(const struct ovsdb *db)
{
    json_t *all = json_object();
    for (size_t i = 0; i < ovsdb_n_tables(db); i++) {
        const struct ovsdb_table *table = ovsdb_get_table_by_index(db, i);
        json_t *rows = json_object();
        const struct ovsdb_row *row;
        OVSDB_TABLE_FOR_EACH_ROW (row, table) {
            struct ovsdb_column_set cols = OVSDB_COLUMN_SET_INITIALIZER;
            for (size_t c = OVSDB_N_STD_COLUMNS;
                 c < table->schema->n_columns; c++) {
                if (table->schema->columns[c]->is_persistent) {
                    ovsdb_column_set_add(&cols, table->schema->columns[c]);
                }
            }
            char uuid[UUID_LEN + 1];
            uuid_to_string(ovsdb_row_get_uuid(row), uuid);
            json_object_set_new(rows, uuid, ovsdb_row_to_json(row, &cols));
            ovsdb_column_set_destroy(&cols);
        }
        json_object_set_new(all, table->schema->name, rows);
    }
    char *s = jsonx_to_string_sorted(all);
    json_decref(all);
    return s;
}

struct change_log {
    int n_insert, n_delete, n_modify;
    int n_calls;
};

static bool
count_change(const struct ovsdb_table *table, const struct ovsdb_row *old,
             const struct ovsdb_row *new, const unsigned long *changed,
             void *aux)
{
    struct change_log *log = aux;
    if (!old) {
        log->n_insert++;
    } else if (!new) {
        log->n_delete++;
    } else {
        log->n_modify++;
        /* _version always changes, _uuid never. */
        CHECK(!bitmap_is_set(changed, OVSDB_COL_UUID));
        CHECK(bitmap_is_set(changed, OVSDB_COL_VERSION));
        CHECK(!uuid_equals(ovsdb_row_get_version(old),
                           ovsdb_row_get_version(new)));
    }
    return true;
}

static void
observer(struct ovsdb *db, const struct ovsdb_txn *txn, void *aux)
{
    struct change_log *log = aux;
    log->n_calls++;
    ovsdb_txn_for_each_change(txn, count_change, log);
}

/* Replays the record 'json' into 'db' and commits it. */
static void
replay(struct ovsdb *db, const json_t *json)
{
    struct ovsdb_txn *txn;
    struct ovsdb_error *error = ovsdb_record_to_txn(db, json, true, &txn);
    CHECK(!error);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        fprintf(stderr, "replay: %s\n", s);
        free(s);
        return;
    }
    error = ovsdb_txn_precommit(txn);
    CHECK(!error);
    ovsdb_error_destroy(error);
    ovsdb_txn_commit_finish(txn);
}

/* Runs 'ops' on 'db' by hand (compose/precommit/to_json/commit) and
 * replays the record into 'copy'. */
static void
run_and_replay(struct ovsdb *db, struct ovsdb *copy, const char *ops)
{
    char *text = xasprintf("[\"t\",%s]", ops);
    json_t *params = jsonx_from_string(text, NULL);
    free(text);
    long long timeout;
    bool durable;
    json_t *result;
    struct ovsdb_txn *txn = ovsdb_execute_compose(db, params, false, NULL,
                                                  NULL, 0, &timeout,
                                                  &durable, &result);
    CHECK(txn != NULL);
    if (txn) {
        struct ovsdb_error *error = ovsdb_txn_precommit(txn);
        CHECK(!error);
        ovsdb_error_destroy(error);
        json_t *record = ovsdb_record_from_txn(txn);
        ovsdb_txn_commit_finish(txn);
        if (record) {
            replay(copy, record);
            json_decref(record);
        }
    }
    json_decref(result);
    json_decref(params);
}

/* Returns a database whose table A has one row, named "x". */
static struct ovsdb *
create_db_with_row(void)
{
    struct ovsdb *db = create_db();
    free(run(db, "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
                 "{\"name\":\"x\"}}"));
    return db;
}

/* Composes the transaction 'request' (the whole "transact" params) on
 * 'db' at time 'elapsed'; the result, if any, is in '*result'. */
static struct ovsdb_txn *
compose(struct ovsdb *db, json_t *request, long long elapsed,
        long long *timeout, json_t **result)
{
    bool durable;
    return ovsdb_execute_compose(db, request, false, NULL, NULL, elapsed,
                                 timeout, &durable, result);
}

static const struct ovsdb_row *
first_row(const struct ovsdb_table *table)
{
    const struct ovsdb_row *row = NULL;
    OVSDB_TABLE_FOR_EACH_ROW (row, table) {
        break;
    }
    return row;
}

/* A commit is observed; a failing transaction changes nothing, and abort
 * restores the exact rows (same pointers). */
static void
test_abort_restores(void)
{
    struct ovsdb *db = create_db();
    struct change_log log = { 0, 0, 0, 0 };
    ovsdb_add_commit_observer(db, observer, &log);

    char *s = run(db, "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
                  "{\"name\":\"a\",\"n\":1}}");
    CHECK(strstr(s, "\"uuid\"") != NULL);
    free(s);
    CHECK(log.n_calls == 1 && log.n_insert == 1);

    char *before = dump(db);
    const struct ovsdb_table *a = ovsdb_get_table(db, "A");
    const struct ovsdb_row *row_before = first_row(a);
    s = run(db, "{\"op\":\"update\",\"table\":\"A\",\"where\":[],\"row\":"
            "{\"n\":2}},{\"op\":\"insert\",\"table\":\"A\",\"row\":"
            "{\"name\":\"b\"}},{\"op\":\"abort\"}");
    CHECK(strstr(s, "\"aborted\"") != NULL);
    free(s);
    char *after = dump(db);
    CHECK_STREQ(after, before);
    free(after);
    const struct ovsdb_row *row_after = first_row(a);
    CHECK(row_after == row_before);
    CHECK(log.n_calls == 1);
    free(before);
    ovsdb_destroy(db);
}

/* Index uniqueness, checked at commit: swapping index values within one
 * transaction is fine. */
static void
test_index_uniqueness(void)
{
    struct ovsdb *db = create_db();
    free(run(db, "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
                 "{\"name\":\"a\",\"n\":1}}"));
    char *before = dump(db);

    char *s = run(db, "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
                      "{\"name\":\"a\"}}");
    CHECK(strstr(s, "constraint violation") && strstr(s, "index"));
    free(s);
    char *after = dump(db);
    CHECK_STREQ(after, before);
    free(after);
    s = run(db, "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
            "{\"name\":\"b\"}}");
    free(s);
    s = run(db, "{\"op\":\"update\",\"table\":\"A\",\"where\":[[\"name\","
            "\"==\",\"a\"]],\"row\":{\"name\":\"tmp\"}},"
            "{\"op\":\"update\",\"table\":\"A\",\"where\":[[\"name\","
            "\"==\",\"b\"]],\"row\":{\"name\":\"a\"}},"
            "{\"op\":\"update\",\"table\":\"A\",\"where\":[[\"name\","
            "\"==\",\"tmp\"]],\"row\":{\"name\":\"b\"}}");
    CHECK_STREQ(s, "[{\"count\":1},{\"count\":1},{\"count\":1}]");
    free(s);
    free(before);
    ovsdb_destroy(db);
}

/* Strong references, garbage collection and refint; a weak reference
 * goes away with the row it refers to. */
static void
test_references(void)
{
    struct ovsdb *db = create_db();
    free(run(db, "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
                 "{\"name\":\"a\",\"n\":1}}"));

    char *s = run(db, "{\"op\":\"insert\",\"table\":\"B\",\"row\":"
                      "{\"n\":1}}");
    CHECK(strstr(s, "\"uuid\""));   /* Collected: nobody refers to it. */
    free(s);
    CHECK(ovsdb_table_n_rows(ovsdb_get_table(db, "B")) == 0);
    s = run(db, "{\"op\":\"insert\",\"table\":\"B\",\"row\":{\"n\":1},"
            "\"uuid-name\":\"x\"},{\"op\":\"update\",\"table\":\"A\","
            "\"where\":[[\"name\",\"==\",\"a\"]],\"row\":{\"b\":"
            "[\"named-uuid\",\"x\"],\"w\":[\"named-uuid\",\"x\"]}}");
    free(s);
    const struct ovsdb_table *bt = ovsdb_get_table(db, "B");
    CHECK(ovsdb_table_n_rows(bt) == 1);
    const struct ovsdb_row *brow = first_row(bt);
    CHECK(brow && brow->n_refs == 1);
    s = run(db, "{\"op\":\"delete\",\"table\":\"B\",\"where\":[]}");
    CHECK(strstr(s, "referential integrity violation")
          && strstr(s, "because of 1 remaining reference(s)"));
    free(s);
    s = run(db, "{\"op\":\"insert\",\"table\":\"A\",\"row\":{\"name\":\"c\","
            "\"b\":[\"uuid\",\"12345678-1234-1234-1234-123456789012\"]}}");
    CHECK(strstr(s, "references nonexistent row"));
    free(s);
    /* Dropping the strong ref collects the B row; the weak ref to it goes
     * away with it. */
    s = run(db, "{\"op\":\"update\",\"table\":\"A\",\"where\":[[\"name\","
            "\"==\",\"a\"]],\"row\":{\"b\":[\"set\",[]]}},"
            "{\"op\":\"select\",\"table\":\"A\",\"where\":[[\"name\",\"==\","
            "\"a\"]],\"columns\":[\"w\"]}");
    free(s);
    CHECK(ovsdb_table_n_rows(bt) == 0);
    s = run(db, "{\"op\":\"select\",\"table\":\"A\",\"where\":[[\"name\","
            "\"==\",\"a\"]],\"columns\":[\"w\"]}");
    CHECK_STREQ(s, "[{\"rows\":[{\"w\":[\"set\",[]]}]}]");
    free(s);
    ovsdb_destroy(db);
}

/* The observer sees every change of every commit, and no failed one. */
static void
test_observer(void)
{
    struct ovsdb *db = create_db();
    struct change_log log = { 0, 0, 0, 0 };
    ovsdb_add_commit_observer(db, observer, &log);

    static const char *const ops[] = {
        "{\"op\":\"insert\",\"table\":\"A\",\"row\":{\"name\":\"a\"}}",
        "{\"op\":\"insert\",\"table\":\"A\",\"row\":{\"name\":\"b\"}},"
        "{\"op\":\"insert\",\"table\":\"A\",\"row\":{\"name\":\"c\"}}",
        "{\"op\":\"update\",\"table\":\"A\",\"where\":[],\"row\":{\"n\":1}}",
        "{\"op\":\"update\",\"table\":\"A\",\"where\":[[\"name\",\"==\","
        "\"a\"]],\"row\":{\"n\":2}}",
    };
    for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
        free(run(db, ops[i]));
    }
    CHECK(log.n_modify >= 4);
    CHECK(log.n_insert >= 3);
    int n_calls = log.n_calls;
    char *s = run(db, "{\"op\":\"delete\",\"table\":\"A\",\"where\":[]},"
                      "{\"op\":\"abort\"}");
    free(s);
    CHECK(log.n_calls == n_calls);
    ovsdb_destroy(db);
}

/* Record output and replay reproduce the same database. */
static void
test_record_and_replay(void)
{
    struct ovsdb *db2 = create_db();
    struct ovsdb *copy = create_db();
    run_and_replay(db2, copy, "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
                   "{\"name\":\"x\",\"n\":5,\"e\":9,\"m\":[\"map\",[[\"k\","
                   "1],[\"z\",2]]]}},{\"op\":\"insert\",\"table\":\"A\","
                   "\"row\":{\"name\":\"y\"}}");
    run_and_replay(db2, copy, "{\"op\":\"mutate\",\"table\":\"A\","
                   "\"where\":[[\"name\",\"==\",\"x\"]],\"mutations\":"
                   "[[\"m\",\"insert\",[\"map\",[[\"j\",3]]]],[\"m\","
                   "\"delete\",[\"set\",[\"z\"]]],[\"n\",\"+=\",1]]}");
    run_and_replay(db2, copy, "{\"op\":\"update\",\"table\":\"A\","
                   "\"where\":[[\"name\",\"==\",\"x\"]],\"row\":{\"m\":"
                   "[\"map\",[[\"k\",7],[\"j\",3]]]}}");
    run_and_replay(db2, copy, "{\"op\":\"delete\",\"table\":\"A\","
                   "\"where\":[[\"name\",\"==\",\"y\"]]}");
    char *d2 = dump(db2), *dc = dump(copy);
    CHECK_STREQ(dc, d2);
    CHECK(strstr(d2, "[\"map\",[[\"j\",3],[\"k\",7]]]") != NULL);
    free(d2);
    free(dc);
    ovsdb_destroy(copy);
    ovsdb_destroy(db2);
}

/* The record of a map change is a diff. */
static void
test_map_record_is_diff(void)
{
    struct ovsdb *db2 = create_db_with_row();
    json_t *params = jsonx_from_string(
        "[\"t\",{\"op\":\"mutate\",\"table\":\"A\",\"where\":[],"
        "\"mutations\":[[\"m\",\"insert\",[\"map\",[[\"q\",1]]]]]}]", NULL);
    long long timeout;
    json_t *result;
    struct ovsdb_txn *txn = compose(db2, params, 0, &timeout, &result);
    json_decref(params);
    json_decref(result);
    CHECK(txn != NULL);
    CHECK(!ovsdb_txn_precommit(txn));
    json_t *record = ovsdb_record_from_txn(txn);
    char *s = jsonx_to_string_sorted(record);
    CHECK(strstr(s, "{\"m\":[\"map\",[[\"q\",1]]]}") != NULL);
    free(s);
    json_decref(record);
    ovsdb_txn_abort(txn);
    ovsdb_destroy(db2);
}

/* An ephemeral-only change writes no record. */
static void
test_ephemeral_no_record(void)
{
    struct ovsdb *db2 = create_db_with_row();
    json_t *params = jsonx_from_string(
        "[\"t\",{\"op\":\"update\",\"table\":\"A\",\"where\":[],"
        "\"row\":{\"e\":42}}]",
        NULL);
    long long timeout;
    json_t *result;
    struct ovsdb_txn *txn = compose(db2, params, 0, &timeout, &result);
    json_decref(params);
    json_decref(result);
    CHECK(txn != NULL);
    CHECK(!ovsdb_txn_precommit(txn));
    CHECK(ovsdb_record_from_txn(txn) == NULL);
    ovsdb_txn_commit_finish(txn);
    ovsdb_destroy(db2);
}

/* "wait" that is not satisfied asks for a retry, then times out. */
static void
test_wait_retry(void)
{
    struct ovsdb *db2 = create_db_with_row();
    json_t *params = jsonx_from_string(
        "[\"t\",{\"op\":\"wait\",\"table\":\"A\",\"where\":[],\"columns\":"
        "[\"name\"],\"until\":\"==\",\"rows\":[],\"timeout\":500}]",
        NULL);
    long long timeout;
    json_t *result;
    struct ovsdb_txn *txn = compose(db2, params, 100, &timeout, &result);
    CHECK(!txn && !result && timeout == 400);
    txn = compose(db2, params, 500, &timeout, &result);
    CHECK(!txn && result);
    char *s = jsonx_to_string_sorted(result);
    CHECK_STREQ(s, "[{\"details\":\"\\\"wait\\\" timed out after 500 ms\","
                   "\"error\":\"timed out\"}]");
    free(s);
    json_decref(result);
    json_decref(params);
    ovsdb_destroy(db2);
}

/* Read-only sessions cannot write. */
static void
test_read_only(void)
{
    struct ovsdb *db2 = create_db();
    json_t *params = jsonx_from_string("[\"t\",{\"op\":\"insert\","
                                       "\"table\":\"A\",\"row\":{}}]",
                                       NULL);
    json_t *result = ovsdb_execute(db2, params, true);
    char *s = jsonx_to_string_sorted(result);
    CHECK(strstr(s, "\"not allowed\"") != NULL);
    free(s);
    json_decref(result);
    json_decref(params);
    ovsdb_destroy(db2);
}

/* The operations of a request are freed as they run, unless someone else
 * holds the request or a "wait" may make it run again. */
static void
test_ops_released(void)
{
    struct ovsdb *db2 = create_db();
    static const char release_ops[] =
        "[\"t\",{\"op\":\"insert\",\"table\":\"A\",\"row\":"
        "{\"name\":\"r\"}},{\"op\":\"comment\",\"comment\":\"c\"}]";
    json_t *params = jsonx_from_string(release_ops, NULL);
    json_t *held = json_incref(params);
    long long timeout;
    json_t *result;
    struct ovsdb_txn *txn = compose(db2, params, 0, &timeout, &result);
    CHECK(txn != NULL);
    ovsdb_txn_abort(txn);
    json_decref(result);
    json_decref(held);
    char *s = jsonx_to_string_sorted(params);
    CHECK(strstr(s, "\"r\"") != NULL);
    free(s);
    txn = compose(db2, params, 0, &timeout, &result);
    CHECK(txn != NULL);
    ovsdb_txn_abort(txn);
    json_decref(result);
    s = jsonx_to_string_sorted(params);
    CHECK_STREQ(s, "[\"t\",null,null]");
    free(s);
    json_decref(params);
    params = jsonx_from_string(release_ops, NULL);
    result = ovsdb_execute(db2, params, false);
    json_decref(result);
    s = jsonx_to_string_sorted(params);
    CHECK(strstr(s, "\"r\"") != NULL);
    free(s);
    json_decref(params);
    ovsdb_destroy(db2);
}

/* Rows put directly (as schema conversion does) get their strong
 * reference counts before the next transaction. */
static void
test_put_row_refs(void)
{
    struct ovsdb *db3 = create_db();
    struct ovsdb_table *ta = ovsdb_get_table(db3, "A");
    struct ovsdb_table *tb = ovsdb_get_table(db3, "B");
    struct ovsdb_row *rb = ovsdb_row_create(tb);
    struct uuid ub;
    uuid_generate(&ub);
    ovsdb_row_set_uuid(rb, &ub);
    struct ovsdb_row *ra = ovsdb_row_create(ta);
    struct uuid ua;
    uuid_generate(&ua);
    ovsdb_row_set_uuid(ra, &ua);
    union ovsdb_atom ref = { .uuid = ub };
    const struct ovsdb_column *bcol = ovsdb_table_schema_find_column(
        ta->schema, "b");
    struct ovsdb_datum *bd = ovsdb_row_datum_rw(ra, bcol->index);
    ovsdb_datum_destroy(bd, &bcol->type);
    ovsdb_datum_init_atom(bd, &ref, OVSDB_TYPE_UUID);
    ovsdb_table_put_row(ta, ra);        /* Referrer first: order is free. */
    ovsdb_table_put_row(tb, rb);
    char *s = run(db3, "{\"op\":\"delete\",\"table\":\"B\",\"where\":[]}");
    CHECK(strstr(s, "referential integrity violation") != NULL);
    free(s);
    s = run(db3, "{\"op\":\"delete\",\"table\":\"A\",\"where\":[]}");
    CHECK_STREQ(s, "[{\"count\":1}]");
    free(s);
    CHECK(ovsdb_table_n_rows(tb) == 0);      /* Garbage collected. */
    ovsdb_destroy(db3);
}

/* With several bad columns, the error is the one the reference's hash
 * order visits first, not the first in the JSON text. */
static void
test_error_order(void)
{
    json_t *sj = jsonx_from_string(
        "{\"name\":\"t\",\"tables\":{\"T\":{\"columns\":{"
        "\"i\":{\"type\":{\"key\":{\"type\":\"integer\",\"maxInteger\":10}}},"
        "\"b\":{\"type\":\"boolean\"},"
        "\"e\":{\"type\":{\"key\":{\"type\":\"string\",\"enum\":"
        "[\"set\",[\"a\",\"b\"]]},\"min\":0,\"max\":2}}}}}}", NULL);
    struct ovsdb_schema *schema4;
    CHECK(!ovsdb_schema_from_json(sj, &schema4));
    json_decref(sj);
    struct ovsdb *db4 = ovsdb_create(schema4);
    static const struct {
        const char *row, *error;
    } order[] = {
        { "{\"b\":1,\"e\":\"c\"}", "c is not one of the allowed values" },
        { "{\"e\":\"c\",\"b\":1}", "c is not one of the allowed values" },
        { "{\"i\":11,\"zz\":1}", "No column zz in table T." },
        { "{\"zz\":1,\"i\":11}", "No column zz in table T." },
    };
    for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
        char *ops = xasprintf("{\"op\":\"insert\",\"table\":\"T\","
                              "\"row\":%s}", order[i].row);
        char *s = run(db4, ops);
        if (!strstr(s, order[i].error)) {
            fprintf(stderr, "%s: got %s\n", order[i].row, s);
            CHECK(false);
        }
        free(s);
        free(ops);
    }
    ovsdb_destroy(db4);
}

/* A set column whose old value is its default (here [0], min 1) is
 * written as its new value, not as a diff, and replays to the same
 * value. */
static void
test_default_set_record(void)
{
    json_t *sj = jsonx_from_string(rs_schema_text, NULL);
    struct ovsdb_schema *schema5;
    CHECK(!ovsdb_schema_from_json(sj, &schema5));
    struct ovsdb_schema *schema6 = ovsdb_schema_clone(schema5);
    json_decref(sj);
    struct ovsdb *db5 = ovsdb_create(schema5);
    struct ovsdb *db6 = ovsdb_create(schema6);
    run_and_replay(db5, db6, "{\"op\":\"insert\",\"table\":\"T\","
                   "\"row\":{}}");
    run_and_replay(db5, db6, "{\"op\":\"update\",\"table\":\"T\","
                   "\"where\":[],\"row\":{\"rs\":[\"set\",[1,2]]}}");
    run_and_replay(db5, db6, "{\"op\":\"update\",\"table\":\"T\","
                   "\"where\":[],\"row\":{\"rs\":[\"set\",[2,3]]}}");
    char *d5 = dump(db5), *d6 = dump(db6);
    CHECK_STREQ(d6, d5);
    CHECK(strstr(d5, "[\"set\",[2,3]]") != NULL);
    free(d5);
    free(d6);

    char *s = run(db5, "{\"op\":\"insert\",\"table\":\"T\",\"row\":{},"
                       "\"uuid\":\"00000000-0000-4000-8000-000000000001\"}");
    free(s);
    json_t *params = jsonx_from_string(
        "[\"t\",{\"op\":\"update\",\"table\":\"T\",\"where\":[[\"_uuid\","
        "\"==\",[\"uuid\",\"00000000-0000-4000-8000-000000000001\"]]],"
        "\"row\":{\"rs\":[\"set\",[1,2]]}}]",
        NULL);
    long long timeout;
    json_t *result;
    struct ovsdb_txn *txn = compose(db5, params, 0, &timeout, &result);
    json_decref(params);
    json_decref(result);
    CHECK(txn && !ovsdb_txn_precommit(txn));
    json_t *record = ovsdb_record_from_txn(txn);
    s = jsonx_to_string_sorted(record);
    CHECK(strstr(s, "{\"rs\":[\"set\",[1,2]]}") != NULL);   /* Not a diff. */
    free(s);
    json_decref(record);
    ovsdb_txn_abort(txn);
    ovsdb_destroy(db5);
    ovsdb_destroy(db6);
}

/* A replayed diff replaces a default value: the reference's own record
 * for such a change reads as it does. */
static void
test_reference_record(void)
{
    struct ovsdb *db6 = create_db_from(rs_schema_text);
    json_t *ins = jsonx_from_string(
        "{\"T\":{\"00000000-0000-4000-8000-000000000002\":{}}}", NULL);
    json_t *upd = jsonx_from_string(
        "{\"T\":{\"00000000-0000-4000-8000-000000000002\":"
        "{\"rs\":[\"set\",[0,1,2]]}}}", NULL);
    replay(db6, ins);
    replay(db6, upd);
    struct uuid u2;
    uuid_from_string(&u2, "00000000-0000-4000-8000-000000000002");
    const struct ovsdb_row *r2 = ovsdb_table_find_row(
        ovsdb_get_table(db6, "T"), &u2);
    CHECK(r2 && ovsdb_row_datum(r2, OVSDB_N_STD_COLUMNS)->n == 3);
    json_decref(ins);
    json_decref(upd);
    ovsdb_destroy(db6);
}

/* A row does not point to its txn_row; the transaction finds it by UUID
 * and row pointer.  A row inserted and deleted leaves a txn_row with its
 * UUID; a second row inserted with that UUID gets its own. */
static void
test_txn_row_lookup(void)
{
    if (sizeof(void *) == 8) {
        CHECK(sizeof(struct ovsdb_row) == 32);
    }

    struct ovsdb *db = create_db();
    struct ovsdb_table *a = ovsdb_get_table(db, "A");
    size_t n = ovsdb_table_schema_find_column(a->schema, "n")->index;
    struct uuid uuid;
    uuid_generate(&uuid);

    struct ovsdb_txn *txn = ovsdb_txn_create(db);
    struct ovsdb_row *first = ovsdb_row_create(a);
    ovsdb_row_set_uuid(first, &uuid);
    ovsdb_txn_row_insert(txn, first);
    CHECK(ovsdb_txn_row_is_new(first));
    CHECK(ovsdb_txn_row_modify(txn, first) == first);
    ovsdb_txn_row_delete(txn, first);
    CHECK(!ovsdb_txn_uuid_in_use(a, &uuid));

    struct ovsdb_row *second = ovsdb_row_create(a);
    ovsdb_row_set_uuid(second, &uuid);
    ovsdb_txn_row_insert(txn, second);
    CHECK(ovsdb_txn_row_is_new(second));
    struct ovsdb_row *w = ovsdb_txn_row_modify(txn, second);
    CHECK(w == second);
    ovsdb_row_datum_rw(w, n)->keys[0].integer = 7;
    struct ovsdb_error *error = ovsdb_txn_precommit(txn);
    CHECK(!error);
    ovsdb_error_destroy(error);
    ovsdb_txn_commit_finish(txn);

    const struct ovsdb_row *row = ovsdb_table_find_row(a, &uuid);
    /* 'second' itself, or its sparse copy (A has empty columns). */
    CHECK(row && (row == second || row->sparse) && ovsdb_table_n_rows(a) == 1);
    CHECK(ovsdb_row_datum(row, n)->keys[0].integer == 7);

    /* A committed row is in no transaction, then modified in a new one. */
    CHECK(!ovsdb_txn_row_is_new(row));
    txn = ovsdb_txn_create(db);
    w = ovsdb_txn_row_modify(txn, row);
    CHECK(w != row && !ovsdb_txn_row_is_new(w));
    CHECK(ovsdb_txn_row_modify(txn, w) == w);
    ovsdb_txn_abort(txn);
    CHECK(ovsdb_table_find_row(a, &uuid) == row);

    ovsdb_destroy(db);
}

/* Checks that every column of 'a' reads the same in 'b'. */
static bool
rows_equal(const struct ovsdb_row *a, const struct ovsdb_row *b)
{
    const struct ovsdb_table_schema *ts = a->table->schema;
    struct ovsdb_column_set all = OVSDB_COLUMN_SET_INITIALIZER;
    for (size_t c = 0; c < ts->n_columns; c++) {
        ovsdb_column_set_add(&all, ts->columns[c]);
    }
    bool equal = ovsdb_row_equal_columns(a, b, &all);
    ovsdb_column_set_destroy(&all);
    return equal;
}

/* Committed rows store only their nonempty columns; every read of them,
 * the index on 'name', later changes and replay see the same values. */
static void
test_sparse_rows(void)
{
    struct ovsdb *db = create_db();
    struct ovsdb *copy = create_db();
    struct ovsdb_table *a = ovsdb_get_table(db, "A");
    const struct ovsdb_column *m = ovsdb_table_schema_find_column(a->schema,
                                                                  "m");
    const struct ovsdb_column *name = ovsdb_table_schema_find_column(a->schema,
                                                                     "name");
    run_and_replay(db, copy,
                   "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
                   "{\"name\":\"x\",\"n\":3}}");
    const struct ovsdb_row *row = first_row(a);
    CHECK(row && row->sparse);
    CHECK(ovsdb_row_get_datum(row, m)->n == 0);
    CHECK(!strcmp(ovsdb_atom_string(&ovsdb_row_get_datum(row, name)->keys[0]),
                  "x"));

    /* A clone is full, reads the same and is bigger. */
    struct ovsdb_row *clone = ovsdb_row_clone(row);
    CHECK(!clone->sparse);
    CHECK(rows_equal(row, clone));
    CHECK(ovsdb_row_memory(row) < ovsdb_row_memory(clone));
    CHECK(ovsdb_row_n_atoms(row) == ovsdb_row_n_atoms(clone));
    ovsdb_row_destroy(clone);

    /* The index finds the sparse row. */
    char *s = run(db, "{\"op\":\"insert\",\"table\":\"A\",\"row\":"
                      "{\"name\":\"x\"}}");
    CHECK(strstr(s, "constraint violation") != NULL);
    free(s);

    /* An empty column filled, then emptied again. */
    run_and_replay(db, copy,
                   "{\"op\":\"update\",\"table\":\"A\",\"where\":"
                   "[[\"name\",\"==\",\"x\"]],\"row\":"
                   "{\"m\":[\"map\",[[\"k\",1],[\"l\",2]]]}}");
    row = first_row(a);
    CHECK(ovsdb_row_get_datum(row, m)->n == 2);
    s = run(db, "{\"op\":\"select\",\"table\":\"A\",\"where\":"
                "[[\"m\",\"includes\",[\"map\",[[\"l\",2]]]],"
                "[\"b\",\"==\",[\"set\",[]]]],\"columns\":[\"n\"]}");
    CHECK_STREQ(s, "[{\"rows\":[{\"n\":3}]}]");
    free(s);
    run_and_replay(db, copy,
                   "{\"op\":\"mutate\",\"table\":\"A\",\"where\":"
                   "[],\"mutations\":[[\"m\",\"delete\","
                   "[\"set\",[\"k\",\"l\"]]]]}");
    row = first_row(a);
    CHECK(row->sparse);
    CHECK(ovsdb_row_get_datum(row, m)->n == 0);

    char *d1 = dump(db), *d2 = dump(copy);
    CHECK_STREQ(d1, d2);
    free(d1);
    free(d2);
    ovsdb_destroy(copy);
    ovsdb_destroy(db);

    /* More than 64 columns: rows stay full. */
    struct ds wide = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&wide, "{\"name\":\"t\",\"tables\":{\"W\":{\"columns\":{");
    for (int i = 0; i < 70; i++) {
        ds_put_format(&wide,
                      "%s\"c%d\":{\"type\":{\"key\":\"integer\","
                      "\"min\":0,\"max\":1}}",
                      i ? "," : "", i);
    }
    ds_put_cstr(&wide, "}}}}");
    db = create_db_from(ds_cstr(&wide));
    ds_destroy(&wide);
    free(run(db, "{\"op\":\"insert\",\"table\":\"W\",\"row\":{\"c69\":5}}"));
    row = first_row(ovsdb_get_table(db, "W"));
    CHECK(row && !row->sparse);
    s = run(db, "{\"op\":\"select\",\"table\":\"W\",\"where\":"
                "[[\"c69\",\"==\",5]],\"columns\":[\"c0\",\"c69\"]}");
    CHECK_STREQ(s, "[{\"rows\":[{\"c0\":[\"set\",[]],\"c69\":5}]}]");
    free(s);
    ovsdb_destroy(db);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_abort_restores),      CHECK_CASE(test_index_uniqueness),
    CHECK_CASE(test_references),          CHECK_CASE(test_observer),
    CHECK_CASE(test_record_and_replay),   CHECK_CASE(test_map_record_is_diff),
    CHECK_CASE(test_ephemeral_no_record), CHECK_CASE(test_wait_retry),
    CHECK_CASE(test_read_only),           CHECK_CASE(test_ops_released),
    CHECK_CASE(test_put_row_refs),        CHECK_CASE(test_error_order),
    CHECK_CASE(test_default_set_record),  CHECK_CASE(test_reference_record),
    CHECK_CASE(test_txn_row_lookup),      CHECK_CASE(test_sparse_rows),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-txn", cases, ARRAY_SIZE(cases));
}
