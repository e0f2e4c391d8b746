/* ovsdb/monitor/monitor.c: shared monitor shapes, updates and history.  See
 * monitor.h.
 *
 * This file is the core: the hub, parsing requests into shapes,
 * composing row updates, and the commit observer that sends each
 * shape's update and records the history.  The rows a condition
 * shows now (initial contents, condition changes) are in
 * monitor-cond.c; catching up a subscriber that is behind or a
 * client that reconnects (monitor_cond_since) is in monitor-since.c;
 * the struct bodies they share are in monitor-private.h. */
#include <config.h>

#include "ovsdb/monitor/monitor.h"

#include <string.h>
#include "lib/allocator.h"
#include "lib/bitmap.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/hmap.h"
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
#include "ovsdb/engine/txn.h"

static void hub_commit_cb(struct ovsdb *, const struct ovsdb_txn *, void *);

/* Update bodies at least this big are shared between subscribers
 * (struct ovsdb_monitor_update's 'shared'); smaller ones are cheaper to
 * copy than to queue as a segment of their own. */
#define SHARED_BODY_MIN 8192

/* Hub. */

struct ovsdb_monitor_hub *
ovsdb_monitor_hub_create(struct ovsdb *db)
{
    struct ovsdb_monitor_hub *hub = xzalloc(sizeof *hub);
    hub->db = db;
    hmap_init(&hub->monitors);
    uuid_generate(&hub->last_txn_id);
    hub->next_serial = 1;
    hub->indexes = monitor_index_set_create();
    hub->db_atoms = ovsdb_n_atoms(db); /* Then kept by commits. */
    ovsdb_add_commit_observer(db, hub_commit_cb, hub);
    return hub;
}

static void
history_txn_clear(struct history_txn *ht)
{
    for (size_t i = 0; i < ht->n_changes; i++) {
        ovsdb_row_destroy(ht->changes[i].old);
        ovsdb_row_destroy(ht->changes[i].new);
    }
    free(ht->changes);
    memset(ht, 0, sizeof *ht);
}

static void
history_pop_oldest(struct ovsdb_monitor_hub *hub)
{
    struct history_txn *ht = &hub->history[hub->history_start];
    for (size_t i = 0; i < ht->n_changes; i++) {
        const struct history_change *hc = &ht->changes[i];
        monitor_index_set_trim_history(hub->indexes, hc->table, hc->old,
                                       hc->new, ht->serial);
    }
    hub->history_base = ht->id;
    hub->history_versions -= ht->n_versions;
    hub->history_atoms -= ht->n_atoms;
    history_txn_clear(ht);
    hub->history_start = (hub->history_start + 1) % HISTORY_MAX_TXNS;
    hub->history_n--;
}

static void monitor_free(struct ovsdb_monitor *);

void
ovsdb_monitor_hub_destroy(struct ovsdb_monitor_hub *hub)
{
    if (hub) {
        ovsdb_remove_commit_observer(hub->db, hub_commit_cb, hub);
        while (hub->history_n) {
            history_pop_oldest(hub);
        }
        struct ovsdb_monitor *m;
        HMAP_FOR_EACH_POP (m, node, &hub->monitors) {
            monitor_free(m);
        }
        hmap_destroy(&hub->monitors);
        monitor_index_set_destroy(hub->indexes);
        free(hub);
    }
}

const struct uuid *
ovsdb_monitor_hub_get_last_txn_id(const struct ovsdb_monitor_hub *hub)
{
    return &hub->last_txn_id;
}

void
ovsdb_monitor_hub_set_last_txn_id(struct ovsdb_monitor_hub *hub,
                                  const struct uuid *id)
{
    if (!uuid_is_zero(id)) {
        hub->last_txn_id = *id;
    }
}

size_t
ovsdb_monitor_hub_n_monitors(const struct ovsdb_monitor_hub *hub)
{
    return hmap_count(&hub->monitors);
}

size_t
ovsdb_monitor_hub_n_history(const struct ovsdb_monitor_hub *hub)
{
    return hub->history_n;
}

size_t
ovsdb_monitor_hub_n_db_atoms(const struct ovsdb_monitor_hub *hub)
{
    return hub->db_atoms;
}

size_t
ovsdb_monitor_hub_n_history_atoms(const struct ovsdb_monitor_hub *hub)
{
    return hub->history_atoms;
}

/* Parsing. */

static void
monitor_table_destroy(struct monitor_table *mt, struct monitor_index_set *set,
                      struct ovsdb_monitor *m)
{
    if (mt) {
        for (size_t i = 0; mt->clause_index && i < mt->cond.n_clauses; i++) {
            if (mt->clause_index[i]) {
                monitor_index_unwatch(mt->clause_index[i],
                                      &mt->cond.clauses[i].arg, m);
                monitor_index_unref(set, mt->clause_index[i]);
            }
        }
        free(mt->clause_index);
        free(mt->columns);
        free(mt->column_select);
        free(mt->column_map);
        ovsdb_condition_destroy(&mt->cond);
        free(mt);
    }
}

/* Adds 'column' to 'mt' with 'select' (SEL_*).  Returns false if 'mt'
 * already has it: the reference refuses a column named twice for one table,
 * even in two requests. */
static bool
monitor_table_add_column(struct monitor_table *mt,
                         const struct ovsdb_column *column,
                         unsigned int select)
{
    if (bitmap_is_set(mt->column_map, column->index)) {
        return false;
    }
    bitmap_set1(mt->column_map, column->index);
    mt->columns = xrealloc(mt->columns,
                           (mt->n_columns + 1) * sizeof *mt->columns);
    mt->column_select = xrealloc(mt->column_select,
                                 (mt->n_columns + 1)
                                 * sizeof *mt->column_select);
    mt->columns[mt->n_columns] = column;
    mt->column_select[mt->n_columns] = select;
    mt->n_columns++;
    return true;
}

/* Adds the kinds of change in 'select' (SEL_*) to what 'mt' watches, even
 * for a request with no columns: its rows still show, with none. */
static void
monitor_table_add_select(struct monitor_table *mt, unsigned int select)
{
    mt->initial |= (select & SEL_INITIAL) != 0;
    mt->insert |= (select & SEL_INSERT) != 0;
    mt->delete |= (select & SEL_DELETE) != 0;
    mt->modify |= (select & SEL_MODIFY) != 0;
}

/* Parses 'select' (NULL: all) into '*selectp' (SEL_*). */
static struct ovsdb_error *
parse_select(const struct monitor_table *mt, const json_t *select,
             unsigned int *selectp)
{
    static const char *names[] = {"initial", "insert", "delete", "modify"};
    static const unsigned int flags[] = {SEL_INITIAL, SEL_INSERT, SEL_DELETE,
                                         SEL_MODIFY};

    *selectp = SEL_ALL;
    if (!select) {
        return NULL;
    }
    if (!json_is_object(select)) {
        return ovsdb_syntax_error(select, OVSDB_E_SYNTAX,
                                  "Parsing table %s select failed: "
                                  "Object expected.",
                                  mt->table->schema->name);
    }
    const char *key;
    json_t *value;
    json_object_foreach ((json_t *) select, key, value) {
        size_t i;
        for (i = 0; i < ARRAY_SIZE(names); i++) {
            if (!strcmp(key, names[i])) {
                break;
            }
        }
        if (i >= ARRAY_SIZE(names)) {
            return ovsdb_syntax_error(select, OVSDB_E_SYNTAX,
                                      "Parsing table %s select failed: "
                                      "Member '%s' is present but not "
                                      "allowed here.",
                                      mt->table->schema->name, key);
        }
        if (!json_is_boolean(value)) {
            return ovsdb_syntax_error(select, OVSDB_E_SYNTAX,
                                      "Parsing table %s select failed: "
                                      "Type mismatch for member '%s'.",
                                      mt->table->schema->name, key);
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        json_t *value = json_object_get(select, names[i]);
        if (value && !json_is_true(value)) {
            *selectp &= ~flags[i];
        }
    }
    return NULL;
}

static struct ovsdb_error *
parse_columns(struct monitor_table *mt, const json_t *columns,
              unsigned int select)
{
    const struct ovsdb_table_schema *ts = mt->table->schema;

    if (!columns) {
        for (size_t i = 0; i < ts->n_columns; i++) {
            const struct ovsdb_column *c = ts->columns[i];
            if (c->index != OVSDB_COL_UUID
                && !monitor_table_add_column(mt, c, select)) {
                /* The reference names no "syntax" here. */
                return ovsdb_error(OVSDB_E_SYNTAX,
                                   "column %s mentioned more than once",
                                   c->name);
            }
        }
        return NULL;
    }

    struct ovsdb_error *error = NULL;
    size_t i;
    json_t *name;
    json_array_foreach (columns, i, name) {
        const struct ovsdb_column *column = json_is_string(name)
            ? ovsdb_table_schema_find_column(ts, json_string_value(name))
            : NULL;
        if (!column) {
            error = json_is_string(name)
                ? ovsdb_syntax_error(columns, OVSDB_E_SYNTAX,
                                     "%s is not a valid column name",
                                     json_string_value(name))
                : ovsdb_syntax_error(columns, OVSDB_E_SYNTAX,
                                     "array of column names expected");
            break;
        }
        if (!monitor_table_add_column(mt, column, select)) {
            error = ovsdb_syntax_error(columns, OVSDB_E_SYNTAX,
                                       "column %s mentioned more than once",
                                       column->name);
            break;
        }
    }
    return error;
}

static struct ovsdb_error *
parse_request(struct monitor_table *mt, const json_t *req,
              bool allow_where, bool first)
{
    const char *table_name = mt->table->schema->name;

    if (!json_is_object(req)) {
        return ovsdb_syntax_error(req, OVSDB_E_SYNTAX,
                                  "Parsing table %s failed: Object "
                                  "expected.", table_name);
    }

    const char *key;
    json_t *value;
    json_object_foreach ((json_t *) req, key, value) {
        bool allowed = !strcmp(key, "columns") || !strcmp(key, "select")
                       || (!strcmp(key, "where") && allow_where);
        if (!allowed) {
            return ovsdb_syntax_error(req, OVSDB_E_SYNTAX,
                                      "Parsing table %s failed: Member "
                                      "'%s' is present but not allowed "
                                      "here.", table_name, key);
        }
    }

    const json_t *columns = json_object_get(req, "columns");
    if (columns && !json_is_array(columns)) {
        return ovsdb_syntax_error(req, OVSDB_E_SYNTAX,
                                  "Parsing table %s failed: Type mismatch "
                                  "for member 'columns'.", table_name);
    }
    const json_t *where = json_object_get(req, "where");
    if (where && !json_is_array(where)) {
        return ovsdb_syntax_error(req, OVSDB_E_SYNTAX,
                                  "Parsing table %s failed: Type mismatch "
                                  "for member 'where'.", table_name);
    }

    /* As the reference: "select" is checked before "columns". */
    unsigned int select;
    struct ovsdb_error *error = parse_select(mt, json_object_get(req,
                                                                 "select"),
                                             &select);
    if (!error) {
        monitor_table_add_select(mt, select);
        error = parse_columns(mt, columns, select);
    }
    if (!error && where && first) {
        error = ovsdb_condition_from_json(mt->table->schema, where, NULL,
                                          &mt->cond);
    }
    return error;
}

static struct ovsdb_error *
parse_table(struct ovsdb_monitor *m, const struct ovsdb_table *table,
            const json_t *reqs, bool allow_where)
{
    struct monitor_table *mt = xzalloc(sizeof *mt);
    mt->table = table;
    mt->column_map = bitmap_allocate(table->schema->n_columns);
    ovsdb_condition_init(&mt->cond);
    m->tables[table->schema->index] = mt;

    if (json_is_array(reqs)) {
        size_t i;
        json_t *req;
        json_array_foreach (reqs, i, req) {
            struct ovsdb_error *error = parse_request(mt, req, allow_where,
                                                      i == 0);
            if (error) {
                return error;
            }
        }
        return NULL;
    }
    return parse_request(mt, reqs, allow_where, true);
}

static void
monitor_free(struct ovsdb_monitor *m)
{
    for (size_t i = 0; i < m->n_tables; i++) {
        monitor_table_destroy(m->tables[i], m->hub->indexes, m);
    }
    free(m->tables);
    json_decref(m->requests);
    free(m->subs);
    free(m->pending);
    free(m->key);
    if (m->initial_text) {
        refbuf_set_weak(m->initial_text, NULL);
    }
    free(m);
}

static char *
make_key(const json_t *requests, enum ovsdb_monitor_version version)
{
    char *sorted = jsonx_to_string_sorted(requests);
    char *key = xasprintf("%d%s", (int) version, sorted);
    free(sorted);
    return key;
}

static struct ovsdb_monitor *
hub_find(const struct ovsdb_monitor_hub *hub, const char *key)
{
    struct ovsdb_monitor *m;
    HMAP_FOR_EACH_WITH_HASH (m, node, hash_string(key, 0), &hub->monitors) {
        if (!strcmp(m->key, key)) {
            return m;
        }
    }
    return NULL;
}

/* Adds the history's changes to 'ix', a new index. */
static void
index_history(const struct ovsdb_monitor_hub *hub, struct monitor_index *ix,
              const struct ovsdb_table *table)
{
    for (size_t k = 0; k < hub->history_n; k++) {
        const struct history_txn *ht
            = &hub->history[(hub->history_start + k) % HISTORY_MAX_TXNS];
        for (size_t i = 0; i < ht->n_changes; i++) {
            const struct history_change *hc = &ht->changes[i];
            if (hc->table == table) {
                monitor_index_add_history(ix, hc->old, hc->new, ht->serial,
                                          hc);
            }
        }
    }
}

/* Returns true if clause 'c' can be answered by an index: [column, "==",
 * value], or [column, "includes", one element] (a column of at most one
 * value has it if it equals it; a set through an index by elements).
 * Sets '*elements' for the latter. */
static bool
clause_indexable(const struct ovsdb_clause *c, bool *elements)
{
    *elements = false;
    if (!c->column) {
        return false;
    } else if (c->function == OVSDB_F_EQ) {
        return true;
    } else if (c->function == OVSDB_F_INCLUDES && c->arg.n == 1
               && !ovsdb_type_is_map(&c->column->type)) {
        *elements = c->column->type.n_max > 1;
        return true;
    }
    return false;
}

/* Takes an index for each indexable clause (see clause_indexable()) of
 * 'mt''s condition, and watches the clause's value for 'm'. */
static void
attach_indexes(struct ovsdb_monitor_hub *hub, struct ovsdb_monitor *m,
               struct monitor_table *mt)
{
    const struct ovsdb_condition *cond = &mt->cond;
    if (!cond->n_clauses) {
        return;
    }
    mt->clause_index = xcalloc(cond->n_clauses, sizeof *mt->clause_index);
    mt->indexed = true;
    for (size_t i = 0; i < cond->n_clauses; i++) {
        const struct ovsdb_clause *c = &cond->clauses[i];
        bool elements;
        if (clause_indexable(c, &elements)) {
            bool created;
            mt->clause_index[i] = monitor_index_ref(hub->indexes, mt->table,
                                                    c->column, elements,
                                                    &created);
            if (created && hub->history_on) {
                index_history(hub, mt->clause_index[i], mt->table);
            }
            monitor_index_watch(mt->clause_index[i], &c->arg, m);
        } else if (c->function != OVSDB_F_FALSE) {
            mt->indexed = false;
        }
    }
}

struct ovsdb_error *
monitor_hub_get(struct ovsdb_monitor_hub *hub, const json_t *requests,
                enum ovsdb_monitor_version version, bool allow_where,
                struct ovsdb_monitor **mp)
{
    *mp = NULL;
    if (!json_is_object(requests)) {
        return ovsdb_syntax_error(requests, OVSDB_E_SYNTAX,
                                  "monitor-requests must be object");
    }

    char *key = make_key(requests, version);
    struct ovsdb_monitor *m = hub_find(hub, key);
    if (m) {
        free(key);
        *mp = ovsdb_monitor_ref(m);
        return NULL;
    }

    m = xzalloc(sizeof *m);
    m->hub = hub;
    m->key = key;
    m->version = version;
    m->requests = json_deep_copy(requests);
    m->n_tables = ovsdb_n_tables(hub->db);
    m->tables = xcalloc(m->n_tables, sizeof *m->tables);
    m->n_refs = 1;

    const char *name;
    json_t *reqs;
    json_object_foreach ((json_t *) requests, name, reqs) {
        const struct ovsdb_table *table = ovsdb_get_table(hub->db, name);
        struct ovsdb_error *error;
        if (!table) {
            error = ovsdb_error(OVSDB_E_SYNTAX, "no table named %s", name);
        } else {
            error = parse_table(m, table, reqs, allow_where);
        }
        if (error) {
            monitor_free(m);
            return error;
        }
    }
    m->all_indexed = true;
    for (size_t i = 0; i < m->n_tables; i++) {
        if (m->tables[i]) {
            attach_indexes(hub, m, m->tables[i]);
            m->all_indexed &= m->tables[i]->indexed;
        }
    }
    hmap_insert(&hub->monitors, &m->node, hash_string(key, 0));
    *mp = m;
    return NULL;
}

struct ovsdb_error *
ovsdb_monitor_hub_get(struct ovsdb_monitor_hub *hub, const json_t *requests,
                      enum ovsdb_monitor_version version,
                      struct ovsdb_monitor **mp)
{
    return monitor_hub_get(hub, requests, version, version != OVSDB_MONITOR_V1,
                           mp);
}

struct ovsdb_monitor *
ovsdb_monitor_ref(struct ovsdb_monitor *m)
{
    m->n_refs++;
    return m;
}

void
ovsdb_monitor_unref(struct ovsdb_monitor *m)
{
    if (m && !--m->n_refs) {
        hmap_remove(&m->hub->monitors, &m->node);
        monitor_free(m);
    }
}

enum ovsdb_monitor_version
ovsdb_monitor_get_version(const struct ovsdb_monitor *m)
{
    return m->version;
}

struct ovsdb_monitor_hub *
ovsdb_monitor_get_hub(const struct ovsdb_monitor *m)
{
    return m->hub;
}

void
ovsdb_monitor_subscribe(struct ovsdb_monitor *m, ovsdb_monitor_update_cb *cb,
                        void *aux)
{
    if (m->n_subs >= m->allocated_subs) {
        m->subs = x2nrealloc(m->subs, &m->allocated_subs, sizeof *m->subs);
    }
    m->subs[m->n_subs].cb = cb;
    m->subs[m->n_subs].aux = aux;
    m->n_subs++;
}

void
ovsdb_monitor_unsubscribe(struct ovsdb_monitor *m,
                          ovsdb_monitor_update_cb *cb, void *aux)
{
    for (size_t i = 0; i < m->n_subs; i++) {
        if (m->subs[i].cb == cb && m->subs[i].aux == aux) {
            m->subs[i] = m->subs[--m->n_subs];
            return;
        }
    }
}

/* Composing row updates. */

bool
monitor_row_matches(const struct monitor_table *mt,
                    const struct ovsdb_row *row)
{
    return ovsdb_condition_is_empty(&mt->cond)
           || ovsdb_condition_match_any(row, &mt->cond);
}

static bool
column_changed(const struct ovsdb_column *c, const struct ovsdb_row *old,
               const struct ovsdb_row *new, const unsigned long *changed)
{
    return changed
               ? bitmap_is_set(changed, c->index)
               : !ovsdb_datum_equals(ovsdb_row_get_datum(old, c),
                                     ovsdb_row_get_datum(new, c), &c->type);
}

/* Updates are built as text, without a jansson tree (which costs hundreds
 * of bytes per row: a commit of 500,000 rows, an initial reply of a big
 * table). */

void
monitor_put_member_name(struct ds *out, const char *name)
{
    jsonx_put_string(out, name, strlen(name));
    ds_put_char(out, ':');
}

/* Appends {"column": value...} for the monitored columns of 'row' that
 * select the kind of change 'sel' (SEL_*), in the order of 'order' (from
 * sort_columns(): the order row_to_json() and jsonx_put() give) or, if
 * 'order' is NULL, in the shape's column order; with 'skip_default',
 * leaves out columns at their default value (update2's "initial" and
 * "insert"). */
void
monitor_put_row_text(struct ds *out, const struct monitor_table *mt,
                     const size_t *order, const struct ovsdb_row *row,
                     unsigned int sel, bool skip_default)
{
    bool first = true;
    ds_put_char(out, '{');
    for (size_t k = 0; k < mt->n_columns; k++) {
        size_t i = order ? order[k] : k;
        const struct ovsdb_column *c = mt->columns[i];
        if (!(mt->column_select[i] & sel)) {
            continue;
        }
        const struct ovsdb_datum *d = ovsdb_row_get_datum(row, c);
        if (skip_default && ovsdb_datum_is_default(d, &c->type)) {
            continue;
        }
        if (!first) {
            ds_put_char(out, ',');
        }
        first = false;
        monitor_put_member_name(out, c->name);
        ovsdb_datum_put_json(out, d, &c->type);
    }
    ds_put_char(out, '}');
}

/* Appends the v1 "old" or the v2 "modify" object for a row whose
 * monitored columns changed and returns true, or returns false (appending
 * nothing) if none did.  As the reference, the object has only the columns
 * that select "modify", so it may be empty. */
static bool
put_modify_text(struct ds *out, const struct monitor_table *mt,
                const struct ovsdb_row *old, const struct ovsdb_row *new,
                const unsigned long *changed,
                enum ovsdb_monitor_version version)
{
    bool any = false, first = true;
    for (size_t i = 0; i < mt->n_columns; i++) {
        const struct ovsdb_column *c = mt->columns[i];
        if (!column_changed(c, old, new, changed)) {
            continue;
        }
        if (!any) {
            ds_put_char(out, '{');
            any = true;
        }
        if (!(mt->column_select[i] & SEL_MODIFY)) {
            continue;
        }
        if (!first) {
            ds_put_char(out, ',');
        }
        first = false;
        monitor_put_member_name(out, c->name);
        const struct ovsdb_datum *od = ovsdb_row_get_datum(old, c);
        const struct ovsdb_datum *nd = ovsdb_row_get_datum(new, c);
        if (version == OVSDB_MONITOR_V1) {
            ovsdb_datum_put_json(out, od, &c->type);
        } else if (!ovsdb_type_is_composite(&c->type)) {
            /* As the reference: an optional value ("max": 1) is sent whole,
             * only sets and maps of more than one element as diffs. */
            ovsdb_datum_put_json(out, nd, &c->type);
        } else {
            struct ovsdb_datum diff;
            ovsdb_datum_diff(&diff, od, nd, &c->type);
            ovsdb_datum_put_json(out, &diff, &c->type);
            ovsdb_datum_destroy(&diff, &c->type);
        }
    }
    if (any) {
        ds_put_char(out, '}');
        return true;
    }
    if (version != OVSDB_MONITOR_V1) {
        /* The reference also watches the columns its condition reads and
         * sends an empty "modify" when only one of those changed. */
        for (size_t i = 0; i < mt->cond.n_clauses; i++) {
            const struct ovsdb_column *c = mt->cond.clauses[i].column;
            if (c && column_changed(c, old, new, changed)) {
                ds_put_cstr(out, "{}");
                return true;
            }
        }
    }
    return false;
}

/* Appends the <row-update> (v1) or <row-update2> (v2, v3) that 'm' shows
 * for the change 'old' -> 'new' in 'mt''s table and returns true, or
 * returns false, leaving 'out' as it was, if none.  'changed' may be NULL:
 * then columns are compared. */
static bool
put_row_update_text(struct ds *out, const struct ovsdb_monitor *m,
                    const struct monitor_table *mt,
                    const struct ovsdb_row *old, const struct ovsdb_row *new,
                    const unsigned long *changed)
{
    bool old_match = old != NULL && monitor_row_matches(mt, old);
    bool new_match = new != NULL &&monitor_row_matches(mt, new);
    bool v1 = m->version == OVSDB_MONITOR_V1;

    if (old_match && new_match) {
        if (!mt->modify) {
            return false;
        }
        size_t start = out->length;
        if (v1) {
            ds_put_cstr(out, "{\"new\":");
            monitor_put_row_text(out, mt, NULL, new, SEL_MODIFY, false);
            ds_put_cstr(out, ",\"old\":");
        } else {
            ds_put_cstr(out, "{\"modify\":");
        }
        if (!put_modify_text(out, mt, old, new, changed, m->version)) {
            ds_truncate(out, start);
            return false;
        }
    } else if (new_match) {
        if (!mt->insert) {
            return false;
        }
        ds_put_cstr(out, v1 ? "{\"new\":" : "{\"insert\":");
        monitor_put_row_text(out, mt, NULL, new, SEL_INSERT, !v1);
    } else if (old_match) {
        if (!mt->delete) {
            return false;
        }
        if (v1) {
            ds_put_cstr(out, "{\"old\":");
            monitor_put_row_text(out, mt, NULL, old, SEL_DELETE, false);
        } else {
            ds_put_cstr(out, "{\"delete\":null");
        }
    } else {
        return false;
    }
    ds_put_char(out, '}');
    return true;
}

void
monitor_text_updates_init(struct text_updates *tu,
                          const struct ovsdb_monitor *m)
{
    tu->n_tables = m->n_tables;
    tu->tables = xcalloc(m->n_tables, sizeof *tu->tables);
    tu->n_rows = 0;
}

void
monitor_put_uuid_member(struct ds *out, const struct uuid *uuid)
{
    char *p = ds_put_uninit(out, UUID_LEN + 3);
    p[0] = '"';
    uuid_to_string(uuid, p + 1);
    p[UUID_LEN + 1] = '"';
    p[UUID_LEN + 2] = ':';
}

void
monitor_text_updates_add(struct text_updates *tu,
                         const struct ovsdb_monitor *m,
                         const struct monitor_table *mt,
                         const struct ovsdb_row *old,
                         const struct ovsdb_row *new,
                         const unsigned long *changed)
{
    struct ds *out = &tu->tables[mt->table->schema->index];
    size_t start = out->length;
    if (start) {
        ds_put_char(out, ',');
    }
    monitor_put_uuid_member(out, ovsdb_row_get_uuid(old ? old : new));
    if (put_row_update_text(out, m, mt, old, new, changed)) {
        tu->n_rows++;
    } else {
        ds_truncate(out, start);
    }
}

void
monitor_text_updates_finish(struct text_updates *tu,
                            const struct ovsdb_monitor *m, struct ds *out)
{
    size_t n_used = 0, last = 0;
    for (size_t i = 0; i < tu->n_tables; i++) {
        if (tu->tables[i].length) {
            n_used++;
            last = i;
        }
    }
    if (n_used == 1) {
        /* The common case, without a second copy of a big text: wrap the
         * table's buffer where it is. */
        struct ds *t = &tu->tables[last];
        struct ds head = DS_EMPTY_INITIALIZER;
        ds_put_char(&head, '{');
        monitor_put_member_name(&head, m->tables[last]->table->schema->name);
        ds_put_char(&head, '{');
        size_t len = t->length;
        ds_reserve(t, len + head.length + 2);
        memmove(t->string + head.length, t->string, len);
        memcpy(t->string, head.string, head.length);
        t->length = len + head.length;
        ds_put_cstr(t, "}}");
        ds_destroy(&head);
        *out = *t;
        ds_init(t);
    } else {
        ds_put_char(out, '{');
        for (size_t i = 0; i < tu->n_tables; i++) {
            struct ds *t = &tu->tables[i];
            if (t->length) {
                if (out->length > 1) {
                    ds_put_char(out, ',');
                }
                monitor_put_member_name(out,
                                        m->tables[i]->table->schema->name);
                ds_put_char(out, '{');
                ds_put_buffer(out, t->string, t->length);
                ds_put_char(out, '}');
            }
        }
        ds_put_char(out, '}');
    }
    for (size_t i = 0; i < tu->n_tables; i++) {
        ds_destroy(&tu->tables[i]);
    }
    free(tu->tables);
}

/* Commits. */

struct compose_ctx {
    const struct ovsdb_monitor *m;
    struct text_updates updates;
};

static bool
compose_change(const struct ovsdb_table *table, const struct ovsdb_row *old,
               const struct ovsdb_row *new, const unsigned long *changed,
               void *ctx_)
{
    struct compose_ctx *ctx = ctx_;
    const struct monitor_table *mt = ctx->m->tables[table->schema->index];
    if (mt) {
        monitor_text_updates_add(&ctx->updates, ctx->m, mt, old, new,
                                 old && new ? changed : NULL);
    }
    return true;
}

static bool
record_change(const struct ovsdb_table *table, const struct ovsdb_row *old,
              const struct ovsdb_row *new,
              const unsigned long *changed OVS_UNUSED, void *ht_)
{
    struct history_txn *ht = ht_;
    if (ht->n_changes >= ht->allocated) {
        ht->changes = x2nrealloc(ht->changes, &ht->allocated,
                                 sizeof *ht->changes);
    }
    struct history_change *hc = &ht->changes[ht->n_changes++];
    hc->table = table;
    /* Committed versions, which no transaction changes: held, not
     * copied. */
    hc->old = old ? ovsdb_row_hold(old) : NULL;
    hc->new = new ? ovsdb_row_hold(new) : NULL;
    ht->n_versions += (old != NULL) + (new != NULL);
    ht->n_atoms += ((old ? ovsdb_row_n_atoms(old) : 0)
                    + (new ? ovsdb_row_n_atoms(new) : 0));
    return true;
}

static void
history_record(struct ovsdb_monitor_hub *hub, const struct ovsdb_txn *txn)
{
    if (hub->history_n == HISTORY_MAX_TXNS) {
        history_pop_oldest(hub);
    }
    size_t idx = (hub->history_start + hub->history_n) % HISTORY_MAX_TXNS;
    struct history_txn *ht = &hub->history[idx];
    memset(ht, 0, sizeof *ht);
    ht->id = hub->last_txn_id;
    ht->serial = hub->next_serial++;
    ovsdb_txn_for_each_change(txn, record_change, ht);
    for (size_t i = 0; i < ht->n_changes; i++) {
        const struct history_change *hc = &ht->changes[i];
        monitor_index_set_add_history(hub->indexes, hc->table, hc->old,
                                      hc->new, ht->serial, hc);
    }
    hub->history_n++;
    hub->history_versions += ht->n_versions;
    hub->history_atoms += ht->n_atoms;
    size_t max_versions = MIN(HISTORY_MAX_ROWS, MAX(ovsdb_n_rows(hub->db) / 4,
                                                    HISTORY_MIN_ROWS));
    while (hub->history_n > 1
           && (hub->history_versions > max_versions
               || hub->history_atoms > hub->db_atoms)) {
        history_pop_oldest(hub);
    }
}

/* A commit's changes, and which of them each indexed shape can see. */
struct commit_change {
    const struct ovsdb_table *table;
    const struct ovsdb_row *old, *new;
    const unsigned long *changed;
};

struct commit_ctx {
    struct ovsdb_monitor_hub *hub;
    struct commit_change *changes;
    size_t n_changes, allocated_changes;
    size_t cur;                 /* Change being reported to watchers. */
};

static void
note_watcher(void *m_, void *ctx_)
{
    struct ovsdb_monitor *m = m_;
    struct commit_ctx *ctx = ctx_;

    if (m->stamp != ctx->hub->commit_serial) {
        m->stamp = ctx->hub->commit_serial;
        m->n_pending = 0;
    }
    /* A change is reported once per value and index: keep one. */
    if (!m->n_pending || m->pending[m->n_pending - 1] != ctx->cur) {
        if (m->n_pending >= m->allocated_pending) {
            m->pending = x2nrealloc(m->pending, &m->allocated_pending,
                                    sizeof *m->pending);
        }
        m->pending[m->n_pending++] = ctx->cur;
    }
}

static bool
index_change(const struct ovsdb_table *table, const struct ovsdb_row *old,
             const struct ovsdb_row *new, const unsigned long *changed,
             void *ctx_)
{
    struct commit_ctx *ctx = ctx_;
    monitor_index_set_change(ctx->hub->indexes, table, old, new);
    if (ctx->n_changes >= ctx->allocated_changes) {
        ctx->changes = x2nrealloc(ctx->changes, &ctx->allocated_changes,
                                  sizeof *ctx->changes);
    }
    ctx->cur = ctx->n_changes;
    ctx->changes[ctx->n_changes++] = (struct commit_change) {
        table, old, new, changed
    };
    monitor_index_set_for_each_watcher(ctx->hub->indexes, table, old, new,
                                       note_watcher, ctx);
    return true;
}

/* Composes into 'cctx->updates' what 'cctx->m' shows of the commit: for a
 * shape whose conditions are all indexed, only the changes its indexes
 * reported; for others, every change. */
static void
compose_commit(const struct commit_ctx *ctx, const struct ovsdb_txn *txn,
               struct compose_ctx *cctx)
{
    const struct ovsdb_monitor *m = cctx->m;
    if (!m->all_indexed) {
        ovsdb_txn_for_each_change(txn, compose_change, cctx);
    } else if (m->stamp == ctx->hub->commit_serial) {
        for (size_t i = 0; i < m->n_pending; i++) {
            const struct commit_change *c = &ctx->changes[m->pending[i]];
            compose_change(c->table, c->old, c->new, c->changed, cctx);
        }
    }
}

/* Keeps 'hub_''s count of the database's atoms. */
static bool
count_atoms(const struct ovsdb_table *table OVS_UNUSED,
            const struct ovsdb_row *old, const struct ovsdb_row *new,
            const unsigned long *changed OVS_UNUSED, void *hub_)
{
    struct ovsdb_monitor_hub *hub = hub_;
    hub->db_atoms += new ? ovsdb_row_n_atoms(new) : 0;
    hub->db_atoms -= old ? ovsdb_row_n_atoms(old) : 0;
    return true;
}

static void
hub_commit_cb(struct ovsdb *db OVS_UNUSED, const struct ovsdb_txn *txn,
              void *hub_)
{
    struct ovsdb_monitor_hub *hub = hub_;
    struct commit_ctx ctx = { .hub = hub };

    hub->commit_serial++;
    monitor_index_set_expire(hub->indexes);
    ovsdb_txn_for_each_change(txn, index_change, &ctx);
    const struct uuid *id = ovsdb_txn_get_id(txn);
    if (id) {
        hub->last_txn_id = *id;
    } else {
        uuid_generate(&hub->last_txn_id);
    }
    ovsdb_txn_for_each_change(txn, count_atoms, hub);
    if (hub->history_on) {
        history_record(hub, txn);
    }

    struct ovsdb_monitor *m;
    HMAP_FOR_EACH (m, node, &hub->monitors) {
        if (!m->n_subs) {
            continue;
        }
        if (m->all_indexed && m->stamp != hub->commit_serial) {
            continue;           /* Nothing it can see. */
        }
        struct compose_ctx cctx = { .m = m };
        monitor_text_updates_init(&cctx.updates, m);
        compose_commit(&ctx, txn, &cctx);
        size_t n_rows = cctx.updates.n_rows;
        struct ds body = DS_EMPTY_INITIALIZER;
        monitor_text_updates_finish(&cctx.updates, m, &body);
        if (n_rows) {
            /* A big body is queued by reference on every subscriber's
             * connection, not copied into each: ten RFC monitors behind on
             * 2.7 MB updates held ten copies of each. */
            struct refbuf *shared = (body.length >= SHARED_BODY_MIN
                                         ? refbuf_from_ds(&body)
                                         : NULL);
            struct ovsdb_monitor_update update = {
                .body = shared ? shared->data : body.string,
                .body_size = shared ? shared->size : body.length,
                .shared = shared,
                .txn_id = &hub->last_txn_id,
                .txn = txn,
            };
            for (size_t i = 0; i < m->n_subs; i++) {
                m->subs[i].cb(m->subs[i].aux, &update);
            }
            refbuf_unref(shared);
        }
        ds_destroy(&body);
    }
    free(ctx.changes);
}
