/* lib/daemon.h: pidfiles and running in the background, like the
 * reference's daemon options:
 *
 *   --detach               fork; the parent exits 0 once the child calls
 *                          daemonize_complete() (or with the child's
 *                          status if it dies first)
 *   --no-chdir             with --detach, do not chdir("/")
 *   --pidfile[=FILE]       write the pid to FILE (default
 *                          "<rundir>/<program>.pid"), locked with fcntl()
 *                          for the process's life and removed at exit
 *   --overwrite-pidfile    start even if another live process holds the
 *                          pidfile (without it, that is a fatal error)
 *   --monitor              a monitor process restarts the daemon when it
 *                          dies of a crash signal (SIGSEGV, SIGABRT, ...),
 *                          at most once every 10 s; it exits when the
 *                          daemon exits any other way
 *   --user=USER[:GROUP]    drop root for USER (and GROUP, default USER's),
 *                          with USER's supplementary groups, at
 *                          daemonize_start()
 *   --no-self-confinement  accepted: we never confine ourselves to the
 *                          reference's well-known directories anyway
 *
 * A main parses options with the macros below, then calls
 * daemonize_start() before opening listeners, and daemonize_complete()
 * once it is ready to serve:
 *
 *     enum { DAEMON_OPTION_ENUMS, VLOG_OPTION_ENUMS, ... };
 *     static const struct option long_options[] = {
 *         DAEMON_LONG_OPTIONS, VLOG_LONG_OPTIONS, ... };
 *     switch (c) { DAEMON_OPTION_HANDLERS VLOG_OPTION_HANDLERS ... }
 *     ...
 *     daemonize_start();
 *     ... open database, listeners, unixctl ...
 *     daemonize_complete(); */
#ifndef LIB_DAEMON_H
#define LIB_DAEMON_H 1

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* Sets the pidfile name ('name' NULL: the default; relative names are
 * relative to the rundir, as the reference).  Copied. */
void daemon_set_pidfile(const char *name);
/* Returns the pidfile name, or NULL; borrowed. */
const char *daemon_get_pidfile(void);
void daemon_set_overwrite_pidfile(void);
void daemon_set_detach(void);
bool daemon_get_detach(void);
void daemon_set_no_chdir(void);
void daemon_set_monitor(void);
/* Parses "USER[:GROUP]" (fatal if either is unknown). */
void daemon_set_user(const char *spec);

/* If --detach: forks; the parent waits for the child to report readiness
 * and exits.  In the child (or without --detach): creates the pidfile (a
 * fatal error if a live process holds it, unless --overwrite-pidfile).
 * Installs lib/fatal-signal handlers either way. */
void daemonize_start(void);

/* Tells the waiting parent that start-up succeeded (it exits 0), then, if
 * detached: setsid(), chdir("/") unless --no-chdir, stdin/stdout/stderr to
 * /dev/null, and console logging off.  Harmless without --detach. */
void daemonize_complete(void);

/* Writes a pidfile at 'name' for the current process now (what
 * daemonize_start() does).  Returns 0 or an errno; EEXIST-style conflicts
 * (a live holder) give EBUSY. */
int daemon_make_pidfile(const char *name, bool overwrite);

/* Returns the pid recorded in pidfile 'name' if a live process holds its
 * lock, 0 if none does (stale or absent file), or a negative errno. */
pid_t daemon_read_pidfile(const char *name);

/* Prints the daemon options' help text to stdout. */
void daemon_usage(void);

#define DAEMON_OPTION_ENUMS                                                  \
    OPT_DETACH = UCHAR_MAX + 2000, OPT_NO_CHDIR, OPT_OVERWRITE_PIDFILE,      \
    OPT_PIDFILE, OPT_MONITOR, OPT_USER_GROUP, OPT_NO_SELF_CONFINEMENT
#define DAEMON_LONG_OPTIONS                                                  \
    {"detach", no_argument, NULL, OPT_DETACH},                               \
    {"no-chdir", no_argument, NULL, OPT_NO_CHDIR},                           \
    {"pidfile", optional_argument, NULL, OPT_PIDFILE},                       \
    {"overwrite-pidfile", no_argument, NULL, OPT_OVERWRITE_PIDFILE},         \
    {"monitor", no_argument, NULL, OPT_MONITOR},                             \
    {"user", required_argument, NULL, OPT_USER_GROUP},                       \
    {"no-self-confinement", no_argument, NULL, OPT_NO_SELF_CONFINEMENT}
#define DAEMON_OPTION_HANDLERS                                               \
    case OPT_DETACH:                                                         \
        daemon_set_detach();                                                 \
        break;                                                               \
    case OPT_NO_CHDIR:                                                       \
        daemon_set_no_chdir();                                               \
        break;                                                               \
    case OPT_PIDFILE:                                                        \
        daemon_set_pidfile(optarg);                                          \
        break;                                                               \
    case OPT_OVERWRITE_PIDFILE:                                              \
        daemon_set_overwrite_pidfile();                                      \
        break;                                                               \
    case OPT_MONITOR:                                                        \
        daemon_set_monitor();                                                \
        break;                                                               \
    case OPT_USER_GROUP:                                                     \
        daemon_set_user(optarg);                                             \
        break;                                                               \
    case OPT_NO_SELF_CONFINEMENT:                                            \
        break;

#endif /* lib/daemon.h */
