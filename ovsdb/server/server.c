/* ovsdb/server/server.c: the loop, remotes and sessions of one ovsdb-server,
 * on top of its set of databases.  See server.h. */
#include <config.h>

#include "ovsdb/server/server.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/jsonrpc.h"
#include "lib/handshake-pool.h"
#include "lib/poll-loop.h"
#include "lib/replay.h"
#include "lib/reconnect.h"
#include "lib/stream-ssl.h"
#include "lib/stream.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/engine/lock.h"
#include "ovsdb/monitor/monitor.h"
#include "ovsdb/server/remote-status.h"
#include "ovsdb/server/remotes.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/server/session.h"
#include "ovsdb/engine/table.h"

VLOG_DEFINE_THIS_MODULE(server);

/* How often allocator statistics are refreshed for memory/show, and how
 * often a remote that failed to open is retried (msec). */
#define STATS_INTERVAL 10000

/* After a burst (big transactions, a backlog of monitor updates for slow
 * readers), the allocator keeps what was freed for the next one: with
 * glibc, RSS stayed at the burst's peak (Queue with RFC monitors: 127 MB
 * at rest for 39 MB allocated).  Once the server has been idle for a
 * whole check interval (no transaction ran, nothing queued for any
 * client), and the allocator holds more than IDLE_RELEASE_MIN_BYTES and
 * half again what is allocated, it is given back, once per idle period.
 * Not during a burst: releasing after each big transaction made the next
 * one fault every page back in (DESIGN.md, "Allocators"). */
#define IDLE_CHECK_MSEC 1000
#define IDLE_RELEASE_MIN_BYTES (16 * 1024 * 1024)

/* TLS handshakes cost a public-key operation each (about 1-2 ms with
 * RSA-2048), and a storm of reconnecting clients has hundreds under way at
 * once: run all of them in one pass and every established client waits
 * for the lot (0.4 s at 1,000 clients, issue 32).  A pass spends at most
 * this long on sessions that are still handshaking, oldest first; the rest
 * wait for the next pass, which comes at once. */
#define HANDSHAKE_BUDGET_USEC 5000

/* Streams whose handshakes finished on I/O threads become sessions at most
 * this many per pass.  Each new session's first request (a monitor of its
 * rows, typically) costs the main thread a few tenths of a millisecond;
 * with many threads handing back handshakes faster than the main thread
 * can serve them, taking all of them at once would make one pass as long
 * as the backlog.  The rest stay in the pool's ready list (their clients'
 * requests wait in the socket) for the next pass, which comes at once. */
#define HANDSHAKEN_PER_PASS 16

/* How often the status of "db:" remotes is written (as the reference). */
#define REMOTE_STATUS_INTERVAL 2500
#define REMOTE_RETRY_INTERVAL 5000

/* One target the server listens on or connects to, with its options (from
 * the command line, or from a database for "db:" remotes). */
struct remote {
    char *name;                     /* The target, e.g. "ptcp:6640". */
    int probe_interval;             /* Inactivity probe, msec; 0 off. */
    int max_backoff;                /* Reconnect back-off, msec (active). */
    bool read_only;                 /* Only read-only transactions. */
    char *role;                     /* RBAC role, or NULL. */
    struct pstream *listener;       /* Passive remote, once open. */
    struct ovsdb_session *session;  /* Active remote. */
    long long retry_at;             /* Passive remote not open yet. */
    int last_error;
    unsigned int serial; /* Unique in the process: names the
                                     * remote for a stream in 'handshakes'
                                     * (which may outlive it). */
};

/* A client session and the remote it came from (NULL once that remote is
 * gone).
 *
 * Idle sessions.  With a thousand clients connected, a pass of the loop
 * usually has work for a few of them; running and waiting on all the
 * others, pointer chains into a thousand connections each time, was most
 * of the main thread's time in a TLS connection storm.  So when a
 * session's ovsdb_session_wait() registers only its one connection and a
 * timer and ovsdb_session_is_idle() says it has nothing else to do, the
 * server notes what it registered ('idle'), and until that connection may
 * be ready, the timer expires, or something outside the session changes
 * sessions (ovsdb_session_outside_changes()), it skips the session's run,
 * wait and flush and registers the same itself.  The entry is in one
 * array, so the test costs no pointer chase. */
struct server_session {
    struct ovsdb_session *session;
    struct remote *remote;
    bool idle;             /* Skippable as above, with: */
    short int idle_events; /* ...what it waits for on 'idle_fd'... */
    int idle_fd;
    long long idle_until; /* ...and its timer (LLONG_MAX: none). */
};

struct ovsdb_server {
    struct ovsdb_databases *dbs;

    char **specs;                   /* --remote and add-remote arguments. */
    size_t n_specs;
    struct ovsdb_remotes resolved;  /* What 'specs' said last time. */
    bool remotes_dirty;             /* 'specs' changed since. */
    unsigned long long remotes_seqno;   /* Sum of commit seqnos then. */
    struct remote **remotes;        /* One per target of 'resolved'. */
    size_t n_remotes;
    const struct ovsdb_ssl_config *ssl;     /* TLS options, or NULL. */
    long long next_ssl;             /* When to apply 'ssl' again. */

    struct server_session *sessions;
    size_t n_sessions, allocated_sessions;
    unsigned long long idle_changes; /* ovsdb_session_outside_changes()
                                      * when the 'idle' flags were set. */

    struct handshake_pool *handshakes; /* TLS handshakes on other threads,
                                        * or NULL (--n-io-threads=0). */
    unsigned int next_remote_serial;

    int probe_interval;             /* -1: the stream's default. */
    bool monitor_cond_disabled;     /* ovsdb-server/disable-monitor-cond. */

    struct allocator_stats stats;   /* Cached for memory/show. */
    long long next_stats;

    /* Giving memory back when idle (IDLE_CHECK_MSEC). */
    long long next_idle_check;
    unsigned long long idle_txns; /* Transactions run at the last check. */
    bool idle_released;           /* Released since the last activity. */
    long long next_remote_status; /* When to write "db:" remotes' status
                                     * columns (remote-status.h) next. */
};

/* The database set's observer: every session hears of it.  Each callback
 * but the first makes the sessions non-idle ("Idle sessions" above); a
 * group commit ending changes only sessions that hold replies, which are
 * never idle. */
static void
batch_done_cb(void *srv_, struct ovsdb_served_db *sdb, uint64_t ticket,
              const struct ovsdb_error *error)
{
    struct ovsdb_server *srv = srv_;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        ovsdb_session_batch_done(srv->sessions[i].session, sdb, ticket, error);
    }
}

static void
db_removed_cb(void *srv_, struct ovsdb_served_db *sdb)
{
    struct ovsdb_server *srv = srv_;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        srv->sessions[i].idle = false;
        ovsdb_session_db_removed(srv->sessions[i].session, sdb);
    }
}

static void
dbs_changed_cb(void *srv_, const char *why, const char *name)
{
    struct ovsdb_server *srv = srv_;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        srv->sessions[i].idle = false;
        ovsdb_session_dbs_changed(srv->sessions[i].session, why, name);
    }
}

static int
env_int(const char *name, int dflt)
{
    const char *s = getenv(name);
    int value;
    return s && str_to_int(s, &value) ? value : dflt;
}

struct ovsdb_server *
ovsdb_server_create(void)
{
    struct ovsdb_server *srv = xzalloc(sizeof *srv);
    struct ovsdb_databases_observer observer = {
        .batch_done = batch_done_cb,
        .db_removed = db_removed_cb,
        .dbs_changed = dbs_changed_cb,
        .aux = srv,
    };
    srv->dbs = ovsdb_databases_create(&observer);
    ovsdb_remotes_init(&srv->resolved);

    /* Test hooks (not in the reference): force the inactivity probe
     * interval of every connection and the per-connection backlog limit. */
    srv->probe_interval = env_int("OVSDB_SERVER_PROBE_INTERVAL", -1);
    int backlog = env_int("OVSDB_SERVER_BACKLOG_LIMIT", 0);
    if (backlog > 0) {
        ovsdb_session_set_backlog_limits(MAX(backlog / 4, 1), backlog);
    }

    allocator_get_stats(&srv->stats);
    srv->next_stats = time_msec() + STATS_INTERVAL;
    srv->next_idle_check = time_msec() + IDLE_CHECK_MSEC;
    srv->next_remote_status = LLONG_MIN; /* At the first pass. */
    return srv;
}

static void remote_destroy(struct ovsdb_server *, struct remote *);

void
ovsdb_server_destroy(struct ovsdb_server *srv)
{
    if (!srv) {
        return;
    }
    while (srv->n_remotes) {
        remote_destroy(srv, srv->remotes[--srv->n_remotes]);
    }
    free(srv->remotes);
    for (size_t i = 0; i < srv->n_specs; i++) {
        free(srv->specs[i]);
    }
    free(srv->specs);
    ovsdb_remotes_destroy(&srv->resolved);
    for (size_t i = 0; i < srv->n_sessions; i++) {
        ovsdb_session_destroy(srv->sessions[i].session);
    }
    free(srv->sessions);
    stream_ssl_set_closer(NULL, NULL);
    handshake_pool_destroy(srv->handshakes);
    ovsdb_databases_destroy(srv->dbs);
    free(srv);
}

struct ovsdb_databases *
ovsdb_server_get_databases(const struct ovsdb_server *srv)
{
    return srv->dbs;
}

/* Sessions. */

/* Applies 'r''s options to session 'ss' (r may be NULL). */
static void
session_apply_options(const struct ovsdb_server *srv,
                      struct server_session *ss, const struct remote *r)
{
    ss->remote = (struct remote *) r;
    ss->idle = false;
    ovsdb_session_set_options(ss->session, r && r->read_only,
                              r ? r->role : NULL);
    int probe = srv->probe_interval >= 0 ? srv->probe_interval
                : r ? r->probe_interval : -1;
    if (probe >= 0) {
        ovsdb_session_set_probe_interval(ss->session, probe);
    }
}

static struct ovsdb_session *
add_session(struct ovsdb_server *srv, struct jsonrpc_session *js,
            const struct remote *r)
{
    if (srv->n_sessions >= srv->allocated_sessions) {
        srv->sessions = x2nrealloc(srv->sessions, &srv->allocated_sessions,
                                   sizeof *srv->sessions);
    }
    struct server_session *ss = &srv->sessions[srv->n_sessions++];
    ss->session = ovsdb_session_create(srv->dbs, js);
    session_apply_options(srv, ss, r);
    if (srv->monitor_cond_disabled) {
        ovsdb_session_disable_monitor_cond(ss->session);
    }
    return ss->session;
}

static void
remove_session(struct ovsdb_server *srv, size_t i)
{
    ovsdb_session_destroy(srv->sessions[i].session);
    srv->sessions[i] = srv->sessions[--srv->n_sessions];
}

/* Remotes. */

static bool
remote_is_active(const char *name)
{
    return !strncmp(name, "unix:", 5) || !strncmp(name, "tcp:", 4)
           || !strncmp(name, "ssl:", 4);
}

static void
remote_try_open(struct remote *r)
{
    int error = pstream_open(r->name, &r->listener);
    if (error) {
        if (error != r->last_error) {
            VLOG_ERR("%s: listen failed: %s", r->name, ovs_strerror(error));
        }
        r->last_error = error;
        /* Retries go by the clock, which a replay does not reproduce:
         * with --record or --replay a listener that failed stays failed,
         * as the reference's always does. */
        r->retry_at = (replay_is_active()
                           ? LLONG_MAX
                           : time_msec() + REMOTE_RETRY_INTERVAL);
    } else {
        r->last_error = 0;
    }
}

/* Copies the options of 'o' into 'r' and onto its sessions. */
static void
remote_set_options(struct ovsdb_server *srv, struct remote *r,
                   const struct ovsdb_remote_options *o)
{
    r->probe_interval = o->probe_interval;
    if ((!strncmp(r->name, "punix:", 6) || !strncmp(r->name, "unix:", 5))
        && o->probe_interval == OVSDB_REMOTE_DEFAULT_PROBE_INTERVAL) {
        /* As the reference: unix sockets need no probes by default. */
        r->probe_interval = 0;
    }
    r->max_backoff = o->max_backoff;
    r->read_only = o->read_only;
    free(r->role);
    r->role = o->role && o->role[0] ? xstrdup(o->role) : NULL;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        if (srv->sessions[i].remote == r) {
            session_apply_options(srv, &srv->sessions[i], r);
        }
    }
    if (r->session) {
        ovsdb_session_set_backoff(r->session, r->max_backoff);
    }
}

static struct remote *
remote_create(struct ovsdb_server *srv, const struct ovsdb_remote_options *o)
{
    struct remote *r = xzalloc(sizeof *r);
    r->name = xstrdup(o->target);
    r->serial = ++srv->next_remote_serial;
    if (remote_is_active(r->name)) {
        r->session = add_session(srv, jsonrpc_session_open(r->name, true),
                                 r);
    } else {
        remote_try_open(r);
    }
    remote_set_options(srv, r, o);
    srv->remotes = xrealloc(srv->remotes,
                            (srv->n_remotes + 1) * sizeof *srv->remotes);
    srv->remotes[srv->n_remotes++] = r;
    return r;
}

/* Frees 'r' and closes its sessions, as the reference does. */
static void
remote_destroy(struct ovsdb_server *srv, struct remote *r)
{
    pstream_close(r->listener);
    for (size_t i = 0; i < srv->n_sessions;) {
        if (srv->sessions[i].remote == r) {
            remove_session(srv, i);
        } else {
            i++;
        }
    }
    free(r->role);
    free(r->name);
    free(r);
}

static struct ovsdb *
find_db_cb(const char *name, void *srv_)
{
    const struct ovsdb_server *srv = srv_;
    struct ovsdb_served_db *sdb = ovsdb_databases_find(srv->dbs, name);
    return sdb ? ovsdb_served_db_get_ovsdb(sdb) : NULL;
}

static bool
have_db_specs(const struct ovsdb_server *srv)
{
    for (size_t i = 0; i < srv->n_specs; i++) {
        if (ovsdb_remotes_is_db_spec(srv->specs[i])) {
            return true;
        }
    }
    return false;
}

/* Resolves the remote specs (reading "db:" ones from their databases) and
 * opens, closes and reconfigures remotes to match. */
static void
reconfigure_remotes(struct ovsdb_server *srv)
{
    struct ds errors = DS_EMPTY_INITIALIZER;
    struct ovsdb_remotes now;
    ovsdb_remotes_init(&now);
    ovsdb_remotes_collect(&now, (const char *const *) srv->specs,
                          srv->n_specs, find_db_cb, srv, &errors);
    if (errors.length) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
        ds_chomp(&errors, '\n');
        VLOG_WARN_RL(&rl, "%s", ds_cstr(&errors));
    }
    ds_destroy(&errors);

    srv->remotes_dirty = false;
    srv->remotes_seqno = ovsdb_databases_get_change_seqno(srv->dbs);
    if (ovsdb_remotes_equal(&now, &srv->resolved)) {
        ovsdb_remotes_destroy(&now);
        return;
    }

    for (size_t i = 0; i < srv->n_remotes;) {
        struct remote *r = srv->remotes[i];
        const struct ovsdb_remote_options *o = ovsdb_remotes_find(&now,
                                                                  r->name);
        if (!o) {
            remote_destroy(srv, r);
            srv->remotes[i] = srv->remotes[--srv->n_remotes];
        } else {
            remote_set_options(srv, r, o);
            i++;
        }
    }
    const struct ovsdb_remote_options **sorted = ovsdb_remotes_sort(&now);
    for (size_t i = 0; i < ovsdb_remotes_count(&now); i++) {
        size_t j;
        for (j = 0; j < srv->n_remotes; j++) {
            if (!strcmp(srv->remotes[j]->name, sorted[i]->target)) {
                break;
            }
        }
        if (j >= srv->n_remotes) {
            remote_create(srv, sorted[i]);
        }
    }
    free(sorted);
    ovsdb_remotes_swap(&now, &srv->resolved);
    ovsdb_remotes_destroy(&now);
}

bool
ovsdb_server_add_remote(struct ovsdb_server *srv, const char *spec)
{
    for (size_t i = 0; i < srv->n_specs; i++) {
        if (!strcmp(srv->specs[i], spec)) {
            return false;
        }
    }
    srv->specs = xrealloc(srv->specs, (srv->n_specs + 1) * sizeof *srv->specs);
    srv->specs[srv->n_specs++] = xstrdup(spec);
    reconfigure_remotes(srv);
    return true;
}

bool
ovsdb_server_remove_remote(struct ovsdb_server *srv, const char *spec)
{
    for (size_t i = 0; i < srv->n_specs; i++) {
        if (!strcmp(srv->specs[i], spec)) {
            free(srv->specs[i]);
            srv->specs[i] = srv->specs[--srv->n_specs];
            reconfigure_remotes(srv);
            return true;
        }
    }
    return false;
}

static int
compare_strings(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;
    return strcmp(*a, *b);
}

void
ovsdb_server_put_remotes(const struct ovsdb_server *srv, struct ds *out)
{
    char **specs = xcalloc(srv->n_specs + 1, sizeof *specs);
    memcpy(specs, srv->specs, srv->n_specs * sizeof *specs);
    qsort(specs, srv->n_specs, sizeof *specs, compare_strings);
    for (size_t i = 0; i < srv->n_specs; i++) {
        ds_put_format(out, "%s\n", specs[i]);
    }
    free(specs);
}

/* Hands the TLS options to lib/stream-ssl; PKI files may come from the
 * database or change on disk, so this runs about once a second. */
static void
apply_ssl(struct ovsdb_server *srv)
{
    struct ds errors = DS_EMPTY_INITIALIZER;
    ovsdb_ssl_config_apply(srv->ssl, find_db_cb, srv, &errors);
    if (errors.length) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
        ds_chomp(&errors, '\n');
        VLOG_WARN_RL(&rl, "%s", ds_cstr(&errors));
    }
    ds_destroy(&errors);
    srv->next_ssl = time_msec() + 1000;
}

void
ovsdb_server_reconnect(struct ovsdb_server *srv)
{
    for (size_t i = 0; i < srv->n_sessions; i++) {
        srv->sessions[i].idle = false;
        ovsdb_session_reconnect(srv->sessions[i].session);
    }
}

void
ovsdb_server_disable_monitor_cond(struct ovsdb_server *srv)
{
    srv->monitor_cond_disabled = true;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        srv->sessions[i].idle = false;
        ovsdb_session_disable_monitor_cond(srv->sessions[i].session);
    }
    ovsdb_server_reconnect(srv);
}

void
ovsdb_server_set_ssl_config(struct ovsdb_server *srv,
                            const struct ovsdb_ssl_config *ssl)
{
    srv->ssl = ssl;
    apply_ssl(srv);
}

/* Main loop. */

static void
accept_connections(struct ovsdb_server *srv, struct remote *r)
{
    /* Bounded, so a flood of connections cannot starve the clients we
     * already have. */
    for (int i = 0; i < 50; i++) {
        struct stream *stream;
        int error = pstream_accept(r->listener, &stream);
        if (error) {
            if (error != EAGAIN) {
                static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
                VLOG_WARN_RL(&rl, "%s: accept failed: %s", r->name,
                             ovs_strerror(error));
            }
            return;
        }
        if (srv->handshakes && stream_ssl_may_handshake_elsewhere(stream)) {
            handshake_pool_submit(srv->handshakes, stream,
                                  (void *) (uintptr_t) r->serial);
        } else {
            add_session(srv,
                        jsonrpc_session_open_unreliably(jsonrpc_open(stream)),
                        r);
        }
    }
    poll_immediate_wake();
}

/* Opens at most 'max' of the streams whose handshakes ran on other threads
 * as sessions of the remote that accepted them (closed if it is gone). */
static void
take_handshaken(struct ovsdb_server *srv, struct handshake_pool *pool,
                size_t max)
{
    struct stream *stream;
    void *aux;
    for (size_t n = 0; n < max; n++) {
        stream = handshake_pool_take(pool, &aux);
        if (!stream) {
            return;
        }
        unsigned int serial = (uintptr_t) aux;
        struct remote *r = NULL;
        for (size_t i = 0; i < srv->n_remotes && !r; i++) {
            if (srv->remotes[i]->serial == serial) {
                r = srv->remotes[i];
            }
        }
        if (r) {
            add_session(srv,
                        jsonrpc_session_open_unreliably(jsonrpc_open(stream)),
                        r);
        } else {
            stream_close(stream);
        }
    }
    poll_immediate_wake(); /* More may be ready. */
}

void
ovsdb_server_set_io_threads(struct ovsdb_server *srv, int n)
{
    int old = srv->handshakes ? handshake_pool_n_threads(srv->handshakes) : 0;
    if (n == old) {
        return;
    }
    if (srv->handshakes) {
        /* Their handshakes go on here, or in the new pool's threads. */
        stream_ssl_set_closer(NULL, NULL);
        handshake_pool_stop(srv->handshakes);
        take_handshaken(srv, srv->handshakes, SIZE_MAX);
        handshake_pool_destroy(srv->handshakes);
        srv->handshakes = NULL;
    }
    if (n > 0) {
        srv->handshakes = handshake_pool_create(n);
        stream_ssl_set_closer(handshake_pool_close, srv->handshakes);
    }
    VLOG_DBG("%d I/O thread%s (TLS handshakes and closes)", n,
             n == 1 ? "" : "s");
}

void
ovsdb_server_get_io_threads(const struct ovsdb_server *srv, int *n_threads,
                            size_t *n_handshakes)
{
    *n_threads = (srv->handshakes ? handshake_pool_n_threads(srv->handshakes)
                                  : 0);
    *n_handshakes = (srv->handshakes
                         ? handshake_pool_n_inflight(srv->handshakes)
                         : 0);
}

void
ovsdb_server_put_io_threads(const struct ovsdb_server *srv, struct ds *out)
{
    int n_threads;
    size_t n_handshakes;
    ovsdb_server_get_io_threads(srv, &n_threads, &n_handshakes);
    ds_put_format(out, "io-threads: %d\nhandshakes-in-flight: %zu\n",
                  n_threads, n_handshakes);
}

/* ovsdb_remote_status_cb: what the server knows of remote 'target'. */
static bool
get_remote_status(const char *target, struct ovsdb_remote_status *st,
                  void *srv_)
{
    struct ovsdb_server *srv = srv_;
    struct remote *r = NULL;
    for (size_t i = 0; i < srv->n_remotes && !r; i++) {
        if (!strcmp(srv->remotes[i]->name, target)) {
            r = srv->remotes[i];
        }
    }
    if (!r) {
        return false;
    }
    if (r->listener || !r->session) {
        for (size_t i = 0; i < srv->n_sessions; i++) {
            st->n_connections += srv->sessions[i].remote == r;
        }
        st->is_connected = st->n_connections > 0;
        st->bound_port = r->listener ? pstream_get_bound_port(r->listener) : 0;
        /* The reference reports 0 for both for a listener. */
        st->sec_since_connect = st->sec_since_disconnect = 0;
        return true;
    }
    struct reconnect_stats rs;
    ovsdb_session_get_reconnect_stats(r->session, &rs);
    st->is_connected = ovsdb_session_is_connected(r->session);
    /* As the reference: the error of the connection there is, if any. */
    st->last_error = (st->is_connected
                          ? ovsdb_session_get_last_error(r->session)
                          : 0);
    st->state = rs.state;
    st->sec_since_connect = (rs.msec_since_connect == UINT_MAX
                                 ? UINT_MAX
                                 : rs.msec_since_connect / 1000);
    st->sec_since_disconnect = (rs.msec_since_disconnect == UINT_MAX
                                    ? UINT_MAX
                                    : rs.msec_since_disconnect / 1000);
    st->n_connections = 1;
    return true;
}

/* Every transaction that ran to the end in any database. */
static unsigned long long
count_txns(const struct ovsdb_server *srv)
{
    unsigned long long n = 0;
    for (size_t i = 0; i < ovsdb_databases_count(srv->dbs); i++) {
        const struct ovsdb_served_db_stats *st = ovsdb_served_db_get_stats(
            ovsdb_databases_at(srv->dbs, i));
        n += st->n_txn_committed + st->n_txn_aborted + st->n_txn_no_commit;
    }
    return n;
}

/* See IDLE_CHECK_MSEC. */
static void
release_memory_if_idle(struct ovsdb_server *srv)
{
    unsigned long long txns = count_txns(srv);
    bool idle = txns == srv->idle_txns;
    for (size_t i = 0; idle && i < srv->n_sessions; i++) {
        struct ovsdb_session_stats st;
        ovsdb_session_get_stats(srv->sessions[i].session, &st);
        idle = !st.backlog;
    }
    srv->idle_txns = txns;
    if (!idle) {
        srv->idle_released = false;
        return;
    }
    if (srv->idle_released) {
        return;
    }
    srv->idle_released = true;
    struct allocator_stats st;
    allocator_get_stats(&st);
    size_t held = st.rss > st.allocated ? st.rss - st.allocated : 0;
    if (held > IDLE_RELEASE_MIN_BYTES && held > st.allocated / 2) {
        allocator_release_free_memory();
        allocator_get_stats(&srv->stats);
        VLOG_DBG("idle: gave back free memory (RSS %zu kB, now %zu kB)",
                 st.rss / 1024, srv->stats.rss / 1024);
    }
}

/* True if 'ss' may be skipped in this pass: see "Idle sessions" above. */
static bool
session_stays_idle(const struct ovsdb_server *srv,
                   const struct server_session *ss, long long now)
{
    return (ss->idle && now < ss->idle_until
            && srv->idle_changes == ovsdb_session_outside_changes()
            && !poll_fd_may_be_ready(ss->idle_fd, ss->idle_events));
}

void
ovsdb_server_run(struct ovsdb_server *srv)
{
    long long now = time_msec();

    if (srv->remotes_dirty
        || (srv->remotes_seqno != ovsdb_databases_get_change_seqno(srv->dbs)
            && have_db_specs(srv))) {
        reconfigure_remotes(srv);
    }
    if (srv->ssl && now >= srv->next_ssl) {
        apply_ssl(srv);
    }
    if (now >= srv->next_remote_status) {
        /* At the start of a pass: nothing of this pass is batched yet. */
        srv->next_remote_status = now + REMOTE_STATUS_INTERVAL;
        if (have_db_specs(srv)) {
            ovsdb_remote_status_update(srv->dbs, srv->specs, srv->n_specs,
                                       get_remote_status, srv);
        }
    }

    if (srv->handshakes) {
        take_handshaken(srv, srv->handshakes, HANDSHAKEN_PER_PASS);
    }
    for (size_t i = 0; i < srv->n_remotes; i++) {
        struct remote *r = srv->remotes[i];
        if (r->listener) {
            accept_connections(srv, r);
        } else if (remote_is_active(r->name)) {
            if (!r->session) {
                r->session = add_session(
                    srv, jsonrpc_session_open(r->name, true), r);
                ovsdb_session_set_backoff(r->session, r->max_backoff);
            }
        } else if (now >= r->retry_at) {
            remote_try_open(r);
        }
    }

    long long handshake_usec = 0;
    for (size_t i = 0; i < srv->n_sessions;) {
        struct server_session *ss = &srv->sessions[i];
        if (session_stays_idle(srv, ss, now)) {
            i++;
            continue;
        }
        ss->idle = false;
        struct ovsdb_session *s = ss->session;
        if (ovsdb_session_is_handshaking(s)) {
            if (handshake_usec >= HANDSHAKE_BUDGET_USEC) {
                poll_immediate_wake();
                i++;
                continue;
            }
            long long start = time_usec();
            ovsdb_session_run(s);
            handshake_usec += time_usec() - start;
        } else {
            ovsdb_session_run(s);
        }
        if (!ovsdb_session_is_alive(s)) {
            VLOG_DBG("%s: disconnected", ovsdb_session_get_name(s));
            struct remote *r = srv->sessions[i].remote;
            if (r && r->session == s) {
                r->session = NULL;      /* Reopened below. */
            }
            remove_session(srv, i);
        } else {
            i++;
        }
    }

    /* Group commit: everything committed in this pass is written now,
     * before any held reply or monitor update can reach a client. */
    ovsdb_databases_flush(srv->dbs);
    ovsdb_databases_run(srv->dbs);


    if (now >= srv->next_stats) {
        allocator_get_stats(&srv->stats);
        srv->next_stats = now + STATS_INTERVAL;
    }
    if (now >= srv->next_idle_check) {
        srv->next_idle_check = now + IDLE_CHECK_MSEC;
        release_memory_if_idle(srv);
    }

    /* Last: send what this pass queued (replies, monitor updates), so that
     * clients get them now, not after the next poll.  Anything that must
     * happen before a reply leaves (the commit reaching the log) has been
     * done above.  Sessions with monitor updates go first: a client that
     * got the reply to its transaction and then reads its own monitor on
     * another connection finds the update already there (the order of
     * sessions in the array is otherwise arbitrary). */
    bool all = srv->idle_changes != ovsdb_session_outside_changes();
    for (size_t i = 0; i < srv->n_sessions; i++) {
        struct server_session *ss = &srv->sessions[i];
        if ((all || !ss->idle) && ovsdb_session_has_updates(ss->session)) {
            ovsdb_session_flush(ss->session);
        }
    }
    for (size_t i = 0; i < srv->n_sessions; i++) {
        struct server_session *ss = &srv->sessions[i];
        if (all || !ss->idle) {
            ovsdb_session_flush(ss->session);
        }
    }
}

void
ovsdb_server_wait(struct ovsdb_server *srv)
{
    for (size_t i = 0; i < srv->n_remotes; i++) {
        struct remote *r = srv->remotes[i];
        if (r->listener) {
            pstream_wait(r->listener);
        } else if (!remote_is_active(r->name)) {
            poll_timer_wait_until(r->retry_at);
        }
    }
    bool all = srv->idle_changes != ovsdb_session_outside_changes();
    srv->idle_changes = ovsdb_session_outside_changes();
    for (size_t i = 0; i < srv->n_sessions; i++) {
        struct server_session *ss = &srv->sessions[i];
        if (ss->idle && !all) {
            poll_fd_wait(ss->idle_fd, ss->idle_events);
            poll_timer_wait_until(ss->idle_until);
            continue;
        }
        struct poll_capture cap;
        poll_capture_begin(&cap);
        ovsdb_session_wait(ss->session);
        poll_capture_end();
        ss->idle = (cap.n_fds == 1 && cap.deadline != LLONG_MIN
                    && ovsdb_session_is_idle(ss->session));
        ss->idle_fd = cap.fd;
        ss->idle_events = cap.events;
        ss->idle_until = cap.deadline;
    }
    ovsdb_session_pass_ended();
    if (srv->handshakes) {
        handshake_pool_wait(srv->handshakes);
    }
    ovsdb_databases_wait(srv->dbs);
    poll_timer_wait_until(srv->next_stats);
    if (!srv->idle_released) {
        poll_timer_wait_until(srv->next_idle_check);
    }
    if (have_db_specs(srv)) {
        poll_timer_wait_until(srv->next_remote_status);
    }
}

size_t
ovsdb_server_n_sessions(const struct ovsdb_server *srv)
{
    return srv->n_sessions;
}

struct ovsdb_session *
ovsdb_server_session_at(const struct ovsdb_server *srv, size_t i)
{
    return srv->sessions[i].session;
}

/* Puts " NAME:<bytes> bytes (<size in KiB, MiB, GiB or TiB>)" on 'out'. */
static void
put_size(struct ds *out, const char *name, size_t bytes)
{
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes / 1024.0;
    size_t i = 0;
    while (value >= 1024 && i < ARRAY_SIZE(units) - 1) {
        value /= 1024;
        i++;
    }
    ds_put_format(out, " %s:%zu bytes (%.1f %s)", name, bytes, value,
                  units[i]);
}

void
ovsdb_server_put_memory_report(struct ovsdb_server *srv, struct ds *out)
{
    size_t atoms = 0, cells = 0, monitors = 0;
    size_t history = 0, history_atoms = 0;
    for (size_t i = 0; i < ovsdb_databases_count(srv->dbs); i++) {
        struct ovsdb_served_db *sdb = ovsdb_databases_at(srv->dbs, i);
        struct ovsdb *db = ovsdb_served_db_get_ovsdb(sdb);
        atoms += ovsdb_n_atoms(db);
        for (size_t j = 0; j < ovsdb_n_tables(db); j++) {
            const struct ovsdb_table *t = ovsdb_get_table_by_index(db, j);
            cells += ovsdb_table_n_rows(t)
                     * (t->schema->n_columns - OVSDB_N_STD_COLUMNS);
        }
        const struct ovsdb_monitor_hub *hub = ovsdb_served_db_get_hub(sdb);
        monitors += ovsdb_monitor_hub_n_monitors(hub);
        history += ovsdb_monitor_hub_n_history(hub);
        history_atoms += ovsdb_monitor_hub_n_history_atoms(hub);
    }

    size_t triggers = 0, backlog = 0, session_monitors = 0;
    size_t paused = 0, pending_rows = 0;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        struct ovsdb_session_stats stats;
        ovsdb_session_get_stats(srv->sessions[i].session, &stats);
        triggers += stats.n_waiting_txns;
        backlog += stats.backlog;
        session_monitors += stats.n_monitors;
        paused += stats.paused;
        pending_rows += stats.n_pending_rows;
    }

    ds_put_format(out, "atoms:%zu cells:%zu monitors:%zu", atoms, cells,
                  monitors);
    if (srv->n_sessions) {
        ds_put_format(out, " sessions:%zu", srv->n_sessions);
    }
    if (session_monitors) {
        ds_put_format(out, " client-monitors:%zu", session_monitors);
    }
    if (triggers) { /* The reference's name for them. */
        ds_put_format(out, " triggers:%zu", triggers);
    }
    if (backlog) {
        ds_put_format(out, " backlog:%zu", backlog);
    }
    unsigned int locks = ovsdb_lock_server_count(
        ovsdb_databases_get_lock_server(srv->dbs));
    if (locks) {
        ds_put_format(out, " locks:%u", locks);
    }
    if (history) { /* The reference's names. */
        ds_put_format(out, " txn-history:%zu txn-history-atoms:%zu", history,
                      history_atoms);
    }

    /* Refreshed now: asked for, the figures must not be up to
     * STATS_INTERVAL old.  One line, each size in bytes with its unit and
     * in KiB/MiB/GiB, and the ratio named for what it divides (as Redis's
     * mem_fragmentation_ratio). */
    allocator_get_stats(&srv->stats);
    ds_put_format(out, "\nallocator:%s", allocator_name());
    put_size(out, "allocated", srv->stats.allocated);
    put_size(out, "resident", srv->stats.resident);
    put_size(out, "rss", srv->stats.rss);
    ds_put_format(out, " fragmentation_ratio:%.2f (rss/allocated)\n",
                  srv->stats.fragmentation);

    /* Flow control (ovsdb/server/session.h): the limits, the sessions not
     * reading and the rows their monitors hold pending now, and how often each
     * limit was hit since the start. */
    struct ovsdb_session_flow_stats flow;
    ovsdb_session_get_flow_stats(&flow);
    ds_put_format(out, "backlog-limit:%zu backlog-hard-cap:%zu "
                  "sessions-paused:%zu pending-rows:%zu backlog-pauses:%llu "
                  "updates-coalesced:%llu backlog-drops:%llu\n",
                  flow.backlog_limit, flow.backlog_hard_cap, paused,
                  pending_rows, flow.n_pauses, flow.n_coalesced,
                  flow.n_drops);
}
