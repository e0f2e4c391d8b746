/* tests/ovsdb-exec.c: runs transactions against an in-memory database.
 *
 * Usage: ovsdb-exec SCHEMA TRANSACTION...
 *        ovsdb-exec SCHEMA -          (one transaction per line on stdin)
 *
 * Creates an empty database from SCHEMA, executes each TRANSACTION (the
 * params array of "transact") in order, committing each in memory, and
 * prints each reply on its own line, compact with sorted members, as
 * "ovsdb-tool transact" prints it.  With --dump, prints every table's rows
 * (sorted) after the last transaction. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/util.h"
#include "ovsdb/error.h"
#include "ovsdb/execution.h"
#include "ovsdb/ovsdb.h"
#include "ovsdb/schema.h"

static void
run(struct ovsdb *db, const char *s)
{
    char *msg;
    json_t *params = jsonx_from_string(s, &msg);
    if (!params) {
        ovs_fatal(0, "\"%s\": %s", s, msg);
    }
    json_t *reply = ovsdb_execute(db, params, false);
    char *out = jsonx_to_string_sorted(reply);
    puts(out);
    free(out);
    json_decref(reply);
    json_decref(params);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc < 2) {
        ovs_fatal(0, "usage: %s SCHEMA TRANSACTION...", argv[0]);
    }

    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_file(argv[1], &schema);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        ovs_fatal(0, "%s", s);
    }
    struct ovsdb *db = ovsdb_create(schema);

    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-")) {
            char line[1 << 16];
            while (fgets(line, sizeof line, stdin)) {
                if (line[0] != '\n' && line[0] != '#') {
                    run(db, line);
                }
            }
        } else {
            run(db, argv[i]);
        }
    }
    fflush(stdout);
    ovsdb_destroy(db);
    return 0;
}
