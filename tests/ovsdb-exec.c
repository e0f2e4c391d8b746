/* tests/ovsdb-exec.c: runs transactions against a database in memory.
 *
 * Usage: ovsdb-exec [--db FILE] SCHEMA TRANSACTION...
 *        ovsdb-exec [--db FILE] SCHEMA -   (one transaction per line, stdin)
 *
 * Creates an empty database from SCHEMA, executes each TRANSACTION (the
 * params array of "transact") in order, commits each in memory, and prints
 * each reply on its own line, compact with sorted members, as "ovsdb-tool
 * transact" prints it.
 *
 * "ovsdb-exec --print-schema SCHEMA" prints the schema as get_schema
 * returns it (compact, sorted members).
 *
 * With --db FILE, first replays FILE (one ovsdb_record_from_txn() record per
 * line, as diffs) and appends each committed transaction's record to it:
 * a minimal storage, enough to run a sequence of separate invocations like
 * "ovsdb-tool transact" and to exercise record output and replay. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/format/record.h"
#include "ovsdb/engine/txn.h"

static FILE *db_file;

static void
fatal_error(struct ovsdb_error *error)
{
    char *s = ovsdb_error_to_string_free(error);
    ovs_fatal(0, "%s", s);
}

static void
load(struct ovsdb *db, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return;
    }
    struct ds line = DS_EMPTY_INITIALIZER;
    int c;
    for (;;) {
        ds_clear(&line);
        while ((c = getc(f)) != EOF && c != '\n') {
            ds_put_char(&line, c);
        }
        if (line.length) {
            char *msg;
            json_t *json = jsonx_from_string(ds_cstr(&line), &msg);
            if (!json) {
                ovs_fatal(0, "%s: %s", path, msg);
            }
            struct ovsdb_txn *txn;
            struct ovsdb_error *error = ovsdb_record_to_txn(db, json, true,
                                                            &txn);
            if (!error) {
                error = ovsdb_txn_precommit(txn);
                if (error) {
                    ovsdb_txn_abort(txn);
                }
            }
            if (error) {
                fatal_error(error);
            }
            ovsdb_txn_commit_finish(txn);
            json_decref(json);
        }
        if (c == EOF) {
            break;
        }
    }
    ds_destroy(&line);
    fclose(f);
}

static void
run(struct ovsdb *db, const char *s)
{
    char *msg;
    json_t *params = jsonx_from_string(s, &msg);
    if (!params) {
        ovs_fatal(0, "\"%s\": %s", s, msg);
    }

    bool durable;
    json_t *reply;
    struct ovsdb_txn *txn = ovsdb_execute_compose(db, params, false, NULL,
                                                  NULL, 0, NULL, &durable,
                                                  &reply);
    if (txn) {
        struct ovsdb_error *error = ovsdb_txn_precommit(txn);
        if (error) {
            ovsdb_execute_append_error(reply, error);
            ovsdb_txn_abort(txn);
        } else {
            json_t *record = ovsdb_record_from_txn(txn);
            if (record && db_file) {
                char *text = jsonx_to_string_sorted(record);
                fprintf(db_file, "%s\n", text);
                free(text);
            }
            json_decref(record);
            ovsdb_txn_commit_finish(txn);
        }
    }

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
    if (argc == 3 && !strcmp(argv[1], "--print-schema")) {
        struct ovsdb_schema *schema;
        struct ovsdb_error *error = ovsdb_schema_from_file(argv[2], &schema);
        if (error) {
            fatal_error(error);
        }
        json_t *json = ovsdb_schema_to_json(schema);
        char *s = jsonx_to_string_sorted(json);
        puts(s);
        free(s);
        json_decref(json);
        ovsdb_schema_destroy(schema);
        return 0;
    }

    const char *db_path = NULL;
    int i = 1;
    if (argc > 2 && !strcmp(argv[1], "--db")) {
        db_path = argv[2];
        i = 3;
    }
    if (i >= argc) {
        ovs_fatal(0, "usage: %s [--db FILE] SCHEMA TRANSACTION...", argv[0]);
    }

    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_file(argv[i++], &schema);
    if (error) {
        fatal_error(error);
    }
    struct ovsdb *db = ovsdb_create(schema);
    if (db_path) {
        load(db, db_path);
        db_file = fopen(db_path, "a");
        if (!db_file) {
            ovs_fatal(errno, "%s: open failed", db_path);
        }
    }

    for (; i < argc; i++) {
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
    if (db_file) {
        fclose(db_file);
    }
    ovsdb_destroy(db);
    return 0;
}
