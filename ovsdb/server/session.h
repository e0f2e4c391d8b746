/* ovsdb/server/session.h: one client connection of ovsdb-server: JSON-RPC
 * dispatch of the RFC 7047 methods and Open vSwitch extensions, with the
 * client's monitors, locks and waiting transactions.
 *
 * The server creates a session per accepted (or outgoing) connection and
 * calls ovsdb_session_run() and ovsdb_session_wait() from its loop; once
 * ovsdb_session_is_alive() is false it destroys it.
 *
 * Flow control: a session stops reading requests while its output backlog
 * is over a limit, whatever the requests; meanwhile its monitors keep
 * their changes pending, one per row, and send them merged once the client
 * has read enough.  Only if the backlog grows past a hard cap anyway is
 * the session dropped (logged and counted).  Others are unaffected. */
#ifndef OVSDB_SESSION_H
#define OVSDB_SESSION_H 1

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct jsonrpc_session;
struct ovsdb_error;
struct ovsdb_databases;
struct ovsdb_served_db;

struct ovsdb_session;

/* Creates a session on 'js' (takes ownership) serving 'dbs' (borrowed:
 * must outlive the session).  Caller must free with
 * ovsdb_session_destroy(). */
struct ovsdb_session *ovsdb_session_create(struct ovsdb_databases *dbs,
                                           struct jsonrpc_session *js);
void ovsdb_session_destroy(struct ovsdb_session *);  /* NULL is fine. */

void ovsdb_session_run(struct ovsdb_session *);
void ovsdb_session_wait(struct ovsdb_session *);
/* Sends what the session has queued (replies, notifications, monitor
 * updates), as far as the socket takes it.  The server calls it for every
 * session at the end of each pass of its loop, so that replies leave as
 * soon as the pass's work is done rather than on the next pass. */
void ovsdb_session_flush(struct ovsdb_session *);
/* True if monitor updates were queued on the session since its last
 * ovsdb_session_flush(): the server flushes those sessions first. */
bool ovsdb_session_has_updates(const struct ovsdb_session *);
bool ovsdb_session_is_alive(const struct ovsdb_session *);
/* True while the session's connection is being set up (a TLS handshake):
 * see jsonrpc_session_is_handshaking(). */
bool ovsdb_session_is_handshaking(const struct ovsdb_session *);
const char *ovsdb_session_get_name(const struct ovsdb_session *);

/* Skipping idle sessions (see ovsdb/server/server.c).
 *
 * ovsdb_session_is_idle() is true if the session has nothing to do until
 * its connection has input or a timer it registered in its last
 * ovsdb_session_wait() expires: then ovsdb_session_run() would do nothing,
 * and ovsdb_session_wait() would register the same again, unless something
 * outside the session changed it meanwhile.
 *
 * ovsdb_session_outside_changes() counts the changes that one session's
 * work makes to others, which their owner does not see: monitor updates
 * from a commit, a lock handed over.  The owner's own calls on a session
 * (options, database changes, reconnecting) are its to note; a group
 * commit ending changes only sessions that are not idle.
 *
 * The owner calls ovsdb_session_pass_ended() once per pass of its loop,
 * after waiting: the pass's time budget for requests starts again at the
 * next ovsdb_session_run(). */
bool ovsdb_session_is_idle(const struct ovsdb_session *);
unsigned long long ovsdb_session_outside_changes(void);
void ovsdb_session_pass_ended(void);

/* Group commit: every transaction on 'sdb' up to 'ticket' (see
 * ovsdb_served_db_get_last_ticket()) was committed (if 'error' is NULL) or
 * failed and was undone (then 'error', borrowed, says why).  Sends the
 * replies held for them (adding 'error' to those of transactions that had
 * not failed on their own) and whatever waited behind them. */
void ovsdb_session_batch_done(struct ovsdb_session *,
                              struct ovsdb_served_db *sdb, uint64_t ticket,
                              const struct ovsdb_error *error);

/* Tells the session that the set of databases changed: database 'name' is
 * being added, removed or given a new schema ('why' says which, for the
 * log: "adding", "removing", "converting").  A client that did not send
 * "set_db_change_aware" is disconnected, as by the reference: it learns
 * of the change by reconnecting. */
void ovsdb_session_dbs_changed(struct ovsdb_session *, const char *why,
                               const char *name);

/* Tells the session that 'sdb''s database is going away (removed, or
 * replaced: converted, or a snapshot installed).  The session's monitors
 * and waiting transactions on it end: "monitor_canceled" and "canceled"
 * to a db-change-aware client; any other client using it is
 * disconnected. */
void ovsdb_session_db_removed(struct ovsdb_session *,
                              struct ovsdb_served_db *sdb);

struct ovsdb_session_stats {
    size_t n_monitors;
    size_t n_waiting_txns;      /* "transact"s without a reply yet. */
    size_t backlog;             /* Bytes queued for sending. */
    bool paused;                /* Not reading: backlog over the limit. */
    size_t n_pending_rows;      /* Rows with monitor changes pending. */
};
void ovsdb_session_get_stats(const struct ovsdb_session *,
                             struct ovsdb_session_stats *);

/* Drops the connection (an outgoing one reconnects). */
void ovsdb_session_reconnect(struct ovsdb_session *);

/* For the status of a remote (ovsdb/server/remote-status.h): whether the
 * connection is up, its last error (errno value, 0 if none) and its
 * reconnection state and times. */
struct reconnect_stats;
bool ovsdb_session_is_connected(const struct ovsdb_session *);
int ovsdb_session_get_last_error(const struct ovsdb_session *);
void ovsdb_session_get_reconnect_stats(const struct ovsdb_session *,
                                       struct reconnect_stats *);

/* Options of the remote the session came from: with 'read_only' only
 * read-only transactions are allowed; 'role' (copied; NULL or "" for
 * none) is the RBAC role (ovsdb/engine/rbac.h) of its transactions. */
void ovsdb_session_set_options(struct ovsdb_session *, bool read_only,
                               const char *role);
/* Makes "monitor_cond" and "monitor_cond_since" unknown methods to this
 * session (see ovsdb_server_disable_monitor_cond()). */
void ovsdb_session_disable_monitor_cond(struct ovsdb_session *);
/* Inactivity probe interval (msec, 0 disables) and, for outgoing
 * connections, the maximum reconnection back-off (msec). */
void ovsdb_session_set_probe_interval(struct ovsdb_session *, int msec);
void ovsdb_session_set_backoff(struct ovsdb_session *, int max_backoff);

/* Limits: the backlog at which a session stops reading requests and keeps
 * monitor changes pending (default 1 MiB), and the one past which it is
 * dropped (bytes, default 64 MiB, plus the largest message queued since the
 * backlog was last empty). */
void ovsdb_session_set_backlog_limits(size_t pause, size_t drop);

/* Flow control, over all sessions since the start. */
struct ovsdb_session_flow_stats {
    size_t backlog_limit;           /* The limits in force (bytes). */
    size_t backlog_hard_cap;
    unsigned long long n_pauses;    /* Times a session stopped reading. */
    unsigned long long n_coalesced; /* Updates kept pending, not queued. */
    unsigned long long n_drops;     /* Sessions dropped at the hard cap. */
};
void ovsdb_session_get_flow_stats(struct ovsdb_session_flow_stats *);

#endif /* ovsdb/server/session.h */
