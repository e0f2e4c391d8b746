/* ovsdb/engine/txn.c: see txn.h.
 *
 * While a transaction is open, each table's 'rows' holds the transaction's
 * view: inserted rows are added, deleted rows removed, and modified rows
 * replaced by private clones.  Every touched row has a 'struct
 * ovsdb_txn_row' recording its committed version ('old') and its new
 * version ('new').  A txn_row with old == new only tracks a change of the
 * row's strong reference count (n_refs), set up by precommit.  A row does
 * not point to its txn_row (that would cost every stored row 8 bytes):
 * row_txn_row() looks it up in the table's 'txn_rows'. */
#include <config.h>
#include "ovsdb/engine/txn.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/bitmap.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/json-util.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/table.h"

struct ovsdb_txn_row {
    struct hmap_node hmap_node;     /* In txn_table's 'txn_rows'. */
    struct ovsdb_txn_table *txn_table;
    struct ovsdb_row *old;          /* Committed version; NULL if new. */
    struct ovsdb_row *new;          /* NULL if deleted. */
    struct uuid uuid;
    unsigned int n_refs;            /* Strong refs to 'new' after commit. */
    unsigned int prev_n_refs;       /* 'new''s n_refs before (deferred). */
    unsigned long *changed;         /* Changed columns, after precommit. */
};

struct ovsdb_txn_table {
    struct ovsdb_table *table;
    struct hmap txn_rows;           /* By uuid_hash(). */
    bool has_deletes;               /* Scratch for assess_weak_refs(). */
};

struct ovsdb_txn {
    struct ovsdb *db;
    struct ovsdb_txn_table **tables;
    size_t n_tables, allocated_tables;
    struct ovsdb_txn_row **rows;    /* All txn_rows, in creation order. */
    size_t n_rows, allocated_rows;
    struct ds comment;
    /* Its id for monitors (ovsdb_txn_set_id()), or zero. */
    struct uuid id;
};

struct ovsdb_txn *
ovsdb_txn_create(struct ovsdb *db)
{
    ovsdb_refresh_refs(db);
    struct ovsdb_txn *txn = xzalloc(sizeof *txn);
    txn->db = db;
    ds_init(&txn->comment);
    ovsdb_set_txn(db, txn);
    return txn;
}

struct ovsdb *
ovsdb_txn_get_db(const struct ovsdb_txn *txn)
{
    return txn->db;
}

void
ovsdb_txn_set_id(struct ovsdb_txn *txn, const struct uuid *id)
{
    txn->id = *id;
}

const struct uuid *
ovsdb_txn_get_id(const struct ovsdb_txn *txn)
{
    return uuid_is_zero(&txn->id) ? NULL : &txn->id;
}

static struct ovsdb_txn_table *
get_txn_table(struct ovsdb_txn *txn, struct ovsdb_table *table)
{
    if (!table->txn_table) {
        struct ovsdb_txn_table *tt = xmalloc(sizeof *tt);
        tt->table = table;
        hmap_init(&tt->txn_rows);
        tt->has_deletes = false;
        table->txn_table = tt;
        if (txn->n_tables >= txn->allocated_tables) {
            txn->tables = x2nrealloc(txn->tables, &txn->allocated_tables,
                                     sizeof *txn->tables);
        }
        txn->tables[txn->n_tables++] = tt;
    }
    return table->txn_table;
}

static struct ovsdb_txn_row *
find_txn_row(const struct ovsdb_table *table, const struct uuid *uuid)
{
    if (!table->txn_table) {
        return NULL;
    }
    struct ovsdb_txn_row *tr;
    HMAP_FOR_EACH_WITH_HASH (tr, hmap_node, uuid_hash(uuid),
                             &table->txn_table->txn_rows) {
        if (uuid_equals(&tr->uuid, uuid)) {
            return tr;
        }
    }
    return NULL;
}

/* Returns the txn_row whose old or new version is 'row', or NULL if 'row'
 * is not in the table's transaction.  The pointer is compared, not only the
 * UUID: a row inserted and deleted in one transaction leaves a txn_row with
 * the same UUID as a row inserted again after it. */
static struct ovsdb_txn_row *
row_txn_row(const struct ovsdb_row *row)
{
    const struct ovsdb_txn_table *tt = row->table->txn_table;
    if (!tt) {
        return NULL;
    }
    const struct uuid *uuid = ovsdb_row_get_uuid(row);
    struct ovsdb_txn_row *tr;
    HMAP_FOR_EACH_WITH_HASH (tr, hmap_node, uuid_hash(uuid), &tt->txn_rows) {
        if (tr->old == row || tr->new == row) {
            return tr;
        }
    }
    return NULL;
}

static struct ovsdb_txn_row *
create_txn_row(struct ovsdb_txn *txn, struct ovsdb_table *table,
               struct ovsdb_row *old, struct ovsdb_row *new)
{
    struct ovsdb_txn_table *tt = get_txn_table(txn, table);
    struct ovsdb_txn_row *tr = xzalloc(sizeof *tr);
    tr->txn_table = tt;
    tr->old = old;
    tr->new = new;
    tr->uuid = *ovsdb_row_get_uuid(old ? old : new);
    tr->n_refs = old ? old->n_refs : 0;
    tr->changed = NULL;
    hmap_insert(&tt->txn_rows, &tr->hmap_node, uuid_hash(&tr->uuid));
    if (txn->n_rows >= txn->allocated_rows) {
        txn->rows = x2nrealloc(txn->rows, &txn->allocated_rows,
                               sizeof *txn->rows);
    }
    txn->rows[txn->n_rows++] = tr;
    return tr;
}

void
ovsdb_txn_row_insert(struct ovsdb_txn *txn, struct ovsdb_row *row)
{
    struct ovsdb_table *table = row->table;
    struct uuid version;
    uuid_generate(&version);
    ovsdb_row_set_version(row, &version);
    create_txn_row(txn, table, NULL, row);
    hmap_insert(&table->rows, &row->hmap_node,
                uuid_hash(ovsdb_row_get_uuid(row)));
}

struct ovsdb_row *
ovsdb_txn_row_modify(struct ovsdb_txn *txn, const struct ovsdb_row *row)
{
    return ovsdb_txn_row_modify_except(txn, row, NULL);
}

struct ovsdb_row *
ovsdb_txn_row_modify_except(struct ovsdb_txn *txn,
                            const struct ovsdb_row *row_,
                            const struct ovsdb_column_set *overwrite)
{
    struct ovsdb_row *row = (struct ovsdb_row *) row_;
    struct ovsdb_txn_row *tr = row_txn_row(row);
    if (tr && tr->new == row && tr->old != row) {
        return row;
    }

    struct ovsdb_row *new = ovsdb_row_clone_except(row, overwrite);
    hmap_replace(&row->table->rows, &row->hmap_node, &new->hmap_node);
    if (tr) {
        /* A reference-count-only txn_row: now a real modification. */
        tr->new = new;
        new->n_refs = row->n_refs;
    } else {
        create_txn_row(txn, row->table, row, new);
    }
    return new;
}

void
ovsdb_txn_row_delete(struct ovsdb_txn *txn, const struct ovsdb_row *row_)
{
    struct ovsdb_row *row = (struct ovsdb_row *) row_;
    struct ovsdb_txn_row *tr = row_txn_row(row);
    hmap_remove(&row->table->rows, &row->hmap_node);
    if (!tr) {
        tr = create_txn_row(txn, row->table, row, NULL);
    } else {
        if (tr->new && tr->new != tr->old) {
            ovsdb_row_destroy(tr->new);
        }
        tr->new = NULL;
    }
}

bool
ovsdb_txn_row_is_new(const struct ovsdb_row *row)
{
    const struct ovsdb_txn_row *tr = row_txn_row(row);
    return tr && !tr->old;
}

bool
ovsdb_txn_uuid_in_use(const struct ovsdb_table *table,
                      const struct uuid *uuid)
{
    if (ovsdb_table_find_row(table, uuid)) {
        return true;
    }
    const struct ovsdb_txn_row *tr = find_txn_row(table, uuid);
    return tr && tr->old;
}

void
ovsdb_txn_add_comment(struct ovsdb_txn *txn, const char *comment)
{
    if (txn->comment.length) {
        ds_put_char(&txn->comment, '\n');
    }
    ds_put_cstr(&txn->comment, comment);
}

const char *
ovsdb_txn_get_comment(const struct ovsdb_txn *txn)
{
    return txn->comment.length ? txn->comment.string : NULL;
}

/* True if 'tr' changes its row (insert, delete or modify). */
static bool
is_change(const struct ovsdb_txn_row *tr)
{
    return tr->old != tr->new;
}

bool
ovsdb_txn_is_empty(const struct ovsdb_txn *txn)
{
    for (size_t i = 0; i < txn->n_rows; i++) {
        if (is_change(txn->rows[i])) {
            return false;
        }
    }
    return true;
}

/* Precommit. */

static const struct ovsdb_table_schema *
tr_schema(const struct ovsdb_txn_row *tr)
{
    return tr->txn_table->table->schema;
}

static void
determine_changes(struct ovsdb_txn_row *tr)
{
    const struct ovsdb_table_schema *ts = tr_schema(tr);
    free(tr->changed);
    tr->changed = bitmap_allocate(ts->n_columns);
    if (!tr->old || !tr->new) {
        for (size_t i = 0; i < ts->n_columns; i++) {
            bitmap_set1(tr->changed, i);
        }
        return;
    }
    if (tr->old == tr->new) {
        return;
    }

    bool any = false;
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns; i++) {
        if (!ovsdb_datum_equals(ovsdb_row_datum(tr->old, i),
                                ovsdb_row_datum(tr->new, i),
                                &ts->columns[i]->type)) {
            bitmap_set1(tr->changed, i);
            any = true;
        }
    }
    if (!any) {
        /* A no-op modification: put the committed row back. */
        struct ovsdb_table *table = tr->txn_table->table;
        hmap_replace(&table->rows, &tr->new->hmap_node, &tr->old->hmap_node);
        ovsdb_row_destroy(tr->new);
        tr->new = tr->old;
    }
}

/* Adds 'delta' to the reference count of the row with 'uuid' in 'table'. */
static struct ovsdb_error *
adjust_ref(struct ovsdb_txn *txn, struct ovsdb_table *table,
           const struct uuid *uuid, int delta, const struct ovsdb_txn_row *src,
           const struct ovsdb_column *column)
{
    struct ovsdb_txn_row *tr = find_txn_row(table, uuid);
    if (!tr || (delta > 0 && !tr->new)) {
        const struct ovsdb_row *row = ovsdb_table_find_row(table, uuid);
        if (!row) {
            if (delta < 0) {
                return NULL;
            }
            return ovsdb_error(OVSDB_E_REFINT, "Table %s column %s row "
                               UUID_FMT" references nonexistent row "
                               UUID_FMT" in table %s.", tr_schema(src)->name,
                               column->name, UUID_ARGS(&src->uuid),
                               UUID_ARGS(uuid), table->schema->name);
        }
        tr = create_txn_row(txn, table, (struct ovsdb_row *) row,
                            (struct ovsdb_row *) row);
    }
    tr->n_refs += delta;
    return NULL;
}

static struct ovsdb_error *
adjust_atom_refs(struct ovsdb_txn *txn, const struct ovsdb_txn_row *src,
                 const struct ovsdb_column *column,
                 const struct ovsdb_base_type *base,
                 const union ovsdb_atom *atoms, unsigned int n, int delta)
{
    if (!ovsdb_base_type_is_strong_ref(base) || !atoms) {
        return NULL;
    }
    struct ovsdb_table *dst = ovsdb_get_table_by_index(
        txn->db, base->uuid.ref_table->index);
    for (unsigned int i = 0; i < n; i++) {
        if (uuid_equals(&atoms[i].uuid, &src->uuid)) {
            continue;           /* Self-references do not count. */
        }
        struct ovsdb_error *error = adjust_ref(txn, dst, &atoms[i].uuid,
                                               delta, src, column);
        if (error) {
            return error;
        }
    }
    return NULL;
}

static struct ovsdb_error *
adjust_row_refs(struct ovsdb_txn *txn, const struct ovsdb_txn_row *src,
                const struct ovsdb_row *row, int delta)
{
    const struct ovsdb_table_schema *ts = tr_schema(src);
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns; i++) {
        const struct ovsdb_column *column = ts->columns[i];
        const struct ovsdb_datum *d = ovsdb_row_datum(row, i);
        struct ovsdb_error *error;
        error = adjust_atom_refs(txn, src, column, &column->type.key,
                                 d->keys, d->n, delta);
        if (!error) {
            error = adjust_atom_refs(txn, src, column, &column->type.value,
                                     ovsdb_datum_values(d), d->n, delta);
        }
        if (error) {
            return error;
        }
    }
    return NULL;
}

static struct ovsdb_error *
update_ref_counts(struct ovsdb_txn *txn)
{
    /* Rows created below are ref-only, so they need no processing here. */
    size_t n = txn->n_rows;
    for (size_t i = 0; i < n; i++) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        if (!is_change(tr)) {
            continue;
        }
        struct ovsdb_error *error = NULL;
        if (tr->old) {
            error = adjust_row_refs(txn, tr, tr->old, -1);
        }
        if (!error && tr->new) {
            error = adjust_row_refs(txn, tr, tr->new, 1);
        }
        if (error) {
            return error;
        }
    }
    for (size_t i = 0; i < txn->n_rows; i++) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        if (tr->old && !tr->new && tr->n_refs) {
            return ovsdb_error(OVSDB_E_REFINT, "cannot delete %s row "
                               UUID_FMT" because of %u remaining "
                               "reference(s)", tr_schema(tr)->name,
                               UUID_ARGS(&tr->uuid), tr->n_refs);
        }
    }
    return NULL;
}

static void
collect_garbage(struct ovsdb_txn *txn)
{
    bool again;
    do {
        again = false;
        for (size_t i = 0; i < txn->n_rows; i++) {
            struct ovsdb_txn_row *tr = txn->rows[i];
            if (tr->new && !tr_schema(tr)->is_root && !tr->n_refs) {
                struct ovsdb_error *error;
                error = adjust_row_refs(txn, tr, tr->new, -1);
                ovsdb_error_destroy(error);   /* Decrements never fail. */
                ovsdb_txn_row_delete(txn, tr->new);
                determine_changes(tr);
                again = true;
            }
        }
    } while (again);
}

static struct ovsdb_error *
check_max_rows(const struct ovsdb_txn *txn)
{
    for (size_t i = 0; i < txn->n_tables; i++) {
        const struct ovsdb_table *table = txn->tables[i]->table;
        size_t n = hmap_count(&table->rows);
        if (n > table->schema->max_rows) {
            return ovsdb_error(OVSDB_E_CONSTRAINT, "transaction causes \"%s\" "
                               "table to contain %zu rows, greater than the "
                               "schema-defined limit of %u row(s)",
                               table->schema->name, n,
                               table->schema->max_rows);
        }
    }
    return NULL;
}

/* Removes from 'd' the elements whose key or value is a weak reference to a
 * row that does not exist.  Returns the number removed.  If 'dry_run', only
 * counts (at most 1) and leaves 'd' alone. */
static unsigned int
remove_dangling_weak_refs(const struct ovsdb_txn *txn,
                          struct ovsdb_datum *d,
                          const struct ovsdb_type *type, bool *had_zero,
                          bool dry_run)
{
    const struct ovsdb_base_type *bases[2] = { &type->key, &type->value };
    unsigned int n_removed = 0;
    for (int b = 0; b < 2; b++) {
        const struct ovsdb_base_type *base = bases[b];
        if (!ovsdb_base_type_is_weak_ref(base)) {
            continue;
        }
        const struct ovsdb_table *dst = ovsdb_get_table_by_index(
            txn->db, base->uuid.ref_table->index);
        for (unsigned int i = 0; i < d->n; ) {
            const union ovsdb_atom *atom = b ? &ovsdb_datum_values(d)[i]
                                             : &d->keys[i];
            if (!ovsdb_table_find_row(dst, &atom->uuid)) {
                if (dry_run) {
                    return 1;
                }
                if (had_zero && uuid_is_zero(&atom->uuid)) {
                    *had_zero = true;
                }
                ovsdb_datum_remove(d, i, type);
                n_removed++;
            } else {
                i++;
            }
        }
    }
    return n_removed;
}

static bool
column_has_weak_refs(const struct ovsdb_column *column)
{
    return (ovsdb_base_type_is_weak_ref(&column->type.key)
            || ovsdb_base_type_is_weak_ref(&column->type.value));
}

static struct ovsdb_error *
fix_weak_refs(struct ovsdb_txn *txn, struct ovsdb_txn_row *tr)
{
    const struct ovsdb_table_schema *ts = tr_schema(tr);
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns; i++) {
        const struct ovsdb_column *column = ts->columns[i];
        if (!column_has_weak_refs(column)) {
            continue;
        }
        bool had_zero = false;
        unsigned int n = remove_dangling_weak_refs(txn,
                                                   ovsdb_row_datum_rw(tr->new,
                                                                      i),
                                                   &column->type, &had_zero,
                                                   false);
        if (!n) {
            continue;
        }
        bitmap_set1(tr->changed, i);
        if (ovsdb_row_datum(tr->new, i)->n < column->type.n_min) {
            if (!tr->old && had_zero) {
                return ovsdb_error(OVSDB_E_CONSTRAINT, "Weak reference "
                                   "column \"%s\" in \"%s\" row "UUID_FMT" "
                                   "(inserted within this transaction) "
                                   "contained all-zeros UUID (probably as "
                                   "the default value for this column) but "
                                   "deleting this value caused a constraint "
                                   "volation because this column is not "
                                   "allowed to be empty.", column->name,
                                   ts->name, UUID_ARGS(&tr->uuid));
            }
            return ovsdb_error(OVSDB_E_CONSTRAINT, "Deletion of %u weak "
                               "reference(s) to deleted (or never-existing) "
                               "rows from column \"%s\" in \"%s\" row "
                               UUID_FMT" caused this column to become empty, "
                               "but constraints on this column disallow an "
                               "empty column.", n, column->name, ts->name,
                               UUID_ARGS(&tr->uuid));
        }
    }
    return NULL;
}

static struct ovsdb_error *
assess_weak_refs(struct ovsdb_txn *txn)
{
    /* Rows this transaction inserted or modified. */
    size_t n = txn->n_rows;
    for (size_t i = 0; i < n; i++) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        if (tr->new && is_change(tr)) {
            struct ovsdb_error *error = fix_weak_refs(txn, tr);
            if (error) {
                return error;
            }
        }
    }

    /* Unchanged rows that weakly refer to rows deleted by this
     * transaction.  Only tables with weak references into a table with
     * deletions need a scan. */
    for (size_t t = 0; t < txn->n_tables; t++) {
        txn->tables[t]->has_deletes = false;
    }
    bool any_deletes = false;
    for (size_t r = 0; r < txn->n_rows; r++) {
        const struct ovsdb_txn_row *tr = txn->rows[r];
        if (tr->old && !tr->new) {
            tr->txn_table->has_deletes = any_deletes = true;
        }
    }
    const struct ovsdb_schema *schema = ovsdb_get_schema(txn->db);
    for (size_t t = 0; any_deletes && t < schema->n_tables; t++) {
        struct ovsdb_table *table = ovsdb_get_table_by_index(txn->db, t);
        const struct ovsdb_table_schema *ts = table->schema;
        bool relevant = false;
        for (size_t c = OVSDB_N_STD_COLUMNS; c < ts->n_columns; c++) {
            const struct ovsdb_column *column = ts->columns[c];
            const struct ovsdb_base_type *bases[2] = { &column->type.key,
                                                       &column->type.value };
            for (int b = 0; b < 2; b++) {
                if (ovsdb_base_type_is_weak_ref(bases[b])) {
                    const struct ovsdb_table *dst = ovsdb_get_table_by_index(
                        txn->db, bases[b]->uuid.ref_table->index);
                    relevant |= (dst->txn_table
                                 && dst->txn_table->has_deletes);
                }
            }
        }
        if (!relevant) {
            continue;
        }

        const struct ovsdb_row **victims = NULL;
        size_t n_victims = 0, allocated = 0;
        const struct ovsdb_row *row;
        OVSDB_TABLE_FOR_EACH_ROW (row, table) {
            const struct ovsdb_txn_row *tr = row_txn_row(row);
            if (tr && is_change(tr)) {
                continue;
            }
            for (size_t c = OVSDB_N_STD_COLUMNS; c < ts->n_columns; c++) {
                if (column_has_weak_refs(ts->columns[c])
                    && remove_dangling_weak_refs(
                        txn, (struct ovsdb_datum *) ovsdb_row_datum(row, c),
                        &ts->columns[c]->type, NULL, true)) {
                    if (n_victims >= allocated) {
                        victims = x2nrealloc(victims, &allocated,
                                             sizeof *victims);
                    }
                    victims[n_victims++] = row;
                    break;
                }
            }
        }
        for (size_t v = 0; v < n_victims; v++) {
            struct ovsdb_row *new = ovsdb_txn_row_modify(txn, victims[v]);
            struct ovsdb_txn_row *tr = row_txn_row(new);
            free(tr->changed);
            tr->changed = bitmap_allocate(ts->n_columns);
            struct ovsdb_error *error = fix_weak_refs(txn, tr);
            if (error) {
                free(victims);
                return error;
            }
        }
        free(victims);
    }
    return NULL;
}

static void
describe_index_row(struct ds *s, const struct ovsdb_table *table, size_t idx,
                   const struct ovsdb_row *row)
{
    const struct ovsdb_txn_row *tr = row_txn_row(row);
    ds_put_format(s, "with UUID "UUID_FMT", ",
                  UUID_ARGS(ovsdb_row_get_uuid(row)));
    if (!tr || tr->old == tr->new) {
        ds_put_cstr(s, "existed in the database before this transaction and "
                    "was not modified by the transaction.");
    } else if (!tr->old) {
        ds_put_cstr(s, "was inserted by this transaction.");
    } else {
        const struct ovsdb_index_schema *is = &table->schema->indexes[idx];
        ds_put_cstr(s, "had the following index values before the "
                    "transaction: ");
        for (size_t j = 0; j < is->n_columns; j++) {
            const struct ovsdb_column *column = is->columns[j];
            if (j) {
                ds_put_cstr(s, ", ");
            }
            ovsdb_datum_to_string(ovsdb_row_get_datum(tr->old, column),
                                  &column->type, s);
        }
        ds_put_char(s, '.');
    }
}

/* Compares rows 'a' and 'b' of 'table' column by column in name order,
 * leaving out columns of uuids, whose random values would make the order
 * random: the order the reference names two conflicting rows in. */
static int
compare_rows_by_columns(const struct ovsdb_table *table,
                        const struct ovsdb_row *a, const struct ovsdb_row *b)
{
    size_t n = table->schema->n_columns;
    const struct ovsdb_column **columns = xmemdup(table->schema->columns,
                                                  n * sizeof *columns);
    qsort(columns, n, sizeof *columns, ovsdb_column_compare_by_name);
    int cmp = 0;
    for (size_t i = 0; i < n && !cmp; i++) {
        const struct ovsdb_column *c = columns[i];
        if (c->type.key.type != OVSDB_TYPE_UUID
            && c->type.value.type != OVSDB_TYPE_UUID) {
            cmp = ovsdb_datum_compare_3way(ovsdb_row_get_datum(a, c),
                                           ovsdb_row_get_datum(b, c),
                                           &c->type);
        }
    }
    free(columns);
    return cmp;
}

/* The error for rows 'a' (the one found first: already in the index, or
 * earlier in the transaction) and 'b' with equal values for index 'idx'. */
static struct ovsdb_error *
index_conflict(const struct ovsdb_table *table, size_t idx,
               const struct ovsdb_row *a, const struct ovsdb_row *b)
{
    if (compare_rows_by_columns(table, a, b) < 0) {
        const struct ovsdb_row *tmp = a;
        a = b;
        b = tmp;
    }
    const struct ovsdb_index_schema *is = &table->schema->indexes[idx];
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "Transaction causes multiple rows in \"%s\" table to "
                  "have identical values (", table->schema->name);
    for (size_t j = 0; j < is->n_columns; j++) {
        const struct ovsdb_column *column = is->columns[j];
        if (j) {
            ds_put_cstr(&s, ", ");
        }
        ovsdb_datum_to_string(ovsdb_row_get_datum(a, column), &column->type,
                              &s);
    }
    ds_put_format(&s, ") for index on column%s ",
                  is->n_columns > 1 ? "s" : "");
    for (size_t j = 0; j < is->n_columns; j++) {
        if (j) {
            ds_put_cstr(&s, ", ");
        }
        ds_put_format(&s, "\"%s\"", is->columns[j]->name);
    }
    ds_put_cstr(&s, ".  First row, ");
    describe_index_row(&s, table, idx, a);
    ds_put_cstr(&s, "  Second row, ");
    describe_index_row(&s, table, idx, b);
    struct ovsdb_error *error = ovsdb_error(OVSDB_E_CONSTRAINT, "%s",
                                            ds_cstr(&s));
    ds_destroy(&s);
    return error;
}

struct index_entry {
    struct hmap_node node;
    const struct ovsdb_row *row;
};

static struct ovsdb_error *
check_indexes(struct ovsdb_txn *txn)
{
    struct ovsdb_error *error = NULL;
    for (size_t t = 0; t < txn->n_tables && !error; t++) {
        struct ovsdb_txn_table *tt = txn->tables[t];
        const struct ovsdb_table *table = tt->table;
        for (size_t idx = 0; idx < table->schema->n_indexes && !error;
             idx++) {
            struct hmap seen = HMAP_INITIALIZER(&seen);
            struct index_entry *entries = xmalloc(
                (hmap_count(&tt->txn_rows) + 1) * sizeof *entries);
            size_t n_entries = 0;
            struct ovsdb_txn_row *tr;
            HMAP_FOR_EACH (tr, hmap_node, &tt->txn_rows) {
                if (!tr->new || !is_change(tr)) {
                    continue;
                }
                const struct ovsdb_row *row = tr->new;
                uint32_t hash = ovsdb_table_index_hash(table, idx, row);

                struct index_entry *e;
                HMAP_FOR_EACH_WITH_HASH (e, node, hash, &seen) {
                    if (ovsdb_table_index_equal(table, idx, e->row, row)) {
                        error = index_conflict(table, idx, e->row, row);
                        break;
                    }
                }
                if (error) {
                    break;
                }

                struct hmap_node *node;
                for (node = hmap_first_with_hash(&table->indexes[idx], hash);
                     node; node = hmap_next_with_hash(node)) {
                    const struct ovsdb_row *r = ovsdb_row_from_index_node(
                        table, idx, node);
                    const struct ovsdb_txn_row *r_tr = row_txn_row(r);
                    if ((!r_tr || !is_change(r_tr))
                        && ovsdb_table_index_equal(table, idx, r, row)) {
                        error = index_conflict(table, idx, r, row);
                        break;
                    }
                }
                if (error) {
                    break;
                }

                e = &entries[n_entries++];
                e->row = row;
                hmap_insert(&seen, &e->node, hash);
            }
            hmap_destroy(&seen);
            free(entries);
        }
    }
    return error;
}

static void
update_versions(struct ovsdb_txn *txn)
{
    for (size_t i = 0; i < txn->n_rows; i++) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        if (tr->old && tr->new && is_change(tr)) {
            struct uuid version;
            uuid_generate(&version);
            ovsdb_row_set_version(tr->new, &version);
            bitmap_set1(tr->changed, OVSDB_COL_VERSION);
        }
    }
}

struct ovsdb_error *
ovsdb_txn_precommit(struct ovsdb_txn *txn)
{
    for (size_t i = 0; i < txn->n_rows; i++) {
        determine_changes(txn->rows[i]);
    }

    struct ovsdb_error *error = update_ref_counts(txn);
    if (error) {
        return error;
    }
    collect_garbage(txn);
    error = check_max_rows(txn);
    if (!error) {
        error = assess_weak_refs(txn);
    }
    if (!error) {
        error = check_indexes(txn);
    }
    if (!error) {
        update_versions(txn);
    }
    return error;
}

size_t
ovsdb_txn_get_n_tables(const struct ovsdb_txn *txn)
{
    return txn->n_tables;
}

const struct ovsdb_table *
ovsdb_txn_get_table(const struct ovsdb_txn *txn, size_t i)
{
    return txn->tables[i]->table;
}

void
ovsdb_txn_for_each_change_in_table(const struct ovsdb_txn *txn, size_t i,
                                   ovsdb_txn_change_cb *cb, void *aux)
{
    const struct ovsdb_txn_table *tt = txn->tables[i];
    const struct ovsdb_txn_row *tr;
    HMAP_FOR_EACH (tr, hmap_node, &tt->txn_rows) {
        if (is_change(tr) && tr->changed) {
            if (!cb(tt->table, tr->old, tr->new, tr->changed, aux)) {
                return;
            }
        }
    }
}

void
ovsdb_txn_for_each_change(const struct ovsdb_txn *txn,
                          ovsdb_txn_change_cb *cb, void *aux)
{
    for (size_t i = 0; i < txn->n_rows; i++) {
        const struct ovsdb_txn_row *tr = txn->rows[i];
        if (is_change(tr) && tr->changed) {
            if (!cb(tr->txn_table->table, tr->old, tr->new, tr->changed,
                    aux)) {
                return;
            }
        }
    }
}

static void
txn_destroy(struct ovsdb_txn *txn)
{
    for (size_t i = 0; i < txn->n_rows; i++) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        free(tr->changed);
        free(tr);
    }
    free(txn->rows);
    for (size_t t = 0; t < txn->n_tables; t++) {
        struct ovsdb_txn_table *tt = txn->tables[t];
        if (tt->table->txn_table == tt) {
            tt->table->txn_table = NULL;
        }
        hmap_destroy(&tt->txn_rows);
        free(tt);
    }
    free(txn->tables);
    ds_destroy(&txn->comment);
    if (ovsdb_get_txn(txn->db) == txn) {
        ovsdb_set_txn(txn->db, NULL);
    }
    free(txn);
}

/* Makes the transaction's new rows sparse, puts them into the indexes and
 * its reference counts into the rows. */
static void
apply_to_indexes(struct ovsdb_txn *txn)
{
    for (size_t i = 0; i < txn->n_rows; i++) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        struct ovsdb_table *table = tr->txn_table->table;
        if (is_change(tr)) {
            if (tr->old) {
                ovsdb_table_index_remove(table, tr->old);
            }
            if (tr->new) {
                /* Nothing else points to a new version yet: the monitors
                 * see it after this, the table's 'rows' is re-linked. */
                tr->new = ovsdb_row_compact(tr->new, &table->rows);
                ovsdb_table_index_insert(table, tr->new);
            }
        }
        if (tr->new) {
            tr->prev_n_refs = tr->new->n_refs;
            tr->new->n_refs = tr->n_refs;
        }
    }
}

/* Frees the old versions of the changed rows and 'txn'. */
static void
free_old_rows(struct ovsdb_txn *txn)
{
    for (size_t i = 0; i < txn->n_rows; i++) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        if (tr->old && tr->old != tr->new) {
            ovsdb_row_destroy(tr->old);
        }
    }
    txn_destroy(txn);
}

void
ovsdb_txn_commit_defer(struct ovsdb_txn *txn)
{
    apply_to_indexes(txn);
    /* The rows are committed rows now: row_txn_row() no longer finds them
     * (or finds the next transaction's txn_rows). */
    for (size_t t = 0; t < txn->n_tables; t++) {
        txn->tables[t]->table->txn_table = NULL;
    }
    ovsdb_set_txn(txn->db, NULL);
}

void
ovsdb_txn_deferred_finish(struct ovsdb_txn *txn)
{
    ovsdb_notify_commit_observers(txn->db, txn);
    free_old_rows(txn);
}

void
ovsdb_txn_deferred_undo(struct ovsdb_txn *txn)
{
    for (size_t i = txn->n_rows; i-- > 0;) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        struct ovsdb_table *table = tr->txn_table->table;
        if (!is_change(tr)) {
            if (tr->new) {
                tr->new->n_refs = tr->prev_n_refs;
            }
            continue;
        }
        if (tr->new) {
            ovsdb_table_index_remove(table, tr->new);
        }
        if (tr->old) {
            ovsdb_table_index_insert(table, tr->old);
        }
        if (tr->new && tr->old) {
            hmap_replace(&table->rows, &tr->new->hmap_node,
                         &tr->old->hmap_node);
        } else if (tr->new) {
            hmap_remove(&table->rows, &tr->new->hmap_node);
        } else {
            hmap_insert(&table->rows, &tr->old->hmap_node,
                        uuid_hash(&tr->uuid));
        }
        if (tr->new) {
            ovsdb_row_destroy(tr->new);
        }
    }
    txn_destroy(txn);
}

void
ovsdb_txn_commit_finish(struct ovsdb_txn *txn)
{
    apply_to_indexes(txn);
    ovsdb_notify_commit_observers(txn->db, txn);
    free_old_rows(txn);
}

void
ovsdb_txn_abort(struct ovsdb_txn *txn)
{
    if (!txn) {
        return;
    }
    for (size_t i = txn->n_rows; i-- > 0;) {
        struct ovsdb_txn_row *tr = txn->rows[i];
        struct ovsdb_table *table = tr->txn_table->table;
        if (tr->new && tr->new != tr->old) {
            if (tr->old) {
                hmap_replace(&table->rows, &tr->new->hmap_node,
                             &tr->old->hmap_node);
            } else {
                hmap_remove(&table->rows, &tr->new->hmap_node);
            }
            ovsdb_row_destroy(tr->new);
        } else if (!tr->new && tr->old) {
            hmap_insert(&table->rows, &tr->old->hmap_node,
                        uuid_hash(&tr->uuid));
        }
    }
    txn_destroy(txn);
}
