/* ovsdb/server/ovsdb-server.c: the database server's main: command line,
 * control socket commands and the main loop.  The work is in
 * ovsdb/server/server.c. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/daemon.h"
#include "lib/progress.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/poll-loop.h"
#include "lib/replay.h"
#include "lib/process.h"
#include "lib/stream-ssl.h"
#include "lib/unixctl.h"
#include "lib/util.h"
#include "lib/vlog.h"
#include "ovsdb/server/cluster-ctl.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/server/metrics.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/record.h"
#include "ovsdb/server/relay.h"
#include "ovsdb/server/remotes.h"
#include "ovsdb/server/replication.h"
#include "ovsdb/server/restart-config.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/server/server.h"
#include "lib/version.h"

VLOG_DEFINE_THIS_MODULE(ovsdb_server);

struct options {
    char **remotes;
    size_t n_remotes;
    const char *unixctl_path;
    const char *sync_from;          /* --sync-from, or NULL. */
    const char *sync_exclude;       /* --sync-exclude-tables, or NULL. */
    bool active;                    /* --active. */
    bool no_dbs;                    /* --no-dbs: no default database. */
    const char *run_command;        /* --run, or NULL. */
    const char *metrics;            /* --metrics, or NULL. */
    int n_io_threads;               /* --n-io-threads, or -1: default. */
    struct ovsdb_ssl_config ssl;    /* Values may be "db:" specs. */
};

/* State of the control socket commands. */
struct ctl_state {
    struct ovsdb_server *srv;
    struct ovsdb_databases *dbs; /* srv's. */
    struct ovsdb_metrics *metrics;
    struct restart_config *restart;
    bool exiting;
    struct unixctl_conn **compacts;     /* Waiting for compaction. */
    size_t n_compacts;
};

/* --n-io-threads: at most this many. */
#define MAX_IO_THREADS 64

/* One I/O thread per core beyond the first: the main thread keeps a core
 * of its own. */
static int
default_io_threads(void)
{
    /* Test hook (not in the reference): the suite runs both ways. */
    const char *s = getenv("OVSDB_SERVER_IO_THREADS");
    int value;
    if (s && str_to_int(s, &value) && value >= 0 && value <= MAX_IO_THREADS) {
        return value;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 1 ? (int) MIN(n - 1, MAX_IO_THREADS) : 0;
}

static noreturn void
usage(void)
{
    printf("%s: Open vSwitch database server\n"
           "usage: %s [OPTIONS] [DATABASE...]\n"
           "where each DATABASE is a database file in ovsdb format,\n"
           "or relay:DB_NAME:REMOTE[,REMOTE...] to relay DB_NAME.\n"
           "The default DATABASE, if none is given, is\n"
           "%s/conf.db (none with --no-dbs).\n",
           program_name(), program_name(), dirs_dbdir());
    printf("\nJSON-RPC options (may be specified any number of times):\n"
           "  --remote=REMOTE         connect or listen to REMOTE\n"
           "\nActive JSON-RPC connection methods:\n"
           "  tcp:HOST:PORT           PORT at remote HOST\n"
           "  ssl:HOST:PORT           SSL PORT at remote HOST\n"
           "  unix:FILE               Unix domain socket named FILE\n"
           "Passive JSON-RPC connection methods:\n"
           "  ptcp:PORT[:IP]          listen to TCP PORT on IP\n"
           "  pssl:PORT[:IP]          listen for SSL on PORT on IP\n"
           "  punix:FILE              listen on Unix domain socket FILE\n");
    stream_ssl_usage();
    printf("\n");
    daemon_usage();
    vlog_usage();
    printf("\nReplication options:\n"
           "  --sync-from=SERVER      replicate SERVER (be its backup)\n"
           "  --sync-exclude-tables=DB:TABLE,...\n"
           "                          tables not to replicate\n"
           "  --active                with --sync-from, start active\n"
           "\nOther options:\n"
           "  --unixctl=SOCKET        override default control socket name\n"
           "  --no-dbs                start with no database\n"
           "  --run COMMAND           run COMMAND as subprocess then exit\n"
           "  --metrics=ptcp:PORT[:IP]\n"
           "                          serve Prometheus metrics over HTTP\n"
           "  --n-io-threads=N        threads for TLS handshakes (default: "
           "one per core\n"
           "                          beyond the first; 0: none)\n"
           "  --disable-file-column-diff\n"
           "                          write whole changed columns to "
           "database files,\n"
           "                          not column diffs\n"
           "  -h, --help              display this help message\n"
           "  -V, --version           display version information\n");
    replay_usage();
    exit(EXIT_SUCCESS);
}

static void
parse_options(int argc, char *argv[], struct options *opts)
{
    enum {
        OPT_REMOTE = UCHAR_MAX + 1,
        OPT_UNIXCTL,
        OPT_SYNC_FROM,
        OPT_SYNC_EXCLUDE,
        OPT_ACTIVE,
        OPT_NO_DBS,
        OPT_IGNORED_NOARG,
        OPT_NO_COLUMN_DIFF,
        OPT_RUN,
        OPT_METRICS,
        OPT_N_IO_THREADS,
        DAEMON_OPTION_ENUMS,
        VLOG_OPTION_ENUMS,
        REPLAY_OPTION_ENUMS,
        STREAM_SSL_OPTION_ENUMS
    };
    static const struct option long_options[] = {
        { "remote", required_argument, NULL, OPT_REMOTE },
        { "unixctl", required_argument, NULL, OPT_UNIXCTL },
        { "sync-from", required_argument, NULL, OPT_SYNC_FROM },
        { "sync-exclude-tables", required_argument, NULL, OPT_SYNC_EXCLUDE },
        { "active", no_argument, NULL, OPT_ACTIVE },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { "no-dbs", no_argument, NULL, OPT_NO_DBS },
        /* ovn-ctl passes it when --help lists it (ovsdb/format/record.h). */
        { "disable-file-column-diff", no_argument, NULL, OPT_NO_COLUMN_DIFF },
        { "run", required_argument, NULL, OPT_RUN },
        { "metrics", required_argument, NULL, OPT_METRICS },
        { "n-io-threads", required_argument, NULL, OPT_N_IO_THREADS },
        { "record", optional_argument, NULL, OPT_RECORD },
        { "replay", optional_argument, NULL, OPT_REPLAY },
        DAEMON_LONG_OPTIONS,
        VLOG_LONG_OPTIONS,
        STREAM_SSL_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };

    for (;;) {
        int idx = -1;
        int c = getopt_long(argc, argv, "hVv::" STREAM_SSL_SHORT_OPTIONS,
                            long_options, &idx);
        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_REMOTE:
            opts->remotes = xrealloc(opts->remotes, (opts->n_remotes + 1)
                                     * sizeof *opts->remotes);
            opts->remotes[opts->n_remotes++] = optarg;
            break;
        case OPT_UNIXCTL:
            opts->unixctl_path = optarg;
            break;
        case OPT_SYNC_FROM:
            opts->sync_from = optarg;
            break;
        case OPT_SYNC_EXCLUDE:
            opts->sync_exclude = optarg;
            break;
        case OPT_ACTIVE:
            opts->active = true;
            break;
        case 'h':
            usage();
        case 'V':
            version_print();
            exit(EXIT_SUCCESS);
        case OPT_NO_DBS:
            opts->no_dbs = true;
            break;
        case OPT_NO_COLUMN_DIFF:
            ovsdb_record_disable_column_diff();
            break;
        case OPT_RUN:
            opts->run_command = optarg;
            break;
        case OPT_METRICS:
            opts->metrics = optarg;
            break;
        case OPT_N_IO_THREADS:
            if (!str_to_int(optarg, &opts->n_io_threads)
                || opts->n_io_threads < 0
                || opts->n_io_threads > MAX_IO_THREADS) {
                ovs_fatal(0,
                          "--n-io-threads: %s is not a number from 0 to "
                          "%d",
                          optarg, MAX_IO_THREADS);
            }
            break;
        case OPT_IGNORED_NOARG:
            break;
            DAEMON_OPTION_HANDLERS
            VLOG_OPTION_HANDLERS
            REPLAY_OPTION_HANDLERS
            OVSDB_SSL_CONFIG_OPTION_HANDLERS(&opts->ssl, c)
        case '?':
            exit(EXIT_FAILURE);
        default:
            abort();
        }
    }
}

/* Returns the message for 'error' (takes ownership), the failure to open
 * database 'path', with what to do for the two mistakes a new user makes:
 * a file that does not exist yet, and a schema given for a database.
 * Caller must free with free(). */
static char *
explain_db_error(const char *path, struct ovsdb_error *error)
{
    char *msg = ovsdb_error_to_string_free(error);
    char *explained = NULL;
    struct stat st;
    struct ovsdb_schema *schema;
    if (stat(path, &st) && errno == ENOENT) {
        explained = xasprintf("%s; to create a database, run "
                              "\"ovsdb-tool create %s SCHEMA\"", msg, path);
    } else if (!(error = ovsdb_schema_from_file(path, &schema))) {
        ovsdb_schema_destroy(schema);
        explained = xasprintf("%s: a schema, not a database; to create a "
                              "database from it, run \"ovsdb-tool create DB "
                              "%s\" and serve DB", path, path);
    } else {
        ovsdb_error_destroy(error);
    }
    if (explained) {
        free(msg);
        return explained;
    }
    return msg;
}

/* Control socket commands. */

static void
exit_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
        const char *argv[] OVS_UNUSED, void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    ctl->exiting = true;
    unixctl_command_reply(conn, NULL);
}

static void
memory_show_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
               const char *argv[] OVS_UNUSED, void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    struct ds s = DS_EMPTY_INITIALIZER;
    ovsdb_server_put_memory_report(ctl->srv, &s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* loop/show [reset]: how long the passes of the main loop took (see
 * poll_loop_get_stats()), the server's own view of how long a client may
 * have waited for it; "reset" starts counting afresh after printing. */
static void
loop_show_cb(struct unixctl_conn *conn, int argc, const char *argv[],
             void *ctl_ OVS_UNUSED)
{
    if (argc > 1 && strcmp(argv[1], "reset")) {
        unixctl_command_reply_error(conn, "usage: loop/show [reset]");
        return;
    }
    struct poll_loop_stats st;
    poll_loop_get_stats(&st);
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s,
                  "passes: %llu\nlongest pass: %lld ms\n"
                  "passes over 100 ms: %llu\npasses over 1000 ms: %llu\n",
                  st.n_passes, st.longest_msec, st.n_over_100, st.n_over_1000);
    if (argc > 1) {
        poll_loop_reset_stats();
    }
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
allocator_stats_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
                   const char *argv[] OVS_UNUSED, void *ctl_ OVS_UNUSED)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    allocator_report(&s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* ovsdb_remotes_find_db_cb for the served databases. */
static struct ovsdb *
find_ovsdb(const char *name, void *dbs)
{
    struct ovsdb_served_db *sdb = ovsdb_databases_find(dbs, name);
    return sdb ? ovsdb_served_db_get_ovsdb(sdb) : NULL;
}

/* Returns NULL if 'spec' is not a "db:" remote or names a database, table
 * and column that exist; else the reference's message for it, which the
 * caller must free with free(). */
static char *
check_db_remote(struct ovsdb_databases *dbs, const char *spec)
{
    struct ovsdb_error *error;
    error = ovsdb_remotes_parse_db_column(spec, find_ovsdb, dbs, NULL, NULL,
                                          NULL);
    char *msg = NULL;
    if (error && ovsdb_remotes_is_db_spec(spec)) {
        msg = xstrdup(ovsdb_error_get_details(error));
    }
    ovsdb_error_destroy(error);
    return msg;
}

static void
add_remote_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
              const char *argv[], void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    char *msg = check_db_remote(ctl->dbs, argv[1]);
    if (msg) {
        unixctl_command_reply_error(conn, msg);
        free(msg);
        return;
    }
    if (ovsdb_server_add_remote(ctl->srv, argv[1])) {
        restart_config_add_remote(ctl->restart, argv[1]);
        unixctl_command_reply(conn, NULL);
    } else {
        unixctl_command_reply_error(conn, "remote already exists");
    }
}

static void
remove_remote_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
                 const char *argv[], void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    if (ovsdb_server_remove_remote(ctl->srv, argv[1])) {
        restart_config_remove_remote(ctl->restart, argv[1]);
        unixctl_command_reply(conn, NULL);
    } else {
        unixctl_command_reply_error(conn, "no such remote");
    }
}

static void
disable_monitor_cond_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
                        const char *argv[] OVS_UNUSED, void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    ovsdb_server_disable_monitor_cond(ctl->srv);
    unixctl_command_reply(conn, NULL);
}

static void
list_remotes_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
                const char *argv[] OVS_UNUSED, void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    struct ds s = DS_EMPTY_INITIALIZER;
    ovsdb_server_put_remotes(ctl->srv, &s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
reply_ovsdb_error(struct unixctl_conn *conn, struct ovsdb_error *error)
{
    char *s = ovsdb_error_to_string_free(error);
    unixctl_command_reply_error(conn, s);
    free(s);
}

static void
add_db_cb(struct unixctl_conn *conn, int argc OVS_UNUSED, const char *argv[],
          void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    char *name;
    struct ovsdb_error *error = ovsdb_databases_add(ctl->dbs, argv[1], &name);
    if (error) {
        reply_ovsdb_error(conn, error);
    } else {
        restart_config_add_db(ctl->restart, argv[1], name);
        free(name);
        unixctl_command_reply(conn, NULL);
    }
}

static void
remove_db_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
             const char *argv[], void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    if (!strcmp(argv[1], "_Server")) {
        unixctl_command_reply_error(conn, "Cannot remove reserved "
                                    "database.");
        return;
    }
    struct ovsdb_error *error = ovsdb_databases_remove(ctl->dbs, argv[1]);
    if (error) {
        ovsdb_error_destroy(error);
        unixctl_command_reply_error(conn, "Failed to find the database.");
    } else {
        restart_config_remove_db(ctl->restart, argv[1]);
        unixctl_command_reply(conn, NULL);
    }
}

static void
list_dbs_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
            const char *argv[] OVS_UNUSED, void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    json_t *names = ovsdb_databases_list(ctl->dbs);
    struct ds s = DS_EMPTY_INITIALIZER;
    size_t i;
    json_t *name;
    json_array_foreach (names, i, name) {
        ds_put_format(&s, "%s\n", json_string_value(name));
    }
    json_decref(names);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
compact_cb(struct unixctl_conn *conn, int argc, const char *argv[],
           void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    struct ovsdb_error *error = NULL;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '_') {
            /* "_Server" lives in memory only; the reference words it so. */
            unixctl_command_reply_error(conn,
                                        "cannot compact built-in databases");
            return;
        }
        if (!ovsdb_databases_find(ctl->dbs, argv[i])) {
            unixctl_command_reply_error(conn, "no database by that name");
            return;
        }
    }
    if (argc > 1) {
        for (int i = 1; i < argc && !error; i++) {
            error = ovsdb_databases_compact(ctl->dbs, argv[i]);
        }
    } else {
        error = ovsdb_databases_compact(ctl->dbs, NULL);
    }
    if (error) {
        reply_ovsdb_error(conn, error);
        return;
    }
    /* Reply once the background compaction is done. */
    ctl->compacts = xrealloc(ctl->compacts,
                             (ctl->n_compacts + 1) * sizeof *ctl->compacts);
    ctl->compacts[ctl->n_compacts++] = conn;
}

static void
memory_trim_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
               const char *argv[], void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    if (!strcmp(argv[1], "on")) {
        ovsdb_databases_set_memory_trim(ctl->dbs, true);
    } else if (!strcmp(argv[1], "off")) {
        ovsdb_databases_set_memory_trim(ctl->dbs, false);
    } else {
        unixctl_command_reply_error(conn, "invalid argument");
        return;
    }
    unixctl_command_reply(conn, NULL);
}

static void
reconnect_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
             const char *argv[] OVS_UNUSED, void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    ovsdb_server_reconnect(ctl->srv);
    unixctl_command_reply(conn, NULL);
}

/* metrics/set-remote REMOTE: serve the metrics on "ptcp:PORT[:IP]", or on
 * nothing for "". */
static void
metrics_set_remote_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[], void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    int error = ovsdb_metrics_set_remote(ctl->metrics, argv[1]);
    if (error == EINVAL) {
        unixctl_command_reply_error(conn, "metrics remote must be "
                                          "ptcp:PORT[:IP] or empty");
    } else if (error) {
        char *msg = xasprintf("%s: %s", argv[1], ovs_strerror(error));
        unixctl_command_reply_error(conn, msg);
        free(msg);
    } else {
        unixctl_command_reply(conn, NULL);
    }
}

/* ovsdb-server/io-threads [N]: sets the number of I/O threads, if given,
 * and shows it. */
static void
io_threads_cb(struct unixctl_conn *conn, int argc, const char *argv[],
              void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    if (argc > 1) {
        int n;
        if (!str_to_int(argv[1], &n) || n < 0 || n > MAX_IO_THREADS) {
            char *msg = xasprintf("%s: not a number from 0 to %d", argv[1],
                                  MAX_IO_THREADS);
            unixctl_command_reply_error(conn, msg);
            free(msg);
            return;
        }
        ovsdb_server_set_io_threads(ctl->srv, n);
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    ovsdb_server_put_io_threads(ctl->srv, &s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
metrics_show_remote_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
                       const char *argv[] OVS_UNUSED, void *ctl_)
{
    struct ctl_state *ctl = ctl_;
    struct ds s = DS_EMPTY_INITIALIZER;
    ovsdb_metrics_put_remote(ctl->metrics, &s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
register_commands(struct ctl_state *ctl)
{
    unixctl_command_register("exit", "", 0, 0, exit_cb, ctl);
    unixctl_command_register("memory/show", "", 0, 0, memory_show_cb, ctl);
    unixctl_command_register("memory/allocator-stats", "", 0, 0,
                             allocator_stats_cb, ctl);
    unixctl_command_register("loop/show", "[reset]", 0, 1, loop_show_cb, ctl);
    unixctl_command_register("ovsdb-server/add-remote", "REMOTE", 1, 1,
                             add_remote_cb, ctl);
    unixctl_command_register("ovsdb-server/remove-remote", "REMOTE", 1, 1,
                             remove_remote_cb, ctl);
    unixctl_command_register("ovsdb-server/list-remotes", "", 0, 0,
                             list_remotes_cb, ctl);
    unixctl_command_register("ovsdb-server/add-db", "DB", 1, 1, add_db_cb,
                             ctl);
    unixctl_command_register("ovsdb-server/remove-db", "DB", 1, 1,
                             remove_db_cb, ctl);
    unixctl_command_register("ovsdb-server/list-dbs", "", 0, 0, list_dbs_cb,
                             ctl);
    unixctl_command_register("ovsdb-server/compact", "", 0, INT_MAX,
                             compact_cb, ctl);
    unixctl_command_register("ovsdb-server/reconnect", "", 0, 0,
                             reconnect_cb, ctl);
    unixctl_command_register("ovsdb-server/disable-monitor-cond", "", 0, 0,
                             disable_monitor_cond_cb, ctl);
    unixctl_command_register("ovsdb-server/memory-trim-on-compaction",
                             "on|off", 1, 1, memory_trim_cb, ctl);
    unixctl_command_register("metrics/set-remote", "ptcp:PORT[:IP]|\"\"", 1, 1,
                             metrics_set_remote_cb, ctl);
    unixctl_command_register("metrics/show-remote", "", 0, 0,
                             metrics_show_remote_cb, ctl);
    unixctl_command_register("ovsdb-server/io-threads", "[N]", 0, 1,
                             io_threads_cb, ctl);
}


int
main(int argc, char *argv[])
{
    struct options opts = { .remotes = NULL, .n_io_threads = -1 };

    set_program_name(argv[0]);
    parse_options(argc, argv, &opts);

    char *default_db = NULL;
    int n_files = argc - optind;
    char **files = argv + optind;
    if (!n_files && !opts.no_dbs) {
        default_db = xasprintf("%s/conf.db", dirs_dbdir());
        files = &default_db;
        n_files = 1;
    }

    struct restart_config *restart = restart_config_create(files, n_files,
                                                           opts.remotes,
                                                           opts.n_remotes);
    if (!daemon_get_detach()) {
        /* In the foreground on a terminal: reading a big database, a
         * conversion and a joining member's catch-up show progress. */
        progress_enable("ovsdb-server");
    }
    daemonize_start();
    allocator_init();               /* In the process that serves. */
    restart_config_load(restart);   /* A restarted server's differs. */

    struct ctl_state ctl = { .srv = ovsdb_server_create(),
                             .restart = restart };
    ctl.dbs = ovsdb_server_get_databases(ctl.srv);
    ctl.metrics = ovsdb_metrics_create(ctl.srv);
    if (opts.metrics) {
        int error = ovsdb_metrics_set_remote(ctl.metrics, opts.metrics);
        if (error) {
            ovs_fatal(error, "--metrics=%s", opts.metrics);
        }
    }
    n_files = restart_config_n_dbs(restart);
    struct ovsdb_relay **relays = xcalloc(n_files, sizeof *relays);
    size_t n_relays = 0;
    for (int i = 0; i < n_files; i++) {
        const char *file = restart_config_db(restart, i);
        struct ovsdb_error *error;
        if (ovsdb_relay_is_spec(file)) {
            error = ovsdb_relay_create(ctl.dbs, file, &relays[n_relays]);
            if (!error) {
                restart_config_set_db_name(restart, i,
                                           ovsdb_relay_get_db_name(
                                               relays[n_relays]));
            }
            n_relays += !error;
        } else {
            char *name;
            error = ovsdb_databases_add(ctl.dbs, file, &name);
            if (error) {
                ovs_fatal(0, "%s", explain_db_error(file, error));
            }
            restart_config_set_db_name(restart, i, name);
            free(name);
        }
        if (error) {
            char *s = ovsdb_error_to_string_free(error);
            ovs_fatal(0, "%s", s);
        }
    }
    ovsdb_server_set_ssl_config(ctl.srv, &opts.ssl);
    /* (Threads only now: daemonize_start() forked before.) */
    ovsdb_server_set_io_threads(ctl.srv, opts.n_io_threads >= 0
                                             ? opts.n_io_threads
                                             : default_io_threads());
    struct ovsdb_replication *repl = ovsdb_replication_create(ctl.dbs);
    if (opts.sync_exclude) {
        struct ovsdb_error *error = ovsdb_replication_set_exclude(
            repl, opts.sync_exclude);
        if (error) {
            char *s = ovsdb_error_to_string_free(error);
            ovs_fatal(0, "%s", s);
        }
    }
    if (opts.sync_from) {
        ovsdb_replication_set_active(repl, opts.sync_from);
        if (!opts.active) {
            ovsdb_replication_connect(repl);
        }
    }
    for (size_t i = 0; i < restart_config_n_remotes(restart); i++) {
        /* As the reference, such a remote is fatal at startup. */
        const char *remote = restart_config_remote(restart, i);
        char *msg = check_db_remote(ctl.dbs, remote);
        if (msg) {
            ovs_fatal(0, "%s", msg);
        }
        ovsdb_server_add_remote(ctl.srv, remote);
    }

    struct unixctl_server *unixctl;
    int retval = unixctl_server_create(opts.unixctl_path, &unixctl);
    if (retval) {
        ovs_fatal(retval, "could not create control socket");
    }
    register_commands(&ctl);
    cluster_ctl_register(ctl.dbs);
    ovsdb_replication_register_commands(repl);

    /* --run: serve until the command, run by the shell once the remotes
     * listen, has ended. */
    struct process *run_process = NULL;
    if (opts.run_command) {
        char *run_argv[] = { "/bin/sh", "-c", (char *) opts.run_command,
                             NULL };
        retval = process_start(run_argv, &run_process);
        if (retval) {
            ovs_fatal(retval, "%s: process failed to start", opts.run_command);
        }
    }

    daemonize_complete();
    if (!opts.run_command) {
        /* Not with --run, as the reference: its callers use the server as
         * a command and compare its output. */
        VLOG_INFO("%s (ovsdb) %s, allocator %s", program_name(),
                  PACKAGE_VERSION, allocator_name());
    }

    while (!ctl.exiting) {
        unixctl_server_run(unixctl);
        for (size_t i = 0; i < n_relays; i++) {
            ovsdb_relay_run(relays[i]);
        }
        ovsdb_replication_run(repl);
        ovsdb_server_run(ctl.srv);
        ovsdb_metrics_run(ctl.metrics);
        if (ctl.n_compacts && !ovsdb_databases_compacting(ctl.dbs)) {
            for (size_t i = 0; i < ctl.n_compacts; i++) {
                unixctl_command_reply(ctl.compacts[i], NULL);
            }
            ctl.n_compacts = 0;
        }
        if (run_process && process_exited(run_process)) {
            ctl.exiting = true;
        }
        if (ctl.exiting) {
            break;
        }
        unixctl_server_wait(unixctl);
        if (run_process) {
            process_wait(run_process);
        }
        for (size_t i = 0; i < n_relays; i++) {
            ovsdb_relay_wait(relays[i]);
        }
        ovsdb_replication_wait(repl);
        ovsdb_server_wait(ctl.srv);
        ovsdb_metrics_wait(ctl.metrics);
        if (ctl.n_compacts) {
            poll_timer_wait(100);
        }
        poll_block();
    }

    /* Let the "exit" reply reach the client. */
    unixctl_server_run(unixctl);
    unixctl_server_destroy(unixctl);
    ovsdb_replication_destroy(repl);
    ovsdb_metrics_destroy(ctl.metrics);
    ovsdb_server_destroy(ctl.srv);
    ovsdb_ssl_config_destroy(&opts.ssl);
    for (size_t i = 0; i < n_relays; i++) {
        ovsdb_relay_destroy(relays[i]);
    }
    free(relays);
    restart_config_destroy(restart);
    free(ctl.compacts);
    free(opts.remotes);
    free(default_db);
    if (run_process) {
        int status = process_status(run_process);
        process_destroy(run_process);
        if (status) {
            ovs_fatal(0, "%s: child exited, %s", opts.run_command,
                      process_status_msg(status));
        }
    }
    return 0;
}
