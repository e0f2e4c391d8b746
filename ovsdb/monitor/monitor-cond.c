/* ovsdb/monitor/monitor-cond.c: the rows a shape's conditions show now.  See
 * monitor.h; the shared struct bodies are in monitor-private.h.
 *
 * Two things look at the current contents of the tables rather than at a
 * commit: the initial contents of a new monitor, and monitor_cond_change,
 * which checks the changed conditions, finds or builds the new shape and
 * writes the update of the rows that enter or leave the client's view.
 * Both find the rows through the condition's indexes when every clause
 * has one, and by a scan of the table otherwise. */
#include <config.h>

#include "ovsdb/monitor/monitor.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/refbuf.h"
#include "ovsdb/engine/condition.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/monitor/monitor-index.h"
#include "ovsdb/monitor/monitor-private.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"

/* Checks one <monitor-cond-change-request> of table 'name'. */
static struct ovsdb_error *
parse_cond_change_request(const char *name, const json_t *req)
{
    if (!json_is_object(req)) {
        /* The reference names no "syntax" here. */
        return ovsdb_error(OVSDB_E_SYNTAX, "Parsing table %s failed: Object "
                           "expected.", name);
    }
    const char *key;
    json_t *value;
    json_object_foreach ((json_t *) req, key, value) {
        if (strcmp(key, "columns") && strcmp(key, "where")) {
            return ovsdb_syntax_error(req, OVSDB_E_SYNTAX, "Parsing table %s "
                                      "failed: Member '%s' is present but "
                                      "not allowed here.", name, key);
        }
        if (!json_is_array(value)) {
            return ovsdb_syntax_error(req, OVSDB_E_SYNTAX, "Parsing table %s "
                                      "failed: Type mismatch for member "
                                      "'%s'.", name, key);
        }
    }
    if (json_object_get(req, "columns")) {
        return ovsdb_syntax_error(req, OVSDB_E_SYNTAX,
                                  "changing columns is unsupported");
    }
    return NULL;
}

struct ovsdb_error *
ovsdb_monitor_change_cond(struct ovsdb_monitor *m, const json_t *changes,
                          struct ovsdb_monitor **newp)
{
    *newp = NULL;
    /* The checks and messages are the reference's, in its order. */
    if (!json_is_object(changes)) {
        return ovsdb_error(OVSDB_E_SYNTAX,
                           "monitor-cond-change-requests must be object");
    }

    json_t *requests = json_deep_copy(m->requests);
    const char *name;
    json_t *change;
    json_object_foreach ((json_t *) changes, name, change) {
        json_t *reqs = json_object_get(requests, name);
        struct ovsdb_error *error = NULL;
        if (!ovsdb_get_table(m->hub->db, name)) {
            error = ovsdb_error(OVSDB_E_SYNTAX, "no table named %s", name);
        } else if (!reqs) {
            error = ovsdb_error(OVSDB_E_SYNTAX,
                                "no table named %s in monitor session", name);
        } else if (!json_is_array(change)) {
            error = ovsdb_error(OVSDB_E_SYNTAX,
                                "table %s no monitor-cond-change JSON array",
                                name);
        }
        /* Each request is checked; the last one's "where" wins. */
        const json_t *last = NULL;
        size_t k;
        const json_t *elem;
        if (!error) {
            json_array_foreach (change, k, elem) {
                error = parse_cond_change_request(name, elem);
                if (error) {
                    break;
                }
                last = elem;
            }
        }
        if (error) {
            json_decref(requests);
            return error;
        }
        if (!last) {
            continue;
        }
        json_t *where = json_object_get(last, "where");
        if (!json_is_array(reqs)) {
            json_t *array = json_array();
            json_array_append(array, reqs);
            json_object_set_new(requests, name, array);
            reqs = array;
        }
        size_t i;
        json_t *req;
        json_array_foreach (reqs, i, req) {
            if (json_is_object(req)) {
                if (where) {
                    json_object_set(req, "where", where);
                } else {
                    json_object_del(req, "where");
                }
            }
        }
    }

    if (m->version == OVSDB_MONITOR_V1) {
        /* As the reference: a "monitor" has no condition, so a change of
         * its "where" is accepted unread and changes nothing. */
        json_decref(requests);
        *newp = ovsdb_monitor_ref(m);
        return NULL;
    }
    struct ovsdb_error *error = monitor_hub_get(m->hub, requests, m->version,
                                                true, newp);
    json_decref(requests);
    return error;
}

/* Candidate rows: the rows an indexed condition may show. */
struct candidates {
    const struct ovsdb_table *table;
    const struct ovsdb_row **rows;
    size_t n, allocated;
};

static void
add_candidate(const struct uuid *uuid, void *cands_)
{
    struct candidates *cands = cands_;
    const struct ovsdb_row *row = ovsdb_table_find_row(cands->table, uuid);
    if (row) {
        if (cands->n >= cands->allocated) {
            cands->rows = x2nrealloc(cands->rows, &cands->allocated,
                                     sizeof *cands->rows);
        }
        cands->rows[cands->n++] = row;
    }
}

static int
compare_pointers(const void *a_, const void *b_)
{
    const void *a = *(const void **) a_, *b = *(const void **) b_;
    return a < b ? -1 : a > b;
}

/* Adds to 'cands' the rows that clause 'i' of 'mt' matches, through its
 * index ("false" matches none). */
static void
add_clause_rows(const struct monitor_table *mt, size_t i,
                struct candidates *cands)
{
    if (mt->clause_index[i]) {
        monitor_index_for_each_row(mt->clause_index[i],
                                   &mt->cond.clauses[i].arg, add_candidate,
                                   cands);
    }
}

/* Sorts 'cands' and removes duplicates (a row that several clauses
 * match). */
static void
unique_candidates(struct candidates *cands)
{
    if (cands->n < 2) {
        return;
    }
    qsort(cands->rows, cands->n, sizeof *cands->rows, compare_pointers);
    size_t n = 1;
    for (size_t i = 1; i < cands->n; i++) {
        if (cands->rows[i] != cands->rows[n - 1]) {
            cands->rows[n++] = cands->rows[i];
        }
    }
    cands->n = n;
}

/* Appends the "initial" (v1: "new") row update of 'row' as a member of
 * 'out', preceded by a comma unless 'out' ends at 'start'. */
static void
put_initial_row_text(struct ds *out, size_t start,
                     const struct ovsdb_monitor *m,
                     const struct monitor_table *mt,
                     const struct ovsdb_row *row)
{
    if (out->length > start) {
        ds_put_char(out, ',');
    }
    monitor_put_uuid_member(out, ovsdb_row_get_uuid(row));
    bool v1 = m->version == OVSDB_MONITOR_V1;
    ds_put_cstr(out, v1 ? "{\"new\":" : "{\"initial\":");
    monitor_put_row_text(out, mt, NULL, row, SEL_INITIAL, !v1);
    ds_put_char(out, '}');
}

static void
put_initial_text(struct ds *out, const struct ovsdb_monitor *m)
{
    ds_put_char(out, '{');
    for (size_t i = 0; i < m->n_tables; i++) {
        const struct monitor_table *mt = m->tables[i];
        if (!mt || !mt->initial) {
            continue;
        }
        size_t table_start = out->length;
        if (table_start > 1) {
            ds_put_char(out, ',');
        }
        monitor_put_member_name(out, mt->table->schema->name);
        ds_put_char(out, '{');
        size_t rows_start = out->length;
        if (mt->indexed) {
            struct candidates cands = { .table = mt->table };
            for (size_t k = 0; k < mt->cond.n_clauses; k++) {
                add_clause_rows(mt, k, &cands);
            }
            unique_candidates(&cands);
            for (size_t k = 0; k < cands.n; k++) {
                put_initial_row_text(out, rows_start, m, mt, cands.rows[k]);
            }
            free(cands.rows);
        } else {
            const struct ovsdb_row *row;
            OVSDB_TABLE_FOR_EACH_ROW (row, mt->table) {
                if (monitor_row_matches(mt, row)) {
                    put_initial_row_text(out, rows_start, m, mt, row);
                }
            }
        }
        if (out->length == rows_start) {
            ds_truncate(out, table_start); /* No rows: no member. */
        } else {
            ds_put_char(out, '}');
        }
    }
    ds_put_char(out, '}');
}

struct refbuf *
ovsdb_monitor_get_initial_text(struct ovsdb_monitor *m)
{
    if (m->initial_text) {
        if (m->initial_stamp == m->hub->commit_serial) {
            return refbuf_ref(m->initial_text);
        }
        refbuf_set_weak(m->initial_text, NULL);
        m->initial_text = NULL;
    }
    struct ds text = DS_EMPTY_INITIALIZER;
    put_initial_text(&text, m);
    struct refbuf *b = refbuf_from_ds(&text);
    m->initial_text = b;
    m->initial_stamp = m->hub->commit_serial;
    refbuf_set_weak(b, &m->initial_text);
    return b;
}

static bool
clauses_equal(const struct ovsdb_clause *a, const struct ovsdb_clause *b)
{
    return (a->function == b->function && a->column == b->column
            && (!a->column || ovsdb_datum_equals(&a->arg, &b->arg,
                                                 &a->type)));
}

static bool
cond_has_clause(const struct ovsdb_condition *cond,
                const struct ovsdb_clause *c)
{
    for (size_t i = 0; i < cond->n_clauses; i++) {
        if (clauses_equal(&cond->clauses[i], c)) {
            return true;
        }
    }
    return false;
}

/* Condition changes.
 *
 * The update a condition change causes is written straight to JSON text,
 * without a json_t tree: a client that adds a chassis to its condition
 * may bring in hundreds of rows, and a thousand clients do that at once.
 * The text is what jsonx_put() would print of the tree: objects' members
 * in strcmp() order (tables by name, rows by UUID, columns by name). */

/* A row that may enter or leave the client's view. */
struct cc_row {
    struct uuid uuid;
    const struct ovsdb_row *row;
};

struct cc_rows {
    const struct ovsdb_table *table;
    struct cc_row *rows;
    size_t n, allocated;
};

static void
cc_add(struct cc_rows *cc, const struct uuid *uuid,
       const struct ovsdb_row *row)
{
    if (cc->n >= cc->allocated) {
        cc->rows = x2nrealloc(cc->rows, &cc->allocated, sizeof *cc->rows);
    }
    cc->rows[cc->n++] = (struct cc_row){ *uuid, row };
}

static void
cc_add_indexed(const struct uuid *uuid, void *cc_)
{
    struct cc_rows *cc = cc_;
    const struct ovsdb_row *row = ovsdb_table_find_row(cc->table, uuid);
    if (row) {
        cc_add(cc, uuid, row);
    }
}

/* UUID order is the order of their strings (fixed-width lowercase hex of
 * the parts, most significant first). */
static int
compare_cc_rows(const void *a_, const void *b_)
{
    const struct cc_row *a = a_, *b = b_;
    return uuid_compare_3way(&a->uuid, &b->uuid);
}

/* Sorts 'cc' by UUID and removes duplicates (a row that several clauses
 * match). */
static void
cc_sort_unique(struct cc_rows *cc)
{
    if (cc->n < 2) {
        return;
    }
    qsort(cc->rows, cc->n, sizeof *cc->rows, compare_cc_rows);
    size_t n = 1;
    for (size_t i = 1; i < cc->n; i++) {
        if (cc->rows[i].row != cc->rows[n - 1].row) {
            cc->rows[n++] = cc->rows[i];
        }
    }
    cc->n = n;
}

/* Adds to 'cc' the rows that the clauses of 'mt' that 'other' lacks
 * match.  Returns false if one of those clauses has no index (then only a
 * scan finds them). */
static bool
add_differing_rows(const struct monitor_table *mt,
                   const struct monitor_table *other, struct cc_rows *cc)
{
    for (size_t i = 0; i < mt->cond.n_clauses; i++) {
        const struct ovsdb_clause *c = &mt->cond.clauses[i];
        if (cond_has_clause(&other->cond, c)) {
            continue;
        }
        if (c->function == OVSDB_F_FALSE) {
            continue;
        }
        if (!mt->clause_index || !mt->clause_index[i]) {
            return false;
        }
        monitor_index_for_each_row(mt->clause_index[i], &c->arg,
                                   cc_add_indexed, cc);
    }
    return true;
}

/* Fills 'order' with the indexes of 'mt''s columns sorted by name. */
static void
sort_columns(const struct monitor_table *mt, size_t *order)
{
    for (size_t i = 0; i < mt->n_columns; i++) {
        size_t j = i;
        while (j > 0
               && strcmp(mt->columns[order[j - 1]]->name, mt->columns[i]->name)
                      > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

/* The text of one table's part of a condition change's update. */
struct cc_writer {
    struct ds *out;
    const struct ovsdb_monitor *old, *new;
    const struct monitor_table *omt, *nmt;
    size_t *oorder, *norder; /* From sort_columns(), NULL until needed. */
    size_t n_rows;           /* Row updates written so far. */
};

static void
cc_put_uuid_key(struct cc_writer *w, const struct uuid *uuid)
{
    if (w->n_rows++) {
        ds_put_char(w->out, ',');
    }
    char *p = ds_put_uninit(w->out, UUID_LEN + 3);
    p[0] = '"';
    uuid_to_string(uuid, p + 1);
    p[UUID_LEN + 1] = '"';
    p[UUID_LEN + 2] = ':';
}

/* Writes the row update that 'row' causes, if it enters or leaves, as a
 * commit's would be written: entering rows inserted with the new shape's
 * columns, leaving rows deleted in the old shape's terms. */
static void
cc_put_row(struct cc_writer *w, const struct cc_row *r)
{
    bool was = monitor_row_matches(w->omt, r->row);
    bool is = monitor_row_matches(w->nmt, r->row);
    if (was == is) {
        return;
    }
    const struct monitor_table *mt = is ? w->nmt : w->omt;
    bool v1 = (is ? w->new : w->old)->version == OVSDB_MONITOR_V1;
    if (is ? !mt->insert : !mt->delete) {
        return;
    }
    size_t **orderp = is ? &w->norder : &w->oorder;
    if (!*orderp && (is || v1)) {
        *orderp = xmalloc(MAX(mt->n_columns, 1) * sizeof **orderp);
        sort_columns(mt, *orderp);
    }

    cc_put_uuid_key(w, &r->uuid);
    if (is) {
        ds_put_cstr(w->out, v1 ? "{\"new\":" : "{\"insert\":");
        monitor_put_row_text(w->out, mt, *orderp, r->row, SEL_INSERT, !v1);
        ds_put_char(w->out, '}');
    } else if (v1) {
        ds_put_cstr(w->out, "{\"old\":");
        monitor_put_row_text(w->out, mt, *orderp, r->row, SEL_DELETE, false);
        ds_put_char(w->out, '}');
    } else {
        ds_put_cstr(w->out, "{\"delete\":null}");
    }
}

/* Writes the "TABLE":{...} member for table 'i' after 'sep' (NULL: the
 * first member), if any row enters or leaves.  Returns true if it wrote
 * something. */
static bool
cc_put_table(struct ds *out, const char *sep, const struct ovsdb_monitor *old,
             const struct monitor_table *omt, const struct ovsdb_monitor *new,
             const struct monitor_table *nmt)
{
    /* A row enters or leaves only if it matches a clause that one
     * condition has and the other lacks; with an empty condition (every
     * row) only a scan knows. */
    struct cc_rows cc = { .table = nmt->table };
    bool indexed = (omt->cond.n_clauses && nmt->cond.n_clauses
                    && add_differing_rows(nmt, omt, &cc)
                    && add_differing_rows(omt, nmt, &cc));
    if (!indexed) {
        cc.n = 0;
        const struct ovsdb_row *row;
        OVSDB_TABLE_FOR_EACH_ROW (row, nmt->table) {
            if (monitor_row_matches(omt, row)
                != monitor_row_matches(nmt, row)) {
                cc_add(&cc, ovsdb_row_get_uuid(row), row);
            }
        }
    }
    cc_sort_unique(&cc);

    size_t start = out->length;
    if (sep) {
        ds_put_cstr(out, sep);
    }
    const char *name = nmt->table->schema->name;
    jsonx_put_string(out, name, strlen(name));
    ds_put_cstr(out, ":{");

    struct cc_writer w = {
        .out = out,
        .old = old,
        .new = new,
        .omt = omt,
        .nmt = nmt,
    };
    for (size_t k = 0; k < cc.n; k++) {
        cc_put_row(&w, &cc.rows[k]);
    }
    free(cc.rows);
    free(w.oorder);
    free(w.norder);
    if (!w.n_rows) {
        ds_truncate(out, start);
        return false;
    }
    ds_put_char(out, '}');
    return true;
}

/* A table whose condition changed. */
struct cc_table {
    const struct monitor_table *omt, *nmt;
};

static int
compare_cc_tables(const void *a_, const void *b_)
{
    const struct cc_table *a = a_, *b = b_;
    return strcmp(a->nmt->table->schema->name, b->nmt->table->schema->name);
}

bool
ovsdb_monitor_put_cond_change(struct ds *out, const struct ovsdb_monitor *old,
                              const struct ovsdb_monitor *new)
{
    /* The tables whose condition changed, by name. */
    struct cc_table *tables = xmalloc(MAX(new->n_tables, 1) * sizeof *tables);
    size_t n = 0;
    for (size_t i = 0; i < new->n_tables; i++) {
        const struct monitor_table *omt = old->tables[i];
        const struct monitor_table *nmt = new->tables[i];
        if (omt && nmt && !ovsdb_condition_equals(&omt->cond, &nmt->cond)) {
            tables[n++] = (struct cc_table){ omt, nmt };
        }
    }
    qsort(tables, n, sizeof *tables, compare_cc_tables);

    size_t start = out->length;
    bool any = false;
    for (size_t k = 0; k < n; k++) {
        any |= cc_put_table(out, any ? "," : "{", old, tables[k].omt, new,
                            tables[k].nmt);
    }
    free(tables);
    if (any) {
        ds_put_char(out, '}');
    } else {
        ds_truncate(out, start);
    }
    return any;
}
