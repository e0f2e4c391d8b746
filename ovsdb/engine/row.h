/* ovsdb/engine/row.h: rows of a table.
 *
 * A row is one allocation: (for a sparse row, the mask below) one hmap node
 * per index of the table, then the header below (where a row pointer
 * points), then the datums of its columns in column index order
 * (fields[OVSDB_COL_UUID] is _uuid, fields[OVSDB_COL_VERSION] is _version),
 * then an atom per column with an inline slot (see row.c).
 *
 * A row is full or sparse.  A full row stores a datum for every column: a
 * row being built or changed by a transaction is full, and only a full row's
 * columns may be written.  A committed row whose table has at most 64
 * columns is made sparse (ovsdb_row_compact()): its empty columns take no
 * space, and a mask says which columns it stores.  Wide tables with most
 * columns empty at rest (Open vSwitch's Interface: 37 columns, about 10 set
 * in its file) are why.  Read a column with ovsdb_row_datum(), which works
 * on both.
 *
 * Rows in a table are immutable outside a transaction: a transaction modifies
 * a private clone and swaps it in at commit (see ovsdb/engine/txn.h). */
#ifndef OVSDB_ROW_H
#define OVSDB_ROW_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "lib/hmap.h"
#include "lib/uuid.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/schema.h"

struct ovsdb_error;
struct ovsdb_symbol_table;
struct ovsdb_table;

/* 32 bytes on 64-bit hosts: a transaction finds its txn_row for a row by
 * the row's UUID (see ovsdb/engine/txn.c), so the row does not point to it. */
struct ovsdb_row {
    struct hmap_node hmap_node;     /* In table's 'rows', by uuid_hash(). */
    struct ovsdb_table *table;
    unsigned int n_refs;            /* Strong refs to this row from rows in
                                     * the committed database. */
    unsigned int n_holders : 31;    /* See ovsdb_row_hold(). */
    unsigned int sparse : 1;        /* Stores only the columns in a mask
                                     * kept before the index nodes. */
    struct ovsdb_datum fields[];    /* The stored columns, in index order:
                                     * read through ovsdb_row_datum(). */
};

/* Creates a row of 'table' with every column at its default value and a
 * zero _uuid.  Caller must free with ovsdb_row_destroy() (or hand it to a
 * table or transaction, which then owns it). */
struct ovsdb_row *ovsdb_row_create(const struct ovsdb_table *table);
/* Returns a deep copy (strings shared by reference). */
struct ovsdb_row *ovsdb_row_clone(const struct ovsdb_row *row);
/* Same, except that the columns in 'skip' (may be NULL) are not copied but
 * set to their default values, for a caller about to overwrite them. */
struct ovsdb_row *ovsdb_row_clone_except(const struct ovsdb_row *row,
                                         const struct ovsdb_column_set *skip);
/* Returns 'row' itself, or a sparse copy of it without its empty columns,
 * then 'row' is freed and, if 'rows' is nonnull, the copy takes its place
 * in 'rows' (the table's).  For a row about to become committed: nobody
 * holds it and it is in no index.  Rows of tables of more than 64 columns
 * stay full. */
struct ovsdb_row *ovsdb_row_compact(struct ovsdb_row *row, struct hmap *rows);
/* Frees 'row', or, if others hold it, lets go of one hold. */
void ovsdb_row_destroy(struct ovsdb_row *row);

/* Returns 'row' held for the caller, who lets go with ovsdb_row_destroy():
 * a copy for free, for a row that never changes again, as a committed
 * version does (a transaction changes a copy; only the strong reference
 * count and the table's links, not a column, change in place).  The monitor
 * history and a lagging client's pending changes keep committed versions
 * this way. */
struct ovsdb_row *ovsdb_row_hold(const struct ovsdb_row *row);

static inline const struct uuid *
ovsdb_row_get_uuid(const struct ovsdb_row *row)
{
    return &row->fields[OVSDB_COL_UUID].keys[0].uuid;
}

static inline const struct uuid *
ovsdb_row_get_version(const struct ovsdb_row *row)
{
    return &row->fields[OVSDB_COL_VERSION].keys[0].uuid;
}

/* Sets _uuid / _version of a row being built. */
void ovsdb_row_set_uuid(struct ovsdb_row *row, const struct uuid *uuid);
void ovsdb_row_set_version(struct ovsdb_row *row, const struct uuid *uuid);

const struct ovsdb_datum *ovsdb_row_sparse_datum(const struct ovsdb_row *,
                                                 size_t column_index);

/* Returns the row's datum for the column with index 'i'; borrowed (valid as
 * long as the row).  A column a sparse row does not store reads as an empty
 * datum. */
static inline const struct ovsdb_datum *
ovsdb_row_datum(const struct ovsdb_row *row, size_t i)
{
    return row->sparse ? ovsdb_row_sparse_datum(row, i) : &row->fields[i];
}

/* Returns the datum of a full row for the column with index 'i', to
 * change. */
struct ovsdb_datum *ovsdb_row_datum_rw(struct ovsdb_row *row, size_t i);

/* Returns the row's datum for 'column' (see ovsdb_row_datum()). */
static inline const struct ovsdb_datum *
ovsdb_row_get_datum(const struct ovsdb_row *row,
                    const struct ovsdb_column *column)
{
    return ovsdb_row_datum(row, column->index);
}

/* Returns the hmap node of 'row' for index number 'i' of its table. */
struct hmap_node *ovsdb_row_get_index_node(const struct ovsdb_row *row,
                                           size_t i);
/* Returns the row containing index node 'node' of index number 'i' of
 * 'table'. */
struct ovsdb_row *ovsdb_row_from_index_node(const struct ovsdb_table *table,
                                            size_t i,
                                            const struct hmap_node *node);

/* Hash and comparison over the columns in 'columns'. */
uint32_t ovsdb_row_hash_columns(const struct ovsdb_row *row,
                                const struct ovsdb_column_set *columns,
                                uint32_t basis);
bool ovsdb_row_equal_columns(const struct ovsdb_row *a,
                             const struct ovsdb_row *b,
                             const struct ovsdb_column_set *columns);

/* Parses a JSON object {"column": value, ...} into 'row' (whose other
 * columns are untouched).  Errors: "unknown column" for a column not in
 * the table, the datum errors otherwise.  _uuid and _version members are
 * parsed like the others (callers reject or overwrite them, as the
 * reference does).  If 'columns' is nonnull, the parsed columns are added
 * to it. */
struct ovsdb_error *ovsdb_row_from_json(struct ovsdb_row *row,
                                        const json_t *json,
                                        struct ovsdb_symbol_table *symtab,
                                        struct ovsdb_column_set *columns)
    WARN_UNUSED_RESULT;
/* New reference: {"column": value, ...} for the columns in 'columns'. */
json_t *ovsdb_row_to_json(const struct ovsdb_row *row,
                          const struct ovsdb_column_set *columns);

/* Memory used by 'row' (header, datums and their arrays), for
 * memory/show-style accounting.  Strings are not counted. */
size_t ovsdb_row_memory(const struct ovsdb_row *row);

/* The atoms of 'row''s columns (a map pair counts two), as the reference
 * counts them for memory/show. */
size_t ovsdb_row_n_atoms(const struct ovsdb_row *row);

#endif /* ovsdb/engine/row.h */
