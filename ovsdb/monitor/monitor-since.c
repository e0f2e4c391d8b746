/* ovsdb/monitor/monitor-since.c: catching a client up.  See monitor.h; the
 * shared struct bodies are in monitor-private.h.
 *
 * A subscriber whose client is not reading keeps the transactions it has
 * not sent as a pending set: one merged change per row, from what the
 * client last saw to the latest state, sent as one update once the client
 * can take more.  A client that reconnects with
 * monitor_cond_since gets the changes after the transaction it names,
 * merged the same way from the hub's history, or the full initial
 * contents if that transaction is no longer in the history. */
#include <config.h>

#include "ovsdb/monitor/monitor.h"

#include <stdlib.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/hmap.h"
#include "lib/uuid.h"
#include "ovsdb/monitor/monitor-index.h"
#include "ovsdb/monitor/monitor-private.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"

/* Pending changes of a subscriber that is behind. */

struct ovsdb_monitor_pending {
    struct hmap rows;           /* Contains "struct pending_row"s. */
    struct uuid txn_id;         /* Last transaction added. */
};

struct pending_row {
    struct hmap_node node;      /* In 'rows', by uuid_hash(&uuid). */
    const struct ovsdb_table *table;
    struct uuid uuid;
    /* Committed versions, held (ovsdb_row_hold()), not copied: a client
     * that is behind costs one entry per changed row, not two rows. */
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
        if (!(old && monitor_row_matches(mt, old))
            && !(new && monitor_row_matches(mt, new))) {
            /* Not visible before or after: nothing the client must hear
             * of (if a later change makes it visible, that one counts). */
            return true;
        }
        pr = xmalloc(sizeof *pr);
        pr->table = table;
        pr->uuid = *uuid;
        pr->old = old ? ovsdb_row_hold(old) : NULL;
        pr->new = NULL;
        hmap_insert(&ctx->p->rows, &pr->node, uuid_hash(uuid));
    }
    ovsdb_row_destroy(pr->new);
    pr->new = new ? ovsdb_row_hold(new) : NULL;
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

bool
ovsdb_monitor_pending_take(struct ovsdb_monitor_pending *p,
                           const struct ovsdb_monitor *m, struct ds *out)
{
    struct text_updates tu;
    monitor_text_updates_init(&tu, m);
    struct pending_row *pr;
    HMAP_FOR_EACH_POP (pr, node, &p->rows) {
        const struct monitor_table *mt = m->tables[pr->table->schema->index];
        if (mt && (pr->old || pr->new)) {
            /* Columns are compared: the merged change has no single
             * "changed" bitmap. */
            monitor_text_updates_add(&tu, m, mt, pr->old, pr->new, NULL);
        }
        /* Each version goes as soon as its text is written, so that the
         * text and the versions are not both at their largest at once. */
        pending_row_free(pr);
    }
    bool any = tu.n_rows > 0;
    monitor_text_updates_finish(&tu, m, out);
    if (!any) {
        ds_clear(out);
    }
    return any;
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

void
ovsdb_monitor_hub_start_history(struct ovsdb_monitor_hub *hub)
{
    if (!hub->history_on) {
        hub->history_on = true;
        hub->history_base = hub->last_txn_id;
    }
}

bool
ovsdb_monitor_get_since(struct ovsdb_monitor *m, const struct uuid *last_id,
                        struct ds *out)
{
    struct ovsdb_monitor_hub *hub = m->hub;

    ovsdb_monitor_hub_start_history(hub);
    if (uuid_is_zero(last_id)) {
        /* The all-zero id names no transaction: the client has nothing. */
        return false;
    }
    if (uuid_equals(last_id, &hub->last_txn_id)) {
        ds_put_cstr(out, "{}");
        return true;
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
            return false;
        }
        start++;
    }
    if (start >= hub->history_n) {
        ds_put_cstr(out, "{}");
        return true;
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

    struct text_updates tu;
    monitor_text_updates_init(&tu, m);
    for (size_t i = 0; i < n_merged; i++) {
        const struct merged_row *mr = &merged[i];
        const struct monitor_table *mt = m->tables[mr->table->schema->index];
        if (mt && (mr->old || mr->new)) {
            monitor_text_updates_add(&tu, m, mt, mr->old, mr->new, NULL);
        }
    }
    monitor_text_updates_finish(&tu, m, out);
    hmap_destroy(&rows);
    free(merged);
    return true;
}
