/* lib/process.c: see process.h. */
#include <config.h>
#include "lib/process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/poll-loop.h"
#include "lib/util.h"

struct process {
    pid_t pid;
    bool exited;
    int status;
};

/* The self-pipe the SIGCHLD handler writes to: [0] read, [1] write. */
static int sigchld_fds[2] = { -1, -1 };

static void
sigchld_handler(int sig OVS_UNUSED)
{
    int saved_errno = errno;
    /* A full pipe is already a wake-up: the result does not matter. */
    ssize_t n = write(sigchld_fds[1], "", 1);
    (void) n;
    errno = saved_errno;
}

static int
init_sigchld(void)
{
    if (sigchld_fds[0] >= 0) {
        return 0;
    }
    if (pipe(sigchld_fds)) {
        return errno;
    }
    for (int i = 0; i < 2; i++) {
        int flags = fcntl(sigchld_fds[i], F_GETFL);
        fcntl(sigchld_fds[i], F_SETFL, flags | O_NONBLOCK);
        fcntl(sigchld_fds[i], F_SETFD, FD_CLOEXEC);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sigchld_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
    if (sigaction(SIGCHLD, &sa, NULL)) {
        return errno;
    }
    return 0;
}

int
process_start(char *const argv[], struct process **processp)
{
    *processp = NULL;
    int error = init_sigchld();
    if (error) {
        return error;
    }
    pid_t pid = fork();
    if (pid < 0) {
        return errno;
    }
    if (!pid) {
        /* The child: the parent's signal dispositions are not its. */
        signal(SIGCHLD, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], argv);
        _exit(127);
    }
    struct process *p = xzalloc(sizeof *p);
    p->pid = pid;
    *processp = p;
    return 0;
}

bool
process_exited(struct process *p)
{
    if (!p->exited) {
        char buf[64];
        while (read(sigchld_fds[0], buf, sizeof buf) > 0) {
            continue;
        }
        int status;
        pid_t pid;
        do {
            pid = waitpid(p->pid, &status, WNOHANG);
        } while (pid < 0 && errno == EINTR);
        if (pid == p->pid) {
            p->exited = true;
            p->status = status;
        }
    }
    return p->exited;
}

int
process_status(const struct process *p)
{
    return p->status;
}

char *
process_status_msg(int status)
{
    if (WIFEXITED(status)) {
        return xasprintf("exit status %d", WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        return xasprintf("killed (%s)%s", strsignal(WTERMSIG(status)),
                         WCOREDUMP(status) ? ", core dumped" : "");
    }
    return xasprintf("terminated abnormally (status %d)", status);
}

void
process_wait(struct process *p)
{
    if (p->exited) {
        poll_immediate_wake();
    } else {
        poll_fd_wait(sigchld_fds[0], POLLIN);
    }
}

void
process_destroy(struct process *p)
{
    free(p);
}
