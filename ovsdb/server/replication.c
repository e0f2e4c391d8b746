/* ovsdb/server/replication.c: active-backup replication.  See replication.h.
 */
#include <config.h>

#include "ovsdb/server/replication.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/unixctl.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"
#include "ovsdb/server/updates.h"

VLOG_DEFINE_THIS_MODULE(replication);

/* One database being replicated on the current connection. */
struct replica {
    char *name;                 /* Database name, also the monitor id. */
    json_t *request_id;         /* get_schema or monitor request id until
                                 * the reply. */
    json_t *tables;             /* Monitored tables (an object), once the
                                 * schemas are compared. */
    bool synced;                /* Initial contents applied. */
};

/* Where a connection to the active server is, as the reference's: its
 * server id is checked (a server must not replicate itself), then the
 * databases both serve are listed and their schemas compared, and only
 * then are they monitored. */
enum conn_state {
    CONN_SERVER_ID, /* get_server_id sent. */
    CONN_LIST_DBS,  /* list_dbs sent. */
    CONN_SCHEMAS,   /* A get_schema per replica sent. */
    CONN_MONITORING /* A monitor_cond per replica sent. */
};

struct ovsdb_replication {
    struct ovsdb_databases *dbs;
    char *active;               /* Remote of the active server, or NULL. */
    char *exclude;              /* "DB:TABLE,..." ("" if none). */
    bool backup;
    struct jsonrpc_session *js; /* Non-NULL while a backup with a remote. */
    unsigned int js_seqno;
    enum conn_state state;
    json_t *request_id; /* get_server_id or list_dbs, until the
                                 * reply. */
    struct replica **replicas;
    size_t n_replicas;
};

struct ovsdb_replication *
ovsdb_replication_create(struct ovsdb_databases *dbs)
{
    struct ovsdb_replication *r = xzalloc(sizeof *r);
    r->dbs = dbs;
    r->exclude = xstrdup("");
    return r;
}

static void
clear_replicas(struct ovsdb_replication *r)
{
    for (size_t i = 0; i < r->n_replicas; i++) {
        struct replica *rep = r->replicas[i];
        free(rep->name);
        json_decref(rep->request_id);
        json_decref(rep->tables);
        free(rep);
    }
    free(r->replicas);
    r->replicas = NULL;
    r->n_replicas = 0;
    json_decref(r->request_id);
    r->request_id = NULL;
}

static void
close_session(struct ovsdb_replication *r)
{
    jsonrpc_session_close(r->js);
    r->js = NULL;
    clear_replicas(r);
}

void
ovsdb_replication_destroy(struct ovsdb_replication *r)
{
    if (r) {
        close_session(r);
        free(r->active);
        free(r->exclude);
        free(r);
    }
}

void
ovsdb_replication_set_active(struct ovsdb_replication *r, const char *remote)
{
    free(r->active);
    r->active = remote ? xstrdup(remote) : NULL;
    if (r->backup) {
        ovsdb_replication_connect(r);
    }
}

const char *
ovsdb_replication_get_active(const struct ovsdb_replication *r)
{
    return r->active;
}

void
ovsdb_replication_connect(struct ovsdb_replication *r)
{
    close_session(r);
    r->backup = true;
    ovsdb_databases_set_read_only(r->dbs, true);
    if (r->active) {
        r->js = jsonrpc_session_open(r->active, true);
        r->js_seqno = jsonrpc_session_get_seqno(r->js);
        VLOG_DBG("replicating from %s", r->active);
    }
}

void
ovsdb_replication_disconnect(struct ovsdb_replication *r)
{
    close_session(r);
    r->backup = false;
    ovsdb_databases_set_read_only(r->dbs, false);
}

bool
ovsdb_replication_is_backup(const struct ovsdb_replication *r)
{
    return r->backup;
}

struct ovsdb_error *
ovsdb_replication_set_exclude(struct ovsdb_replication *r, const char *spec)
{
    char *copy = xstrdup(spec);
    char *save = NULL;
    struct ovsdb_error *error = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && !error;
         t = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(t, ':');
        if (!colon || colon == t || !colon[1]) {
            error = ovsdb_error(OVSDB_E_SYNTAX, "'%s' is not a valid "
                                "table name, must be DB_NAME:TABLE_NAME", t);
        }
    }
    free(copy);
    if (!error) {
        free(r->exclude);
        r->exclude = xstrdup(spec);
    }
    return error;
}

const char *
ovsdb_replication_get_exclude(const struct ovsdb_replication *r)
{
    return r->exclude;
}

static bool
is_excluded(const struct ovsdb_replication *r, const char *db,
            const char *table)
{
    char *pair = xasprintf("%s:%s", db, table);
    size_t n = strlen(pair);
    bool found = false;
    for (const char *p = r->exclude; (p = strstr(p, pair)) != NULL; p++) {
        if ((p == r->exclude || p[-1] == ',')
            && (p[n] == '\0' || p[n] == ',')) {
            found = true;
            break;
        }
    }
    free(pair);
    return found;
}

void
ovsdb_replication_put_status(const struct ovsdb_replication *r,
                             struct ds *out)
{
    if (!r->backup) {
        ds_put_cstr(out, "state: active\n");
        return;
    }
    ds_put_cstr(out, "state: backup\n");
    if (!r->js || !jsonrpc_session_is_connected(r->js)) {
        ds_put_format(out, "connecting: %s\n", r->active ? r->active : "");
        return;
    }
    ds_put_format(out, "replicating: %s\n", r->active);
    for (size_t i = 0; i < r->n_replicas; i++) {
        ds_put_format(out, "database: %s\n", r->replicas[i]->name);
    }
    if (r->exclude[0]) {
        ds_put_format(out, "exclude: %s\n", r->exclude);
    }
}

/* Protocol. */

/* Sends 'method' with 'params' (taken) on the connection; returns the
 * request's id (a new reference). */
static json_t *
send_request(struct ovsdb_replication *r, const char *method, json_t *params)
{
    json_t *id;
    jsonrpc_session_send(r->js, jsonrpc_create_request(method, params, &id));
    return json_incref(id);
}

/* Stops replicating after 'error' (taken) and becomes active, as the
 * reference does: such errors would come back on every reconnection. */
static void
fail(struct ovsdb_replication *r, struct ovsdb_error *error)
{
    char *s = ovsdb_error_to_string_free(error);
    VLOG_ERR("%s", s);
    free(s);
    ovsdb_replication_disconnect(r);
}

/* A new connection: first, which server is it? */
static void
start_session(struct ovsdb_replication *r)
{
    clear_replicas(r);
    r->request_id = send_request(r, "get_server_id", json_array());
    r->state = CONN_SERVER_ID;
}

static void
handle_server_id(struct ovsdb_replication *r, const json_t *result)
{
    struct uuid id;
    if (!json_is_string(result)
        || !uuid_from_string(&id, json_string_value(result))) {
        fail(r, ovsdb_error(OVSDB_E_OVSDB, "get_server_id failed: Server ID "
                                           "is not valid UUID"));
    } else if (uuid_equals(&id, ovsdb_databases_get_server_id(r->dbs))) {
        fail(r, ovsdb_error(OVSDB_E_OVSDB, "Server ID check failed: Self "
                                           "replicating is not allowed"));
    } else {
        r->request_id = send_request(r, "list_dbs", json_array());
        r->state = CONN_LIST_DBS;
    }
}

/* The databases the active server lists: those we also serve from a file
 * are compared by schema. */
static void
handle_list_dbs(struct ovsdb_replication *r, const json_t *result)
{
    if (!json_is_array(result)) {
        fail(r, ovsdb_error(OVSDB_E_OVSDB, "list_dbs failed: list_dbs "
                                           "response is not array"));
        return;
    }
    size_t i;
    json_t *name_json;
    json_array_foreach (result, i, name_json) {
        const char *name = json_string_value(name_json);
        struct ovsdb_served_db *sdb = (name
                                           ? ovsdb_databases_find(r->dbs, name)
                                           : NULL);
        if (!sdb || !strcmp(name, "_Server")
            || ovsdb_served_db_get_relay(sdb)) {
            continue;
        }
        struct replica *rep = xzalloc(sizeof *rep);
        rep->name = xstrdup(name);
        rep->request_id = send_request(r, "get_schema",
                                       json_pack("[s]", name));
        r->replicas = xrealloc(r->replicas,
                               (r->n_replicas + 1) * sizeof *r->replicas);
        r->replicas[r->n_replicas++] = rep;
    }
    r->state = CONN_SCHEMAS;
    if (!r->n_replicas) {
        fail(r, ovsdb_error(OVSDB_E_OVSDB, "Nothing to replicate."));
    }
}

/* Whether the local database can hold everything of the active one: each
 * of the active schema's tables and columns exists locally, the same. */
static bool
can_replicate(const json_t *local, const json_t *active)
{
    const json_t *local_tables = json_object_get(local, "tables");
    const char *table_name;
    json_t *table;
    json_object_foreach ((json_t *) json_object_get(active, "tables"),
                         table_name, table) {
        const json_t *local_columns = json_object_get(
            json_object_get(local_tables, table_name), "columns");
        if (!local_columns) {
            VLOG_INFO("Table %s not present in the local db schema",
                      table_name);
            return false;
        }
        const char *column_name;
        json_t *column;
        json_object_foreach (json_object_get(table, "columns"), column_name,
                             column) {
            const json_t *local_column = json_object_get(local_columns,
                                                         column_name);
            if (!local_column) {
                VLOG_INFO("Column %s not present in the local db schema "
                          "table %s.",
                          column_name, table_name);
                return false;
            } else if (!json_equal(local_column, column)) {
                VLOG_INFO("Column %s mismatch in local db schema table %s.",
                          column_name, table_name);
                return false;
            }
        }
    }
    return true;
}

/* Returns the monitor_cond request for 'schema' (the JSON of the schema
 * whose tables and columns to monitor), without the excluded tables. */
static json_t *
monitored_tables(const struct ovsdb_replication *r, const char *db_name,
                 const json_t *schema)
{
    json_t *tables = json_object();
    const char *table_name;
    json_t *table;
    json_object_foreach ((json_t *) json_object_get(schema, "tables"),
                         table_name, table) {
        if (is_excluded(r, db_name, table_name)) {
            continue;
        }
        json_t *columns = json_array();
        const char *column_name;
        json_t *column;
        json_object_foreach (json_object_get(table, "columns"), column_name,
                             column) {
            json_array_append_new(columns, json_string(column_name));
        }
        json_object_set_new(tables, table_name,
                            json_pack("[{s:o}]", "columns", columns));
    }
    return tables;
}

/* Removes replica 'i', a database that is not replicated after all. */
static void
drop_replica(struct ovsdb_replication *r, size_t i)
{
    struct replica *rep = r->replicas[i];
    free(rep->name);
    json_decref(rep->request_id);
    json_decref(rep->tables);
    free(rep);
    r->replicas[i] = r->replicas[--r->n_replicas];
}

static void
handle_schema(struct ovsdb_replication *r, size_t i, const json_t *result)
{
    struct replica *rep = r->replicas[i];
    struct ovsdb_served_db *sdb = ovsdb_databases_find(r->dbs, rep->name);
    struct ovsdb_schema *active;
    struct ovsdb_error *error = ovsdb_schema_from_json(result, &active);
    if (error || !sdb) {
        fail(r, error ? error
                      : ovsdb_error(OVSDB_E_OVSDB,
                                    "%s: no longer "
                                    "served here",
                                    rep->name));
        return;
    }
    const struct ovsdb_schema *local = ovsdb_get_schema(
        ovsdb_served_db_get_ovsdb(sdb));
    json_t *local_json = ovsdb_schema_to_json(local);
    json_t *active_json = ovsdb_schema_to_json(active);
    bool keep = true;
    if (!ovsdb_schema_equals(local, active)) {
        VLOG_INFO("Schema version mismatch, checking if %s can still be "
                  "replicated or not.",
                  rep->name);
        keep = can_replicate(local_json, active_json);
        VLOG_INFO("%s %s be replicated.", rep->name, keep ? "can" : "cannot");
    }
    if (keep) {
        /* Monitoring the active server's columns only: a column that only
         * the local schema has would make the request fail. */
        rep->tables = monitored_tables(r, rep->name, active_json);
    } else {
        drop_replica(r, i);
    }
    json_decref(local_json);
    json_decref(active_json);
    ovsdb_schema_destroy(active);
}

/* Once every schema is in: monitors the databases kept. */
static void
start_monitors(struct ovsdb_replication *r)
{
    if (!r->n_replicas) {
        fail(r, ovsdb_error(OVSDB_E_OVSDB, "Nothing to replicate."));
        return;
    }
    for (size_t i = 0; i < r->n_replicas; i++) {
        struct replica *rep = r->replicas[i];
        rep->request_id = send_request(r, "monitor_cond",
                                       json_pack("[s s O]", rep->name,
                                                 rep->name, rep->tables));
    }
    r->state = CONN_MONITORING;
}

static void
apply(struct ovsdb_replication *r, struct replica *rep,
      const json_t *updates, bool full)
{
    struct ovsdb_served_db *sdb = ovsdb_databases_find(r->dbs, rep->name);
    if (!sdb) {
        return;
    }
    struct ovsdb_txn *txn;
    struct ovsdb_error *error = ovsdb_updates_to_txn(ovsdb_served_db_get_ovsdb(
                                                         sdb),
                                                     updates, full,
                                                     rep->tables, &txn);
    if (!error && txn) {
        error = ovsdb_served_db_commit_txn(sdb, txn);
    }
    if (error) {
        /* As the reference: stop replicating and become active.  Such
         * errors (a row referring to an excluded table, say) would come
         * back on every resync. */
        char *s = ovsdb_error_to_string_free(error);
        VLOG_ERR("%s: cannot apply update from %s (%s), becoming active",
                 rep->name, r->active, s);
        free(s);
        ovsdb_replication_disconnect(r);
    }
}

/* A reply (or error) to one of our requests. */
static void
handle_reply(struct ovsdb_replication *r, const struct jsonrpc_msg *msg)
{
    if (r->request_id && json_equal(r->request_id, msg->id)) {
        json_decref(r->request_id);
        r->request_id = NULL;
        if (msg->type == JSONRPC_ERROR) {
            char *s = jsonx_to_string_sorted(msg->error);
            fail(r, ovsdb_error(OVSDB_E_OVSDB, "%s failed: %s",
                                r->state == CONN_SERVER_ID ? "get_server_id"
                                                           : "list_dbs",
                                s));
            free(s);
        } else if (r->state == CONN_SERVER_ID) {
            handle_server_id(r, msg->result);
        } else {
            handle_list_dbs(r, msg->result);
        }
        return;
    }
    for (size_t i = 0; i < r->n_replicas; i++) {
        struct replica *rep = r->replicas[i];
        if (!rep->request_id || !json_equal(rep->request_id, msg->id)) {
            continue;
        }
        json_decref(rep->request_id);
        rep->request_id = NULL;
        if (msg->type == JSONRPC_ERROR) {
            char *s = jsonx_to_string_sorted(msg->error);
            VLOG_WARN("%s: cannot replicate from %s: %s", rep->name, r->active,
                      s);
            free(s);
            if (r->state == CONN_SCHEMAS) {
                drop_replica(r, i);
            }
        } else if (r->state == CONN_SCHEMAS) {
            handle_schema(r, i, msg->result);
        } else {
            rep->synced = true;
            apply(r, rep, msg->result, true);
        }
        break;
    }
    if (r->js && r->state == CONN_SCHEMAS) {
        for (size_t i = 0; i < r->n_replicas; i++) {
            if (r->replicas[i]->request_id) {
                return;
            }
        }
        start_monitors(r);
    }
}

static void
handle_msg(struct ovsdb_replication *r, const struct jsonrpc_msg *msg)
{
    if (msg->type == JSONRPC_NOTIFY && !strcmp(msg->method, "update2")) {
        const char *id = json_string_value(json_array_get(msg->params, 0));
        for (size_t i = 0; id && i < r->n_replicas; i++) {
            if (!strcmp(id, r->replicas[i]->name) && r->replicas[i]->synced) {
                apply(r, r->replicas[i], json_array_get(msg->params, 1),
                      false);
            }
        }
    } else if (msg->type == JSONRPC_REPLY || msg->type == JSONRPC_ERROR) {
        handle_reply(r, msg);
    }
}

void
ovsdb_replication_run(struct ovsdb_replication *r)
{
    if (!r->js) {
        return;
    }
    jsonrpc_session_run(r->js);
    unsigned int seqno = jsonrpc_session_get_seqno(r->js);
    if (seqno != r->js_seqno) {
        r->js_seqno = seqno;
        clear_replicas(r);
        if (jsonrpc_session_is_connected(r->js)) {
            start_session(r);
        }
    }
    for (int i = 0; i < 50; i++) {
        struct jsonrpc_msg *msg = jsonrpc_session_recv(r->js);
        if (!msg) {
            return;
        }
        handle_msg(r, msg);
        jsonrpc_msg_destroy(msg);
        if (!r->js) {
            return;
        }
    }
    poll_immediate_wake();
}

void
ovsdb_replication_wait(struct ovsdb_replication *r)
{
    if (r->js) {
        jsonrpc_session_wait(r->js);
        jsonrpc_session_recv_wait(r->js);
    }
}

/* Control commands. */

static void
set_active_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
              const char *argv[], void *r_)
{
    ovsdb_replication_set_active(r_, argv[1]);
    unixctl_command_reply(conn, NULL);
}

static void
get_active_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
              const char *argv[] OVS_UNUSED, void *r_)
{
    struct ovsdb_replication *r = r_;
    unixctl_command_reply(conn, r->active ? r->active : "");
}

static void
connect_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
           const char *argv[] OVS_UNUSED, void *r_)
{
    struct ovsdb_replication *r = r_;
    if (!r->active) {
        /* A reply, not an error, as the reference's. */
        unixctl_command_reply(conn, "Unable to connect: active server is "
                                    "not specified.\n");
        return;
    }
    if (!r->backup || !r->js) {
        ovsdb_replication_connect(r);
    }
    unixctl_command_reply(conn, NULL);
}

static void
disconnect_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
              const char *argv[] OVS_UNUSED, void *r_)
{
    ovsdb_replication_disconnect(r_);
    unixctl_command_reply(conn, NULL);
}

static void
set_exclude_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
               const char *argv[], void *r_)
{
    struct ovsdb_replication *r = r_;
    struct ovsdb_error *error = ovsdb_replication_set_exclude(r, argv[1]);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        unixctl_command_reply_error(conn, s);
        free(s);
        return;
    }
    if (r->backup) {
        ovsdb_replication_connect(r);   /* Resynchronize without them. */
    }
    unixctl_command_reply(conn, NULL);
}

static void
get_exclude_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
               const char *argv[] OVS_UNUSED, void *r_)
{
    struct ovsdb_replication *r = r_;
    char *s = xasprintf("%s\n", r->exclude);
    unixctl_command_reply(conn, s);
    free(s);
}

static void
sync_status_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
               const char *argv[] OVS_UNUSED, void *r_)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    ovsdb_replication_put_status(r_, &s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

void
ovsdb_replication_register_commands(struct ovsdb_replication *r)
{
    unixctl_command_register("ovsdb-server/set-active-ovsdb-server", "",
                             1, 1, set_active_cb, r);
    unixctl_command_register("ovsdb-server/get-active-ovsdb-server", "",
                             0, 0, get_active_cb, r);
    unixctl_command_register("ovsdb-server/connect-active-ovsdb-server", "",
                             0, 0, connect_cb, r);
    unixctl_command_register("ovsdb-server/disconnect-active-ovsdb-server",
                             "", 0, 0, disconnect_cb, r);
    unixctl_command_register("ovsdb-server/set-sync-exclude-tables", "",
                             1, 1, set_exclude_cb, r);
    unixctl_command_register("ovsdb-server/get-sync-exclude-tables", "",
                             0, 0, get_exclude_cb, r);
    unixctl_command_register("ovsdb-server/sync-status", "", 0, 0,
                             sync_status_cb, r);
}
