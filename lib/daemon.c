/* lib/daemon.c: see daemon.h.
 *
 * The pidfile is written to "<pidfile>.tmp", locked with an fcntl() write
 * lock, then renamed into place; the fd stays open so the lock lasts as
 * long as the process.  Another process asks "is it running?" by testing
 * that lock (F_GETLK), so a stale file left by a crash never blocks a
 * restart. */
#include <config.h>
#include "lib/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/fatal-signal.h"
#include "lib/socket-util.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(daemon);

static char *pidfile;
static bool overwrite_pidfile;
static bool detach;
static bool chdir_ = true;
static bool monitor;

/* --user: whom to become, or 'user' NULL. */
static char *user;
static uid_t user_uid;
static gid_t user_gid;

/* Our own pidfile's name and fd, once created. */
static char *own_pidfile;
static int own_pidfile_fd = -1;

/* With --detach, the child writes one byte here when ready. */
static int ready_fd = -1;

void
daemon_set_pidfile(const char *name)
{
    free(pidfile);
    if (name && name[0]) {
        pidfile = dirs_abs_file_name(dirs_rundir(), name);
    } else {
        pidfile = xasprintf("%s/%s.pid", dirs_rundir(), program_name());
    }
}

const char *
daemon_get_pidfile(void)
{
    return pidfile;
}

void
daemon_set_overwrite_pidfile(void)
{
    overwrite_pidfile = true;
}

void
daemon_set_detach(void)
{
    detach = true;
}

bool
daemon_get_detach(void)
{
    return detach;
}

void
daemon_set_no_chdir(void)
{
    chdir_ = false;
}

void
daemon_set_monitor(void)
{
    monitor = true;
}

void
daemon_set_user(const char *spec)
{
    char *copy = xstrdup(spec);
    char *colon = strchr(copy, ':');
    if (colon) {
        *colon = '\0';
    }
    const struct passwd *pw = getpwnam(copy);
    if (!pw) {
        ovs_fatal(0, "--user=%s: no user named \"%s\"", spec, copy);
    }
    free(user);
    user = xstrdup(copy);
    user_uid = pw->pw_uid;
    user_gid = pw->pw_gid;
    if (colon && colon[1]) {
        const struct group *gr = getgrnam(colon + 1);
        if (!gr) {
            ovs_fatal(0, "--user=%s: no group named \"%s\"", spec,
                      colon + 1);
        }
        user_gid = gr->gr_gid;
    }
    free(copy);
}

/* Drops root for --user, for good: group, supplementary groups, then user,
 * each checked. */
static void
become_user(void)
{
    if (!user || (getuid() == user_uid && getgid() == user_gid
                  && geteuid() == user_uid)) {
        return;
    }
    if (setgid(user_gid) || getgid() != user_gid || getegid() != user_gid) {
        ovs_fatal(errno, "--user: could not switch to group %ld",
                  (long) user_gid);
    }
    if (initgroups(user, user_gid)) {
        ovs_fatal(errno, "--user: could not set the groups of %s", user);
    }
    if (setuid(user_uid) || getuid() != user_uid || geteuid() != user_uid) {
        ovs_fatal(errno, "--user: could not switch to user %s", user);
    }
}

static bool
is_crash_signal(int sig)
{
    return (sig == SIGABRT || sig == SIGBUS || sig == SIGFPE || sig == SIGILL
            || sig == SIGSEGV || sig == SIGSYS || sig == SIGXCPU
            || sig == SIGXFSZ);
}

/* Points stdin, stdout and stderr at /dev/null, once detached: nobody reads
 * our output any more (a caller capturing it must see end of file). */
static void
detach_stdio(void)
{
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        dup2(null_fd, STDOUT_FILENO);
        dup2(null_fd, STDERR_FILENO);
        if (null_fd > STDERR_FILENO) {
            close(null_fd);
        }
    }
    vlog_disable_console();
}

/* --monitor: forks the daemon and returns in it; the monitor process stays
 * here.  The first daemon reports readiness to the monitor, which passes it
 * on to whoever waits for it (the --detach parent) and only then lets go
 * of its output; if that daemon dies before it is ready, the monitor exits
 * as it did.  Later, the monitor restarts the daemon after a crash and
 * exits as the daemon did otherwise. */
static void
monitor_daemon(void)
{
    time_t last_restart = 0;    /* 0: no restart yet. */
    bool ready = true;          /* False if the first daemon was not. */
    for (bool restart = false;; restart = true) {
        if (restart) {
            /* At most one restart every 10 seconds, so that a daemon that
             * crashes at once does not spin; the first one at once. */
            time_t now = time(NULL);
            if (last_restart && now - last_restart < 10) {
                VLOG_WARN("waiting until 10 seconds since the last restart");
                sleep(10 - (now - last_restart));
            }
            last_restart = time(NULL);
        }
        int fds[2] = {-1, -1};
        if (!restart && pipe(fds)) {
            ovs_fatal(errno, "pipe failed");
        }
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            ovs_fatal(errno, "fork failed");
        } else if (!pid) {
            if (ready_fd >= 0) {
                close(ready_fd);
            }
            ready_fd = -1;
            if (!restart) {
                close(fds[0]);
                set_cloexec(fds[1]);
                ready_fd = fds[1];
            }
            fatal_signal_fork();
            return;
        }

        if (!restart) {
            close(fds[1]);
            char c;
            size_t n;
            ready = !read_fully(fds[0], &c, 1, &n);
            close(fds[0]);
            if (ready) {
                if (ready_fd >= 0) {
                    int error OVS_UNUSED = write_fully(ready_fd, "", 1, &n);
                    close(ready_fd);
                    ready_fd = -1;
                    setsid();
                    detach_stdio();
                }
            }
        }

        int status;
        while (waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) {
                ovs_fatal(errno, "waitpid failed");
            }
        }
        if (!WIFSIGNALED(status) || !is_crash_signal(WTERMSIG(status))
            || !ready) {
            _exit(WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE);
        }
        VLOG_ERR("daemon pid %ld died of signal %d (%s), restarting",
                 (long) pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
    }
}

pid_t
daemon_read_pidfile(const char *name)
{
    if (own_pidfile && !strcmp(name, own_pidfile)) {
        /* Our own lock never conflicts with us, so F_GETLK cannot tell. */
        return getpid();
    }

    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno == ENOENT ? 0 : -errno;
    }

    struct flock lck = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    if (fcntl(fd, F_GETLK, &lck)) {
        int error = errno;
        close(fd);
        return -error;
    }
    close(fd);
    /* Unlocked: whoever wrote it is gone.  Locked: report the holder,
     * which is the pid the file names. */
    return lck.l_type == F_UNLCK ? 0 : lck.l_pid;
}

static void
unlink_pidfile(void *aux OVS_UNUSED)
{
    if (own_pidfile) {
        unlink(own_pidfile);
    }
}

static void
forget_pidfile(void *aux OVS_UNUSED)
{
    /* In a forked child: the parent owns the file. */
    free(own_pidfile);
    own_pidfile = NULL;
}

int
daemon_make_pidfile(const char *name, bool overwrite)
{
    pid_t running = daemon_read_pidfile(name);
    if (running > 0 && running != getpid() && !overwrite) {
        return EBUSY;
    }

    char *tmpfile = xasprintf("%s.tmp", name);
    int error = 0;
    unlink(tmpfile);
    int fd = open(tmpfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        error = errno;
        VLOG_ERR("%s: create failed (%s)", tmpfile, ovs_strerror(error));
        goto exit;
    }

    struct flock lck = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    if (fcntl(fd, F_SETLK, &lck)) {
        error = errno;
        VLOG_ERR("%s: fcntl(F_SETLK) failed (%s)", tmpfile,
                 ovs_strerror(error));
        goto error;
    }

    char text[32];
    int len = snprintf(text, sizeof text, "%ld\n", (long) getpid());
    size_t written;
    error = write_fully(fd, text, len, &written);
    if (!error && fsync(fd)) {
        error = errno;
    }
    if (error) {
        VLOG_ERR("%s: write failed (%s)", tmpfile, ovs_strerror(error));
        goto error;
    }
    if (rename(tmpfile, name)) {
        error = errno;
        VLOG_ERR("failed to rename \"%s\" to \"%s\" (%s)", tmpfile, name,
                 ovs_strerror(error));
        goto error;
    }

    if (own_pidfile_fd >= 0) {
        close(own_pidfile_fd);
    }
    own_pidfile_fd = fd;
    if (!own_pidfile) {
        fatal_signal_add_hook(unlink_pidfile, forget_pidfile, NULL, true);
    }
    free(own_pidfile);
    own_pidfile = xstrdup(name);
    goto exit;

error:
    close(fd);
    unlink(tmpfile);
exit:
    free(tmpfile);
    return error;
}

/* In the parent after fork(): waits for the child to report readiness, then
 * exits.  Never returns. */
static noreturn void
wait_for_child(pid_t child, int fd)
{
    char c;
    size_t n;
    int error = read_fully(fd, &c, 1, &n);
    if (!error) {
        _exit(EXIT_SUCCESS);
    }

    int status;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            ovs_fatal(errno, "waitpid failed");
        }
    }
    if (WIFEXITED(status)) {
        _exit(WEXITSTATUS(status) ? WEXITSTATUS(status) : EXIT_FAILURE);
    }
    if (WIFSIGNALED(status)) {
        ovs_error(0, "child died with signal %d (%s)", WTERMSIG(status),
                  strsignal(WTERMSIG(status)));
    }
    _exit(EXIT_FAILURE);
}

void
daemonize_start(void)
{
    fatal_signal_init();
    become_user();

    if (detach) {
        int fds[2];
        if (pipe(fds)) {
            ovs_fatal(errno, "pipe failed");
        }
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            ovs_fatal(errno, "fork failed");
        } else if (pid > 0) {
            close(fds[1]);
            wait_for_child(pid, fds[0]);
        }
        close(fds[0]);
        set_cloexec(fds[1]);
        ready_fd = fds[1];
        fatal_signal_fork();
    }
    if (monitor) {
        monitor_daemon();
    }

    if (pidfile) {
        int error = daemon_make_pidfile(pidfile, overwrite_pidfile);
        if (error == EBUSY) {
            ovs_fatal(0, "%s: already running as pid %ld, aborting", pidfile,
                      (long) daemon_read_pidfile(pidfile));
        } else if (error) {
            ovs_fatal(error, "%s: could not create pidfile", pidfile);
        }
    }
}

void
daemonize_complete(void)
{
    static bool completed;
    if (completed) {
        return;
    }
    completed = true;

    if (ready_fd >= 0) {
        /* To the --detach parent, or with --monitor to the monitor. */
        size_t n;
        int error OVS_UNUSED = write_fully(ready_fd, "", 1, &n);
        close(ready_fd);
        ready_fd = -1;
    }
    if (detach) {
        setsid();
        if (chdir_ && chdir("/")) {
            VLOG_WARN("chdir(\"/\") failed: %s", ovs_strerror(errno));
        }
        detach_stdio();
    }
}

void
daemon_usage(void)
{
    printf("\nDaemon options:\n"
           "  --detach                run in background as daemon\n"
           "  --monitor               restart the daemon if it crashes\n"
           "  --user=USER[:GROUP]     run as USER (and GROUP) instead of "
           "root\n"
           "  --no-self-confinement   accepted (no confinement to lift)\n"
           "  --no-chdir              do not chdir to '/'\n"
           "  --pidfile[=FILE]        create pidfile (default: %s/%s.pid)\n"
           "  --overwrite-pidfile     with --pidfile, start even if already "
           "running\n",
           dirs_rundir(), program_name());
}
