/* tests/unit/engine/test-rbac.c: RBAC through the executor's authorization
 * hook.
 *
 * The expectations were taken from the reference ovsdb-server 3.1 (OVN
 * southbound schema, client "chassis1" with role "ovn-controller"), and
 * tests/security/rbac-*.sh repeats them against live servers. */
#include <config.h>
#include "ovsdb/engine/rbac.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/schema.h"
#include "tests/unit/check.h"

static struct ovsdb *
create_db(void)
{
    const char *srcdir = getenv("OVSDB_SRCDIR");
    char *path = xasprintf("%s/tests/data/schemas/rbac.ovsschema",
                           srcdir ? srcdir : ".");
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_file(path, &schema);
    if (error) {
        fprintf(stderr, "%s: %s\n", path, ovsdb_error_to_string(error));
        exit(1);
    }
    free(path);
    return ovsdb_create(schema);
}

/* Runs the operations 'ops' (a JSON array text without the database name)
 * as client 'id' with 'role' (NULL: no RBAC) and returns the result array
 * as sorted JSON text, with UUIDs replaced by "U"; caller must free. */
static char *
transact(struct ovsdb *db, const char *role, const char *id, const char *ops)
{
    char *text = xasprintf("[\"Secure\",%s]", ops);
    json_t *params = jsonx_from_string(text, NULL);
    free(text);
    if (!params) {
        fprintf(stderr, "bad test JSON: %s\n", ops);
        exit(1);
    }

    struct ovsdb_rbac_client client = { role, id };
    json_t *result = ovsdb_execute_authorized(db, params, false,
                                              ovsdb_rbac_authorize, &client);
    json_decref(params);

    /* Mask UUIDs: their values are random. */
    size_t i;
    json_t *r;
    json_array_foreach (result, i, r) {
        if (json_is_object(r) && json_object_get(r, "uuid")) {
            json_object_set_new(r, "uuid", json_string("U"));
        }
    }
    char *s = jsonx_to_string_sorted(result);
    json_decref(result);
    return s;
}

#define CHECK_TXN(DB, ROLE, ID, OPS, EXPECTED)                               \
    do {                                                                     \
        char *got_ = transact(DB, ROLE, ID, OPS);                            \
        CHECK_STREQ(got_, EXPECTED);                                         \
        free(got_);                                                          \
    } while (0)

static const char *
denied(const char *id, const char *what, const char *table)
{
    static char buf[4][256];
    static int n;
    char *b = buf[n++ % 4];
    snprintf(b, sizeof buf[0],
             "[{\"details\":\"RBAC rules for client \\\"%s\\\" role "
             "\\\"ovn-controller\\\" prohibit %s table \\\"%s\\\".\","
             "\"error\":\"permission error\"}]", id, what, table);
    return b;
}

#define ROLE "ovn-controller"
#define OK_INSERT "[{\"uuid\":\"U\"}]"
#define COUNT(N) "[{\"count\":" #N "}]"

/* Returns a database whose role "ovn-controller" may insert and delete
 * its own Chassis rows (by name) and update some of their columns, and
 * update the Chassis_Private rows that external_ids:owner says are its
 * own. */
static struct ovsdb *
create_secured_db(void)
{
    struct ovsdb *db = create_db();
    CHECK_TXN(db, NULL, NULL,
              "{\"op\":\"insert\",\"table\":\"RBAC_Permission\",\"row\":{"
              "\"table\":\"Chassis\",\"authorization\":[\"set\",[\"name\"]],"
              "\"insert_delete\":true,\"update\":[\"set\",[\"nb_cfg\","
              "\"external_ids\"]]},\"uuid-name\":\"p1\"},"
              "{\"op\":\"insert\",\"table\":\"RBAC_Permission\",\"row\":{"
              "\"table\":\"Chassis_Private\",\"authorization\":"
              "[\"set\",[\"external_ids:owner\"]],\"insert_delete\":false,"
              "\"update\":[\"set\",[\"nb_cfg\",\"external_ids:k1\"]]},"
              "\"uuid-name\":\"p2\"},"
              "{\"op\":\"insert\",\"table\":\"RBAC_Role\",\"row\":{\"name\":"
              "\"" ROLE "\",\"permissions\":[\"map\",[[\"Chassis\","
              "[\"named-uuid\",\"p1\"]],[\"Chassis_Private\","
              "[\"named-uuid\",\"p2\"]]]]}}",
              "[{\"uuid\":\"U\"},{\"uuid\":\"U\"},{\"uuid\":\"U\"}]");
    return db;
}

/* RBAC applies to a role the RBAC_Role table names, and to no other. */
static void
test_enabled(void)
{
    struct ovsdb *db = create_db();
    CHECK(ovsdb_rbac_enabled(db, ROLE));
    CHECK(!ovsdb_rbac_enabled(db, ""));
    CHECK(!ovsdb_rbac_enabled(db, NULL));
    ovsdb_destroy(db);
}

/* Inserting and deleting rows: own rows only, and only with a client ID. */
static void
test_insert_delete(void)
{
    struct ovsdb *db = create_secured_db();
    /* Own row: allowed; someone else's: refused. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"insert\",\"table\":\"Chassis\","
              "\"row\":{\"name\":\"chassis1\"}}", OK_INSERT);
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"insert\",\"table\":\"Chassis\","
              "\"row\":{\"name\":\"other\"}}",
              denied("chassis1", "row insertion into", "Chassis"));
    /* No role: no restriction. */
    CHECK_TXN(db, NULL, NULL,
              "{\"op\":\"insert\",\"table\":\"Chassis\","
              "\"row\":{\"name\":\"other\"}}", OK_INSERT);
    CHECK_TXN(db, "", "x",
              "{\"op\":\"insert\",\"table\":\"Chassis\","
              "\"row\":{\"name\":\"third\"}}", OK_INSERT);
    /* A table without permissions for the role. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"insert\",\"table\":\"Global\",\"row\":{}}",
              denied("chassis1", "row insertion into", "Global"));
    /* Deleting another chassis's row is refused; own row allowed. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"delete\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"other\"]]}",
              denied("chassis1", "row deletion from", "Chassis"));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"delete\",\"table\":\"Chassis\","
              "\"where\":[]}",
              denied("chassis1", "row deletion from", "Chassis"));
    /* No client ID (not TLS): nothing may change. */
    CHECK_TXN(db, ROLE, NULL,
              "{\"op\":\"insert\",\"table\":\"Chassis\","
              "\"row\":{\"name\":\"chassis1\"}}",
              denied("(null)", "row insertion into", "Chassis"));
    CHECK_TXN(db, ROLE, NULL,
              "{\"op\":\"delete\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"nobody\"]]}",
              denied("(null)", "row deletion from", "Chassis"));
    /* A "where" matching nothing: allowed once the table is permitted. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"delete\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"nobody\"]]}", COUNT(0));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"delete\",\"table\":\"Global\","
              "\"where\":[[\"nb_cfg\",\"==\",12345]]}",
              denied("chassis1", "row deletion from", "Global"));
    ovsdb_destroy(db);
}

/* Updates and mutations: own rows, permitted columns only. */
static void
test_update_mutate(void)
{
    struct ovsdb *db = create_secured_db();
    CHECK_TXN(db, NULL, NULL,
              "{\"op\":\"insert\",\"table\":\"Chassis\","
              "\"row\":{\"name\":\"chassis1\"}},"
              "{\"op\":\"insert\",\"table\":\"Chassis\","
              "\"row\":{\"name\":\"other\"}}",
              "[{\"uuid\":\"U\"},{\"uuid\":\"U\"}]");
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"chassis1\"]],"
              "\"row\":{\"nb_cfg\":5}}", COUNT(1));
    /* Same value again: still counted, still checked. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"chassis1\"]],"
              "\"row\":{\"nb_cfg\":5}}", COUNT(1));
    /* A column not in "update". */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"chassis1\"]],"
              "\"row\":{\"hostname\":\"x\"}}",
              denied("chassis1", "modification of", "Chassis"));
    /* ...but nothing is checked per row when no row matches. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"nobody\"]],"
              "\"row\":{\"hostname\":\"x\"}}", COUNT(0));
    /* Another chassis's row among the matches. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Chassis\",\"where\":[],"
              "\"row\":{\"nb_cfg\":7}}",
              denied("chassis1", "modification of", "Chassis"));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"mutate\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"chassis1\"]],"
              "\"mutations\":[[\"external_ids\",\"insert\","
              "[\"map\",[[\"a\",\"b\"]]]]]}", COUNT(1));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"mutate\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"chassis1\"]],"
              "\"mutations\":[[\"other_config\",\"insert\","
              "[\"map\",[[\"a\",\"b\"]]]]]}",
              denied("chassis1", "mutate operation on", "Chassis"));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"mutate\",\"table\":\"Chassis\",\"where\":[],"
              "\"mutations\":[[\"nb_cfg\",\"+=\",1]]}",
              denied("chassis1", "mutate operation on", "Chassis"));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Global\","
              "\"where\":[[\"nb_cfg\",\"==\",12345]],\"row\":{\"nb_cfg\":1}}",
              denied("chassis1", "modification of", "Global"));
    /* A refused operation leaves the earlier ones of the request undone. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"chassis1\"]],"
              "\"row\":{\"nb_cfg\":99}},"
              "{\"op\":\"insert\",\"table\":\"Chassis\","
              "\"row\":{\"name\":\"other2\"}}",
              "[{\"count\":1},{\"details\":\"RBAC rules for client "
              "\\\"chassis1\\\" role \\\"ovn-controller\\\" prohibit row "
              "insertion into table \\\"Chassis\\\".\",\"error\":"
              "\"permission error\"}]");
    CHECK_TXN(db, NULL, NULL,
              "{\"op\":\"select\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"chassis1\"]],"
              "\"columns\":[\"nb_cfg\"]}",
              "[{\"rows\":[{\"nb_cfg\":5}]}]");
    /* Reads are not restricted. */
    CHECK_TXN(db, ROLE, NULL,
              "{\"op\":\"select\",\"table\":\"Chassis\","
              "\"where\":[[\"name\",\"==\",\"other\"]],"
              "\"columns\":[\"name\"]}",
              "[{\"rows\":[{\"name\":\"other\"}]}]");
    ovsdb_destroy(db);
}

/* Authorization by a map key, in a table without insert_delete. */
static void
test_map_authorization(void)
{
    struct ovsdb *db = create_secured_db();
    /* "external_ids:owner" authorizes rows whose external_ids:owner is the
     * client ID; insert_delete is false for this table. */
    CHECK_TXN(db, NULL, NULL,
              "{\"op\":\"insert\",\"table\":\"Chassis_Private\",\"row\":{"
              "\"name\":\"cp1\",\"external_ids\":[\"map\",[[\"owner\","
              "\"chassis1\"]]]}},"
              "{\"op\":\"insert\",\"table\":\"Chassis_Private\",\"row\":{"
              "\"name\":\"cp2\",\"external_ids\":[\"map\",[[\"owner\","
              "\"zzz\"]]]}}",
              "[{\"uuid\":\"U\"},{\"uuid\":\"U\"}]");
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"insert\",\"table\":\"Chassis_Private\",\"row\":{"
              "\"name\":\"cp3\",\"external_ids\":[\"map\",[[\"owner\","
              "\"chassis1\"]]]}}",
              denied("chassis1", "row insertion into", "Chassis_Private"));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Chassis_Private\","
              "\"where\":[[\"name\",\"==\",\"cp1\"]],\"row\":{\"nb_cfg\":3}}",
              COUNT(1));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"update\",\"table\":\"Chassis_Private\","
              "\"where\":[[\"name\",\"==\",\"cp2\"]],\"row\":{\"nb_cfg\":3}}",
              denied("chassis1", "modification of", "Chassis_Private"));
    /* "column:key" in "update" does not permit the column (as the
     * reference). */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"mutate\",\"table\":\"Chassis_Private\","
              "\"where\":[[\"name\",\"==\",\"cp1\"]],"
              "\"mutations\":[[\"external_ids\",\"insert\","
              "[\"map\",[[\"k1\",\"y\"]]]]]}",
              denied("chassis1", "mutate operation on", "Chassis_Private"));
    /* Deleting own row is refused: insert_delete is false. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"delete\",\"table\":\"Chassis_Private\","
              "\"where\":[[\"name\",\"==\",\"cp1\"]]}",
              denied("chassis1", "row deletion from", "Chassis_Private"));
    /* ...but a delete matching nothing is fine. */
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"delete\",\"table\":\"Chassis_Private\","
              "\"where\":[[\"name\",\"==\",\"nobody\"]]}", COUNT(0));
    ovsdb_destroy(db);
}

/* Changes to the permissions apply to the next transaction. */
static void
test_changes_apply_at_once(void)
{
    struct ovsdb *db = create_secured_db();
    /* "" in authorization authorizes every row. */
    CHECK_TXN(db, NULL, NULL,
              "{\"op\":\"update\",\"table\":\"RBAC_Permission\","
              "\"where\":[[\"table\",\"==\",\"Chassis_Private\"]],"
              "\"row\":{\"authorization\":[\"set\",[\"\"]],"
              "\"insert_delete\":true}}", COUNT(1));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"insert\",\"table\":\"Chassis_Private\","
              "\"row\":{\"name\":\"cp7\"}}", OK_INSERT);
    /* An empty authorization set authorizes nothing. */
    CHECK_TXN(db, NULL, NULL,
              "{\"op\":\"update\",\"table\":\"RBAC_Permission\","
              "\"where\":[[\"table\",\"==\",\"Chassis_Private\"]],"
              "\"row\":{\"authorization\":[\"set\",[]]}}", COUNT(1));
    CHECK_TXN(db, ROLE, "chassis1",
              "{\"op\":\"insert\",\"table\":\"Chassis_Private\","
              "\"row\":{\"name\":\"cp8\"}}",
              denied("chassis1", "row insertion into", "Chassis_Private"));
    /* An unknown role may change nothing. */
    char *got = transact(db, "nosuchrole", "chassis1",
                         "{\"op\":\"insert\",\"table\":\"Chassis\","
                         "\"row\":{\"name\":\"chassis1\"}}");
    CHECK(strstr(got, "permission error") != NULL);
    CHECK(strstr(got, "role \\\"nosuchrole\\\"") != NULL);
    free(got);
    ovsdb_destroy(db);
}

/* Without an RBAC_Role table, roles mean nothing. */
static void
test_no_rbac_table(void)
{
    json_t *json = jsonx_from_string(
        "{\"name\":\"Secure\",\"tables\":{\"T\":{\"columns\":{"
        "\"name\":{\"type\":\"string\"}}}}}", NULL);
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(json, &schema);
    json_decref(json);
    CHECK(!error);
    struct ovsdb *db = ovsdb_create(schema);
    CHECK(!ovsdb_rbac_enabled(db, ROLE));
    CHECK_TXN(db, ROLE, NULL,
              "{\"op\":\"insert\",\"table\":\"T\",\"row\":{}}", OK_INSERT);
    ovsdb_destroy(db);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_enabled),
    CHECK_CASE(test_insert_delete),
    CHECK_CASE(test_update_mutate),
    CHECK_CASE(test_map_authorization),
    CHECK_CASE(test_changes_apply_at_once),
    CHECK_CASE(test_no_rbac_table),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-rbac", cases, ARRAY_SIZE(cases));
}
