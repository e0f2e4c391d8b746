/* ovsdb/server.c: databases, remotes and sessions of one ovsdb-server.  See
 * server.h. */
#include <config.h>

#include "ovsdb/server.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/stream.h"
#include "lib/timeval.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/error.h"
#include "ovsdb/file.h"
#include "ovsdb/lock.h"
#include "ovsdb/monitor.h"
#include "ovsdb/remotes.h"
#include "ovsdb/ovsdb.h"
#include "ovsdb/raft.h"
#include "ovsdb/schema.h"
#include "ovsdb/session.h"
#include "ovsdb/storage.h"
#include "ovsdb/sysdb.h"
#include "ovsdb/table.h"
#include "ovsdb/txn.h"

VLOG_DEFINE_THIS_MODULE(server);

/* How often allocator statistics are refreshed for memory/show, and how
 * often a remote that failed to open is retried (msec). */
#define STATS_INTERVAL 10000
#define REMOTE_RETRY_INTERVAL 5000

struct ovsdb_server_db {
    struct ovsdb_server *server;
    char *name;
    struct ovsdb *db;
    struct ovsdb_storage *storage;  /* NULL for "_Server" and relays. */
    struct ovsdb_relay *relay;      /* Feeds a relay database, or NULL. */
    struct ovsdb_monitor_hub *hub;
    unsigned long long commit_seqno;

    /* A clustered database: what its "_Server" row says now. */
    bool cluster_leader, cluster_connected;
    uint64_t cluster_index;
};

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
};

/* A client session and the remote it came from (NULL once that remote is
 * gone). */
struct server_session {
    struct ovsdb_session *session;
    struct remote *remote;
};

struct ovsdb_server {
    struct ovsdb_server_db **dbs;   /* Sorted by name. */
    size_t n_dbs;
    struct ovsdb_server_db *sysdb;  /* "_Server". */

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

    struct ovsdb_lock_server *lock_server;
    struct uuid id;
    bool memory_trim;
    bool read_only;                 /* A backup: clients only read. */
    int probe_interval;             /* -1: the stream's default. */

    struct allocator_stats stats;   /* Cached for memory/show. */
    long long next_stats;
};

static void
commit_cb(struct ovsdb *db OVS_UNUSED, const struct ovsdb_txn *txn OVS_UNUSED,
          void *sdb_)
{
    struct ovsdb_server_db *sdb = sdb_;
    sdb->commit_seqno++;
}

static void serve_new_db(struct ovsdb_server_db *, struct ovsdb *);
static void report_outcomes(struct ovsdb_server_db *);
static void sync_cluster_status(struct ovsdb_server_db *, bool force);

static struct ovsdb_server_db *
server_db_create(struct ovsdb_server *srv, const char *name, struct ovsdb *db,
                 struct ovsdb_storage *storage)
{
    struct ovsdb_server_db *sdb = xzalloc(sizeof *sdb);
    sdb->server = srv;
    sdb->name = xstrdup(name);
    sdb->db = db;
    sdb->storage = storage;
    sdb->hub = ovsdb_monitor_hub_create(db);
    const struct raft *raft = storage ? ovsdb_storage_get_raft(storage) : NULL;
    if (raft) {
        ovsdb_monitor_hub_set_last_txn_id(sdb->hub,
                                          raft_get_applied_eid(raft));
    }
    ovsdb_add_commit_observer(db, commit_cb, sdb);

    size_t i;
    for (i = 0; i < srv->n_dbs; i++) {
        if (strcmp(srv->dbs[i]->name, name) > 0) {
            break;
        }
    }
    srv->dbs = xrealloc(srv->dbs, (srv->n_dbs + 1) * sizeof *srv->dbs);
    memmove(&srv->dbs[i + 1], &srv->dbs[i],
            (srv->n_dbs - i) * sizeof *srv->dbs);
    srv->dbs[i] = sdb;
    srv->n_dbs++;
    return sdb;
}

static void
server_db_destroy(struct ovsdb_server_db *sdb)
{
    if (sdb) {
        ovsdb_monitor_hub_destroy(sdb->hub);
        if (sdb->db) {
            ovsdb_remove_commit_observer(sdb->db, commit_cb, sdb);
        }
        ovsdb_storage_close(sdb->storage);
        ovsdb_destroy(sdb->db);
        free(sdb->name);
        free(sdb);
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
    srv->lock_server = ovsdb_lock_server_create();
    ovsdb_remotes_init(&srv->resolved);
    uuid_generate(&srv->id);

    /* Test hooks (not in the reference): force the inactivity probe
     * interval of every connection and the per-connection backlog limit. */
    srv->probe_interval = env_int("OVSDB_SERVER_PROBE_INTERVAL", -1);
    int backlog = env_int("OVSDB_SERVER_BACKLOG_LIMIT", 0);
    if (backlog > 0) {
        ovsdb_session_set_backlog_limits(MAX(backlog / 4, 1), backlog);
    }

    struct ovsdb *db = ovsdb_sysdb_create();
    srv->sysdb = server_db_create(srv, "_Server", db, NULL);
    ovsdb_sysdb_add(db, "_Server", ovsdb_get_schema(db));
    allocator_get_stats(&srv->stats);
    srv->next_stats = time_msec() + STATS_INTERVAL;
    return srv;
}

static void remote_destroy(struct ovsdb_server *, struct remote *);
static void server_db_close(struct ovsdb_server_db *);

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
    for (size_t i = 0; i < srv->n_dbs; i++) {
        server_db_destroy(srv->dbs[i]);
    }
    free(srv->dbs);
    ovsdb_lock_server_destroy(srv->lock_server);
    free(srv);
}

/* Databases. */

struct ovsdb_server_db *
ovsdb_server_find_db(const struct ovsdb_server *srv, const char *name)
{
    for (size_t i = 0; name && i < srv->n_dbs; i++) {
        if (!strcmp(srv->dbs[i]->name, name)) {
            return srv->dbs[i];
        }
    }
    return NULL;
}

json_t *
ovsdb_server_list_dbs(const struct ovsdb_server *srv)
{
    json_t *names = json_array();
    for (size_t i = 0; i < srv->n_dbs; i++) {
        json_array_append_new(names, json_string(srv->dbs[i]->name));
    }
    return names;
}

/* Brings the "_Server" row of clustered database 'sdb' up to date with its
 * Raft member (always if 'force'). */
static void
sync_cluster_status(struct ovsdb_server_db *sdb, bool force)
{
    const struct raft *raft = ovsdb_server_db_get_raft(sdb);
    if (!raft) {
        return;
    }
    bool leader = raft_is_leader(raft);
    bool connected = raft_is_connected(raft);
    uint64_t index = raft_get_applied_index(raft);
    struct ovsdb *sysdb = sdb->server->sysdb->db;
    if (force || leader != sdb->cluster_leader
        || connected != sdb->cluster_connected) {
        sdb->cluster_leader = leader;
        sdb->cluster_connected = connected;
        ovsdb_sysdb_set_status(sysdb, sdb->name, "clustered", connected,
                               leader);
    }
    if (force || index != sdb->cluster_index) {
        sdb->cluster_index = index;
        ovsdb_sysdb_set_cluster(sysdb, sdb->name, raft_get_cid(raft),
                                raft_get_sid(raft), index);
    }
}

struct raft *
ovsdb_server_db_get_raft(const struct ovsdb_server_db *sdb)
{
    return sdb->storage ? ovsdb_storage_get_raft(sdb->storage) : NULL;
}

struct ovsdb_error *
ovsdb_server_add_db(struct ovsdb_server *srv, const char *file,
                    char **namep)
{
    struct ovsdb_storage *storage;
    struct ovsdb *db;
    struct ovsdb_error *error = ovsdb_storage_open(file, &storage, &db);
    if (error) {
        return error;
    }

    const char *name = ovsdb_get_schema(db)->name;
    if (ovsdb_server_find_db(srv, name)) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "%s: duplicate database name",
                            name);
        ovsdb_storage_close(storage);
        ovsdb_destroy(db);
        return error;
    }
    ovsdb_storage_set_memory_trim(storage, srv->memory_trim);
    struct ovsdb_server_db *sdb = server_db_create(srv, name, db, storage);
    ovsdb_sysdb_add(srv->sysdb->db, name, ovsdb_get_schema(db));
    if (ovsdb_storage_get_raft(storage)) {
        sync_cluster_status(sdb, true);
    }
    if (namep) {
        *namep = xstrdup(name);
    }
    return NULL;
}

struct ovsdb_error *
ovsdb_server_add_relay_db(struct ovsdb_server *srv, struct ovsdb *db,
                          struct ovsdb_relay *relay,
                          struct ovsdb_server_db **sdbp)
{
    const char *name = ovsdb_get_schema(db)->name;
    if (ovsdb_server_find_db(srv, name)) {
        struct ovsdb_error *error = ovsdb_error(
            OVSDB_E_SYNTAX, "%s: duplicate database name", name);
        ovsdb_destroy(db);
        return error;
    }
    *sdbp = server_db_create(srv, name, db, NULL);
    (*sdbp)->relay = relay;
    ovsdb_sysdb_add(srv->sysdb->db, name, ovsdb_get_schema(db));
    ovsdb_server_db_set_status(*sdbp, "relay", false, false);
    return NULL;
}

struct ovsdb_relay *
ovsdb_server_db_get_relay(const struct ovsdb_server_db *sdb)
{
    return sdb->relay;
}

void
ovsdb_server_db_set_status(struct ovsdb_server_db *sdb, const char *model,
                           bool connected, bool leader)
{
    ovsdb_sysdb_set_status(sdb->server->sysdb->db, sdb->name, model,
                           connected, leader);
}

struct ovsdb_error *
ovsdb_server_remove_db(struct ovsdb_server *srv, const char *name)
{
    struct ovsdb_server_db *sdb = ovsdb_server_find_db(srv, name);
    if (!sdb || sdb == srv->sysdb) {
        return ovsdb_error(OVSDB_E_SYNTAX, "no database by that name");
    }

    for (size_t i = 0; i < srv->n_dbs; i++) {
        if (srv->dbs[i] == sdb) {
            memmove(&srv->dbs[i], &srv->dbs[i + 1],
                    (srv->n_dbs - i - 1) * sizeof *srv->dbs);
            srv->n_dbs--;
            break;
        }
    }
    ovsdb_sysdb_remove(srv->sysdb->db, sdb->name);
    server_db_close(sdb);
    server_db_destroy(sdb);
    return NULL;
}

/* Detaches 'sdb''s monitors, sessions and storage from its database and
 * frees them, keeping 'sdb' itself. */
static void
server_db_close(struct ovsdb_server_db *sdb)
{
    struct ovsdb_server *srv = sdb->server;
    ovsdb_server_db_flush(sdb);
    for (size_t i = 0; i < srv->n_sessions; i++) {
        ovsdb_session_db_removed(srv->sessions[i].session, sdb);
    }
    ovsdb_monitor_hub_destroy(sdb->hub);
    ovsdb_remove_commit_observer(sdb->db, commit_cb, sdb);
    ovsdb_storage_close(sdb->storage);
    ovsdb_destroy(sdb->db);
    sdb->hub = NULL;
    sdb->storage = NULL;
    sdb->db = NULL;
}

struct ovsdb_error *
ovsdb_server_convert_db(struct ovsdb_server_db *sdb,
                        struct ovsdb_schema *schema)
{
    struct ovsdb *converted = NULL;

    if (!sdb->storage) {
        ovsdb_schema_destroy(schema);
        return ovsdb_error(OVSDB_E_NOT_ALLOWED, "cannot convert %s",
                           sdb->name);
    }
    ovsdb_server_db_flush(sdb);
    struct ovsdb_error *error = ovsdb_file_convert(sdb->db, schema,
                                                   &converted);
    ovsdb_schema_destroy(schema);
    if (!error) {
        error = ovsdb_storage_replace_db(sdb->storage, converted,
                                         "converted by ovsdb-server");
    }
    if (error) {
        ovsdb_destroy(converted);
        return error;
    }

    serve_new_db(sdb, converted);
    return NULL;
}

/* 'sdb''s storage now holds 'db' (takes ownership): ends everything tied to
 * the old database, then serves the new one. */
static void
serve_new_db(struct ovsdb_server_db *sdb, struct ovsdb *db)
{
    struct ovsdb_server *srv = sdb->server;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        ovsdb_session_db_removed(srv->sessions[i].session, sdb);
    }
    ovsdb_monitor_hub_destroy(sdb->hub);
    ovsdb_remove_commit_observer(sdb->db, commit_cb, sdb);
    ovsdb_destroy(sdb->db);
    sdb->db = db;
    sdb->hub = ovsdb_monitor_hub_create(db);
    const struct raft *raft = ovsdb_server_db_get_raft(sdb);
    if (raft) {
        ovsdb_monitor_hub_set_last_txn_id(sdb->hub,
                                          raft_get_applied_eid(raft));
    }
    ovsdb_add_commit_observer(db, commit_cb, sdb);
    sdb->commit_seqno++;
    ovsdb_sysdb_set_schema(srv->sysdb->db, sdb->name, ovsdb_get_schema(db));
    sync_cluster_status(sdb, false);
}

const char *
ovsdb_server_db_get_name(const struct ovsdb_server_db *sdb)
{
    return sdb->name;
}

struct ovsdb *
ovsdb_server_db_get_ovsdb(const struct ovsdb_server_db *sdb)
{
    return sdb->db;
}

struct ovsdb_monitor_hub *
ovsdb_server_db_get_hub(const struct ovsdb_server_db *sdb)
{
    return sdb->hub;
}

unsigned long long
ovsdb_server_db_get_commit_seqno(const struct ovsdb_server_db *sdb)
{
    return sdb->commit_seqno;
}

json_t *
ovsdb_server_db_transact(struct ovsdb_server_db *sdb, json_t *params,
                         bool read_only, ovsdb_lock_held_cb *lock_held,
                         void *lock_aux, ovsdb_authorize_cb *authorize,
                         void *authorize_aux, long long elapsed_msec,
                         long long *timeout_msec)
{
    bool durable = false;
    json_t *result = NULL;
    struct ovsdb_txn *txn = ovsdb_execute_compose_authorized(
        sdb->db, params,
        read_only || sdb == sdb->server->sysdb || sdb->relay
        || sdb->server->read_only, lock_held,
        lock_aux, authorize, authorize_aux, elapsed_msec, timeout_msec,
        &durable, &result);
    if (txn) {
        struct ovsdb_error *error = ovsdb_txn_precommit(txn);
        if (!error && sdb->storage) {
            /* Group commit: the storage owns 'txn' from here on. */
            error = ovsdb_storage_commit_defer(sdb->storage, txn, durable);
            if (!error) {
                return result;
            }
        }
        if (error) {
            ovsdb_txn_abort(txn);
            ovsdb_execute_append_error(result, error);
        } else {
            ovsdb_txn_commit_finish(txn);
        }
    }
    return result;
}

/* Tells the sessions what the storage of 'sdb' decided (see
 * ovsdb_storage_pop_outcome()), serves a database that replaced the old
 * one, and brings "_Server" up to date. */
static void
report_outcomes(struct ovsdb_server_db *sdb)
{
    struct ovsdb_server *srv = sdb->server;
    uint64_t ticket;
    struct ovsdb_error *error;
    while (ovsdb_storage_pop_outcome(sdb->storage, &ticket, &error)) {
        if (error) {
            /* The batch was undone: the database changed back under the
             * transactions that waited on its unwritten data ("wait" ops
             * that failed on it), so they must be tried again, as after a
             * commit. */
            sdb->commit_seqno++;
        }
        for (size_t i = 0; i < srv->n_sessions; i++) {
            ovsdb_session_batch_done(srv->sessions[i].session, sdb, ticket,
                                     error);
        }
        ovsdb_error_destroy(error);
    }
    struct ovsdb *new_db = ovsdb_storage_take_new_db(sdb->storage);
    if (new_db) {
        serve_new_db(sdb, new_db);
    }
    sync_cluster_status(sdb, false);
}

uint64_t
ovsdb_server_db_get_last_ticket(const struct ovsdb_server_db *sdb)
{
    return sdb->storage ? ovsdb_storage_get_last_ticket(sdb->storage) : 0;
}

bool
ovsdb_server_db_has_pending(const struct ovsdb_server_db *sdb)
{
    return sdb->storage && ovsdb_storage_has_pending(sdb->storage);
}

void
ovsdb_server_db_flush(struct ovsdb_server_db *sdb)
{
    if (!ovsdb_server_db_has_pending(sdb)) {
        return;
    }
    ovsdb_error_destroy(ovsdb_storage_flush(sdb->storage));
    report_outcomes(sdb);
}

void
ovsdb_server_flush(struct ovsdb_server *srv)
{
    for (size_t i = 0; i < srv->n_dbs; i++) {
        ovsdb_server_db_flush(srv->dbs[i]);
    }
}

struct ovsdb_error *
ovsdb_server_db_commit_txn(struct ovsdb_server_db *sdb,
                           struct ovsdb_txn *txn)
{
    struct ovsdb_error *error = NULL;
    ovsdb_server_db_flush(sdb);
    if (sdb->storage) {
        error = ovsdb_storage_commit_txn(sdb->storage, txn, false);
    }
    sync_cluster_status(sdb, false);
    if (error) {
        ovsdb_txn_abort(txn);
    } else {
        ovsdb_txn_commit_finish(txn);
    }
    return error;
}

void
ovsdb_server_set_read_only(struct ovsdb_server *srv, bool read_only)
{
    srv->read_only = read_only;
}

struct ovsdb_error *
ovsdb_server_compact(struct ovsdb_server *srv, const char *name)
{
    bool found = false;
    for (size_t i = 0; i < srv->n_dbs; i++) {
        struct ovsdb_server_db *sdb = srv->dbs[i];
        if (sdb->storage && (!name || !strcmp(name, sdb->name))) {
            found = true;
            ovsdb_server_db_flush(sdb);
            struct ovsdb_error *error
                = ovsdb_storage_compact(sdb->storage);
            if (error) {
                return error;
            }
        }
    }
    return found || !name ? NULL
           : ovsdb_error(OVSDB_E_SYNTAX, "no database by that name");
}

bool
ovsdb_server_compacting(const struct ovsdb_server *srv)
{
    for (size_t i = 0; i < srv->n_dbs; i++) {
        if (srv->dbs[i]->storage
            && ovsdb_storage_is_compacting(srv->dbs[i]->storage)) {
            return true;
        }
    }
    return false;
}

void
ovsdb_server_set_memory_trim(struct ovsdb_server *srv, bool trim)
{
    srv->memory_trim = trim;
    for (size_t i = 0; i < srv->n_dbs; i++) {
        if (srv->dbs[i]->storage) {
            ovsdb_storage_set_memory_trim(srv->dbs[i]->storage, trim);
        }
    }
}

/* Sessions. */

/* Applies 'r''s options to session 'ss' (r may be NULL). */
static void
session_apply_options(const struct ovsdb_server *srv,
                      struct server_session *ss, const struct remote *r)
{
    ss->remote = (struct remote *) r;
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
    ss->session = ovsdb_session_create(srv, js);
    session_apply_options(srv, ss, r);
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
        r->retry_at = time_msec() + REMOTE_RETRY_INTERVAL;
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
    struct ovsdb_server_db *sdb = ovsdb_server_find_db(srv_, name);
    return sdb ? sdb->db : NULL;
}

static unsigned long long
sum_commit_seqnos(const struct ovsdb_server *srv)
{
    unsigned long long sum = 0;
    for (size_t i = 0; i < srv->n_dbs; i++) {
        sum += srv->dbs[i]->commit_seqno;
    }
    return sum + srv->n_dbs;
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
    srv->remotes_seqno = sum_commit_seqnos(srv);
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
        ovsdb_session_reconnect(srv->sessions[i].session);
    }
}

void
ovsdb_server_set_ssl_config(struct ovsdb_server *srv,
                            const struct ovsdb_ssl_config *ssl)
{
    srv->ssl = ssl;
    apply_ssl(srv);
}

struct ovsdb_lock_server *
ovsdb_server_get_lock_server(const struct ovsdb_server *srv)
{
    return srv->lock_server;
}

const struct uuid *
ovsdb_server_get_id(const struct ovsdb_server *srv)
{
    return &srv->id;
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
        add_session(srv, jsonrpc_session_open_unreliably(
                             jsonrpc_open(stream)), r);
    }
    poll_immediate_wake();
}

void
ovsdb_server_run(struct ovsdb_server *srv)
{
    long long now = time_msec();

    if (srv->remotes_dirty
        || (srv->remotes_seqno != sum_commit_seqnos(srv)
            && have_db_specs(srv))) {
        reconfigure_remotes(srv);
    }
    if (srv->ssl && now >= srv->next_ssl) {
        apply_ssl(srv);
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

    for (size_t i = 0; i < srv->n_sessions;) {
        struct ovsdb_session *s = srv->sessions[i].session;
        ovsdb_session_run(s);
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
    ovsdb_server_flush(srv);

    for (size_t i = 0; i < srv->n_dbs; i++) {
        if (srv->dbs[i]->storage) {
            ovsdb_storage_run(srv->dbs[i]->storage);
            report_outcomes(srv->dbs[i]);
        }
    }
    for (size_t i = 0; i < srv->n_dbs; i++) {
        const struct raft *raft = ovsdb_server_db_get_raft(srv->dbs[i]);
        if (raft && raft_left(raft)) {
            /* Out of its cluster for good (cluster/leave or kick), as the
             * reference: stop serving it. */
            char *name = xstrdup(srv->dbs[i]->name);
            VLOG_INFO("%s: removing database because storage disconnected "
                      "permanently",
                      name);
            ovsdb_error_destroy(ovsdb_server_remove_db(srv, name));
            free(name);
            break;
        }
    }

    if (now >= srv->next_stats) {
        allocator_get_stats(&srv->stats);
        srv->next_stats = now + STATS_INTERVAL;
    }

    /* Last: send what this pass queued (replies, monitor updates), so that
     * clients get them now, not after the next poll.  Anything that must
     * happen before a reply leaves (the commit reaching the log) has been
     * done above. */
    for (size_t i = 0; i < srv->n_sessions; i++) {
        ovsdb_session_flush(srv->sessions[i].session);
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
    for (size_t i = 0; i < srv->n_sessions; i++) {
        ovsdb_session_wait(srv->sessions[i].session);
    }
    for (size_t i = 0; i < srv->n_dbs; i++) {
        if (srv->dbs[i]->storage) {
            ovsdb_storage_wait(srv->dbs[i]->storage);
        }
    }
    poll_timer_wait_until(srv->next_stats);
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
    for (size_t i = 0; i < srv->n_dbs; i++) {
        struct ovsdb *db = srv->dbs[i]->db;
        atoms += ovsdb_n_atoms(db);
        for (size_t j = 0; j < ovsdb_n_tables(db); j++) {
            const struct ovsdb_table *t = ovsdb_get_table_by_index(db, j);
            cells += ovsdb_table_n_rows(t)
                     * (t->schema->n_columns - OVSDB_N_STD_COLUMNS);
        }
        monitors += ovsdb_monitor_hub_n_monitors(srv->dbs[i]->hub);
    }

    size_t triggers = 0, backlog = 0, session_monitors = 0;
    size_t paused = 0, pending_rows = 0;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        struct ovsdb_session_stats stats;
        ovsdb_session_get_stats(srv->sessions[i].session, &stats);
        triggers += stats.n_triggers;
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
    if (triggers) {
        ds_put_format(out, " triggers:%zu", triggers);
    }
    if (backlog) {
        ds_put_format(out, " backlog:%zu", backlog);
    }
    unsigned int locks = ovsdb_lock_server_count(srv->lock_server);
    if (locks) {
        ds_put_format(out, " locks:%u", locks);
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

    /* Flow control (ovsdb/session.h): the limits, the sessions not reading
     * and the rows their monitors hold pending now, and how often each
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
