/* ovsdb/engine/table.c: see table.h. */
#include <config.h>
#include "ovsdb/engine/table.h"

#include <stdlib.h>
#include "lib/allocator.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"

struct ovsdb_table *
ovsdb_table_create(struct ovsdb *db, const struct ovsdb_table_schema *ts)
{
    struct ovsdb_table *table = xzalloc(sizeof *table);
    table->schema = ts;
    table->db = db;
    hmap_init(&table->rows);
    table->indexes = xmalloc((ts->n_indexes ? ts->n_indexes : 1)
                             * sizeof *table->indexes);
    for (size_t i = 0; i < ts->n_indexes; i++) {
        hmap_init(&table->indexes[i]);
    }
    table->txn_table = NULL;
    return table;
}

void
ovsdb_table_destroy(struct ovsdb_table *table)
{
    if (!table) {
        return;
    }
    /* Not HMAP_FOR_EACH_POP: popping from a big map rescans it from the
     * first bucket every time. */
    struct ovsdb_row *row, *next;
    HMAP_FOR_EACH_SAFE (row, next, hmap_node, &table->rows) {
        ovsdb_row_destroy(row);
    }
    hmap_destroy(&table->rows);
    for (size_t i = 0; i < table->schema->n_indexes; i++) {
        hmap_destroy(&table->indexes[i]);
    }
    free(table->indexes);
    free(table);
}

const struct ovsdb_row *
ovsdb_table_find_row(const struct ovsdb_table *table, const struct uuid *uuid)
{
    struct ovsdb_row *row;
    HMAP_FOR_EACH_WITH_HASH (row, hmap_node, uuid_hash(uuid), &table->rows) {
        if (uuid_equals(ovsdb_row_get_uuid(row), uuid)) {
            return row;
        }
    }
    return NULL;
}

uint32_t
ovsdb_table_index_hash(const struct ovsdb_table *table, size_t i,
                       const struct ovsdb_row *row)
{
    const struct ovsdb_index_schema *is = &table->schema->indexes[i];
    uint32_t hash = 0;
    for (size_t j = 0; j < is->n_columns; j++) {
        const struct ovsdb_column *column = is->columns[j];
        hash = ovsdb_datum_hash(ovsdb_row_get_datum(row, column),
                                &column->type, hash);
    }
    return hash;
}

bool
ovsdb_table_index_equal(const struct ovsdb_table *table, size_t i,
                        const struct ovsdb_row *a, const struct ovsdb_row *b)
{
    const struct ovsdb_index_schema *is = &table->schema->indexes[i];
    for (size_t j = 0; j < is->n_columns; j++) {
        const struct ovsdb_column *column = is->columns[j];
        if (!ovsdb_datum_equals(ovsdb_row_get_datum(a, column),
                                ovsdb_row_get_datum(b, column),
                                &column->type)) {
            return false;
        }
    }
    return true;
}

void
ovsdb_table_index_insert(struct ovsdb_table *table,
                         const struct ovsdb_row *row)
{
    for (size_t i = 0; i < table->schema->n_indexes; i++) {
        hmap_insert(&table->indexes[i], ovsdb_row_get_index_node(row, i),
                    ovsdb_table_index_hash(table, i, row));
    }
}

void
ovsdb_table_index_remove(struct ovsdb_table *table,
                         const struct ovsdb_row *row)
{
    for (size_t i = 0; i < table->schema->n_indexes; i++) {
        hmap_remove(&table->indexes[i], ovsdb_row_get_index_node(row, i));
    }
}

void
ovsdb_table_put_row(struct ovsdb_table *table, struct ovsdb_row *row)
{
    row = ovsdb_row_compact(row, NULL);
    hmap_insert(&table->rows, &row->hmap_node,
                uuid_hash(ovsdb_row_get_uuid(row)));
    ovsdb_table_index_insert(table, row);
    table->refs_stale = true;
}
