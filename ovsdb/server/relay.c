/* ovsdb/server/relay.c: a database relayed from an upstream server.  See
 * relay.h.
 */
#include <config.h>

#include "ovsdb/server/relay.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/timeval.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"
#include "ovsdb/monitor/monitor.h"
#include "ovsdb/server/updates.h"

VLOG_DEFINE_THIS_MODULE(relay);

/* With several remotes, how long to wait for one to connect before trying
 * the next (msec). */
#define REMOTE_SWITCH_INTERVAL 2000

/* An upstream that does not serve the database yet (a relay itself, still
 * fetching its schema, or a member still joining) is asked again on the
 * same connection after this long, doubling up to the maximum.  A relay
 * started with a chain of relays in front of it then follows the
 * transactions made right after start-up as notifications, as the
 * reference's relays do, rather than finding them all in its first
 * monitor reply a reconnection later. */
#define SCHEMA_RETRY_MIN_MSEC 50
#define SCHEMA_RETRY_MAX_MSEC 1000

enum relay_state {
    RELAY_DISCONNECTED,         /* Waiting for a connection. */
    RELAY_SCHEMA_WAIT,          /* "get_schema" refused; again later. */
    RELAY_SCHEMA_REQUESTED,     /* "get_schema" sent. */
    RELAY_MONITOR_REQUESTED,    /* "monitor_cond_since" sent. */
    RELAY_ACTIVE                /* In sync; forwarding transactions. */
};

struct ovsdb_relay_txn {
    struct ovsdb_relay *relay;
    json_t *params;             /* The client's "transact" params. */
    json_t *request_id;         /* Upstream request id once sent, or NULL. */
    json_t *reply;              /* Result or error once done, or NULL. */
    bool is_error;
    bool abandoned;             /* Owner gone: free once the reply comes. */
};

struct ovsdb_relay {
    struct ovsdb_databases *dbs;
    char *db_name;
    char **remotes;
    size_t n_remotes;
    size_t cur_remote;

    struct jsonrpc_session *js;
    unsigned int js_seqno;
    long long switch_at;        /* When to try the next remote. */

    enum relay_state state;
    json_t *request_id;         /* Outstanding get_schema or monitor. */
    long long schema_retry_at;  /* RELAY_SCHEMA_WAIT: when to ask again. */
    int schema_retry_msec;      /* The wait after the next refusal. */
    struct ovsdb_served_db *sdb; /* NULL until the first schema. */
    struct uuid last_id;        /* Upstream's last transaction id seen. */
    bool have_last_id;

    struct ovsdb_relay_txn **txns;      /* Forwarded, in request order. */
    size_t n_txns, allocated_txns;
};

static void relay_set_connected(struct ovsdb_relay *, bool connected);

/* The relay's monitor upstream has the id ["monid", DB-NAME], as the
 * reference's relays do: scripts and tests find the relay's notifications
 * in its jsonrpc debug log by that id. */
static json_t *
relay_monitor_id(const struct ovsdb_relay *relay)
{
    return json_pack("[s s]", "monid", relay->db_name);
}

bool
ovsdb_relay_is_spec(const char *arg)
{
    return !strncmp(arg, "relay:", 6);
}

static void
relay_open_session(struct ovsdb_relay *relay)
{
    jsonrpc_session_close(relay->js);
    relay->js = jsonrpc_session_open(relay->remotes[relay->cur_remote], true);
    relay->js_seqno = jsonrpc_session_get_seqno(relay->js);
    relay->switch_at = time_msec() + REMOTE_SWITCH_INTERVAL;
    VLOG_INFO("%s: relaying %s from %s", relay->db_name, relay->db_name,
              relay->remotes[relay->cur_remote]);
}

struct ovsdb_error *
ovsdb_relay_create(struct ovsdb_databases *dbs, const char *spec,
                   struct ovsdb_relay **relayp)
{
    *relayp = NULL;
    const char *name = spec + 6;
    const char *colon = ovsdb_relay_is_spec(spec) ? strchr(name, ':') : NULL;
    if (!colon || colon == name || !colon[1]) {
        return ovsdb_error(OVSDB_E_SYNTAX, "%s: relay must be "
                           "relay:DB_NAME:REMOTE[,REMOTE...]", spec);
    }

    struct ovsdb_relay *relay = xzalloc(sizeof *relay);
    relay->dbs = dbs;
    relay->db_name = xmemdup0(name, colon - name);
    char *list = xstrdup(colon + 1);
    char *save = NULL;
    for (char *r = strtok_r(list, ",", &save); r;
         r = strtok_r(NULL, ",", &save)) {
        relay->remotes = xrealloc(relay->remotes, (relay->n_remotes + 1)
                                  * sizeof *relay->remotes);
        relay->remotes[relay->n_remotes++] = xstrdup(r);
    }
    free(list);
    if (!relay->n_remotes) {
        free(relay->db_name);
        free(relay);
        return ovsdb_error(OVSDB_E_SYNTAX, "%s: no remote", spec);
    }
    relay_open_session(relay);
    *relayp = relay;
    return NULL;
}

static void
txn_free(struct ovsdb_relay_txn *txn)
{
    json_decref(txn->params);
    json_decref(txn->request_id);
    json_decref(txn->reply);
    free(txn);
}

static void
remove_txn(struct ovsdb_relay *relay, size_t i)
{
    memmove(&relay->txns[i], &relay->txns[i + 1],
            (relay->n_txns - i - 1) * sizeof *relay->txns);
    relay->n_txns--;
}

void
ovsdb_relay_destroy(struct ovsdb_relay *relay)
{
    if (!relay) {
        return;
    }
    for (size_t i = 0; i < relay->n_txns; i++) {
        /* Owners abandoned them already (the server is gone), or will
         * never look again. */
        txn_free(relay->txns[i]);
    }
    free(relay->txns);
    jsonrpc_session_close(relay->js);
    json_decref(relay->request_id);
    for (size_t i = 0; i < relay->n_remotes; i++) {
        free(relay->remotes[i]);
    }
    free(relay->remotes);
    free(relay->db_name);
    free(relay);
}

const char *
ovsdb_relay_get_db_name(const struct ovsdb_relay *relay)
{
    return relay->db_name;
}

bool
ovsdb_relay_is_connected(const struct ovsdb_relay *relay)
{
    return relay->state == RELAY_ACTIVE;
}

/* Transactions. */

bool
ovsdb_relay_must_forward(const json_t *params)
{
    for (size_t i = 1; i < json_array_size(params); i++) {
        const char *op = json_string_value(
            json_object_get(json_array_get(params, i), "op"));
        if (op && ovsdb_execute_op_writes(op)) {
            return true;        /* Anything else the local execution
                                 * answers, errors included. */
        }
    }
    return false;
}

static void
send_txn(struct ovsdb_relay *relay, struct ovsdb_relay_txn *txn)
{
    json_t *id;
    struct jsonrpc_msg *msg = jsonrpc_create_request(
        "transact", json_incref(txn->params), &id);
    txn->request_id = id;
    jsonrpc_session_send(relay->js, msg);
}

struct ovsdb_relay_txn *
ovsdb_relay_transact(struct ovsdb_relay *relay, const json_t *params)
{
    struct ovsdb_relay_txn *txn = xzalloc(sizeof *txn);
    txn->relay = relay;
    txn->params = json_deep_copy(params);
    if (relay->n_txns >= relay->allocated_txns) {
        relay->txns = x2nrealloc(relay->txns, &relay->allocated_txns,
                                 sizeof *relay->txns);
    }
    relay->txns[relay->n_txns++] = txn;
    if (relay->state == RELAY_ACTIVE) {
        send_txn(relay, txn);
    }
    return txn;
}

const json_t *
ovsdb_relay_txn_get_reply(const struct ovsdb_relay_txn *txn, bool *is_error)
{
    *is_error = txn->is_error;
    return txn->reply;
}

void
ovsdb_relay_txn_abandon(struct ovsdb_relay_txn *txn)
{
    if (!txn) {
        return;
    }
    struct ovsdb_relay *relay = txn->relay;
    if (txn->request_id && !txn->reply) {
        txn->abandoned = true;
        return;
    }
    for (size_t i = 0; i < relay->n_txns; i++) {
        if (relay->txns[i] == txn) {
            remove_txn(relay, i);
            break;
        }
    }
    txn_free(txn);
}

/* Completes the forwarded transaction 'i' with 'reply' (takes
 * ownership). */
static void
complete_txn(struct ovsdb_relay *relay, size_t i, json_t *reply,
             bool is_error)
{
    struct ovsdb_relay_txn *txn = relay->txns[i];
    remove_txn(relay, i);
    if (txn->abandoned) {
        json_decref(reply);
        txn_free(txn);
        return;
    }
    txn->reply = reply;
    txn->is_error = is_error;
    json_decref(txn->request_id);
    txn->request_id = NULL;
    /* Out of 'txns' now; its owner frees it with abandon(). */
    poll_immediate_wake();
}

/* Applying upstream changes. */


/* Applies 'updates' (borrowed) to the copy as one committed transaction
 * whose id is upstream's 'txn_id', so that the relay's clients see the
 * same transaction ids as the source's and can resume with
 * monitor_cond_since on either (an all-zero id, from a source that keeps
 * no history, leaves the relay's own ids).  On error, logs it and
 * resynchronizes from scratch. */
static void
apply_updates(struct ovsdb_relay *relay, const json_t *updates, bool full,
              const struct uuid *txn_id)
{
    struct ovsdb *db = ovsdb_served_db_get_ovsdb(relay->sdb);
    struct ovsdb_txn *txn;
    struct ovsdb_error *error = ovsdb_updates_to_txn(db, updates, full,
                                                           NULL, &txn);
    if (txn) {
        if (!uuid_is_zero(txn_id)) {
            ovsdb_txn_set_id(txn, txn_id);
        }
        ovsdb_txn_commit_finish(txn);
    } else if (!error) {
        /* Nothing changed here (a resumed monitor, or a full copy equal
         * to ours): our state is upstream's state at 'txn_id'. */
        ovsdb_monitor_hub_set_last_txn_id(ovsdb_served_db_get_hub(relay->sdb),
                                          txn_id);
    }
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        VLOG_WARN("%s: cannot apply upstream update (%s), resynchronizing",
                  relay->db_name, s);
        free(s);
        relay->have_last_id = false;
        jsonrpc_session_force_reconnect(relay->js);
    }
}

static bool
set_last_id(struct ovsdb_relay *relay, const json_t *id)
{
    if (!json_is_string(id)
        || !uuid_from_string(&relay->last_id, json_string_value(id))) {
        return false;
    }
    relay->have_last_id = true;
    return true;
}

/* Protocol. */

static void
send_request(struct ovsdb_relay *relay, const char *method, json_t *params)
{
    json_decref(relay->request_id);
    jsonrpc_session_send(relay->js, jsonrpc_create_request(
                             method, params, &relay->request_id));
}

static void
request_monitor(struct ovsdb_relay *relay)
{
    struct ovsdb *db = ovsdb_served_db_get_ovsdb(relay->sdb);
    json_t *requests = json_object();
    for (size_t i = 0; i < ovsdb_n_tables(db); i++) {
        const struct ovsdb_table *t = ovsdb_get_table_by_index(db, i);
        json_object_set_new(requests, t->schema->name,
                            json_pack("[{}]"));
    }
    char last_s[UUID_LEN + 1];
    struct uuid zero;
    uuid_zero(&zero);
    uuid_to_string(relay->have_last_id ? &relay->last_id : &zero, last_s);
    send_request(relay, "monitor_cond_since",
                 json_pack("[s o o s]", relay->db_name,
                           relay_monitor_id(relay), requests, last_s));
    relay->state = RELAY_MONITOR_REQUESTED;
}

static void
handle_schema(struct ovsdb_relay *relay, const json_t *result)
{
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(result, &schema);
    if (!error && strcmp(schema->name, relay->db_name)) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "upstream schema is for %s",
                            schema->name);
        ovsdb_schema_destroy(schema);
    }
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        VLOG_WARN("%s: bad schema from %s: %s", relay->db_name,
                  jsonrpc_session_get_name(relay->js), s);
        free(s);
        jsonrpc_session_force_reconnect(relay->js);
        return;
    }

    if (relay->sdb) {
        const struct ovsdb_schema *old = ovsdb_get_schema(
            ovsdb_served_db_get_ovsdb(relay->sdb));
        if (ovsdb_schema_equals(old, schema)) {
            ovsdb_schema_destroy(schema);
            request_monitor(relay);
            return;
        }
        /* Converted upstream: serve a new copy (clients of the old one
         * are told as for a removed database). */
        VLOG_INFO("%s: upstream schema changed", relay->db_name);
        ovsdb_error_destroy(
            ovsdb_databases_remove(relay->dbs, relay->db_name));
        relay->sdb = NULL;
        relay->have_last_id = false;
    }
    error = ovsdb_databases_add_relay(relay->dbs, ovsdb_create(schema), relay,
                                      &relay->sdb);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        VLOG_ERR("%s: cannot serve relay database: %s", relay->db_name, s);
        free(s);
        return;
    }
    request_monitor(relay);
}

static void
handle_monitor_reply(struct ovsdb_relay *relay, const json_t *result)
{
    const json_t *found = json_array_get(result, 0);
    if (json_array_size(result) != 3 || !json_is_boolean(found)
        || !set_last_id(relay, json_array_get(result, 1))) {
        VLOG_WARN("%s: bad monitor_cond_since reply", relay->db_name);
        relay->have_last_id = false;
        jsonrpc_session_force_reconnect(relay->js);
        return;
    }
    apply_updates(relay, json_array_get(result, 2), !json_is_true(found),
                  &relay->last_id);
    if (!relay->have_last_id) {
        return;                 /* Failed: resynchronizing. */
    }
    relay->state = RELAY_ACTIVE;
    relay_set_connected(relay, true);
    for (size_t i = 0; i < relay->n_txns; i++) {
        if (!relay->txns[i]->request_id) {
            send_txn(relay, relay->txns[i]);
        }
    }
}

static void
handle_update3(struct ovsdb_relay *relay, const json_t *params)
{
    if (relay->state != RELAY_ACTIVE || json_array_size(params) != 3) {
        return;
    }
    json_t *monitor_id = relay_monitor_id(relay);
    bool ours = json_equal(json_array_get(params, 0), monitor_id);
    json_decref(monitor_id);
    if (!ours) {
        return;
    }
    struct uuid prev = relay->last_id;
    if (!set_last_id(relay, json_array_get(params, 1))) {
        return;
    }
    apply_updates(relay, json_array_get(params, 2), false, &relay->last_id);
    if (!relay->have_last_id) {
        relay->last_id = prev;
    }
}

static void
handle_reply(struct ovsdb_relay *relay, struct jsonrpc_msg *msg)
{
    bool is_error = msg->type == JSONRPC_ERROR;
    if (relay->request_id && json_equal(msg->id, relay->request_id)) {
        json_decref(relay->request_id);
        relay->request_id = NULL;
        if (is_error) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
            char *s = jsonx_to_string_sorted(msg->error);
            VLOG_WARN_RL(&rl, "%s: %s: error from upstream %s: %s",
                         relay->db_name,
                         relay->state == RELAY_SCHEMA_REQUESTED
                             ? "get_schema"
                             : "monitor_cond_since",
                         jsonrpc_session_get_name(relay->js), s);
            free(s);
            if (relay->state == RELAY_SCHEMA_REQUESTED) {
                relay->state = RELAY_SCHEMA_WAIT;
                relay->schema_retry_at = (time_msec()
                                          + relay->schema_retry_msec);
                relay->schema_retry_msec = MIN(2 * relay->schema_retry_msec,
                                               SCHEMA_RETRY_MAX_MSEC);
            } else {
                jsonrpc_session_force_reconnect(relay->js);
            }
        } else if (relay->state == RELAY_SCHEMA_REQUESTED) {
            handle_schema(relay, msg->result);
        } else if (relay->state == RELAY_MONITOR_REQUESTED) {
            handle_monitor_reply(relay, msg->result);
        }
        return;
    }
    for (size_t i = 0; i < relay->n_txns; i++) {
        struct ovsdb_relay_txn *txn = relay->txns[i];
        if (txn->request_id && json_equal(msg->id, txn->request_id)) {
            json_t *reply = is_error ? msg->error : msg->result;
            complete_txn(relay, i, json_incref(reply), is_error);
            return;
        }
    }
}

static void
relay_set_connected(struct ovsdb_relay *relay, bool connected)
{
    if (relay->sdb) {
        ovsdb_served_db_set_status(relay->sdb, "relay", connected, false);
    }
}

/* The connection went down: transactions already forwarded have an
 * unknown outcome. */
static void
relay_disconnected(struct ovsdb_relay *relay)
{
    if (relay->state == RELAY_ACTIVE) {
        relay_set_connected(relay, false);
    }
    relay->state = RELAY_DISCONNECTED;
    json_decref(relay->request_id);
    relay->request_id = NULL;
    for (size_t i = 0; i < relay->n_txns;) {
        if (relay->txns[i]->request_id) {
            complete_txn(relay, i, json_string("canceled"), true);
        } else {
            i++;
        }
    }
}

static void
request_schema(struct ovsdb_relay *relay)
{
    send_request(relay, "get_schema", json_pack("[s]", relay->db_name));
    relay->state = RELAY_SCHEMA_REQUESTED;
}

void
ovsdb_relay_run(struct ovsdb_relay *relay)
{
    jsonrpc_session_run(relay->js);

    unsigned int seqno = jsonrpc_session_get_seqno(relay->js);
    if (seqno != relay->js_seqno) {
        relay->js_seqno = seqno;
        relay_disconnected(relay);
        if (jsonrpc_session_is_connected(relay->js)) {
            VLOG_INFO("%s: connected to %s", relay->db_name,
                      jsonrpc_session_get_name(relay->js));
            relay->schema_retry_msec = SCHEMA_RETRY_MIN_MSEC;
            request_schema(relay);
        } else {
            relay->switch_at = time_msec() + REMOTE_SWITCH_INTERVAL;
        }
    }

    if (!jsonrpc_session_is_connected(relay->js)) {
        if (relay->n_remotes > 1 && time_msec() >= relay->switch_at) {
            relay->cur_remote = (relay->cur_remote + 1) % relay->n_remotes;
            relay_open_session(relay);
        }
        return;
    }

    if (relay->state == RELAY_SCHEMA_WAIT
        && time_msec() >= relay->schema_retry_at) {
        request_schema(relay);
    }

    /* Bounded, so that a busy upstream cannot starve local clients. */
    for (int i = 0; i < 50; i++) {
        struct jsonrpc_msg *msg = jsonrpc_session_recv(relay->js);
        if (!msg) {
            return;
        }
        if (msg->type == JSONRPC_NOTIFY && !strcmp(msg->method, "update3")) {
            handle_update3(relay, msg->params);
        } else if (msg->type == JSONRPC_REPLY
                   || msg->type == JSONRPC_ERROR) {
            handle_reply(relay, msg);
        }
        jsonrpc_msg_destroy(msg);
    }
    poll_immediate_wake();
}

void
ovsdb_relay_wait(struct ovsdb_relay *relay)
{
    jsonrpc_session_wait(relay->js);
    jsonrpc_session_recv_wait(relay->js);
    if (!jsonrpc_session_is_connected(relay->js) && relay->n_remotes > 1) {
        poll_timer_wait_until(relay->switch_at);
    }
    if (relay->state == RELAY_SCHEMA_WAIT) {
        poll_timer_wait_until(relay->schema_retry_at);
    }
}
