/* tests/workloads/wl-ovn.c: the OVN-shaped workloads (see README.md).
 *
 * A Southbound-like table "Binding" of 'rows' rows spread evenly over
 * 'clients' chassis; one client per chassis with a monitor_cond_since on
 * its own chassis's rows, as ovn-controller has; one writer.  The clients
 * are driven from the main thread with poll() (1,000 threads would cost
 * the 2-core machine more than the server under test); the writer and a
 * liveness probe (an "echo" every 20 ms on its own connection) are
 * threads.  The probe's round trips in ovn-storm count only from the
 * reconnections on (not during the writer's 1,000-row transactions).
 *
 * Every client keeps its view of the table (row -> "seq") from the
 * updates it receives and checks each one (no row outside its condition,
 * no duplicate insert, no modify or delete of a row it does not have);
 * at the end every view is compared row by row with the writer's model.
 *
 *   ovn-fanout: the writer updates random rows, in transactions of 1 row
 *     and then of 1,000 rows; per delivered row-update, the latency from
 *     the writer's send to the client's receipt.
 *   ovn-storm: every client closes its connection at once; the writer
 *     commits 7 transactions of 1,000 rows; every client reconnects with
 *     monitor_cond_since and its last transaction id while the writer
 *     keeps committing one row every 10 ms (50 times at most).  A
 *     catch-up must hold exactly the rows the client missed.  Timed
 *     until every client has its reply ("catchup_seconds"); "found"
 *     counts the replies that were a catch-up rather than a full resend.
 *   ovn-churn: every client, all at once, sends a monitor_cond_change
 *     adding another chassis's rows to its condition and, once answered,
 *     one removing them again, while the writer commits a row every
 *     10 ms.  The reply to a change must come after the updates it causes
 *     (checked: "order_violations" must be 0).
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "lib/util.h"
#include "tests/workloads/wl-rpc.h"
#include "tests/workloads/wl-workloads.h"

#define UUID_LEN 36
#define OVN_CLIENTS 1000        /* Chassis and clients at scale 1. */
#define OVN_ROWS 100000         /* Binding rows at scale 1. */
#define BIG_TXN_ROWS 1000       /* Rows per big writer transaction. */
#define FANOUT_SMALL_TXNS 5000  /* One-row transactions at scale 1. */
#define FANOUT_BIG_TXNS 50      /* 1,000-row transactions at scale 1. */
#define STORM_TXNS 7            /* Big transactions while disconnected. */
#define PACE_MSEC 10            /* Background writer: one row per 10 ms. */
#define STORM_PACED_TXNS 50     /* Storm: at most this many of them (so
                                 * that the 100-transaction history still
                                 * holds the clients' ids). */
#define PROBE_MSEC 20           /* Liveness probe interval. */
#define BINDING_ATOMS 9         /* Columns set per row (maps: 1 element). */
#define SEND_TIMES 65536        /* Ring of send times, by seq. */
#define TIMEOUT_SEC 3600.0

static const char zero_uuid[] = "00000000-0000-0000-0000-000000000000";

/* One Binding row, as the writer last wrote it. */
struct ovn_row {
    struct hmap_node node;      /* In 'rows_by_uuid'. */
    char uuid[UUID_LEN + 1];
    int chassis;
    long long seq;              /* Last "seq" written (0: initial). */
    long long stamp;            /* Writer: last txn that picked the row. */
    bool missed;                /* Storm: changed while clients were away. */
};

/* A row in a client's view. */
struct view_row {
    struct hmap_node node;      /* In client's 'view', by row index. */
    int row;
    long long seq;
};

enum client_wait {
    W_NONE,
    W_MONITOR,                  /* monitor_cond_since. */
    W_ADD,                      /* monitor_cond_change adding 'other'. */
    W_REMOVE,                   /* monitor_cond_change removing it. */
    W_ECHO                      /* Barrier: every update before it read. */
};

struct ovn_client {
    int idx;                    /* Own chassis. */
    struct wl_rpc *rpc;
    char last_id[UUID_LEN + 1]; /* Last transaction id received. */
    struct hmap view;           /* Contains "struct view_row"s. */
    int other;                  /* Chassis added by the churn, or -1. */
    int removed;                /* Chassis the churn removed again. */
    enum client_wait wait;
    long long pending;          /* Id of the outstanding request. */
    double sent_at;
};

struct ovn {
    const struct wl_config *cfg;
    int n_clients;
    long long n_rows;
    struct ovn_row *rows;
    struct hmap rows_by_uuid;
    long long *per_chassis;     /* Rows of each chassis. */
    struct ovn_client *clients;
    uint64_t prng;

    /* Writer. */
    struct wl_rpc *writer;
    bool writer_threaded;       /* A writer thread owns 'writer' now. */
    long long txn_seq;          /* Last "seq" written. */
    long long n_txns, n_row_updates;
    double send_time[SEND_TIMES];
    atomic_llong expected;      /* Row-updates the clients must get. */

    /* Clients (main thread). */
    bool measure;               /* Record update latencies. */
    long long delivered;        /* Row-updates with a "seq" received. */
    long long n_found, n_replies, order_violations;
    bool mark_missed;           /* Writer: set 'missed' on rows it picks. */
    atomic_bool probe_on;       /* The probe records round trips. */
    long long resume_seq;       /* Storm: last "seq" clients had seen. */
    struct wl_latencies lat;    /* Update or reply latencies. */
    size_t closed_sent, closed_received;    /* Of closed connections. */
    char *error;
};

static uint32_t
row_hash(const char *uuid)
{
    return hash_string(uuid, 0);
}

static struct ovn_row *
find_row(const struct ovn *o, const char *uuid)
{
    struct ovn_row *r;
    HMAP_FOR_EACH_WITH_HASH (r, node, row_hash(uuid), &o->rows_by_uuid) {
        if (!strcmp(r->uuid, uuid)) {
            return r;
        }
    }
    return NULL;
}

static void
set_error(struct ovn *o, char *error)
{
    if (!o->error) {
        o->error = error;
    } else {
        free(error);
    }
}

/* Setup: the rows. */

static void
put_chassis_name(struct ds *s, const struct ovn *o, int chassis)
{
    ds_put_format(s, "\"%s/ch%d\"", o->cfg->run, chassis);
}

static int
setup_rows(struct ovn *o)
{
    struct ds ops = DS_EMPTY_INITIALIZER;

    for (long long first = 0; first < o->n_rows; first += BIG_TXN_ROWS) {
        long long n = MIN(BIG_TXN_ROWS, o->n_rows - first);
        ds_clear(&ops);
        ds_put_char(&ops, '[');
        for (long long i = first; i < first + n; i++) {
            int chassis = i % o->n_clients;
            ds_put_format(&ops, "%s{\"op\":\"insert\",\"table\":\"Binding\","
                          "\"row\":{\"run\":\"%s\",\"chassis\":",
                          i > first ? "," : "", o->cfg->run);
            put_chassis_name(&ops, o, chassis);
            ds_put_format(&ops, ",\"logical_port\":\"lp-%lld\","
                          "\"tunnel_key\":%lld,"
                          "\"mac\":\"0a:00:00:%02x:%02x:%02x 10.%d.%d.%d\","
                          "\"options\":[\"map\",[[\"requested-chassis\","
                          "\"ch%d\"]]],\"external_ids\":[\"map\",[["
                          "\"name\",\"port-%lld\"]]]}}",
                          i, i + 1, (int) (i >> 16) & 255,
                          (int) (i >> 8) & 255, (int) i & 255,
                          (int) (i >> 16) & 255, (int) (i >> 8) & 255,
                          (int) i & 255, chassis, i);
        }
        ds_put_char(&ops, ']');

        json_t *result;
        char *error;
        if (wl_transact(o->writer, o->cfg->db, ds_cstr(&ops), n, &result,
                        &error)) {
            set_error(o, wl_error_printf("setup: %s", error));
            free(error);
            ds_destroy(&ops);
            return -1;
        }
        for (long long i = first; i < first + n; i++) {
            const char *uuid = wl_insert_uuid(json_array_get(result,
                                                             i - first));
            if (!uuid) {
                set_error(o, wl_error_printf("setup: insert %lld has no "
                                             "uuid", i));
                json_decref(result);
                ds_destroy(&ops);
                return -1;
            }
            struct ovn_row *r = &o->rows[i];
            memcpy(r->uuid, uuid, UUID_LEN + 1);
            r->chassis = i % o->n_clients;
            hmap_insert(&o->rows_by_uuid, &r->node, row_hash(r->uuid));
            o->per_chassis[r->chassis]++;
        }
        json_decref(result);
    }
    ds_destroy(&ops);
    return 0;
}

/* The writer. */

/* Commits one transaction updating 'n' distinct random rows: "seq" to the
 * transaction's number, "up" to its parity.  Returns 0 or -1. */
static int
writer_txn(struct ovn *o, long long n, char **errorp)
{
    struct ds ops = DS_EMPTY_INITIALIZER;
    long long seq = ++o->txn_seq;

    n = MIN(n, o->n_rows);
    ds_put_char(&ops, '[');
    for (long long i = 0; i < n; i++) {
        struct ovn_row *r;
        do {
            r = &o->rows[wl_prng_next(&o->prng) % o->n_rows];
        } while (r->stamp == seq);
        r->stamp = seq;
        r->seq = seq;
        r->missed |= o->mark_missed;
        ds_put_format(&ops, "%s{\"op\":\"update\",\"table\":\"Binding\","
                      "\"where\":[[\"_uuid\",\"==\",[\"uuid\",\"%s\"]]],"
                      "\"row\":{\"seq\":%lld,\"up\":%s}}",
                      i ? "," : "", r->uuid, seq, seq & 1 ? "true" : "false");
    }
    ds_put_char(&ops, ']');

    o->send_time[seq % SEND_TIMES] = wl_now();
    atomic_fetch_add(&o->expected, n);
    json_t *result;
    int retval = wl_transact(o->writer, o->cfg->db, ds_cstr(&ops), n,
                             &result, errorp);
    ds_destroy(&ops);
    if (!retval) {
        json_decref(result);
        o->n_txns++;
        o->n_row_updates += n;
    }
    return retval;
}

struct writer_thread {
    struct ovn *o;
    long long n_small, n_big;   /* Fan-out: transactions to run. */
    bool paced;                 /* Else: one row per PACE_MSEC until stop,
                                 * at most 'n_small' times if nonzero. */
    atomic_bool stop, done;
    char *error;
    pthread_t thread;
};

static void
sleep_msec(int msec)
{
    struct timespec ts = { msec / 1000, (msec % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) && errno == EINTR) {
        continue;
    }
}

static void *
writer_main(void *w_)
{
    struct writer_thread *w = w_;
    struct ovn *o = w->o;

    if (w->paced) {
        for (long long i = 0; !atomic_load(&w->stop) && !w->error
                              && (!w->n_small || i < w->n_small); i++) {
            if (writer_txn(o, 1, &w->error)) {
                break;
            }
            sleep_msec(PACE_MSEC);
        }
    } else {
        for (long long i = 0; i < w->n_small && !w->error; i++) {
            writer_txn(o, 1, &w->error);
        }
        for (long long i = 0; i < w->n_big && !w->error; i++) {
            writer_txn(o, BIG_TXN_ROWS, &w->error);
        }
    }
    atomic_store(&w->done, true);
    return NULL;
}

static void
writer_start(struct writer_thread *w, struct ovn *o, bool paced,
             long long n_small, long long n_big)
{
    memset(w, 0, sizeof *w);
    w->o = o;
    w->paced = paced;
    w->n_small = n_small;
    w->n_big = n_big;
    atomic_init(&w->stop, false);
    atomic_init(&w->done, false);
    o->writer_threaded = true;
    int error = pthread_create(&w->thread, NULL, writer_main, w);
    if (error) {
        ovs_fatal(error, "pthread_create");
    }
}

/* Stops and joins 'w'; returns 0 or -1 with 'o->error' set. */
static int
writer_join(struct writer_thread *w)
{
    atomic_store(&w->stop, true);
    pthread_join(w->thread, NULL);
    w->o->writer_threaded = false;
    if (w->error) {
        set_error(w->o, wl_error_printf("writer: %s", w->error));
        free(w->error);
        return -1;
    }
    return 0;
}

/* The liveness probe: another client's round trips while the work runs. */

struct probe_thread {
    const struct wl_config *cfg;
    struct wl_rpc *rpc;
    struct wl_latencies lat;
    atomic_bool stop;
    atomic_bool *on;            /* Record only round trips begun while
                                 * '*on'. */
    char *error;
    pthread_t thread;
};

static void *
probe_main(void *p_)
{
    struct probe_thread *p = p_;

    while (!atomic_load(&p->stop)) {
        bool on = atomic_load(p->on);
        double t0 = wl_now();
        json_t *result;
        if (wl_rpc_request(p->rpc, "echo", "[]", &result)) {
            p->error = xstrdup(wl_rpc_error(p->rpc));
            break;
        }
        json_decref(result);
        if (on) {
            wl_latencies_add(&p->lat, wl_now() - t0);
        }
        sleep_msec(PROBE_MSEC);
    }
    return NULL;
}

static int
probe_start(struct probe_thread *p, struct ovn *o)
{
    memset(p, 0, sizeof *p);
    p->cfg = o->cfg;
    p->on = &o->probe_on;
    atomic_init(&p->stop, false);
    int error = wl_rpc_open(o->cfg->remote, &p->rpc);
    if (error) {
        set_error(o, wl_error_printf("probe: connect: %s",
                                     ovs_strerror(error)));
        return -1;
    }
    error = pthread_create(&p->thread, NULL, probe_main, p);
    if (error) {
        ovs_fatal(error, "pthread_create");
    }
    return 0;
}

/* Stops the probe and appends its latencies to 'extra'. */
static void
probe_finish(struct probe_thread *p, struct ovn *o, struct ds *extra)
{
    double ms[3];

    atomic_store(&p->stop, true);
    pthread_join(p->thread, NULL);
    if (p->error) {
        set_error(o, wl_error_printf("probe: %s", p->error));
        free(p->error);
    }
    size_t n = p->lat.n;
    wl_latencies_summarize(&p->lat, ms);
    ds_put_format(extra, ",\"probe_ms\":{\"n\":%zu,\"p50\":%.3f,"
                  "\"p99\":%.3f,\"max\":%.3f}", n, ms[0], ms[1], ms[2]);
    free(p->lat.v);
    wl_rpc_close(p->rpc);
}

/* Clients. */

static struct view_row *
view_find(const struct ovn_client *c, int row)
{
    struct view_row *vr;
    HMAP_FOR_EACH_WITH_HASH (vr, node, hash_int(row, 0), &c->view) {
        if (vr->row == row) {
            return vr;
        }
    }
    return NULL;
}

static void
view_clear(struct ovn_client *c)
{
    struct view_row *vr;
    HMAP_FOR_EACH_POP (vr, node, &c->view) {
        free(vr);
    }
}

/* True if 'c' may receive an insert of a row of 'chassis'.  (A server
 * that answers a condition change before sending the updates it causes
 * sends the removed chassis's rows after the reply to adding them; that is
 * counted as an order violation, not as an error here.) */
static bool
client_shows(const struct ovn_client *c, int chassis)
{
    return (chassis == c->idx || chassis == c->other
            || (chassis == c->removed && c->wait == W_REMOVE));
}

/* Applies <table-updates2> 'updates' to 'c''s view. */
static int
client_apply(struct ovn *o, struct ovn_client *c, const json_t *updates)
{
    const char *table;
    json_t *rows;

    json_object_foreach ((json_t *) updates, table, rows) {
        if (strcmp(table, "Binding")) {
            set_error(o, wl_error_printf("client %d: update for table %s",
                                         c->idx, table));
            return -1;
        }
        const char *uuid;
        json_t *ru;
        json_object_foreach (rows, uuid, ru) {
            struct ovn_row *r = find_row(o, uuid);
            if (!r) {
                set_error(o, wl_error_printf("client %d: unknown row %s",
                                             c->idx, uuid));
                return -1;
            }
            int idx = r - o->rows;
            struct view_row *vr = view_find(c, idx);
            json_t *body;
            if ((body = json_object_get(ru, "initial"))
                || (body = json_object_get(ru, "insert"))) {
                if (vr) {
                    set_error(o, wl_error_printf("client %d: row %s "
                                                 "inserted twice",
                                                 c->idx, uuid));
                    return -1;
                }
                if (!client_shows(c, r->chassis)) {
                    set_error(o, wl_error_printf("client %d: got row %s of "
                                                 "chassis %d", c->idx, uuid,
                                                 r->chassis));
                    return -1;
                }
                vr = xmalloc(sizeof *vr);
                vr->row = idx;
                json_t *seq = json_object_get(body, "seq");
                vr->seq = seq ? json_integer_value(seq) : 0;
                hmap_insert(&c->view, &vr->node, hash_int(idx, 0));
            } else if ((body = json_object_get(ru, "modify"))) {
                if (!vr) {
                    set_error(o, wl_error_printf("client %d: modify of row "
                                                 "%s not in view", c->idx,
                                                 uuid));
                    return -1;
                }
                json_t *seq = json_object_get(body, "seq");
                if (seq) {
                    vr->seq = json_integer_value(seq);
                    o->delivered++;
                    if (o->measure) {
                        wl_latencies_add(&o->lat, wl_now() - o->send_time[
                                             vr->seq % SEND_TIMES]);
                    }
                }
            } else if (json_object_get(ru, "delete")) {
                if (!vr) {
                    set_error(o, wl_error_printf("client %d: delete of row "
                                                 "%s not in view", c->idx,
                                                 uuid));
                    return -1;
                }
                hmap_remove(&c->view, &vr->node);
                free(vr);
            } else {
                set_error(o, wl_error_printf("client %d: bad row update "
                                             "for %s", c->idx, uuid));
                return -1;
            }
        }
    }
    return 0;
}

static void
put_condition(struct ds *s, const struct ovn *o, const struct ovn_client *c)
{
    ds_put_cstr(s, "[[\"chassis\",\"==\",");
    put_chassis_name(s, o, c->idx);
    ds_put_char(s, ']');
    if (c->other >= 0) {
        ds_put_cstr(s, ",[\"chassis\",\"==\",");
        put_chassis_name(s, o, c->other);
        ds_put_char(s, ']');
    }
    ds_put_char(s, ']');
}

static int
client_send(struct ovn *o, struct ovn_client *c, enum client_wait wait,
            const char *method, const char *params)
{
    if (wl_rpc_send_request(c->rpc, method, params, &c->pending)) {
        set_error(o, wl_error_printf("client %d: %s: %s", c->idx, method,
                                     wl_rpc_error(c->rpc)));
        return -1;
    }
    c->wait = wait;
    c->sent_at = wl_now();
    return 0;
}

static int
client_connect(struct ovn *o, struct ovn_client *c)
{
    int error = wl_rpc_open(o->cfg->remote, &c->rpc);
    if (error) {
        set_error(o, wl_error_printf("client %d: connect %s: %s", c->idx,
                                     o->cfg->remote, ovs_strerror(error)));
        return -1;
    }

    struct ds params = DS_EMPTY_INITIALIZER;
    ds_put_format(&params, "[\"%s\",\"m\",{\"Binding\":[{\"columns\":["
                  "\"chassis\",\"logical_port\",\"tunnel_key\",\"seq\","
                  "\"up\",\"mac\",\"options\",\"external_ids\"],"
                  "\"where\":", o->cfg->db);
    put_condition(&params, o, c);
    ds_put_format(&params, "}]},\"%s\"]", c->last_id);
    int retval = client_send(o, c, W_MONITOR, "monitor_cond_since",
                             ds_cstr(&params));
    ds_destroy(&params);
    return retval;
}

static void
client_close(struct ovn *o, struct ovn_client *c)
{
    if (c->rpc) {
        o->closed_sent += wl_rpc_bytes_sent(c->rpc);
        o->closed_received += wl_rpc_bytes_received(c->rpc);
        wl_rpc_close(c->rpc);
        c->rpc = NULL;
    }
}

static int
client_change(struct ovn *o, struct ovn_client *c, enum client_wait wait)
{
    struct ds params = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&params, "[\"m\",\"m\",{\"Binding\":[{\"where\":");
    put_condition(&params, o, c);
    ds_put_cstr(&params, "}]}]");
    int retval = client_send(o, c, wait, "monitor_cond_change",
                             ds_cstr(&params));
    ds_destroy(&params);
    return retval;
}

/* Rows of chassis 'chassis' in 'c''s view. */
static long long
view_count(const struct ovn *o, const struct ovn_client *c, int chassis)
{
    long long n = 0;
    const struct view_row *vr;
    HMAP_FOR_EACH (vr, node, &c->view) {
        n += o->rows[vr->row].chassis == chassis;
    }
    return n;
}

/* Checks that catch-up 'updates' for 'c' holds exactly the changes it
 * missed: every row of its chassis that the storm's transactions changed
 * while it was away, and no row that did not change since then (rows the
 * writer changes during the reconnection may or may not be in it). */
static int
check_resume(struct ovn *o, const struct ovn_client *c,
             const json_t *updates)
{
    const json_t *rows = json_object_get(updates, "Binding");
    long long n_missed = 0;
    const char *uuid;
    json_t *ru;

    json_object_foreach ((json_t *) rows, uuid, ru) {
        const struct ovn_row *r = find_row(o, uuid);
        json_t *seq = json_object_get(json_object_get(ru, "modify"), "seq");
        if (!r || !seq || json_integer_value(seq) <= o->resume_seq) {
            set_error(o, wl_error_printf("client %d: catch-up has row %s, "
                                         "which it did not miss", c->idx,
                                         uuid));
            return -1;
        }
        n_missed += r->missed;
    }
    for (long long k = c->idx; k < o->n_rows; k += o->n_clients) {
        n_missed -= o->rows[k].missed;
    }
    if (n_missed) {
        set_error(o, wl_error_printf("client %d: catch-up lacks %lld missed "
                                     "rows", c->idx, -n_missed));
        return -1;
    }
    return 0;
}

static int
client_reply(struct ovn *o, struct ovn_client *c, const json_t *msg)
{
    json_t *id = json_object_get(msg, "id");
    json_t *error = json_object_get(msg, "error");
    json_t *result = json_object_get(msg, "result");

    if (!json_is_integer(id) || json_integer_value(id) != c->pending
        || c->wait == W_NONE) {
        set_error(o, wl_error_printf("client %d: unexpected reply",
                                     c->idx));
        return -1;
    }
    if (error && !json_is_null(error)) {
        char *s = json_dumps(error, JSON_COMPACT | JSON_ENCODE_ANY);
        set_error(o, wl_error_printf("client %d: error reply %.300s",
                                     c->idx, s));
        free(s);
        return -1;
    }
    if (c->wait != W_ECHO) {
        wl_latencies_add(&o->lat, wl_now() - c->sent_at);
    }
    o->n_replies++;

    enum client_wait wait = c->wait;
    c->wait = W_NONE;
    switch (wait) {
    case W_MONITOR: {
        json_t *found = json_array_get(result, 0);
        const char *last = json_string_value(json_array_get(result, 1));
        json_t *updates = json_array_get(result, 2);
        if (!json_is_boolean(found) || !last || strlen(last) != UUID_LEN
            || !json_is_object(updates)) {
            set_error(o, wl_error_printf("client %d: bad monitor_cond_since "
                                         "reply", c->idx));
            return -1;
        }
        if (json_is_true(found)) {
            o->n_found++;
            if (o->resume_seq && check_resume(o, c, updates)) {
                return -1;
            }
        } else {
            view_clear(c);
        }
        memcpy(c->last_id, last, UUID_LEN + 1);
        return client_apply(o, c, updates);
    }
    case W_ADD:
        /* The updates the change causes come before its reply. */
        if (view_count(o, c, c->other) != o->per_chassis[c->other]) {
            o->order_violations++;
        }
        c->removed = c->other;
        c->other = -1;
        return client_change(o, c, W_REMOVE);
    case W_REMOVE:
        if (view_count(o, c, c->removed)) {
            o->order_violations++;
        }
        return 0;
    case W_ECHO:
    case W_NONE:
    default:
        return 0;
    }
}

static int
client_msg(struct ovn *o, struct ovn_client *c, const json_t *msg)
{
    const char *method = json_string_value(json_object_get(msg, "method"));
    if (!method) {
        return client_reply(o, c, msg);
    }
    json_t *params = json_object_get(msg, "params");
    if (!strcmp(method, "update3")) {
        const char *last = json_string_value(json_array_get(params, 1));
        if (!last || strlen(last) != UUID_LEN) {
            set_error(o, wl_error_printf("client %d: bad update3", c->idx));
            return -1;
        }
        memcpy(c->last_id, last, UUID_LEN + 1);
        return client_apply(o, c, json_array_get(params, 2));
    } else if (!strcmp(method, "update2")) {
        return client_apply(o, c, json_array_get(params, 1));
    }
    set_error(o, wl_error_printf("client %d: unexpected %s", c->idx,
                                 method));
    return -1;
}

/* Reads and handles every message that has arrived for 'c'. */
static int
client_run(struct ovn *o, struct ovn_client *c)
{
    for (;;) {
        json_t *msg;
        if (wl_rpc_try_recv(c->rpc, false, &msg)) {
            set_error(o, wl_error_printf("client %d: %s", c->idx,
                                         wl_rpc_error(c->rpc)));
            return -1;
        }
        if (!msg) {
            return 0;
        }
        int retval = client_msg(o, c, msg);
        json_decref(msg);
        if (retval) {
            return retval;
        }
    }
}

/* Runs the clients until 'done(o)' or an error.  Returns 0 or -1. */
static int
run_clients(struct ovn *o, bool (*done)(const struct ovn *))
{
    struct pollfd *pfds = xcalloc(o->n_clients, sizeof *pfds);
    int *map = xcalloc(o->n_clients, sizeof *map);
    double deadline = wl_now() + TIMEOUT_SEC;
    int retval = 0;

    while (!o->error && !done(o)) {
        int n = 0;
        for (int i = 0; i < o->n_clients; i++) {
            if (o->clients[i].rpc) {
                pfds[n].fd = wl_rpc_fd(o->clients[i].rpc);
                pfds[n].events = POLLIN;
                map[n++] = i;
            }
        }
        if (poll(pfds, n, 10) < 0 && errno != EINTR) {
            ovs_fatal(errno, "poll");
        }
        for (int k = 0; k < n && !o->error; k++) {
            if (pfds[k].revents) {
                client_run(o, &o->clients[map[k]]);
            }
        }
        if (!o->writer_threaded) {
            /* The writer waits meanwhile: answer the server's inactivity
             * probes ("echo"), which over TLS come after 5 s, as a
             * daemon's idle connection does. */
            json_t *msg;
            while (!wl_rpc_try_recv(o->writer, false, &msg) && msg) {
                json_decref(msg);
            }
        }
        if (wl_now() > deadline) {
            set_error(o, wl_error_printf("clients: timed out"));
        }
    }
    if (o->error) {
        retval = -1;
    }
    free(pfds);
    free(map);
    return retval;
}

static bool
all_answered(const struct ovn *o)
{
    for (int i = 0; i < o->n_clients; i++) {
        if (o->clients[i].wait != W_NONE) {
            return false;
        }
    }
    return true;
}

static bool
all_delivered(const struct ovn *o)
{
    return o->delivered >= atomic_load(&o->expected);
}

/* Every client reads everything the server sent before an echo. */
static int
barrier(struct ovn *o)
{
    for (int i = 0; i < o->n_clients; i++) {
        if (client_send(o, &o->clients[i], W_ECHO, "echo", "[]")) {
            return -1;
        }
    }
    return run_clients(o, all_answered);
}

/* Compares every client's view with the writer's model. */
static int
check_views(struct ovn *o)
{
    for (int i = 0; i < o->n_clients; i++) {
        struct ovn_client *c = &o->clients[i];
        long long n = 0;
        for (long long k = c->idx; k < o->n_rows; k += o->n_clients) {
            const struct ovn_row *r = &o->rows[k];
            struct view_row *vr = view_find(c, k);
            if (!vr) {
                set_error(o, wl_error_printf("client %d: row %s missing",
                                             c->idx, r->uuid));
                return -1;
            }
            if (vr->seq != r->seq) {
                set_error(o, wl_error_printf("client %d: row %s has seq "
                                             "%lld, expected %lld", c->idx,
                                             r->uuid, vr->seq, r->seq));
                return -1;
            }
            n++;
        }
        if (hmap_count(&c->view) != n) {
            set_error(o, wl_error_printf("client %d: %zu rows in view, "
                                         "expected %lld", c->idx,
                                         hmap_count(&c->view), n));
            return -1;
        }
    }
    return 0;
}

static void
bytes_of_clients(const struct ovn *o, size_t *sent, size_t *received)
{
    *sent = o->closed_sent;
    *received = o->closed_received;
    for (int i = 0; i < o->n_clients; i++) {
        if (o->clients[i].rpc) {
            *sent += wl_rpc_bytes_sent(o->clients[i].rpc);
            *received += wl_rpc_bytes_received(o->clients[i].rpc);
        }
    }
}

/* Creates the rows and connects and subscribes every client. */
static int
ovn_setup(struct ovn *o, const struct wl_config *cfg)
{
    memset(o, 0, sizeof *o);
    o->cfg = cfg;
    o->n_clients = cfg->clients > 0 ? cfg->clients
                   : (int) MAX(2, OVN_CLIENTS * cfg->scale + 0.5);
    o->n_rows = cfg->rows > 0 ? cfg->rows
                : (long long) MAX(o->n_clients, OVN_ROWS * cfg->scale + 0.5);
    o->rows = xcalloc(o->n_rows, sizeof *o->rows);
    hmap_init(&o->rows_by_uuid);
    o->per_chassis = xcalloc(o->n_clients, sizeof *o->per_chassis);
    o->clients = xcalloc(o->n_clients, sizeof *o->clients);
    for (int i = 0; i < o->n_clients; i++) {
        struct ovn_client *c = &o->clients[i];
        c->idx = i;
        c->other = c->removed = -1;
        hmap_init(&c->view);
        memcpy(c->last_id, zero_uuid, sizeof zero_uuid);
    }
    o->prng = 0x9e3779b97f4a7c15ULL;
    atomic_init(&o->expected, 0);
    atomic_init(&o->probe_on, true);

    int error = wl_rpc_open(cfg->remote, &o->writer);
    if (error) {
        set_error(o, wl_error_printf("writer: connect %s: %s", cfg->remote,
                                     ovs_strerror(error)));
        return -1;
    }
    if (setup_rows(o)) {
        return -1;
    }
    for (int i = 0; i < o->n_clients; i++) {
        struct ovn_client *c = &o->clients[i];
        if (client_connect(o, c)) {
            return -1;
        }
    }
    if (run_clients(o, all_answered) || check_views(o)) {
        return -1;
    }
    o->lat.n = 0;
    o->n_replies = o->n_found = 0;
    return 0;
}

static void
ovn_destroy(struct ovn *o)
{
    for (int i = 0; i < o->n_clients && o->clients; i++) {
        wl_rpc_close(o->clients[i].rpc);
        view_clear(&o->clients[i]);
        hmap_destroy(&o->clients[i].view);
    }
    free(o->clients);
    free(o->per_chassis);
    hmap_destroy(&o->rows_by_uuid);
    free(o->rows);
    free(o->lat.v);
    wl_rpc_close(o->writer);
}

/* Fills in the common parts of 'res' and releases 'o'. */
static int
ovn_finish(struct ovn *o, struct wl_result *res, size_t sent0,
           size_t received0)
{
    size_t sent, received;

    bytes_of_clients(o, &sent, &received);
    res->bytes_sent = sent - sent0;
    res->bytes_received = received - received0;
    res->transactions = o->n_txns;
    res->operations = o->n_row_updates;
    res->rows = o->n_rows;
    res->atoms = o->n_rows * BINDING_ATOMS;
    wl_latencies_summarize(&o->lat, res->latency_ms);
    ds_put_format(&res->extra, ",\"clients\":%d,\"row_updates\":%lld,"
                  "\"replies\":%lld", o->n_clients, o->delivered,
                  o->n_replies);
    if (o->error) {
        res->error = o->error;
        o->error = NULL;
    }
    ovn_destroy(o);
    return res->error ? -1 : 0;
}

/* Sets up, runs 'timed' between the sync points with the probe running,
 * then checks every client's view. */
static int
ovn_run(const struct wl_config *cfg, struct wl_result *res,
        void (*timed)(struct ovn *, struct wl_result *))
{
    struct ovn o;
    struct probe_thread probe;
    size_t sent0 = 0, received0 = 0;
    double t0 = wl_now();

    if (ovn_setup(&o, cfg)) {
        return ovn_finish(&o, res, 0, 0);
    }
    res->setup_seconds = wl_now() - t0;
    bytes_of_clients(&o, &sent0, &received0);

    wl_sync_phase(cfg, "timed");
    t0 = wl_now();
    if (!probe_start(&probe, &o)) {
        timed(&o, res);
        res->seconds = wl_now() - t0;
        probe_finish(&probe, &o, &res->extra);
    }
    wl_sync_phase(cfg, "check");

    double t1 = wl_now();
    if (!o.error && !barrier(&o)) {
        check_views(&o);
    }
    if (!o.error && o.order_violations) {
        set_error(&o, wl_error_printf("%lld monitor_cond_change replies "
                                      "came before their updates",
                                      o.order_violations));
    }
    res->check_seconds = wl_now() - t1;
    return ovn_finish(&o, res, sent0, received0);
}

static void
fanout_timed(struct ovn *o, struct wl_result *res OVS_UNUSED)
{
    const struct wl_config *cfg = o->cfg;
    struct writer_thread writer;

    o->delivered = 0;
    atomic_store(&o->expected, 0);
    o->measure = true;
    writer_start(&writer, o, false,
                 (long long) MAX(1, FANOUT_SMALL_TXNS * cfg->scale),
                 (long long) MAX(1, FANOUT_BIG_TXNS * cfg->scale));
    while (!o->error && !(atomic_load(&writer.done) && all_delivered(o))) {
        run_clients(o, all_delivered);
    }
    writer_join(&writer);
}

static void
storm_timed(struct ovn *o, struct wl_result *res)
{
    struct writer_thread writer;

    /* The probe measures the reconnections, not the big transactions. */
    atomic_store(&o->probe_on, false);
    for (int i = 0; i < o->n_clients; i++) {
        client_close(o, &o->clients[i]);
    }
    o->resume_seq = o->txn_seq;
    o->mark_missed = true;
    for (int i = 0; i < STORM_TXNS && !o->error; i++) {
        char *error;
        if (writer_txn(o, BIG_TXN_ROWS, &error)) {
            set_error(o, wl_error_printf("writer: %s", error));
            free(error);
        }
    }
    o->mark_missed = false;
    if (o->error) {
        return;
    }
    double t0 = wl_now();
    atomic_store(&o->probe_on, true);
    writer_start(&writer, o, true, STORM_PACED_TXNS, 0);
    for (int i = 0; i < o->n_clients && !o->error; i++) {
        client_connect(o, &o->clients[i]);
    }
    run_clients(o, all_answered);
    ds_put_format(&res->extra, ",\"catchup_seconds\":%.3f,\"found\":%lld",
                  wl_now() - t0, o->n_found);
    writer_join(&writer);
}

static void
churn_timed(struct ovn *o, struct wl_result *res)
{
    struct writer_thread writer;

    writer_start(&writer, o, true, 0, 0);
    for (int i = 0; i < o->n_clients && !o->error; i++) {
        struct ovn_client *c = &o->clients[i];
        c->other = (c->idx + 1 + wl_prng_next(&o->prng)
                    % (o->n_clients - 1)) % o->n_clients;
        client_change(o, c, W_ADD);
    }
    run_clients(o, all_answered);
    writer_join(&writer);
    ds_put_format(&res->extra, ",\"changes\":%lld,\"order_violations\":%lld",
                  o->n_replies, o->order_violations);
}

static int
run_fanout(const struct wl_config *cfg, struct wl_result *res)
{
    return ovn_run(cfg, res, fanout_timed);
}

static int
run_storm(const struct wl_config *cfg, struct wl_result *res)
{
    return ovn_run(cfg, res, storm_timed);
}

static int
run_churn(const struct wl_config *cfg, struct wl_result *res)
{
    return ovn_run(cfg, res, churn_timed);
}

const struct wl_workload wl_ovn_workloads[] = {
    {"ovn-fanout", "1,000 monitor_cond clients on 100,000 rows; one writer "
     "updating random rows, 1 and 1,000 per transaction", run_fanout},
    {"ovn-storm", "the 1,000 clients reconnect at once with "
     "monitor_cond_since while the writer continues", run_storm},
    {"ovn-churn", "the 1,000 clients each add and remove another chassis's "
     "rows with monitor_cond_change", run_churn},
    {NULL, NULL, NULL},
};
