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
    json_t *request_id;         /* Monitor request id until the reply. */
    json_t *tables;             /* Monitored tables (an object). */
    bool synced;                /* Initial contents applied. */
};

struct ovsdb_replication {
    struct ovsdb_databases *dbs;
    char *active;               /* Remote of the active server, or NULL. */
    char *exclude;              /* "DB:TABLE,..." ("" if none). */
    bool backup;
    struct jsonrpc_session *js; /* Non-NULL while a backup with a remote. */
    unsigned int js_seqno;
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
        VLOG_INFO("replicating from %s", r->active);
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

static void
start_replicas(struct ovsdb_replication *r)
{
    clear_replicas(r);
    json_t *names = ovsdb_databases_list(r->dbs);
    size_t i;
    json_t *name_json;
    json_array_foreach (names, i, name_json) {
        const char *name = json_string_value(name_json);
        struct ovsdb_served_db *sdb = ovsdb_databases_find(r->dbs, name);
        if (!strcmp(name, "_Server") || ovsdb_served_db_get_relay(sdb)) {
            continue;
        }
        struct ovsdb *db = ovsdb_served_db_get_ovsdb(sdb);
        json_t *tables = json_object();
        for (size_t j = 0; j < ovsdb_n_tables(db); j++) {
            const char *t = ovsdb_get_table_by_index(db, j)->schema->name;
            if (!is_excluded(r, name, t)) {
                json_object_set_new(tables, t, json_pack("[{}]"));
            }
        }
        struct replica *rep = xzalloc(sizeof *rep);
        rep->name = xstrdup(name);
        rep->tables = tables;
        jsonrpc_session_send(r->js, jsonrpc_create_request(
                                 "monitor_cond",
                                 json_pack("[s s O]", name, name, tables),
                                 &rep->request_id));
        r->replicas = xrealloc(r->replicas,
                               (r->n_replicas + 1) * sizeof *r->replicas);
        r->replicas[r->n_replicas++] = rep;
    }
    json_decref(names);
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
        for (size_t i = 0; i < r->n_replicas; i++) {
            struct replica *rep = r->replicas[i];
            if (rep->request_id && json_equal(rep->request_id, msg->id)) {
                json_decref(rep->request_id);
                rep->request_id = NULL;
                if (msg->type == JSONRPC_ERROR) {
                    char *s = jsonx_to_string_sorted(msg->error);
                    VLOG_WARN("%s: cannot replicate from %s: %s", rep->name,
                              r->active, s);
                    free(s);
                } else {
                    rep->synced = true;
                    apply(r, rep, msg->result, true);
                }
                return;
            }
        }
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
            start_replicas(r);
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
        unixctl_command_reply_error(conn, "Unable to connect: active server "
                                    "is not specified.\n");
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
