/* ovsdb/engine/table.h: the rows of one table, keyed by UUID, with indexes.
 *
 * A table is part of a 'struct ovsdb' and changes only through
 * transactions (ovsdb/engine/txn.h).  Lookup by UUID is a hash lookup. */
#ifndef OVSDB_TABLE_H
#define OVSDB_TABLE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/hmap.h"
#include "lib/uuid.h"
#include "ovsdb/engine/schema.h"

struct ovsdb;
struct ovsdb_row;
struct ovsdb_txn_table;

struct ovsdb_table {
    const struct ovsdb_table_schema *schema;   /* Owned by db's schema. */
    struct ovsdb *db;
    struct hmap rows;           /* Contains "struct ovsdb_row"s. */
    struct hmap *indexes;       /* One hmap per schema index. */
    struct ovsdb_txn_table *txn_table;  /* Non-NULL while in a txn. */
    /* Set by ovsdb_table_put_row(); ovsdb_refresh_refs() recounts the
     * database's strong references and clears it. */
    bool refs_stale;
};

/* Lifecycle is managed by ovsdb_create()/ovsdb_destroy(). */
struct ovsdb_table *ovsdb_table_create(struct ovsdb *db,
                                       const struct ovsdb_table_schema *);
void ovsdb_table_destroy(struct ovsdb_table *table);

/* Returns the row with 'uuid' in 'table', or NULL.  The row is borrowed: it
 * stays valid until the next commit or abort on 'table''s database. */
const struct ovsdb_row *ovsdb_table_find_row(const struct ovsdb_table *table,
                                             const struct uuid *uuid);

static inline size_t
ovsdb_table_n_rows(const struct ovsdb_table *table)
{
    return hmap_count(&table->rows);
}

/* Iterates over the committed rows of TABLE (const struct ovsdb_row *). */
#define OVSDB_TABLE_FOR_EACH_ROW(ROW, TABLE)                                 \
    HMAP_FOR_EACH (ROW, hmap_node, &(TABLE)->rows)

/* Adds 'row' (a row of 'table' with its _uuid set, in no table yet) to
 * 'table' directly, bypassing transactions.  Takes ownership of 'row', which
 * may be replaced by a sparse copy (the caller looks it up again).  For
 * building databases in tests and tools that do not need undo (e.g. schema
 * conversion).  Constraints are not checked; strong reference counts are
 * recomputed before the next transaction on the database. */
void ovsdb_table_put_row(struct ovsdb_table *table, struct ovsdb_row *row);

/* Indexes (for ovsdb/engine/txn.c).  Index number 'i' of 'table' holds the
 * committed rows; a row is in every index of its table once committed. */
uint32_t ovsdb_table_index_hash(const struct ovsdb_table *table, size_t i,
                                const struct ovsdb_row *row);
bool ovsdb_table_index_equal(const struct ovsdb_table *table, size_t i,
                             const struct ovsdb_row *a,
                             const struct ovsdb_row *b);
void ovsdb_table_index_insert(struct ovsdb_table *table,
                              const struct ovsdb_row *row);
void ovsdb_table_index_remove(struct ovsdb_table *table,
                              const struct ovsdb_row *row);

#endif /* ovsdb/engine/table.h */
