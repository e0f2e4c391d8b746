/* ovsdb/engine/row.c: see row.h. */
#include <config.h>
#include "ovsdb/engine/row.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/hash.h"
#include "lib/util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/table.h"

/* What a column a sparse row does not store reads as. */
static const struct ovsdb_datum empty_datum = OVSDB_DATUM_EMPTY_INITIALIZER;

/* A row is one block: for a sparse row its mask of stored columns, then
 * 'n_indexes' index nodes, the header (where the row pointer points, so
 * that a row is found from an index node whatever it stores), the stored
 * datums, then one atom per column with an inline slot (a column that
 * holds exactly one key and no value), where the datum keeps its key: no
 * separate allocation for most columns.  Inline columns are never empty, so
 * a sparse row stores them all too, and _uuid and _version are fields[0]
 * and fields[1] in both forms. */
static size_t
row_block_size(const struct ovsdb_table_schema *ts, size_t n_stored,
               bool sparse)
{
    return ((sparse ? sizeof(uint64_t) : 0)
            + ts->n_indexes * sizeof(struct hmap_node)
            + sizeof(struct ovsdb_row) + n_stored * sizeof(struct ovsdb_datum)
            + ts->n_inline * sizeof(union ovsdb_atom));
}

/* The block's start: 'row' less what comes before the header. */
static char *
row_block(const struct ovsdb_row *row)
{
    const struct ovsdb_table_schema *ts = row->table->schema;
    return ((char *) row - ts->n_indexes * sizeof(struct hmap_node)
            - (row->sparse ? sizeof(uint64_t) : 0));
}

/* A sparse row's mask: bit i set if column i is stored. */
static uint64_t
row_mask(const struct ovsdb_row *row)
{
    uint64_t mask;
    memcpy(&mask, row_block(row), sizeof mask);
    return mask;
}

static size_t
row_n_stored(const struct ovsdb_row *row)
{
    return (row->sparse ? (size_t) __builtin_popcountll(row_mask(row))
                        : row->table->schema->n_columns);
}

/* Allocates a row of 'table' with room for 'n_stored' datums and, if
 * 'mask' is nonzero, sparse with that mask.  The datums are not
 * initialized. */
static struct ovsdb_row *
row_alloc(const struct ovsdb_table *table, size_t n_stored, uint64_t mask)
{
    const struct ovsdb_table_schema *ts = table->schema;
    char *block = xmalloc(row_block_size(ts, n_stored, mask != 0));
    size_t before = ts->n_indexes * sizeof(struct hmap_node);
    if (mask) {
        memcpy(block, &mask, sizeof mask);
        before += sizeof mask;
    }
    struct ovsdb_row *row = (struct ovsdb_row *) (void *) (block + before);
    row->table = (struct ovsdb_table *) table;
    row->n_refs = 0;
    row->n_holders = 0;
    row->sparse = mask != 0;
    return row;
}

/* Frees 'row''s block, not what its datums point to. */
static void
row_free(struct ovsdb_row *row)
{
    free(row_block(row));
}

static union ovsdb_atom *
row_slots(const struct ovsdb_row *row)
{
    return (union ovsdb_atom *) (void *) &row->fields[row_n_stored(row)];
}

static union ovsdb_atom *
inline_slot(const struct ovsdb_row *row, const struct ovsdb_column *column)
{
    return &row_slots(row)[column->inline_slot];
}

/* Initializes 'row''s datum for 'column' to the column's default. */
static void
init_default(struct ovsdb_row *row, const struct ovsdb_column *column)
{
    struct ovsdb_datum *d = &row->fields[column->index];
    if (column->inline_slot >= 0 && column->type.n_min == 1) {
        union ovsdb_atom *slot = inline_slot(row, column);
        ovsdb_atom_init_default(slot, column->type.key.type);
        d->n = 1;
        d->keys_inline = true;
        d->is_map = false;
        d->keys = slot;
    } else {
        ovsdb_datum_init_default(d, &column->type);
    }
}

struct ovsdb_row *
ovsdb_row_create(const struct ovsdb_table *table)
{
    const struct ovsdb_table_schema *ts = table->schema;
    struct ovsdb_row *row = row_alloc(table, ts->n_columns, 0);
    for (size_t i = 0; i < ts->n_columns; i++) {
        init_default(row, ts->columns[i]);
    }
    return row;
}

struct ovsdb_row *
ovsdb_row_clone(const struct ovsdb_row *old)
{
    return ovsdb_row_clone_except(old, NULL);
}

struct ovsdb_row *
ovsdb_row_clone_except(const struct ovsdb_row *old,
                       const struct ovsdb_column_set *skip)
{
    const struct ovsdb_table_schema *ts = old->table->schema;
    struct ovsdb_row *row = row_alloc(old->table, ts->n_columns, 0);
    row->n_refs = old->n_refs;
    /* One pass over a sparse row's stored datums, not a lookup each. */
    uint64_t mask = old->sparse ? row_mask(old) : 0;
    for (size_t i = 0, j = 0; i < ts->n_columns; i++) {
        const struct ovsdb_column *column = ts->columns[i];
        const struct ovsdb_datum *src;
        if (!old->sparse) {
            src = &old->fields[i];
        } else if (mask & (UINT64_C(1) << i)) {
            src = &old->fields[j++];
        } else {
            src = &empty_datum;
        }
        if (skip && ovsdb_column_set_contains(skip, i)) {
            init_default(row, column);
        } else if (column->inline_slot >= 0 && src->n == 1) {
            ovsdb_datum_clone_inline(&row->fields[i], src,
                                     inline_slot(row, column),
                                     &column->type);
        } else {
            ovsdb_datum_clone(&row->fields[i], src, &column->type);
        }
    }
    return row;
}

struct ovsdb_row *
ovsdb_row_compact(struct ovsdb_row *row, struct hmap *rows)
{
    const struct ovsdb_table_schema *ts = row->table->schema;
    if (row->sparse || ts->n_columns > 64) {
        return row;
    }
    uint64_t mask = 0;
    size_t n_stored = 0;
    for (size_t i = 0; i < ts->n_columns; i++) {
        if (row->fields[i].n) {
            mask |= UINT64_C(1) << i;
            n_stored++;
        }
    }
    if (n_stored == ts->n_columns) {
        return row;
    }

    /* The datums move: their arrays and strings stay where they are, and
     * an inline datum's key moves with the slots.  (_uuid is never empty,
     * so 'mask' is not 0.) */
    struct ovsdb_row *new = row_alloc(row->table, n_stored, mask);
    new->n_refs = row->n_refs;
    union ovsdb_atom *slots = row_slots(new);
    memcpy(slots, row_slots(row), ts->n_inline * sizeof *slots);
    for (size_t i = 0, j = 0; i < ts->n_columns; i++) {
        const struct ovsdb_column *column = ts->columns[i];
        struct ovsdb_datum *d = &row->fields[i];
        if (!d->n) {
            ovsdb_datum_destroy(d, &column->type);
            continue;
        }
        new->fields[j] = *d;
        if (d->keys_inline) {
            new->fields[j].keys = &slots[column->inline_slot];
        }
        j++;
    }
    if (rows) {
        hmap_replace(rows, &row->hmap_node, &new->hmap_node);
    }
    row_free(row);
    return new;
}

void
ovsdb_row_destroy(struct ovsdb_row *row)
{
    if (row && row->n_holders) {
        row->n_holders--;
    } else if (row) {
        const struct ovsdb_table_schema *ts = row->table->schema;
        uint64_t mask = row->sparse ? row_mask(row) : 0;
        for (size_t i = 0, j = 0; i < ts->n_columns; i++) {
            if (!row->sparse || mask & (UINT64_C(1) << i)) {
                ovsdb_datum_destroy(&row->fields[j++], &ts->columns[i]->type);
            }
        }
        row_free(row);
    }
}

const struct ovsdb_datum *
ovsdb_row_sparse_datum(const struct ovsdb_row *row, size_t i)
{
    uint64_t mask = row_mask(row);
    uint64_t bit = UINT64_C(1) << i;
    return (mask & bit ? &row->fields[__builtin_popcountll(mask & (bit - 1))]
                       : &empty_datum);
}

struct ovsdb_datum *
ovsdb_row_datum_rw(struct ovsdb_row *row, size_t i)
{
    if (row->sparse) {
        ovs_fatal(0, "column %zu of a committed row of table %s written", i,
                  row->table->schema->name);
    }
    return &row->fields[i];
}

struct ovsdb_row *
ovsdb_row_hold(const struct ovsdb_row *row_)
{
    struct ovsdb_row *row = (struct ovsdb_row *) row_;
    row->n_holders++;
    return row;
}

void
ovsdb_row_set_uuid(struct ovsdb_row *row, const struct uuid *uuid)
{
    row->fields[OVSDB_COL_UUID].keys[0].uuid = *uuid;
}

void
ovsdb_row_set_version(struct ovsdb_row *row, const struct uuid *uuid)
{
    row->fields[OVSDB_COL_VERSION].keys[0].uuid = *uuid;
}

struct hmap_node *
ovsdb_row_get_index_node(const struct ovsdb_row *row, size_t i)
{
    const struct ovsdb_table_schema *ts = row->table->schema;
    return (struct hmap_node *) (void *) row - ts->n_indexes + i;
}

struct ovsdb_row *
ovsdb_row_from_index_node(const struct ovsdb_table *table, size_t i,
                          const struct hmap_node *node)
{
    const struct ovsdb_table_schema *ts = table->schema;
    return (struct ovsdb_row *) (void *) (node + (ts->n_indexes - i));
}

uint32_t
ovsdb_row_hash_columns(const struct ovsdb_row *row,
                       const struct ovsdb_column_set *columns,
                       uint32_t basis)
{
    for (size_t i = 0; i < columns->n_columns; i++) {
        const struct ovsdb_column *column = columns->columns[i];
        basis = ovsdb_datum_hash(ovsdb_row_get_datum(row, column),
                                 &column->type, basis);
    }
    return basis;
}

bool
ovsdb_row_equal_columns(const struct ovsdb_row *a, const struct ovsdb_row *b,
                        const struct ovsdb_column_set *columns)
{
    for (size_t i = 0; i < columns->n_columns; i++) {
        const struct ovsdb_column *column = columns->columns[i];
        if (!ovsdb_datum_equals(ovsdb_row_get_datum(a, column),
                                ovsdb_row_get_datum(b, column),
                                &column->type)) {
            return false;
        }
    }
    return true;
}

static struct ovsdb_error *parse_member(struct ovsdb_row *, const json_t *,
                                       const char *name, const json_t *value,
                                       struct ovsdb_symbol_table *,
                                       struct ovsdb_column_set *);

/* Parses the members of 'json' into 'row' in the order the reference
 * visits them (its JSON objects are hash maps), so that a row with several
 * bad columns reports the same one. */
static struct ovsdb_error *
parse_in_reference_order(struct ovsdb_row *row, const json_t *json,
                         struct ovsdb_symbol_table *symtab,
                         struct ovsdb_column_set *columns)
{
    struct member {
        struct hmap_node node;
        const char *name;
        const json_t *value;
    };
    size_t n = json_object_size(json);
    struct member small[8];
    struct member *members = n <= ARRAY_SIZE(small)
                             ? small : xmalloc(n * sizeof *members);
    struct hmap order = HMAP_INITIALIZER(&order);
    const char *key;
    json_t *val;
    size_t i = 0;
    json_object_foreach ((json_t *) json, key, val) {
        members[i].name = key;
        members[i].value = val;
        hmap_insert(&order, &members[i].node, hash_string(key, 0));
        i++;
    }

    struct ovsdb_error *error = NULL;
    const struct member *m;
    HMAP_FOR_EACH (m, node, &order) {
        error = parse_member(row, json, m->name, m->value, symtab, columns);
        if (error) {
            break;
        }
    }
    hmap_destroy(&order);
    if (members != small) {
        free(members);
    }
    return error;
}

struct ovsdb_error *
ovsdb_row_from_json(struct ovsdb_row *row, const json_t *json,
                    struct ovsdb_symbol_table *symtab,
                    struct ovsdb_column_set *columns)
{
    if (!json_is_object(json)) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "row must be JSON "
                                  "object");
    }

    /* Good rows (the common case, once per row of a big insert) need no
     * particular order.  Only a bad one is parsed again in the reference's
     * order, to report the same bad column: the caller then drops the row
     * and the transaction, so what the first pass did does not matter. */
    const char *key;
    json_t *val;
    json_object_foreach ((json_t *) json, key, val) {
        struct ovsdb_error *error = parse_member(row, json, key, val, symtab,
                                                 columns);
        if (error) {
            if (json_object_size(json) == 1) {
                return error;
            }
            ovsdb_error_destroy(error);
            return parse_in_reference_order(row, json, symtab, columns);
        }
    }
    return NULL;
}

static struct ovsdb_error *
parse_member(struct ovsdb_row *row, const json_t *json, const char *name,
             const json_t *value, struct ovsdb_symbol_table *symtab,
             struct ovsdb_column_set *columns)
{
    const struct ovsdb_table_schema *ts = row->table->schema;
    const struct ovsdb_column *column = ovsdb_table_schema_find_column(ts,
                                                                       name);
    if (!column) {
        return ovsdb_syntax_error(json, OVSDB_E_UNKNOWN_COLUMN,
                                  "No column %s in table %s.", name,
                                  ts->name);
    }
    struct ovsdb_datum datum;
    struct ovsdb_error *error = ovsdb_datum_from_json(&datum, &column->type,
                                                      value, symtab);
    if (error) {
        return error;
    }
    ovsdb_datum_move(ovsdb_row_datum_rw(row, column->index), &datum,
                     &column->type);
    if (columns && !ovsdb_column_set_contains(columns, column->index)) {
        ovsdb_column_set_add(columns, column);
    }
    return NULL;
}

json_t *
ovsdb_row_to_json(const struct ovsdb_row *row,
                  const struct ovsdb_column_set *columns)
{
    json_t *json = json_object();
    for (size_t i = 0; i < columns->n_columns; i++) {
        const struct ovsdb_column *column = columns->columns[i];
        json_object_set_new_nocheck(
            json, column->name,
            ovsdb_datum_to_json(ovsdb_row_get_datum(row, column),
                                &column->type));
    }
    return json;
}

size_t
ovsdb_row_memory(const struct ovsdb_row *row)
{
    size_t n_stored = row_n_stored(row);
    size_t size = row_block_size(row->table->schema, n_stored, row->sparse);
    for (size_t i = 0; i < n_stored; i++) {
        const struct ovsdb_datum *d = &row->fields[i];
        if (!d->keys_inline) {
            size += d->n * (d->is_map ? 2 : 1) * sizeof *d->keys;
        }
    }
    return size;
}

size_t
ovsdb_row_n_atoms(const struct ovsdb_row *row)
{
    size_t n = 0;
    size_t n_stored = row_n_stored(row);
    for (size_t j = 0; j < n_stored; j++) {
        const struct ovsdb_datum *d = &row->fields[j];
        n += d->n * (ovsdb_datum_values(d) ? 2 : 1);
    }
    return n;
}
