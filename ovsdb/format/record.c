/* ovsdb/format/record.c: ovsdb(5) transaction records.  See record.h. */
#include <config.h>

#include "ovsdb/format/record.h"

#include <string.h>
#include "lib/bitmap.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/timeval.h"
#include "lib/uuid.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"

/* ---------------------------------------------------------------------
 * Writing. */

/* False after ovsdb_record_disable_column_diff(). */
static bool column_diff = true;

void
ovsdb_record_disable_column_diff(void)
{
    column_diff = false;
}

/* Appends ',"NAME":' (without the comma if 'first') to 'out'. */
static void
put_member_name(struct ds *out, const char *name, bool first)
{
    if (!first) {
        ds_put_char(out, ',');
    }
    jsonx_put_string(out, name, strlen(name));
    ds_put_char(out, ':');
}

/* Appends the record's value for one changed row to 'out': null for a
 * delete, else an object of the columns to write (see record.h).  Returns
 * false, with nothing appended, for a modify that changed no persistent
 * column. */
static bool
put_row(struct ds *out, const struct ovsdb_table_schema *ts,
        const struct ovsdb_row *old, const struct ovsdb_row *new,
        const unsigned long *changed)
{
    if (!new) {
        ds_put_cstr(out, "null");
        return true;
    }

    size_t start = out->length;
    bool first = true;
    ds_put_char(out, '{');
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns; i++) {
        const struct ovsdb_column *column = ts->columns[i];
        const struct ovsdb_type *type = &column->type;
        const struct ovsdb_datum *d = ovsdb_row_datum(new, i);
        if (!column->is_persistent) {
            continue;
        }
        if (!old) {
            if (!ovsdb_datum_is_default(d, type)) {
                put_member_name(out, column->name, first);
                ovsdb_datum_put_json(out, d, type);
                first = false;
            }
        } else if (bitmap_is_set(changed, i)) {
            put_member_name(out, column->name, first);
            first = false;
            /* As the reference reads it back: a diff applies to a value
             * that is not the default, and replaces a default one. */
            const struct ovsdb_datum *od = ovsdb_row_datum(old, i);
            if (column_diff && ovsdb_type_is_composite(type)
                && !ovsdb_datum_is_default(od, type)) {
                struct ovsdb_datum diff;
                ovsdb_datum_diff(&diff, od, d, type);
                ovsdb_datum_put_json(out, &diff, type);
                ovsdb_datum_destroy(&diff, type);
            } else {
                ovsdb_datum_put_json(out, d, type);
            }
        }
    }
    if (old && first) {
        ds_truncate(out, start);
        return false;
    }
    ds_put_char(out, '}');
    return true;
}

/* State of put_table_rows() over one table's changed rows. */
struct put_rows_ctx {
    struct ds *out;
    bool first;                 /* No row written yet. */
};

static bool
put_table_row(const struct ovsdb_table *table, const struct ovsdb_row *old,
              const struct ovsdb_row *new, const unsigned long *changed,
              void *ctx_)
{
    struct put_rows_ctx *ctx = ctx_;
    struct ds *out = ctx->out;
    size_t row_start = out->length;
    if (!ctx->first) {
        ds_put_char(out, ',');
    }
    char *p = ds_put_uninit(out, UUID_LEN + 3);
    p[0] = '"';
    uuid_to_string(ovsdb_row_get_uuid(old ? old : new), p + 1);
    memcpy(p + 1 + UUID_LEN, "\":", 2);
    if (put_row(out, table->schema, old, new, changed)) {
        ctx->first = false;
    } else {
        ds_truncate(out, row_start);
    }
    return true;
}

/* Appends the members "TABLE":{...} of 'txn''s changes, separated by
 * commas, without the enclosing braces.  Returns false, appending nothing,
 * if nothing persistent changed. */
static bool
put_changes(struct ds *out, const struct ovsdb_txn *txn)
{
    bool any = false;
    size_t n = ovsdb_txn_get_n_tables(txn);
    for (size_t t = 0; t < n; t++) {
        const struct ovsdb_table *table = ovsdb_txn_get_table(txn, t);
        size_t start = out->length;
        put_member_name(out, table->schema->name, !any);
        ds_put_char(out, '{');
        struct put_rows_ctx ctx = { .out = out, .first = true };
        ovsdb_txn_for_each_change_in_table(txn, t, put_table_row, &ctx);
        if (ctx.first) {
            ds_truncate(out, start);
        } else {
            ds_put_char(out, '}');
            any = true;
        }
    }
    return any;
}

bool
ovsdb_record_put_txn(struct ds *out, const struct ovsdb_txn *txn)
{
    size_t start = out->length;
    ds_put_char(out, '{');
    if (!put_changes(out, txn)) {
        ds_truncate(out, start);
        return false;
    }
    const char *comment = ovsdb_txn_get_comment(txn);
    if (comment) {
        ds_put_cstr(out, ",\"_comment\":");
        jsonx_put_string(out, comment, strlen(comment));
    }
    /* "_is_diff" before "_date", never last: scripts written for the
     * reference's files strip it as '"_is_diff":true,' (its members come
     * in hash order there; readers take any order). */
    if (column_diff) {
        ds_put_cstr(out, ",\"_is_diff\":true");
    }
    ds_put_cstr(out, ",\"_date\":");
    jsonx_put_integer(out, time_wall_msec());
    ds_put_char(out, '}');
    return true;
}

json_t *
ovsdb_record_from_txn(const struct ovsdb_txn *txn)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_char(&s, '{');
    json_t *json = NULL;
    if (put_changes(&s, txn)) {
        ds_put_char(&s, '}');
        char *error;
        json = jsonx_from_buffer(s.string, s.length, &error);
        if (!json) {
            ovs_fatal(0, "transaction record does not parse (%s)", error);
        }
    }
    ds_destroy(&s);
    return json;
}

/* ---------------------------------------------------------------------
 * Reading. */

static struct ovsdb_error *
replay_row(struct ovsdb_txn *txn, struct ovsdb_table *table,
           const struct uuid *uuid, const json_t *json, bool is_diff)
{
    const struct ovsdb_row *row = ovsdb_table_find_row(table, uuid);
    const struct ovsdb_table_schema *ts = table->schema;

    if (json_is_null(json)) {
        if (!row) {
            return ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "transaction "
                                      "deletes nonexistent row "UUID_FMT,
                                      UUID_ARGS(uuid));
        }
        ovsdb_txn_row_delete(txn, row);
        return NULL;
    }
    if (!json_is_object(json)) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "row must be JSON object or null");
    }

    struct ovsdb_row *new;
    bool inserting = !row;
    if (inserting) {
        new = ovsdb_row_create(table);
        ovsdb_row_set_uuid(new, uuid);
    } else {
        new = ovsdb_txn_row_modify(txn, row);
    }

    const char *name;
    json_t *value;
    json_object_foreach ((json_t *) json, name, value) {
        const struct ovsdb_column *column;
        column = ovsdb_table_schema_find_column(ts, name);
        struct ovsdb_error *error = NULL;
        if (!column) {
            error = ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "No column %s "
                                       "in table %s.", name, ts->name);
        } else if (column->index < OVSDB_N_STD_COLUMNS) {
            continue;
        } else if (!inserting && is_diff
                   && ovsdb_type_is_composite(&column->type)
                   && !ovsdb_datum_is_default(ovsdb_row_get_datum(new, column),
                                              &column->type)) {
            /* The reference applies a diff only to a value that is not the
             * default (which it replaces), so files read the same. */
            struct ovsdb_datum diff, result;
            error = ovsdb_datum_diff_from_json(&diff, &column->type, value);
            if (!error) {
                error = ovsdb_datum_apply_diff(&result,
                                               ovsdb_row_get_datum(new,
                                                                   column),
                                               &diff, &column->type);
                ovsdb_datum_destroy(&diff, &column->type);
                if (!error) {
                    ovsdb_datum_move(ovsdb_row_datum_rw(new, column->index),
                                     &result, &column->type);
                }
            }
        } else {
            struct ovsdb_datum datum;
            error = ovsdb_datum_from_json(&datum, &column->type, value,
                                          NULL);
            if (!error) {
                ovsdb_datum_move(ovsdb_row_datum_rw(new, column->index),
                                 &datum, &column->type);
            }
        }
        if (error) {
            if (inserting) {
                ovsdb_row_destroy(new);
            }
            return error;
        }
    }
    if (inserting) {
        ovsdb_txn_row_insert(txn, new);
    }
    return NULL;
}

struct ovsdb_error *
ovsdb_record_to_txn(struct ovsdb *db, const json_t *json, bool is_diff,
                    struct ovsdb_txn **txnp)
{
    *txnp = NULL;
    if (!json_is_object(json)) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "object expected");
    }

    struct ovsdb_txn *txn = ovsdb_txn_create(db);
    const char *table_name;
    json_t *rows;
    json_object_foreach ((json_t *) json, table_name, rows) {
        if (table_name[0] == '_') {
            if (!strcmp(table_name, "_comment") && json_is_string(rows)) {
                ovsdb_txn_add_comment(txn, json_string_value(rows));
            }
            continue;
        }
        struct ovsdb_table *table = ovsdb_get_table(db, table_name);
        struct ovsdb_error *error = NULL;
        if (!table) {
            error = ovsdb_syntax_error(json, OVSDB_E_UNKNOWN_TABLE,
                                       "No table named %s.", table_name);
        } else if (!json_is_object(rows)) {
            error = ovsdb_syntax_error(rows, OVSDB_E_SYNTAX,
                                       "object expected");
        } else {
            const char *uuid_string;
            json_t *row;
            json_object_foreach (rows, uuid_string, row) {
                struct uuid uuid;
                if (!uuid_from_string(&uuid, uuid_string)) {
                    error = ovsdb_syntax_error(rows, OVSDB_E_SYNTAX,
                                               "\"%s\" is not a valid UUID",
                                               uuid_string);
                } else {
                    error = replay_row(txn, table, &uuid, row, is_diff);
                }
                if (error) {
                    break;
                }
            }
        }
        if (error) {
            ovsdb_txn_abort(txn);
            return error;
        }
    }
    *txnp = txn;
    return NULL;
}

struct ovsdb_error *
ovsdb_record_replay(struct ovsdb *db, const json_t *json)
{
    return ovsdb_record_replay_id(db, json, NULL);
}

struct ovsdb_error *
ovsdb_record_replay_id(struct ovsdb *db, const json_t *json,
                       const struct uuid *id)
{
    if (!json_is_object(json)) {
        return ovsdb_error(OVSDB_E_SYNTAX, "transaction record is not an "
                           "object");
    }
    bool is_diff = json_is_true(json_object_get(json, "_is_diff"));
    struct ovsdb_txn *txn;
    struct ovsdb_error *error = ovsdb_record_to_txn(db, json, is_diff, &txn);
    if (error) {
        return error;
    }
    error = ovsdb_txn_precommit(txn);
    if (error) {
        ovsdb_txn_abort(txn);
        return error;
    }
    if (id) {
        ovsdb_txn_set_id(txn, id);
    }
    ovsdb_txn_commit_finish(txn);
    return NULL;
}
