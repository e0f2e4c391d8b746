/* ovsdb/client/client-backup.c: see client-backup.h. */
#include <config.h>
#include "ovsdb/client/client-backup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "lib/timeval.h"
#include "lib/util.h"
#include "ovsdb/client/client-rpc.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/file.h"
#include "ovsdb/format/log.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/schema.h"

static void
write_record(const json_t *json)
{
    size_t size;
    char *record = ovsdb_log_format_record(json, &size);
    if (fwrite(record, 1, size, stdout) != size) {
        ovs_fatal(0, "write to stdout failed");
    }
    free(record);
}

/* Returns the select operation for every persistent column of 'ts',
 * _uuid included. */
static json_t *
select_persistent(const struct ovsdb_table_schema *ts)
{
    json_t *columns = json_array();
    for (size_t i = 0; i < ts->n_columns; i++) {
        const struct ovsdb_column *column = ts->columns[i];
        if (i != OVSDB_COL_VERSION && column->is_persistent) {
            json_array_append_new(columns, json_string(column->name));
        }
    }
    json_t *op = json_object();
    json_object_set_new(op, "op", json_string("select"));
    json_object_set_new(op, "table", json_string(ts->name));
    json_object_set_new(op, "where", json_array());
    json_object_set_new(op, "columns", columns);
    return op;
}

void
client_backup(struct jsonrpc *rpc, const char *database)
{
    struct ovsdb_schema *schema = client_rpc_get_schema(rpc, database);

    json_t *txn = json_array();
    json_array_append_new(txn, json_string(database));
    for (size_t i = 0; i < schema->n_tables; i++) {
        json_array_append_new(txn, select_persistent(schema->tables[i]));
    }
    json_t *reply = client_rpc_call(rpc, "transact", txn, "transaction");
    if (json_array_size(reply) != schema->n_tables) {
        ovs_fatal(0, "transaction reply has %zu results, expected %zu",
                  json_array_size(reply), schema->n_tables);
    }

    json_t *data = json_object();
    for (size_t i = 0; i < schema->n_tables; i++) {
        const char *name = schema->tables[i]->name;
        json_t *result = json_array_get(reply, i);
        json_t *rows = jsonx_object_get(result, "rows");
        if (!json_is_array(rows)) {
            char *s = jsonx_to_string_sorted(result);
            ovs_fatal(0, "%s table reply is not a result with rows: %s",
                      name, s);
        }
        if (!json_array_size(rows)) {
            continue;
        }
        json_t *table = json_object();
        for (size_t j = 0; j < json_array_size(rows); j++) {
            json_t *row = json_deep_copy(json_array_get(rows, j));
            json_t *uuid = json_object_get(row, "_uuid");
            if (!jsonx_is_tagged_array(uuid, "uuid", 2)) {
                ovs_fatal(0, "%s table reply row lacks _uuid", name);
            }
            char *key = xstrdup(
                json_string_value(json_array_get(uuid, 1)));
            json_object_del(row, "_uuid");
            json_object_set_new(table, key, row);
            free(key);
        }
        json_object_set_new(data, name, table);
    }
    json_object_set_new(data, "_date", json_integer(time_wall_msec()));
    json_object_set_new(data, "_comment",
                        json_string("produced by \"ovsdb-client backup\""));
    json_object_set_new(data, "_is_diff", json_true());

    json_t *schema_json = ovsdb_schema_to_json(schema);
    write_record(schema_json);
    write_record(data);
    fflush(stdout);

    json_decref(schema_json);
    json_decref(data);
    json_decref(reply);
    ovsdb_schema_destroy(schema);
}

/* Returns the "uuid-name" a restored row with 'uuid' gets. */
static char *
row_name(const char *uuid)
{
    char *name = xasprintf("row%s", uuid);
    for (char *p = name; *p; p++) {
        if (*p == '-') {
            *p = '_';
        }
    }
    return name;
}

/* Returns a copy of value 'json' (new reference) in which every
 * ["uuid", U] naming a row in 'rows' ({uuid: row} of all tables, merged)
 * becomes ["named-uuid", row_name(U)]. */
static json_t *
rename_refs(const json_t *json, const json_t *uuids)
{
    if (jsonx_is_tagged_array(json, "uuid", 2)) {
        const char *uuid = json_string_value(json_array_get(json, 1));
        if (uuid && json_object_get(uuids, uuid)) {
            char *name = row_name(uuid);
            json_t *named = jsonx_tagged_new("named-uuid",
                                             json_string(name));
            free(name);
            return named;
        }
    }
    if (json_is_array(json)) {
        json_t *copy = json_array();
        for (size_t i = 0; i < json_array_size(json); i++) {
            json_array_append_new(copy,
                                  rename_refs(json_array_get(json, i),
                                              uuids));
        }
        return copy;
    }
    return json_incref((json_t *) json);
}

static void
check_schemas(const struct ovsdb_schema *backup,
              const struct ovsdb_schema *server, bool force)
{
    if (ovsdb_schema_equals(backup, server)) {
        return;
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    if (strcmp(backup->version, server->version)) {
        ds_put_format(&s, "backup schema has version \"%s\" but database "
                      "schema has version \"%s\"", backup->version,
                      server->version);
    } else {
        ds_put_format(&s, "backup schema and database schema are both "
                      "version %s but still differ", backup->version);
    }
    if (!force) {
        ovs_fatal(0, "%s (use --force to override differences, or "
                  "\"ovsdb-client convert\" to change the schema)",
                  ds_cstr(&s));
    }
    ovs_error(0, "%s", ds_cstr(&s));
    ds_destroy(&s);
}

void
client_restore(struct jsonrpc *rpc, const char *database, bool force)
{
    struct ovsdb *db;
    struct ovsdb_error *error = ovsdb_file_open("/dev/stdin", &db, NULL,
                                                NULL);
    if (error) {
        ovs_fatal(0, "%s", ovsdb_error_to_string_free(error));
    }
    const struct ovsdb_schema *schema = ovsdb_get_schema(db);
    struct ovsdb_schema *server_schema = client_rpc_get_schema(rpc,
                                                               database);
    check_schemas(schema, server_schema, force);
    ovsdb_schema_destroy(server_schema);

    /* Every row's UUID, to tell references to restored rows. */
    json_t *snapshot = ovsdb_file_snapshot(db, NULL);
    json_t *uuids = json_object();
    for (size_t i = 0; i < schema->n_tables; i++) {
        json_t *rows = json_object_get(snapshot, schema->tables[i]->name);
        const char *uuid;
        json_t *row;
        json_object_foreach (rows, uuid, row) {
            json_object_set_new(uuids, uuid, json_true());
        }
    }

    /* As the reference, the transaction goes to the database the backup's
     * schema names. */
    json_t *txn = json_array();
    json_array_append_new(txn, json_string(schema->name));
    for (size_t i = 0; i < schema->n_tables; i++) {
        const char *table = schema->tables[i]->name;
        json_t *op = json_object();
        json_object_set_new(op, "op", json_string("delete"));
        json_object_set_new(op, "table", json_string(table));
        json_object_set_new(op, "where", json_array());
        json_array_append_new(txn, op);

        json_t *rows = json_object_get(snapshot, table);
        const char *uuid;
        json_t *row;
        json_object_foreach (rows, uuid, row) {
            json_t *new_row = json_object();
            const char *column;
            json_t *value;
            json_object_foreach (row, column, value) {
                json_object_set_new(new_row, column,
                                    rename_refs(value, uuids));
            }
            char *name = row_name(uuid);
            op = json_object();
            json_object_set_new(op, "op", json_string("insert"));
            json_object_set_new(op, "table", json_string(table));
            json_object_set_new(op, "uuid-name", json_string(name));
            json_object_set_new(op, "row", new_row);
            json_array_append_new(txn, op);
            free(name);
        }
    }
    json_decref(uuids);
    json_decref(snapshot);

    json_t *reply = client_rpc_call(rpc, "transact", txn, "transaction");
    for (size_t i = 0; i < json_array_size(reply); i++) {
        const json_t *result = json_array_get(reply, i);
        if (jsonx_object_get(result, "error")) {
            char *s = jsonx_to_string_sorted(result);
            ovs_fatal(0, "restore failed: %s", s);
        }
    }
    json_decref(reply);
    ovsdb_destroy(db);
}
