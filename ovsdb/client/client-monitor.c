/* ovsdb/client/client-monitor.c: see client-monitor.h. */
#include <config.h>
#include "ovsdb/client/client-monitor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/daemon.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/unixctl.h"
#include "lib/util.h"
#include "ovsdb/client/client-rpc.h"
#include "ovsdb/engine/condition.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/client/table-format.h"

/* One monitored table and the columns printed for it, in order. */
struct mon_table {
    const struct ovsdb_table_schema *schema;
    const struct ovsdb_column **columns;
    size_t n_columns;
};

struct monitor {
    const struct client_monitor_options *options;
    struct ovsdb_schema *schema;
    struct mon_table *tables;
    size_t n_tables;
    bool update2;               /* "update2" format (monitor_cond...). */
    bool blocked;               /* ovsdb-client/block: not reading. */
    struct jsonrpc *rpc;
};

static void
unixctl_cond_change(struct unixctl_conn *conn, int argc OVS_UNUSED,
                    const char *argv[], void *m_)
{
    struct monitor *m = m_;
    char *error;
    json_t *where = jsonx_from_string(argv[2], &error);
    if (!where) {
        unixctl_command_reply_error(conn, error);
        free(error);
        return;
    }
    json_t *change = json_object();
    json_object_set_new(change, argv[1], json_pack("[{s o}]", "where", where));
    /* Our monitor's id is null; the new monitor keeps it. */
    jsonrpc_send(m->rpc,
                 jsonrpc_create_request("monitor_cond_change",
                                        json_pack("[n n o]", change), NULL));
    unixctl_command_reply(conn, "condition changed");
}

static void
unixctl_block(struct unixctl_conn *conn, int argc OVS_UNUSED,
              const char *argv[] OVS_UNUSED, void *m_)
{
    struct monitor *m = m_;
    m->blocked = true;
    unixctl_command_reply(conn, NULL);
}

static void
unixctl_unblock(struct unixctl_conn *conn, int argc OVS_UNUSED,
                const char *argv[] OVS_UNUSED, void *m_)
{
    struct monitor *m = m_;
    m->blocked = false;
    unixctl_command_reply(conn, NULL);
}

static void
add_column(struct mon_table *mt, const struct ovsdb_column *column,
           json_t *columns_json)
{
    mt->columns = xrealloc(mt->columns,
                           (mt->n_columns + 1) * sizeof *mt->columns);
    mt->columns[mt->n_columns++] = column;
    json_array_append_new(columns_json, json_string(column->name));
}

/* Adds every column except _uuid, in name order, then _version, as the
 * reference monitors "all columns". */
static void
add_all_columns(struct mon_table *mt, json_t *columns_json)
{
    const struct ovsdb_table_schema *ts = mt->schema;
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns; i++) {
        add_column(mt, ts->columns[i], columns_json);
    }
    add_column(mt, ts->columns[OVSDB_COL_VERSION], columns_json);
}

static bool
mon_table_has_column(const struct mon_table *mt,
                     const struct ovsdb_column *column)
{
    for (size_t i = 0; i < mt->n_columns; i++) {
        if (mt->columns[i] == column) {
            return true;
        }
    }
    return false;
}

/* Parses one "COLUMN[,COLUMN]..." group 'arg' for 'mt' into a new
 * <monitor-request> (new reference).  'condition' (borrowed, may be NULL)
 * becomes its "where". */
static json_t *
parse_group(struct monitor *m, struct mon_table *mt, const char *arg,
            const json_t *condition)
{
    const char *server = m->options->server;
    bool initial = true, insert = true, delete = true, modify = true;
    json_t *columns = json_array();
    size_t n_before = mt->n_columns;

    char *copy = xstrdup(arg ? arg : "");
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        if (!strcmp(name, "!initial")) {
            initial = false;
        } else if (!strcmp(name, "!insert")) {
            insert = false;
        } else if (!strcmp(name, "!delete")) {
            delete = false;
        } else if (!strcmp(name, "!modify")) {
            modify = false;
        } else {
            const struct ovsdb_column *column
                = ovsdb_table_schema_find_column(mt->schema, name);
            if (!column) {
                ovs_fatal(0, "%s: table \"%s\" in %s does not have a "
                          "column named \"%s\"", server, mt->schema->name,
                          m->schema->name, name);
            }
            if (mon_table_has_column(mt, column)) {
                ovs_fatal(0, "%s: column \"%s\" mentioned multiple times",
                          server, name);
            }
            add_column(mt, column, columns);
        }
    }
    free(copy);
    if (mt->n_columns == n_before) {
        add_all_columns(mt, columns);
    }

    json_t *select = json_object();
    json_object_set_new(select, "initial", json_boolean(initial));
    json_object_set_new(select, "insert", json_boolean(insert));
    json_object_set_new(select, "delete", json_boolean(delete));
    json_object_set_new(select, "modify", json_boolean(modify));

    json_t *request = json_object();
    json_object_set_new(request, "columns", columns);
    json_object_set_new(request, "select", select);
    if (condition) {
        json_object_set(request, "where", (json_t *) condition);
    }
    return request;
}

static struct mon_table *
add_table(struct monitor *m, const char *name)
{
    const struct ovsdb_table_schema *ts
        = ovsdb_schema_find_table(m->schema, name);
    if (!ts) {
        ovs_fatal(0, "%s: %s does not have a table named \"%s\"",
                  m->options->server, m->schema->name, name);
    }
    m->tables = xrealloc(m->tables, (m->n_tables + 1) * sizeof *m->tables);
    struct mon_table *mt = &m->tables[m->n_tables++];
    memset(mt, 0, sizeof *mt);
    mt->schema = ts;
    return mt;
}

/* Returns the <monitor-requests> object for 'argc' arguments 'argv'
 * (TABLE [GROUP]... or ALL); new reference. */
static json_t *
build_requests(struct monitor *m, const json_t *condition, int argc,
               char *argv[])
{
    json_t *requests = json_object();

    if (argc == 1 && !strcmp(argv[0], "ALL")
        && m->options->method == CLIENT_MONITOR) {
        for (size_t i = 0; i < m->schema->n_tables; i++) {
            struct mon_table *mt = add_table(m, m->schema->tables[i]->name);
            json_t *list = json_array();
            json_array_append_new(list, parse_group(m, mt, NULL, condition));
            json_object_set_new(requests, mt->schema->name, list);
        }
        return requests;
    }

    struct mon_table *mt = add_table(m, argv[0]);
    if (condition) {
        /* Check it here, to report errors as the reference does. */
        struct ovsdb_condition cond = OVSDB_CONDITION_INITIALIZER;
        struct ovsdb_error *error = ovsdb_condition_from_json(
            mt->schema, condition, NULL, &cond);
        if (error) {
            ovs_fatal(0, "%s", ovsdb_error_to_string_free(error));
        }
        ovsdb_condition_destroy(&cond);
    }
    json_t *list = json_array();
    if (argc == 1) {
        json_array_append_new(list, parse_group(m, mt, NULL, condition));
    }
    for (int i = 1; i < argc; i++) {
        json_array_append_new(list, parse_group(m, mt, argv[i], condition));
    }
    json_object_set_new(requests, mt->schema->name, list);
    return requests;
}

static int
compare_uuid_keys(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;
    return strcmp(*a, *b);
}

static void
set_row_cells(struct tabfmt *t, const struct mon_table *mt,
              const json_t *values)
{
    if (!json_is_object(values)) {
        return;
    }
    for (size_t i = 0; i < mt->n_columns; i++) {
        const struct ovsdb_column *column = mt->columns[i];
        json_t *value = json_object_get(values, column->name);
        if (value) {
            tabfmt_set_json(t, i + 2, json_incref(value), &column->type);
        }
    }
}

/* Adds the rows for one row update 'ru' of row 'uuid'. */
static void
add_row_update(const struct monitor *m, struct tabfmt *t,
               const struct mon_table *mt, const char *uuid,
               const json_t *ru, bool initial)
{
    if (m->update2) {
        const char *action;
        json_t *values;
        json_object_foreach ((json_t *) ru, action, values) {
            tabfmt_add_row(t);
            tabfmt_set_text(t, 0, uuid);
            tabfmt_set_text(t, 1, action);
            set_row_cells(t, mt, values);
        }
        return;
    }

    const json_t *old = json_object_get(ru, "old");
    const json_t *new = json_object_get(ru, "new");
    tabfmt_add_row(t);
    tabfmt_set_text(t, 0, uuid);
    if (!old) {
        tabfmt_set_text(t, 1, initial ? "initial" : "insert");
        set_row_cells(t, mt, new);
    } else if (!new) {
        tabfmt_set_text(t, 1, "delete");
        set_row_cells(t, mt, old);
    } else {
        tabfmt_set_text(t, 1, "old");
        set_row_cells(t, mt, old);
        tabfmt_add_row(t);
        tabfmt_set_text(t, 0, "");
        tabfmt_set_text(t, 1, "new");
        set_row_cells(t, mt, new);
    }
}

static void
print_table_update(const struct monitor *m, const struct mon_table *mt,
                   const json_t *tu, bool initial)
{
    size_t n = json_object_size(tu);
    if (!json_is_object(tu) || !n) {
        return;
    }

    struct tabfmt *t = tabfmt_create();
    if (m->n_tables > 1) {
        tabfmt_set_caption(t, mt->schema->name);
    }
    tabfmt_set_timestamp(t, m->options->timestamp);
    tabfmt_add_column(t, "row");
    tabfmt_add_column(t, "action");
    for (size_t i = 0; i < mt->n_columns; i++) {
        tabfmt_add_column(t, mt->columns[i]->name);
    }

    const char **uuids = xmalloc(n * sizeof *uuids);
    const char *uuid;
    json_t *ru;
    size_t i = 0;
    json_object_foreach ((json_t *) tu, uuid, ru) {
        uuids[i++] = uuid;
    }
    qsort(uuids, n, sizeof *uuids, compare_uuid_keys);
    for (i = 0; i < n; i++) {
        add_row_update(m, t, mt, uuids[i], json_object_get(tu, uuids[i]),
                       initial);
    }
    free(uuids);

    tabfmt_print(t, m->options->style);
    tabfmt_destroy(t);
}

static void
print_updates(const struct monitor *m, const json_t *updates, bool initial)
{
    if (!json_is_object(updates)) {
        ovs_fatal(0, "%s: update is not an object", m->options->server);
    }
    for (size_t i = 0; i < m->n_tables; i++) {
        const struct mon_table *mt = &m->tables[i];
        print_table_update(m, mt, json_object_get(updates, mt->schema->name),
                           initial);
    }
}

/* monitor-cond-since: the reference prints the transaction id before each
 * update (and whether the server found the requested one, before the
 * initial contents), after the blank line that separates updates. */
static void
print_last_id(const struct monitor *m, const json_t *found,
              const json_t *last_id)
{
    struct tabfmt_style *style = m->options->style;
    if (style->n_printed) {
        putchar('\n');
    }
    style->n_printed = 0;
    const char *id = json_is_string(last_id) ? json_string_value(last_id)
                                              : "";
    if (found) {
        printf("found: %s, last_id: %s\n",
               json_is_true(found) ? "true" : "false", id);
    } else {
        printf("last_id: %s\n", id);
    }
    fflush(stdout);
}

static void
handle_message(const struct monitor *m, struct jsonrpc *rpc,
               struct jsonrpc_msg *msg)
{
    if (msg->type == JSONRPC_REQUEST && !strcmp(msg->method, "echo")) {
        jsonrpc_send(rpc, jsonrpc_create_reply(json_incref(msg->params),
                                               msg->id));
    } else if (msg->type == JSONRPC_NOTIFY
               && json_array_size(msg->params) == 2
               && (!strcmp(msg->method, "update")
                   || !strcmp(msg->method, "update2"))) {
        print_updates(m, json_array_get(msg->params, 1), false);
    } else if (msg->type == JSONRPC_NOTIFY
               && json_array_size(msg->params) == 3
               && !strcmp(msg->method, "update3")) {
        print_last_id(m, NULL, json_array_get(msg->params, 1));
        print_updates(m, json_array_get(msg->params, 2), false);
    } else if (msg->type == JSONRPC_NOTIFY
               && !strcmp(msg->method, "monitor_canceled")) {
        /* The server removed or converted the database (we asked with
         * set_db_change_aware to be told so). */
        ovs_fatal(0, "%s: %s database was removed", m->options->server,
                  m->options->database);
    }
}

void
client_monitor_run(struct jsonrpc *rpc,
                   const struct client_monitor_options *options, int argc,
                   char *argv[])
{
    struct monitor m = {
        .options = options,
        .update2 = options->method != CLIENT_MONITOR,
        .rpc = rpc,
    };
    if (options->unixctl) {
        unixctl_command_register("ovsdb-client/cond_change", "TABLE COND", 2,
                                 2, unixctl_cond_change, &m);
        unixctl_command_register("ovsdb-client/block", "", 0, 0, unixctl_block,
                                 &m);
        unixctl_command_register("ovsdb-client/unblock", "", 0, 0,
                                 unixctl_unblock, &m);
    }
    json_t *condition = NULL;
    json_t *last_id = NULL;

    if (options->method == CLIENT_MONITOR_COND_SINCE && argc > 2) {
        json_t *maybe = jsonx_from_string(argv[0], NULL);
        if (!maybe) {
            last_id = json_string(argv[0]);
            argc--;
            argv++;
        } else {
            json_decref(maybe);
        }
    }
    if (options->method != CLIENT_MONITOR) {
        condition = client_parse_json(argv[0]);
        if (!json_is_array(condition)) {
            ovs_fatal(0, "\"%s\": conditions must be a JSON array",
                      argv[0]);
        }
        argc--;
        argv++;
    }
    if (argc < 1) {
        ovs_fatal(0, "missing table name (use --help for help)");
    }

    m.schema = client_rpc_get_schema(rpc, options->database);
    json_t *requests = build_requests(&m, condition, argc, argv);
    json_decref(condition);

    if (options->db_change_aware) {
        client_rpc_set_db_change_aware(rpc, options->db_change_aware == 1);
    }
    json_t *params = json_array();
    json_array_append_new(params, json_string(options->database));
    json_array_append_new(params, json_null());
    json_array_append_new(params, requests);
    const char *method = "monitor";
    if (options->method == CLIENT_MONITOR_COND) {
        method = "monitor_cond";
    } else if (options->method == CLIENT_MONITOR_COND_SINCE) {
        method = "monitor_cond_since";
        json_array_append_new(params,
                              last_id ? last_id : json_string(
                                  "00000000-0000-0000-0000-000000000000"));
    }
    json_t *reply = client_rpc_call(rpc, method, params, NULL);
    if (options->method == CLIENT_MONITOR_COND_SINCE) {
        if (json_array_size(reply) != 3) {
            ovs_fatal(0, "%s: bad monitor_cond_since reply",
                      options->server);
        }
        print_last_id(&m, json_array_get(reply, 0),
                      json_array_get(reply, 1));
        print_updates(&m, json_array_get(reply, 2), true);
    } else {
        print_updates(&m, reply, true);
    }
    json_decref(reply);
    client_daemonize_complete(true);

    for (;;) {
        unixctl_server_run(options->unixctl);
        if (*options->exiting) {
            break;
        }
        jsonrpc_run(rpc);
        if (!m.blocked) {
            struct jsonrpc_msg *msg;
            int error = jsonrpc_recv(rpc, &msg);
            if (!error) {
                handle_message(&m, rpc, msg);
                jsonrpc_msg_destroy(msg);
                continue;
            } else if (error != EAGAIN) {
                ovs_fatal(error, "%s: receive failed", options->server);
            }
        }
        unixctl_server_wait(options->unixctl);
        jsonrpc_wait(rpc);
        if (!m.blocked) {
            jsonrpc_recv_wait(rpc);
        }
        poll_block();
    }

    for (size_t i = 0; i < m.n_tables; i++) {
        free(m.tables[i].columns);
    }
    free(m.tables);
    ovsdb_schema_destroy(m.schema);
}
