/* ovsdb/server/session.c: one client connection of ovsdb-server.  See
 * session.h.
 *
 * Method dispatch follows RFC 7047 section 4.1 and the Open vSwitch
 * extensions; replies and errors are shaped as the reference server's
 * (the tests in tests/server compare them).  "transact", "cancel" and
 * "convert" are in session-txn.c (see session-private.h). */
#include <config.h>

#include "ovsdb/server/session.h"

#include <limits.h>
#include <string.h>
#include <sys/uio.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/refbuf.h"
#include "lib/stream-ssl.h"
#include "lib/timeval.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/lock.h"
#include "ovsdb/monitor/monitor.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/rbac.h"
#include "ovsdb/server/relay.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/server/session-private.h"

VLOG_DEFINE_THIS_MODULE(session);

/* Flow control.
 *
 * Requests handled per session per run: one, as the reference, so that one
 * busy client cannot starve the others (lib/jsonrpc looks at one message
 * per call, "echo" included, and reads at most 1 MiB per call).  A session
 * with more input already buffered wakes the loop at once; one whose
 * socket has more is reported by poll().
 *
 * While a session's unsent output ('backlog', bytes) is at or over
 * MERGE_BACKLOG (the socket took none of what jsonrpc tried to send), its
 * monitors' updates are not queued but kept pending in the monitor module,
 * one change per row (ovsdb_monitor_pending_add()), so that a client that
 * is behind gets one merged update instead of one per commit and the
 * server keeps at most one change per row for it, not a queue of texts.
 * Once the backlog is empty, each monitor's pending changes leave as one
 * merged update.  At or over 'backlog_pause' it also reads nothing from
 * its client, whatever the requests, until it is under again.  Pending
 * changes also leave before anything else is queued for the session (a
 * reply, a notification), so that no client sees an update after the reply
 * to a later transaction of its own.
 *
 * Only output nothing else bounds can still grow the backlog (replies of
 * waiting transactions completing together, notifications caused by other
 * clients): past 'backlog_drop', plus the size of the largest message
 * queued since the backlog was last empty (a big reply or update is not
 * punished), the session is dropped, logged and counted. */
#define MAX_REQUESTS_PER_RUN 1

/* Work per loop pass: once requests have taken this long in one pass, the
 * costly requests (all but a few cheap methods: "echo", the inactivity
 * probe, above all) of the sessions not served yet wait for the next
 * pass, which starts with them (round robin across passes).  So a burst
 * of expensive requests (a thousand condition changes, say) delays an
 * echo by about this much, not by the whole burst, and what was answered
 * goes out at the end of each pass.  A pass begins with the first
 * ovsdb_session_run() after the owner's ovsdb_session_pass_ended(). */
#define PASS_BUDGET_MSEC 20

/* The same for output: once the requests served in one pass have queued
 * this many bytes (replies, and the updates a condition change or a new
 * monitor sends), the costly requests left wait for the next pass.  All of
 * a pass's output is alive until the flush that ends it: 1,000 clients
 * changing their conditions at once queued 10 MB in one pass, and the
 * allocators kept the pages (DESIGN.md, "Memory with monitoring
 * clients"). */
#define PASS_BUDGET_BYTES (256 * 1024)
static long long pass_start = LLONG_MIN;   /* time_msec(); MIN: new pass. */
static size_t pass_queued; /* Bytes queued by this pass's requests. */
static bool pass_waited = true;
static const struct ovsdb_session *pass_resume;  /* Start here, or NULL. */
static bool pass_skipping;      /* Before 'pass_resume' in this pass. */

#define MERGE_BACKLOG (64 * 1024)

/* How long a session being disconnected (disconnect_unaware()) may take to
 * send the replies it owes: a client that does not read them is closed
 * anyway. */
#define CLOSING_MSEC 5000

/* "transact" requests of at least this many bytes have their operations
 * parsed one at a time as they run: the parsed tree of a request takes
 * about 9 times its text, and below this that is too little to matter. */
#define LAZY_TRANSACT_MIN_SIZE (64 * 1024)
static size_t backlog_pause = 1024 * 1024;
static size_t backlog_drop = 64 * 1024 * 1024;
static struct ovsdb_session_flow_stats flow_stats;

/* A monitor of this session: a monitor id bound to a shared shape. */
struct session_monitor {
    struct hmap_node node;      /* In session's 'monitors', by 'id_s'. */
    struct ovsdb_session *session;
    json_t *id;                 /* The client's monitor id. */
    char *id_s;                 /* 'id' serialized. */
    struct ovsdb_served_db *sdb;
    struct ovsdb_monitor *m;
    struct ovsdb_monitor_pending *pending;  /* While the client is behind,
                                             * else NULL. */
};


/* Changes made to sessions from outside their own ovsdb_session_run(): see
 * ovsdb_session_outside_changes(). */
static unsigned long long outside_changes;

static void session_reset(struct ovsdb_session *);
static void release_barrier(struct ovsdb_session *);
static void held_msg_destroy(struct held_msg *);

void
ovsdb_session_set_backlog_limits(size_t pause, size_t drop)
{
    backlog_pause = pause;
    backlog_drop = drop;
}

void
ovsdb_session_get_flow_stats(struct ovsdb_session_flow_stats *stats)
{
    *stats = flow_stats;
    stats->backlog_limit = backlog_pause;
    stats->backlog_hard_cap = backlog_drop;
}

struct ovsdb_session *
ovsdb_session_create(struct ovsdb_databases *dbs, struct jsonrpc_session *js)
{
    struct ovsdb_session *s = xzalloc(sizeof *s);
    s->dbs = dbs;
    s->js = js;
    s->js_seqno = jsonrpc_session_get_seqno(js);
    /* A big request's operations are parsed as they run, not all first:
     * see session_handle_transact(). */
    jsonrpc_session_set_lazy_params(js, "transact", LAZY_TRANSACT_MIN_SIZE);
    hmap_init(&s->monitors);
    return s;
}

void
ovsdb_session_destroy(struct ovsdb_session *s)
{
    if (s) {
        if (pass_resume == s) {
            pass_resume = NULL;
        }
        session_reset(s);
        for (size_t i = 0; i < s->n_held; i++) {
            held_msg_destroy(&s->held[i]);
        }
        free(s->held);
        hmap_destroy(&s->monitors);
        free(s->waiting);
        free(s->waiters);
        jsonrpc_session_close(s->js);
        free(s->role);
        free(s);
    }
}

void
ovsdb_session_reconnect(struct ovsdb_session *s)
{
    jsonrpc_session_force_reconnect(s->js);
}

bool
ovsdb_session_is_connected(const struct ovsdb_session *s)
{
    return jsonrpc_session_is_connected(s->js);
}

int
ovsdb_session_get_last_error(const struct ovsdb_session *s)
{
    return jsonrpc_session_get_last_error(s->js);
}

void
ovsdb_session_get_reconnect_stats(const struct ovsdb_session *s,
                                  struct reconnect_stats *stats)
{
    jsonrpc_session_get_reconnect_stats(s->js, stats);
}

void
ovsdb_session_set_options(struct ovsdb_session *s, bool read_only,
                          const char *role)
{
    s->read_only = read_only;
    free(s->role);
    s->role = role && role[0] ? xstrdup(role) : NULL;
}

void
ovsdb_session_disable_monitor_cond(struct ovsdb_session *s)
{
    s->monitor_cond_disabled = true;
}

void
ovsdb_session_set_probe_interval(struct ovsdb_session *s, int msec)
{
    jsonrpc_session_set_probe_interval(s->js, msec);
}

void
ovsdb_session_set_backoff(struct ovsdb_session *s, int max_backoff)
{
    jsonrpc_session_set_backoff(s->js, MIN(1000, max_backoff), max_backoff);
}

const char *
ovsdb_session_get_name(const struct ovsdb_session *s)
{
    return jsonrpc_session_get_name(s->js);
}

bool
ovsdb_session_is_alive(const struct ovsdb_session *s)
{
    return !s->dropped && jsonrpc_session_is_alive(s->js);
}

bool
ovsdb_session_is_handshaking(const struct ovsdb_session *s)
{
    return jsonrpc_session_is_handshaking(s->js);
}

void
ovsdb_session_get_stats(const struct ovsdb_session *s,
                        struct ovsdb_session_stats *stats)
{
    stats->n_monitors = hmap_count(&s->monitors);
    stats->n_waiting_txns = s->n_waiting;
    stats->backlog = jsonrpc_session_get_backlog(s->js);
    stats->paused = s->paused;
    stats->n_pending_rows = 0;
    const struct session_monitor *sm;
    HMAP_FOR_EACH (sm, node, &s->monitors) {
        if (sm->pending) {
            stats->n_pending_rows += ovsdb_monitor_pending_n_rows(
                sm->pending);
        }
    }
}

/* Sending. */

static void
check_backlog(struct ovsdb_session *s)
{
    size_t backlog = jsonrpc_session_get_backlog(s->js);
    if (!s->dropped && backlog > backlog_drop + s->allowance) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
        VLOG_WARN_RL(&rl, "%s: backlog %zu bytes over limit %zu, closing",
                     ovsdb_session_get_name(s), backlog,
                     backlog_drop + s->allowance);
        s->dropped = true;
        flow_stats.n_drops++;
    }
}

/* Group commit: held messages. */

struct held_msg *
session_hold(struct ovsdb_session *s, struct ovsdb_served_db *sdb)
{
    if (s->n_held >= s->allocated_held) {
        s->held = x2nrealloc(s->held, &s->allocated_held, sizeof *s->held);
    }
    struct held_msg *h = &s->held[s->n_held++];
    h->sdb = sdb;
    h->ticket = sdb ? ovsdb_served_db_get_last_ticket(sdb) : 0;
    h->id = NULL;
    h->result = NULL;
    h->results_text = NULL;
    h->error = NULL;
    ds_init(&h->text);
    h->params = NULL;
    h->created = 0;
    h->retry = false;
    h->is_convert = false;
    return h;
}

static void
held_msg_destroy(struct held_msg *h)
{
    json_decref(h->id);
    json_decref(h->result);
    if (h->results_text) {
        ds_destroy(&h->results_text->text);
        free(h->results_text);
    }
    json_decref(h->error);
    json_decref(h->params);
    ds_destroy(&h->text);
}

/* Checks the backlog after a message was queued onto 'before' bytes. */
static void
note_queued(struct ovsdb_session *s, size_t before)
{
    size_t after = jsonrpc_session_get_backlog(s->js);
    if (after > before) {
        /* A big reply (an initial monitor dump, a large select) is allowed
         * on top of the limit, so that only clients that stop reading are
         * dropped.  The allowance ends once the backlog drains. */
        s->allowance = MAX(s->allowance, after - before);
    }
    check_backlog(s);
}

/* Queues the serialized message made of 'iov[0..n-1]' (borrowed).  A big
 * one (a reply, or an update of a transaction of many rows) gets the
 * allowance of note_queued(). */
static void
send_iov(struct ovsdb_session *s, const struct iovec *iov, size_t n)
{
    if (s->dropped) {
        return; /* Closing: the client must see no more. */
    }
    size_t before = jsonrpc_session_get_backlog(s->js);
    jsonrpc_session_send_raw(s->js, iov, n);
    note_queued(s, before);
}

/* Queues the serialized message 'out' (borrowed). */
static void
send_text(struct ovsdb_session *s, const struct ds *out)
{
    struct iovec iov = { .iov_base = out->string, .iov_len = out->length };
    send_iov(s, &iov, 1);
}

/* Serializes one message into 'out' with lib/json-util so that numbers
 * are spelled as the reference spells them (jansson would write the real
 * 1 as "1.0").  For a reply or an error 'id' is the request's id and
 * exactly one of 'result' and 'error' is nonnull; for a notification 'id'
 * is NULL and 'method' and 'params' are set.  Takes ownership of 'result',
 * 'error' and 'params'. */
static void
serialize_msg(struct ds *out, const json_t *id, json_t *result,
              json_t *error, const char *method, json_t *params)
{
    ds_put_cstr(out, "{\"id\":");
    if (id) {
        jsonx_put(out, id);
    } else {
        ds_put_cstr(out, "null");
    }
    if (method) {
        ds_put_cstr(out, ",\"method\":");
        json_t *m = json_string(method);
        jsonx_put(out, m);
        json_decref(m);
        ds_put_cstr(out, ",\"params\":");
        jsonx_put(out, params);
    } else if (error) {
        /* The reference leaves "result" out of errors. */
        ds_put_cstr(out, ",\"error\":");
        jsonx_put(out, error);
    } else {
        ds_put_cstr(out, ",\"result\":");
        jsonx_put(out, result);
        ds_put_cstr(out, ",\"error\":null");
    }
    ds_put_char(out, '}');
    json_decref(result);
    json_decref(error);
    json_decref(params);
}

static void flush_pending(struct ovsdb_session *);

/* Queues the serialized message 'out' (whose buffer it takes) after the
 * session's pending monitor changes. */
static void
session_send_text(struct ovsdb_session *s, struct ds *out)
{
    flush_pending(s);
    if (s->n_held) {
        /* Keep the order of replies: wait behind the held ones. */
        struct held_msg *h = session_hold(s, NULL);
        h->text = *out;
        return;
    }
    send_text(s, out);
    ds_destroy(out);
}

/* Queues one message (see serialize_msg() for the arguments, whose
 * ownership it takes), after the session's pending monitor changes. */
static void
session_send(struct ovsdb_session *s, const json_t *id, json_t *result,
             json_t *error, const char *method, json_t *params)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    serialize_msg(&out, id, result, error, method, params);
    session_send_text(s, &out);
}

void
session_send_reply(struct ovsdb_session *s, const json_t *id, json_t *result)
{
    session_send(s, id, result, NULL, NULL, NULL);
}

/* What serialize_msg() writes after a reply's result. */
static const char reply_tail[] = ",\"error\":null}";

/* Starts a reply to request 'id' in 'out', up to its result: what
 * serialize_msg() writes before a result already serialized, which
 * 'reply_tail' follows. */
static void
put_reply_head(struct ds *out, const json_t *id)
{
    ds_put_cstr(out, "{\"id\":");
    jsonx_put(out, id);
    ds_put_cstr(out, ",\"result\":");
}

/* As session_send_reply() for a result whose text is 'before' (may be
 * NULL), then 'shared', a text shared with other sessions (borrowed:
 * queued by reference, not copied), then 'after' (may be NULL). */
static void
send_shared_reply(struct ovsdb_session *s, const json_t *id,
                  const char *before, struct refbuf *shared, const char *after)
{
    struct ds head = DS_EMPTY_INITIALIZER;
    put_reply_head(&head, id);
    ds_put_cstr(&head, before ? before : "");
    struct ds tail = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&tail, after ? after : "");
    ds_put_cstr(&tail, reply_tail);
    flush_pending(s);
    if (s->n_held) {
        struct held_msg *h = session_hold(s, NULL);
        ds_put_buffer(&head, shared->data, shared->size);
        ds_put_buffer(&head, tail.string, tail.length);
        ds_destroy(&tail);
        h->text = head;
        return;
    }
    struct iovec head_iov = { head.string, head.length };
    struct iovec tail_iov = { tail.string, tail.length };
    if (!s->dropped) {
        size_t backlog = jsonrpc_session_get_backlog(s->js);
        jsonrpc_session_send_shared(s->js, &head_iov, 1, shared, &tail_iov, 1);
        note_queued(s, backlog);
    }
    ds_destroy(&head);
    ds_destroy(&tail);
}

/* Sends 'result' (takes ownership), the result of "transact" request
 * 'params' (takes ownership; may be NULL if the request cannot be run
 * again) on 'sdb', first tried at 'created', or holds it until 'sdb''s
 * pending batch is written. */
void
session_send_transact_reply(struct ovsdb_session *s,
                            struct ovsdb_served_db *sdb, const json_t *id,
                            json_t *result, json_t *params, long long created)
{
    if (ovsdb_served_db_has_pending(sdb)) {
        struct held_msg *h = session_hold(s, sdb);
        h->id = json_incref((json_t *) id);
        h->result = result;
        h->params = params;
        h->created = created;
    } else {
        json_decref(params);
        session_send_reply(s, id, result);
    }
}

/* The reply to request 'id' with result array 'results' (its buffer
 * taken), serialized as serialize_msg() would. */
static void
send_results_text(struct ovsdb_session *s, const json_t *id,
                  struct ovsdb_results_text *results)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    put_reply_head(&out, id);
    ds_put_buffer(&out, results->text.string, results->text.length);
    ds_destroy(&results->text);
    ds_put_cstr(&out, reply_tail);
    session_send_text(s, &out);
}

void
session_send_transact_text(struct ovsdb_session *s,
                           struct ovsdb_served_db *sdb, const json_t *id,
                           struct ovsdb_results_text *results)
{
    if (ovsdb_served_db_has_pending(sdb)) {
        struct held_msg *h = session_hold(s, sdb);
        h->id = json_incref((json_t *) id);
        h->results_text = xmemdup(results, sizeof *results);
    } else {
        send_results_text(s, id, results);
    }
}

/* True if 'result', a "transact" result array, reports an error. */
static bool
result_has_error(const json_t *result)
{
    size_t i;
    json_t *r;
    json_array_foreach (result, i, r) {
        if (json_object_get(r, "error")) {
            return true;
        }
    }
    return false;
}

void
ovsdb_session_batch_done(struct ovsdb_session *s, struct ovsdb_served_db *sdb,
                         uint64_t ticket, const struct ovsdb_error *error)
{
    if (!s->n_held) {
        return;
    }
    /* The batch's updates, if they are pending, go before its replies. */
    flush_pending(s);
    /* The replies held for 'sdb' up to 'ticket' waited for this outcome. */
    for (size_t i = 0; i < s->n_held; i++) {
        struct held_msg *h = &s->held[i];
        if (h->sdb == sdb && h->ticket <= ticket) {
            if (error && h->params
                && ovsdb_error_get_tag(error) == OVSDB_E_CLUSTER) {
                /* It did not happen: run it again (below). */
                h->retry = true;
            } else if (error && h->is_convert) {
                json_decref(h->result);
                h->result = NULL;
                h->error = ovsdb_error_to_json(error);
            } else if (error && h->results_text) {
                if (!h->results_text->has_error) {
                    ovsdb_execute_append_error_text(h->results_text,
                                                    ovsdb_error_clone(error));
                }
            } else if (error && !result_has_error(h->result)) {
                /* As for a commit that failed on its own: the operations'
                 * results, then the error. */
                ovsdb_execute_append_error(h->result,
                                           ovsdb_error_clone(error));
            }
            h->sdb = NULL;
        }
    }

    /* Send what is final, in order. */
    size_t n_held = s->n_held;
    struct held_msg *held = s->held;
    size_t i;
    s->n_held = 0;
    for (i = 0; i < n_held && !held[i].sdb; i++) {
        struct held_msg *h = &held[i];
        if (h->retry) {
            /* Due at once: the cluster may have a leader again already. */
            struct waiting_txn *t = session_add_waiting_txn(s, h->id,
                                                            h->params, sdb,
                                                            h->created,
                                                            LLONG_MAX, NULL);
            t->seqno--;
            t->is_convert = h->is_convert;
            h->id = h->params = NULL;
        } else if (h->result || h->error) {
            session_send(s, h->id, h->result, h->error, NULL, NULL);
            h->result = h->error = NULL;
        } else if (h->results_text) {
            send_results_text(s, h->id, h->results_text);
            free(h->results_text);
            h->results_text = NULL;
        } else {
            /* With the allowance a big reply gets when it is not held. */
            send_text(s, &h->text);
        }
        held_msg_destroy(h);
    }
    memmove(held, &held[i], (n_held - i) * sizeof *held);
    s->n_held = n_held - i;
}

void
session_send_error(struct ovsdb_session *s, const json_t *id, json_t *error)
{
    session_send(s, id, NULL, error, NULL, NULL);
}

static void
send_notify(struct ovsdb_session *s, const char *method, json_t *params)
{
    session_send(s, NULL, NULL, NULL, method, params);
}

void
session_send_ovsdb_error(struct ovsdb_session *s, const json_t *id,
                         struct ovsdb_error *error)
{
    session_send_error(s, id, ovsdb_error_to_json_free(error));
}

/* Monitors. */

static struct session_monitor *
find_monitor(const struct ovsdb_session *s, const char *id_s)
{
    struct session_monitor *sm;
    HMAP_FOR_EACH_WITH_HASH (sm, node, hash_string(id_s, 0), &s->monitors) {
        if (!strcmp(sm->id_s, id_s)) {
            return sm;
        }
    }
    return NULL;
}

static char *
id_to_string(const json_t *id)
{
    return json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* The text of an update notification up to its monitor id. */
static const char *
update_head(enum ovsdb_monitor_version version)
{
    return (version == OVSDB_MONITOR_V1
                ? "{\"id\":null,\"method\":\"update\",\"params\":["
            : version == OVSDB_MONITOR_V2
                ? "{\"id\":null,\"method\":\"update2\",\"params\":["
                : "{\"id\":null,\"method\":\"update3\",\"params\":[");
}

/* Writes ',"TXN-ID"' (an update3's last transaction id, after the monitor
 * id) at 'buf' and returns its length. */
static size_t
format_txn_id(const struct uuid *txn_id, char buf[UUID_LEN + 4])
{
    buf[0] = ',';
    buf[1] = '"';
    uuid_to_string(txn_id, buf + 2);
    buf[UUID_LEN + 2] = '"';
    return UUID_LEN + 3;
}

/* Queues one update notification of 'sm' whose <table-updates> text is
 * 'body' ('size' bytes; for update3, of transaction 'txn_id'): by
 * reference if 'shared' (which holds 'body') is nonnull, else copied. */
static void
send_update(struct ovsdb_session *s, const struct session_monitor *sm,
            const struct uuid *txn_id, const char *body, size_t size,
            struct refbuf *shared)
{
    enum ovsdb_monitor_version version = ovsdb_monitor_get_version(sm->m);
    const char *head = update_head(version);
    char txn[UUID_LEN + 4];
    struct iovec iov[6];
    int n = 0;

    /* Pieces rather than a printf: this runs for every update of every
     * session. */
    iov[n].iov_base = (char *) head;
    iov[n++].iov_len = strlen(head);
    iov[n].iov_base = sm->id_s;
    iov[n++].iov_len = strlen(sm->id_s);
    if (version == OVSDB_MONITOR_V3) {
        iov[n].iov_base = txn;
        iov[n++].iov_len = format_txn_id(txn_id, txn);
    }
    iov[n].iov_base = ",";
    iov[n++].iov_len = 1;
    if (shared) {
        /* By reference: one copy for every session behind on it. */
        struct iovec tail = { "]}", 2 };
        if (!s->dropped) {
            size_t before = jsonrpc_session_get_backlog(s->js);
            jsonrpc_session_send_shared(s->js, iov, n, shared, &tail, 1);
            note_queued(s, before);
        }
    } else {
        iov[n].iov_base = (char *) body;
        iov[n++].iov_len = size;
        iov[n].iov_base = "]}";
        iov[n++].iov_len = 2;
        send_iov(s, iov, n);
    }
    s->has_updates = true;
}

/* Sends the serialized update 'u' for 'sm' without parsing or serializing
 * it again: the body is shared by every client with the same shape.  Or,
 * if the client is behind (see "Flow control" above), keeps its changes
 * pending. */
static void
monitor_update_cb(void *sm_, const struct ovsdb_monitor_update *u)
{
    struct session_monitor *sm = sm_;
    struct ovsdb_session *s = sm->session;
    outside_changes++;
    size_t merge_at = MIN(MERGE_BACKLOG, backlog_pause);
    if (s->n_pending || jsonrpc_session_get_backlog(s->js) >= merge_at) {
        /* Once one monitor of the session is pending, all are, so that
         * updates cannot overtake each other. */
        if (!sm->pending) {
            sm->pending = ovsdb_monitor_pending_create();
            s->n_pending++;
        }
        ovsdb_monitor_pending_add(sm->pending, sm->m, u);
        flow_stats.n_coalesced++;
        return;
    }
    send_update(s, sm, u->txn_id, u->body, u->body_size, u->shared);
}

/* Queues 'sm''s pending changes as one merged update and forgets them.
 * Not held behind held replies: like any update, it is about transactions
 * already written. */
static void
send_pending(struct ovsdb_session *s, struct session_monitor *sm)
{
    struct ds updates = DS_EMPTY_INITIALIZER;
    if (ovsdb_monitor_pending_take(sm->pending, sm->m, &updates)) {
        /* By reference, not copied into the output buffer: a merged
         * update can be megabytes. */
        struct refbuf *body = refbuf_from_ds(&updates);
        send_update(s, sm, ovsdb_monitor_pending_get_txn_id(sm->pending),
                    body->data, body->size, body);
        refbuf_unref(body);
    }
    ds_destroy(&updates);
    ovsdb_monitor_pending_destroy(sm->pending);
    sm->pending = NULL;
    s->n_pending--;
}

/* Queues every pending change of 's', one update per monitor. */
static void
flush_pending(struct ovsdb_session *s)
{
    if (s->n_pending) {
        struct session_monitor *sm;
        HMAP_FOR_EACH (sm, node, &s->monitors) {
            if (sm->pending) {
                send_pending(s, sm);
            }
        }
    }
}

/* Queues the pending changes if the client has taken all of the backlog.
 * Returns true if it did. */
static bool
flush_pending_if_drained(struct ovsdb_session *s)
{
    if (s->n_pending && !jsonrpc_session_get_backlog(s->js)) {
        flush_pending(s);
        return true;
    }
    return false;
}

static void
monitor_destroy(struct ovsdb_session *s, struct session_monitor *sm)
{
    if (sm->pending) {
        ovsdb_monitor_pending_destroy(sm->pending);
        s->n_pending--;
    }
    hmap_remove(&s->monitors, &sm->node);
    ovsdb_monitor_unsubscribe(sm->m, monitor_update_cb, sm);
    ovsdb_monitor_unref(sm->m);
    json_decref(sm->id);
    free(sm->id_s);
    free(sm);
}

struct ovsdb_error *
session_params_error(const json_t *params, const char *method,
                     const char *what)
{
    return ovsdb_syntax_error(params, OVSDB_E_SYNTAX,
                              "%s request params must be %s", method, what);
}

struct ovsdb_served_db *
session_lookup_db(const struct ovsdb_session *s, const json_t *params,
                  const char *method, struct ovsdb_error **errorp)
{
    const json_t *name = json_array_get(params, 0);
    struct ovsdb_served_db *sdb = ovsdb_databases_find(s->dbs,
                                                       json_string_value(
                                                           name));
    if (!sdb) {
        *errorp = ovsdb_syntax_error(params, OVSDB_E_UNKNOWN_DATABASE,
                                     "%s request specifies unknown "
                                     "database %s", method,
                                     json_string_value(name));
    }
    return sdb;
}

static void
handle_monitor(struct ovsdb_session *s, const struct jsonrpc_msg *msg,
               enum ovsdb_monitor_version version)
{
    const json_t *params = msg->params;
    size_t n_params = version == OVSDB_MONITOR_V3 ? 4 : 3;
    struct ovsdb_error *error = NULL;

    if (json_array_size(params) != n_params
        || !json_is_string(json_array_get(params, 0))) {
        error = session_params_error(
            params, msg->method,
            version == OVSDB_MONITOR_V3
                ? "<db-name>, <monitor-id>, <monitor-requests>"
                  ", <last-txn-id>"
                : "<db-name>, <monitor-id>, "
                  "<monitor-requests>");
        session_send_ovsdb_error(s, msg->id, error);
        return;
    }
    struct ovsdb_served_db *sdb = session_lookup_db(s, params, msg->method,
                                                    &error);
    if (!sdb) {
        session_send_ovsdb_error(s, msg->id, error);
        return;
    }

    json_t *id = json_array_get(params, 1);
    char *id_s = id_to_string(id);
    if (find_monitor(s, id_s)) {
        free(id_s);
        session_send_ovsdb_error(s, msg->id,
                                 ovsdb_syntax_error(id, OVSDB_E_SYNTAX,
                                                    "duplicate monitor ID"));
        return;
    }

    struct ovsdb_monitor *m;
    error = ovsdb_monitor_hub_get(ovsdb_served_db_get_hub(sdb),
                                  json_array_get(params, 2), version, &m);

    /* The reference checks <last-txn-id> after the requests, and words
     * its two complaints so. */
    struct uuid last_id;
    if (!error && version == OVSDB_MONITOR_V3) {
        const json_t *last = json_array_get(params, 3);
        if (!json_is_string(last)) {
            error = ovsdb_syntax_error(last, OVSDB_E_SYNTAX,
                                       "last-txn-id must be string");
        } else if (!uuid_from_string(&last_id, json_string_value(last))) {
            error = ovsdb_syntax_error(last, OVSDB_E_SYNTAX,
                                       "last-txn-id must be UUID format.");
        }
        if (error) {
            ovsdb_monitor_unref(m);
        }
    }
    if (error) {
        free(id_s);
        session_send_ovsdb_error(s, msg->id, error);
        return;
    }

    /* The initial contents, as text shared by every client of the shape:
     * the whole reply of "monitor" and "monitor_cond", and the third
     * member of monitor_cond_since's [found, last-txn-id, updates] when
     * the client's last transaction is not in the history. */
    struct refbuf *text = NULL;
    char *v3_head = NULL;
    if (version == OVSDB_MONITOR_V3) {
        struct ds updates = DS_EMPTY_INITIALIZER;
        bool found = ovsdb_monitor_get_since(m, &last_id, &updates);
        char uuid_s[UUID_LEN + 1];
        uuid_to_string(ovsdb_monitor_hub_get_last_txn_id(
                           ovsdb_served_db_get_hub(sdb)),
                       uuid_s);
        v3_head = xasprintf("[%s,\"%s\",", found ? "true" : "false", uuid_s);
        /* The changes are this client's alone, but go out the same way as
         * the shared initial contents: as text, never as a tree. */
        text = (found ? refbuf_from_ds(&updates)
                      : ovsdb_monitor_get_initial_text(m));
        ds_destroy(&updates);
    } else {
        text = ovsdb_monitor_get_initial_text(m);
    }

    struct session_monitor *sm = xzalloc(sizeof *sm);
    sm->session = s;
    sm->id = json_incref(id);
    sm->id_s = id_s;
    sm->sdb = sdb;
    sm->m = m;
    hmap_insert(&s->monitors, &sm->node, hash_string(id_s, 0));
    ovsdb_monitor_subscribe(m, monitor_update_cb, sm);
    send_shared_reply(s, msg->id, v3_head, text, v3_head ? "]" : NULL);
    refbuf_unref(text);
    free(v3_head);
}

static void
handle_monitor_cond_change(struct ovsdb_session *s,
                           const struct jsonrpc_msg *msg)
{
    const json_t *params = msg->params;
    if (json_array_size(params) != 3) {
        /* The reference's words. */
        session_send_ovsdb_error(s, msg->id,
                                 ovsdb_syntax_error(params, OVSDB_E_SYNTAX,
                                                    "invalid parameters"));
        return;
    }

    json_t *old_id = json_array_get(params, 0);
    json_t *new_id = json_array_get(params, 1);
    char *old_s = id_to_string(old_id);
    char *new_s = id_to_string(new_id);
    struct session_monitor *sm = find_monitor(s, old_s);
    struct ovsdb_error *error = NULL;
    if (!sm) {
        error = ovsdb_syntax_error(old_id, OVSDB_E_SYNTAX,
                                   "unknown monitor session");
    } else if (strcmp(old_s, new_s) && find_monitor(s, new_s)) {
        error = ovsdb_syntax_error(new_id, OVSDB_E_SYNTAX,
                                   "duplicate monitor ID");
    }

    struct ovsdb_monitor *new_m = NULL;
    if (!error) {
        error = ovsdb_monitor_change_cond(sm->m, json_array_get(params, 2),
                                          &new_m);
    }
    free(old_s);
    if (error) {
        free(new_s);
        session_send_ovsdb_error(s, msg->id, error);
        return;
    }

    /* As the reference: the rows that the change brings in or takes out
     * are sent before the change's reply, written straight to text. */
    enum ovsdb_monitor_version version = ovsdb_monitor_get_version(new_m);
    struct ds note = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&note, update_head(version));
    jsonx_put(&note, new_id);
    if (version == OVSDB_MONITOR_V3) {
        char txn[UUID_LEN + 4];
        size_t len = format_txn_id(ovsdb_monitor_hub_get_last_txn_id(
                                       ovsdb_monitor_get_hub(new_m)),
                                   txn);
        ds_put_buffer(&note, txn, len);
    }
    ds_put_char(&note, ',');
    bool changed = ovsdb_monitor_put_cond_change(&note, sm->m, new_m);
    ovsdb_monitor_unsubscribe(sm->m, monitor_update_cb, sm);
    ovsdb_monitor_unref(sm->m);
    sm->m = new_m;
    ovsdb_monitor_subscribe(new_m, monitor_update_cb, sm);

    hmap_remove(&s->monitors, &sm->node);
    json_decref(sm->id);
    free(sm->id_s);
    sm->id = json_incref(new_id);
    sm->id_s = new_s;
    hmap_insert(&s->monitors, &sm->node, hash_string(new_s, 0));

    if (changed) {
        ds_put_cstr(&note, "]}");
        session_send_text(s, &note);
    } else {
        ds_destroy(&note);
    }
    session_send_reply(s, msg->id, json_object());
}

static void
handle_monitor_cancel(struct ovsdb_session *s, const struct jsonrpc_msg *msg)
{
    if (json_array_size(msg->params) != 1) {
        session_send_ovsdb_error(s, msg->id,
                                 session_params_error(msg->params, msg->method,
                                                      "<monitor-id>"));
        return;
    }
    char *id_s = id_to_string(json_array_get(msg->params, 0));
    struct session_monitor *sm = find_monitor(s, id_s);
    free(id_s);
    if (!sm) {
        session_send_error(s, msg->id, json_string("unknown monitor"));
        return;
    }
    monitor_destroy(s, sm);
    session_send_reply(s, msg->id, json_object());
}

/* Locks. */

bool
session_lock_held_cb(const char *name, void *s_)
{
    struct ovsdb_session *s = s_;
    return ovsdb_lock_server_is_owner(ovsdb_databases_get_lock_server(s->dbs),
                                      name, s);
}

static void
notify_lock(struct ovsdb_session *s, const char *method, const char *name)
{
    outside_changes++; /* ('s' is rarely the session being run.) */
    send_notify(s, method, json_pack("[s]", name));
}

static void
remove_waiter(struct ovsdb_session *s, size_t i)
{
    struct ovsdb_lock_waiter *w = s->waiters[i];
    char *name = xstrdup(ovsdb_lock_waiter_get_name(w));
    s->waiters[i] = s->waiters[--s->n_waiters];
    struct ovsdb_session *new_owner = ovsdb_lock_waiter_remove(w);
    if (new_owner) {
        notify_lock(new_owner, "locked", name);
    }
    free(name);
}

static void
handle_lock(struct ovsdb_session *s, const struct jsonrpc_msg *msg,
            bool is_unlock, enum ovsdb_lock_mode mode)
{
    const json_t *params = msg->params;
    const json_t *name_json = json_array_get(params, 0);
    if (json_array_size(params) != 1 || !json_is_string(name_json)
        || !ovsdb_lock_name_is_valid(json_string_value(name_json))) {
        session_send_ovsdb_error(s, msg->id,
                                 session_params_error(params, msg->method,
                                                      "<id>"));
        return;
    }
    const char *name = json_string_value(name_json);
    struct ovsdb_lock_server *ls = ovsdb_databases_get_lock_server(s->dbs);

    size_t i;
    for (i = 0; i < s->n_waiters; i++) {
        if (!strcmp(ovsdb_lock_waiter_get_name(s->waiters[i]), name)) {
            break;
        }
    }
    bool have = i < s->n_waiters;

    if (is_unlock) {
        if (!have) {
            session_send_ovsdb_error(
                s, msg->id,
                ovsdb_syntax_error(params, OVSDB_E_SYNTAX,
                                   "unlock: \"unlock\" without "
                                   "\"lock\" or \"steal\""));
            return;
        }
        remove_waiter(s, i);
        session_send_reply(s, msg->id, json_object());
        return;
    }

    if (have) {
        session_send_ovsdb_error(
            s, msg->id,
            ovsdb_syntax_error(params, OVSDB_E_SYNTAX,
                               "must issue \"unlock\" before "
                               "new \"%s\"",
                               msg->method));
        return;
    }

    void *victim;
    struct ovsdb_lock_waiter *w = ovsdb_lock_server_lock(ls, name, s, mode,
                                                         &victim);
    if (s->n_waiters >= s->allocated_waiters) {
        s->waiters = x2nrealloc(s->waiters, &s->allocated_waiters,
                                sizeof *s->waiters);
    }
    s->waiters[s->n_waiters++] = w;
    session_send_reply(s, msg->id,
                       json_pack("{s:b}", "locked",
                                 ovsdb_lock_waiter_is_owner(w)));
    if (victim && victim != s) {
        notify_lock(victim, "stolen", name);
    }
}

/* Dispatch. */

static void
handle_request(struct ovsdb_session *s, struct jsonrpc_msg *msg)
{
    const char *method = msg->method;
    const json_t *params = msg->params;

    if (strcmp(method, "transact")) {
        /* Only "transact" may see data that a pending group commit has not
         * written yet (its reply is held until then). */
        ovsdb_databases_flush(s->dbs);
    }
    /* Pending updates go first, in terms of the monitors as they are now
     * (the request may change or cancel them). */
    flush_pending(s);
    if (s->monitor_cond_disabled
        && (!strcmp(method, "monitor_cond")
            || !strcmp(method, "monitor_cond_since"))) {
        session_send_error(s, msg->id, json_string("unknown method"));
    } else if (!strcmp(method, "transact")) {
        session_handle_transact(s, msg);
    } else if (!strcmp(method, "monitor")) {
        handle_monitor(s, msg, OVSDB_MONITOR_V1);
    } else if (!strcmp(method, "monitor_cond")) {
        handle_monitor(s, msg, OVSDB_MONITOR_V2);
    } else if (!strcmp(method, "monitor_cond_since")) {
        handle_monitor(s, msg, OVSDB_MONITOR_V3);
    } else if (!strcmp(method, "monitor_cond_change")) {
        handle_monitor_cond_change(s, msg);
    } else if (!strcmp(method, "monitor_cancel")) {
        handle_monitor_cancel(s, msg);
    } else if (!strcmp(method, "lock")) {
        handle_lock(s, msg, false, OVSDB_LOCK_WAIT);
    } else if (!strcmp(method, "steal")) {
        handle_lock(s, msg, false, OVSDB_LOCK_STEAL);
    } else if (!strcmp(method, "unlock")) {
        handle_lock(s, msg, true, OVSDB_LOCK_WAIT);
    } else if (!strcmp(method, "convert")) {
        session_handle_convert(s, msg);
    } else if (!strcmp(method, "echo")) {
        session_send_reply(s, msg->id, json_incref((json_t *) params));
    } else if (!strcmp(method, "list_dbs")) {
        session_send_reply(s, msg->id, ovsdb_databases_list(s->dbs));
    } else if (!strcmp(method, "get_schema")) {
        struct ovsdb_error *error = NULL;
        struct ovsdb_served_db *sdb = NULL;
        /* As the reference, only the first parameter counts: Open vSwitch
         * 3.1's Python IDL sends ["_Server", <uuid>]. */
        if (!json_is_string(json_array_get(params, 0))) {
            error = ovsdb_syntax_error(params, OVSDB_E_SYNTAX,
                                       "get_schema request params must "
                                       "begin with <db-name>");
        } else {
            sdb = session_lookup_db(s, params, method, &error);
        }
        if (error) {
            session_send_ovsdb_error(s, msg->id, error);
        } else {
            struct ovsdb *db = ovsdb_served_db_get_ovsdb(sdb);
            session_send_reply(s, msg->id,
                               ovsdb_schema_to_json(ovsdb_get_schema(db)));
        }
    } else if (!strcmp(method, "get_server_id")) {
        char uuid_s[UUID_LEN + 1];
        uuid_to_string(ovsdb_databases_get_server_id(s->dbs), uuid_s);
        session_send_reply(s, msg->id, json_string(uuid_s));
    } else if (!strcmp(method, "set_db_change_aware")) {
        const json_t *value = json_array_get(params, 0);
        if (json_array_size(params) != 1 || !json_is_boolean(value)) {
            session_send_ovsdb_error(s, msg->id,
                                     session_params_error(params, method,
                                                          "<boolean>"));
        } else {
            s->db_change_aware = json_is_true(value);
            session_send_reply(s, msg->id, json_object());
        }
    } else {
        session_send_error(s, msg->id, json_string("unknown method"));
    }
}

static void
handle_msg(struct ovsdb_session *s, struct jsonrpc_msg *msg)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

    switch (msg->type) {
    case JSONRPC_REQUEST:
        handle_request(s, msg);
        break;
    case JSONRPC_NOTIFY:
        if (!strcmp(msg->method, "cancel")) {
            session_handle_cancel(s, msg);
        }
        break;
    case JSONRPC_REPLY:
    case JSONRPC_ERROR:
        VLOG_WARN_RL(&rl, "%s: received unexpected %s message",
                     ovsdb_session_get_name(s),
                     jsonrpc_msg_type_to_string(msg->type));
        break;
    }
}

/* True if 'msg' may cost more than a moment to handle (see
 * PASS_BUDGET_MSEC). */
static bool
is_costly(const struct jsonrpc_msg *msg)
{
    static const char *const cheap[] = {
        "echo", "list_dbs", "get_server_id", "set_db_change_aware",
        "lock", "steal", "unlock", "monitor_cancel",
    };
    if (msg->type != JSONRPC_REQUEST) {
        return false;
    }
    for (size_t i = 0; i < ARRAY_SIZE(cheap); i++) {
        if (!strcmp(msg->method, cheap[i])) {
            return false;
        }
    }
    return true;
}

/* Forgets everything the client set up: monitors, waiting transactions,
 * locks (as when it disconnects). */
static void
session_reset(struct ovsdb_session *s)
{
    struct session_monitor *sm, *next;
    HMAP_FOR_EACH_SAFE (sm, next, node, &s->monitors) {
        monitor_destroy(s, sm);
    }
    while (s->n_waiting) {
        session_remove_waiting_txn(s, s->n_waiting - 1);
    }
    while (s->n_waiters) {
        remove_waiter(s, s->n_waiters - 1);
    }
    s->db_change_aware = false;
    s->allowance = 0;
    jsonrpc_msg_destroy(s->deferred_msg);
    s->deferred_msg = NULL;
    release_barrier(s);
}

/* Read barrier.
 *
 * A clustered database's transactions are its state as soon as they are
 * proposed (so the next ones build on them), but they are only decided
 * when a majority of the cluster has them, passes of the loop later, and
 * may still fail and be undone.  A "transact" that reads that state has
 * its reply held until then (session_send_transact_reply()).  A request that
 * starts or changes a monitor cannot be held that way: its reply carries
 * rows that the monitor's later updates build on.  So such a request
 * waits, and the session reads nothing after it, until nothing is
 * undecided on its database; meanwhile the database takes no new writes
 * (ovsdb_served_db_hold_writes()), so that a steady stream of writes
 * cannot keep it waiting. */

/* The database that 'msg' (a request) would start or change a monitor on,
 * if it is one with transactions not decided yet, else NULL. */
static struct ovsdb_served_db *
read_barrier(struct ovsdb_session *s, const struct jsonrpc_msg *msg)
{
    if (msg->type != JSONRPC_REQUEST || !json_is_array(msg->params)) {
        return NULL;
    }
    const json_t *arg0 = json_array_get(msg->params, 0);
    struct ovsdb_served_db *sdb = NULL;
    if (!strcmp(msg->method, "monitor_cond_change")) {
        char *id_s = arg0 ? id_to_string(arg0) : NULL;
        const struct session_monitor *sm = id_s ? find_monitor(s, id_s) : NULL;
        free(id_s);
        sdb = sm ? sm->sdb : NULL;
    } else if (!strcmp(msg->method, "monitor")
               || !strcmp(msg->method, "monitor_cond")
               || !strcmp(msg->method, "monitor_cond_since")) {
        sdb = (json_is_string(arg0)
                   ? ovsdb_databases_find(s->dbs, json_string_value(arg0))
                   : NULL);
    }
    if (!sdb || !ovsdb_served_db_get_raft(sdb)) {
        return NULL;
    }
    ovsdb_served_db_flush(sdb);
    return ovsdb_served_db_has_pending(sdb) ? sdb : NULL;
}

static void
release_barrier(struct ovsdb_session *s)
{
    if (s->barrier) {
        ovsdb_served_db_hold_writes(s->barrier, false);
        s->barrier = NULL;
    }
}

void
ovsdb_session_run(struct ovsdb_session *s)
{
    jsonrpc_session_run(s->js);

    unsigned int seqno = jsonrpc_session_get_seqno(s->js);
    if (seqno != s->js_seqno) {
        /* An outgoing session reconnected: the peer knows nothing of our
         * old state. */
        s->js_seqno = seqno;
        session_reset(s);
    }
    if (!ovsdb_session_is_alive(s)) {
        return;
    }
    if (s->closing) {
        if ((!s->n_held && !jsonrpc_session_get_backlog(s->js))
            || time_msec() >= s->closing_deadline) {
            s->dropped = true;
        }
        return;
    }

    flush_pending_if_drained(s);
    session_run_waiting_txns(s);

    if (pass_waited) {
        pass_waited = false;
        pass_start = time_msec();
        pass_queued = 0;
        pass_skipping = pass_resume != NULL;
    }
    if (pass_skipping && s == pass_resume) {
        pass_skipping = false;
    }
    bool over = (pass_skipping || time_msec() - pass_start >= PASS_BUDGET_MSEC
                 || pass_queued >= PASS_BUDGET_BYTES);
    s->deferred = false;
    if (!over && s == pass_resume) {
        pass_resume = NULL;
    }

    for (int i = 0; i < MAX_REQUESTS_PER_RUN; i++) {
        if (s->dropped) {
            return;
        }
        if (jsonrpc_session_get_backlog(s->js) >= backlog_pause) {
            /* Flow control: read nothing more until the client reads. */
            if (!s->paused) {
                s->paused = true;
                flow_stats.n_pauses++;
            }
            return;
        }
        s->paused = false;
        struct jsonrpc_msg *msg = s->deferred_msg;
        s->deferred_msg = NULL;
        if (!msg) {
            msg = jsonrpc_session_recv(s->js);
        }
        if (!msg) {
            break;
        }
        if (over && is_costly(msg)) {
            s->deferred_msg = msg;
            s->deferred = true;
            if (!pass_skipping && !pass_resume) {
                pass_resume = s;
            }
            break;
        }
        struct ovsdb_served_db *barrier = read_barrier(s, msg);
        if (barrier) {
            s->deferred_msg = msg;
            if (!s->barrier) {
                s->barrier = barrier;
                ovsdb_served_db_hold_writes(barrier, true);
            }
            break;
        }
        release_barrier(s);
        size_t before = jsonrpc_session_get_backlog(s->js);
        handle_msg(s, msg);
        jsonrpc_msg_destroy(msg);
        size_t after = jsonrpc_session_get_backlog(s->js);
        pass_queued += after > before ? after - before : 0;
    }
    if (!jsonrpc_session_get_backlog(s->js)) {
        s->allowance = 0;
    }
}

void
ovsdb_session_flush(struct ovsdb_session *s)
{
    s->has_updates = false;
    if (jsonrpc_session_get_backlog(s->js)) {
        jsonrpc_session_flush(s->js);
        if (!jsonrpc_session_get_backlog(s->js)) {
            s->allowance = 0;
        }
    }
    if (flush_pending_if_drained(s)) {
        jsonrpc_session_flush(s->js);
    }
}

bool
ovsdb_session_has_updates(const struct ovsdb_session *s)
{
    return s->has_updates;
}

void
ovsdb_session_wait(struct ovsdb_session *s)
{
    if (s->deferred
        || (s->barrier && !ovsdb_served_db_has_pending(s->barrier))) {
        poll_immediate_wake();
    }
    jsonrpc_session_wait(s->js);
    if (!ovsdb_session_is_alive(s)) {
        poll_immediate_wake();
        return;
    }
    if (s->closing) {
        if (!s->n_held && !jsonrpc_session_get_backlog(s->js)) {
            poll_immediate_wake();
        } else {
            poll_timer_wait_until(s->closing_deadline);
        }
        return;
    }
    if (jsonrpc_session_get_backlog(s->js) < backlog_pause) {
        if (!s->barrier || !ovsdb_served_db_has_pending(s->barrier)) {
            /* (Behind a read barrier, input waits unread: waking for it
             * would only spin.) */
            jsonrpc_session_recv_wait(s->js);
        }
        if (s->n_pending && !jsonrpc_session_get_backlog(s->js)) {
            poll_immediate_wake();
        }
    }
    long long now = s->n_waiting ? time_msec() : 0;
    for (size_t i = 0; i < s->n_waiting; i++) {
        const struct waiting_txn *t = s->waiting[i];
        if (session_waiting_txn_is_due(t, now)) {
            poll_immediate_wake();
        } else if (t->timeout != LLONG_MAX) {
            poll_timer_wait_until(t->created + t->timeout);
        }
    }
}

bool
ovsdb_session_is_idle(const struct ovsdb_session *s)
{
    /* Everything that ovsdb_session_run() may act on without the
     * connection or a timer telling it: a transaction waiting for its
     * commit or its relay, a reply held for a group commit, a barrier,
     * pending monitor changes, output. */
    return (!s->dropped && !s->closing && !s->deferred && !s->deferred_msg
            && !s->barrier && !s->paused && !s->n_pending && !s->has_updates
            && !s->n_waiting && !s->n_held
            && jsonrpc_session_is_connected(s->js)
            && !jsonrpc_session_get_backlog(s->js)
            && !jsonrpc_session_is_handshaking(s->js));
}

unsigned long long
ovsdb_session_outside_changes(void)
{
    return outside_changes;
}

void
ovsdb_session_pass_ended(void)
{
    pass_waited = true;
}

/* A client that did not ask to be told of database changes learns of
 * them by being disconnected, whatever it was using, as with the
 * reference: it reconnects and reads the set of databases afresh.  It
 * still gets the replies already decided (the reply to its own "convert",
 * say), within a bound. */
static void
disconnect_unaware(struct ovsdb_session *s, const char *why, const char *db)
{
    if (!s->db_change_aware && !s->dropped && !s->closing) {
        VLOG_INFO("%s: disconnecting (%s %s database)",
                  ovsdb_session_get_name(s), why, db);
        s->closing = true;
        s->closing_deadline = time_msec() + CLOSING_MSEC;
        /* Nothing more than those replies: no update of the change that
         * closes it, as the reference's client sees none. */
        struct session_monitor *sm, *next;
        HMAP_FOR_EACH_SAFE (sm, next, node, &s->monitors) {
            monitor_destroy(s, sm);
        }
    }
}

void
ovsdb_session_dbs_changed(struct ovsdb_session *s, const char *why,
                          const char *name)
{
    disconnect_unaware(s, why, name);
}

void
ovsdb_session_db_removed(struct ovsdb_session *s, struct ovsdb_served_db *sdb)
{
    bool uses_sdb = false;
    for (size_t i = 0; i < s->n_waiting; i++) {
        uses_sdb = uses_sdb || s->waiting[i]->sdb == sdb;
    }
    struct session_monitor *sm, *next;
    HMAP_FOR_EACH (sm, node, &s->monitors) {
        uses_sdb = uses_sdb || sm->sdb == sdb;
    }
    if (uses_sdb) {
        disconnect_unaware(s, "replacing", ovsdb_served_db_get_name(sdb));
    }

    if (s->barrier == sdb) {
        /* The request itself will find the database gone, or new. */
        release_barrier(s);
    }
    for (size_t i = 0; i < s->n_waiting;) {
        if (s->waiting[i]->sdb == sdb) {
            if (!s->dropped && !s->closing) {
                session_send_error(s, s->waiting[i]->id,
                                   json_string("canceled"));
            }
            session_remove_waiting_txn(s, i);
        } else {
            i++;
        }
    }

    HMAP_FOR_EACH_SAFE (sm, next, node, &s->monitors) {
        if (sm->sdb == sdb) {
            if (!s->dropped && !s->closing) {
                send_notify(s, "monitor_canceled", json_pack("[O]", sm->id));
            }
            monitor_destroy(s, sm);
        }
    }
}
