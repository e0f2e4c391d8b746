/* ovsdb/server/databases.c: the databases one ovsdb-server serves.  See
 * databases.h. */
#include <config.h>

#include "ovsdb/server/databases.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "lib/allocator.h"
#include "lib/timeval.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/file.h"
#include "ovsdb/engine/lock.h"
#include "ovsdb/monitor/monitor.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/raft/raft.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/storage/storage.h"
#include "ovsdb/engine/sysdb.h"
#include "ovsdb/engine/txn.h"

VLOG_DEFINE_THIS_MODULE(databases);

struct ovsdb_served_db {
    struct ovsdb_databases *set;
    char *name;
    struct ovsdb *db;
    struct ovsdb_storage *storage; /* NULL for "_Server" and relays. */
    struct ovsdb_relay *relay;     /* Feeds a relay database, or NULL. */
    struct ovsdb_monitor_hub *hub;
    unsigned long long commit_seqno;

    /* A clustered database: what its "_Server" row says now, and the term
     * its member was in. */
    bool cluster_leader, cluster_connected;
    bool cluster_can_execute; /* raft_can_execute() when last seen. */
    uint64_t cluster_index;
    uint64_t cluster_term;

    /* The file it was opened from (st_dev, st_ino; both 0 for none), so
     * that adding it again is refused by name. */
    dev_t file_dev;
    ino_t file_ino;

    unsigned int n_write_holds; /* ovsdb_served_db_hold_writes(). */
    struct ovsdb_served_db_stats stats;
    uint64_t convert_ticket;    /* Clustered: the ticket of our conversion
                                 * that waits for its entry, or 0. */
};

struct ovsdb_databases {
    struct ovsdb_served_db **dbs; /* Sorted by name. */
    size_t n_dbs;
    struct ovsdb_served_db *sysdb; /* "_Server". */
    struct ovsdb_databases_observer observer;
    struct ovsdb_lock_server *lock_server;
    struct uuid server_id;
    bool memory_trim;
    bool read_only; /* A backup: clients only read. */
};

static void
commit_cb(struct ovsdb *db OVS_UNUSED, const struct ovsdb_txn *txn OVS_UNUSED,
          void *sdb_)
{
    struct ovsdb_served_db *sdb = sdb_;
    sdb->commit_seqno++;
}

static void serve_new_db(struct ovsdb_served_db *, struct ovsdb *);
static void report_outcomes(struct ovsdb_served_db *);
static void sync_cluster_status(struct ovsdb_served_db *, bool force);
static void served_db_close(struct ovsdb_served_db *);

/* Serves 'db' (takes ownership) as 'sdb''s database, with a new monitor
 * hub whose transaction ids continue a clustered database's entry ids. */
static void
attach_db(struct ovsdb_served_db *sdb, struct ovsdb *db)
{
    sdb->db = db;
    sdb->hub = ovsdb_monitor_hub_create(db);
    const struct raft *raft = ovsdb_served_db_get_raft(sdb);
    if (raft) {
        ovsdb_monitor_hub_set_last_txn_id(sdb->hub,
                                          raft_get_applied_eid(raft));
        ovsdb_monitor_hub_start_history(sdb->hub);
    }
    ovsdb_add_commit_observer(db, commit_cb, sdb);
}

/* Frees 'sdb''s database and monitor hub (if any), keeping its storage. */
static void
detach_db(struct ovsdb_served_db *sdb)
{
    ovsdb_monitor_hub_destroy(sdb->hub);
    if (sdb->db) {
        ovsdb_remove_commit_observer(sdb->db, commit_cb, sdb);
    }
    ovsdb_destroy(sdb->db);
    sdb->hub = NULL;
    sdb->db = NULL;
}

static struct ovsdb_served_db *
served_db_create(struct ovsdb_databases *set, const char *name,
                 struct ovsdb *db, struct ovsdb_storage *storage)
{
    struct ovsdb_served_db *sdb = xzalloc(sizeof *sdb);
    /* From 100 us (a batch of a few rows, no fsync) to 10 s. */
    static const double batch_bounds[] = {
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
        0.05,   0.1,     0.25,   0.5,   1,      2.5,   10,
    };
    prom_histogram_init(&sdb->stats.batch_seconds, batch_bounds,
                        ARRAY_SIZE(batch_bounds));
    sdb->set = set;
    sdb->name = xstrdup(name);
    sdb->storage = storage;
    attach_db(sdb, db);

    size_t i;
    for (i = 0; i < set->n_dbs; i++) {
        if (strcmp(set->dbs[i]->name, name) > 0) {
            break;
        }
    }
    set->dbs = xrealloc(set->dbs, (set->n_dbs + 1) * sizeof *set->dbs);
    memmove(&set->dbs[i + 1], &set->dbs[i],
            (set->n_dbs - i) * sizeof *set->dbs);
    set->dbs[i] = sdb;
    set->n_dbs++;
    return sdb;
}

static void
served_db_destroy(struct ovsdb_served_db *sdb)
{
    if (sdb) {
        detach_db(sdb);
        ovsdb_storage_close(sdb->storage);
        free(sdb->name);
        free(sdb);
    }
}

struct ovsdb_databases *
ovsdb_databases_create(const struct ovsdb_databases_observer *observer)
{
    struct ovsdb_databases *set = xzalloc(sizeof *set);
    set->observer = *observer;
    set->lock_server = ovsdb_lock_server_create();
    uuid_generate(&set->server_id);

    struct ovsdb *db = ovsdb_sysdb_create();
    set->sysdb = served_db_create(set, "_Server", db, NULL);
    ovsdb_sysdb_add(db, "_Server", ovsdb_get_schema(db));
    return set;
}

void
ovsdb_databases_destroy(struct ovsdb_databases *set)
{
    if (set) {
        for (size_t i = 0; i < set->n_dbs; i++) {
            served_db_destroy(set->dbs[i]);
        }
        free(set->dbs);
        ovsdb_lock_server_destroy(set->lock_server);
        free(set);
    }
}

void
ovsdb_databases_run(struct ovsdb_databases *set)
{
    for (size_t i = 0; i < set->n_dbs; i++) {
        if (set->dbs[i]->storage) {
            ovsdb_storage_run(set->dbs[i]->storage);
            report_outcomes(set->dbs[i]);
        }
    }
    for (size_t i = 0; i < set->n_dbs; i++) {
        const struct raft *raft = ovsdb_served_db_get_raft(set->dbs[i]);
        if (raft && raft_left(raft)) {
            /* Out of its cluster for good (cluster/leave or kick), as the
             * reference: stop serving it. */
            char *name = xstrdup(set->dbs[i]->name);
            VLOG_INFO("%s: removing database because storage disconnected "
                      "permanently",
                      name);
            ovsdb_error_destroy(ovsdb_databases_remove(set, name));
            free(name);
            break;
        }
    }
}

void
ovsdb_databases_wait(struct ovsdb_databases *set)
{
    for (size_t i = 0; i < set->n_dbs; i++) {
        if (set->dbs[i]->storage) {
            ovsdb_storage_wait(set->dbs[i]->storage);
        }
    }
}

size_t
ovsdb_databases_count(const struct ovsdb_databases *set)
{
    return set->n_dbs;
}

struct ovsdb_served_db *
ovsdb_databases_at(const struct ovsdb_databases *set, size_t i)
{
    return set->dbs[i];
}

unsigned long long
ovsdb_databases_get_change_seqno(const struct ovsdb_databases *set)
{
    unsigned long long sum = 0;
    for (size_t i = 0; i < set->n_dbs; i++) {
        sum += set->dbs[i]->commit_seqno;
    }
    return sum + set->n_dbs;
}

struct ovsdb_lock_server *
ovsdb_databases_get_lock_server(const struct ovsdb_databases *set)
{
    return set->lock_server;
}

const struct uuid *
ovsdb_databases_get_server_id(const struct ovsdb_databases *set)
{
    return &set->server_id;
}

/* Databases. */

struct ovsdb_served_db *
ovsdb_databases_find(const struct ovsdb_databases *set, const char *name)
{
    for (size_t i = 0; name && i < set->n_dbs; i++) {
        if (!strcmp(set->dbs[i]->name, name)) {
            return set->dbs[i];
        }
    }
    return NULL;
}

json_t *
ovsdb_databases_list(const struct ovsdb_databases *set)
{
    json_t *names = json_array();
    for (size_t i = 0; i < set->n_dbs; i++) {
        json_array_append_new(names, json_string(set->dbs[i]->name));
    }
    return names;
}

/* Brings the "_Server" row of clustered database 'sdb' up to date with its
 * Raft member (always if 'force'). */
static void
sync_cluster_status(struct ovsdb_served_db *sdb, bool force)
{
    const struct raft *raft = ovsdb_served_db_get_raft(sdb);
    if (!raft) {
        return;
    }
    bool leader = raft_is_leader(raft);
    bool connected = raft_is_connected(raft);
    uint64_t index = raft_get_applied_index(raft);
    struct ovsdb *sysdb = sdb->set->sysdb->db;
    uint64_t term = raft_get_term(raft);
    bool can_execute = raft_can_execute(raft);
    if (leader != sdb->cluster_leader || connected != sdb->cluster_connected
        || term != sdb->cluster_term
        || can_execute != sdb->cluster_can_execute) {
        /* Requests that waited for a leader may go now (a follower may
         * learn of the leader before its connection to it is up). */
        sdb->commit_seqno++;
        sdb->cluster_term = term;
        sdb->cluster_can_execute = can_execute;
    }
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
ovsdb_served_db_get_raft(const struct ovsdb_served_db *sdb)
{
    return sdb->storage ? ovsdb_storage_get_raft(sdb->storage) : NULL;
}

struct ovsdb_error *
ovsdb_databases_add(struct ovsdb_databases *set, const char *file,
                    char **namep)
{
    /* As the reference, a file already served is refused by name rather
     * than by the lock its second opening would fail to take. */
    struct stat st;
    bool have_st = !stat(file, &st);
    for (size_t i = 0; have_st && i < set->n_dbs; i++) {
        const struct ovsdb_served_db *other = set->dbs[i];
        if (other->file_ino && other->file_dev == st.st_dev
            && other->file_ino == st.st_ino) {
            return ovsdb_error(OVSDB_E_OVSDB, "%s: already open", file);
        }
    }

    struct ovsdb_storage *storage;
    struct ovsdb *db;
    struct ovsdb_error *error = ovsdb_storage_open(file, &storage, &db);
    if (error) {
        return error;
    }

    const char *name = ovsdb_get_schema(db)->name;
    if (ovsdb_databases_find(set, name)) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "%s: duplicate database name",
                            name);
        ovsdb_storage_close(storage);
        ovsdb_destroy(db);
        return error;
    }
    ovsdb_storage_set_memory_trim(storage, set->memory_trim);
    struct ovsdb_served_db *sdb = served_db_create(set, name, db, storage);
    if (have_st) {
        sdb->file_dev = st.st_dev;
        sdb->file_ino = st.st_ino;
    }
    /* A clustered database: its committed entries, now, through the
     * monitor hub (which keeps them as history), before anyone reads. */
    ovsdb_storage_apply_committed(storage);
    struct ovsdb *new_db = ovsdb_storage_take_new_db(storage);
    if (new_db) {
        serve_new_db(sdb, new_db);
    }
    db = sdb->db;
    set->observer.dbs_changed(set->observer.aux, "adding", name);
    ovsdb_sysdb_add(set->sysdb->db, name, ovsdb_get_schema(db));
    if (ovsdb_storage_get_raft(storage)) {
        sync_cluster_status(sdb, true);
    }
    if (namep) {
        *namep = xstrdup(name);
    }
    return NULL;
}

struct ovsdb_error *
ovsdb_databases_add_relay(struct ovsdb_databases *set, struct ovsdb *db,
                          struct ovsdb_relay *relay,
                          struct ovsdb_served_db **sdbp)
{
    const char *name = ovsdb_get_schema(db)->name;
    if (ovsdb_databases_find(set, name)) {
        struct ovsdb_error *error = ovsdb_error(OVSDB_E_SYNTAX,
                                                "%s: duplicate database name",
                                                name);
        ovsdb_destroy(db);
        return error;
    }
    *sdbp = served_db_create(set, name, db, NULL);
    (*sdbp)->relay = relay;
    ovsdb_sysdb_add(set->sysdb->db, name, ovsdb_get_schema(db));
    ovsdb_served_db_set_status(*sdbp, "relay", false, false);
    return NULL;
}

struct ovsdb_relay *
ovsdb_served_db_get_relay(const struct ovsdb_served_db *sdb)
{
    return sdb->relay;
}

void
ovsdb_served_db_set_status(struct ovsdb_served_db *sdb, const char *model,
                           bool connected, bool leader)
{
    ovsdb_sysdb_set_status(sdb->set->sysdb->db, sdb->name, model, connected,
                           leader);
}

struct ovsdb_error *
ovsdb_databases_remove(struct ovsdb_databases *set, const char *name)
{
    struct ovsdb_served_db *sdb = ovsdb_databases_find(set, name);
    if (!sdb || sdb == set->sysdb) {
        return ovsdb_error(OVSDB_E_SYNTAX, "no database by that name");
    }
    set->observer.dbs_changed(set->observer.aux, "removing", name);

    for (size_t i = 0; i < set->n_dbs; i++) {
        if (set->dbs[i] == sdb) {
            memmove(&set->dbs[i], &set->dbs[i + 1],
                    (set->n_dbs - i - 1) * sizeof *set->dbs);
            set->n_dbs--;
            break;
        }
    }
    ovsdb_sysdb_remove(set->sysdb->db, sdb->name);
    served_db_close(sdb);
    served_db_destroy(sdb);
    return NULL;
}

/* Detaches 'sdb''s monitors, its users (through the observer) and storage from its database and
 * frees them, keeping 'sdb' itself. */
static void
served_db_close(struct ovsdb_served_db *sdb)
{
    struct ovsdb_databases *set = sdb->set;
    ovsdb_served_db_flush(sdb);
    /* Clustered transactions still undecided: no one here will learn
     * their fate, and their clients hear so. */
    ovsdb_storage_abandon(sdb->storage);
    uint64_t ticket;
    struct ovsdb_error *error;
    while (ovsdb_storage_pop_outcome(sdb->storage, &ticket, &error)) {
        set->observer.batch_done(set->observer.aux, sdb, ticket, error);
        ovsdb_error_destroy(error);
    }
    set->observer.db_removed(set->observer.aux, sdb);
    detach_db(sdb);
    ovsdb_storage_close(sdb->storage);
    sdb->storage = NULL;
}

struct ovsdb_error *
ovsdb_served_db_convert(struct ovsdb_served_db *sdb,
                        struct ovsdb_schema *schema)
{
    struct ovsdb *converted = NULL;

    if (!sdb->storage) {
        ovsdb_schema_destroy(schema);
        return ovsdb_error(OVSDB_E_NOT_ALLOWED, "cannot convert %s",
                           sdb->name);
    }
    if (sdb->convert_ticket) {
        /* The next one converts what this one makes. */
        ovsdb_schema_destroy(schema);
        return ovsdb_error(OVSDB_E_CLUSTER, "%s: a conversion is in progress",
                           sdb->name);
    }
    ovsdb_served_db_flush(sdb);
    struct ovsdb_error *error = ovsdb_file_convert(sdb->db, schema,
                                                   &converted);
    ovsdb_schema_destroy(schema);
    if (error) {
        return error;
    }
    if (ovsdb_served_db_get_raft(sdb)) {
        error = ovsdb_storage_propose_db(sdb->storage, converted,
                                         "converted by ovsdb-server");
        if (!error) {
            /* Writes would build on the old database: they wait until the
             * conversion is decided (report_outcomes()). */
            sdb->convert_ticket = ovsdb_storage_get_last_ticket(sdb->storage);
            ovsdb_served_db_hold_writes(sdb, true);
        }
        return error;
    }
    error = ovsdb_storage_replace_db(sdb->storage, converted,
                                     "converted by ovsdb-server");
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
serve_new_db(struct ovsdb_served_db *sdb, struct ovsdb *db)
{
    struct ovsdb_databases *set = sdb->set;
    if (strcmp(ovsdb_get_schema(sdb->db)->version,
               ovsdb_get_schema(db)->version)) {
        set->observer.dbs_changed(set->observer.aux, "changing the schema of",
                                  sdb->name);
    }
    set->observer.db_removed(set->observer.aux, sdb);
    detach_db(sdb);
    attach_db(sdb, db);
    sdb->commit_seqno++;
    ovsdb_sysdb_set_schema(set->sysdb->db, sdb->name, ovsdb_get_schema(db));
    sync_cluster_status(sdb, false);
}

const char *
ovsdb_served_db_get_name(const struct ovsdb_served_db *sdb)
{
    return sdb->name;
}

struct ovsdb *
ovsdb_served_db_get_ovsdb(const struct ovsdb_served_db *sdb)
{
    return sdb->db;
}

struct ovsdb_monitor_hub *
ovsdb_served_db_get_hub(const struct ovsdb_served_db *sdb)
{
    return sdb->hub;
}

unsigned long long
ovsdb_served_db_get_commit_seqno(const struct ovsdb_served_db *sdb)
{
    return sdb->commit_seqno;
}

/* A request that must wait: no result, not even as text. */
static json_t *
must_wait(json_t *result, struct ovsdb_results_text *results_text)
{
    json_decref(result);
    if (results_text) {
        ds_clear(&results_text->text);
    }
    return NULL;
}

json_t *
ovsdb_served_db_transact(struct ovsdb_served_db *sdb, json_t *params,
                         struct jsonx_lazy_array *lazy, bool read_only,
                         ovsdb_lock_held_cb *lock_held, void *lock_aux,
                         ovsdb_authorize_cb *authorize, void *authorize_aux,
                         long long elapsed_msec, long long *timeout_msec,
                         struct ovsdb_results_text *results_text)
{
    bool durable = false;
    json_t *result = NULL;
    struct ovsdb_txn *txn = ovsdb_execute_compose_authorized(
        sdb->db, params, lazy,
        read_only || sdb == sdb->set->sysdb || sdb->relay
            || sdb->set->read_only,
        lock_held, lock_aux, authorize, authorize_aux, elapsed_msec,
        timeout_msec, &durable, &result, results_text);
    if (txn && sdb->n_write_holds) {
        /* A read barrier waits for the writes before it: this one waits
         * for the barrier. */
        ovsdb_txn_abort(txn);
        return must_wait(result, results_text);
    }
    if (!txn) {
        sdb->stats.n_txn_no_commit++;
    } else {
        struct ovsdb_error *error = ovsdb_txn_precommit(txn);
        if (!error && sdb->storage) {
            /* Group commit: the storage owns 'txn' from here on. */
            error = ovsdb_storage_commit_defer(sdb->storage, txn, durable);
            if (!error) {
                sdb->stats.n_txn_committed++;
                return result;
            }
            if (ovsdb_error_get_tag(error) == OVSDB_E_CLUSTER) {
                /* No leader to take it now: as the reference, the request
                 * waits and runs again once the cluster changes. */
                ovsdb_txn_abort(txn);
                ovsdb_error_destroy(error);
                return must_wait(result, results_text);
            }
        }
        if (error) {
            sdb->stats.n_txn_aborted++;
            ovsdb_txn_abort(txn);
            if (results_text) {
                ovsdb_execute_append_error_text(results_text, error);
            } else {
                ovsdb_execute_append_error(result, error);
            }
        } else {
            sdb->stats.n_txn_committed++;
            ovsdb_txn_commit_finish(txn);
        }
    }
    return result;
}

/* Tells the observer what the storage of 'sdb' decided (see
 * ovsdb_storage_pop_outcome()), serves a database that replaced the old
 * one, and brings "_Server" up to date. */
static void
report_outcomes(struct ovsdb_served_db *sdb)
{
    struct ovsdb_databases *set = sdb->set;
    uint64_t ticket;
    struct ovsdb_error *error;
    while (ovsdb_storage_pop_outcome(sdb->storage, &ticket, &error)) {
        if (sdb->convert_ticket && ticket >= sdb->convert_ticket) {
            /* Our conversion is decided. */
            sdb->convert_ticket = 0;
            ovsdb_served_db_hold_writes(sdb, false);
            struct ovsdb *new_db = NULL;
            if (!error) {
                new_db = ovsdb_storage_take_new_db(sdb->storage);
            }
            if (new_db) {
                /* Served before its client hears, as the reference. */
                serve_new_db(sdb, new_db);
            }
        }
        if (error) {
            /* The batch was undone: the database changed back under the
             * transactions that waited on its unwritten data ("wait" ops
             * that failed on it), so they must be tried again, as after a
             * commit. */
            sdb->commit_seqno++;
        }
        set->observer.batch_done(set->observer.aux, sdb, ticket, error);
        ovsdb_error_destroy(error);
    }
    struct ovsdb *new_db = ovsdb_storage_take_new_db(sdb->storage);
    if (new_db) {
        serve_new_db(sdb, new_db);
    }
    sync_cluster_status(sdb, false);
}

void
ovsdb_served_db_hold_writes(struct ovsdb_served_db *sdb, bool hold)
{
    if (hold) {
        sdb->n_write_holds++;
    } else if (!--sdb->n_write_holds) {
        /* The writes that waited may go. */
        sdb->commit_seqno++;
    }
}

uint64_t
ovsdb_served_db_get_last_ticket(const struct ovsdb_served_db *sdb)
{
    return sdb->storage ? ovsdb_storage_get_last_ticket(sdb->storage) : 0;
}

bool
ovsdb_served_db_has_pending(const struct ovsdb_served_db *sdb)
{
    return sdb->storage && ovsdb_storage_has_pending(sdb->storage);
}

void
ovsdb_served_db_flush(struct ovsdb_served_db *sdb)
{
    if (!ovsdb_served_db_has_pending(sdb)) {
        return;
    }
    long long start = time_usec();
    struct ovsdb_error *error = ovsdb_storage_flush(sdb->storage);
    prom_histogram_observe(&sdb->stats.batch_seconds,
                           (time_usec() - start) / 1e6);
    if (error) {
        sdb->stats.n_batch_failures++;
        ovsdb_error_destroy(error);
    }
    report_outcomes(sdb);
}

const struct ovsdb_served_db_stats *
ovsdb_served_db_get_stats(const struct ovsdb_served_db *sdb)
{
    return &sdb->stats;
}

struct ovsdb_storage *
ovsdb_served_db_get_storage(const struct ovsdb_served_db *sdb)
{
    return sdb->storage;
}

void
ovsdb_databases_flush(struct ovsdb_databases *set)
{
    for (size_t i = 0; i < set->n_dbs; i++) {
        ovsdb_served_db_flush(set->dbs[i]);
    }
}

struct ovsdb_error *
ovsdb_served_db_commit_txn(struct ovsdb_served_db *sdb, struct ovsdb_txn *txn)
{
    struct ovsdb_error *error = NULL;
    ovsdb_served_db_flush(sdb);
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
ovsdb_databases_set_read_only(struct ovsdb_databases *set, bool read_only)
{
    set->read_only = read_only;
}

struct ovsdb_error *
ovsdb_databases_compact(struct ovsdb_databases *set, const char *name)
{
    bool found = false;
    for (size_t i = 0; i < set->n_dbs; i++) {
        struct ovsdb_served_db *sdb = set->dbs[i];
        if (sdb->storage && (!name || !strcmp(name, sdb->name))) {
            found = true;
            ovsdb_served_db_flush(sdb);
            struct ovsdb_error *error = ovsdb_storage_compact(sdb->storage);
            if (error) {
                return error;
            }
        }
    }
    return found || !name
               ? NULL
               : ovsdb_error(OVSDB_E_SYNTAX, "no database by that name");
}

bool
ovsdb_databases_compacting(const struct ovsdb_databases *set)
{
    for (size_t i = 0; i < set->n_dbs; i++) {
        if (set->dbs[i]->storage
            && ovsdb_storage_is_compacting(set->dbs[i]->storage)) {
            return true;
        }
    }
    return false;
}

void
ovsdb_databases_set_memory_trim(struct ovsdb_databases *set, bool trim)
{
    set->memory_trim = trim;
    for (size_t i = 0; i < set->n_dbs; i++) {
        if (set->dbs[i]->storage) {
            ovsdb_storage_set_memory_trim(set->dbs[i]->storage, trim);
        }
    }
}
