/* ovsdb/server/server.h: one ovsdb-server process: its loop, its remotes
 * (listeners and outgoing connections) and the client sessions on them,
 * over the set of databases it serves (ovsdb/server/databases.h).
 *
 *     srv = ovsdb_server_create();
 *     dbs = ovsdb_server_get_databases(srv);
 *     error = ovsdb_databases_add(dbs, "conf.db", &name);
 *     ovsdb_server_add_remote(srv, "punix:/run/db.sock");
 *     for (;;) {
 *         ovsdb_server_run(srv);
 *         ovsdb_server_wait(srv);
 *         poll_block();
 *     }
 *
 * The layers, each calling only those below it: this loop; the sessions
 * (ovsdb/server/session.h); the relay and replication clients
 * (ovsdb/server/relay.h, ovsdb/server/replication.h); the set of databases.
 * The set reports batches written and databases removed through an observer,
 * which this module passes on to every session.
 *
 * A pass of the loop runs every session (which may commit transactions
 * into their databases' pending batches), then writes every batch (group
 * commit: their replies are held by the sessions until then), runs the
 * databases' storage, and last sends what the sessions queued. */
#ifndef OVSDB_SERVER_H
#define OVSDB_SERVER_H 1

#include <stdbool.h>
#include <stddef.h>

struct ds;
struct ovsdb_databases;
struct ovsdb_session;
struct ovsdb_ssl_config;

struct ovsdb_server;

/* Returns a new server serving only "_Server", with no remotes.  Caller
 * must free with ovsdb_server_destroy(). */
struct ovsdb_server *ovsdb_server_create(void);
void ovsdb_server_destroy(struct ovsdb_server *);   /* NULL is fine. */

void ovsdb_server_run(struct ovsdb_server *);
void ovsdb_server_wait(struct ovsdb_server *);

/* I/O threads: today they run the TLS handshakes of accepted connections
 * (lib/handshake-pool.h), the costly part of a storm of reconnecting TLS
 * clients; everything else stays on the main thread.  0 (the default of a
 * new server) runs them there too.  Changing the number hands the
 * handshakes under way to the new threads, or to the main thread. */
void ovsdb_server_set_io_threads(struct ovsdb_server *, int n);
/* Appends "io-threads: N" and "handshakes-in-flight: M" lines. */
void ovsdb_server_put_io_threads(const struct ovsdb_server *, struct ds *);
void ovsdb_server_get_io_threads(const struct ovsdb_server *, int *n_threads,
                                 size_t *n_handshakes);

/* The databases served (owned by the server). */
struct ovsdb_databases *ovsdb_server_get_databases(
    const struct ovsdb_server *);

/* Remotes. */

/* Adds remote 'spec': "punix:", "ptcp:", "pssl:" listen; "unix:", "tcp:",
 * "ssl:" connect out; "db:DB,TABLE,COLUMN" takes its targets and their options
 * (inactivity probe, back-off, read-only, RBAC role) from a database and
 * follows it as it changes (ovsdb/server/remotes.h).  A remote that cannot be
 * opened yet is kept and retried, as the reference does. Returns false if
 * 'spec' was already there. */
bool ovsdb_server_add_remote(struct ovsdb_server *, const char *spec);
/* Removes remote 'spec' and closes its connections.  Returns false if
 * there is no such remote. */
bool ovsdb_server_remove_remote(struct ovsdb_server *, const char *spec);
/* Appends the remote specs, sorted, one per line. */
void ovsdb_server_put_remotes(const struct ovsdb_server *, struct ds *);

/* Disconnects every client (outgoing connections reconnect), as
 * "ovsdb-server/reconnect" does. */
void ovsdb_server_reconnect(struct ovsdb_server *);

/* From now on "monitor_cond" and "monitor_cond_since" are unknown methods
 * to every client, and every client is disconnected so that it reconnects
 * and falls back to "monitor" ("ovsdb-server/disable-monitor-cond", with
 * which Open vSwitch tests its clients' fallback).  There is no undo. */
void ovsdb_server_disable_monitor_cond(struct ovsdb_server *);

/* Makes the server apply 'ssl' (borrowed: must outlive the server), whose
 * values may be "db:" specs, about once a second. */
void ovsdb_server_set_ssl_config(struct ovsdb_server *,
                                 const struct ovsdb_ssl_config *ssl);

/* The client sessions now, for metrics: borrowed, valid until the next
 * ovsdb_server_run(). */
size_t ovsdb_server_n_sessions(const struct ovsdb_server *);
struct ovsdb_session *ovsdb_server_session_at(const struct ovsdb_server *,
                                              size_t i);

/* Appends the memory/show report: the reference's counts plus the
 * allocator's statistics (refreshed for this call). */
void ovsdb_server_put_memory_report(struct ovsdb_server *, struct ds *);

#endif /* ovsdb/server/server.h */
