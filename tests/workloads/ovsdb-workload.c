/* tests/workloads/ovsdb-workload.c: runs the benchmark workloads against an
 * OVSDB server.
 *
 *     ovsdb-workload [--scale=S] [--workers=N] REMOTE WORKLOAD...
 *
 * Prints one JSON line per workload run and exits 1 on the first failure
 * (a failed run still prints its line, with "ok":false and the error). */
#include <config.h>

#include <getopt.h>
#include <signal.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/util.h"
#include "tests/workloads/wl-rpc.h"
#include "tests/workloads/wl-workloads.h"

static noreturn void
usage(void)
{
    printf("%s: runs OVSDB benchmark workloads\n"
           "usage: %s [OPTIONS] REMOTE WORKLOAD...\n"
           "REMOTE is unix:PATH, tcp:IP:PORT or ssl:IP:PORT.  WORKLOAD is "
           "one of:\n",
           program_name(), program_name());
    for (const struct wl_workload *w = wl_workloads; w->name; w++) {
        printf("  %-8s  %s\n", w->name, w->description);
    }
    printf("  all       the five above, in this order\n"
           "OVN-shaped workloads (--clients, --rows):\n");
    for (const struct wl_workload *w = wl_ovn_workloads; w->name; w++) {
        printf("  %-10s  %s\n", w->name, w->description);
    }
    printf(
        "  ovn       the three above, in this order\n"
        "Options:\n"
        "  --scale=S      multiply every count by S (default 1.0)\n"
        "  --workers=N    parallel clients (default 10)\n"
        "  --db=NAME      database name (default Workload)\n"
        "  --run=TAG      prefix of the tag of the rows a run creates\n"
        "  --durable      end every transaction with a durable commit\n"
        "  --no-monitors  in update1, update2, insert and size, do not\n"
        "                 monitor Item (by default every connection\n"
        "                 monitors what it works on, as an IDL does)\n"
        "  --monitor-method=M  queue: every client also monitors Slot,\n"
        "                 with M (monitor, monitor_cond or\n"
        "                 monitor_cond_since; default: only Request,\n"
        "                 with monitor)\n"
        "  --clients=N    OVN workloads: clients and chassis (default\n"
        "                 1000 x scale)\n"
        "  --rows=N       OVN workloads: Binding rows (default\n"
        "                 100000 x scale)\n"
        "  --probe        only check that REMOTE serves the database\n"
        "  --sync         before and after each timed phase, print\n"
        "                 {\"sync\":\"timed\"|\"check\"} and wait for a "
        "line\n"
        "                 on stdin (lets a runner sample the server)\n"
        "  --private-key=FILE, --certificate=FILE, --ca-cert=FILE\n"
        "                 ssl: remotes: this client's key and certificate,\n"
        "                 and the CA that signed the server's\n"
        "  -h, --help     show this help\n");
    exit(0);
}

/* --sync: prints {"sync":PHASE} and waits for a line on stdin. */
static void
sync_stdin(const char *phase)
{
    char line[64];

    printf("{\"sync\":\"%s\"}\n", phase);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) {
        ovs_fatal(0, "--sync: end of input");
    }
}

static const struct wl_workload *
find_workload(const char *name)
{
    for (const struct wl_workload *w = wl_workloads; w->name; w++) {
        if (!strcmp(w->name, name)) {
            return w;
        }
    }
    for (const struct wl_workload *w = wl_ovn_workloads; w->name; w++) {
        if (!strcmp(w->name, name)) {
            return w;
        }
    }
    return NULL;
}


/* Runs 'w' and prints its JSON line.  Returns 0 or -1. */
static int
run_one(const struct wl_workload *w, const struct wl_config *base)
{
    struct wl_config cfg = *base;
    struct wl_result res;
    struct ds line = DS_EMPTY_INITIALIZER;
    static int n_runs;
    char *run;
    int retval;

    /* Each run tags its rows differently, so runs can share a database. */
    memset(&res, 0, sizeof res);
    ds_init(&res.extra);
    if (base->run) {
        run = xasprintf("%s-%s-%d", base->run, w->name, n_runs++);
    } else {
        run = xasprintf("%s-%ld-%ld-%d", w->name, (long) getpid(),
                        (long) time(NULL), n_runs++);
    }
    cfg.run = run;
    retval = w->run(&cfg, &res);

    ds_put_format(&line, "{\"workload\":\"%s\",\"ok\":%s,\"scale\":%g,"
                  "\"workers\":%d,\"seconds\":%.3f,\"setup_seconds\":%.3f,"
                  "\"check_seconds\":%.3f,\"transactions\":%lld,"
                  "\"operations\":%lld,\"rows\":%lld,\"atoms\":%lld,"
                  "\"latency_ms\":"
                  "{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f},"
                  "\"bytes_sent\":%zu,\"bytes_received\":%zu",
                  w->name, retval ? "false" : "true", cfg.scale, cfg.workers,
                  res.seconds, res.setup_seconds, res.check_seconds,
                  res.transactions, res.operations, res.rows, res.atoms,
                  res.latency_ms[0], res.latency_ms[1], res.latency_ms[2],
                  res.bytes_sent, res.bytes_received);
    ds_put_cstr(&line, ds_cstr(&res.extra));
    if (res.error) {
        json_t *s = json_string(res.error);
        char *text = json_dumps(s, JSON_ENCODE_ANY);
        ds_put_format(&line, ",\"error\":%s", text);
        free(text);
        json_decref(s);
        fprintf(stderr, "%s: %s: %s\n", program_name(), w->name, res.error);
    }
    ds_put_char(&line, '}');
    puts(ds_cstr(&line));
    fflush(stdout);

    ds_destroy(&line);
    ds_destroy(&res.extra);
    free(res.error);
    free(run);
    return retval;
}

/* Runs every workload of 'ws'.  Returns 0 or -1. */
static int
run_list(const struct wl_workload *ws, const struct wl_config *cfg)
{
    for (const struct wl_workload *w = ws; w->name; w++) {
        if (run_one(w, cfg)) {
            return -1;
        }
    }
    return 0;
}

int
main(int argc, char *argv[])
{
    static const struct option options[] = {
        { "scale", required_argument, NULL, 's' },
        { "workers", required_argument, NULL, 'w' },
        { "db", required_argument, NULL, 'd' },
        { "run", required_argument, NULL, 'r' },
        { "probe", no_argument, NULL, 'p' },
        { "durable", no_argument, NULL, 'D' },
        { "clients", required_argument, NULL, 'c' },
        { "monitors", no_argument, NULL, 'm' },
        { "no-monitors", no_argument, NULL, 'M' },
        { "rows", required_argument, NULL, 'R' },
        { "monitor-method", required_argument, NULL, 'T' },
        { "sync", no_argument, NULL, 'S' },
        { "private-key", required_argument, NULL, 'K' },
        { "certificate", required_argument, NULL, 'C' },
        { "ca-cert", required_argument, NULL, 'A' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct wl_config cfg = {.db = "Workload", .scale = 1.0, .workers = 10,
                            .monitors = true};
    const char *key = NULL, *cert = NULL, *ca_cert = NULL;
    bool probe = false;
    int c;

    set_program_name(argv[0]);
    /* OpenSSL writes with write(2): a server that closed a TLS connection
     * must give that client an error to report, not kill the driver. */
    signal(SIGPIPE, SIG_IGN);
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        char *end;
        switch (c) {
        case 's':
            cfg.scale = strtod(optarg, &end);
            if (*end || !(cfg.scale > 0) || cfg.scale > 100) {
                ovs_fatal(0, "--scale: %s is not a number in (0, 100]",
                          optarg);
            }
            break;
        case 'w':
            if (!str_to_int(optarg, &cfg.workers) || cfg.workers < 1
                || cfg.workers > 1000) {
                ovs_fatal(0, "--workers: %s is not in 1..1000", optarg);
            }
            break;
        case 'm':
        case 'M':
            cfg.monitors = c == 'm';
            break;
        case 'c':
            if (!str_to_int(optarg, &cfg.clients) || cfg.clients < 2
                || cfg.clients > 10000) {
                ovs_fatal(0, "--clients: %s is not in 2..10000", optarg);
            }
            break;
        case 'R':
            cfg.rows = strtoll(optarg, &end, 10);
            if (*end || cfg.rows < 1) {
                ovs_fatal(0, "--rows: %s is not a positive number", optarg);
            }
            break;
        case 'd':
            cfg.db = optarg;
            break;
        case 'T':
            if (strcmp(optarg, "monitor") && strcmp(optarg, "monitor_cond")
                && strcmp(optarg, "monitor_cond_since")) {
                ovs_fatal(0,
                          "--monitor-method: %s is not monitor, "
                          "monitor_cond or monitor_cond_since",
                          optarg);
            }
            cfg.monitor_method = optarg;
            break;
        case 'r':
            cfg.run = optarg;
            break;
        case 'K':
            key = optarg;
            break;
        case 'C':
            cert = optarg;
            break;
        case 'A':
            ca_cert = optarg;
            break;
        case 'p':
            probe = true;
            break;
        case 'S':
            cfg.sync = sync_stdin;
            break;
        case 'D':
            wl_rpc_set_durable(true);
            break;
        case 'h':
            usage();
        default:
            exit(2);
        }
    }
    if (optind >= argc) {
        ovs_fatal(0, "missing REMOTE (try --help)");
    }
    cfg.remote = argv[optind++];
    wl_rpc_set_ssl(key, cert, ca_cert);
    if (strchr(cfg.db, '"') || strchr(cfg.db, '\\')
        || (cfg.run && (strchr(cfg.run, '"') || strchr(cfg.run, '\\')))) {
        ovs_fatal(0, "--db and --run must not contain quotes or "
                  "backslashes");
    }

    if (probe) {
        char *error;
        if (wl_probe(&cfg, &error)) {
            fprintf(stderr, "%s: probe: %s\n", program_name(), error);
            free(error);
            return 1;
        }
        return 0;
    }
    if (optind >= argc) {
        ovs_fatal(0, "missing WORKLOAD (try --help)");
    }

    /* Check every name before running anything. */
    for (int i = optind; i < argc; i++) {
        if (strcmp(argv[i], "all") && strcmp(argv[i], "ovn")
            && !find_workload(argv[i])) {
            ovs_fatal(0, "unknown workload %s (try --help)", argv[i]);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (!strcmp(argv[i], "all") || !strcmp(argv[i], "ovn")) {
            if (run_list(!strcmp(argv[i], "all") ? wl_workloads
                         : wl_ovn_workloads, &cfg)) {
                return 1;
            }
        } else if (run_one(find_workload(argv[i]), &cfg)) {
            return 1;
        }
    }
    return 0;
}
