/* ovsdb/ovsdb-tool.c: offline database management, as the reference's
 * ovsdb-tool: create, compact, convert, query, transact, show-log and the
 * db-* and schema-* reports.  Same arguments, defaults, output and exit
 * codes (0 success, 1 error, 2 "false" for compare-versions and
 * db-is-clustered).
 *
 * Defaults, as the reference's: DB is $OVS_DBDIR/conf.db (or
 * /etc/openvswitch/conf.db), SCHEMA is $OVS_PKGDATADIR/vswitch.ovsschema
 * (or /usr/share/openvswitch/vswitch.ovsschema). */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "ovsdb/datum.h"
#include "ovsdb/error.h"
#include "ovsdb/execution.h"
#include "ovsdb/file.h"
#include "ovsdb/log.h"
#include "ovsdb/ovsdb.h"
#include "ovsdb/schema.h"
#include "ovsdb/txn.h"
#include "ovsdb/version.h"

static int show_log_verbosity;

static char *
default_db(void)
{
    return xasprintf("%s/conf.db", dirs_dbdir());
}

static char *
default_schema(void)
{
    return xasprintf("%s/vswitch.ovsschema", dirs_pkgdatadir());
}

/* Exits with "ovsdb-tool: ERROR" if 'error' is nonnull. */
static void
check(struct ovsdb_error *error)
{
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        ovs_fatal(0, "%s", s);
    }
}

/* Returns argument 'i' of 'argv' ('argc' long) or a new copy of the
 * default; caller must free with free(). */
static char *
arg_or(int argc, char *argv[], int i, char *(*dflt)(void))
{
    return i < argc ? xstrdup(argv[i]) : dflt();
}

static json_t *
parse_json(const char *s)
{
    char *msg;
    json_t *json = jsonx_from_string(s, &msg);
    if (!json) {
        ovs_fatal(0, "%s", msg);
    }
    return json;
}

static void
print_json(const json_t *json)
{
    char *s = jsonx_to_string_sorted(json);
    puts(s);
    free(s);
}

/* ---------------------------------------------------------------------
 * Commands. */

static void
do_create(int argc, char *argv[])
{
    char *db = arg_or(argc, argv, 1, default_db);
    char *schema_file = arg_or(argc, argv, 2, default_schema);
    struct ovsdb_schema *schema;
    check(ovsdb_schema_from_file(schema_file, &schema));
    check(ovsdb_file_create(db, schema, NULL, NULL, NULL));
    ovsdb_schema_destroy(schema);
    free(schema_file);
    free(db);
}

static struct ovsdb_schema *
read_db_schema(int argc, char *argv[])
{
    char *db = arg_or(argc, argv, 1, default_db);
    struct ovsdb_schema *schema;
    check(ovsdb_file_read_schema(db, &schema));
    free(db);
    return schema;
}

static struct ovsdb_schema *
read_schema_file(int argc, char *argv[], int i)
{
    char *file = arg_or(argc, argv, i, default_schema);
    struct ovsdb_schema *schema;
    check(ovsdb_schema_from_file(file, &schema));
    free(file);
    return schema;
}

enum report { REPORT_NAME, REPORT_VERSION, REPORT_CKSUM };

static void
print_report(struct ovsdb_schema *schema, enum report what)
{
    puts(what == REPORT_NAME ? schema->name
         : what == REPORT_VERSION ? schema->version
         : schema->cksum ? schema->cksum : "");
    ovsdb_schema_destroy(schema);
}

static void
do_db_name(int argc, char *argv[])
{
    print_report(read_db_schema(argc, argv), REPORT_NAME);
}

static void
do_db_version(int argc, char *argv[])
{
    print_report(read_db_schema(argc, argv), REPORT_VERSION);
}

static void
do_db_cksum(int argc, char *argv[])
{
    print_report(read_db_schema(argc, argv), REPORT_CKSUM);
}

static void
do_schema_name(int argc, char *argv[])
{
    print_report(read_schema_file(argc, argv, 1), REPORT_NAME);
}

static void
do_schema_version(int argc, char *argv[])
{
    print_report(read_schema_file(argc, argv, 1), REPORT_VERSION);
}

static void
do_schema_cksum(int argc, char *argv[])
{
    print_report(read_schema_file(argc, argv, 1), REPORT_CKSUM);
}

static void
do_db_is_standalone(int argc, char *argv[])
{
    /* Only standalone files open; a clustered one is an error. */
    ovsdb_schema_destroy(read_db_schema(argc, argv));
}

static void
do_db_is_clustered(int argc, char *argv[])
{
    ovsdb_schema_destroy(read_db_schema(argc, argv));
    exit(2);
}

static void
parse_version(const char *s, int v[3])
{
    if (!ovsdb_parse_version(s, &v[0], &v[1], &v[2])) {
        ovs_fatal(0, "%s: not an OVSDB version number in format x.y.z", s);
    }
}

static void
do_compare_versions(int argc, char *argv[])
{
    int a[3], b[3];
    parse_version(argv[1], a);
    parse_version(argv[3], b);
    int cmp = 0;
    for (int i = 0; i < 3 && !cmp; i++) {
        cmp = a[i] < b[i] ? -1 : a[i] > b[i];
    }
    const char *op = argv[2];
    bool result;
    if (!strcmp(op, "<")) {
        result = cmp < 0;
    } else if (!strcmp(op, "<=")) {
        result = cmp <= 0;
    } else if (!strcmp(op, "==")) {
        result = cmp == 0;
    } else if (!strcmp(op, ">=")) {
        result = cmp >= 0;
    } else if (!strcmp(op, ">")) {
        result = cmp > 0;
    } else if (!strcmp(op, "!=")) {
        result = cmp != 0;
    } else {
        ovs_fatal(0, "%s: not a relational operator", op);
    }
    exit(result ? 0 : 2);
}

static void
do_needs_conversion(int argc, char *argv[])
{
    struct ovsdb_schema *db_schema = read_db_schema(argc, argv);
    struct ovsdb_schema *schema = read_schema_file(argc, argv, 2);
    puts(ovsdb_schema_equals(db_schema, schema) ? "no" : "yes");
    ovsdb_schema_destroy(db_schema);
    ovsdb_schema_destroy(schema);
}

/* Runs transaction 'params' on 'db' (its operations may be freed as they
 * run).  Returns the reply; new reference.  If
 * 'log' is nonnull the changes are written (and fsynced) to it. */
static json_t *
run_transaction(struct ovsdb *db, json_t *params, struct ovsdb_log *log)
{
    bool durable;
    json_t *result;
    /* No 'timeout_msec': nobody could retry an unsatisfied "wait", which
     * then fails with "not supported", as in the reference. */
    struct ovsdb_txn *txn = ovsdb_execute_compose(db, params, false, NULL,
                                                  NULL, 0, NULL, &durable,
                                                  &result);
    if (!txn) {
        return result;
    }
    struct ovsdb_error *error = ovsdb_txn_precommit(txn);
    if (error) {
        ovsdb_execute_append_error(result, error);
        ovsdb_txn_abort(txn);
        return result;
    }
    if (log) {
        struct ds rec = DS_EMPTY_INITIALIZER;
        if (ovsdb_file_put_txn_record(&rec, txn)) {
            error = ovsdb_log_write_text(log, rec.string, rec.length);
            if (!error) {
                error = ovsdb_log_commit_block(log);
            }
            if (error) {
                ovsdb_txn_abort(txn);
                check(error);
            }
        }
        ds_destroy(&rec);
    }
    ovsdb_txn_commit_finish(txn);
    return result;
}

static void
transact(int argc, char *argv[], bool read_only)
{
    char *path = argc > 2 ? xstrdup(argv[1]) : default_db();
    json_t *params = parse_json(argv[argc - 1]);
    struct ovsdb *db;
    struct ovsdb_log *log = NULL;
    check(ovsdb_file_open(path, &db, read_only ? NULL : &log, NULL));
    json_t *result = run_transaction(db, params, log);
    print_json(result);
    json_decref(result);
    json_decref(params);
    ovsdb_log_close(log);
    ovsdb_destroy(db);
    free(path);
}

static void
do_query(int argc, char *argv[])
{
    transact(argc, argv, true);
}

static void
do_transact(int argc, char *argv[])
{
    transact(argc, argv, false);
}

/* Writes 'db' to 'target' (a new file) or, if 'target' is NULL, over
 * 'log''s file. */
static void
write_db(struct ovsdb_log *log, const char *target, const struct ovsdb *db,
         const char *comment)
{
    if (target) {
        check(ovsdb_file_create(target, NULL, db, comment, NULL));
        return;
    }
    struct ovsdb_log *new;
    check(ovsdb_log_replace_start(log, &new));
    struct ovsdb_error *error = ovsdb_file_write_snapshot(new, db, comment);
    if (error) {
        ovsdb_log_replace_abort(new);
        check(error);
    }
    check(ovsdb_log_replace_commit(log, new));
}

static void
do_compact(int argc, char *argv[])
{
    char *path = arg_or(argc, argv, 1, default_db);
    const char *target = argc > 2 ? argv[2] : NULL;
    struct ovsdb *db;
    struct ovsdb_log *log = NULL;
    check(ovsdb_file_open(path, &db, target ? NULL : &log, NULL));
    char *comment = xasprintf("compacted by ovsdb-tool %s", PACKAGE_VERSION);
    write_db(log, target, db, comment);
    free(comment);
    ovsdb_log_close(log);
    ovsdb_destroy(db);
    free(path);
}

static void
do_convert(int argc, char *argv[])
{
    char *path = arg_or(argc, argv, 1, default_db);
    struct ovsdb_schema *schema = read_schema_file(argc, argv, 2);
    const char *target = argc > 3 ? argv[3] : NULL;
    struct ovsdb *db, *new_db;
    struct ovsdb_log *log = NULL;
    check(ovsdb_file_open(path, &db, target ? NULL : &log, NULL));
    check(ovsdb_file_convert(db, schema, &new_db));
    char *comment = xasprintf("converted by ovsdb-tool %s", PACKAGE_VERSION);
    write_db(log, target, new_db, comment);
    free(comment);
    ovsdb_log_close(log);
    ovsdb_destroy(new_db);
    ovsdb_destroy(db);
    ovsdb_schema_destroy(schema);
    free(path);
}

/* show-log. */

struct row_name {
    struct hmap_node node;
    char uuid[UUID_LEN + 1];
    char *name;
};

static struct row_name *
find_name(struct hmap *names, const char *uuid)
{
    struct row_name *rn;
    HMAP_FOR_EACH_WITH_HASH (rn, node, hash_string(uuid, 0), names) {
        if (!strcmp(rn->uuid, uuid)) {
            return rn;
        }
    }
    return NULL;
}

static void
print_value(const struct ovsdb_table_schema *ts, const char *column,
            const json_t *value, bool is_diff)
{
    const struct ovsdb_column *c = ts ? ovsdb_table_schema_find_column(
        ts, column) : NULL;
    struct ds s = DS_EMPTY_INITIALIZER;
    struct ovsdb_datum d;
    struct ovsdb_error *error = !c ? ovsdb_error(OVSDB_E_SYNTAX, NULL)
        : is_diff ? ovsdb_datum_from_json_unbounded(&d, &c->type, value,
                                                     NULL)
        : ovsdb_datum_from_json(&d, &c->type, value, NULL);
    if (error) {
        ovsdb_error_destroy(error);
        jsonx_put(&s, value);
    } else {
        ovsdb_datum_to_string(&d, &c->type, &s);
        ovsdb_datum_destroy(&d, &c->type);
    }
    printf("    %s=%s\n", column, ds_cstr(&s));
    ds_destroy(&s);
}

static void
print_changes(const json_t *rec, struct hmap *names,
              const struct ovsdb_schema *schema)
{
    bool is_diff = json_is_true(json_object_get(rec, "_is_diff"));
    const char *table;
    json_t *rows;
    json_object_foreach ((json_t *) rec, table, rows) {
        if (table[0] == '_') {
            continue;
        }
        if (!json_is_object(rows)) {
            printf("  ****: bad table\n");
            continue;
        }
        const struct ovsdb_table_schema *ts
            = ovsdb_schema_find_table(schema, table);
        const char *uuid;
        json_t *cols;
        json_object_foreach (rows, uuid, cols) {
            struct row_name *rn = find_name(names, uuid);
            char *new_name = NULL;
            json_t *name = json_object_get(cols, "name");
            if (name) {
                new_name = jsonx_to_string_sorted(name);
            }
            printf("  table %s", table);
            if (!rn) {
                if (new_name) {
                    printf(" insert row %s (%.8s):\n", new_name, uuid);
                } else {
                    printf(" insert row %.8s:\n", uuid);
                }
            } else {
                printf(" row %s (%.8s)%s:\n", rn->name, uuid,
                       is_diff ? " diff" : "");
            }
            if (json_is_object(cols)) {
                if (show_log_verbosity > 1) {
                    const char *column;
                    json_t *value;
                    json_object_foreach (cols, column, value) {
                        print_value(ts, column, value, is_diff);
                    }
                }
                if (!rn) {
                    rn = xzalloc(sizeof *rn);
                    snprintf(rn->uuid, sizeof rn->uuid, "%s", uuid);
                    rn->name = new_name ? new_name
                                        : xasprintf("%.8s", uuid);
                    new_name = NULL;
                    hmap_insert(names, &rn->node, hash_string(uuid, 0));
                } else if (new_name) {
                    free(rn->name);
                    rn->name = new_name;
                    new_name = NULL;
                }
            } else if (json_is_null(cols)) {
                printf("    delete row\n");
                if (rn) {
                    hmap_remove(names, &rn->node);
                    free(rn->name);
                    free(rn);
                }
            }
            free(new_name);
        }
    }
}

static void
print_date(long long msec)
{
    if (msec < INT32_MAX) {
        msec *= 1000;           /* Old files stored seconds. */
    }
    time_t t = msec / 1000;
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[64];
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    printf(" %s.%03lld", buf, msec % 1000);
}

static void
do_show_log(int argc, char *argv[])
{
    char *path = arg_or(argc, argv, 1, default_db);
    struct ovsdb_log *log;
    check(ovsdb_log_open(path, OVSDB_LOG_READ_ONLY, &log));
    struct ovsdb_schema *schema = NULL;
    struct hmap names = HMAP_INITIALIZER(&names);
    struct ovsdb_error *error = NULL;
    for (unsigned int i = 0;; i++) {
        json_t *json;
        error = ovsdb_log_read(log, &json);
        if (error || !json) {
            break;
        }
        printf("record %u:", i);
        if (i == 0) {
            check(ovsdb_schema_from_json(json, &schema));
            printf(" \"%s\" schema, version=\"%s\", cksum=\"%s\"\n",
                   schema->name, schema->version,
                   schema->cksum ? schema->cksum : "");
        } else if (json_is_object(json)) {
            json_t *date = json_object_get(json, "_date");
            if (json_is_integer(date)) {
                print_date(json_integer_value(date));
            }
            json_t *comment = json_object_get(json, "_comment");
            if (json_is_string(comment)) {
                printf(" \"%s\"", json_string_value(comment));
            }
            if (show_log_verbosity > 0) {
                putchar('\n');
                print_changes(json, &names, schema);
            }
        }
        putchar('\n');
        json_decref(json);
    }
    fflush(stdout);

    /* Not HMAP_FOR_EACH_POP, which rescans the buckets for every row. */
    struct row_name *rn, *next;
    HMAP_FOR_EACH_SAFE (rn, next, node, &names) {
        free(rn->name);
        free(rn);
    }
    hmap_destroy(&names);
    ovsdb_schema_destroy(schema);
    ovsdb_log_close(log);
    free(path);
    check(error);
}

static noreturn void
usage(void)
{
    printf("%s: Open vSwitch database management utility\n"
           "usage: %s [OPTIONS] COMMAND [ARG...]\n"
           "  create [DB [SCHEMA]]    create DB with the given SCHEMA\n"
           "  compact [DB [DST]]      compact DB in-place (or to DST)\n"
           "  convert [DB [SCHEMA [DST]]]   convert DB to SCHEMA (to DST)\n"
           "  db-name [DB]            report name of schema used by DB\n"
           "  db-version [DB]         report version of schema used by DB\n"
           "  db-cksum [DB]           report checksum of schema used by DB\n"
           "  db-is-clustered DB      test whether DB is clustered\n"
           "  db-is-standalone DB     test whether DB is standalone\n"
           "  schema-name [SCHEMA]    report SCHEMA's name\n"
           "  schema-version [SCHEMA] report SCHEMA's schema version\n"
           "  schema-cksum [SCHEMA]   report SCHEMA's checksum\n"
           "  needs-conversion [DB [SCHEMA]]  does DB need conversion to "
           "SCHEMA?\n"
           "  compare-versions A OP B  compare OVSDB schema version "
           "numbers\n"
           "  query [DB] TRNS         execute read-only transaction on DB\n"
           "  transact [DB] TRNS      execute read/write transaction on DB\n"
           "  [-m]... show-log [DB]   print DB's log entries\n"
           "The default DB is %s/conf.db.\n"
           "The default SCHEMA is %s/vswitch.ovsschema.\n"
           "\nOther options:\n"
           "  -m, --more                  increase show-log verbosity\n"
           "  --rbac-role=ROLE            accepted; query and transact on "
           "a file\n"
           "                              are not subject to RBAC\n"
           "  -v, --verbose[=SPEC], --log-file[=FILE]\n"
           "                              accepted; this tool logs nothing\n"
           "  -o, --option                list the options and exit\n"
           "  -h, --help                  display this help message\n"
           "  -V, --version               display version information\n",
           program_name(), program_name(), dirs_dbdir(),
           dirs_pkgdatadir());
    exit(0);
}

/* -o: one line per option, in the reference's format ("--name=ARG",
 * "-n ARG", with "[ARG]" for an optional argument). */
static void
print_options(const struct option *options, const char *short_options)
{
    static const char *args[] = {"", "=ARG", "=[ARG]"};
    static const char *short_args[] = {" ", " ARG", " [ARG]"};
    for (const struct option *o = options; o->name; o++) {
        printf("--%s%s\n", o->name, args[o->has_arg]);
        if (o->val > 0 && o->val < 128 && strchr(short_options, o->val)) {
            printf("-%c%s\n", o->val, short_args[o->has_arg]);
        }
    }
}

struct command {
    const char *name;
    int min_args, max_args;
    void (*handler)(int argc, char *argv[]);
};

static const struct command commands[] = {
    { "create", 0, 2, do_create },
    { "compact", 0, 2, do_compact },
    { "convert", 0, 3, do_convert },
    { "needs-conversion", 0, 2, do_needs_conversion },
    { "db-name", 0, 1, do_db_name },
    { "db-version", 0, 1, do_db_version },
    { "db-cksum", 0, 1, do_db_cksum },
    { "db-is-clustered", 1, 1, do_db_is_clustered },
    { "db-is-standalone", 1, 1, do_db_is_standalone },
    { "schema-name", 0, 1, do_schema_name },
    { "schema-version", 0, 1, do_schema_version },
    { "schema-cksum", 0, 1, do_schema_cksum },
    { "query", 1, 2, do_query },
    { "transact", 1, 2, do_transact },
    { "show-log", 0, 1, do_show_log },
    { "compare-versions", 3, 3, do_compare_versions },
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    static const struct option long_options[] = {
        { "more", no_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { "verbose", optional_argument, NULL, 'v' },
        { "log-file", optional_argument, NULL, 'L' },
        { "rbac-role", required_argument, NULL, 'R' },
        { "option", no_argument, NULL, 'o' },
        { NULL, 0, NULL, 0 },
    };
    for (;;) {
        int c = getopt_long(argc, argv, "mhVv::o", long_options, NULL);
        if (c == -1) {
            break;
        }
        switch (c) {
        case 'm':
            show_log_verbosity++;
            break;
        case 'h':
            usage();
        case 'V':
            ovsdb_print_version();
            return 0;
        case 'o':
            print_options(long_options, "mhVv::o");
            return 0;
        case 'v':
        case 'L':
        case 'R':
            /* Accepted for compatibility; this tool logs nothing. */
            break;
        default:
            exit(EXIT_FAILURE);
        }
    }
    argc -= optind;
    argv += optind;
    if (argc < 1) {
        ovs_fatal(0, "missing command name; use --help for help");
    }
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        const struct command *cmd = &commands[i];
        if (strcmp(cmd->name, argv[0])) {
            continue;
        }
        int n = argc - 1;
        if (n < cmd->min_args) {
            ovs_fatal(0, "'%s' command requires at least %d arguments",
                      cmd->name, cmd->min_args);
        } else if (n > cmd->max_args) {
            ovs_fatal(0, "'%s' command takes at most %d arguments",
                      cmd->name, cmd->max_args);
        }
        cmd->handler(argc, argv);
        return 0;
    }
    ovs_fatal(0, "unknown command '%s'; use --help for help", argv[0]);
}
