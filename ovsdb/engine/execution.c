/* ovsdb/engine/execution.c: see execution.h. */
#include <config.h>
#include "ovsdb/engine/execution.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/hash.h"
#include "lib/json-util.h"
#include "ovsdb/engine/condition.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/mutation.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/parser.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"

/* The result array being built: a tree, or its text (then 'array' is
 * NULL). */
struct results {
    json_t *array;
    struct ovsdb_results_text *text;
    size_t n;
};

/* Starts the next result in text results 'r': returns the text to write
 * it into, after the separator. */
static struct ds *
results_next_text(struct results *r)
{
    ds_put_cstr(&r->text->text, r->n ? "," : "[");
    return &r->text->text;
}

struct execution {
    struct results *results;
    bool result_written; /* The operation wrote its result itself. */
    struct ovsdb *db;
    struct ovsdb_txn *txn;
    struct ovsdb_symbol_table *symtab;
    bool durable;
    ovsdb_lock_held_cb *lock_held;
    void *lock_aux;
    ovsdb_authorize_cb *authorize;  /* May be NULL. */
    void *authorize_aux;
    long long elapsed_msec;
    long long timeout_msec;     /* LLONG_MAX if no wait is pending. */
    bool must_wait;             /* A "wait" is not satisfied yet. */
};

/* Runs the authorization hook, if any: see ovsdb_authorize_cb. */
static struct ovsdb_error *
authorize(const struct execution *x, const struct ovsdb_table *table,
          enum ovsdb_rbac_op op, const struct ovsdb_row *row,
          const struct ovsdb_column_set *columns)
{
    return (x->authorize
            ? x->authorize(table, op, row, columns, x->authorize_aux)
            : NULL);
}

typedef struct ovsdb_error *executor_func(struct execution *,
                                          struct ovsdb_parser *,
                                          json_t *result);

static struct ovsdb_table *
parse_table(struct execution *x, struct ovsdb_parser *p)
{
    const json_t *json = ovsdb_parser_member(p, "table", OP_ID);
    if (!json) {
        return NULL;
    }
    struct ovsdb_table *table = ovsdb_get_table(x->db,
                                                json_string_value(json));
    if (!table) {
        ovsdb_parser_raise_error(p, "No table named %s.",
                                 json_string_value(json));
    }
    return table;
}

/* Rows of 'table' that match 'cond', in an array (so callers may modify or
 * delete them).  Uses the _uuid fast path when the condition has one. */
struct row_list {
    const struct ovsdb_row **rows;
    size_t n, allocated;
};

static void
row_list_add(struct row_list *list, const struct ovsdb_row *row)
{
    if (list->n >= list->allocated) {
        list->rows = x2nrealloc(list->rows, &list->allocated,
                                sizeof *list->rows);
    }
    list->rows[list->n++] = row;
}

static void
query(const struct ovsdb_table *table, const struct ovsdb_condition *cond,
      struct row_list *list)
{
    list->rows = NULL;
    list->n = list->allocated = 0;
    if (ovsdb_condition_is_false(cond)) {
        return;
    }
    const struct uuid *uuid = ovsdb_condition_get_uuid(cond);
    if (uuid) {
        const struct ovsdb_row *row = ovsdb_table_find_row(table, uuid);
        if (row && ovsdb_condition_match(row, cond)) {
            row_list_add(list, row);
        }
        return;
    }
    const struct ovsdb_row *row;
    OVSDB_TABLE_FOR_EACH_ROW (row, table) {
        if (ovsdb_condition_match(row, cond)) {
            row_list_add(list, row);
        }
    }
}

static struct ovsdb_error *
execute_insert(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    struct ovsdb_table *table = parse_table(x, p);
    const json_t *uuid_name = ovsdb_parser_member(p, "uuid-name",
                                                  OP_ID | OP_OPTIONAL);
    const json_t *uuid_json = ovsdb_parser_member(p, "uuid",
                                                  OP_STRING | OP_OPTIONAL);
    const json_t *row_json = ovsdb_parser_member(p, "row", OP_OBJECT);
    if (ovsdb_parser_has_error(p)) {
        return NULL;
    }

    struct uuid uuid;
    if (uuid_json) {
        if (!uuid_from_string(&uuid, json_string_value(uuid_json))) {
            return ovsdb_syntax_error(uuid_json, OVSDB_E_SYNTAX, "bad uuid");
        }
        if (ovsdb_txn_uuid_in_use(table, &uuid)) {
            return ovsdb_syntax_error(uuid_json, OVSDB_E_DUP_UUID, "This "
                                      "UUID would duplicate a UUID already "
                                      "present within the table or deleted "
                                      "within the same transaction.");
        }
    } else {
        uuid_generate(&uuid);
    }

    if (uuid_name) {
        const char *name = json_string_value(uuid_name);
        struct ovsdb_symbol *symbol = ovsdb_symbol_table_get(x->symtab, name);
        if (symbol) {
            if (symbol->created) {
                return ovsdb_syntax_error(uuid_name, OVSDB_E_DUP_NAME,
                                          "This \"uuid-name\" appeared on an "
                                          "earlier \"insert\" operation.");
            }
            if (uuid_json) {
                symbol->uuid = uuid;
            } else {
                uuid = symbol->uuid;
            }
            symbol->created = true;
        } else {
            ovsdb_symbol_table_put(x->symtab, name, &uuid, true);
        }
    }

    struct ovsdb_row *row = ovsdb_row_create(table);
    struct ovsdb_error *error = ovsdb_row_from_json(row, row_json, x->symtab,
                                                    NULL);
    const struct ovsdb_table_schema *ts = table->schema;
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns && !error; i++) {
        error = ovsdb_datum_check_constraints(ovsdb_row_datum(row, i),
                                              &ts->columns[i]->type);
    }
    if (!error) {
        error = authorize(x, table, OVSDB_RBAC_INSERT, row, NULL);
    }
    if (error) {
        ovsdb_row_destroy(row);
        return error;
    }

    ovsdb_row_set_uuid(row, &uuid);
    ovsdb_txn_row_insert(x->txn, row);
    json_object_set_new(
        result, "uuid",
        ovsdb_datum_to_json(ovsdb_row_datum(row, OVSDB_COL_UUID),
                            &ts->columns[OVSDB_COL_UUID]->type));
    return NULL;
}

struct projected_row {
    struct hmap_node node;
    const struct ovsdb_row *row;
};

/* Adds 'row' to 'set' (by the values of 'columns') unless an equal row is
 * already there; returns true if added. */
static bool
projected_set_add(struct hmap *set, const struct ovsdb_row *row,
                  const struct ovsdb_column_set *columns,
                  struct projected_row *storage)
{
    uint32_t hash = ovsdb_row_hash_columns(row, columns, 0);
    struct projected_row *pr;
    HMAP_FOR_EACH_WITH_HASH (pr, node, hash, set) {
        if (ovsdb_row_equal_columns(pr->row, row, columns)) {
            return false;
        }
    }
    storage->row = row;
    hmap_insert(set, &storage->node, hash);
    return true;
}

static bool
projected_set_contains(const struct hmap *set, const struct ovsdb_row *row,
                       const struct ovsdb_column_set *columns)
{
    uint32_t hash = ovsdb_row_hash_columns(row, columns, 0);
    struct projected_row *pr;
    HMAP_FOR_EACH_WITH_HASH (pr, node, hash, set) {
        if (ovsdb_row_equal_columns(pr->row, row, columns)) {
            return true;
        }
    }
    return false;
}

/* Parses the "where" condition and "columns" of an operation.  On error,
 * both outputs are left empty. */
static struct ovsdb_error *
parse_where_and_columns(struct execution *x, const struct ovsdb_table *table,
                        const json_t *where, const json_t *columns_json,
                        struct ovsdb_condition *cond,
                        struct ovsdb_column_set *columns)
{
    ovsdb_column_set_init(columns);
    struct ovsdb_error *error = ovsdb_condition_from_json(
        table->schema, where, x->symtab, cond);
    if (!error) {
        error = ovsdb_column_set_from_json(columns_json, table->schema,
                                           columns);
        if (error) {
            ovsdb_condition_destroy(cond);
        }
    }
    return error;
}

/* qsort_r() comparator for rows by the columns of 'sort_' (a 'const struct
 * ovsdb_column_set *'), the first column first. */
static int
compare_rows_by_columns(const void *a_, const void *b_, void *sort_)
{
    const struct ovsdb_row *const *a = a_;
    const struct ovsdb_row *const *b = b_;
    const struct ovsdb_column_set *sort = sort_;
    for (size_t i = 0; i < sort->n_columns; i++) {
        const struct ovsdb_column *c = sort->columns[i];
        int cmp = ovsdb_datum_compare_3way(ovsdb_row_get_datum(*a, c),
                                           ovsdb_row_get_datum(*b, c),
                                           &c->type);
        if (cmp) {
            return cmp;
        }
    }
    return 0;
}

/* "select", with Open vSwitch's "sort" member (an array of column names):
 * the rows come sorted by those columns, the first one first. */
static struct ovsdb_error *
execute_select(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    struct ovsdb_table *table = parse_table(x, p);
    const json_t *where = ovsdb_parser_member(p, "where", OP_ARRAY);
    const json_t *columns_json = ovsdb_parser_member(p, "columns",
                                                     OP_ARRAY | OP_OPTIONAL);
    const json_t *sort_json = ovsdb_parser_member(p, "sort",
                                                  OP_ARRAY | OP_OPTIONAL);
    if (ovsdb_parser_has_error(p)) {
        return NULL;
    }

    struct ovsdb_condition cond;
    struct ovsdb_column_set columns;
    struct ovsdb_error *error = parse_where_and_columns(
        x, table, where, columns_json, &cond, &columns);
    if (error) {
        return error;
    }
    struct ovsdb_column_set sort = OVSDB_COLUMN_SET_INITIALIZER;
    if (sort_json) {
        error = ovsdb_column_set_from_json(sort_json, table->schema, &sort);
        if (error) {
            ovsdb_column_set_destroy(&columns);
            ovsdb_condition_destroy(&cond);
            return error;
        }
    }

    struct row_list list;
    query(table, &cond, &list);

    /* Keeps in 'list' only the rows to return: all of them when _uuid is
     * among the columns, else one per distinct projection. */
    bool distinct = ovsdb_column_set_contains(&columns, OVSDB_COL_UUID);
    struct hmap seen = HMAP_INITIALIZER(&seen);
    struct projected_row *storage = NULL;
    if (!distinct) {
        storage = xmalloc((list.n ? list.n : 1) * sizeof *storage);
        size_t n = 0;
        for (size_t i = 0; i < list.n; i++) {
            if (projected_set_add(&seen, list.rows[i], &columns,
                                  &storage[i])) {
                list.rows[n++] = list.rows[i];
            }
        }
        list.n = n;
    }
    if (sort.n_columns && list.n > 1) {
        qsort_r(list.rows, list.n, sizeof *list.rows, compare_rows_by_columns,
                &sort);
    }

    /* With the results as text, the rows go straight into it: a tree of
     * a million rows would take hundreds of megabytes for a moment. */
    struct ds *text = NULL;
    json_t *rows = NULL;
    if (x->results->text) {
        text = results_next_text(x->results);
        ds_put_cstr(text, "{\"rows\":[");
        x->result_written = true;
    } else {
        rows = json_array();
    }
    for (size_t i = 0; i < list.n; i++) {
        json_t *row = ovsdb_row_to_json(list.rows[i], &columns);
        if (text) {
            if (i) {
                ds_put_char(text, ',');
            }
            jsonx_put(text, row);
            json_decref(row);
        } else {
            json_array_append_new(rows, row);
        }
    }
    if (text) {
        ds_put_cstr(text, "]}");
    } else {
        json_object_set_new(result, "rows", rows);
    }

    hmap_destroy(&seen);
    free(storage);
    free(list.rows);
    ovsdb_column_set_destroy(&sort);
    ovsdb_column_set_destroy(&columns);
    ovsdb_condition_destroy(&cond);
    return NULL;
}

static struct ovsdb_error *
execute_update(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    struct ovsdb_table *table = parse_table(x, p);
    const json_t *where = ovsdb_parser_member(p, "where", OP_ARRAY);
    const json_t *row_json = ovsdb_parser_member(p, "row", OP_OBJECT);
    if (ovsdb_parser_has_error(p)) {
        return NULL;
    }

    struct ovsdb_column_set columns = OVSDB_COLUMN_SET_INITIALIZER;
    struct ovsdb_row *row = ovsdb_row_create(table);
    struct ovsdb_error *error = ovsdb_row_from_json(row, row_json, x->symtab,
                                                    &columns);
    for (size_t i = 0; i < columns.n_columns && !error; i++) {
        const struct ovsdb_column *column = columns.columns[i];
        if (!column->is_mutable) {
            error = ovsdb_syntax_error(p->json, OVSDB_E_CONSTRAINT, "Cannot "
                                       "update immutable column %s in table "
                                       "%s.", column->name,
                                       table->schema->name);
        }
    }

    struct ovsdb_condition cond = OVSDB_CONDITION_INITIALIZER;
    if (!error) {
        error = ovsdb_condition_from_json(table->schema, where, x->symtab,
                                          &cond);
    }
    if (!error) {
        error = authorize(x, table, OVSDB_RBAC_UPDATE, NULL, &columns);
    }
    if (!error) {
        struct row_list list;
        query(table, &cond, &list);
        for (size_t i = 0; i < list.n && !error; i++) {
            error = authorize(x, table, OVSDB_RBAC_UPDATE, list.rows[i],
                              &columns);
        }
        for (size_t i = 0; i < list.n && !error; i++) {
            const struct ovsdb_row *old = list.rows[i];
            if (ovsdb_row_equal_columns(old, row, &columns)) {
                continue;
            }
            /* The row's copy skips the columns set below. */
            struct ovsdb_row *new = ovsdb_txn_row_modify_except(x->txn, old,
                                                                &columns);
            bool last = i == list.n - 1;
            for (size_t j = 0; j < columns.n_columns; j++) {
                const struct ovsdb_column *column = columns.columns[j];
                struct ovsdb_datum *src = ovsdb_row_datum_rw(row,
                                                             column->index);
                if (last) {
                    ovsdb_datum_move(ovsdb_row_datum_rw(new, column->index),
                                     src, &column->type);
                } else {
                    ovsdb_datum_replace(ovsdb_row_datum_rw(new, column->index),
                                        src, &column->type);
                }
            }
        }
        if (!error) {
            json_object_set_new(result, "count", json_integer(list.n));
        }
        free(list.rows);
    }

    ovsdb_condition_destroy(&cond);
    ovsdb_column_set_destroy(&columns);
    ovsdb_row_destroy(row);
    return error;
}

static struct ovsdb_error *
execute_mutate(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    struct ovsdb_table *table = parse_table(x, p);
    const json_t *where = ovsdb_parser_member(p, "where", OP_ARRAY);
    const json_t *mutations_json = ovsdb_parser_member(p, "mutations",
                                                       OP_ARRAY);
    if (ovsdb_parser_has_error(p)) {
        return NULL;
    }

    struct ovsdb_mutation_set mutations = OVSDB_MUTATION_SET_INITIALIZER;
    struct ovsdb_condition cond = OVSDB_CONDITION_INITIALIZER;
    struct ovsdb_error *error = ovsdb_mutation_set_from_json(
        table->schema, mutations_json, x->symtab, &mutations);
    if (!error) {
        error = ovsdb_condition_from_json(table->schema, where, x->symtab,
                                          &cond);
    }
    struct ovsdb_column_set columns = OVSDB_COLUMN_SET_INITIALIZER;
    for (size_t i = 0; i < mutations.n_mutations; i++) {
        ovsdb_column_set_add(&columns, mutations.mutations[i].column);
    }
    if (!error) {
        error = authorize(x, table, OVSDB_RBAC_MUTATE, NULL, &columns);
    }
    if (!error) {
        struct row_list list;
        query(table, &cond, &list);
        for (size_t i = 0; i < list.n && !error; i++) {
            error = authorize(x, table, OVSDB_RBAC_MUTATE, list.rows[i],
                              &columns);
        }
        for (size_t i = 0; i < list.n && !error; i++) {
            struct ovsdb_row *row = ovsdb_txn_row_modify(x->txn,
                                                         list.rows[i]);
            error = ovsdb_mutation_set_execute(row, &mutations);
        }
        if (!error) {
            json_object_set_new(result, "count", json_integer(list.n));
        }
        free(list.rows);
    }
    ovsdb_column_set_destroy(&columns);
    ovsdb_condition_destroy(&cond);
    ovsdb_mutation_set_destroy(&mutations);
    return error;
}

static struct ovsdb_error *
execute_delete(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    struct ovsdb_table *table = parse_table(x, p);
    const json_t *where = ovsdb_parser_member(p, "where", OP_ARRAY);
    if (ovsdb_parser_has_error(p)) {
        return NULL;
    }

    struct ovsdb_condition cond;
    struct ovsdb_error *error = ovsdb_condition_from_json(
        table->schema, where, x->symtab, &cond);
    if (!error) {
        error = authorize(x, table, OVSDB_RBAC_DELETE, NULL, NULL);
        struct row_list list = { NULL, 0, 0 };
        if (!error) {
            query(table, &cond, &list);
        }
        for (size_t i = 0; i < list.n && !error; i++) {
            error = authorize(x, table, OVSDB_RBAC_DELETE, list.rows[i],
                              NULL);
        }
        for (size_t i = 0; i < list.n && !error; i++) {
            ovsdb_txn_row_delete(x->txn, list.rows[i]);
        }
        if (!error) {
            json_object_set_new(result, "count", json_integer(list.n));
        }
        free(list.rows);
        ovsdb_condition_destroy(&cond);
    }
    return error;
}

static struct ovsdb_error *
execute_wait(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    struct ovsdb_table *table = parse_table(x, p);
    const json_t *timeout_json = ovsdb_parser_member(p, "timeout",
                                                     OP_NUMBER | OP_OPTIONAL);
    const json_t *where = ovsdb_parser_member(p, "where", OP_ARRAY);
    const json_t *columns_json = ovsdb_parser_member(p, "columns",
                                                     OP_ARRAY | OP_OPTIONAL);
    const json_t *until = ovsdb_parser_member(p, "until", OP_STRING);
    const json_t *rows_json = ovsdb_parser_member(p, "rows", OP_ARRAY);
    if (ovsdb_parser_has_error(p)) {
        return NULL;
    }

    long long timeout = LLONG_MAX;
    if (timeout_json) {
        double t = json_number_value(timeout_json);
        if (t < 0) {
            return ovsdb_syntax_error(timeout_json, OVSDB_E_SYNTAX,
                                      "timeout must be nonnegative");
        }
        timeout = t >= (double) LLONG_MAX ? LLONG_MAX : (long long) t;
    }
    const char *until_s = json_string_value(until);
    bool want_equal;
    if (!strcmp(until_s, "==")) {
        want_equal = true;
    } else if (!strcmp(until_s, "!=")) {
        want_equal = false;
    } else {
        return ovsdb_syntax_error(until, OVSDB_E_SYNTAX,
                                  "\"until\" must be \"==\" or \"!=\"");
    }

    struct ovsdb_condition cond;
    struct ovsdb_column_set columns;
    struct ovsdb_error *error = parse_where_and_columns(
        x, table, where, columns_json, &cond, &columns);
    if (error) {
        return error;
    }

    size_t n_expected = json_array_size(rows_json);
    struct ovsdb_row **expected = xmalloc((n_expected ? n_expected : 1)
                                          * sizeof *expected);
    struct projected_row *exp_storage = xmalloc(
        (n_expected ? n_expected : 1) * sizeof *exp_storage);
    struct hmap exp_set = HMAP_INITIALIZER(&exp_set);
    size_t n_parsed = 0;
    for (size_t i = 0; i < n_expected && !error; i++) {
        struct ovsdb_row *row = ovsdb_row_create(table);
        error = ovsdb_row_from_json(row, json_array_get(rows_json, i),
                                    x->symtab, NULL);
        expected[n_parsed++] = row;
        if (!error) {
            projected_set_add(&exp_set, row, &columns, &exp_storage[i]);
        }
    }

    if (!error) {
        struct row_list list;
        query(table, &cond, &list);
        struct hmap act_set = HMAP_INITIALIZER(&act_set);
        struct projected_row *act_storage = xmalloc(
            (list.n ? list.n : 1) * sizeof *act_storage);
        bool equal = true;
        for (size_t i = 0; i < list.n && equal; i++) {
            if (!projected_set_contains(&exp_set, list.rows[i], &columns)) {
                equal = false;
            } else {
                projected_set_add(&act_set, list.rows[i], &columns,
                                  &act_storage[i]);
            }
        }
        equal = equal && hmap_count(&act_set) == hmap_count(&exp_set);
        hmap_destroy(&act_set);
        free(act_storage);
        free(list.rows);

        if (equal != want_equal) {
            if (x->elapsed_msec >= timeout && x->elapsed_msec) {
                /* The time it waited, as the reference words it. */
                error = ovsdb_error(OVSDB_E_TIMED_OUT,
                                    "\"wait\" timed out after %lld ms",
                                    x->elapsed_msec);
            } else if (x->elapsed_msec >= timeout) {
                error = ovsdb_error(OVSDB_E_TIMED_OUT,
                                    "\"where\" clause test failed");
            } else {
                long long remaining = timeout - x->elapsed_msec;
                if (remaining < x->timeout_msec) {
                    x->timeout_msec = remaining;
                }
                /* ovsdb_execute_compose() retries later if its caller
                 * can; if not, this is the error, as the reference's. */
                x->must_wait = true;
                error = ovsdb_error(OVSDB_E_NOT_SUPP,
                                    "triggers not supported");
            }
        }
    }

    for (size_t i = 0; i < n_parsed; i++) {
        ovsdb_row_destroy(expected[i]);
    }
    free(expected);
    free(exp_storage);
    hmap_destroy(&exp_set);
    ovsdb_column_set_destroy(&columns);
    ovsdb_condition_destroy(&cond);
    return error;
}

static struct ovsdb_error *
execute_commit(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    const json_t *durable = ovsdb_parser_member(p, "durable", OP_BOOLEAN);
    if (durable && json_is_true(durable)) {
        x->durable = true;
    }
    return NULL;
}

static struct ovsdb_error *
execute_abort(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    return ovsdb_error(OVSDB_E_ABORTED, "aborted by request");
}

static struct ovsdb_error *
execute_comment(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    const json_t *comment = ovsdb_parser_member(p, "comment", OP_STRING);
    if (comment) {
        ovsdb_txn_add_comment(x->txn, json_string_value(comment));
    }
    return NULL;
}

static struct ovsdb_error *
execute_assert(struct execution *x, struct ovsdb_parser *p, json_t *result)
{
    const json_t *lock = ovsdb_parser_member(p, "lock", OP_ID);
    if (!lock) {
        return NULL;
    }
    const char *name = json_string_value(lock);
    if (!x->lock_held || !x->lock_held(name, x->lock_aux)) {
        return ovsdb_error(OVSDB_E_NOT_OWNER, "Asserted lock %s not held.",
                           name);
    }
    return NULL;
}

struct operation {
    const char *name;
    bool read_only;
    executor_func *execute;
};

static const struct operation operations[] = {
    { "insert", false, execute_insert },
    { "select", true, execute_select },
    { "update", false, execute_update },
    { "mutate", false, execute_mutate },
    { "delete", false, execute_delete },
    { "wait", true, execute_wait },
    { "commit", false, execute_commit },
    { "abort", true, execute_abort },
    { "comment", true, execute_comment },
    { "assert", true, execute_assert },
};

static const struct operation *
lookup_operation(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(operations); i++) {
        if (!strcmp(operations[i].name, name)) {
            return &operations[i];
        }
    }
    return NULL;
}

bool
ovsdb_execute_op_writes(const char *name)
{
    const struct operation *op = lookup_operation(name);
    return op && !op->read_only;
}

void
ovsdb_execute_append_error(json_t *result, struct ovsdb_error *error)
{
    json_array_append_new(result, ovsdb_error_to_json_free(error));
}

void
ovsdb_execute_append_error_text(struct ovsdb_results_text *results,
                                struct ovsdb_error *error)
{
    /* Before the closing bracket. */
    struct ds *text = &results->text;
    text->length--;
    if (text->length > 1) {
        ds_put_char(text, ',');
    }
    json_t *json = ovsdb_error_to_json_free(error);
    jsonx_put(text, json);
    json_decref(json);
    ds_put_char(text, ']');
    results->has_error = true;
}

struct ovsdb_txn *
ovsdb_execute_compose(struct ovsdb *db, json_t *params, bool read_only,
                      ovsdb_lock_held_cb *lock_held, void *lock_aux,
                      long long elapsed_msec, long long *timeout_msec,
                      bool *durable, json_t **resultp)
{
    return ovsdb_execute_compose_authorized(db, params, NULL, read_only,
                                            lock_held, lock_aux, NULL, NULL,
                                            elapsed_msec, timeout_msec,
                                            durable, resultp, NULL);
}

/* True if the operations in 'params' may be freed as they run: nobody
 * else holds a reference to 'params', and no "wait" could make the caller
 * retry the request later. */
static bool
may_release_ops(const json_t *params)
{
    if (params->refcount != 1) {
        return false;
    }
    for (size_t i = 1; i < json_array_size(params); i++) {
        const json_t *op = json_object_get(json_array_get(params, i), "op");
        if (!op || (json_is_string(op)
                    && !strcmp(json_string_value(op), "wait"))) {
            return false;
        }
    }
    return true;
}

/* A request's operations: element i of 'params' (borrowed), or parsed
 * from 'lazy' (a new reference, freed after it has run). */
struct request_ops {
    const json_t *params;
    struct jsonx_lazy_array *lazy;
};

static size_t
request_ops_size(const struct request_ops *ops)
{
    return (ops->lazy ? jsonx_lazy_array_size(ops->lazy)
                      : json_array_size(ops->params));
}

static const json_t *
request_ops_get(const struct request_ops *ops, size_t i)
{
    return (ops->lazy ? jsonx_lazy_array_get(ops->lazy, i)
                      : json_array_get(ops->params, i));
}

/* Releases what request_ops_get() returned. */
static void
request_ops_put(const struct request_ops *ops, const json_t *op)
{
    if (ops->lazy) {
        json_decref((json_t *) op);
    }
}

/* Appends 'result' (stolen). */
static void
results_add(struct results *r, json_t *result)
{
    if (r->text) {
        jsonx_put(results_next_text(r), result);
        json_decref(result);
    } else {
        json_array_append_new(r->array, result);
    }
    r->n++;
}

/* ovsdb_execute_compose_authorized(), where 'releasable' is either NULL or
 * 'params' itself, which may then lose its operations as they run; with
 * 'lazy', 'params' is NULL and the operations are parsed one at a time. */
static struct ovsdb_txn *
compose(struct ovsdb *db, const json_t *params, json_t *releasable,
        struct jsonx_lazy_array *lazy, bool read_only,
        ovsdb_lock_held_cb *lock_held, void *lock_aux,
        ovsdb_authorize_cb *authorize, void *authorize_aux,
        long long elapsed_msec, long long *timeout_msec, bool *durable,
        json_t **resultp, struct ovsdb_results_text *results_text)
{
    *durable = false;
    if (timeout_msec) {
        *timeout_msec = LLONG_MAX;
    }
    const struct request_ops ops = { .params = params, .lazy = lazy };
    const json_t *db_name = request_ops_get(&ops, 0);
    bool db_name_ok = (json_is_string(db_name)
                       && !strcmp(json_string_value(db_name),
                                  ovsdb_get_schema(db)->name));
    request_ops_put(&ops, db_name);
    if (lazy && !db_name_ok) {
        /* The error shows the whole request. */
        json_t *whole = jsonx_lazy_array_to_json(lazy);
        struct ovsdb_txn *txn = compose(db, whole, NULL, NULL, read_only,
                                        lock_held, lock_aux, authorize,
                                        authorize_aux, elapsed_msec,
                                        timeout_msec, durable, resultp, NULL);
        json_decref(whole);
        if (results_text && *resultp) {
            /* Only errors come this way. */
            jsonx_put(&results_text->text, *resultp);
            results_text->has_error = true;
            json_decref(*resultp);
            *resultp = NULL;
        }
        return txn;
    }
    if (!lazy && !json_is_array(params)) {
        *resultp = ovsdb_error_to_json_free(ovsdb_syntax_error(
            params, OVSDB_E_SYNTAX, "array expected"));
        return NULL;
    }
    if (!db_name_ok) {
        *resultp = ovsdb_error_to_json_free(ovsdb_syntax_error(
            params, OVSDB_E_SYNTAX,
            "database name expected as first parameter"));
        return NULL;
    }

    struct results results = {
        .array = results_text ? NULL : json_array(),
        .text = results_text,
    };
    struct execution x = {
        .results = &results,
        .db = db,
        .txn = ovsdb_txn_create(db),
        .symtab = ovsdb_symbol_table_create(),
        .durable = false,
        .lock_held = lock_held,
        .lock_aux = lock_aux,
        .authorize = authorize,
        .authorize_aux = authorize_aux,
        .elapsed_msec = elapsed_msec,
        .timeout_msec = LLONG_MAX,
    };

    size_t n_ops = request_ops_size(&ops) - 1;
    bool release_ops = releasable && may_release_ops(params);
    struct ovsdb_error *error = NULL;
    for (size_t i = 1; i <= n_ops; i++) {
        const json_t *op_json = request_ops_get(&ops, i);
        size_t text_mark = results_text ? results_text->text.length : 0;
        x.result_written = false;
        struct ovsdb_parser p;
        ovsdb_parser_init_operation(&p, op_json, i, n_ops);
        const json_t *op = ovsdb_parser_member(&p, "op", OP_ID);
        json_t *result = json_object();
        const struct operation *operation = NULL;
        if (op) {
            operation = lookup_operation(json_string_value(op));
            if (operation) {
                error = operation->execute(&x, &p, result);
            } else {
                ovsdb_parser_raise_error(&p, "No operation \"%s\"",
                                         json_string_value(op));
            }
        }

        struct ovsdb_error *parse_error = ovsdb_parser_finish(&p);
        request_ops_put(&ops, op_json);
        if (parse_error) {
            ovsdb_error_destroy(error);
            error = parse_error;
        }
        if (!error && read_only && operation && !operation->read_only) {
            error = ovsdb_error(OVSDB_E_NOT_ALLOWED, "%s operation not "
                                "allowed when database server is in read "
                                "only mode", operation->name);
        }
        if (error && x.result_written) {
            /* An error found after the operation wrote its result. */
            ds_truncate(&results_text->text, text_mark);
            x.result_written = false;
        }
        if (error) {
            json_decref(result);
            if (x.must_wait && timeout_msec) {
                /* An unsatisfied "wait": retry later. */
                ovsdb_error_destroy(error);
                ovsdb_txn_abort(x.txn);
                ovsdb_symbol_table_destroy(x.symtab);
                json_decref(results.array);
                if (results_text) {
                    ds_clear(&results_text->text);
                }
                *timeout_msec = x.timeout_msec;
                *resultp = NULL;
                return NULL;
            }
            results_add(&results, ovsdb_error_to_json(error));
            if (results_text) {
                results_text->has_error = true;
            }
            for (size_t j = i + 1; j <= n_ops; j++) {
                results_add(&results, json_null());
            }
            break;
        }
        if (x.result_written) {
            json_decref(result);
            results.n++;
        } else {
            results_add(&results, result);
        }
        if (release_ops) {
            /* A big request's tree (jansson's) takes several times its
             * text: free each operation's part once it has run, so the
             * rows it made reuse that memory. */
            json_array_set_new(releasable, i, json_null());
        }
    }
    ovsdb_symbol_table_destroy(x.symtab);
    if (results_text) {
        ds_put_cstr(&results_text->text, results.n ? "]" : "[]");
    }
    *resultp = results.array;
    *durable = x.durable;

    if (error || ovsdb_txn_is_empty(x.txn)) {
        ovsdb_error_destroy(error);
        ovsdb_txn_abort(x.txn);
        return NULL;
    }
    return x.txn;
}

struct ovsdb_txn *
ovsdb_execute_compose_authorized(struct ovsdb *db, json_t *params,
                                 struct jsonx_lazy_array *lazy, bool read_only,
                                 ovsdb_lock_held_cb *lock_held, void *lock_aux,
                                 ovsdb_authorize_cb *authorize,
                                 void *authorize_aux, long long elapsed_msec,
                                 long long *timeout_msec, bool *durable,
                                 json_t **resultp,
                                 struct ovsdb_results_text *results_text)
{
    return compose(db, params, params, lazy, read_only, lock_held, lock_aux,
                   authorize, authorize_aux, elapsed_msec, timeout_msec,
                   durable, resultp, results_text);
}

json_t *
ovsdb_execute(struct ovsdb *db, const json_t *params, bool read_only)
{
    return ovsdb_execute_authorized(db, params, read_only, NULL, NULL);
}

json_t *
ovsdb_execute_authorized(struct ovsdb *db, const json_t *params,
                         bool read_only, ovsdb_authorize_cb *authorize,
                         void *authorize_aux)
{
    bool durable;
    json_t *result;
    struct ovsdb_txn *txn = compose(db, params, NULL, NULL, read_only, NULL,
                                    NULL, authorize, authorize_aux, 0, NULL,
                                    &durable, &result, NULL);
    if (txn) {
        struct ovsdb_error *error = ovsdb_txn_precommit(txn);
        if (error) {
            ovsdb_execute_append_error(result, error);
            ovsdb_txn_abort(txn);
        } else {
            ovsdb_txn_commit_finish(txn);
        }
    }
    return result;
}
