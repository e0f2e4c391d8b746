/* ovsdb/server/session-txn.c: a session's transactions (see
 * session-private.h): "transact", run at once or kept as a waiting transaction
 * (a "wait" not yet satisfied, a clustered database that could not take it, a
 * relay's forwarded request), "cancel", and online conversion ("convert"). */
#include <config.h>

#include <limits.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "lib/stream-ssl.h"
#include "lib/timeval.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/rbac.h"
#include "ovsdb/server/relay.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/server/session-private.h"

/* A clustered database's transaction may have to run again: returns a new
 * reference to its request 'params' to keep for that (which also keeps its
 * operations from being freed as they run), or NULL for other databases.
 * Take it before running the request. */
static json_t *
keep_for_retry(const struct ovsdb_served_db *sdb, json_t *params)
{
    return ovsdb_served_db_get_raft(sdb) ? json_incref(params) : NULL;
}

/* Adds a waiting transaction (see struct waiting_txn; takes ownership of
 * 'id' and 'params') that is due again once 'sdb''s commit seqno changes
 * from what it is now. */
struct waiting_txn *
session_add_waiting_txn(struct ovsdb_session *s, json_t *id, json_t *params,
                        struct ovsdb_served_db *sdb, long long created,
                        long long timeout, struct ovsdb_relay_txn *rtxn)
{
    struct waiting_txn *t = xzalloc(sizeof *t);
    t->rtxn = rtxn;
    t->id = id;
    t->params = params;
    t->sdb = sdb;
    t->created = created;
    t->timeout = timeout;
    t->seqno = ovsdb_served_db_get_commit_seqno(sdb);
    if (s->n_waiting >= s->allocated_waiting) {
        s->waiting = x2nrealloc(s->waiting, &s->allocated_waiting,
                                sizeof *s->waiting);
    }
    s->waiting[s->n_waiting++] = t;
    return t;
}

static void
waiting_txn_destroy(struct waiting_txn *t)
{
    ovsdb_relay_txn_abandon(t->rtxn);
    json_decref(t->id);
    json_decref(t->params);
    free(t);
}

void
session_remove_waiting_txn(struct ovsdb_session *s, size_t i)
{
    waiting_txn_destroy(s->waiting[i]);
    memmove(&s->waiting[i], &s->waiting[i + 1],
            (s->n_waiting - i - 1) * sizeof *s->waiting);
    s->n_waiting--;
}

/* Runs "transact" 'params' (or 'lazy', see ovsdb_served_db_transact()) on
 * 'sdb' for this session: its locks, its remote's read-only option and
 * RBAC role apply. */
static json_t *
session_transact(struct ovsdb_session *s, struct ovsdb_served_db *sdb,
                 json_t *params, struct jsonx_lazy_array *lazy,
                 long long elapsed, long long *timeout,
                 struct ovsdb_results_text *results_text)
{
    struct ovsdb *db = ovsdb_served_db_get_ovsdb(sdb);
    if (!s->role || !ovsdb_rbac_enabled(db, s->role)) {
        return ovsdb_served_db_transact(sdb, params, lazy, s->read_only,
                                        session_lock_held_cb, s, NULL, NULL,
                                        elapsed, timeout, results_text);
    }

    /* The client's ID is the common name of its TLS certificate. */
    struct jsonrpc *rpc = jsonrpc_session_get_rpc(s->js);
    char *id = rpc ? stream_ssl_get_peer_id(jsonrpc_get_stream(rpc)) : NULL;
    struct ovsdb_rbac_client client = { .role = s->role, .id = id };
    json_t *result = ovsdb_served_db_transact(sdb, params, lazy, s->read_only,
                                              session_lock_held_cb, s,
                                              ovsdb_rbac_authorize, &client,
                                              elapsed, timeout, results_text);
    free(id);
    return result;
}

/* True if transactions on 'sdb' run here and once: it is neither
 * clustered (a clustered database keeps the whole request to run it
 * again) nor a relay (which forwards it). */
static bool
runs_here_once(const struct ovsdb_served_db *sdb)
{
    return !ovsdb_served_db_get_raft(sdb) && !ovsdb_served_db_get_relay(sdb);
}

/* Runs "transact" 'msg' on 'sdb' (see runs_here_once()) with its results
 * built as text, so that a big result (a select of a million rows, the
 * UUIDs of as many inserts) is never a tree.  'msg''s params may still be
 * text (lazy_params): then its operations are parsed and freed one at a
 * time. */
static void
transact_here(struct ovsdb_session *s, struct ovsdb_served_db *sdb,
              struct jsonrpc_msg *msg)
{
    long long timeout = LLONG_MAX;
    struct ovsdb_results_text results = OVSDB_RESULTS_TEXT_INITIALIZER;
    json_t *result = session_transact(s, sdb, msg->params, msg->lazy_params, 0,
                                      &timeout, &results);
    if (result) {
        /* An error about the request as a whole. */
        ds_destroy(&results.text);
        session_send_transact_reply(s, sdb, msg->id, result, NULL,
                                    time_msec());
    } else if (results.text.length) {
        session_send_transact_text(s, sdb, msg->id, &results);
    } else {
        ds_destroy(&results.text);
        /* It waits: a waiting transaction runs from the parsed params. */
        jsonrpc_msg_parse_params(msg);
        session_add_waiting_txn(s, json_incref(msg->id),
                                json_incref(msg->params), sdb, time_msec(),
                                timeout, NULL);
    }
}

/* Runs a request whose params are still text ('msg''s lazy_params) if
 * its database runs its transactions here (runs_here_once()).  Returns
 * false, with nothing done, for any other, and for an unknown database,
 * whose error shows the whole params. */
static bool
transact_lazily(struct ovsdb_session *s, struct jsonrpc_msg *msg)
{
    json_t *name = jsonx_lazy_array_get(msg->lazy_params, 0);
    struct ovsdb_served_db *sdb = NULL;
    if (json_is_string(name)) {
        sdb = ovsdb_databases_find(s->dbs, json_string_value(name));
    }
    json_decref(name);
    if (!sdb || !runs_here_once(sdb)) {
        return false;
    }

    /* Its operations are not looked at in advance: if it only reads, it
     * must see only data that is written. */
    ovsdb_served_db_flush(sdb);
    transact_here(s, sdb, msg);
    return true;
}

void
session_handle_transact(struct ovsdb_session *s, struct jsonrpc_msg *msg)
{
    if (msg->lazy_params && transact_lazily(s, msg)) {
        return;
    }
    jsonrpc_msg_parse_params(msg);
    json_t *params = msg->params;
    struct ovsdb_error *error = NULL;

    if (!json_is_string(json_array_get(params, 0))) {
        session_send_ovsdb_error(
            s, msg->id,
            ovsdb_syntax_error(params, OVSDB_E_SYNTAX,
                               "transact request params must "
                               "begin with <db-name>"));
        return;
    }
    struct ovsdb_served_db *sdb = session_lookup_db(s, params, "transact",
                                                    &error);
    if (!sdb) {
        session_send_ovsdb_error(s, msg->id, error);
        return;
    }

    if (runs_here_once(sdb)) {
        if (!ovsdb_relay_must_forward(params)) {
            /* Reads see only data that is written. */
            ovsdb_served_db_flush(sdb);
        }
        transact_here(s, sdb, msg);
        return;
    }

    long long timeout = LLONG_MAX;
    struct ovsdb_relay *relay = ovsdb_served_db_get_relay(sdb);
    struct ovsdb_relay_txn *rtxn = NULL;
    if (relay && !s->read_only && !s->role
        && ovsdb_relay_must_forward(params)) {
        /* Read-only remotes and RBAC roles are checked locally (and
         * refuse the writes) rather than forwarded. */
        rtxn = ovsdb_relay_transact(relay, params);
    } else {
        if (!ovsdb_relay_must_forward(params)) {
            /* Reads see only data that is written. */
            ovsdb_served_db_flush(sdb);
        }
        json_t *retry = keep_for_retry(sdb, params);
        json_t *result = session_transact(s, sdb, params, NULL, 0, &timeout,
                                          NULL);
        if (result) {
            session_send_transact_reply(s, sdb, msg->id, result, retry,
                                        time_msec());
            return;
        }
        json_decref(retry);
    }

    session_add_waiting_txn(s, json_incref(msg->id), json_incref(msg->params),
                            sdb, time_msec(), timeout, rtxn);
}

bool
session_waiting_txn_is_due(const struct waiting_txn *t, long long now)
{
    bool is_error;
    if (t->rtxn) {
        return ovsdb_relay_txn_get_reply(t->rtxn, &is_error) != NULL;
    }
    return (t->seqno != ovsdb_served_db_get_commit_seqno(t->sdb)
            || (t->timeout != LLONG_MAX && now - t->created >= t->timeout));
}

static bool run_convert(struct ovsdb_session *, struct ovsdb_served_db *,
                        const json_t *id, json_t *params, long long created);

void
session_run_waiting_txns(struct ovsdb_session *s)
{
    for (size_t i = 0; i < s->n_waiting;) {
        struct waiting_txn *t = s->waiting[i];
        long long now = time_msec();
        if (t->rtxn) {
            bool is_error;
            const json_t *reply = ovsdb_relay_txn_get_reply(t->rtxn,
                                                            &is_error);
            if (reply) {
                json_t *copy = json_incref((json_t *) reply);
                if (is_error) {
                    session_send_error(s, t->id, copy);
                } else {
                    session_send_reply(s, t->id, copy);
                }
                session_remove_waiting_txn(s, i);
                continue;
            }
        } else if (session_waiting_txn_is_due(t, now) && t->is_convert) {
            t->seqno = ovsdb_served_db_get_commit_seqno(t->sdb);
            if (run_convert(s, t->sdb, t->id, t->params, t->created)) {
                session_remove_waiting_txn(s, i);
                continue;
            }
        } else if (session_waiting_txn_is_due(t, now)) {
            long long timeout = t->timeout;
            if (!ovsdb_relay_must_forward(t->params)) {
                ovsdb_served_db_flush(t->sdb);
            }
            t->seqno = ovsdb_served_db_get_commit_seqno(t->sdb);
            json_t *retry = keep_for_retry(t->sdb, t->params);
            json_t *result = session_transact(s, t->sdb, t->params, NULL,
                                              now - t->created, &timeout,
                                              NULL);
            if (result) {
                session_send_transact_reply(s, t->sdb, t->id, result, retry,
                                            t->created);
                session_remove_waiting_txn(s, i);
                continue;
            }
            json_decref(retry);
        }
        i++;
    }
}

void
session_handle_cancel(struct ovsdb_session *s, const struct jsonrpc_msg *msg)
{
    const json_t *id = json_array_get(msg->params, 0);
    for (size_t i = 0; id && i < s->n_waiting; i++) {
        if (json_equal(s->waiting[i]->id, (json_t *) id)) {
            session_send_error(s, s->waiting[i]->id, json_string("canceled"));
            session_remove_waiting_txn(s, i);
            return;
        }
    }
}

/* Online schema conversion ("convert", an Open vSwitch extension). */
void
session_handle_convert(struct ovsdb_session *s, const struct jsonrpc_msg *msg)
{
    const json_t *params = msg->params;
    struct ovsdb_error *error = NULL;

    if (json_array_size(params) != 2
        || !json_is_string(json_array_get(params, 0))) {
        session_send_ovsdb_error(s, msg->id,
                                 session_params_error(params, msg->method,
                                                      "<db-name>, <schema>"));
        return;
    }
    struct ovsdb_served_db *sdb = session_lookup_db(s, params, "convert",
                                                    &error);
    struct ovsdb_schema *schema = NULL;
    if (!error) {
        error = ovsdb_schema_from_json(json_array_get(params, 1), &schema);
    }
    if (error) {
        session_send_ovsdb_error(s, msg->id, error);
        return;
    }
    if (strcmp(schema->name, ovsdb_served_db_get_name(sdb))) {
        /* ovsdb/engine/error.h has no tag for the reference's "invalid
         * parameters", used only here. */
        char *details = xasprintf("new schema name (%s) does not match "
                                  "database name (%s)",
                                  schema->name, ovsdb_served_db_get_name(sdb));
        session_send_error(s, msg->id,
                           json_pack("{s:s s:s}", "error",
                                     "invalid parameters", "details",
                                     details));
        free(details);
        ovsdb_schema_destroy(schema);
        return;
    }
    ovsdb_schema_destroy(schema);
    if (!run_convert(s, sdb, msg->id, msg->params, time_msec())) {
        session_add_waiting_txn(s, json_incref(msg->id),
                                json_incref(msg->params), sdb, time_msec(),
                                LLONG_MAX, NULL)
            ->is_convert = true;
    }
}

/* Runs "convert" request 'params' (borrowed; checked by
 * session_handle_convert()) with request id 'id' on 'sdb', first tried at 'created': replies, or
 * (clustered) holds the reply until the conversion is decided, as a
 * transaction's, and returns true; or returns false if the conversion
 * must wait and run again, as a transaction that failed with a "cluster
 * error" does (a conversion that lost to another write is built again on
 * the newer contents). */
static bool
run_convert(struct ovsdb_session *s, struct ovsdb_served_db *sdb,
            const json_t *id, json_t *params, long long created)
{
    const json_t *schema_json = json_array_get(params, 1);
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(schema_json, &schema);
    if (!error) {
        error = ovsdb_served_db_convert(sdb, schema);
    }
    if (error && ovsdb_error_get_tag(error) == OVSDB_E_CLUSTER) {
        ovsdb_error_destroy(error);
        return false;
    }
    if (error) {
        session_send_ovsdb_error(s, id, error);
    } else if (ovsdb_served_db_has_pending(sdb)) {
        struct held_msg *h = session_hold(s, sdb);
        h->id = json_incref((json_t *) id);
        h->result = json_object();
        h->params = json_incref(params);
        h->created = created;
        h->is_convert = true;
    } else {
        session_send_reply(s, id, json_object());
    }
    return true;
}
