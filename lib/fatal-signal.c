/* lib/fatal-signal.c: see fatal-signal.h.
 *
 * The handler stores the signal number and writes a byte to a self-pipe
 * whose read end fatal_signal_wait() registers with poll_block(). */
#include <config.h>
#include "lib/fatal-signal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/poll-loop.h"
#include "lib/socket-util.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(fatal_signal);

static const int fatal_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGALRM };

struct hook {
    void (*hook_cb)(void *aux);
    void (*cancel_cb)(void *aux);
    void *aux;
    bool run_at_exit;
};

static struct hook *hooks;
static size_t n_hooks, allocated_hooks;

static char **files;
static size_t n_files, allocated_files;

static volatile sig_atomic_t stored_sig_nr;
static int signal_fds[2] = { -1, -1 };
static bool inited;
static bool hooks_ran;

/* The process whose hooks these are.  A child forked without calling
 * fatal_signal_fork() (a compaction child, say) dies by its signals at
 * once and runs no hooks at exit, so it can never remove its parent's
 * sockets or pidfile. */
static pid_t owner_pid;

static void atexit_handler(void);
static void unlink_files(void *aux);

static void
fatal_signal_handler(int sig_nr)
{
    int saved_errno = errno;
    ssize_t retval OVS_UNUSED;
    if (getpid() != owner_pid) {
        signal(sig_nr, SIG_DFL);
        raise(sig_nr);
        errno = saved_errno;
        return;
    }
    stored_sig_nr = sig_nr;
    retval = write(signal_fds[1], "", 1);
    errno = saved_errno;
}

void
fatal_signal_init(void)
{
    if (inited) {
        return;
    }
    inited = true;
    owner_pid = getpid();

    if (pipe(signal_fds)) {
        ovs_fatal(errno, "could not create pipe");
    }
    for (int i = 0; i < 2; i++) {
        set_nonblocking(signal_fds[i]);
        set_cloexec(signal_fds[i]);
    }

    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++) {
        struct sigaction old_sa;
        if (sigaction(fatal_signals[i], NULL, &old_sa)) {
            ovs_fatal(errno, "sigaction");
        }
        if (old_sa.sa_handler == SIG_DFL) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = fatal_signal_handler;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = SA_RESTART;
            if (sigaction(fatal_signals[i], &sa, NULL)) {
                ovs_fatal(errno, "sigaction");
            }
        }
    }
    atexit(atexit_handler);
    fatal_signal_add_hook(unlink_files, NULL, NULL, true);
}

void
fatal_signal_add_hook(void (*hook_cb)(void *aux),
                      void (*cancel_cb)(void *aux), void *aux,
                      bool run_at_exit)
{
    fatal_signal_init();
    if (n_hooks >= allocated_hooks) {
        hooks = x2nrealloc(hooks, &allocated_hooks, sizeof *hooks);
    }
    hooks[n_hooks++] = (struct hook) { hook_cb, cancel_cb, aux, run_at_exit };
}

static void
call_hooks(bool at_exit)
{
    if (hooks_ran) {
        return;
    }
    hooks_ran = true;
    /* Most recent first, like atexit(). */
    for (size_t i = n_hooks; i-- > 0;) {
        if (!at_exit || hooks[i].run_at_exit) {
            hooks[i].hook_cb(hooks[i].aux);
        }
    }
}

static void
atexit_handler(void)
{
    if (getpid() == owner_pid) {
        call_hooks(true);
    }
}

void
fatal_signal_run(void)
{
    int sig_nr = stored_sig_nr;
    if (!sig_nr) {
        return;
    }
    char buf[16];
    while (read(signal_fds[0], buf, sizeof buf) > 0) {
        continue;
    }
    VLOG_WARN("terminating with signal %d (%s)", sig_nr, strsignal(sig_nr));
    call_hooks(false);

    /* Die by the same signal, as the default action would have. */
    signal(sig_nr, SIG_DFL);
    raise(sig_nr);
    _exit(128 + sig_nr);
}

void
fatal_signal_wait(void)
{
    fatal_signal_init();
    poll_fd_wait(signal_fds[0], POLLIN);
}

void
fatal_signal_fork(void)
{
    owner_pid = getpid();
    for (size_t i = 0; i < n_hooks; i++) {
        if (hooks[i].cancel_cb) {
            hooks[i].cancel_cb(hooks[i].aux);
        }
    }
    /* The child must not remove the parent's files. */
    for (size_t i = 0; i < n_files; i++) {
        free(files[i]);
    }
    n_files = 0;
}

void
fatal_signal_add_file_to_unlink(const char *file)
{
    fatal_signal_init();
    for (size_t i = 0; i < n_files; i++) {
        if (!strcmp(files[i], file)) {
            return;
        }
    }
    if (n_files >= allocated_files) {
        files = x2nrealloc(files, &allocated_files, sizeof *files);
    }
    files[n_files++] = xstrdup(file);
}

void
fatal_signal_remove_file_to_unlink(const char *file)
{
    for (size_t i = 0; i < n_files; i++) {
        if (!strcmp(files[i], file)) {
            free(files[i]);
            files[i] = files[--n_files];
            return;
        }
    }
}

int
fatal_signal_unlink_file_now(const char *file)
{
    int error = unlink(file) ? errno : 0;
    if (error && error != ENOENT) {
        VLOG_WARN("could not unlink \"%s\" (%s)", file, ovs_strerror(error));
    }
    fatal_signal_remove_file_to_unlink(file);
    return error;
}

static void
unlink_files(void *aux OVS_UNUSED)
{
    for (size_t i = 0; i < n_files; i++) {
        unlink(files[i]);
    }
}
