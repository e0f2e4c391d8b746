/* ovsdb/monitor/monitor-index.c: see monitor-index.h. */
#include <config.h>

#include "ovsdb/monitor/monitor-index.h"

#include <limits.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "lib/timeval.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"

/* A row that has the value. */
struct index_row {
    struct hmap_node node;      /* In 'rows', by uuid_hash(). */
    struct uuid uuid;
};

/* A history change whose old or new row has the value. */
struct history_ref {
    unsigned long long serial;
    const void *change;
};

/* One value of the column. */
struct index_value {
    struct hmap_node node;      /* In index's 'values', by datum hash. */
    struct ovsdb_datum value;
    struct hmap rows;           /* Contains "struct index_row"s. */
    struct history_ref *refs;   /* refs[start, n): oldest first. */
    size_t start, n, allocated;
    void **watchers;            /* Shapes whose conditions test it. */
    size_t n_watchers, allocated_watchers;
};

/* An index nobody references is kept this long (msec) before it is freed,
 * so that a reconnection storm, in which every client's shape goes away
 * and comes back, does not rebuild it from the table and the history. */
#define IDLE_MSEC (60 * 1000)

struct monitor_index {
    struct hmap_node node;      /* In set's 'indexes'. */
    const struct ovsdb_table *table;
    const struct ovsdb_column *column;
    /* By each element of a set (see monitor-index.h). */
    bool elements;
    unsigned int n_refs;
    long long idle_since;       /* time_msec() when 'n_refs' became 0. */
    struct hmap values;         /* Contains "struct index_value"s. */
};

struct monitor_index_set {
    struct hmap indexes;        /* Contains "struct monitor_index"es. */
};

static uint32_t
index_hash(const struct ovsdb_table *table, const struct ovsdb_column *c)
{
    return hash_pointer(table, c->index);
}

struct monitor_index_set *
monitor_index_set_create(void)
{
    struct monitor_index_set *set = xmalloc(sizeof *set);
    hmap_init(&set->indexes);
    return set;
}

static void
value_free(struct monitor_index *ix, struct index_value *v)
{
    struct index_row *r, *next;
    HMAP_FOR_EACH_SAFE (r, next, node, &v->rows) {
        free(r);
    }
    hmap_destroy(&v->rows);
    free(v->refs);
    free(v->watchers);
    ovsdb_datum_destroy(&v->value, &ix->column->type);
    free(v);
}

static void
index_free(struct monitor_index *ix)
{
    struct index_value *v, *next;
    HMAP_FOR_EACH_SAFE (v, next, node, &ix->values) {
        value_free(ix, v);
    }
    hmap_destroy(&ix->values);
    free(ix);
}

void
monitor_index_set_destroy(struct monitor_index_set *set)
{
    if (set) {
        struct monitor_index *ix, *next;
        HMAP_FOR_EACH_SAFE (ix, next, node, &set->indexes) {
            index_free(ix);
        }
        hmap_destroy(&set->indexes);
        free(set);
    }
}

static uint32_t
value_hash(const struct monitor_index *ix, const struct ovsdb_datum *value)
{
    return ovsdb_datum_hash(value, &ix->column->type, 0);
}

static struct index_value *
find_value(const struct monitor_index *ix, const struct ovsdb_datum *value,
           uint32_t hash)
{
    struct index_value *v;
    HMAP_FOR_EACH_WITH_HASH (v, node, hash, &ix->values) {
        if (ovsdb_datum_equals(&v->value, value, &ix->column->type)) {
            return v;
        }
    }
    return NULL;
}

static struct index_value *
get_value(struct monitor_index *ix, const struct ovsdb_datum *value)
{
    uint32_t hash = value_hash(ix, value);
    struct index_value *v = find_value(ix, value, hash);
    if (!v) {
        v = xzalloc(sizeof *v);
        ovsdb_datum_clone(&v->value, value, &ix->column->type);
        hmap_init(&v->rows);
        hmap_insert(&ix->values, &v->node, hash);
    }
    return v;
}

/* Frees 'v' if nothing refers to its value any more. */
static void
maybe_free_value(struct monitor_index *ix, struct index_value *v)
{
    if (!hmap_count(&v->rows) && v->start >= v->n && !v->n_watchers) {
        hmap_remove(&ix->values, &v->node);
        value_free(ix, v);
    }
}

static const struct ovsdb_datum *
row_value(const struct monitor_index *ix, const struct ovsdb_row *row)
{
    return ovsdb_row_get_datum(row, ix->column);
}

/* The values 'row' is indexed under: its column's value, or for an index
 * by elements each element as a one-element set (none if empty). */
static unsigned int
n_row_values(const struct monitor_index *ix, const struct ovsdb_row *row)
{
    return ix->elements ? row_value(ix, row)->n : 1;
}

/* The same for one side of a change: none if 'row' is NULL. */
static unsigned int
n_change_values(const struct monitor_index *ix, const struct ovsdb_row *row)
{
    return row ? n_row_values(ix, row) : 0;
}

/* The i-th of those values: a shallow copy, valid while 'row' is. */
static struct ovsdb_datum
row_value_i(const struct monitor_index *ix, const struct ovsdb_row *row,
            unsigned int i)
{
    const struct ovsdb_datum *d = row_value(ix, row);
    if (!ix->elements) {
        return *d;
    }
    return (struct ovsdb_datum){ .n = 1, .keys = &d->keys[i] };
}

/* True if 'row' is indexed under 'value' (one of another row's values). */
static bool
row_has_value(const struct monitor_index *ix, const struct ovsdb_row *row,
              const struct ovsdb_datum *value)
{
    const struct ovsdb_datum *d = row_value(ix, row);
    if (!ix->elements) {
        return ovsdb_datum_equals(d, value, &ix->column->type);
    }
    return (ovsdb_datum_find_key(d, &value->keys[0], ix->column->type.key.type)
            != UINT_MAX);
}

static void
add_row(struct monitor_index *ix, const struct ovsdb_row *row)
{
    for (unsigned int i = 0; i < n_row_values(ix, row); i++) {
        struct ovsdb_datum value = row_value_i(ix, row, i);
        struct index_value *v = get_value(ix, &value);
        struct index_row *r = xmalloc(sizeof *r);
        r->uuid = *ovsdb_row_get_uuid(row);
        hmap_insert(&v->rows, &r->node, uuid_hash(&r->uuid));
    }
}

static void
remove_row(struct monitor_index *ix, const struct ovsdb_row *row)
{
    for (unsigned int i = 0; i < n_row_values(ix, row); i++) {
        struct ovsdb_datum value = row_value_i(ix, row, i);
        struct index_value *v = find_value(ix, &value, value_hash(ix, &value));
        if (!v) {
            continue;
        }
        const struct uuid *uuid = ovsdb_row_get_uuid(row);
        struct index_row *r;
        HMAP_FOR_EACH_WITH_HASH (r, node, uuid_hash(uuid), &v->rows) {
            if (uuid_equals(&r->uuid, uuid)) {
                hmap_remove(&v->rows, &r->node);
                free(r);
                break;
            }
        }
        maybe_free_value(ix, v);
    }
}

struct monitor_index *
monitor_index_ref(struct monitor_index_set *set,
                  const struct ovsdb_table *table,
                  const struct ovsdb_column *column, bool elements,
                  bool *created)
{
    uint32_t hash = index_hash(table, column);
    struct monitor_index *ix;
    HMAP_FOR_EACH_WITH_HASH (ix, node, hash, &set->indexes) {
        if (ix->table == table && ix->column == column
            && ix->elements == elements) {
            ix->n_refs++;
            *created = false;
            return ix;
        }
    }

    ix = xzalloc(sizeof *ix);
    ix->table = table;
    ix->column = column;
    ix->elements = elements;
    ix->n_refs = 1;
    hmap_init(&ix->values);
    const struct ovsdb_row *row;
    OVSDB_TABLE_FOR_EACH_ROW (row, table) {
        add_row(ix, row);
    }
    hmap_insert(&set->indexes, &ix->node, hash);
    *created = true;
    return ix;
}

void
monitor_index_unref(struct monitor_index_set *set OVS_UNUSED,
                    struct monitor_index *ix)
{
    if (ix && !--ix->n_refs) {
        ix->idle_since = time_msec();
    }
}

void
monitor_index_set_expire(struct monitor_index_set *set)
{
    long long now = time_msec();
    struct monitor_index *ix, *next;
    HMAP_FOR_EACH_SAFE (ix, next, node, &set->indexes) {
        if (!ix->n_refs && now - ix->idle_since >= IDLE_MSEC) {
            hmap_remove(&set->indexes, &ix->node);
            index_free(ix);
        }
    }
}

void
monitor_index_set_change(struct monitor_index_set *set,
                         const struct ovsdb_table *table,
                         const struct ovsdb_row *old,
                         const struct ovsdb_row *new)
{
    struct monitor_index *ix;
    HMAP_FOR_EACH (ix, node, &set->indexes) {
        if (ix->table != table) {
            continue;
        }
        if (old && new
            && ovsdb_datum_equals(row_value(ix, old), row_value(ix, new),
                                  &ix->column->type)) {
            continue;
        }
        if (old) {
            remove_row(ix, old);
        }
        if (new) {
            add_row(ix, new);
        }
    }
}

static void
add_ref(struct monitor_index *ix, const struct ovsdb_datum *value,
        unsigned long long serial, const void *change)
{
    struct index_value *v = get_value(ix, value);
    if (v->n >= v->allocated) {
        if (v->start > v->n / 2) {
            /* Reuse the space of trimmed entries. */
            memmove(v->refs, &v->refs[v->start],
                    (v->n - v->start) * sizeof *v->refs);
            v->n -= v->start;
            v->start = 0;
        } else {
            v->refs = x2nrealloc(v->refs, &v->allocated, sizeof *v->refs);
        }
    }
    v->refs[v->n].serial = serial;
    v->refs[v->n].change = change;
    v->n++;
}

void
monitor_index_add_history(struct monitor_index *ix,
                          const struct ovsdb_row *old,
                          const struct ovsdb_row *new,
                          unsigned long long serial, const void *change)
{
    /* Once per value the change reaches. */
    for (unsigned int i = 0; i < n_change_values(ix, old); i++) {
        struct ovsdb_datum value = row_value_i(ix, old, i);
        add_ref(ix, &value, serial, change);
    }
    for (unsigned int i = 0; i < n_change_values(ix, new); i++) {
        struct ovsdb_datum value = row_value_i(ix, new, i);
        if (!old || !row_has_value(ix, old, &value)) {
            add_ref(ix, &value, serial, change);
        }
    }
}

void
monitor_index_set_add_history(struct monitor_index_set *set,
                              const struct ovsdb_table *table,
                              const struct ovsdb_row *old,
                              const struct ovsdb_row *new,
                              unsigned long long serial, const void *change)
{
    struct monitor_index *ix;
    HMAP_FOR_EACH (ix, node, &set->indexes) {
        if (ix->table == table) {
            monitor_index_add_history(ix, old, new, serial, change);
        }
    }
}

static void
trim_value(struct monitor_index *ix, const struct ovsdb_datum *value,
           unsigned long long serial)
{
    struct index_value *v = find_value(ix, value, value_hash(ix, value));
    if (v) {
        while (v->start < v->n && v->refs[v->start].serial <= serial) {
            v->start++;
        }
        if (v->start >= v->n) {
            v->start = v->n = 0;
        }
        maybe_free_value(ix, v);
    }
}

void
monitor_index_set_trim_history(struct monitor_index_set *set,
                               const struct ovsdb_table *table,
                               const struct ovsdb_row *old,
                               const struct ovsdb_row *new,
                               unsigned long long serial)
{
    struct monitor_index *ix;
    HMAP_FOR_EACH (ix, node, &set->indexes) {
        if (ix->table == table) {
            for (unsigned int i = 0; i < n_change_values(ix, old); i++) {
                struct ovsdb_datum value = row_value_i(ix, old, i);
                trim_value(ix, &value, serial);
            }
            for (unsigned int i = 0; i < n_change_values(ix, new); i++) {
                struct ovsdb_datum value = row_value_i(ix, new, i);
                trim_value(ix, &value, serial);
            }
        }
    }
}

void
monitor_index_for_each_row(const struct monitor_index *ix,
                           const struct ovsdb_datum *value,
                           void (*cb)(const struct uuid *, void *aux),
                           void *aux)
{
    const struct index_value *v = find_value(ix, value,
                                             value_hash(ix, value));
    if (v) {
        const struct index_row *r;
        HMAP_FOR_EACH (r, node, &v->rows) {
            cb(&r->uuid, aux);
        }
    }
}

void
monitor_index_for_each_change(
    const struct monitor_index *ix, const struct ovsdb_datum *value,
    unsigned long long min_serial,
    void (*cb)(unsigned long long serial, const void *change, void *aux),
    void *aux)
{
    const struct index_value *v = find_value(ix, value,
                                             value_hash(ix, value));
    if (!v) {
        return;
    }
    /* Binary search for the first entry at or after 'min_serial'. */
    size_t lo = v->start, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->refs[mid].serial < min_serial) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (size_t i = lo; i < v->n; i++) {
        cb(v->refs[i].serial, v->refs[i].change, aux);
    }
}

void
monitor_index_watch(struct monitor_index *ix, const struct ovsdb_datum *value,
                    void *watcher)
{
    struct index_value *v = get_value(ix, value);
    if (v->n_watchers >= v->allocated_watchers) {
        v->watchers = x2nrealloc(v->watchers, &v->allocated_watchers,
                                 sizeof *v->watchers);
    }
    v->watchers[v->n_watchers++] = watcher;
}

void
monitor_index_unwatch(struct monitor_index *ix,
                      const struct ovsdb_datum *value, void *watcher)
{
    struct index_value *v = find_value(ix, value, value_hash(ix, value));
    if (!v) {
        return;
    }
    for (size_t i = 0; i < v->n_watchers; i++) {
        if (v->watchers[i] == watcher) {
            v->watchers[i] = v->watchers[--v->n_watchers];
            break;
        }
    }
    maybe_free_value(ix, v);
}

static void
report_watchers(const struct monitor_index *ix,
                const struct ovsdb_datum *value,
                void (*cb)(void *watcher, void *aux), void *aux)
{
    const struct index_value *v = find_value(ix, value,
                                             value_hash(ix, value));
    for (size_t i = 0; v && i < v->n_watchers; i++) {
        cb(v->watchers[i], aux);
    }
}

void
monitor_index_set_for_each_watcher(struct monitor_index_set *set,
                                   const struct ovsdb_table *table,
                                   const struct ovsdb_row *old,
                                   const struct ovsdb_row *new,
                                   void (*cb)(void *watcher, void *aux),
                                   void *aux)
{
    struct monitor_index *ix;
    HMAP_FOR_EACH (ix, node, &set->indexes) {
        if (ix->table != table) {
            continue;
        }
        for (unsigned int i = 0; i < n_change_values(ix, old); i++) {
            struct ovsdb_datum value = row_value_i(ix, old, i);
            report_watchers(ix, &value, cb, aux);
        }
        for (unsigned int i = 0; i < n_change_values(ix, new); i++) {
            struct ovsdb_datum value = row_value_i(ix, new, i);
            if (!old || !row_has_value(ix, old, &value)) {
                report_watchers(ix, &value, cb, aux);
            }
        }
    }
}
