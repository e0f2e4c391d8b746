/* ovsdb/server/session-private.h: what the two files of one client session
 * share: ovsdb/server/session.c (the connection, the output queue, group
 * commit, monitors, locks, dispatch of requests) and
 * ovsdb/server/session-txn.c ("transact", "cancel", "convert" and the
 * transactions that wait).
 *
 * Why they are one unit: session.c dispatches requests to session-txn.c,
 * and session-txn.c answers through session.c's one output queue, which
 * must stay the only path for every reply and notification so that their
 * order is a property of one data structure.  Only those two files
 * include this header (tests/e2e/layering.sh checks). */
#ifndef OVSDB_SESSION_PRIVATE_H
#define OVSDB_SESSION_PRIVATE_H 1

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/ds.h"
#include "lib/hmap.h"
#include "ovsdb/server/session.h"

struct jsonrpc_msg;
struct ovsdb_error;
struct ovsdb_relay_txn;
struct ovsdb_served_db;

/* A "transact" request without its reply yet, for one of two reasons:
 * - it waits to be run again once the database changes (or its timeout
 *   passes): a "wait" operation's condition did not hold, or a clustered
 *   database could not take it (no leader; or it failed with a "cluster
 *   error", which the reference also retries);
 * - 'rtxn': a relay database forwarded it upstream, and it waits for the
 *   upstream's reply. */
struct waiting_txn {
    json_t *id;     /* Request id. */
    json_t *params; /* Request params. */
    struct ovsdb_served_db *sdb;
    long long created;            /* time_msec() of the first attempt. */
    long long timeout;            /* Msec after 'created'; LLONG_MAX none. */
    unsigned long long seqno;     /* Database commit seqno last tried. */
    struct ovsdb_relay_txn *rtxn; /* Forwarded upstream, or NULL. */
    bool is_convert;              /* A "convert" (it had a cluster error). */
};

/* A message held back until a group commit's outcome is known (see
 * databases.h): a "transact" reply that waits for the batch of 'sdb', or
 * ('sdb' NULL) any message queued behind one, already serialized. */
struct held_msg {
    struct ovsdb_served_db *sdb; /* NULL once final. */
    uint64_t ticket;             /* Waits for this one, while 'sdb'. */
    json_t *id;                  /* Request id, while 'sdb'. */
    json_t *result;              /* Result array, while 'sdb'. */
    struct ovsdb_results_text *results_text; /* Or as text, owned. */
    json_t *error;               /* Or the error of a "convert". */
    struct ds text;              /* Serialized message, once final. */

    /* A clustered database's transaction (or conversion: 'is_convert'):
     * its request, to run it again if it fails with a "cluster error"
     * ('retry' once it did). */
    json_t *params;
    long long created;
    bool retry;
    bool is_convert;
};

struct ovsdb_session {
    struct ovsdb_databases *dbs;
    struct jsonrpc_session *js;
    unsigned int js_seqno;
    struct hmap monitors; /* Contains "struct session_monitor"s. */
    struct waiting_txn **waiting;
    size_t n_waiting, allocated_waiting;
    struct ovsdb_lock_waiter **waiters;
    size_t n_waiters, allocated_waiters;
    bool db_change_aware;
    bool read_only; /* From the remote's options. */
    bool monitor_cond_disabled; /* Only RFC "monitor" is known. */
    char *role;     /* RBAC role, or NULL. */
    bool dropped;   /* Closed by the server (backlog, ...). */
    bool closing;   /* To be closed once the replies already decided have
                     * left (disconnect_unaware()); reads no more. */
    long long closing_deadline; /* Closed then at the latest. */
    bool deferred;  /* Requests left for the next pass. */
    struct jsonrpc_msg *deferred_msg; /* Received, costly, not handled,
                                         * or waiting for 'barrier'. */
    struct ovsdb_served_db *barrier;  /* Read barrier on this database,
                                         * or NULL (see read_barrier()). */
    bool paused;           /* Not reading: backlog over the limit. */
    size_t allowance;      /* Extra backlog allowed for big replies. */
    size_t n_pending;      /* Monitors with pending changes. */
    bool has_updates;      /* Monitor updates queued since the last
                            * ovsdb_session_flush(). */
    struct held_msg *held; /* Held messages, oldest first. */
    size_t n_held, allocated_held;
};

/* In session.c. */
void session_send_reply(struct ovsdb_session *, const json_t *id,
                        json_t *result);
void session_send_error(struct ovsdb_session *, const json_t *id,
                        json_t *error);
void session_send_ovsdb_error(struct ovsdb_session *, const json_t *id,
                              struct ovsdb_error *);
void session_send_transact_reply(struct ovsdb_session *,
                                 struct ovsdb_served_db *, const json_t *id,
                                 json_t *result, json_t *retry,
                                 long long created);
/* Same for a result array as text (taken), of a request that is not
 * retried. */
void session_send_transact_text(struct ovsdb_session *,
                                struct ovsdb_served_db *, const json_t *id,
                                struct ovsdb_results_text *);
struct held_msg *session_hold(struct ovsdb_session *,
                              struct ovsdb_served_db *);
struct ovsdb_error *session_params_error(const json_t *params,
                                         const char *method, const char *what);
struct ovsdb_served_db *session_lookup_db(const struct ovsdb_session *,
                                          const json_t *params,
                                          const char *method,
                                          struct ovsdb_error **);
bool session_lock_held_cb(const char *name, void *session);

/* In session-txn.c. */
struct waiting_txn *session_add_waiting_txn(struct ovsdb_session *, json_t *id,
                                            json_t *params,
                                            struct ovsdb_served_db *,
                                            long long created,
                                            long long timeout,
                                            struct ovsdb_relay_txn *);
void session_remove_waiting_txn(struct ovsdb_session *, size_t i);
bool session_waiting_txn_is_due(const struct waiting_txn *, long long now);
void session_run_waiting_txns(struct ovsdb_session *);
/* May parse 'msg''s lazy params. */
void session_handle_transact(struct ovsdb_session *, struct jsonrpc_msg *);
void session_handle_cancel(struct ovsdb_session *, const struct jsonrpc_msg *);
void session_handle_convert(struct ovsdb_session *,
                            const struct jsonrpc_msg *);

#endif /* ovsdb/server/session-private.h */
