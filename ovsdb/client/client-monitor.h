/* ovsdb/client/client-monitor.h: ovsdb-client's "monitor", "monitor-cond" and
 * "monitor-cond-since" commands.
 *
 * The command line names one table and groups of columns (or "ALL" for
 * every table and column, with plain "monitor"):
 *
 *     monitor [DATABASE] TABLE [COLUMN[,COLUMN]...]...
 *     monitor-cond [DATABASE] CONDITIONS TABLE [COLUMN[,COLUMN]...]...
 *     monitor-cond-since [DATABASE] [LAST-ID] CONDITIONS TABLE [...]...
 *
 * Each argument after TABLE is one monitor request for that table; it may
 * include "!initial", "!insert", "!delete" and "!modify" to leave out those
 * kinds of change.  A group without columns monitors every column.
 *
 * The initial contents, then every update, are printed as tables of "row",
 * "action" and the columns (RFC 7047 section 4.1.6 "update" for monitor;
 * the "update2" of ovsdb-server(7) for the others: actions "initial",
 * "insert", "delete", "modify").  With several tables each gets its table
 * name as caption. */
#ifndef OVSDB_CLIENT_MONITOR_H
#define OVSDB_CLIENT_MONITOR_H 1

#include <stdbool.h>

struct jsonrpc;
struct tabfmt_style;
struct unixctl_server;

enum client_monitor_method {
    CLIENT_MONITOR,             /* "monitor" (RFC 7047). */
    CLIENT_MONITOR_COND,        /* "monitor_cond". */
    CLIENT_MONITOR_COND_SINCE   /* "monitor_cond_since". */
};

struct client_monitor_options {
    const char *server;         /* For error messages. */
    const char *database;
    enum client_monitor_method method;
    struct tabfmt_style *style;
    bool timestamp;             /* Timestamp each printed table. */
    struct unixctl_server *unixctl;     /* Run in the loop; may be NULL. */
    const bool *exiting;        /* Loop ends once '*exiting' is true. */
    int db_change_aware;        /* 0: do not send set_db_change_aware; 1:
                                 * send it and require it; -1: send it,
                                 * ignore an error. */
};

/* Sends the monitor request described by 'argc' arguments 'argv' (what
 * follows DATABASE on the command line) over 'rpc', prints the initial
 * contents, completes detaching if --detach was given (the caller has
 * called daemonize_start() from lib/daemon.h), then prints
 * updates until the connection closes or '*options->exiting'.  Errors in
 * the arguments and from the server are fatal.
 *
 * With a control server ('options->unixctl'), registers on it, as the
 * reference's client does:
 *   ovsdb-client/cond_change TABLE COND   sends "monitor_cond_change" with
 *                                         the new "where" for TABLE
 *   ovsdb-client/block, /unblock          stop and resume reading from the
 *                                         server (to test a slow reader) */
void client_monitor_run(struct jsonrpc *rpc,
                        const struct client_monitor_options *options,
                        int argc, char *argv[]);

#endif /* ovsdb/client/client-monitor.h */
