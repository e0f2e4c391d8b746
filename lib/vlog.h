/* lib/vlog.h: logging, controlled like the reference Open vSwitch's.
 *
 * Each .c file that logs names its module once, then logs with printf-style
 * macros:
 *
 *     VLOG_DEFINE_THIS_MODULE(jsonrpc);
 *     ...
 *     VLOG_INFO("%s: connected", name);
 *     static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
 *     VLOG_WARN_RL(&rl, "%s: backlog %zu bytes over limit, closing",
 *                  name, backlog);
 *
 * There are three destinations, "console" (stderr), "syslog" and "file"
 * (set with vlog_set_log_file()), and each module has a level per
 * destination: off < emer < err < warn < info < dbg.  Defaults are those of
 * the reference: console warn (off once detached), syslog info, file info.
 *
 * Lines look like the reference's:
 *     file:     2026-11-30T12:00:00.123Z|00001|module|INFO|message
 *     console:  2026-11-30T12:00:00Z|00001|module|INFO|message
 *     syslog:   ovs|00001|module|INFO|message
 * where 00001 counts messages across the process.  Patterns can be changed
 * with the "PATTERN:destination:pattern" spec (%A %B %c %d %D %E %H %m %N
 * %n %p %P %r %t %T %%, with optional width, and %D{strftime}, as in the
 * reference's ovs-appctl(8)).
 *
 * Level specs (for -v, --verbose, vlog/set, vlog_set_levels_from_string())
 * are comma- or space-separated words, each "dest", "module" or "level" or
 * several joined by ':', exactly as the reference: "console:warn",
 * "file:dbg", "jsonrpc:file:dbg", "dbg" (= all modules, all destinations),
 * "ANY:ANY:info", "off".
 *
 * Logging is for the main thread; other threads may log but lines may then
 * interleave. */
#ifndef LIB_VLOG_H
#define LIB_VLOG_H 1

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "lib/util.h"

enum vlog_level {
    VLL_OFF,
    VLL_EMER,
    VLL_ERR,
    VLL_WARN,
    VLL_INFO,
    VLL_DBG,
    VLL_N_LEVELS
};

enum vlog_destination {
    VLF_CONSOLE,
    VLF_SYSLOG,
    VLF_FILE,
    VLF_N_DESTINATIONS,
    VLF_ANY_DESTINATION = -1
};

/* Returns "off", "emer", ..., "dbg", or NULL if out of range. */
const char *vlog_get_level_name(enum vlog_level);
/* Returns the level named 'name' (case-insensitive), or VLL_N_LEVELS. */
enum vlog_level vlog_get_level_val(const char *name);
/* "console", "syslog", "file", or NULL. */
const char *vlog_get_destination_name(enum vlog_destination);
enum vlog_destination vlog_get_destination_val(const char *name);

/* A logging module.  Define with VLOG_DEFINE_THIS_MODULE; never by hand. */
struct vlog_module {
    struct vlog_module *next;            /* In the list of all modules. */
    const char *name;
    int levels[VLF_N_DESTINATIONS];      /* enum vlog_level per destination. */
    int min_level;                       /* Most verbose of 'levels'. */
    bool honor_rate_limits;
};

void vlog_insert_module(struct vlog_module *);
struct vlog_module *vlog_module_from_name(const char *name);

/* Defines this file's module 'MODULE' (an identifier, e.g. jsonrpc) and
 * registers it at program start-up.  Once per .c file. */
#define VLOG_DEFINE_THIS_MODULE(MODULE)                                      \
    static struct vlog_module vlog_module_##MODULE = {                       \
        NULL, #MODULE, {VLL_INFO, VLL_INFO, VLL_INFO}, VLL_INFO, true};      \
    static void vlog_init_##MODULE(void) __attribute__((__constructor__));   \
    static void vlog_init_##MODULE(void)                                     \
    {                                                                        \
        vlog_insert_module(&vlog_module_##MODULE);                           \
    }                                                                        \
    static struct vlog_module *const this_module = &vlog_module_##MODULE
/* STYLE.md's spelling of the same thing. */
#define VLOG_MODULE(MODULE) VLOG_DEFINE_THIS_MODULE(MODULE)

/* True if 'level' messages from 'module' go to at least one destination. */
static inline bool
vlog_is_enabled(const struct vlog_module *module, enum vlog_level level)
{
    return module->min_level >= (int) level;
}

/* Writes a message at 'level' from 'module' to each enabled destination.
 * Prefer the macros below, which skip formatting when disabled. */
void vlog(const struct vlog_module *, enum vlog_level, const char *fmt, ...)
    PRINTF_FORMAT(3, 4);
void vlog_valist(const struct vlog_module *, enum vlog_level,
                 const char *fmt, va_list);

/* Logs at emergency level, then exits with status 1. */
noreturn void vlog_fatal(const struct vlog_module *, const char *fmt, ...)
    PRINTF_FORMAT(2, 3);
/* Logs at emergency level, then aborts (for states that cannot happen). */
noreturn void vlog_abort(const struct vlog_module *, const char *fmt, ...)
    PRINTF_FORMAT(2, 3);

#define VLOG(LEVEL, ...)                                                     \
    do {                                                                     \
        enum vlog_level level__ = (LEVEL);                                   \
        if (this_module->min_level >= (int) level__) {                       \
            vlog(this_module, level__, __VA_ARGS__);                         \
        }                                                                    \
    } while (0)
#define VLOG_FATAL(...) vlog_fatal(this_module, __VA_ARGS__)
#define VLOG_ABORT(...) vlog_abort(this_module, __VA_ARGS__)
#define VLOG_EMER(...) VLOG(VLL_EMER, __VA_ARGS__)
#define VLOG_ERR(...) VLOG(VLL_ERR, __VA_ARGS__)
#define VLOG_WARN(...) VLOG(VLL_WARN, __VA_ARGS__)
#define VLOG_INFO(...) VLOG(VLL_INFO, __VA_ARGS__)
#define VLOG_DBG(...) VLOG(VLL_DBG, __VA_ARGS__)

#define VLOG_IS_ERR_ENABLED() vlog_is_enabled(this_module, VLL_ERR)
#define VLOG_IS_WARN_ENABLED() vlog_is_enabled(this_module, VLL_WARN)
#define VLOG_IS_INFO_ENABLED() vlog_is_enabled(this_module, VLL_INFO)
#define VLOG_IS_DBG_ENABLED() vlog_is_enabled(this_module, VLL_DBG)

/* Rate limiting: a token bucket.  RATE is messages per minute on average,
 * BURST the most that may come at once.  When messages are dropped, the
 * next one that passes is preceded by a line saying how many were. */
struct vlog_rate_limit {
    unsigned long long tokens; /* One message costs VLOG_MSG_TOKENS. */
    unsigned int rate;         /* Messages per minute. */
    unsigned int burst;        /* Most messages at once. */
    long long last_fill;       /* time_msec() of last refill, 0 = never. */
    long long first_dropped;   /* time_wall() of first drop since report. */
    long long last_dropped;    /* time_wall() of last drop. */
    unsigned int n_dropped;    /* Drops since the last report. */
};

#define VLOG_MSG_TOKENS (60 * 1000)

#define VLOG_RATE_LIMIT_INIT(RATE, BURST)                                    \
    { 0, (RATE), (BURST) > 0 ? (BURST) : 1, 0, 0, 0, 0 }

/* Returns true if a 'level' message from 'module' must be dropped because
 * of 'rl' (or because 'level' is disabled). */
bool vlog_should_drop(const struct vlog_module *, enum vlog_level,
                      struct vlog_rate_limit *);
void vlog_rate_limit(const struct vlog_module *, enum vlog_level,
                     struct vlog_rate_limit *, const char *fmt, ...)
    PRINTF_FORMAT(4, 5);

#define VLOG_RL(RL, LEVEL, ...)                                              \
    do {                                                                     \
        enum vlog_level level__ = (LEVEL);                                   \
        if (this_module->min_level >= (int) level__) {                       \
            vlog_rate_limit(this_module, level__, RL, __VA_ARGS__);          \
        }                                                                    \
    } while (0)
#define VLOG_ERR_RL(RL, ...) VLOG_RL(RL, VLL_ERR, __VA_ARGS__)
#define VLOG_WARN_RL(RL, ...) VLOG_RL(RL, VLL_WARN, __VA_ARGS__)
#define VLOG_INFO_RL(RL, ...) VLOG_RL(RL, VLL_INFO, __VA_ARGS__)
#define VLOG_DBG_RL(RL, ...) VLOG_RL(RL, VLL_DBG, __VA_ARGS__)

/* Sets 'module' (NULL = all) at 'destination' (VLF_ANY_DESTINATION = all)
 * to 'level'. */
void vlog_set_levels(struct vlog_module *, enum vlog_destination,
                     enum vlog_level);
enum vlog_level vlog_get_level(const struct vlog_module *,
                               enum vlog_destination);

/* Applies the spec 's' (see the top of this file).  Returns NULL on
 * success, else an error message such as
 *     no destination, level, or module "foo"
 * that the caller must free with free().  Nothing is changed on error. */
char *vlog_set_levels_from_string(const char *s) WARN_UNUSED_RESULT;

/* Same, but an error is fatal (for command-line options). */
void vlog_set_levels_from_string_assert(const char *s);

/* Handles -v[SPEC] / --verbose[=SPEC]: 'arg' NULL or "" sets dbg for every
 * module and destination; otherwise each space-separated word is a spec.
 * Errors are fatal. */
void vlog_set_verbosity(const char *arg);

/* Returns the table printed by "vlog/list", byte for byte the reference's
 * layout (header, then one line per module sorted by name); caller must
 * free with free(). */
char *vlog_get_levels(void);

/* Returns the table printed by "vlog/list-pattern"; caller must free. */
char *vlog_get_patterns(void);

/* Sets the pattern for 'destination'. */
void vlog_set_pattern(enum vlog_destination, const char *pattern);

/* Logs to 'file_name' from now on (NULL: "<logdir>/<program>.log", see
 * lib/dirs.h), appending, and logs "opened log file PATH" as the reference
 * does.  Returns 0 or an errno; on error the old file, if any, is kept. */
int vlog_set_log_file(const char *file_name);

/* Closes and reopens the log file (for log rotation).  Returns 0 or an
 * errno.  Does nothing and returns 0 if no log file is set. */
int vlog_reopen_log_file(void);

/* Stops logging to a file. */
void vlog_close_log_file(void);

/* Returns the log file name, or NULL; borrowed (valid until the log file
 * changes). */
const char *vlog_get_log_file(void);

/* For --detach: console logging is turned off (lib/daemon calls this). */
void vlog_disable_console(void);

/* Registers "vlog/set", "vlog/list", "vlog/list-pattern", "vlog/reopen",
 * "vlog/close", "vlog/enable-rate-limit", "vlog/disable-rate-limit" with
 * lib/unixctl.  Called by unixctl_server_create(); harmless to repeat. */
void vlog_register_unixctl_commands(void);

/* Command-line support for mains using getopt_long():
 *
 *     enum { VLOG_OPTION_ENUMS, ... };
 *     static const struct option long_options[] = {
 *         VLOG_LONG_OPTIONS, ...
 *     };
 *     short options string: include "v::"
 *     switch (c) { VLOG_OPTION_HANDLERS ... }
 *
 * --syslog-target and --syslog-method are accepted for compatibility. */
#define VLOG_OPTION_ENUMS                                                    \
    OPT_LOG_FILE = UCHAR_MAX + 1000, OPT_SYSLOG_TARGET, OPT_SYSLOG_METHOD
#define VLOG_LONG_OPTIONS                                                    \
    {"verbose", optional_argument, NULL, 'v'},                               \
    {"log-file", optional_argument, NULL, OPT_LOG_FILE},                     \
    {"syslog-target", required_argument, NULL, OPT_SYSLOG_TARGET},           \
    {"syslog-method", required_argument, NULL, OPT_SYSLOG_METHOD}
#define VLOG_OPTION_HANDLERS                                                 \
    case 'v':                                                                \
        vlog_set_verbosity(optarg);                                          \
        break;                                                               \
    case OPT_LOG_FILE:                                                       \
        vlog_handle_log_file_option(optarg);                                 \
        break;                                                               \
    case OPT_SYSLOG_TARGET:                                                  \
    case OPT_SYSLOG_METHOD:                                                  \
        break;

/* Handles --log-file[=FILE]; if it cannot be opened, logs a warning and
 * goes on (as the reference). */
void vlog_handle_log_file_option(const char *arg);

/* Prints the logging options' help text to stdout. */
void vlog_usage(void);

#endif /* lib/vlog.h */
