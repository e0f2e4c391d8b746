/* ovsdb/tool/ovsdb-tool.c: offline database management, as the reference's
 * ovsdb-tool: create, compact, convert, query, transact, show-log and the
 * db-* and schema-* reports.  Same arguments, defaults, output and exit
 * codes (0 success, 1 error, 2 "false" for compare-versions,
 * db-is-clustered and db-is-standalone, 2 for db-cid when the cluster id is
 * not known yet).  Clustered files: create-cluster, join-cluster, db-cid,
 * db-sid, db-local-address, db-name, show-log, check-cluster and
 * cluster-to-standalone; the other commands refuse them as the reference
 * does ("cannot apply this operation to clustered database file").
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
#include <inttypes.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/json-util.h"
#include "lib/progress.h"
#include "lib/vlog.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/format/file.h"
#include "ovsdb/format/log.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/parser.h"
#include "ovsdb/format/raft-record.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/format/record.h"
#include "ovsdb/tool/tool-check-cluster.h"
#include "ovsdb/engine/txn.h"
#include "lib/version.h"

VLOG_MODULE(ovsdb);

static int show_log_verbosity;

/* --cid: the cluster to join ("join-cluster"); zero for any. */
static struct uuid cid;

/* --election-timer: for "create-cluster"; 0 for the default. */
static uint64_t election_timer;

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

/* Opens 'path' read-only, either kind.  Caller must free with
 * ovsdb_log_close(). */
static struct ovsdb_log *
open_any(const char *path)
{
    struct ovsdb_log *log;
    check(ovsdb_log_open_kind(path, OVSDB_LOG_READ_ONLY, OVSDB_LOG_ANY,
                              &log));
    return log;
}

/* Reads the header of clustered 'log' into '*h' (caller must free with
 * raft_header_destroy()); exits on error. */
static void
read_cluster_header(struct ovsdb_log *log, struct raft_header *h)
{
    json_t *json;
    check(ovsdb_log_read(log, &json));
    check(raft_header_from_json(h, json));
    json_decref(json);
}

static void
do_db_name(int argc, char *argv[])
{
    char *db = arg_or(argc, argv, 1, default_db);
    struct ovsdb_log *log = open_any(db);
    if (ovsdb_log_get_kind(log) == OVSDB_LOG_CLUSTERED) {
        struct raft_header h;
        read_cluster_header(log, &h);
        puts(h.name);
        raft_header_destroy(&h);
        ovsdb_log_close(log);
    } else {
        ovsdb_log_close(log);
        print_report(read_db_schema(argc, argv), REPORT_NAME);
    }
    free(db);
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
db_has_kind(const char *path, enum ovsdb_log_kind kind)
{
    struct ovsdb_log *log = open_any(path);
    bool same = ovsdb_log_get_kind(log) == kind;
    ovsdb_log_close(log);
    if (!same) {
        exit(2);
    }
}

static void
do_db_is_standalone(int argc OVS_UNUSED, char *argv[])
{
    db_has_kind(argv[1], OVSDB_LOG_STANDALONE);
}

static void
do_db_is_clustered(int argc OVS_UNUSED, char *argv[])
{
    db_has_kind(argv[1], OVSDB_LOG_CLUSTERED);
}

/* Reads the header of clustered database 'path' into '*h' (caller must
 * free with raft_header_destroy()). */
static void
read_cluster_metadata(const char *path, struct raft_header *h)
{
    struct ovsdb_log *log = open_any(path);
    if (ovsdb_log_get_kind(log) != OVSDB_LOG_CLUSTERED) {
        ovs_fatal(0, "%s: not a clustered database", path);
    }
    read_cluster_header(log, h);
    ovsdb_log_close(log);
}

static void
do_db_cid(int argc OVS_UNUSED, char *argv[])
{
    struct raft_header h;
    read_cluster_metadata(argv[1], &h);
    if (uuid_is_zero(&h.cid)) {
        fprintf(stderr, "%s: cluster ID not yet known\n", argv[1]);
        exit(2);
    }
    printf(UUID_FMT"\n", UUID_ARGS(&h.cid));
    raft_header_destroy(&h);
}

static void
do_db_sid(int argc OVS_UNUSED, char *argv[])
{
    struct raft_header h;
    read_cluster_metadata(argv[1], &h);
    printf(UUID_FMT"\n", UUID_ARGS(&h.sid));
    raft_header_destroy(&h);
}

static void
do_db_local_address(int argc OVS_UNUSED, char *argv[])
{
    struct raft_header h;
    read_cluster_metadata(argv[1], &h);
    puts(h.local_address);
    raft_header_destroy(&h);
}

/* Makes the ephemeral columns of 'schema' persistent, as the reference
 * does for a cluster (which keeps no ephemeral columns), and says so. */
static void
persist_ephemeral_columns(struct ovsdb_schema *schema, const char *file)
{
    char *warning = ovsdb_schema_persist_ephemeral_columns(schema, file);
    if (warning) {
        VLOG_WARN("%s", warning);
        free(warning);
    }
}

static void
do_create_cluster(int argc OVS_UNUSED, char *argv[])
{
    const char *db_file = argv[1];
    const char *src_file = argv[2];
    const char *local = argv[3];

    /* A schema, or else a standalone database to take the contents of. */
    struct ovsdb_schema *schema;
    struct ovsdb *db = NULL;
    struct ovsdb_error *error = ovsdb_schema_from_file(src_file, &schema);
    if (error) {
        ovsdb_error_destroy(error);
        check(ovsdb_file_open(src_file, &db, NULL, NULL));
        schema = ovsdb_schema_clone(ovsdb_get_schema(db));
    }
    struct ds contents = DS_EMPTY_INITIALIZER;
    if (db) {
        char *comment = xasprintf("created from %s", src_file);
        ovsdb_file_put_snapshot(&contents, db, comment);
        free(comment);
        ovsdb_destroy(db);
    } else {
        ds_put_cstr(&contents, "{}");
    }

    persist_ephemeral_columns(schema, src_file);
    json_t *schema_json = ovsdb_schema_to_json(schema);
    struct ds data = DS_EMPTY_INITIALIZER;
    ds_put_char(&data, '[');
    raft_data_put_json(&data, schema_json);
    ds_put_char(&data, ',');
    ds_put_buffer(&data, contents.string, contents.length);
    ds_put_char(&data, ']');
    ds_destroy(&contents);
    json_decref(schema_json);

    check(cluster_file_create(db_file, schema->name, local, data.string,
                              data.length, election_timer, NULL, NULL));
    ds_destroy(&data);
    ovsdb_schema_destroy(schema);
}

static void
do_join_cluster(int argc, char *argv[])
{
    const char *db_file = argv[1];
    const char *name = argv[2];
    const char *local = argv[3];
    if (!ovsdb_parser_is_id(name)) {
        ovs_fatal(0, "%s: not a valid schema name (use \"schema-name\" "
                  "command to find the correct name)", name);
    }
    check(cluster_file_create_joining(db_file, name, local, &argv[4],
                                      argc - 4,
                                      uuid_is_zero(&cid) ? NULL : &cid,
                                      NULL));
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
        if (ovsdb_record_put_txn(&rec, txn)) {
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
    progress_enable("compact");
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
    progress_enable("convert");
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

/* Returns the member names of object 'json' in the order the reference
 * visits the members of that object read from a file (a hash map filled
 * in file order), and their number in '*np'.  Names are borrowed; caller
 * must free the array with free(). */
static const char **
keys_in_reference_order(const json_t *json, size_t *np)
{
    size_t n = json_object_size(json);
    struct hmap_node *nodes = xmalloc((n + 1) * sizeof *nodes);
    const char **names = xmalloc((n + 1) * sizeof *names);
    struct hmap map = HMAP_INITIALIZER(&map);
    const char *key;
    json_t *value;
    size_t i = 0;
    json_object_foreach ((json_t *) json, key, value) {
        names[i] = key;
        hmap_insert(&map, &nodes[i], hash_string(key, 0));
        i++;
    }
    const char **order = xmalloc((n + 1) * sizeof *order);
    i = 0;
    for (struct hmap_node *node = hmap_first(&map); node;
         node = hmap_next(&map, node)) {
        order[i++] = names[node - nodes];
    }
    hmap_destroy(&map);
    free(names);
    free(nodes);
    *np = n;
    return order;
}

static void
print_changes(const json_t *rec, struct hmap *names,
              const struct ovsdb_schema *schema)
{
    bool is_diff = json_is_true(json_object_get(rec, "_is_diff"));
    size_t n_tables;
    const char **tables = keys_in_reference_order(rec, &n_tables);
    int n_printed = 0;
    for (size_t t = 0; t < n_tables; t++) {
        const char *table = tables[t];
        const json_t *rows = json_object_get(rec, table);
        if (table[0] == '_' || !json_is_object(rows)) {
            continue;
        }
        if (!n_printed++) {
            putchar('\n');
        }
        const struct ovsdb_table_schema *ts
            = schema ? ovsdb_schema_find_table(schema, table) : NULL;
        size_t n_rows;
        const char **uuids = keys_in_reference_order(rows, &n_rows);
        for (size_t r = 0; r < n_rows; r++) {
            const char *uuid = uuids[r];
            const json_t *cols = json_object_get(rows, uuid);
            struct row_name *rn = find_name(names, uuid);
            char *new_name = NULL;
            json_t *name = jsonx_object_get(cols, "name");
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
                    size_t n_cols;
                    const char **columns = keys_in_reference_order(cols,
                                                                   &n_cols);
                    for (size_t c = 0; c < n_cols; c++) {
                        print_value(ts, columns[c],
                                    json_object_get(cols, columns[c]),
                                    is_diff);
                    }
                    free(columns);
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
        free(uuids);
    }
    free(tables);
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

/* Prints the date, comment and (with -m) changes of transaction record
 * 'json', as the reference's show-log. */
static void
print_change_record(const json_t *json, struct hmap *names,
                    const struct ovsdb_schema *schema)
{
    if (!json_is_object(json)) {
        return;
    }
    json_t *date = json_object_get(json, "_date");
    if (json_is_integer(date)) {
        print_date(json_integer_value(date));
    }
    json_t *comment = json_object_get(json, "_comment");
    if (json_is_string(comment)) {
        printf(" \"%s\"", json_string_value(comment));
    }
    if (show_log_verbosity > 0) {
        print_changes(json, names, schema);
    }
}

static void
free_names(struct hmap *names)
{
    /* Not HMAP_FOR_EACH_POP, which rescans the buckets for every row. */
    struct row_name *rn, *next;
    HMAP_FOR_EACH_SAFE (rn, next, node, names) {
        free(rn->name);
        free(rn);
    }
    hmap_destroy(names);
}

/* Prints record 'i' of a standalone file. */
static void
show_standalone_record(unsigned int i, const json_t *json,
                       struct ovsdb_schema **schemap, struct hmap *names)
{
    printf("record %u:", i);
    if (i == 0) {
        check(ovsdb_schema_from_json(json, schemap));
        const struct ovsdb_schema *schema = *schemap;
        printf(" \"%s\" schema, version=\"%s\", cksum=\"%s\"\n",
               schema->name, schema->version,
               schema->cksum ? schema->cksum : "");
    } else {
        print_change_record(json, names, *schemap);
    }
}

/* Prints " NAME: " and 'servers' (borrowed, may be NULL), sorted. */
static void
print_servers(const char *name, const json_t *servers)
{
    if (!servers) {
        return;
    }
    printf(" %s: ", name);
    size_t n;
    const char **sids = jsonx_sorted_keys(servers, &n);
    for (size_t i = 0; i < n; i++) {
        char *address = jsonx_to_string_sorted(json_object_get(servers,
                                                               sids[i]));
        printf("%s%.4s(%s)", i ? ", " : "", sids[i], address);
        free(address);
    }
    free(sids);
    putchar('\n');
}

/* Prints DATA 'data' (may be NULL): its schema (which becomes '*schemap')
 * and its transaction. */
static void
print_data(const char *prefix, const json_t *data,
           struct ovsdb_schema **schemap, struct hmap *names)
{
    if (!data) {
        return;
    }
    if (!json_is_array(data) || json_array_size(data) != 2) {
        printf(" ***invalid data***\n");
        return;
    }
    const json_t *schema_json = json_array_get(data, 0);
    if (!json_is_null(schema_json)) {
        struct ovsdb_schema *schema;
        check(ovsdb_schema_from_json(schema_json, &schema));
        printf(" %sschema: \"%s\", version=\"%s\", cksum=\"%s\"\n",
               prefix, schema->name, schema->version,
               schema->cksum ? schema->cksum : "");
        ovsdb_schema_destroy(*schemap);
        *schemap = schema;
    }
    print_change_record(json_array_get(data, 1), names, *schemap);
}

static void
print_raft_header(const struct raft_header *h,
                  struct ovsdb_schema **schemap, struct hmap *names)
{
    /* Sic: the reference closes the name with a single quote. */
    printf(" name: \"%s'\n", h->name);
    printf(" local address: \"%s\"\n", h->local_address);
    printf(" server_id: "RAFT_SID_FMT"\n", RAFT_SID_ARGS(&h->sid));
    if (!uuid_is_zero(&h->cid)) {
        printf(" cluster_id: "RAFT_SID_FMT"\n", RAFT_SID_ARGS(&h->cid));
    }
    if (h->n_remote_addresses) {
        printf(" remote_addresses:");
        size_t *order = xmalloc(h->n_remote_addresses * sizeof *order);
        raft_addresses_order(h->remote_addresses, h->n_remote_addresses,
                             0, order);
        for (size_t i = 0; i < h->n_remote_addresses; i++) {
            printf(" %s", h->remote_addresses[order[i]]);
        }
        free(order);
        putchar('\n');
    }
    if (h->snap_index) {
        printf(" prev_index: %"PRIu64"\n", h->snap_index);
        printf(" prev_term: %"PRIu64"\n", h->snap.term);
        print_servers("prev_servers", h->snap.servers);
        if (!uuid_is_zero(&h->snap.eid)) {
            printf(" prev_eid: "RAFT_SID_FMT"\n",
                   RAFT_SID_ARGS(&h->snap.eid));
        }
        print_data("prev_", h->snap.data, schemap, names);
    }
}

static void
print_raft_record(const struct raft_record *r,
                  struct ovsdb_schema **schemap, struct hmap *names)
{
    if (r->comment) {
        printf(" comment: \"%s\"\n", r->comment);
    }
    if (r->term) {
        printf(" term: %"PRIu64"\n", r->term);
    }
    switch (r->type) {
    case RAFT_REC_ENTRY:
        printf(" index: %"PRIu64"\n", r->entry.index);
        print_servers("servers", r->entry.e.servers);
        if (!uuid_is_zero(&r->entry.e.eid)) {
            printf(" eid: "RAFT_SID_FMT"\n", RAFT_SID_ARGS(&r->entry.e.eid));
        }
        print_data("", r->entry.e.data, schemap, names);
        break;
    case RAFT_REC_TERM:
        break;
    case RAFT_REC_VOTE:
        printf(" vote: "RAFT_SID_FMT"\n", RAFT_SID_ARGS(&r->sid));
        break;
    case RAFT_REC_NOTE:
        printf(" note: \"%s\"\n", r->note);
        break;
    case RAFT_REC_COMMIT_INDEX:
        printf(" commit_index: %"PRIu64"\n", r->commit_index);
        break;
    case RAFT_REC_LEADER:
        printf(" leader: "RAFT_SID_FMT"\n", RAFT_SID_ARGS(&r->sid));
        break;
    default:
        break;
    }
}

/* Prints record 'i' of a clustered file. */
static void
show_cluster_record(unsigned int i, const json_t *json,
                    struct ovsdb_schema **schemap, struct hmap *names)
{
    printf("record %u:\n", i);
    struct ovsdb_error *bad;
    if (i == 0) {
        struct raft_header h;
        bad = raft_header_from_json(&h, json);
        if (!bad) {
            print_raft_header(&h, schemap, names);
            raft_header_destroy(&h);
        }
    } else {
        struct raft_record r;
        bad = raft_record_from_json(&r, json);
        if (!bad) {
            print_raft_record(&r, schemap, names);
            raft_record_destroy(&r);
        }
    }
    if (bad) {
        char *s = ovsdb_error_to_string_free(bad);
        puts(s);
        free(s);
    }
}

static void
do_show_log(int argc, char *argv[])
{
    char *path = arg_or(argc, argv, 1, default_db);
    struct ovsdb_log *log = open_any(path);
    void (*show)(unsigned int, const json_t *, struct ovsdb_schema **,
                 struct hmap *)
        = (ovsdb_log_get_kind(log) == OVSDB_LOG_CLUSTERED
           ? show_cluster_record : show_standalone_record);
    struct ovsdb_schema *schema = NULL;
    struct hmap names = HMAP_INITIALIZER(&names);
    struct ovsdb_error *error = NULL;
    for (unsigned int i = 0;; i++) {
        json_t *json;
        error = ovsdb_log_read(log, &json);
        if (error || !json) {
            break;
        }
        show(i, json, &schema, &names);
        putchar('\n');
        json_decref(json);
    }
    fflush(stdout);
    free_names(&names);
    ovsdb_schema_destroy(schema);
    ovsdb_log_close(log);
    free(path);
    check(error);
}

/* cluster-to-standalone: the snapshot's schema and contents, then the
 * transaction of every entry in the file, as the reference writes them. */
static void
write_standalone_record(struct ovsdb_log *out, const json_t *json)
{
    check(ovsdb_log_write(out, json));
}

static void
do_cluster_to_standalone(int argc OVS_UNUSED, char *argv[])
{
    progress_enable("cluster-to-standalone");
    const char *standalone = argv[1];
    const char *clustered = argv[2];
    struct ovsdb_log *log = open_any(clustered);
    struct ovsdb_log *out;
    /* The reference creates the output before it checks the input. */
    check(ovsdb_log_open(standalone, OVSDB_LOG_CREATE_EXCL, &out));
    if (ovsdb_log_get_kind(log) != OVSDB_LOG_CLUSTERED) {
        ovs_fatal(0, "Database is not clustered db.\n");
    }
    for (unsigned int i = 0;; i++) {
        json_t *json;
        check(ovsdb_log_read(log, &json));
        if (!json) {
            break;
        }
        if (i == 0) {
            struct raft_header h;
            check(raft_header_from_json(&h, json));
            if (h.snap_index) {
                const json_t *data = h.snap.data;
                if (!json_is_array(data) || json_array_size(data) != 2) {
                    ovs_fatal(0, "Incorrect raft header data array length");
                }
                const json_t *schema_json = json_array_get(data, 0);
                if (!json_is_null(schema_json)) {
                    struct ovsdb_schema *schema;
                    check(ovsdb_schema_from_json(schema_json, &schema));
                    ovsdb_schema_destroy(schema);
                    write_standalone_record(out, schema_json);
                }
                const json_t *contents = json_array_get(data, 1);
                if (!json_is_object(contents)) {
                    ovs_fatal(0, "Invalid raft header data");
                }
                write_standalone_record(out, contents);
            }
            raft_header_destroy(&h);
        } else {
            struct raft_record r;
            check(raft_record_from_json(&r, json));
            const json_t *data = (r.type == RAFT_REC_ENTRY
                                  ? r.entry.e.data : NULL);
            if (data) {
                if (!json_is_array(data) || json_array_size(data) != 2) {
                    ovs_fatal(0, "Incorrect raft record array length");
                }
                const json_t *txn = json_array_get(data, 1);
                if (!json_is_null(txn)) {
                    write_standalone_record(out, txn);
                }
            }
            raft_record_destroy(&r);
        }
        json_decref(json);
    }
    check(ovsdb_log_commit_block(out));
    ovsdb_log_close(out);
    ovsdb_log_close(log);
}

static noreturn void
usage(void)
{
    printf("%s: Open vSwitch database management utility\n"
           "usage: %s [OPTIONS] COMMAND [ARG...]\n"
           "  create [DB [SCHEMA]]    create DB with the given SCHEMA\n"
           "  [--election-timer=ms] create-cluster DB CONTENTS LOCAL\n"
           "    create clustered DB with given CONTENTS and LOCAL address\n"
           "  [--cid=UUID] join-cluster DB NAME LOCAL REMOTE...\n"
           "    join clustered DB with given NAME and LOCAL and REMOTE "
           "addrs\n"
           "  compact [DB [DST]]      compact DB in-place (or to DST)\n"
           "  convert [DB [SCHEMA [DST]]]   convert DB to SCHEMA (to DST)\n"
           "  db-name [DB]            report name of schema used by DB\n"
           "  db-version [DB]         report version of schema used by DB\n"
           "  db-cksum [DB]           report checksum of schema used by DB\n"
           "  db-cid DB               report cluster ID of clustered DB\n"
           "  db-sid DB               report server ID of clustered DB\n"
           "  db-local-address DB     report local address of clustered DB\n"
           "  db-is-clustered DB      test whether DB is clustered\n"
           "  db-is-standalone DB     test whether DB is standalone\n"
           "  schema-name [SCHEMA]    report SCHEMA's name\n"
           "  schema-version [SCHEMA] report SCHEMA's schema version\n"
           "  schema-cksum [SCHEMA]   report SCHEMA's checksum\n"
           "  compare-versions A OP B  compare OVSDB schema version "
           "numbers\n"
           "  query [DB] TRNS         execute read-only transaction on DB\n"
           "  transact [DB] TRNS      execute read/write transaction on DB\n"
           "  cluster-to-standalone DB DB    Convert clustered DB to\n"
           "      standalone DB when cluster is down and cannot be\n"
           "        revived\n"
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
    { "create-cluster", 3, 3, do_create_cluster },
    { "join-cluster", 4, INT_MAX, do_join_cluster },
    { "compact", 0, 2, do_compact },
    { "convert", 0, 3, do_convert },
    { "needs-conversion", 0, 2, do_needs_conversion },
    { "db-name", 0, 1, do_db_name },
    { "db-version", 0, 1, do_db_version },
    { "db-cksum", 0, 1, do_db_cksum },
    { "db-cid", 1, 1, do_db_cid },
    { "db-sid", 1, 1, do_db_sid },
    { "db-local-address", 1, 1, do_db_local_address },
    { "db-is-clustered", 1, 1, do_db_is_clustered },
    { "db-is-standalone", 1, 1, do_db_is_standalone },
    { "schema-name", 0, 1, do_schema_name },
    { "schema-version", 0, 1, do_schema_version },
    { "schema-cksum", 0, 1, do_schema_cksum },
    { "query", 1, 2, do_query },
    { "transact", 1, 2, do_transact },
    { "show-log", 0, 1, do_show_log },
    { "check-cluster", 1, INT_MAX, tool_check_cluster },
    { "cluster-to-standalone", 2, 2, do_cluster_to_standalone },
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
        { "cid", required_argument, NULL, 'C' },
        { "election-timer", required_argument, NULL, 'E' },
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
            version_print();
            return 0;
        case 'C':
            if (!uuid_from_string(&cid, optarg) || uuid_is_zero(&cid)) {
                ovs_fatal(0, "%s: not a valid UUID", optarg);
            }
            break;
        case 'E':
            election_timer = atoll(optarg);
            check(cluster_file_validate_election_timer(election_timer));
            break;
        case 'o':
            print_options(long_options, "mhVv::o");
            return 0;
        case 'v':
            /* ovs-lib runs "ovsdb-tool -vconsole:off create-cluster ...",
             * which must not print create-cluster's warning. */
            vlog_set_verbosity(optarg);
            break;
        case 'L':
        case 'R':
            /* Accepted for compatibility; this tool logs only that
             * warning, to the console. */
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
