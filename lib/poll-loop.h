/* lib/poll-loop.h: the one place a program blocks.
 *
 * Every module has a non-blocking X_run() that does all ready work and an
 * X_wait() that registers what it waits for here; then the main loop calls
 * poll_block(), the only call that may block:
 *
 *     for (;;) {
 *         jsonrpc_session_run(s);  unixctl_server_run(ctl);
 *         jsonrpc_session_wait(s); unixctl_server_wait(ctl);
 *         poll_block();
 *     }
 *
 * poll_block() sleeps in poll(2) until one registered fd is ready, the
 * earliest timer expires, or poll_immediate_wake() was called, then forgets
 * every registration: each loop iteration registers afresh.  It also
 * services lib/fatal-signal (a SIGTERM during the sleep exits cleanly).
 *
 * poll_block() also remembers what poll(2) reported, so that non-blocking
 * I/O can skip system calls bound to fail: poll_fd_may_be_ready() is false
 * for an fd that the last poll_block() polled and found not ready.  Input
 * that arrives after that poll is seen after the next one, which returns
 * at once: a caller that gets EAGAIN must register the fd with
 * poll_fd_wait() (as every X_wait() does) rather than expect a retry
 * without polling to see new data.
 *
 * Single-threaded: only the main thread may call these. */
#ifndef LIB_POLL_LOOP_H
#define LIB_POLL_LOOP_H 1

#include <poll.h>
#include <stdbool.h>

/* Wakes the next poll_block() when 'fd' has any of 'events' (POLLIN,
 * POLLOUT; errors and hang-ups always wake).  The same fd may be
 * registered several times; the events are merged. */
void poll_fd_wait(int fd, short int events);

/* Wakes the next poll_block() after 'msec' milliseconds (<= 0: at once). */
void poll_timer_wait(long long msec);

/* Wakes the next poll_block() when time_msec() reaches 'when'
 * (LLONG_MAX: never, a no-op). */
void poll_timer_wait_until(long long when);

/* Makes the next poll_block() return at once. */
void poll_immediate_wake(void);

/* Returns false if the last poll_block() polled 'fd' for 'events' and
 * reported none of them (nor an error or hang-up) for it; true otherwise,
 * including for an fd that the last poll_block() did not poll for
 * 'events': then only trying tells. */
bool poll_fd_may_be_ready(int fd, short int events);

/* Forgets what the last poll_block() reported for 'fd': call it when
 * closing 'fd', whose number a new fd may take. */
void poll_fd_forget(int fd);

/* Recording what one module registers, so that its owner can register
 * the same again on later passes without asking it, while nothing it waits
 * for has happened (see ovsdb/server/server.c's idle sessions).  Between
 * poll_capture_begin() and poll_capture_end(), every registration is made
 * as usual and also noted in the capture. */
struct poll_capture {
    int n_fds;          /* Distinct fds registered (counting an fd
                             * registered twice in a row once). */
    int fd;             /* The last of them, if 'n_fds' > 0. */
    short int events;   /* Every event registered, for any fd. */
    long long deadline; /* Earliest timer: LLONG_MAX if none, LLONG_MIN
                             * after poll_immediate_wake(). */
};
void poll_capture_begin(struct poll_capture *);
void poll_capture_end(void);

/* Blocks until an event registered since the last call occurs, then clears
 * all registrations. */
void poll_block(void);

/* How long the passes of the loop took: a pass is the work between two
 * poll_block() calls, the time during which nothing else is served.  A
 * pass over POLL_LOOP_LONG_MSEC is also logged (rate-limited). */
#define POLL_LOOP_LONG_MSEC 1000
struct poll_loop_stats {
    unsigned long long n_passes;
    long long longest_msec;         /* The longest pass. */
    unsigned long long n_over_100;  /* Passes of more than 100 ms. */
    unsigned long long n_over_1000; /* ...and of more than 1000 ms. */
};
void poll_loop_get_stats(struct poll_loop_stats *);
void poll_loop_reset_stats(void);

/* Calls 'cb' with 'aux' and the duration of each pass as it ends (msec),
 * for a histogram of them; NULL for none.  One observer per process. */
typedef void poll_loop_pass_cb(long long msec, void *aux);
void poll_loop_set_pass_observer(poll_loop_pass_cb *cb, void *aux);

#endif /* lib/poll-loop.h */
