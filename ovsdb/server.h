/* ovsdb/server.h: what one ovsdb-server process serves: databases,
 * remotes (listeners and outgoing connections) and the client sessions on
 * them, the lock server and the "_Server" database.
 *
 *     srv = ovsdb_server_create();
 *     error = ovsdb_server_add_db(srv, "conf.db", &name);
 *     ovsdb_server_add_remote(srv, "punix:/run/db.sock");
 *     for (;;) {
 *         ovsdb_server_run(srv);
 *         ovsdb_server_wait(srv);
 *         poll_block();
 *     }
 *
 * Databases are referred to by name.  Each database file is opened with
 * ovsdb/storage; every transaction is written before its reply is sent.
 * Transactions committed in one pass of the loop are written together
 * (group commit): their replies are held by the sessions until
 * ovsdb_server_run() flushes the batch at the end of the pass (or earlier,
 * when a request that reads the database would otherwise see unwritten
 * data), and monitors hear of them only then.
 * The "_Server" database (ovsdb/sysdb.h) is in memory and read-only
 * for clients; it always has one row per served database. */
#ifndef OVSDB_SERVER_H
#define OVSDB_SERVER_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "lib/util.h"
#include "ovsdb/execution.h"

struct ds;
struct ovsdb;
struct ovsdb_error;
struct ovsdb_lock_server;
struct ovsdb_monitor_hub;
struct ovsdb_relay;
struct ovsdb_schema;
struct ovsdb_ssl_config;
struct ovsdb_txn;
struct raft;
struct uuid;

struct ovsdb_server;
struct ovsdb_server_db;         /* One database served. */

/* Returns a new server serving only "_Server".  Caller must free with
 * ovsdb_server_destroy(). */
struct ovsdb_server *ovsdb_server_create(void);
void ovsdb_server_destroy(struct ovsdb_server *);   /* NULL is fine. */

void ovsdb_server_run(struct ovsdb_server *);
void ovsdb_server_wait(struct ovsdb_server *);

/* Databases. */

/* Opens database file 'file' and serves it under its schema's name.
 * Fails if a database of that name is already served.  If 'namep' is
 * nonnull, stores the name there (caller must free with free()). */
struct ovsdb_error *ovsdb_server_add_db(struct ovsdb_server *,
                                        const char *file, char **namep)
    WARN_UNUSED_RESULT;
/* Serves 'db' (takes ownership) under its schema's name, in memory, as a
 * relay kept up to date by 'relay' (borrowed: must outlive the database).
 * Fails if a database of that name is already served.  On success stores
 * the database in '*sdbp' (borrowed, valid until removed). */
struct ovsdb_error *ovsdb_server_add_relay_db(struct ovsdb_server *,
                                              struct ovsdb *db,
                                              struct ovsdb_relay *relay,
                                              struct ovsdb_server_db **sdbp)
    WARN_UNUSED_RESULT;
/* Stops serving database 'name' ("_Server" cannot be removed).  Clients
 * that monitor it get "monitor_canceled" if they asked to be told
 * (set_db_change_aware), else they are disconnected. */
struct ovsdb_error *ovsdb_server_remove_db(struct ovsdb_server *,
                                           const char *name)
    WARN_UNUSED_RESULT;

/* Converts 'sdb' online to 'schema' (takes ownership), whose name must be
 * the database's: the converted contents are written to a new file that
 * atomically replaces the database file, and the database is served from
 * it.  Clients that monitored the old database are treated as for
 * ovsdb_server_remove_db().  On error nothing changes. */
struct ovsdb_error *ovsdb_server_convert_db(struct ovsdb_server_db *sdb,
                                            struct ovsdb_schema *schema)
    WARN_UNUSED_RESULT;

/* Returns database 'name', or NULL; borrowed (valid until removed). */
struct ovsdb_server_db *ovsdb_server_find_db(const struct ovsdb_server *,
                                             const char *name);
/* Returns a new reference to the sorted array of database names. */
json_t *ovsdb_server_list_dbs(const struct ovsdb_server *);

const char *ovsdb_server_db_get_name(const struct ovsdb_server_db *);
struct ovsdb *ovsdb_server_db_get_ovsdb(const struct ovsdb_server_db *);
struct ovsdb_monitor_hub *ovsdb_server_db_get_hub(
    const struct ovsdb_server_db *);
/* The Raft member of clustered database 'sdb' (borrowed), or NULL. */
struct raft *ovsdb_server_db_get_raft(const struct ovsdb_server_db *);
/* The relay that feeds 'sdb', or NULL if it is not a relay database. */
struct ovsdb_relay *ovsdb_server_db_get_relay(const struct ovsdb_server_db *);
/* Sets the "model", "connected" and "leader" columns of 'sdb''s row in
 * "_Server". */
void ovsdb_server_db_set_status(struct ovsdb_server_db *, const char *model,
                                bool connected, bool leader);
/* Counts commits to the database: a change means waiting transactions
 * should be tried again. */
unsigned long long ovsdb_server_db_get_commit_seqno(
    const struct ovsdb_server_db *);

/* Runs the "transact" request 'params' (borrowed; its operations may be
 * freed as they run) on 'sdb' as
 * ovsdb_execute_compose_authorized() describes (the same 'read_only',
 * 'lock_held', 'authorize', 'elapsed_msec' and '*timeout_msec'
 * conventions; "_Server" and relay databases, whose writes go upstream,
 * are always read-only), and if there is anything to commit, precommits
 * it and commits it: for a database with storage, into the pending batch
 * (then, and whenever ovsdb_server_db_has_pending() says so afterwards,
 * the result must be held until ovsdb_session_batch_done() for 'sdb';
 * monitors see the commit then), otherwise at once (monitors see it before
 * this returns).  Returns the result array (new reference), or NULL
 * if the request must wait. */
json_t *ovsdb_server_db_transact(struct ovsdb_server_db *sdb,
                                 json_t *params, bool read_only,
                                 ovsdb_lock_held_cb *lock_held,
                                 void *lock_aux,
                                 ovsdb_authorize_cb *authorize,
                                 void *authorize_aux, long long elapsed_msec,
                                 long long *timeout_msec);

/* The ticket of the newest transaction committed in memory on 'sdb'
 * (ovsdb/storage.h): a reply that depends on it waits until
 * ovsdb_session_batch_done() reports a ticket at least as new. */
uint64_t ovsdb_server_db_get_last_ticket(const struct ovsdb_server_db *);
/* True if 'sdb' has transactions committed in memory but not yet written:
 * anything read from the database now depends on them. */
bool ovsdb_server_db_has_pending(const struct ovsdb_server_db *);
/* Writes 'sdb''s pending batch (one write, one fsync if any of it is
 * durable), then tells every session the outcome
 * (ovsdb_session_batch_done()).  Does nothing if nothing is pending. */
void ovsdb_server_db_flush(struct ovsdb_server_db *);
/* Same for every database. */
void ovsdb_server_flush(struct ovsdb_server *);

/* Writes 'txn' (precommitted, on 'sdb''s database; takes ownership) to
 * storage and commits it, or aborts it on a write error.  For replicated
 * changes.  'txn' must have been created with no batch pending on 'sdb'
 * (outside ovsdb_server_run(), which always ends with one written): a
 * failed batch could not be undone under an open transaction. */
struct ovsdb_error *ovsdb_server_db_commit_txn(struct ovsdb_server_db *sdb,
                                              struct ovsdb_txn *txn)
    WARN_UNUSED_RESULT;
/* With 'read_only' (a backup server), clients' transactions may only
 * read. */
void ovsdb_server_set_read_only(struct ovsdb_server *, bool read_only);

/* Compacts database 'name' (all databases if NULL) now. */
struct ovsdb_error *ovsdb_server_compact(struct ovsdb_server *,
                                         const char *name)
    WARN_UNUSED_RESULT;
/* True while a compaction started by ovsdb_server_compact() runs. */
bool ovsdb_server_compacting(const struct ovsdb_server *);
void ovsdb_server_set_memory_trim(struct ovsdb_server *, bool trim);

/* Remotes. */

/* Adds remote 'spec': "punix:", "ptcp:", "pssl:" listen; "unix:", "tcp:",
 * "ssl:" connect out; "db:DB,TABLE,COLUMN" takes its targets and their
 * options (inactivity probe, back-off, read-only, RBAC role) from a
 * database and follows it as it changes (ovsdb/remotes.h).  A remote that
 * cannot be opened yet is kept and retried, as the reference does.
 * Returns false if 'spec' was already there. */
bool ovsdb_server_add_remote(struct ovsdb_server *, const char *spec);
/* Removes remote 'spec' and closes its connections.  Returns false if
 * there is no such remote. */
bool ovsdb_server_remove_remote(struct ovsdb_server *, const char *spec);
/* Appends the remote specs, sorted, one per line. */
void ovsdb_server_put_remotes(const struct ovsdb_server *, struct ds *);

/* Disconnects every client (outgoing connections reconnect), as
 * "ovsdb-server/reconnect" does. */
void ovsdb_server_reconnect(struct ovsdb_server *);

/* Makes the server apply 'ssl' (borrowed: must outlive the server), whose
 * values may be "db:" specs, about once a second. */
void ovsdb_server_set_ssl_config(struct ovsdb_server *,
                                 const struct ovsdb_ssl_config *ssl);

/* For sessions. */
struct ovsdb_lock_server *ovsdb_server_get_lock_server(
    const struct ovsdb_server *);
const struct uuid *ovsdb_server_get_id(const struct ovsdb_server *);

/* Appends the memory/show report: the reference's counts plus the
 * allocator's statistics (refreshed on a timer). */
void ovsdb_server_put_memory_report(struct ovsdb_server *, struct ds *);

#endif /* ovsdb/server.h */
