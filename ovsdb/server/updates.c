/* ovsdb/server/updates.c: applying <table-updates2> from another server.  See
 * updates.h. */
#include <config.h>

#include "ovsdb/server/updates.h"

#include <string.h>
#include "lib/uuid.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/format/record.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"

/* Returns the ovsdb(5) record value for row update 'upd' (an update2 row
 * update: {"insert"|"initial"|"modify": row} or {"delete": null}): a new
 * reference, or NULL if 'upd' is malformed. */
static json_t *
row_update_to_record(const json_t *upd)
{
    const char *kind;
    json_t *value;
    json_object_foreach ((json_t *) upd, kind, value) {
        if (!strcmp(kind, "delete")) {
            return json_null();
        } else if (!strcmp(kind, "insert") || !strcmp(kind, "initial")
                   || !strcmp(kind, "modify")) {
            return json_is_object(value) ? json_incref(value) : NULL;
        }
    }
    return NULL;
}

/* Returns the full contents 'row' (an update2 "initial" row, which leaves
 * out default values) for the columns of 'ts', defaults filled in, so
 * that replaying it replaces every column.  New reference. */
static json_t *
full_row(const struct ovsdb_table_schema *ts, const json_t *row)
{
    json_t *full = json_deep_copy(row);
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns; i++) {
        const struct ovsdb_column *c = ts->columns[i];
        if (!json_object_get(full, c->name)) {
            struct ovsdb_datum d;
            ovsdb_datum_init_default(&d, &c->type);
            json_object_set_new(full, c->name,
                                ovsdb_datum_to_json(&d, &c->type));
            ovsdb_datum_destroy(&d, &c->type);
        }
    }
    return full;
}

/* Converts 'updates' (borrowed <table-updates2>) into an ovsdb(5) record
 * for 'db'.  With 'full' (a complete resync), the record also deletes
 * every local row that 'updates' does not have (in the tables named in
 * 'tables', or all if it is NULL) and replaces the others entirely (replay
 * it with is_diff false).  New reference, or NULL if 'updates' is
 * malformed. */
static json_t *
updates_to_record(const struct ovsdb *db, const json_t *updates, bool full,
                  const json_t *tables)
{
    if (!json_is_object(updates)) {
        return NULL;
    }
    json_t *record = json_object();
    const char *table_name;
    json_t *rows;
    json_object_foreach ((json_t *) updates, table_name, rows) {
        const struct ovsdb_table *table = ovsdb_get_table(db, table_name);
        if (!table || !json_is_object(rows)) {
            json_decref(record);
            return NULL;
        }
        json_t *out = json_object();
        const char *uuid_s;
        json_t *upd;
        json_object_foreach (rows, uuid_s, upd) {
            json_t *value = json_is_object(upd)
                            ? row_update_to_record(upd) : NULL;
            if (!value) {
                json_decref(out);
                json_decref(record);
                return NULL;
            }
            if (full && json_is_object(value)) {
                json_t *f = full_row(table->schema, value);
                json_decref(value);
                value = f;
            }
            json_object_set_new(out, uuid_s, value);
        }
        json_object_set_new(record, table_name, out);
    }

    if (full) {
        for (size_t i = 0; i < ovsdb_n_tables(db); i++) {
            const struct ovsdb_table *table = ovsdb_get_table_by_index(db,
                                                                       i);
            if (tables && !json_object_get(tables, table->schema->name)) {
                continue;
            }
            json_t *out = json_object_get(record, table->schema->name);
            const struct ovsdb_row *row;
            OVSDB_TABLE_FOR_EACH_ROW (row, table) {
                char uuid_s[UUID_LEN + 1];
                uuid_to_string(ovsdb_row_get_uuid(row), uuid_s);
                if (!out) {
                    out = json_object();
                    json_object_set_new(record, table->schema->name, out);
                }
                if (!json_object_get(out, uuid_s)) {
                    json_object_set_new(out, uuid_s, json_null());
                }
            }
        }
    }
    return record;
}

struct ovsdb_error *
ovsdb_updates_to_txn(struct ovsdb *db, const json_t *updates, bool full,
                     const json_t *tables, struct ovsdb_txn **txnp)
{
    struct ovsdb_error *error = NULL;
    json_t *record = updates_to_record(db, updates, full, tables);
    *txnp = NULL;
    if (!record) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "malformed table updates");
    } else if (json_object_size(record)) {
        error = ovsdb_record_to_txn(db, record, !full, txnp);
        if (!error) {
            error = ovsdb_txn_precommit(*txnp);
            if (error) {
                ovsdb_txn_abort(*txnp);
                *txnp = NULL;
            }
        }
    }
    json_decref(record);
    return error;
}
