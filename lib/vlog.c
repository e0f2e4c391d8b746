/* lib/vlog.c: see vlog.h.
 *
 * Every message gets a process-wide sequence number, is formatted once per
 * destination with that destination's pattern, and is written with one
 * write() so concurrent writers to the same file do not interleave within
 * a line.  A mutex covers the sequence number and the outputs, so another
 * thread (a compaction snapshot) may log too. */
#include <config.h>
#include "lib/vlog.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/timeval.h"
#include "lib/unixctl.h"

VLOG_DEFINE_THIS_MODULE(vlog);

static const char *const level_names[VLL_N_LEVELS] = {
    "off", "emer", "err", "warn", "info", "dbg"
};
static const char *const level_names_upper[VLL_N_LEVELS] = {
    "OFF", "EMER", "ERR", "WARN", "INFO", "DBG"
};
static const int syslog_levels[VLL_N_LEVELS] = {
    0, LOG_ALERT, LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_DEBUG
};
static const char *const destination_names[VLF_N_DESTINATIONS] = {
    "console", "syslog", "file"
};

#define DEFAULT_FILE_PATTERN "%D{%Y-%m-%dT%H:%M:%S.###Z}|%05N|%c%T|%p|%m"
static const char *const default_patterns[VLF_N_DESTINATIONS] = {
    "%D{%Y-%m-%dT%H:%M:%SZ}|%05N|%c%T|%p|%m",
    "ovs|%05N|%c%T|%p|%m",
    DEFAULT_FILE_PATTERN,
};
static char *patterns[VLF_N_DESTINATIONS];

/* All modules, in registration order. */
static struct vlog_module *all_modules;

static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;

/* A child forked while another thread logs (a compaction child, while a
 * TLS handshake thread writes a warning) would find 'log_mutex' held
 * forever: fork() takes it first, and both sides release it. */
static void
log_mutex_acquire(void)
{
    pthread_mutex_lock(&log_mutex);
}

static void
log_mutex_release(void)
{
    pthread_mutex_unlock(&log_mutex);
}

static void
register_fork_handlers(void)
{
    pthread_atfork(log_mutex_acquire, log_mutex_release, log_mutex_release);
}

static void
lock_log(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_fork_handlers);
    pthread_mutex_lock(&log_mutex);
}

static unsigned int msg_num;
static long long boot_msec;

static char *log_file_name;
static int log_fd = -1;
static bool syslog_opened;

const char *
vlog_get_level_name(enum vlog_level level)
{
    return (int) level >= 0 && level < VLL_N_LEVELS ? level_names[level]
                                                    : NULL;
}

enum vlog_level
vlog_get_level_val(const char *name)
{
    for (int i = 0; i < VLL_N_LEVELS; i++) {
        if (!strcasecmp(name, level_names[i])) {
            return i;
        }
    }
    return VLL_N_LEVELS;
}

const char *
vlog_get_destination_name(enum vlog_destination dest)
{
    return (int) dest >= 0 && dest < VLF_N_DESTINATIONS
           ? destination_names[dest] : NULL;
}

enum vlog_destination
vlog_get_destination_val(const char *name)
{
    for (int i = 0; i < VLF_N_DESTINATIONS; i++) {
        if (!strcasecmp(name, destination_names[i])) {
            return i;
        }
    }
    return VLF_N_DESTINATIONS;
}

static void
update_min_level(struct vlog_module *module)
{
    module->min_level = VLL_OFF;
    for (int i = 0; i < VLF_N_DESTINATIONS; i++) {
        bool usable = i != VLF_FILE || log_fd >= 0;
        if (usable && module->levels[i] > module->min_level) {
            module->min_level = module->levels[i];
        }
    }
}

static void
update_all_min_levels(void)
{
    for (struct vlog_module *m = all_modules; m; m = m->next) {
        update_min_level(m);
    }
}

void
vlog_insert_module(struct vlog_module *module)
{
    if (!boot_msec) {
        boot_msec = time_wall_msec();
    }
    for (struct vlog_module *m = all_modules; m; m = m->next) {
        if (m == module) {
            return;
        }
    }
    module->next = all_modules;
    all_modules = module;
    update_min_level(module);
}

struct vlog_module *
vlog_module_from_name(const char *name)
{
    for (struct vlog_module *m = all_modules; m; m = m->next) {
        if (!strcasecmp(m->name, name)) {
            return m;
        }
    }
    return NULL;
}

/* The logging modules of Open vSwitch 3.1's library, which each of its
 * programs links whole.  Scripts and test suites written for those programs
 * name them in -v and vlog/set ("-vtimeval:off"); we accept such a name as
 * a module that exists and never logs, so that the same command lines work.
 * A module of ours with the same name is found first. */
static const char ovs_library_modules[] =
    "backtrace bundle command_line conntrack conntrack_tp coverage "
    "ct_dpif dns_resolve dpdk dpif dpif_lookup_autovalidator "
    "dpif_lookup_generic dpif_mfex_extract_study dpif_netdev "
    "dpif_netdev_extract dpif_netdev_impl dpif_netdev_lookup "
    "dpif_netlink dpif_netlink_rtnl entropy fatal_signal flow hmap ipf "
    "jsonrpc lockfile meta_flow native_tnl netdev netdev_afxdp "
    "netdev_linux netdev_offload netdev_offload_tc netdev_vport netlink "
    "netlink_conntrack netlink_notifier netlink_socket nx_match "
    "odp_execute odp_execute_impl odp_util ofp_actions ofp_bundle "
    "ofp_connection ofp_errors ofp_flow ofp_group ofp_match ofp_meter "
    "ofp_monitor ofp_msgs ofp_packet ofp_port ofp_protocol ofp_queue "
    "ofp_table ofp_util ovs_numa ovs_rcu ovs_replay ovs_router "
    "ovs_thread ovsdb ovsdb_cs ovsdb_error ovsdb_file ovsdb_idl "
    "ovsdb_jsonrpc_server ovsdb_log ovsdb_monitor ovsdb_rbac ovsdb_util "
    "ox_stat pmd_perf poll_loop raft raft_rpc reconnect route_table sha1 "
    "signals socket_util socket_util_unix storage stream stream_fd "
    "stream_replay stream_ssl stream_tcp stream_unix svec tc timeval "
    "transaction transaction_forward trigger unixctl userspace_tso util "
    "uuid vlog";

static bool
is_ovs_library_module(const char *name)
{
    size_t len = strlen(name);
    for (const char *p = ovs_library_modules; *p;) {
        size_t n = strcspn(p, " ");
        if (n == len && !strncasecmp(p, name, len)) {
            return true;
        }
        p += n + (p[n] == ' ');
    }
    return false;
}

static void
set_module_level(struct vlog_module *module, enum vlog_destination dest,
                 enum vlog_level level)
{
    if (dest == VLF_ANY_DESTINATION) {
        for (int i = 0; i < VLF_N_DESTINATIONS; i++) {
            module->levels[i] = level;
        }
    } else {
        module->levels[dest] = level;
    }
    update_min_level(module);
}

void
vlog_set_levels(struct vlog_module *module, enum vlog_destination dest,
                enum vlog_level level)
{
    if (module) {
        set_module_level(module, dest, level);
    } else {
        for (struct vlog_module *m = all_modules; m; m = m->next) {
            set_module_level(m, dest, level);
        }
    }
}

enum vlog_level
vlog_get_level(const struct vlog_module *module, enum vlog_destination dest)
{
    return module->levels[dest];
}

void
vlog_disable_console(void)
{
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);
}

/* Patterns. */

static const char *
get_pattern(enum vlog_destination dest)
{
    return patterns[dest] ? patterns[dest] : default_patterns[dest];
}

void
vlog_set_pattern(enum vlog_destination dest, const char *pattern)
{
    if (dest == VLF_ANY_DESTINATION) {
        for (int i = 0; i < VLF_N_DESTINATIONS; i++) {
            vlog_set_pattern(i, pattern);
        }
        return;
    }
    lock_log();
    free(patterns[dest]);
    patterns[dest] = xstrdup(pattern);
    pthread_mutex_unlock(&log_mutex);
}

char *
vlog_get_patterns(void)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "         prefix                            format\n");
    ds_put_format(&s, "         ------                            ------\n");
    for (int i = 0; i < VLF_N_DESTINATIONS; i++) {
        struct ds name = DS_EMPTY_INITIALIZER;
        for (const char *p = destination_names[i]; *p; p++) {
            ds_put_char(&name, toupper((unsigned char) *p));
        }
        ds_put_format(&s, "%-9s%-34s%s\n", ds_cstr(&name),
                      i == VLF_SYSLOG ? "<%B> %D{%h %e %T} %E %A:" : "none",
                      get_pattern(i));
        ds_destroy(&name);
    }
    return ds_steal_cstr(&s);
}

/* Appends the time 'msec' (wall clock) formatted with strftime() 'fmt',
 * where "###" stands for the milliseconds, to 's'. */
static void
put_strftime(struct ds *s, const char *fmt, long long msec, bool utc)
{
    time_t secs = msec / 1000;
    struct tm tm;
    if (utc) {
        gmtime_r(&secs, &tm);
    } else {
        localtime_r(&secs, &tm);
    }

    char buf[256];
    size_t n = strftime(buf, sizeof buf, fmt, &tm);
    buf[n] = '\0';

    char *ms = strstr(buf, "###");
    if (ms) {
        char digits[16];
        snprintf(digits, sizeof digits, "%03d", (int) (msec % 1000));
        memcpy(ms, digits, 3);
    }
    ds_put_cstr(s, buf);
}

static const char *
hostname(void)
{
    static char name[256];
    if (!name[0] && gethostname(name, sizeof name - 1)) {
        strcpy(name, "localhost");
    }
    return name;
}

/* Formats one line of 'pattern' into 's'. */
static void
format_line(struct ds *s, const char *pattern,
            const struct vlog_module *module, enum vlog_level level,
            unsigned int seq, long long now, const char *message)
{
    struct ds field = DS_EMPTY_INITIALIZER;

    for (const char *p = pattern; *p;) {
        if (*p != '%') {
            ds_put_char(s, *p++);
            continue;
        }
        p++;

        bool left = false, zero = false;
        int width = 0;
        if (*p == '-') {
            left = true;
            p++;
        }
        if (*p == '0') {
            zero = true;
            p++;
        }
        while (isdigit((unsigned char) *p)) {
            width = width * 10 + (*p++ - '0');
        }

        ds_clear(&field);
        char c = *p ? *p++ : '\0';
        switch (c) {
        case 'A':
            ds_put_cstr(&field, program_name());
            break;
        case 'B':
            ds_put_format(&field, "%d", LOG_DAEMON | syslog_levels[level]);
            break;
        case 'c':
            ds_put_cstr(&field, module->name);
            break;
        case 'd':
        case 'D':
            if (*p == '{') {
                const char *end = strchr(p, '}');
                if (end) {
                    char *fmt = xmemdup0(p + 1, end - p - 1);
                    put_strftime(&field, fmt, now, c == 'D');
                    free(fmt);
                    p = end + 1;
                    break;
                }
            }
            put_strftime(&field, "%Y-%m-%d %H:%M:%S.###", now, c == 'D');
            break;
        case 'E':
        case 'H':
            ds_put_cstr(&field, hostname());
            break;
        case 'm':
            ds_put_cstr(&field, message);
            break;
        case 'N':
            ds_put_format(&field, "%u", seq);
            break;
        case 'n':
            ds_put_char(&field, '\n');
            break;
        case 'p':
            ds_put_cstr(&field, level_names_upper[level]);
            break;
        case 'P':
            ds_put_format(&field, "%ld", (long) getpid());
            break;
        case 'r':
            ds_put_format(&field, "%lld", now - boot_msec);
            break;
        case 't':
            ds_put_cstr(&field, "main");
            break;
        case 'T':
            break;
        case '\0':
            break;
        default:
            ds_put_char(&field, c);
            break;
        }

        size_t len = field.length;
        if (width > len && !left) {
            ds_put_char_multiple(s, zero ? '0' : ' ', width - len);
        }
        ds_put_buffer(s, field.string ? field.string : "", len);
        if (width > len && left) {
            ds_put_char_multiple(s, ' ', width - len);
        }
    }
    ds_destroy(&field);
}

/* Emitting. */

static void
write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t retval = write(fd, p, n);
        if (retval < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        p += retval;
        n -= retval;
    }
}

void
vlog_valist(const struct vlog_module *module, enum vlog_level level,
            const char *fmt, va_list args)
{
    bool to_console = module->levels[VLF_CONSOLE] >= (int) level;
    bool to_syslog = module->levels[VLF_SYSLOG] >= (int) level;
    bool to_file = module->levels[VLF_FILE] >= (int) level;
    if (level == VLL_OFF || !(to_console || to_syslog || to_file)) {
        return;
    }

    int saved_errno = errno;
    char *message = xvasprintf(fmt, args);
    long long now = time_wall_msec();
    struct ds line = DS_EMPTY_INITIALIZER;

    lock_log();
    unsigned int seq = ++msg_num;
    if (to_console) {
        format_line(&line, get_pattern(VLF_CONSOLE), module, level, seq, now,
                    message);
        ds_put_char(&line, '\n');
        write_all(STDERR_FILENO, line.string, line.length);
    }
    if (to_syslog) {
        ds_clear(&line);
        format_line(&line, get_pattern(VLF_SYSLOG), module, level, seq, now,
                    message);
        if (!syslog_opened) {
            openlog(program_name(), LOG_NDELAY, LOG_DAEMON);
            syslog_opened = true;
        }
        syslog(syslog_levels[level], "%s", ds_cstr(&line));
    }
    if (to_file && log_fd >= 0) {
        ds_clear(&line);
        format_line(&line, get_pattern(VLF_FILE), module, level, seq, now,
                    message);
        ds_put_char(&line, '\n');
        write_all(log_fd, line.string, line.length);
    }
    pthread_mutex_unlock(&log_mutex);

    ds_destroy(&line);
    free(message);
    errno = saved_errno;
}

void
vlog(const struct vlog_module *module, enum vlog_level level,
     const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vlog_valist(module, level, fmt, args);
    va_end(args);
}

static void
vlog_emer_to_stderr(const struct vlog_module *module, const char *fmt,
                    va_list args)
{
    va_list args2;
    va_copy(args2, args);
    vlog_valist(module, VLL_EMER, fmt, args);
    if (module->levels[VLF_CONSOLE] < VLL_EMER) {
        /* Make sure a human sees why we died. */
        fprintf(stderr, "%s: ", program_name());
        vfprintf(stderr, fmt, args2);
        fputc('\n', stderr);
    }
    va_end(args2);
}

void
vlog_fatal(const struct vlog_module *module, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vlog_emer_to_stderr(module, fmt, args);
    va_end(args);
    exit(EXIT_FAILURE);
}

void
vlog_abort(const struct vlog_module *module, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vlog_emer_to_stderr(module, fmt, args);
    va_end(args);
    abort();
}

/* Rate limiting. */

bool
vlog_should_drop(const struct vlog_module *module, enum vlog_level level,
                 struct vlog_rate_limit *rl)
{
    if (!vlog_is_enabled(module, level)) {
        return true;
    }
    if (!module->honor_rate_limits) {
        return false;
    }

    lock_log();
    unsigned long long max = (unsigned long long) rl->burst * VLOG_MSG_TOKENS;
    long long now = time_msec();
    if (!rl->last_fill) {
        rl->tokens = max;
        rl->last_fill = now;
    } else if (rl->tokens < VLOG_MSG_TOKENS && now > rl->last_fill) {
        unsigned long long add = (unsigned long long) (now - rl->last_fill)
                                 * rl->rate;
        rl->tokens = add >= max - rl->tokens ? max : rl->tokens + add;
        rl->last_fill = now;
    }

    bool drop = rl->tokens < VLOG_MSG_TOKENS;
    if (drop) {
        time_t wall = time_wall();
        if (!rl->n_dropped) {
            rl->first_dropped = wall;
        }
        rl->last_dropped = wall;
        rl->n_dropped++;
    } else {
        rl->tokens -= VLOG_MSG_TOKENS;
    }
    pthread_mutex_unlock(&log_mutex);

    if (!drop && rl->n_dropped) {
        time_t wall = time_wall();
        unsigned int n = rl->n_dropped;
        rl->n_dropped = 0;
        vlog(module, level,
             "Dropped %u log messages in last %lld seconds (most recently, "
             "%lld seconds ago) due to excessive rate", n,
             (long long) (wall - rl->first_dropped),
             (long long) (wall - rl->last_dropped));
    }
    return drop;
}

void
vlog_rate_limit(const struct vlog_module *module, enum vlog_level level,
                struct vlog_rate_limit *rl, const char *fmt, ...)
{
    if (!vlog_should_drop(module, level, rl)) {
        va_list args;
        va_start(args, fmt);
        vlog_valist(module, level, fmt, args);
        va_end(args);
    }
}

/* Level specs. */

char *
vlog_set_levels_from_string(const char *s_)
{
    char *s = xstrdup(s_);
    char *save_ptr = NULL;
    char *msg = NULL;
    char *word = strtok_r(s, " ,:\t", &save_ptr);

    if (word && !strcasecmp(word, "PATTERN")) {
        enum vlog_destination dest;
        word = strtok_r(NULL, ":", &save_ptr);
        if (!word) {
            msg = xstrdup("missing destination");
            goto exit;
        }
        dest = (!strcasecmp(word, "ANY") ? VLF_ANY_DESTINATION
                : vlog_get_destination_val(word));
        if (dest == VLF_N_DESTINATIONS) {
            msg = xasprintf("unknown destination \"%s\"", word);
            goto exit;
        }
        /* The pattern is the rest of the original text, colons and all. */
        vlog_set_pattern(dest, save_ptr ? save_ptr : "");
    } else if (word && !strcasecmp(word, "FACILITY")) {
        /* Accepted for compatibility; we always use LOG_DAEMON. */
    } else {
        struct vlog_module *module = NULL;
        bool silent_module = false; /* An ovs_library_modules[] name. */
        enum vlog_level level = VLL_N_LEVELS;
        enum vlog_destination dest = VLF_N_DESTINATIONS;

        for (; word; word = strtok_r(NULL, " ,:\t", &save_ptr)) {
            if (!strcasecmp(word, "ANY")) {
                continue;
            } else if (vlog_get_destination_val(word) != VLF_N_DESTINATIONS) {
                if (dest != VLF_N_DESTINATIONS) {
                    msg = xstrdup("cannot specify multiple destinations");
                    goto exit;
                }
                dest = vlog_get_destination_val(word);
            } else if (vlog_get_level_val(word) != VLL_N_LEVELS) {
                if (level != VLL_N_LEVELS) {
                    msg = xstrdup("cannot specify multiple levels");
                    goto exit;
                }
                level = vlog_get_level_val(word);
            } else if (vlog_module_from_name(word)
                       || is_ovs_library_module(word)) {
                if (module || silent_module) {
                    msg = xstrdup("cannot specify multiple modules");
                    goto exit;
                }
                module = vlog_module_from_name(word);
                silent_module = !module;
            } else {
                msg = xasprintf("no destination, level, or module \"%s\"",
                                word);
                goto exit;
            }
        }
        if (!silent_module) {
            vlog_set_levels(module,
                            dest == VLF_N_DESTINATIONS ? VLF_ANY_DESTINATION
                                                       : dest,
                            level == VLL_N_LEVELS ? VLL_DBG : level);
        }
    }

exit:
    free(s);
    return msg;
}

void
vlog_set_levels_from_string_assert(const char *s)
{
    char *msg = vlog_set_levels_from_string(s);
    if (msg) {
        ovs_fatal(0, "processing \"%s\": %s", s, msg);
    }
}

void
vlog_set_verbosity(const char *arg)
{
    if (arg && arg[0]) {
        vlog_set_levels_from_string_assert(arg);
    } else {
        vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_DBG);
    }
}

static int
compare_module_names(const void *a_, const void *b_)
{
    const struct vlog_module *const *a = a_;
    const struct vlog_module *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

char *
vlog_get_levels(void)
{
    size_t n = 0;
    for (struct vlog_module *m = all_modules; m; m = m->next) {
        n++;
    }
    struct vlog_module **sorted = xcalloc(n ? n : 1, sizeof *sorted);
    n = 0;
    for (struct vlog_module *m = all_modules; m; m = m->next) {
        sorted[n++] = m;
    }
    qsort(sorted, n, sizeof *sorted, compare_module_names);

    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&s, "                 console    syslog    file\n");
    ds_put_cstr(&s, "                 -------    ------    ------\n");
    for (size_t i = 0; i < n; i++) {
        const struct vlog_module *m = sorted[i];
        ds_put_format(&s, "%-16s %5s %10s %10s\n", m->name,
                      level_names_upper[m->levels[VLF_CONSOLE]],
                      level_names_upper[m->levels[VLF_SYSLOG]],
                      level_names_upper[m->levels[VLF_FILE]]);
    }
    free(sorted);
    return ds_steal_cstr(&s);
}

/* Log file. */

static int
open_log_file(const char *name, int *fdp)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0) {
        return errno;
    }
    *fdp = fd;
    return 0;
}

int
vlog_set_log_file(const char *file_name)
{
    char *default_name = NULL;
    if (!file_name) {
        default_name = xasprintf("%s/%s.log", dirs_logdir(), program_name());
        file_name = default_name;
    } else if (file_name[0] != '/') {
        /* Absolute, so vlog/reopen still works after --detach's chdir. */
        char *cwd = getcwd(NULL, 0);
        if (cwd) {
            default_name = xasprintf("%s/%s", cwd, file_name);
            file_name = default_name;
            free(cwd);
        }
    }

    int new_fd = -1;
    int error = open_log_file(file_name, &new_fd);
    if (error) {
        VLOG_WARN("failed to open %s for logging: %s", file_name,
                  ovs_strerror(error));
        free(default_name);
        return error;
    }

    lock_log();
    int old_fd = log_fd;
    log_fd = new_fd;
    free(log_file_name);
    log_file_name = xstrdup(file_name);
    pthread_mutex_unlock(&log_mutex);
    if (old_fd >= 0) {
        close(old_fd);
    }
    update_all_min_levels();
    free(default_name);

    VLOG_INFO("opened log file %s", log_file_name);
    return 0;
}

int
vlog_reopen_log_file(void)
{
    if (!log_file_name) {
        return 0;
    }
    char *name = xstrdup(log_file_name);
    int error = vlog_set_log_file(name);
    free(name);
    return error;
}

void
vlog_close_log_file(void)
{
    lock_log();
    if (log_fd >= 0) {
        close(log_fd);
    }
    log_fd = -1;
    free(log_file_name);
    log_file_name = NULL;
    pthread_mutex_unlock(&log_mutex);
    update_all_min_levels();
}

const char *
vlog_get_log_file(void)
{
    return log_file_name;
}

void
vlog_handle_log_file_option(const char *arg)
{
    int error OVS_UNUSED = vlog_set_log_file(arg && arg[0] ? arg : NULL);
}

void
vlog_usage(void)
{
    printf("\nLogging options:\n"
           "  -vSPEC, --verbose=SPEC   set logging levels\n"
           "  -v, --verbose            set maximum verbosity level\n"
           "  --log-file[=FILE]        enable logging to specified FILE\n"
           "                           (default: %s/%s.log)\n"
           "  --syslog-method=(libc|unix:file|udp:ip:port)\n"
           "                           specify how to send messages to "
           "syslog daemon\n"
           "  --syslog-target=HOST:PORT  also send syslog messages to "
           "HOST:PORT by UDP\n",
           dirs_logdir(), program_name());
}

/* unixctl commands. */

static void
vlog_unixctl_set(struct unixctl_conn *conn, int argc, const char *argv[],
                 void *aux OVS_UNUSED)
{
    for (int i = 1; i < argc; i++) {
        char *msg = vlog_set_levels_from_string(argv[i]);
        if (msg) {
            unixctl_command_reply_error(conn, msg);
            free(msg);
            return;
        }
    }
    unixctl_command_reply(conn, NULL);
}

static void
vlog_unixctl_list(struct unixctl_conn *conn, int argc OVS_UNUSED,
                  const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    char *msg = vlog_get_levels();
    unixctl_command_reply(conn, msg);
    free(msg);
}

static void
vlog_unixctl_list_pattern(struct unixctl_conn *conn, int argc OVS_UNUSED,
                          const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    char *msg = vlog_get_patterns();
    unixctl_command_reply(conn, msg);
    free(msg);
}

static void
vlog_unixctl_reopen(struct unixctl_conn *conn, int argc OVS_UNUSED,
                    const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    if (!log_file_name) {
        unixctl_command_reply_error(conn, "Logging to file not configured");
        return;
    }
    int error = vlog_reopen_log_file();
    if (error) {
        unixctl_command_reply_error(conn, ovs_strerror(error));
    } else {
        unixctl_command_reply(conn, NULL);
    }
}

static void
vlog_unixctl_close(struct unixctl_conn *conn, int argc OVS_UNUSED,
                   const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    vlog_close_log_file();
    unixctl_command_reply(conn, NULL);
}

static void
set_rate_limits(struct unixctl_conn *conn, int argc, const char *argv[],
                bool enable)
{
    if (argc == 1) {
        for (struct vlog_module *m = all_modules; m; m = m->next) {
            m->honor_rate_limits = enable;
        }
    } else {
        for (int i = 1; i < argc; i++) {
            struct vlog_module *m = vlog_module_from_name(argv[i]);
            if (!m) {
                char *msg = xasprintf("unknown module \"%s\"", argv[i]);
                unixctl_command_reply_error(conn, msg);
                free(msg);
                return;
            }
            m->honor_rate_limits = enable;
        }
    }
    unixctl_command_reply(conn, NULL);
}

static void
vlog_unixctl_enable_rate_limit(struct unixctl_conn *conn, int argc,
                               const char *argv[], void *aux OVS_UNUSED)
{
    set_rate_limits(conn, argc, argv, true);
}

static void
vlog_unixctl_disable_rate_limit(struct unixctl_conn *conn, int argc,
                                const char *argv[], void *aux OVS_UNUSED)
{
    set_rate_limits(conn, argc, argv, false);
}

void
vlog_register_unixctl_commands(void)
{
    unixctl_command_register("vlog/set",
                             "{spec | PATTERN:destination:pattern}", 0,
                             INT_MAX, vlog_unixctl_set, NULL);
    unixctl_command_register("vlog/list", "", 0, 0, vlog_unixctl_list, NULL);
    unixctl_command_register("vlog/list-pattern", "", 0, 0,
                             vlog_unixctl_list_pattern, NULL);
    unixctl_command_register("vlog/reopen", "", 0, 0, vlog_unixctl_reopen,
                             NULL);
    unixctl_command_register("vlog/close", "", 0, 0, vlog_unixctl_close,
                             NULL);
    unixctl_command_register("vlog/enable-rate-limit", "[module]...", 0,
                             INT_MAX, vlog_unixctl_enable_rate_limit, NULL);
    unixctl_command_register("vlog/disable-rate-limit", "[module]...", 0,
                             INT_MAX, vlog_unixctl_disable_rate_limit, NULL);
}
