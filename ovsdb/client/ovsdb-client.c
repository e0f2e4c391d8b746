/* ovsdb/client/ovsdb-client.c: command-line client for an OVSDB server.
 *
 * Same commands, arguments, output and exit statuses as the reference
 * Open vSwitch 3.1 ovsdb-client (see --help and ovsdb-client(1)).  The
 * default server is "unix:<rundir>/db.sock", the socket Open vSwitch's
 * scripts have ovsdb-server listen on: <rundir> is $OVS_RUNDIR or
 * /var/run/openvswitch.
 *
 * Each command connects, does its work with blocking JSON-RPC calls
 * (ovsdb/client/client-rpc.h) and prints tables through
 * ovsdb/client/table-format.h; the monitor commands live in
 * ovsdb/client/client-monitor.c. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/daemon.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/fatal-signal.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/progress.h"
#include "lib/replay.h"
#include "lib/stream.h"
#include "lib/stream-ssl.h"
#include "lib/unixctl.h"
#include "lib/util.h"
#include "lib/vlog.h"
#include "ovsdb/client/client-backup.h"
#include "ovsdb/client/client-monitor.h"
#include "ovsdb/client/client-rpc.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/client/table-format.h"
#include "lib/version.h"

/* The reference's module for its schema warnings, which scripts grep. */
VLOG_MODULE(ovsdb);

/* Command-line options. */
static struct tabfmt_style style = TABFMT_STYLE_DEFAULT;
static bool timestamp;
static bool force;
/* --db-change-aware (1), --no-db-change-aware (0), neither (-1): whether
 * "monitor" and "transact" ask the server to tell them of a removed or
 * converted database instead of disconnecting them.  "monitor" asks
 * unless told not to; "transact" only when told to. */
static int db_change_aware = -1;

/* Set by the "exit" unixctl command. */
static bool exiting;

/* What a command needs before it runs. */
enum need {
    NEED_NONE,                  /* Nothing: no connection. */
    NEED_RPC,                   /* A connection (context_rpc()). */
    NEED_DATABASE               /* A connection and a database name. */
};

struct context {
    const char *server;
    struct jsonrpc *rpc;        /* Use context_rpc(), which connects. */
    char *database;             /* NULL unless NEED_DATABASE. */
    int argc;                   /* Arguments after server and database. */
    char **argv;
};

struct command {
    const char *name;
    enum need need;
    int min_args, max_args;     /* After server and database. */
    void (*handler)(struct context *);
};

static noreturn void
usage(void)
{
    printf("%s: Open vSwitch database JSON-RPC client\n"
           "usage: %s [OPTIONS] COMMAND [ARG...]\n"
           "\nValid commands are:\n"
           "\n  list-dbs [SERVER]\n"
           "    list databases available on SERVER\n"
           "\n  get-schema [SERVER] [DATABASE]\n"
           "    retrieve schema for DATABASE from SERVER\n"
           "\n  get-schema-version [SERVER] [DATABASE]\n"
           "    retrieve schema for DATABASE from SERVER and report only "
           "its\n    version number on stdout\n"
           "\n  get-schema-cksum [SERVER] [DATABASE]\n"
           "    retrieve schema for DATABASE from SERVER and report only "
           "its\n    checksum on stdout\n"
           "\n  list-tables [SERVER] [DATABASE]\n"
           "    list tables for DATABASE on SERVER\n"
           "\n  list-columns [SERVER] [DATABASE] [TABLE]\n"
           "    list columns in TABLE (or all tables) in DATABASE on "
           "SERVER\n"
           "\n  transact [SERVER] TRANSACTION\n"
           "    run TRANSACTION (params for \"transact\" request) on "
           "SERVER\n    and print the results as JSON on stdout\n"
           "\n  query [SERVER] TRANSACTION\n"
           "    run TRANSACTION (params for \"transact\" request) on "
           "SERVER,\n    as read-only, and print the results as JSON on "
           "stdout\n"
           "\n  monitor [SERVER] [DATABASE] TABLE [COLUMN,...]...\n"
           "    monitor contents of COLUMNs in TABLE in DATABASE on "
           "SERVER.\n    COLUMNs may include !initial, !insert, !delete, "
           "!modify\n    to avoid seeing the specified kinds of changes.\n"
           "\n  monitor-cond [SERVER] [DATABASE] CONDITION TABLE "
           "[COLUMN,...]...\n"
           "    monitor contents that match CONDITION of COLUMNs in TABLE "
           "in\n    DATABASE on SERVER.\n"
           "    COLUMNs may include !initial, !insert, !delete, !modify\n"
           "    to avoid seeing the specified kinds of changes.\n"
           "\n  monitor-cond-since [SERVER] [DATABASE] [LASTID] CONDITION "
           "TABLE [COLUMN,...]...\n"
           "    monitor contents that match CONDITION of COLUMNs in TABLE "
           "in\n    DATABASE on SERVER, since change after LASTID.\n"
           "    LASTID specifies transaction ID after which the monitoring\n"
           "    starts, which works only for cluster mode. If ignored, it\n"
           "    defaults to an all-zero uuid.\n"
           "    Other arguments are the same as in monitor-cond.\n"
           "\n  convert [SERVER] SCHEMA\n"
           "    convert database on SERVER named in SCHEMA to SCHEMA.\n"
           "\n  needs-conversion [SERVER] SCHEMA\n"
           "    tests whether SCHEMA's db on SERVER needs conversion.\n"
           "\n  monitor [SERVER] [DATABASE] ALL\n"
           "    monitor all changes to all columns in all tables\n"
           "\n  wait [SERVER] DATABASE STATE\n"
           "    wait until DATABASE reaches STATE (\"added\" or "
           "\"connected\" or \"removed\")\n    in DATABASE on SERVER.\n"
           "\n  dump [SERVER] [DATABASE]\n"
           "    dump contents of DATABASE on SERVER to stdout\n"
           "\n  backup [SERVER] [DATABASE] > SNAPSHOT\n"
           "    dump database contents in the form of a database file\n"
           "\n  [--force] restore [SERVER] [DATABASE] < SNAPSHOT\n"
           "    restore database contents from a database file\n"
           "\n  lock [SERVER] LOCK\n"
           "    create or wait for LOCK in SERVER\n"
           "\n  steal [SERVER] LOCK\n"
           "    steal LOCK from SERVER\n"
           "\n  unlock [SERVER] LOCK\n"
           "    unlock LOCK from SERVER\n"
           "\nThe default SERVER is unix:%s/db.sock.\n"
           "The default DATABASE is Open_vSwitch.\n",
           program_name(), program_name(), dirs_rundir());
    printf("\nActive SERVER connection methods:\n"
           "  tcp:HOST:PORT           PORT at remote HOST\n"
           "  ssl:HOST:PORT           SSL PORT at remote HOST\n"
           "  unix:FILE               Unix domain socket named FILE\n"
           "Passive SERVER connection methods:\n"
           "  ptcp:PORT[:IP]          listen to TCP PORT on IP\n"
           "  pssl:PORT[:IP]          listen for SSL on PORT on IP\n"
           "  punix:FILE              listen on Unix domain socket FILE\n");
    stream_ssl_usage();
    printf(
           "\nOutput formatting options:\n"
           "  -f, --format=FORMAT         set output formatting to FORMAT\n"
           "                              (\"table\", \"html\", \"csv\", "
           "or \"json\")\n"
           "  -d, --data=FORMAT           set table cell output formatting "
           "to\n                              FORMAT (\"string\", \"bare\", "
           "or \"json\")\n"
           "  --no-headings               omit table heading row\n"
           "  --pretty                    pretty-print JSON in output\n"
           "  --bare                      equivalent to \"--format=list "
           "--data=bare --no-headings\"\n"
           "  --timestamp                 timestamp \"monitor\" output\n");
    daemon_usage();
    vlog_usage();
    replay_usage();
    printf("\nOther options:\n"
           "  -t, --timeout=SECS          exit after SECS seconds\n"
           "  --force                     with restore, replace a database "
           "of another\n"
           "                              schema\n"
           "  --max-column-width=N        truncate table cells to N "
           "characters\n"
           "  --db-change-aware           monitor, transact: be told of a "
           "removed or\n"
           "                              converted database (monitor's "
           "default)\n"
           "  --no-db-change-aware        monitor: be disconnected "
           "instead\n"
           "  --leader-only, --no-leader-only\n"
           "                              accepted; one server is used as "
           "it is\n"
           "  -h, --help                  display this help message\n"
           "  -V, --version               display version information\n");
    exit(0);
}

static void
parse_options(int argc, char *argv[])
{
    enum {
        OPT_NO_HEADINGS = UCHAR_MAX + 1,
        OPT_PRETTY,
        OPT_BARE,
        OPT_TIMESTAMP,
        OPT_MAX_COLUMN_WIDTH,
        OPT_FORCE,
        OPT_NO_LEADER_ONLY,
        OPT_IGNORED_ARG,
        DAEMON_OPTION_ENUMS,
        VLOG_OPTION_ENUMS,
        REPLAY_OPTION_ENUMS,
        STREAM_SSL_OPTION_ENUMS,
    };
    static const struct option long_options[] = {
        { "format", required_argument, NULL, 'f' },
        { "data", required_argument, NULL, 'd' },
        { "no-headings", no_argument, NULL, OPT_NO_HEADINGS },
        { "pretty", no_argument, NULL, OPT_PRETTY },
        { "bare", no_argument, NULL, OPT_BARE },
        { "timestamp", no_argument, NULL, OPT_TIMESTAMP },
        { "max-column-width", required_argument, NULL, OPT_MAX_COLUMN_WIDTH },
        { "timeout", required_argument, NULL, 't' },
        { "force", no_argument, NULL, OPT_FORCE },
        { "no-leader-only", no_argument, NULL, OPT_NO_LEADER_ONLY },
        /* Same effect as the reference's for one standalone or relay
         * server, which is all this client talks to. */
        { "leader-only", no_argument, NULL, OPT_IGNORED_ARG },
        { "db-change-aware", no_argument, &db_change_aware, 1 },
        { "no-db-change-aware", no_argument, &db_change_aware, 0 },
        { "record", optional_argument, NULL, OPT_RECORD },
        { "replay", optional_argument, NULL, OPT_REPLAY },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        DAEMON_LONG_OPTIONS,
        VLOG_LONG_OPTIONS,
        STREAM_SSL_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    int value;

    for (;;) {
        int idx = -1;
        int c = getopt_long(argc, argv,
                            "f:d:t:hVv::" STREAM_SSL_SHORT_OPTIONS,
                            long_options, &idx);
        if (c == -1) {
            break;
        }
        switch (c) {
        case 'f':
            if (!tabfmt_parse_format(optarg, &style.format)) {
                ovs_fatal(0, "unknown output format \"%s\"", optarg);
            }
            break;
        case 'd':
            if (!tabfmt_parse_data(optarg, &style.data)) {
                ovs_fatal(0, "unknown data format \"%s\"", optarg);
            }
            break;
        case OPT_NO_HEADINGS:
            style.headings = false;
            break;
        case OPT_PRETTY:
            style.pretty = true;
            break;
        case OPT_BARE:
            style.format = TABFMT_LIST;
            style.data = TABFMT_DATA_BARE;
            style.headings = false;
            break;
        case OPT_TIMESTAMP:
            timestamp = true;
            break;
        case OPT_MAX_COLUMN_WIDTH:
            if (!str_to_int(optarg, &value) || value <= 0) {
                ovs_fatal(0, "value %s on --max-column-width is invalid",
                          optarg);
            }
            style.max_column_width = value;
            break;
        case 't':
            if (!str_to_int(optarg, &value) || value <= 0) {
                ovs_fatal(0, "value %s on -t or --timeout is invalid",
                          optarg);
            }
            /* As the reference: when it expires, SIGALRM kills us. */
            signal(SIGALRM, SIG_DFL);
            alarm(value);
            break;
        case OPT_FORCE:
            force = true;
            break;
        case OPT_NO_LEADER_ONLY:
        case OPT_IGNORED_ARG:
            break;
        case 'h':
            usage();
        case 'V':
            version_print();
            exit(0);
        DAEMON_OPTION_HANDLERS
        VLOG_OPTION_HANDLERS
        REPLAY_OPTION_HANDLERS
        STREAM_SSL_OPTION_HANDLERS
        case 0: /* A flag getopt set itself. */
            break;
        case '?':
            exit(1);
        default:
            abort();
        }
    }
}

/* True if 'arg' looks like a connection method ("unix:...", "tcp:..."),
 * as the reference decides whether the first argument names a server. */
static bool
is_server_name(const char *arg)
{
    const char *colon = strchr(arg, ':');
    if (!colon || colon == arg) {
        return false;
    }
    for (const char *p = arg; p < colon; p++) {
        if (!(*p >= 'a' && *p <= 'z')) {
            return false;
        }
    }
    return true;
}

static noreturn void
invalid_syntax(const char *command)
{
    ovs_fatal(0, "invalid syntax for '%s' (use --help for help)", command);
}

/* Returns the connection to the server, connecting on first use (so that a
 * command can check its arguments before it connects, as the
 * reference). */
static struct jsonrpc *
context_rpc(struct context *ctx)
{
    if (!ctx->rpc) {
        ctx->rpc = client_rpc_open(ctx->server);
    }
    return ctx->rpc;
}

/* Picks the database: the first argument if there is room for it and the
 * server has a database of that name, otherwise "Open_vSwitch", otherwise
 * the server's only database (not counting _Server), as the reference. */
static void
choose_database(struct context *ctx, const struct command *cmd)
{
    json_t *dbs = client_rpc_list_dbs(context_rpc(ctx));
    if (ctx->argc > cmd->min_args
        && client_rpc_dbs_contain(dbs, ctx->argv[0])) {
        ctx->database = xstrdup(ctx->argv[0]);
        ctx->argc--;
        ctx->argv++;
    } else if (client_rpc_dbs_contain(dbs, "Open_vSwitch")) {
        ctx->database = xstrdup("Open_vSwitch");
    } else {
        /* Otherwise the only database, if there is one besides _Server. */
        const char *only = NULL;
        size_t n = 0;
        for (size_t i = 0; i < json_array_size(dbs); i++) {
            const char *name = json_string_value(json_array_get(dbs, i));
            if (strcmp(name, "_Server")) {
                only = name;
                n++;
            }
        }
        if (n != 1) {
            ovs_fatal(0, "could not find a default database, please "
                      "specify a database name");
        }
        ctx->database = xstrdup(only);
    }
    json_decref(dbs);
}

/* Prints 'json' as a whole output line, compact or --pretty. */
static void
print_json_line(const json_t *json)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    tabfmt_put_json(&s, json, style.pretty);
    puts(ds_cstr(&s));
    ds_destroy(&s);
}

static int
compare_strings(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;
    return strcmp(*a, *b);
}

static void
do_list_dbs(struct context *ctx)
{
    json_t *dbs = client_rpc_list_dbs(context_rpc(ctx));
    size_t n = json_array_size(dbs);
    const char **names = xmalloc((n + 1) * sizeof *names);
    for (size_t i = 0; i < n; i++) {
        names[i] = json_string_value(json_array_get(dbs, i));
    }
    qsort(names, n, sizeof *names, compare_strings);
    for (size_t i = 0; i < n; i++) {
        puts(names[i]);
    }
    free(names);
    json_decref(dbs);
}

static void
do_get_schema(struct context *ctx)
{
    struct ovsdb_schema *schema = client_rpc_get_schema(context_rpc(ctx),
                                                        ctx->database);
    json_t *json = ovsdb_schema_to_json(schema);
    print_json_line(json);
    json_decref(json);
    ovsdb_schema_destroy(schema);
}

static void
do_get_schema_version(struct context *ctx)
{
    struct ovsdb_schema *schema = client_rpc_get_schema(context_rpc(ctx),
                                                        ctx->database);
    puts(schema->version ? schema->version : "");
    ovsdb_schema_destroy(schema);
}

static void
do_get_schema_cksum(struct context *ctx)
{
    struct ovsdb_schema *schema = client_rpc_get_schema(context_rpc(ctx),
                                                        ctx->database);
    puts(schema->cksum ? schema->cksum : "");
    ovsdb_schema_destroy(schema);
}

static void
do_list_tables(struct context *ctx)
{
    struct ovsdb_schema *schema = client_rpc_get_schema(context_rpc(ctx),
                                                        ctx->database);
    struct tabfmt *t = tabfmt_create();
    tabfmt_add_column(t, "Table");
    for (size_t i = 0; i < schema->n_tables; i++) {
        tabfmt_add_row(t);
        tabfmt_set_text(t, 0, schema->tables[i]->name);
    }
    tabfmt_print(t, &style);
    tabfmt_destroy(t);
    ovsdb_schema_destroy(schema);
}

static void
do_list_columns(struct context *ctx)
{
    const char *table_name = ctx->argc ? ctx->argv[0] : NULL;
    struct ovsdb_schema *schema = client_rpc_get_schema(context_rpc(ctx),
                                                        ctx->database);
    struct tabfmt *t = tabfmt_create();
    if (!table_name) {
        tabfmt_add_column(t, "Table");
    }
    tabfmt_add_column(t, "Column");
    tabfmt_add_column(t, "Type");
    for (size_t i = 0; i < schema->n_tables; i++) {
        const struct ovsdb_table_schema *ts = schema->tables[i];
        if (table_name && strcmp(table_name, ts->name)) {
            continue;
        }
        for (size_t j = 0; j < ts->n_columns; j++) {
            const struct ovsdb_column *column = ts->columns[j];
            size_t x = 0;
            tabfmt_add_row(t);
            if (!table_name) {
                tabfmt_set_text(t, x++, ts->name);
            }
            tabfmt_set_text(t, x++, column->name);
            tabfmt_set_json(t, x, ovsdb_type_to_json(&column->type), NULL);
        }
    }
    tabfmt_sort(t);
    tabfmt_print(t, &style);
    tabfmt_destroy(t);
    ovsdb_schema_destroy(schema);
}

static json_t *
parse_transaction(const char *s)
{
    json_t *txn = client_parse_json(s);
    if (!json_is_array(txn) || !json_is_string(json_array_get(txn, 0))) {
        ovs_fatal(0, "not a valid OVSDB query");
    }
    return txn;
}

static void
do_transact(struct context *ctx)
{
    json_t *txn = parse_transaction(ctx->argv[0]);
    struct jsonrpc *rpc = context_rpc(ctx);
    if (db_change_aware == 1) {
        client_rpc_set_db_change_aware(rpc, true);
    }
    /* With --detach, the transaction (a "wait" that may block for long)
     * runs in the background, its result and errors still going to the
     * caller's stdout and stderr, as the reference's client does. */
    if (daemon_get_detach()) {
        daemonize_start();
        client_daemonize_complete(true);
    }
    json_t *result = client_rpc_call(rpc, "transact", txn, "transaction");
    print_json_line(result);
    json_decref(result);
}

static void
do_query(struct context *ctx)
{
    json_t *txn = parse_transaction(ctx->argv[0]);
    size_t n_ops = json_array_size(txn) - 1;   /* [DATABASE, OP...] */
    json_t *abort_op = json_object();
    json_object_set_new(abort_op, "op", json_string("abort"));
    json_array_append_new(txn, abort_op);

    json_t *result = client_rpc_call(context_rpc(ctx), "transact", txn,
                                     "transaction");
    /* Drop the abort's result, if the transaction got that far. */
    if (json_is_array(result) && json_array_size(result) > n_ops) {
        json_t *last = json_array_get(result, n_ops);
        json_t *error = jsonx_object_get(last, "error");
        if (json_is_string(error)
            && !strcmp(json_string_value(error), "aborted")) {
            json_array_remove(result, n_ops);
        }
    }
    print_json_line(result);
    json_decref(result);
}

/* Returns the columns of 'ts' that "dump" shows by default: every column
 * but _version, in name order ('_uuid' sorts among them by strcmp). */
static size_t
default_dump_columns(const struct ovsdb_table_schema *ts,
                     const struct ovsdb_column ***columnsp)
{
    const struct ovsdb_column **columns = xmalloc(ts->n_columns
                                                  * sizeof *columns);
    size_t n = 0;
    for (size_t i = 0; i < ts->n_columns; i++) {
        if (i != OVSDB_COL_VERSION) {
            columns[n++] = ts->columns[i];
        }
    }
    /* Declared columns are in name order already; put _uuid in place. */
    size_t pos = 0;
    while (pos + 1 < n && strcmp(columns[pos + 1]->name, "_uuid") < 0) {
        columns[pos] = columns[pos + 1];
        pos++;
    }
    columns[pos] = ts->columns[OVSDB_COL_UUID];
    *columnsp = columns;
    return n;
}

struct dump_table {
    const struct ovsdb_table_schema *ts;
    const struct ovsdb_column **columns;
    size_t n_columns;
};

static void
print_dump_table(const struct dump_table *dt, const json_t *rows)
{
    struct tabfmt *t = tabfmt_create();
    char *caption = xasprintf("%s table", dt->ts->name);
    tabfmt_set_caption(t, caption);
    free(caption);
    for (size_t i = 0; i < dt->n_columns; i++) {
        tabfmt_add_column(t, dt->columns[i]->name);
    }
    for (size_t r = 0; r < json_array_size(rows); r++) {
        const json_t *row = json_array_get(rows, r);
        tabfmt_add_row(t);
        for (size_t i = 0; i < dt->n_columns; i++) {
            const struct ovsdb_column *column = dt->columns[i];
            json_t *value = jsonx_object_get(row, column->name);
            if (!value) {
                ovs_fatal(0, "row %zu in table %s lacks column %s", r,
                          dt->ts->name, column->name);
            }
            tabfmt_set_json(t, i, json_incref(value), &column->type);
        }
    }
    tabfmt_sort(t);
    tabfmt_print(t, &style);
    tabfmt_destroy(t);
}

static void
do_dump(struct context *ctx)
{
    struct ovsdb_schema *schema = client_rpc_get_schema(context_rpc(ctx),
                                                        ctx->database);
    struct dump_table *tables;
    size_t n_tables;

    if (ctx->argc) {
        const struct ovsdb_table_schema *ts
            = ovsdb_schema_find_table(schema, ctx->argv[0]);
        if (!ts) {
            ovs_fatal(0, "No table \"%s\" found.", ctx->argv[0]);
        }
        tables = xzalloc(sizeof *tables);
        n_tables = 1;
        tables->ts = ts;
        if (ctx->argc > 1) {
            tables->columns = xmalloc((ctx->argc - 1)
                                      * sizeof *tables->columns);
            for (int i = 1; i < ctx->argc; i++) {
                const struct ovsdb_column *column
                    = ovsdb_table_schema_find_column(ts, ctx->argv[i]);
                if (!column) {
                    ovs_fatal(0, "Table \"%s\" has no column %s.", ts->name,
                              ctx->argv[i]);
                }
                tables->columns[tables->n_columns++] = column;
            }
            qsort(tables->columns, tables->n_columns, sizeof *tables->columns,
                  ovsdb_column_compare_by_name);
        } else {
            tables->n_columns = default_dump_columns(ts, &tables->columns);
        }
    } else {
        n_tables = schema->n_tables;
        tables = xcalloc(n_tables ? n_tables : 1, sizeof *tables);
        for (size_t i = 0; i < n_tables; i++) {
            tables[i].ts = schema->tables[i];
            tables[i].n_columns = default_dump_columns(tables[i].ts,
                                                       &tables[i].columns);
        }
    }

    json_t *txn = json_array();
    json_array_append_new(txn, json_string(ctx->database));
    for (size_t i = 0; i < n_tables; i++) {
        json_t *op = json_object();
        json_t *columns = json_array();
        for (size_t j = 0; j < tables[i].n_columns; j++) {
            json_array_append_new(columns,
                                  json_string(tables[i].columns[j]->name));
        }
        json_object_set_new(op, "op", json_string("select"));
        json_object_set_new(op, "table", json_string(tables[i].ts->name));
        json_object_set_new(op, "where", json_array());
        json_object_set_new(op, "columns", columns);
        json_array_append_new(txn, op);
    }
    json_t *result = client_rpc_call(context_rpc(ctx), "transact", txn,
                                     "transaction");
    if (!json_is_array(result) || json_array_size(result) != n_tables) {
        ovs_fatal(0, "reply is not an array of %zu elements", n_tables);
    }
    for (size_t i = 0; i < n_tables; i++) {
        const json_t *op_result = json_array_get(result, i);
        const json_t *rows = jsonx_object_get(op_result, "rows");
        if (!json_is_array(rows)) {
            char *s = jsonx_to_string_sorted(op_result);
            ovs_fatal(0, "%s table reply is not a result with rows: %s",
                      tables[i].ts->name, s);
        }
        print_dump_table(&tables[i], rows);
    }

    json_decref(result);
    for (size_t i = 0; i < n_tables; i++) {
        free(tables[i].columns);
    }
    free(tables);
    ovsdb_schema_destroy(schema);
}

static void
unixctl_exit(struct unixctl_conn *conn, int argc OVS_UNUSED,
             const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    exiting = true;
    unixctl_command_reply(conn, NULL);
}

/* With --detach, returns a control server with an "exit" command, as the
 * reference; otherwise NULL. */
static struct unixctl_server *
create_unixctl_server(void)
{
    if (!daemon_get_detach()) {
        return NULL;
    }
    struct unixctl_server *server;
    int error = unixctl_server_create(NULL, &server);
    if (error) {
        ovs_fatal(error, "failed to create unixctl server");
    }
    unixctl_command_register("exit", "", 0, 0, unixctl_exit, NULL);
    return server;
}


static void
run_monitor(struct context *ctx, enum client_monitor_method method)
{
    daemonize_start();
    struct unixctl_server *unixctl = create_unixctl_server();

    style.n_printed = 0;
    struct client_monitor_options options = {
        .server = ctx->server,
        .database = ctx->database,
        .method = method,
        .style = &style,
        .timestamp = timestamp,
        .unixctl = unixctl,
        .exiting = &exiting,
        .db_change_aware = db_change_aware,
    };
    client_monitor_run(context_rpc(ctx), &options, ctx->argc, ctx->argv);
    unixctl_server_destroy(unixctl);
}

static void
do_monitor(struct context *ctx)
{
    run_monitor(ctx, CLIENT_MONITOR);
}

static void
do_monitor_cond(struct context *ctx)
{
    run_monitor(ctx, CLIENT_MONITOR_COND);
}

static void
do_monitor_cond_since(struct context *ctx)
{
    run_monitor(ctx, CLIENT_MONITOR_COND_SINCE);
}

/* "wait": watches _Server's Database table until 'database' is in the
 * wanted state. */
enum wait_state { WAIT_ADDED, WAIT_CONNECTED, WAIT_REMOVED };

static bool
wait_state_reached(const json_t *rows, const char *database,
                   enum wait_state state)
{
    const char *uuid;
    json_t *row;
    json_object_foreach ((json_t *) rows, uuid, row) {
        const json_t *name = json_object_get(row, "name");
        if (json_is_string(name)
            && !strcmp(json_string_value(name), database)) {
            const json_t *connected = json_object_get(row, "connected");
            return (state == WAIT_ADDED
                    || (state == WAIT_CONNECTED && json_is_true(connected)));
        }
    }
    return state == WAIT_REMOVED;
}

/* Applies "update" notification 'updates' to 'rows' ({uuid: row}). */
static void
wait_apply_updates(json_t *rows, const json_t *updates)
{
    const json_t *tu = jsonx_object_get(updates, "Database");
    const char *uuid;
    json_t *ru;
    json_object_foreach ((json_t *) tu, uuid, ru) {
        json_t *new = json_object_get(ru, "new");
        if (new) {
            json_object_set(rows, uuid, new);
        } else {
            json_object_del(rows, uuid);
        }
    }
}

static void
do_wait(struct context *ctx)
{
    const char *database = ctx->argv[0];
    const char *state_name = ctx->argv[1];
    enum wait_state state;
    if (!strcmp(state_name, "added")) {
        state = WAIT_ADDED;
    } else if (!strcmp(state_name, "connected")) {
        state = WAIT_CONNECTED;
    } else if (!strcmp(state_name, "removed")) {
        state = WAIT_REMOVED;
    } else {
        ovs_fatal(0, "%s: unknown state", state_name);
    }
    struct jsonrpc *rpc = context_rpc(ctx);

    json_t *columns = json_array();
    json_array_append_new(columns, json_string("name"));
    json_array_append_new(columns, json_string("connected"));
    json_t *request = json_object();
    json_object_set_new(request, "columns", columns);
    json_t *requests = json_object();
    json_object_set_new(requests, "Database", request);
    json_t *params = json_array();
    json_array_append_new(params, json_string("_Server"));
    json_array_append_new(params, json_null());
    json_array_append_new(params, requests);
    json_t *rows = json_object();
    json_t *initial = client_rpc_call(rpc, "monitor", params,
                                      "_Server monitor");
    wait_apply_updates(rows, initial);
    json_decref(initial);

    while (!wait_state_reached(rows, database, state)) {
        struct jsonrpc_msg *msg;
        int error = jsonrpc_recv_block(rpc, &msg);
        if (error) {
            ovs_fatal(error, "%s: receive failed", ctx->server);
        }
        if (msg->type == JSONRPC_REQUEST && !strcmp(msg->method, "echo")) {
            jsonrpc_send(rpc, jsonrpc_create_reply(
                             json_incref(msg->params), msg->id));
        } else if (msg->type == JSONRPC_NOTIFY
                   && !strcmp(msg->method, "update")
                   && json_array_size(msg->params) == 2) {
            wait_apply_updates(rows, json_array_get(msg->params, 1));
        }
        jsonrpc_msg_destroy(msg);
    }
    json_decref(rows);
}

/* Lock commands: the reply to each request, then each "locked"/"stolen"
 * notification as the method name on one line and its params on the next.
 * An error reply is reported on stderr and the client goes on, as the
 * reference (which prints nothing).  With --detach, "ovs-appctl lock|steal|
 * unlock LOCK" sends more requests on the same connection and "exit"
 * disconnects. */
static struct jsonrpc *lock_rpc;
static const char *const lock_methods[] = { "lock", "steal", "unlock" };

static void
send_lock_request(const char *method, const char *lock)
{
    json_t *params = json_array();
    json_array_append_new(params, json_string(lock));
    jsonrpc_send(lock_rpc, jsonrpc_create_request(method, params, NULL));
}

static void
unixctl_lock(struct unixctl_conn *conn, int argc OVS_UNUSED,
             const char *argv[], void *method_idx)
{
    send_lock_request(lock_methods[(uintptr_t) method_idx], argv[1]);
    unixctl_command_reply(conn, NULL);
}

static void
run_lock(struct context *ctx, const char *method)
{
    struct jsonrpc *rpc = context_rpc(ctx);
    daemonize_start();
    struct unixctl_server *unixctl = create_unixctl_server();
    for (uintptr_t i = 0; i < ARRAY_SIZE(lock_methods); i++) {
        unixctl_command_register(lock_methods[i], "LOCK", 1, 1,
                                 unixctl_lock, (void *) i);
    }

    lock_rpc = rpc;
    send_lock_request(method, ctx->argv[0]);
    bool replied = false;
    for (;;) {
        unixctl_server_run(unixctl);
        if (exiting) {
            break;
        }
        jsonrpc_run(rpc);
        struct jsonrpc_msg *msg;
        int error = jsonrpc_recv(rpc, &msg);
        if (!error) {
            if (msg->type == JSONRPC_REQUEST
                && !strcmp(msg->method, "echo")) {
                jsonrpc_send(rpc, jsonrpc_create_reply(
                                 json_incref(msg->params), msg->id));
            } else if (msg->type == JSONRPC_NOTIFY) {
                puts(msg->method);
                print_json_line(msg->params);
            } else if (msg->type == JSONRPC_REPLY) {
                print_json_line(msg->result);
            } else if (msg->type == JSONRPC_ERROR) {
                char *s = jsonx_to_string_sorted(msg->error);
                ovs_error(0, "%s request returned error: %s", method, s);
                free(s);
            }
            fflush(stdout);
            if (!replied && (msg->type == JSONRPC_REPLY
                             || msg->type == JSONRPC_ERROR)) {
                replied = true;
                client_daemonize_complete(false);
            }
            jsonrpc_msg_destroy(msg);
            continue;
        } else if (error != EAGAIN) {
            ovs_fatal(error, "%s: receive failed", ctx->server);
        }
        unixctl_server_wait(unixctl);
        jsonrpc_wait(rpc);
        jsonrpc_recv_wait(rpc);
        poll_block();
    }
    unixctl_server_destroy(unixctl);
    lock_rpc = NULL;
}

static void
do_lock(struct context *ctx)
{
    run_lock(ctx, "lock");
}

static void
do_steal(struct context *ctx)
{
    run_lock(ctx, "steal");
}

static void
do_unlock(struct context *ctx)
{
    run_lock(ctx, "unlock");
}

static struct ovsdb_schema *
read_schema_file(const char *file_name)
{
    FILE *file = fopen(file_name, "r");
    if (!file) {
        ovs_fatal(0, "failed to read schema: \"%s\" could not be read as "
                  "JSON (error opening \"%s\": %s)", file_name, file_name,
                  ovs_strerror(errno));
    }
    fclose(file);

    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_file(file_name, &schema);
    if (error) {
        ovs_fatal(0, "%s", ovsdb_error_to_string_free(error));
    }
    return schema;
}

/* As the reference's client: a clustered database keeps no ephemeral
 * columns, so the schema to compare or convert to has them persistent. */
static void
persist_if_clustered(struct context *ctx, struct ovsdb_schema *schema,
                     const char *file)
{
    json_t *result = client_rpc_call(
        context_rpc(ctx), "transact",
        json_pack("[s, {s:s, s:s, s:[[s, s, s]], s:[s]}]", "_Server", "op",
                  "select", "table", "Database", "where", "name",
                  "==", schema->name, "columns", "model"),
        NULL);
    const json_t *model = json_object_get(
        json_array_get(json_object_get(json_array_get(result, 0), "rows"), 0),
        "model");
    if (json_is_string(model)
        && !strcmp(json_string_value(model), "clustered")) {
        char *warning = ovsdb_schema_persist_ephemeral_columns(schema, file);
        if (warning) {
            VLOG_WARN("%s", warning);
            free(warning);
        }
    }
    json_decref(result);
}

static void
do_convert(struct context *ctx)
{
    struct ovsdb_schema *schema = read_schema_file(ctx->argv[0]);
    persist_if_clustered(ctx, schema, ctx->argv[0]);
    json_t *params = json_array();
    json_array_append_new(params, json_string(schema->name));
    json_array_append_new(params, ovsdb_schema_to_json(schema));
    /* As the reference's client does: a server disconnects the clients
     * that do not know of database changes when it replaces the database,
     * which can be before it replies to the conversion. */
    json_decref(client_rpc_call(context_rpc(ctx), "set_db_change_aware",
                                json_pack("[b]", 1), NULL));
    json_t *result = client_rpc_call(context_rpc(ctx), "convert", params,
                                     "conversion");
    json_decref(result);
    ovsdb_schema_destroy(schema);
}

static void
do_needs_conversion(struct context *ctx)
{
    struct ovsdb_schema *schema = read_schema_file(ctx->argv[0]);
    persist_if_clustered(ctx, schema, ctx->argv[0]);
    struct ovsdb_schema *server_schema
        = client_rpc_get_schema(context_rpc(ctx), schema->name);
    puts(ovsdb_schema_equals(schema, server_schema) ? "no" : "yes");
    ovsdb_schema_destroy(server_schema);
    ovsdb_schema_destroy(schema);
}

static void
do_backup(struct context *ctx)
{
    progress_enable("backup");
    client_backup(context_rpc(ctx), ctx->database);
}

static void
do_restore(struct context *ctx)
{
    progress_enable("restore");
    client_restore(context_rpc(ctx), ctx->database, force);
}

static void
do_help(struct context *ctx OVS_UNUSED)
{
    usage();
}

static const struct command commands[] = {
    {"list-dbs", NEED_RPC, 0, 0, do_list_dbs},
    {"get-schema", NEED_DATABASE, 0, 0, do_get_schema},
    {"get-schema-version", NEED_DATABASE, 0, 0, do_get_schema_version},
    {"get-schema-cksum", NEED_DATABASE, 0, 0, do_get_schema_cksum},
    {"list-tables", NEED_DATABASE, 0, 0, do_list_tables},
    {"list-columns", NEED_DATABASE, 0, 1, do_list_columns},
    {"transact", NEED_RPC, 1, 1, do_transact},
    {"query", NEED_RPC, 1, 1, do_query},
    {"monitor", NEED_DATABASE, 1, INT_MAX, do_monitor},
    {"monitor-cond", NEED_DATABASE, 2, 3, do_monitor_cond},
    {"monitor-cond-since", NEED_DATABASE, 2, 4, do_monitor_cond_since},
    {"wait", NEED_RPC, 2, 2, do_wait},
    {"convert", NEED_RPC, 1, 1, do_convert},
    {"needs-conversion", NEED_RPC, 1, 1, do_needs_conversion},
    {"dump", NEED_DATABASE, 0, INT_MAX, do_dump},
    {"backup", NEED_DATABASE, 0, 0, do_backup},
    {"restore", NEED_DATABASE, 0, 0, do_restore},
    {"lock", NEED_RPC, 1, 1, do_lock},
    {"steal", NEED_RPC, 1, 1, do_steal},
    {"unlock", NEED_RPC, 1, 1, do_unlock},
    {"help", NEED_NONE, 0, INT_MAX, do_help},
};

static const struct command *
find_command(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        if (!strcmp(commands[i].name, name)) {
            return &commands[i];
        }
    }
    return NULL;
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    /* getopt_long() names the program in its messages from argv[0]: drop
     * the directory, as program_name() does. */
    argv[0] += strlen(argv[0]) - strlen(program_name());
    parse_options(argc, argv);
    fatal_signal_init();

    argc -= optind;
    argv += optind;
    if (argc < 1) {
        ovs_fatal(0, "missing command name; use --help for help");
    }
    const struct command *cmd = find_command(argv[0]);
    if (!cmd) {
        ovs_fatal(0, "unknown command '%s'; use --help for help", argv[0]);
    }

    struct context ctx = { .argc = argc - 1, .argv = argv + 1 };
    char *default_server = xasprintf("unix:%s/db.sock", dirs_rundir());
    if (cmd->need != NEED_NONE && ctx.argc > cmd->min_args
        && is_server_name(ctx.argv[0])) {
        ctx.server = ctx.argv[0];
        ctx.argc--;
        ctx.argv++;
    } else {
        ctx.server = default_server;
    }
    /* The reference checks the count before it connects, when it can. */
    if (cmd->need != NEED_DATABASE
        && (ctx.argc < cmd->min_args || ctx.argc > cmd->max_args)) {
        invalid_syntax(cmd->name);
    }

    if (cmd->need == NEED_DATABASE) {
        choose_database(&ctx, cmd);
        if (ctx.argc < cmd->min_args || ctx.argc > cmd->max_args) {
            invalid_syntax(cmd->name);
        }
    }
    cmd->handler(&ctx);

    fflush(stdout);
    jsonrpc_close(ctx.rpc);
    free(ctx.database);
    free(default_server);
    return ferror(stdout) ? 1 : 0;
}
