/* utilities/ovsdb-appctl.c: sends one command to a daemon's control socket
 * and prints the answer; Open vSwitch's ovs-appctl with its syntax, output
 * and exit statuses, so that the README's commands need nothing from Open
 * vSwitch's packages.
 *
 *     ovsdb-appctl [-t TARGET] [--timeout=SECS] COMMAND [ARG...]
 *
 * TARGET is a socket if it starts with '/', else a program name whose
 * pidfile, $OVS_RUNDIR/TARGET.pid, gives the socket
 * $OVS_RUNDIR/TARGET.PID.ctl.  The default target is ovsdb-server (where
 * ovs-appctl's is ovs-vswitchd: ours is the database's tool).
 *
 * Exit statuses, as ovs-appctl's: 0 the command succeeded (its output on
 * stdout); 2 the daemon answered with an error (on stderr); 1 no daemon to
 * talk to, a broken answer or a bad command line; killed by SIGALRM
 * (status 142 in a shell) when --timeout expires. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/daemon.h"
#include "lib/dirs.h"
#include "lib/jsonrpc.h"
#include "lib/unixctl.h"
#include "lib/util.h"
#include "lib/version.h"
#include "lib/vlog.h"

static noreturn void
usage(void)
{
    printf("%s: sends a command to a running daemon's control socket\n"
           "usage: %s [-t TARGET] [--timeout=SECS] COMMAND [ARG...]\n"
           "Targets:\n"
           "  -t, --target=TARGET  pidfile name (default: ovsdb-server) "
           "or socket\n"
           "                       path (starting with /) to contact\n"
           "Common commands:\n"
           "  list-commands      list the commands the target supports\n"
           "  version            print the target's version\n"
           "  vlog/list          list the logging levels\n"
           "  vlog/list-pattern  list the logging patterns\n"
           "  vlog/set [SPEC]    set logging levels (see ovsdb-server(1))\n"
           "  vlog/reopen        reopen the log file\n"
           "Other options:\n"
           "  -T, --timeout=SECS wait at most SECS seconds for the answer\n"
           "  -h, --help         display this help message\n"
           "  -V, --version      display version information\n",
           program_name(), program_name());
    vlog_usage();
    exit(EXIT_SUCCESS);
}

/* Killed by --timeout: say so, then die of the signal, as ovs-appctl does,
 * so that a script sees the same status. */
static void
timeout_handler(int sig)
{
    static const char msg[] = ": timed out waiting for an answer\n";
    const char *name = program_name();
    if (write(STDERR_FILENO, name, strlen(name)) < 0
        || write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        /* Nothing more to do: dying anyway. */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Parses the options; returns the target. */
static const char *
parse_options(int argc, char *argv[])
{
    enum {
        VLOG_OPTION_ENUMS
    };
    static const struct option long_options[] = {
        { "target", required_argument, NULL, 't' },
        { "timeout", required_argument, NULL, 'T' },
        { "execute", no_argument, NULL, 'e' },
        { "option", no_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        VLOG_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    const char *target = NULL;
    int n_execute = 0;
    int timeout = 0;

    for (;;) {
        /* "+": options end at the command, whose arguments may look like
         * options ("vlog/set -vfile:dbg" is not ours to parse). */
        int c = getopt_long(argc, argv, "+t:T:eohVv::", long_options, NULL);
        if (c == -1) {
            break;
        }
        switch (c) {
        case 't':
            if (target) {
                ovs_fatal(0, "-t or --target may be specified only once");
            }
            target = optarg;
            break;
        case 'T':
            if (!str_to_int(optarg, &timeout) || timeout <= 0) {
                ovs_fatal(0, "value %s on -T or --timeout is invalid", optarg);
            }
            break;
        case 'e':
            /* Accepted for old scripts, which wrote "-e COMMAND": the
             * command is the first argument either way. */
            if (n_execute++) {
                ovs_fatal(0, "-e or --execute may be specified only once");
            }
            break;
        case 'o':
            for (const struct option *o = long_options; o->name; o++) {
                printf("--%s%s\n", o->name,
                       o->has_arg == required_argument   ? "=ARG"
                       : o->has_arg == optional_argument ? "[=ARG]"
                                                         : "");
            }
            exit(EXIT_SUCCESS);
        case 'h':
            usage();
        case 'V':
            version_print();
            exit(EXIT_SUCCESS);
            VLOG_OPTION_HANDLERS
        case '?':
            exit(EXIT_FAILURE);
        default:
            abort();
        }
    }
    if (optind >= argc) {
        ovs_fatal(0, "at least one non-option argument is required "
                     "(use --help for help)");
    }
    if (timeout) {
        signal(SIGALRM, timeout_handler);
        alarm(timeout);
    }
    return target ? target : "ovsdb-server";
}

/* Returns the control socket of 'target' (new string); exits if a pidfile
 * names no running daemon. */
static char *
socket_of(const char *target)
{
    if (target[0] == '/') {
        return xstrdup(target);
    }
    char *pidfile = xasprintf("%s/%s.pid", dirs_rundir(), target);
    pid_t pid = daemon_read_pidfile(pidfile);
    if (pid <= 0) {
        /* 0: no file, or no process holds its lock any more. */
        int error = (pid < 0 ? -pid : access(pidfile, F_OK) ? ENOENT : ESRCH);
        ovs_fatal(error, "cannot read pidfile \"%s\"", pidfile);
    }
    free(pidfile);
    return xasprintf("%s/%s.%ld.ctl", dirs_rundir(), target, (long) pid);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    const char *target = parse_options(argc, argv);
    char *path = socket_of(target);

    struct jsonrpc *client;
    int error = unixctl_client_create(path, &client);
    if (error) {
        ovs_fatal(error, "cannot connect to \"%s\"", path);
    }

    const char *command = argv[optind];
    char *result, *reply_error;
    error = unixctl_client_transact(client, command, argc - optind - 1,
                                    argv + optind + 1, &result, &reply_error);
    if (error) {
        ovs_fatal(error, "%s: transaction error", target);
    }
    jsonrpc_close(client);
    if (reply_error) {
        fputs(reply_error, stderr);
        ovs_error(0, "%s: server returned an error", target);
        exit(2);
    }
    fputs(result, stdout);
    free(result);
    free(path);
    return 0;
}
