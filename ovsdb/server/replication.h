/* ovsdb/server/replication.h: active-backup replication (ovsdb-server
 * --sync-from, --active and the *-active-ovsdb-server control commands).
 *
 * A backup server connects to the active server, checks that it is not
 * itself (get_server_id), and, for every database it serves from a file
 * that the active server also has (list_dbs), compares the schemas
 * (get_schema): a database whose active schema has a table or column the
 * local one lacks or types differently is not replicated, as with the
 * reference, and with nothing left to replicate the server becomes active.
 * It then monitors every table and column of the active schema except the
 * excluded tables with "monitor_cond".  The initial
 * contents replace the local ones (rows the active server lacks are
 * deleted) and each later update2 is written to the local file and
 * committed as one transaction, so the backup's own clients, monitors and
 * file follow.  While a backup, the server is read-only for clients.
 * Promoting it (disconnect-active-ovsdb-server) stops replicating and makes
 * it writable, with every replicated transaction kept.
 *
 *     repl = ovsdb_replication_create(dbs);
 *     ovsdb_replication_set_active(repl, "unix:/run/active.sock");
 *     ovsdb_replication_connect(repl);
 *     loop: ovsdb_replication_run(repl); ovsdb_replication_wait(repl);
 */
#ifndef OVSDB_REPLICATION_H
#define OVSDB_REPLICATION_H 1

#include <stdbool.h>
#include "lib/util.h"

struct ds;
struct ovsdb_error;
struct ovsdb_databases;

struct ovsdb_replication;

/* Returns a replication of the databases 'dbs' (borrowed: must outlive
 * it), active
 * (not replicating) and with no active server set.  Caller must free with
 * ovsdb_replication_destroy(). */
struct ovsdb_replication *ovsdb_replication_create(
    struct ovsdb_databases *dbs);
void ovsdb_replication_destroy(struct ovsdb_replication *); /* NULL ok. */

void ovsdb_replication_run(struct ovsdb_replication *);
void ovsdb_replication_wait(struct ovsdb_replication *);

/* The remote of the active server (NULL: none); borrowed. */
void ovsdb_replication_set_active(struct ovsdb_replication *,
                                  const char *remote);
const char *ovsdb_replication_get_active(const struct ovsdb_replication *);

/* Becomes a backup of the active server (read-only for clients), or stops
 * replicating and becomes active (writable). */
void ovsdb_replication_connect(struct ovsdb_replication *);
void ovsdb_replication_disconnect(struct ovsdb_replication *);
bool ovsdb_replication_is_backup(const struct ovsdb_replication *);

/* Sets the excluded tables from 'spec' ("DB:TABLE[,DB:TABLE...]", may be
 * empty); the reference's error for a bad one.  Takes effect at the next
 * connection. */
struct ovsdb_error *ovsdb_replication_set_exclude(
    struct ovsdb_replication *, const char *spec) WARN_UNUSED_RESULT;
/* The excluded tables as the spec, borrowed ("" if none). */
const char *ovsdb_replication_get_exclude(const struct ovsdb_replication *);

/* Appends the sync-status report, as the reference's. */
void ovsdb_replication_put_status(const struct ovsdb_replication *,
                                  struct ds *out);

/* Registers the control commands ovsdb-server/set-active-ovsdb-server,
 * get-active-ovsdb-server, connect-active-ovsdb-server,
 * disconnect-active-ovsdb-server, set-sync-exclude-tables,
 * get-sync-exclude-tables and sync-status for 'r'. */
void ovsdb_replication_register_commands(struct ovsdb_replication *);

#endif /* ovsdb/server/replication.h */
