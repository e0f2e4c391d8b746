/* tests/unit/test-poll-loop.c: timers, fds, immediate wake, registrations
 * cleared after each poll_block(), and fatal signals handled in the loop. */
#include <config.h>
#include "lib/poll-loop.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/fatal-signal.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "tests/unit/check.h"

static long long
timed_block(void)
{
    long long start = time_msec();
    poll_block();
    return time_msec() - start;
}

int
main(int argc OVS_UNUSED, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);

    /* Clocks. */
    long long a = time_msec();
    CHECK(a > 0);
    CHECK(time_wall_msec() > 1600000000000LL);
    CHECK(time_msec() >= a);

    /* Timers: the earliest wins. */
    poll_timer_wait(5000);
    poll_timer_wait(50);
    long long elapsed = timed_block();
    CHECK(elapsed >= 50 && elapsed < 2500);

    /* "At once" is checked against a 10 s timer, with room for a loaded
     * machine. */
    poll_timer_wait_until(time_msec() - 1000);
    CHECK(timed_block() < 2500);

    poll_timer_wait(10000);
    poll_immediate_wake();
    CHECK(timed_block() < 2500);

    /* Many fds, some registered twice with different events; one ready. */
    enum { N = 100 };
    int fds[N][2];
    for (int i = 0; i < N; i++) {
        CHECK_INTEQ(pipe(fds[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        poll_fd_wait(fds[i][0], POLLIN);
        poll_fd_wait(fds[i][0], POLLIN);
    }
    CHECK_INTEQ(write(fds[N - 1][1], "x", 1), 1);
    poll_timer_wait(10000);
    CHECK(timed_block() < 2500);

    /* Registrations are gone: the readable pipe no longer wakes us. */
    poll_timer_wait(40);
    elapsed = timed_block();
    CHECK(elapsed >= 40);

    /* POLLOUT on a writable pipe wakes at once; POLLIN on an empty one
     * does not. */
    poll_fd_wait(fds[0][1], POLLOUT);
    poll_timer_wait(10000);
    CHECK(timed_block() < 2500);
    poll_fd_wait(fds[0][0], POLLIN);
    poll_timer_wait(30);
    CHECK(timed_block() >= 30);

    /* Readiness: unknown (so maybe ready) for fds the last poll did not
     * look at; what poll() said for those it did; forgotten on request. */
    int rfd = fds[1][0], wfd = fds[1][1];
    CHECK(poll_fd_may_be_ready(rfd, POLLIN));
    poll_fd_wait(rfd, POLLIN);
    poll_timer_wait(0);
    poll_block();
    CHECK(!poll_fd_may_be_ready(rfd, POLLIN));
    CHECK(poll_fd_may_be_ready(rfd, POLLOUT));    /* Not asked about. */
    CHECK(poll_fd_may_be_ready(fds[2][0], POLLIN));
    CHECK_INTEQ(write(wfd, "xy", 2), 2);
    CHECK(!poll_fd_may_be_ready(rfd, POLLIN));    /* Until polled again. */
    poll_fd_wait(rfd, POLLIN);
    poll_block();
    CHECK(poll_fd_may_be_ready(rfd, POLLIN));
    poll_timer_wait(0);
    poll_block();                                 /* Not polled: unknown. */
    CHECK(poll_fd_may_be_ready(rfd, POLLIN));
    poll_fd_wait(rfd, POLLOUT);
    poll_timer_wait(0);
    poll_block();                                 /* Polled, not for this. */
    CHECK(poll_fd_may_be_ready(rfd, POLLIN));
    poll_fd_wait(fds[2][0], POLLIN);
    poll_timer_wait(0);
    poll_block();
    CHECK(!poll_fd_may_be_ready(fds[2][0], POLLIN));
    poll_fd_forget(fds[2][0]);
    CHECK(poll_fd_may_be_ready(fds[2][0], POLLIN));
    /* A hang-up counts as ready, whatever was asked. */
    close(fds[3][1]);
    fds[3][1] = -1;
    poll_fd_wait(fds[3][0], POLLIN);
    poll_block();
    CHECK(poll_fd_may_be_ready(fds[3][0], POLLIN));

    for (int i = 0; i < N; i++) {
        close(fds[i][0]);
        if (fds[i][1] >= 0) {
            close(fds[i][1]);
        }
    }

    /* SIGTERM while blocked: hooks run, registered files go, and the
     * process dies by the signal. */
    char path[] = "/tmp/test-poll-loop.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    int sync[2];
    CHECK_INTEQ(pipe(sync), 0);
    pid_t pid = fork();
    if (!pid) {
        fatal_signal_fork();
        fatal_signal_add_file_to_unlink(path);
        if (write(sync[1], "", 1) != 1) {
            _exit(1);
        }
        for (;;) {
            poll_timer_wait(10000);
            poll_block();
        }
    }
    /* Once the child has registered, signal it (blocked or not, it must
     * handle the signal from its loop). */
    char c;
    CHECK_INTEQ(read(sync[0], &c, 1), 1);
    usleep(20000);
    kill(pid, SIGTERM);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    struct stat st;
    CHECK(stat(path, &st) < 0 && errno == ENOENT);

    /* A child that did not take over with fatal_signal_fork() never
     * removes its parent's files: not at exit()... */
    char path2[] = "/tmp/test-poll-loop.XXXXXX";
    fd = mkstemp(path2);
    CHECK(fd >= 0);
    close(fd);
    fatal_signal_add_file_to_unlink(path2);
    pid = fork();
    if (!pid) {
        exit(0);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK_INTEQ(stat(path2, &st), 0);

    /* ...nor on a signal, which kills it at once, outside any loop. */
    pid = fork();
    if (!pid) {
        for (;;) {
            pause();
        }
    }
    usleep(20000);
    kill(pid, SIGTERM);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    CHECK_INTEQ(stat(path2, &st), 0);
    CHECK_INTEQ(fatal_signal_unlink_file_now(path2), 0);
    CHECK(stat(path2, &st) < 0 && errno == ENOENT);

    return check_report("test-poll-loop");
}
