/* ovsdb/monitor.c: shared monitor shapes, updates and history.  See
 * monitor.h. */
#include <config.h>

#include "ovsdb/monitor.h"

#include <string.h>
#include "lib/allocator.h"
#include "lib/bitmap.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "lib/json-util.h"
#include "lib/refbuf.h"
#include "ovsdb/condition.h"
#include "ovsdb/datum.h"
#include "ovsdb/error.h"
#include "ovsdb/monitor-index.h"
#include "ovsdb/ovsdb.h"
#include "ovsdb/row.h"
#include "ovsdb/schema.h"
#include "ovsdb/table.h"
#include "ovsdb/txn.h"

/* History bounds: transactions, and changed rows over all of them. */
#define HISTORY_MAX_TXNS 100
#define HISTORY_MAX_ROWS 100000

/* "select" flags: the kinds of change a request asks for. */
enum {
    SEL_INITIAL = 1 << 0,
    SEL_INSERT = 1 << 1,
    SEL_DELETE = 1 << 2,
    SEL_MODIFY = 1 << 3,
    SEL_ALL = SEL_INITIAL | SEL_INSERT | SEL_DELETE | SEL_MODIFY
};

/* What a shape shows of one table.  An array of requests for one table may
 * give each column its own "select" (as the reference does): a column shows
 * only in the kinds of change its own request selected, and the table's
 * flags are their union. */
struct monitor_table {
    const struct ovsdb_table *table;
    const struct ovsdb_column **columns; /* Monitored columns, in order. */
    unsigned int *column_select;         /* SEL_* of each of 'columns'. */
    size_t n_columns;
    unsigned long *column_map;  /* Bitmap of monitored column indexes. */
    bool initial, insert, delete, modify;   /* Union of the requests'. */
    struct ovsdb_condition cond;            /* Empty: every row. */

    /* For each clause of 'cond', the index of its column if it is
     * [column, "==", value], else NULL.  'indexed' if every clause is such
     * a clause or "false": then the rows 'cond' shows are found through
     * the indexes. */
    struct monitor_index **clause_index;
    bool indexed;
};

struct subscriber {
    ovsdb_monitor_update_cb *cb;
    void *aux;
};

struct ovsdb_monitor {
    struct hmap_node node;      /* In hub's 'monitors', by hash of 'key'. */
    struct ovsdb_monitor_hub *hub;
    char *key;                  /* Version + sorted requests: the shape. */
    enum ovsdb_monitor_version version;
    json_t *requests;           /* As parsed (for monitor_cond_change). */
    struct monitor_table **tables;  /* By table index; NULL: unmonitored. */
    size_t n_tables;
    unsigned int n_refs;
    struct subscriber *subs;
    size_t n_subs, allocated_subs;

    /* Commits: if 'all_indexed' (every table's condition is indexed), the
     * indexes report the changes this shape can see, as indexes into the
     * commit's changes, in 'pending' (valid if 'stamp' is the hub's
     * 'commit_serial'). */
    bool all_indexed;
    unsigned long long stamp;
    size_t *pending;
    size_t n_pending, allocated_pending;

    /* The serialized initial contents, while some client still has them
     * queued (a weak pointer: NULL once the last holder is done), valid
     * if 'initial_stamp' is the hub's 'commit_serial'. */
    struct refbuf *initial_text;
    unsigned long long initial_stamp;
};

/* One row change kept in the history: private clones of the rows. */
struct history_change {
    const struct ovsdb_table *table;
    struct ovsdb_row *old, *new;    /* NULL for insert / delete. */
};

struct history_txn {
    struct uuid id;
    unsigned long long serial;  /* Increases by 1 per recorded txn. */
    struct history_change *changes;
    size_t n_changes, allocated;
};

struct ovsdb_monitor_hub {
    struct ovsdb *db;
    struct hmap monitors;       /* Contains "struct ovsdb_monitor"s. */
    struct uuid last_txn_id;
    bool history_on;
    struct uuid history_base;   /* Txn just before the oldest in history. */
    struct history_txn history[HISTORY_MAX_TXNS];   /* A ring. */
    size_t history_start, history_n, history_rows;
    unsigned long long next_serial;
    struct monitor_index_set *indexes;  /* Of the shapes' conditions. */
    unsigned long long commit_serial;   /* Commits seen. */
};

static void hub_commit_cb(struct ovsdb *, const struct ovsdb_txn *, void *);

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
    hub->history_rows -= ht->n_changes;
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

static struct ovsdb_error *
hub_get(struct ovsdb_monitor_hub *hub, const json_t *requests,
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
    return hub_get(hub, requests, version, version != OVSDB_MONITOR_V1, mp);
}

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
    struct ovsdb_error *error = hub_get(m->hub, requests, m->version, true,
                                        newp);
    json_decref(requests);
    return error;
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

static bool
row_matches(const struct monitor_table *mt, const struct ovsdb_row *row)
{
    return ovsdb_condition_is_empty(&mt->cond)
           || ovsdb_condition_match_any(row, &mt->cond);
}

static bool
column_changed(const struct ovsdb_column *c, const struct ovsdb_row *old,
               const struct ovsdb_row *new, const unsigned long *changed)
{
    return changed ? bitmap_is_set(changed, c->index)
                   : !ovsdb_datum_equals(&old->fields[c->index],
                                         &new->fields[c->index], &c->type);
}

static void
put_row_update(json_t *updates, const struct ovsdb_table *table,
               const struct uuid *uuid, json_t *row_update)
{
    const char *name = table->schema->name;
    json_t *table_updates = json_object_get(updates, name);
    if (!table_updates) {
        table_updates = json_object();
        json_object_set_new(updates, name, table_updates);
    }
    char uuid_s[UUID_LEN + 1];
    uuid_to_string(uuid, uuid_s);
    json_object_set_new(table_updates, uuid_s, row_update);
}

/* Updates are built as text, without a jansson tree (which costs hundreds
 * of bytes per row: a commit of 500,000 rows, an initial reply of a big
 * table); the few callers that need a tree parse it. */

static void
put_member_name(struct ds *out, const char *name)
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
static void
put_row_text(struct ds *out, const struct monitor_table *mt,
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
        const struct ovsdb_datum *d = &row->fields[c->index];
        if (skip_default && ovsdb_datum_is_default(d, &c->type)) {
            continue;
        }
        if (!first) {
            ds_put_char(out, ',');
        }
        first = false;
        put_member_name(out, c->name);
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
        put_member_name(out, c->name);
        const struct ovsdb_datum *od = &old->fields[c->index];
        const struct ovsdb_datum *nd = &new->fields[c->index];
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
    bool old_match = old != NULL && row_matches(mt, old);
    bool new_match = new != NULL &&row_matches(mt, new);
    bool v1 = m->version == OVSDB_MONITOR_V1;

    if (old_match && new_match) {
        if (!mt->modify) {
            return false;
        }
        size_t start = out->length;
        if (v1) {
            ds_put_cstr(out, "{\"new\":");
            put_row_text(out, mt, NULL, new, SEL_MODIFY, false);
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
        put_row_text(out, mt, NULL, new, SEL_INSERT, !v1);
    } else if (old_match) {
        if (!mt->delete) {
            return false;
        }
        if (v1) {
            ds_put_cstr(out, "{\"old\":");
            put_row_text(out, mt, NULL, old, SEL_DELETE, false);
        } else {
            ds_put_cstr(out, "{\"delete\":null");
        }
    } else {
        return false;
    }
    ds_put_char(out, '}');
    return true;
}

/* Parses 'text' (borrowed), which this module wrote. */
static json_t *
parse_text(const struct ds *text)
{
    json_error_t error;
    json_t *json = jsonx_loadb(text->string, text->length, 0, &error);
    if (!json) {
        ovs_fatal(0, "monitor: bad update text: %s", error.text);
    }
    return json;
}

/* As put_row_update_text(), as a tree.  New reference, or NULL if none. */
static json_t *
row_update(const struct ovsdb_monitor *m, const struct monitor_table *mt,
           const struct ovsdb_row *old, const struct ovsdb_row *new,
           const unsigned long *changed)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    json_t *json = (put_row_update_text(&text, m, mt, old, new, changed)
                        ? parse_text(&text)
                        : NULL);
    ds_destroy(&text);
    return json;
}

/* A <table-updates> text being built from changes in any order: one buffer
 * of "uuid":<row-update> members per table, joined at the end. */
struct text_updates {
    struct ds *tables; /* By table index. */
    size_t n_tables;
    size_t n_rows;
};

static void
text_updates_init(struct text_updates *tu, const struct ovsdb_monitor *m)
{
    tu->n_tables = m->n_tables;
    tu->tables = xcalloc(m->n_tables, sizeof *tu->tables);
    tu->n_rows = 0;
}

static void
put_uuid_member(struct ds *out, const struct uuid *uuid)
{
    char *p = ds_put_uninit(out, UUID_LEN + 3);
    p[0] = '"';
    uuid_to_string(uuid, p + 1);
    p[UUID_LEN + 1] = '"';
    p[UUID_LEN + 2] = ':';
}

/* Adds the row update that 'm' shows for 'old' -> 'new' in 'mt''s table,
 * if any. */
static void
text_updates_add(struct text_updates *tu, const struct ovsdb_monitor *m,
                 const struct monitor_table *mt, const struct ovsdb_row *old,
                 const struct ovsdb_row *new, const unsigned long *changed)
{
    struct ds *out = &tu->tables[mt->table->schema->index];
    size_t start = out->length;
    if (start) {
        ds_put_char(out, ',');
    }
    put_uuid_member(out, ovsdb_row_get_uuid(old ? old : new));
    if (put_row_update_text(out, m, mt, old, new, changed)) {
        tu->n_rows++;
    } else {
        ds_truncate(out, start);
    }
}

/* Moves the text into 'out' (which must be empty) and frees the rest. */
static void
text_updates_finish(struct text_updates *tu, const struct ovsdb_monitor *m,
                    struct ds *out)
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
        put_member_name(&head, m->tables[last]->table->schema->name);
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
                put_member_name(out, m->tables[i]->table->schema->name);
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
    put_uuid_member(out, ovsdb_row_get_uuid(row));
    bool v1 = m->version == OVSDB_MONITOR_V1;
    ds_put_cstr(out, v1 ? "{\"new\":" : "{\"initial\":");
    put_row_text(out, mt, NULL, row, SEL_INITIAL, !v1);
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
        put_member_name(out, mt->table->schema->name);
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
                if (row_matches(mt, row)) {
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

json_t *
ovsdb_monitor_get_initial(const struct ovsdb_monitor *m)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    put_initial_text(&text, m);
    json_t *json = parse_text(&text);
    ds_destroy(&text);
    return json;
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

/* Writes the row update that 'row' causes, if it enters or leaves: as
 * row_update() would, entering rows inserted with the new shape's
 * columns, leaving rows deleted in the old shape's terms. */
static void
cc_put_row(struct cc_writer *w, const struct cc_row *r)
{
    bool was = row_matches(w->omt, r->row);
    bool is = row_matches(w->nmt, r->row);
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
        put_row_text(w->out, mt, *orderp, r->row, SEL_INSERT, !v1);
        ds_put_char(w->out, '}');
    } else if (v1) {
        ds_put_cstr(w->out, "{\"old\":");
        put_row_text(w->out, mt, *orderp, r->row, SEL_DELETE, false);
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
            if (row_matches(omt, row) != row_matches(nmt, row)) {
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
        text_updates_add(&ctx->updates, ctx->m, mt, old, new,
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
    hc->old = old ? ovsdb_row_clone(old) : NULL;
    hc->new = new ? ovsdb_row_clone(new) : NULL;
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
    hub->history_rows += ht->n_changes;
    while (hub->history_n > 1 && hub->history_rows > HISTORY_MAX_ROWS) {
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
        text_updates_init(&cctx.updates, m);
        compose_commit(&ctx, txn, &cctx);
        size_t n_rows = cctx.updates.n_rows;
        struct ds body = DS_EMPTY_INITIALIZER;
        text_updates_finish(&cctx.updates, m, &body);
        if (n_rows) {
            struct ovsdb_monitor_update update = {
                .body = body.string,
                .body_size = body.length,
                .txn_id = &hub->last_txn_id,
                .txn = txn,
            };
            for (size_t i = 0; i < m->n_subs; i++) {
                m->subs[i].cb(m->subs[i].aux, &update);
            }
        }
        ds_destroy(&body);
    }
    free(ctx.changes);
}

/* Pending changes of a subscriber that is behind. */

struct ovsdb_monitor_pending {
    struct hmap rows;           /* Contains "struct pending_row"s. */
    struct uuid txn_id;         /* Last transaction added. */
};

struct pending_row {
    struct hmap_node node;      /* In 'rows', by uuid_hash(&uuid). */
    const struct ovsdb_table *table;
    struct uuid uuid;
    struct ovsdb_row *old;      /* As the client last saw it, or NULL if it
                                 * did not exist then. */
    struct ovsdb_row *new;      /* Latest state, or NULL once deleted. */
};

struct pending_ctx {
    struct ovsdb_monitor_pending *p;
    const struct ovsdb_monitor *m;
};

struct ovsdb_monitor_pending *
ovsdb_monitor_pending_create(void)
{
    struct ovsdb_monitor_pending *p = xzalloc(sizeof *p);
    hmap_init(&p->rows);
    return p;
}

static void
pending_row_free(struct pending_row *pr)
{
    ovsdb_row_destroy(pr->old);
    ovsdb_row_destroy(pr->new);
    free(pr);
}

void
ovsdb_monitor_pending_destroy(struct ovsdb_monitor_pending *p)
{
    if (p) {
        struct pending_row *pr;
        HMAP_FOR_EACH_POP (pr, node, &p->rows) {
            pending_row_free(pr);
        }
        hmap_destroy(&p->rows);
        free(p);
    }
}

static struct pending_row *
pending_find(const struct ovsdb_monitor_pending *p, const struct uuid *uuid)
{
    struct pending_row *pr;
    HMAP_FOR_EACH_WITH_HASH (pr, node, uuid_hash(uuid), &p->rows) {
        if (uuid_equals(&pr->uuid, uuid)) {
            return pr;
        }
    }
    return NULL;
}

static bool
pend_change(const struct ovsdb_table *table, const struct ovsdb_row *old,
            const struct ovsdb_row *new,
            const unsigned long *changed OVS_UNUSED, void *ctx_)
{
    struct pending_ctx *ctx = ctx_;
    const struct monitor_table *mt = ctx->m->tables[table->schema->index];
    if (!mt) {
        return true;
    }
    const struct uuid *uuid = ovsdb_row_get_uuid(old ? old : new);
    struct pending_row *pr = pending_find(ctx->p, uuid);
    if (!pr) {
        if (!(old && row_matches(mt, old)) && !(new && row_matches(mt, new))) {
            /* Not visible before or after: nothing the client must hear
             * of (if a later change makes it visible, that one counts). */
            return true;
        }
        pr = xmalloc(sizeof *pr);
        pr->table = table;
        pr->uuid = *uuid;
        pr->old = old ? ovsdb_row_clone(old) : NULL;
        pr->new = NULL;
        hmap_insert(&ctx->p->rows, &pr->node, uuid_hash(uuid));
    }
    ovsdb_row_destroy(pr->new);
    pr->new = new ? ovsdb_row_clone(new) : NULL;
    return true;
}

void
ovsdb_monitor_pending_add(struct ovsdb_monitor_pending *p,
                          const struct ovsdb_monitor *m,
                          const struct ovsdb_monitor_update *u)
{
    struct pending_ctx ctx = { .p = p, .m = m };
    ovsdb_txn_for_each_change(u->txn, pend_change, &ctx);
    p->txn_id = *u->txn_id;
}

size_t
ovsdb_monitor_pending_n_rows(const struct ovsdb_monitor_pending *p)
{
    return hmap_count(&p->rows);
}

const struct uuid *
ovsdb_monitor_pending_get_txn_id(const struct ovsdb_monitor_pending *p)
{
    return &p->txn_id;
}

json_t *
ovsdb_monitor_pending_take(struct ovsdb_monitor_pending *p,
                           const struct ovsdb_monitor *m)
{
    json_t *updates = json_object();
    struct pending_row *pr;
    HMAP_FOR_EACH_POP (pr, node, &p->rows) {
        const struct monitor_table *mt = m->tables[pr->table->schema->index];
        if (mt && (pr->old || pr->new)) {
            /* Columns are compared: the merged change has no single
             * "changed" bitmap. */
            json_t *ru = row_update(m, mt, pr->old, pr->new, NULL);
            if (ru) {
                put_row_update(updates, pr->table, &pr->uuid, ru);
            }
        }
        pending_row_free(pr);
    }
    if (!json_object_size(updates)) {
        json_decref(updates);
        return NULL;
    }
    return updates;
}

/* monitor_cond_since. */

/* A history change that a catch-up must consider. */
struct since_change {
    unsigned long long serial;
    const struct history_change *hc;
};

struct since_changes {
    struct since_change *v;
    size_t n, allocated;
};

static void
add_since_change(unsigned long long serial, const void *hc, void *sc_)
{
    struct since_changes *sc = sc_;
    if (sc->n >= sc->allocated) {
        sc->v = x2nrealloc(sc->v, &sc->allocated, sizeof *sc->v);
    }
    sc->v[sc->n].serial = serial;
    sc->v[sc->n].hc = hc;
    sc->n++;
}

static int
compare_since_changes(const void *a_, const void *b_)
{
    const struct since_change *a = a_, *b = b_;
    if (a->serial != b->serial) {
        return a->serial < b->serial ? -1 : 1;
    }
    return a->hc < b->hc ? -1 : a->hc > b->hc;
}

/* The changes of the transactions from history position 'start' on that
 * 'm' can see, oldest first, without duplicates: for a table with an
 * indexed condition, those whose old or new row has a value one of its
 * clauses tests (a change where neither has one cannot show); for other
 * monitored tables, all of them. */
static void
collect_since_changes(const struct ovsdb_monitor *m, size_t start,
                      struct since_changes *sc)
{
    const struct ovsdb_monitor_hub *hub = m->hub;
    unsigned long long min_serial
        = hub->history[(hub->history_start + start)
                       % HISTORY_MAX_TXNS].serial;
    bool scan = false;

    for (size_t i = 0; i < m->n_tables; i++) {
        const struct monitor_table *mt = m->tables[i];
        if (!mt) {
            continue;
        } else if (!mt->indexed) {
            scan = true;
            continue;
        }
        for (size_t k = 0; k < mt->cond.n_clauses; k++) {
            if (mt->clause_index[k]) {
                monitor_index_for_each_change(mt->clause_index[k],
                                              &mt->cond.clauses[k].arg,
                                              min_serial, add_since_change,
                                              sc);
            }
        }
    }
    if (scan) {
        for (size_t k = start; k < hub->history_n; k++) {
            const struct history_txn *ht
                = &hub->history[(hub->history_start + k) % HISTORY_MAX_TXNS];
            for (size_t i = 0; i < ht->n_changes; i++) {
                const struct history_change *hc = &ht->changes[i];
                const struct monitor_table *mt
                    = m->tables[hc->table->schema->index];
                if (mt && !mt->indexed) {
                    add_since_change(ht->serial, hc, sc);
                }
            }
        }
    }

    if (sc->n > 1) {
        qsort(sc->v, sc->n, sizeof *sc->v, compare_since_changes);
        size_t n = 1;
        for (size_t i = 1; i < sc->n; i++) {
            if (sc->v[i].hc != sc->v[n - 1].hc) {
                sc->v[n++] = sc->v[i];
            }
        }
        sc->n = n;
    }
}

struct merged_row {
    struct hmap_node node;      /* By uuid_hash(). */
    const struct ovsdb_table *table;
    const struct ovsdb_row *old, *new;
};

static struct merged_row *
merged_find(const struct hmap *rows, const struct uuid *uuid)
{
    struct merged_row *mr;
    HMAP_FOR_EACH_WITH_HASH (mr, node, uuid_hash(uuid), rows) {
        const struct ovsdb_row *r = mr->old ? mr->old : mr->new;
        if (uuid_equals(ovsdb_row_get_uuid(r), uuid)) {
            return mr;
        }
    }
    return NULL;
}

json_t *
ovsdb_monitor_get_since(struct ovsdb_monitor *m, const struct uuid *last_id,
                        bool *found)
{
    struct ovsdb_monitor_hub *hub = m->hub;

    if (!hub->history_on) {
        hub->history_on = true;
        hub->history_base = hub->last_txn_id;
    }
    if (uuid_equals(last_id, &hub->last_txn_id)) {
        *found = true;
        return json_object();
    }

    /* 'start' is the first transaction after 'last_id'. */
    size_t start;
    if (uuid_equals(last_id, &hub->history_base)) {
        start = 0;
    } else {
        for (start = 0; start < hub->history_n; start++) {
            size_t idx = (hub->history_start + start) % HISTORY_MAX_TXNS;
            if (uuid_equals(&hub->history[idx].id, last_id)) {
                break;
            }
        }
        if (start >= hub->history_n) {
            *found = false;
            return ovsdb_monitor_get_initial(m);
        }
        start++;
    }
    *found = true;
    json_t *updates = json_object();
    if (start >= hub->history_n) {
        return updates;
    }

    /* Merge the changes after 'last_id' into one change per row, in the
     * order they were committed.  (Leaving out a change in which neither
     * row matches keeps the result: such a change only ever sits between
     * two states that do not match either.) */
    struct since_changes sc = { NULL, 0, 0 };
    collect_since_changes(m, start, &sc);
    struct merged_row *merged = xmalloc((sc.n ? sc.n : 1) * sizeof *merged);
    size_t n_merged = 0;
    struct hmap rows = HMAP_INITIALIZER(&rows);
    for (size_t i = 0; i < sc.n; i++) {
        const struct history_change *hc = sc.v[i].hc;
        const struct ovsdb_row *r = hc->old ? hc->old : hc->new;
        const struct uuid *uuid = ovsdb_row_get_uuid(r);
        struct merged_row *mr = merged_find(&rows, uuid);
        if (!mr) {
            mr = &merged[n_merged++];
            mr->table = hc->table;
            mr->old = hc->old;
            hmap_insert(&rows, &mr->node, uuid_hash(uuid));
        }
        mr->new = hc->new;
    }
    free(sc.v);

    for (size_t i = 0; i < n_merged; i++) {
        const struct merged_row *mr = &merged[i];
        const struct monitor_table *mt = m->tables[mr->table->schema->index];
        if (mt && (mr->old || mr->new)) {
            json_t *ru = row_update(m, mt, mr->old, mr->new, NULL);
            if (ru) {
                const struct ovsdb_row *r = mr->old ? mr->old : mr->new;
                put_row_update(updates, mr->table, ovsdb_row_get_uuid(r),
                               ru);
            }
        }
    }
    hmap_destroy(&rows);
    free(merged);
    return updates;
}
