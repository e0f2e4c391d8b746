/* ovsdb/engine/sysdb.c: the "_Server" database.  See sysdb.h. */
#include <config.h>

#include "ovsdb/engine/sysdb.h"

#include <stdlib.h>
#include "lib/json-util.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/schema.h"

VLOG_DEFINE_THIS_MODULE(sysdb);

/* The reference's _Server schema, version 1.2.0 (same cksum). */
static const char server_schema[] =
    "{\"name\":\"_Server\",\"version\":\"1.2.0\","
    "\"cksum\":\"3009684573 744\","
    "\"tables\":{\"Database\":{\"columns\":{"
    "\"name\":{\"type\":\"string\"},"
    "\"model\":{\"type\":{\"key\":{\"type\":\"string\","
    "\"enum\":[\"set\",[\"standalone\",\"clustered\",\"relay\"]]}}},"
    "\"connected\":{\"type\":\"boolean\"},"
    "\"leader\":{\"type\":\"boolean\"},"
    "\"schema\":{\"type\":{\"key\":{\"type\":\"string\"},"
    "\"min\":0,\"max\":1}},"
    "\"cid\":{\"type\":{\"key\":{\"type\":\"uuid\"},\"min\":0,\"max\":1}},"
    "\"sid\":{\"type\":{\"key\":{\"type\":\"uuid\"},\"min\":0,\"max\":1}},"
    "\"index\":{\"type\":{\"key\":{\"type\":\"integer\"},"
    "\"min\":0,\"max\":1}}}}}}";

struct ovsdb *
ovsdb_sysdb_create(void)
{
    char *msg = NULL;
    json_t *json = jsonx_from_string(server_schema, &msg);
    struct ovsdb_schema *schema = NULL;
    struct ovsdb_error *error = json
        ? ovsdb_schema_from_json(json, &schema)
        : ovsdb_error(OVSDB_E_SYNTAX, "%s", msg);
    json_decref(json);
    free(msg);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        VLOG_FATAL("_Server schema: %s", s);
    }
    return ovsdb_create(schema);
}

static void
execute(struct ovsdb *sysdb, json_t *op)
{
    json_t *params = json_pack("[s o]", "_Server", op);
    json_t *reply = ovsdb_execute(sysdb, params, false);
    size_t i;
    json_t *result;
    json_array_foreach (reply, i, result) {
        if (json_object_get(result, "error")) {
            char *s = jsonx_to_string_sorted(reply);
            VLOG_ERR("_Server update failed: %s", s);
            free(s);
            break;
        }
    }
    json_decref(reply);
    json_decref(params);
}

/* Returns the "schema" column's value for 'schema'; caller must free. */
static char *
schema_string(const struct ovsdb_schema *schema)
{
    json_t *schema_json = ovsdb_schema_to_json(schema);
    char *s = jsonx_to_string_sorted(schema_json);
    json_decref(schema_json);
    return s;
}

void
ovsdb_sysdb_add(struct ovsdb *sysdb, const char *name,
                const struct ovsdb_schema *schema)
{
    char *schema_s = schema_string(schema);
    json_t *row = json_pack("{s:s s:s s:b s:b s:s}",
                            "name", name, "model", "standalone",
                            "connected", 1, "leader", 1,
                            "schema", schema_s);
    free(schema_s);
    execute(sysdb, json_pack("{s:s s:s s:o}", "op", "insert",
                             "table", "Database", "row", row));
}

void
ovsdb_sysdb_set_schema(struct ovsdb *sysdb, const char *name,
                       const struct ovsdb_schema *schema)
{
    char *schema_s = schema_string(schema);
    json_t *where = json_pack("[[s s s]]", "name", "==", name);
    json_t *row = json_pack("{s:s}", "schema", schema_s);
    free(schema_s);
    execute(sysdb, json_pack("{s:s s:s s:o s:o}", "op", "update",
                             "table", "Database", "where", where,
                             "row", row));
}

void
ovsdb_sysdb_set_status(struct ovsdb *sysdb, const char *name,
                       const char *model, bool connected, bool leader)
{
    json_t *where = json_pack("[[s s s]]", "name", "==", name);
    json_t *row = json_pack("{s:s s:b s:b}", "model", model,
                            "connected", connected, "leader", leader);
    execute(sysdb, json_pack("{s:s s:s s:o s:o}", "op", "update",
                             "table", "Database", "where", where,
                             "row", row));
}

void
ovsdb_sysdb_set_cluster(struct ovsdb *sysdb, const char *name,
                        const struct uuid *cid, const struct uuid *sid,
                        uint64_t index)
{
    char cid_s[UUID_LEN + 1], sid_s[UUID_LEN + 1];
    uuid_to_string(cid, cid_s);
    uuid_to_string(sid, sid_s);
    json_t *where = json_pack("[[s s s]]", "name", "==", name);
    json_t *row = json_pack("{s:[s s] s:[s s] s:I}",
                            "cid", "uuid", cid_s, "sid", "uuid", sid_s,
                            "index", (json_int_t) index);
    execute(sysdb, json_pack("{s:s s:s s:o s:o}", "op", "update",
                             "table", "Database", "where", where,
                             "row", row));
}

void
ovsdb_sysdb_remove(struct ovsdb *sysdb, const char *name)
{
    json_t *where = json_pack("[[s s s]]", "name", "==", name);
    execute(sysdb, json_pack("{s:s s:s s:o}", "op", "delete",
                             "table", "Database", "where", where));
}
