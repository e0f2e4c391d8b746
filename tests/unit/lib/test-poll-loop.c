/* tests/unit/lib/test-poll-loop.c: timers, fds, immediate wake, registrations
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

static void
test_clocks(void)
{
    long long a = time_msec();
    CHECK(a > 0);
    CHECK(time_wall_msec() > 1600000000000LL);
    CHECK(time_msec() >= a);
}

/* Timers: the earliest wins; one already due or an immediate wake ends
 * the block at once ("at once" is checked against a 10 s timer, with room
 * for a loaded machine). */
static void
test_timers(void)
{
    poll_timer_wait(5000);
    poll_timer_wait(50);
    long long elapsed = timed_block();
    CHECK(elapsed >= 50 && elapsed < 2500);

    poll_timer_wait_until(time_msec() - 1000);
    CHECK(timed_block() < 2500);

    poll_timer_wait(10000);
    poll_immediate_wake();
    CHECK(timed_block() < 2500);
}

/* Many fds, some registered twice with different events; one ready.
 * Registrations are gone after the block.  POLLOUT on a writable pipe
 * wakes at once; POLLIN on an empty one does not. */
static void
test_fds(void)
{
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

    /* The readable pipe no longer wakes us. */
    poll_timer_wait(40);
    long long elapsed = timed_block();
    CHECK(elapsed >= 40);

    poll_fd_wait(fds[0][1], POLLOUT);
    poll_timer_wait(10000);
    CHECK(timed_block() < 2500);
    poll_fd_wait(fds[0][0], POLLIN);
    poll_timer_wait(30);
    CHECK(timed_block() >= 30);

    for (int i = 0; i < N; i++) {
        close(fds[i][0]);
        close(fds[i][1]);
    }
}

/* Readiness: unknown (so maybe ready) for fds the last poll did not look
 * at; what poll() said for those it did; forgotten on request; a hang-up
 * counts as ready, whatever was asked. */
static void
test_readiness(void)
{
    int fds[3][2];
    for (int i = 0; i < 3; i++) {
        CHECK_INTEQ(pipe(fds[i]), 0);
    }
    /* A poll of no fds, so that nothing is known from an earlier case. */
    poll_timer_wait(0);
    poll_block();

    int rfd = fds[0][0], wfd = fds[0][1];
    CHECK(poll_fd_may_be_ready(rfd, POLLIN));
    poll_fd_wait(rfd, POLLIN);
    poll_timer_wait(0);
    poll_block();
    CHECK(!poll_fd_may_be_ready(rfd, POLLIN));
    CHECK(poll_fd_may_be_ready(rfd, POLLOUT));    /* Not asked about. */
    CHECK(poll_fd_may_be_ready(fds[1][0], POLLIN));
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
    poll_fd_wait(fds[1][0], POLLIN);
    poll_timer_wait(0);
    poll_block();
    CHECK(!poll_fd_may_be_ready(fds[1][0], POLLIN));
    poll_fd_forget(fds[1][0]);
    CHECK(poll_fd_may_be_ready(fds[1][0], POLLIN));

    close(fds[2][1]);
    fds[2][1] = -1;
    poll_fd_wait(fds[2][0], POLLIN);
    poll_block();
    CHECK(poll_fd_may_be_ready(fds[2][0], POLLIN));

    for (int i = 0; i < 3; i++) {
        close(fds[i][0]);
        if (fds[i][1] >= 0) {
            close(fds[i][1]);
        }
    }
}

/* SIGTERM while blocked: hooks run, registered files go, and the process
 * dies by the signal. */
static void
test_fatal_signal(void)
{
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
    close(sync[0]);
    close(sync[1]);
}

/* A child that did not take over with fatal_signal_fork() never removes
 * its parent's files: not at exit(), nor on a signal, which kills it at
 * once, outside any loop. */
static void
test_child_keeps_files(void)
{
    char path2[] = "/tmp/test-poll-loop.XXXXXX";
    int fd = mkstemp(path2);
    CHECK(fd >= 0);
    close(fd);
    fatal_signal_add_file_to_unlink(path2);
    pid_t pid = fork();
    if (!pid) {
        exit(0);
    }
    int status;
    struct stat st;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK_INTEQ(stat(path2, &st), 0);

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
}

static const struct check_case cases[] = {
    CHECK_CASE(test_clocks),       CHECK_CASE(test_timers),
    CHECK_CASE(test_fds),          CHECK_CASE(test_readiness),
    CHECK_CASE(test_fatal_signal), CHECK_CASE(test_child_keeps_files),
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);
    return check_main(argc, argv, "test-poll-loop", cases, ARRAY_SIZE(cases));
}
