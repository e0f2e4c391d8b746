/* ovsdb/engine/ovsdb.c: see ovsdb.h. */
#include <config.h>
#include "ovsdb/engine/ovsdb.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/table.h"

struct commit_observer {
    ovsdb_commit_cb *cb;
    void *aux;
};

struct ovsdb {
    struct ovsdb_schema *schema;
    struct ovsdb_table **tables;    /* Same order as schema->tables. */
    struct ovsdb_txn *txn;          /* Transaction in progress, or NULL. */
    struct commit_observer *observers;
    size_t n_observers, allocated_observers;
};

struct ovsdb *
ovsdb_create(struct ovsdb_schema *schema)
{
    struct ovsdb *db = xzalloc(sizeof *db);
    db->schema = schema;
    db->tables = xmalloc((schema->n_tables ? schema->n_tables : 1)
                         * sizeof *db->tables);
    for (size_t i = 0; i < schema->n_tables; i++) {
        db->tables[i] = ovsdb_table_create(db, schema->tables[i]);
    }
    return db;
}

void
ovsdb_destroy(struct ovsdb *db)
{
    if (!db) {
        return;
    }
    for (size_t i = 0; i < db->schema->n_tables; i++) {
        ovsdb_table_destroy(db->tables[i]);
    }
    free(db->tables);
    free(db->observers);
    ovsdb_schema_destroy(db->schema);
    free(db);
}

const struct ovsdb_schema *
ovsdb_get_schema(const struct ovsdb *db)
{
    return db->schema;
}

struct ovsdb_table *
ovsdb_get_table(const struct ovsdb *db, const char *name)
{
    const struct ovsdb_table_schema *ts = ovsdb_schema_find_table(db->schema,
                                                                  name);
    return ts ? db->tables[ts->index] : NULL;
}

struct ovsdb_table *
ovsdb_get_table_by_index(const struct ovsdb *db, size_t i)
{
    return i < db->schema->n_tables ? db->tables[i] : NULL;
}

size_t
ovsdb_n_tables(const struct ovsdb *db)
{
    return db->schema->n_tables;
}

size_t
ovsdb_n_rows(const struct ovsdb *db)
{
    size_t n = 0;
    for (size_t i = 0; i < db->schema->n_tables; i++) {
        n += hmap_count(&db->tables[i]->rows);
    }
    return n;
}

size_t
ovsdb_n_atoms(const struct ovsdb *db)
{
    size_t n = 0;
    for (size_t i = 0; i < db->schema->n_tables; i++) {
        const struct ovsdb_table *table = db->tables[i];
        const struct ovsdb_row *row;
        OVSDB_TABLE_FOR_EACH_ROW (row, table) {
            n += ovsdb_row_n_atoms(row);
        }
    }
    return n;
}

void
ovsdb_add_commit_observer(struct ovsdb *db, ovsdb_commit_cb *cb, void *aux)
{
    if (db->n_observers >= db->allocated_observers) {
        db->observers = x2nrealloc(db->observers, &db->allocated_observers,
                                   sizeof *db->observers);
    }
    db->observers[db->n_observers].cb = cb;
    db->observers[db->n_observers].aux = aux;
    db->n_observers++;
}

void
ovsdb_remove_commit_observer(struct ovsdb *db, ovsdb_commit_cb *cb, void *aux)
{
    for (size_t i = 0; i < db->n_observers; i++) {
        if (db->observers[i].cb == cb && db->observers[i].aux == aux) {
            /* Keep the order: observers run in registration order. */
            memmove(&db->observers[i], &db->observers[i + 1],
                    (db->n_observers - i - 1) * sizeof *db->observers);
            db->n_observers--;
            return;
        }
    }
}

void
ovsdb_notify_commit_observers(struct ovsdb *db, const struct ovsdb_txn *txn)
{
    for (size_t i = 0; i < db->n_observers; i++) {
        db->observers[i].cb(db, txn, db->observers[i].aux);
    }
}

struct ovsdb_txn *
ovsdb_get_txn(const struct ovsdb *db)
{
    return db->txn;
}

void
ovsdb_set_txn(struct ovsdb *db, struct ovsdb_txn *txn)
{
    db->txn = txn;
}

static void
count_refs(struct ovsdb *db, const struct ovsdb_base_type *base,
           const union ovsdb_atom *atoms, unsigned int n,
           const struct ovsdb_row *src)
{
    if (!atoms || !ovsdb_base_type_is_strong_ref(base)) {
        return;
    }
    const struct ovsdb_table *dst = db->tables[base->uuid.ref_table->index];
    for (unsigned int i = 0; i < n; i++) {
        const struct uuid *uuid = &atoms[i].uuid;
        if (!uuid_equals(uuid, ovsdb_row_get_uuid(src))) {
            struct ovsdb_row *row = (struct ovsdb_row *)
                ovsdb_table_find_row(dst, uuid);
            if (row) {
                row->n_refs++;
            }
        }
    }
}

void
ovsdb_refresh_refs(struct ovsdb *db)
{
    bool stale = false;
    for (size_t i = 0; i < db->schema->n_tables; i++) {
        stale |= db->tables[i]->refs_stale;
        db->tables[i]->refs_stale = false;
    }
    if (!stale) {
        return;
    }
    for (size_t i = 0; i < db->schema->n_tables; i++) {
        struct ovsdb_row *row;
        HMAP_FOR_EACH (row, hmap_node, &db->tables[i]->rows) {
            row->n_refs = 0;
        }
    }
    for (size_t i = 0; i < db->schema->n_tables; i++) {
        const struct ovsdb_table_schema *ts = db->schema->tables[i];
        const struct ovsdb_row *row;
        HMAP_FOR_EACH (row, hmap_node, &db->tables[i]->rows) {
            for (size_t c = OVSDB_N_STD_COLUMNS; c < ts->n_columns; c++) {
                const struct ovsdb_type *type = &ts->columns[c]->type;
                const struct ovsdb_datum *d = ovsdb_row_datum(row, c);
                count_refs(db, &type->key, d->keys, d->n, row);
                count_refs(db, &type->value, ovsdb_datum_values(d), d->n, row);
            }
        }
    }
}
