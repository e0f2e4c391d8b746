/* lib/poll-loop.c: see poll-loop.h.
 *
 * Registrations accumulate in a growable pollfd array, one entry per fd,
 * and a single earliest deadline.  Per fd number, 'fds' records where the
 * fd's entry is (to merge events registered twice) and what the last
 * poll() reported, both stamped with the generation of poll_block() they
 * belong to, so nothing has to be cleared between polls. */
#include <config.h>
#include "lib/poll-loop.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/fatal-signal.h"
#include "lib/timeval.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(poll_loop);

static struct pollfd *pollfds;
static size_t n_pollfds, allocated_pollfds;
static long long deadline = LLONG_MAX;

/* Incremented by every poll_block(); never 0. */
static unsigned int poll_gen = 1;

struct fd_state {
    unsigned int wait_gen;      /* == poll_gen: 'index' is valid. */
    unsigned int polled_gen;    /* == poll_gen: 'maybe' is valid. */
    size_t index;               /* Entry in 'pollfds'. */
    short int maybe;            /* Events that may be ready. */
};
static struct fd_state *fds;    /* Indexed by fd. */
static size_t n_fds;

/* Returns the state of 'fd' (>= 0), growing the array if needed. */
static struct fd_state *
get_fd_state(int fd)
{
    if ((size_t) fd >= n_fds) {
        size_t n = MAX(MAX(n_fds * 2, (size_t) fd + 1), 64);
        fds = xrealloc(fds, n * sizeof *fds);
        memset(&fds[n_fds], 0, (n - n_fds) * sizeof *fds);
        n_fds = n;
    }
    return &fds[fd];
}

bool
poll_fd_may_be_ready(int fd, short int events)
{
    if (fd < 0 || (size_t) fd >= n_fds || fds[fd].polled_gen != poll_gen) {
        return true;
    }
    return (fds[fd].maybe & (events | POLLERR | POLLHUP | POLLNVAL)) != 0;
}

void
poll_fd_forget(int fd)
{
    if (fd >= 0 && (size_t) fd < n_fds) {
        fds[fd].polled_gen = 0;
    }
}

void
poll_fd_wait(int fd, short int events)
{
    struct fd_state *st = fd >= 0 ? get_fd_state(fd) : NULL;
    if (st && st->wait_gen == poll_gen) {
        pollfds[st->index].events |= events;
        return;
    }

    if (n_pollfds >= allocated_pollfds) {
        pollfds = x2nrealloc(pollfds, &allocated_pollfds, sizeof *pollfds);
    }
    if (st) {
        st->wait_gen = poll_gen;
        st->index = n_pollfds;
    }
    pollfds[n_pollfds].fd = fd;
    pollfds[n_pollfds].events = events;
    pollfds[n_pollfds].revents = 0;
    n_pollfds++;
}

void
poll_timer_wait(long long msec)
{
    long long now = time_msec();
    poll_timer_wait_until(msec <= 0 ? now
                          : msec >= LLONG_MAX - now ? LLONG_MAX
                          : now + msec);
}

void
poll_timer_wait_until(long long when)
{
    if (when < deadline) {
        deadline = when;
    }
}

void
poll_immediate_wake(void)
{
    deadline = LLONG_MIN;
}

void
poll_block(void)
{
    fatal_signal_wait();

    int timeout;
    if (deadline == LLONG_MAX) {
        timeout = -1;
    } else {
        long long now = time_msec();
        long long msec = deadline <= now ? 0 : deadline - now;
        timeout = msec > INT_MAX ? INT_MAX : (int) msec;
    }

    int retval = poll(pollfds, n_pollfds, timeout);
    if (retval < 0 && errno != EINTR) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
        VLOG_ERR_RL(&rl, "poll: %s", ovs_strerror(errno));
    }

    if (++poll_gen == 0) {
        /* Wrapped around: stale stamps could match again. */
        memset(fds, 0, n_fds * sizeof *fds);
        poll_gen = 1;
    }
    if (retval >= 0) {
        for (size_t i = 0; i < n_pollfds; i++) {
            if (pollfds[i].fd >= 0) {
                struct fd_state *st = &fds[pollfds[i].fd];
                st->polled_gen = poll_gen;
                /* Events not asked about are unknown, so maybe ready;
                 * errors and hang-ups are always reported. */
                st->maybe = (pollfds[i].revents
                             | ~(pollfds[i].events | POLLERR | POLLHUP
                                 | POLLNVAL));
            }
        }
    }

    n_pollfds = 0;
    deadline = LLONG_MAX;

    fatal_signal_run();
}
