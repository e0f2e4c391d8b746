/* ovsdb/server/databases.h: the set of databases one ovsdb-server serves, each
 * with its storage, its monitors and its "_Server" row, and what the
 * sessions share across them (the lock server, the server's id).
 *
 * This is the layer sessions, relays and replication call to read and
 * write databases; it calls nothing above it.  What it must tell the
 * layer above (a batch written, a database going away) goes through the
 * observer given to ovsdb_databases_create(): the server passes it on to
 * its sessions.
 *
 * Group commit is here: ovsdb_served_db_transact() commits into the
 * database's pending batch; ovsdb_databases_flush() (called once per pass
 * of the server's loop, or earlier when a request must see the data
 * written) writes each batch with one write and one fsync, then reports
 * the outcome through the observer.  Monitors hear of the commits only
 * then, so no client sees a change that is not yet durable.
 * The "_Server" database (ovsdb/engine/sysdb.h) is in memory and read-only for
 * clients; it always has one row per served database. */
#ifndef OVSDB_DATABASES_H
#define OVSDB_DATABASES_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "lib/prom.h"
#include "lib/util.h"
#include "ovsdb/engine/execution.h"

struct jsonx_lazy_array;
struct ovsdb;
struct ovsdb_error;
struct ovsdb_lock_server;
struct ovsdb_monitor_hub;
struct ovsdb_results_text;
struct ovsdb_relay;
struct ovsdb_schema;
struct ovsdb_txn;
struct raft;
struct uuid;

struct ovsdb_databases;
struct ovsdb_served_db; /* One database served. */

/* What the set tells the layer above.  Both are called from
 * ovsdb_databases_flush(), _run(), _remove() and
 * ovsdb_served_db_convert(), never from a transaction. */
struct ovsdb_databases_observer {
    /* Every transaction on 'sdb' up to 'ticket' (see
     * ovsdb_served_db_get_last_ticket()) was committed (if 'error' is
     * NULL) or failed and was undone ('error', borrowed, says why). */
    void (*batch_done)(void *aux, struct ovsdb_served_db *sdb, uint64_t ticket,
                       const struct ovsdb_error *error);
    /* 'sdb''s database is going away (removed, or replaced by a converted
     * one): whatever refers to its monitors or rows must let go now. */
    void (*db_removed)(void *aux, struct ovsdb_served_db *sdb);
    /* Database 'name' is being added, removed, or given a schema of
     * another version; 'why' ("adding", "removing", "changing the schema
     * of") is for the log. */
    void (*dbs_changed)(void *aux, const char *why, const char *name);
    void *aux;
};

/* Returns a new set serving only "_Server", which reports to 'observer'
 * (copied).  Caller must free with ovsdb_databases_destroy(). */
struct ovsdb_databases *ovsdb_databases_create(
    const struct ovsdb_databases_observer *observer);
void ovsdb_databases_destroy(struct ovsdb_databases *); /* NULL is fine. */

/* Runs the storage of every database (Raft, compaction), reports what it
 * decided, and stops serving a clustered database whose member has left
 * its cluster for good. */
void ovsdb_databases_run(struct ovsdb_databases *);
void ovsdb_databases_wait(struct ovsdb_databases *);

/* Opens database file 'file' and serves it under its schema's name.
 * Fails if a database of that name is already served.  If 'namep' is
 * nonnull, stores the name there (caller must free with free()). */
struct ovsdb_error *ovsdb_databases_add(struct ovsdb_databases *,
                                        const char *file, char **namep)
    WARN_UNUSED_RESULT;
/* Serves 'db' (takes ownership) under its schema's name, in memory, as a
 * relay kept up to date by 'relay' (borrowed: must outlive the database).
 * Fails if a database of that name is already served.  On success stores
 * the database in '*sdbp' (borrowed, valid until removed). */
struct ovsdb_error *ovsdb_databases_add_relay(struct ovsdb_databases *,
                                              struct ovsdb *db,
                                              struct ovsdb_relay *relay,
                                              struct ovsdb_served_db **sdbp)
    WARN_UNUSED_RESULT;
/* Stops serving database 'name' ("_Server" cannot be removed), telling
 * the observer first. */
struct ovsdb_error *ovsdb_databases_remove(struct ovsdb_databases *,
                                           const char *name)
    WARN_UNUSED_RESULT;

/* Returns database 'name', or NULL; borrowed (valid until removed). */
struct ovsdb_served_db *ovsdb_databases_find(const struct ovsdb_databases *,
                                             const char *name);
/* The number of databases served, "_Server" included, and the i-th of
 * them in name order. */
size_t ovsdb_databases_count(const struct ovsdb_databases *);
struct ovsdb_served_db *ovsdb_databases_at(const struct ovsdb_databases *,
                                           size_t i);
/* Returns a new reference to the sorted array of database names. */
json_t *ovsdb_databases_list(const struct ovsdb_databases *);
/* The sum of every database's commit seqno (see
 * ovsdb_served_db_get_commit_seqno()) and of their number: a change means
 * some database changed or one came or went. */
unsigned long long ovsdb_databases_get_change_seqno(
    const struct ovsdb_databases *);

/* Writes every database's pending batch (ovsdb_served_db_flush()). */
void ovsdb_databases_flush(struct ovsdb_databases *);

/* With 'read_only' (a backup server), clients' transactions may only
 * read. */
void ovsdb_databases_set_read_only(struct ovsdb_databases *, bool read_only);
void ovsdb_databases_set_memory_trim(struct ovsdb_databases *, bool trim);

/* Compacts database 'name' (all databases if NULL) now. */
struct ovsdb_error *ovsdb_databases_compact(struct ovsdb_databases *,
                                            const char *name)
    WARN_UNUSED_RESULT;
/* True while a compaction started by ovsdb_databases_compact() runs. */
bool ovsdb_databases_compacting(const struct ovsdb_databases *);

/* Shared by the sessions of the server. */
struct ovsdb_lock_server *ovsdb_databases_get_lock_server(
    const struct ovsdb_databases *);
const struct uuid *ovsdb_databases_get_server_id(
    const struct ovsdb_databases *);

/* One database. */

const char *ovsdb_served_db_get_name(const struct ovsdb_served_db *);
struct ovsdb *ovsdb_served_db_get_ovsdb(const struct ovsdb_served_db *);
struct ovsdb_monitor_hub *ovsdb_served_db_get_hub(
    const struct ovsdb_served_db *);
/* The Raft member of clustered database 'sdb' (borrowed), or NULL. */
struct raft *ovsdb_served_db_get_raft(const struct ovsdb_served_db *);
/* The relay that feeds 'sdb', or NULL if it is not a relay database. */
struct ovsdb_relay *ovsdb_served_db_get_relay(const struct ovsdb_served_db *);
/* Sets the "model", "connected" and "leader" columns of 'sdb''s row in
 * "_Server". */
void ovsdb_served_db_set_status(struct ovsdb_served_db *, const char *model,
                                bool connected, bool leader);
/* Counts commits to the database: a change means waiting transactions
 * should be tried again. */
unsigned long long ovsdb_served_db_get_commit_seqno(
    const struct ovsdb_served_db *);

/* Runs the "transact" request 'params' (borrowed; its operations may be
 * freed as they run) on 'sdb' as
 * ovsdb_execute_compose_authorized() describes (the same 'read_only',
 * 'lock_held', 'authorize', 'elapsed_msec' and '*timeout_msec'
 * conventions; "_Server" and relay databases, whose writes go upstream,
 * are always read-only), and if there is anything to commit, precommits
 * it and commits it: for a database with storage, into the pending batch
 * (then, and whenever ovsdb_served_db_has_pending() says so afterwards,
 * the result must be held until the observer's batch_done() for 'sdb';
 * monitors see the commit then), otherwise at once (monitors see it before
 * this returns).  Returns the result array (new reference), or NULL
 * if the request must wait.  With 'lazy' (then 'params' is NULL) the
 * operations are parsed one at a time, and with 'results_text' the result
 * array is text, as there (then NULL is returned, and 'results_text' is
 * left empty if the request must wait). */
json_t *ovsdb_served_db_transact(struct ovsdb_served_db *sdb, json_t *params,
                                 struct jsonx_lazy_array *lazy, bool read_only,
                                 ovsdb_lock_held_cb *lock_held, void *lock_aux,
                                 ovsdb_authorize_cb *authorize,
                                 void *authorize_aux, long long elapsed_msec,
                                 long long *timeout_msec,
                                 struct ovsdb_results_text *results_text);

/* While any holder says 'hold' (true, matched later by one false), a
 * transaction on 'sdb' that would write waits instead
 * (ovsdb_served_db_transact() returns NULL for it); they run once the
 * last holder lets go.  For a read barrier: see ovsdb/server/session.c. */
void ovsdb_served_db_hold_writes(struct ovsdb_served_db *, bool hold);

/* The ticket of the newest transaction committed in memory on 'sdb'
 * (ovsdb/storage/storage.h): a reply that depends on it waits until
 * batch_done() reports a ticket at least as new. */
uint64_t ovsdb_served_db_get_last_ticket(const struct ovsdb_served_db *);
/* True if 'sdb' has transactions committed in memory but not yet written:
 * anything read from the database now depends on them. */
bool ovsdb_served_db_has_pending(const struct ovsdb_served_db *);
/* Writes 'sdb''s pending batch (one write, one fsync if any of it is
 * durable), then reports the outcome to the observer.  Does nothing if
 * nothing is pending. */
void ovsdb_served_db_flush(struct ovsdb_served_db *);

/* What happened to 'sdb''s transactions, for metrics
 * (ovsdb/server/metrics.h).  A "transact" that waits is counted when it
 * runs for good. */
struct ovsdb_served_db_stats {
    unsigned long long n_txn_committed;  /* In memory (and in the batch). */
    unsigned long long n_txn_aborted;    /* Precommit or storage refused. */
    unsigned long long n_txn_no_commit;  /* Nothing to commit: read-only,
                                          * or an operation failed. */
    unsigned long long n_batch_failures; /* Batches the storage undid. */
    struct prom_histogram batch_seconds; /* Time to write a batch (write,
                                          * fsync; clustered: append and
                                          * propose). */
};
/* Borrowed: valid until 'sdb' is removed. */
const struct ovsdb_served_db_stats *ovsdb_served_db_get_stats(
    const struct ovsdb_served_db *);
/* 'sdb''s storage (borrowed), or NULL for "_Server" and relays. */
struct ovsdb_storage *ovsdb_served_db_get_storage(
    const struct ovsdb_served_db *);

/* Writes 'txn' (precommitted, on 'sdb''s database; takes ownership) to
 * storage and commits it, or aborts it on a write error.  For replicated
 * changes.  'txn' must have been created with no batch pending on 'sdb'
 * (outside a pass of the loop, which always ends with one written): a
 * failed batch could not be undone under an open transaction. */
struct ovsdb_error *ovsdb_served_db_commit_txn(struct ovsdb_served_db *sdb,
                                               struct ovsdb_txn *txn)
    WARN_UNUSED_RESULT;

/* Converts 'sdb' online to 'schema' (takes ownership), whose name must be
 * the database's: the converted contents are written to a new file that
 * atomically replaces the database file, and the database is served from
 * it.  The observer hears db_removed() for the old database first.  On
 * error nothing changes.
 *
 * Clustered, the conversion is proposed to the cluster
 * (ovsdb_storage_propose_db()) and decided later, like a transaction: on
 * success ovsdb_served_db_has_pending() is true and the reply must be
 * held, as a transaction's, until batch_done() for 'sdb' reports its
 * ticket (ovsdb_served_db_get_last_ticket() right after this call); by
 * then, if it committed, the new database is served.  Meanwhile writes on
 * 'sdb' wait (ovsdb_served_db_transact() returns NULL for them).  A
 * "cluster error" (returned here, or reported by batch_done()) means the
 * conversion did not happen and may be run again: no leader, another
 * member's entry first, a leader change, or a conversion of ours still
 * in progress. */
struct ovsdb_error *ovsdb_served_db_convert(struct ovsdb_served_db *sdb,
                                            struct ovsdb_schema *schema)
    WARN_UNUSED_RESULT;

#endif /* ovsdb/server/databases.h */
