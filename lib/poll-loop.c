/* lib/poll-loop.c: see poll-loop.h.
 *
 * Registrations accumulate in a growable pollfd array, one entry per fd,
 * and a single earliest deadline.  Per fd number, 'fds' records where the
 * fd's entry is (to merge events registered twice) and what the last
 * poll reported, both stamped with the generation of poll_block() they
 * belong to, so nothing has to be cleared between polls.
 *
 * On Linux the wait itself is epoll(7): a server with a thousand idle
 * clients registers the same thousand fds for the same events every pass,
 * and poll(2) would have the kernel look at each of them every time.  The
 * epoll set instead keeps each fd registered across passes; poll_block()
 * compares this pass's registrations with the set and changes only what
 * differs (an fd not registered this pass leaves the set, so a client we
 * do not read from cannot wake us).  The set knows fds by number: an fd
 * that is closed and whose number is reused between two passes must be
 * poll_fd_forget()ten when closed (the streams do).  As a safety net the
 * whole set is checked again every RESYNC_MSEC.  poll(2) remains the
 * fallback if epoll is unavailable. */
#include <config.h>
#include "lib/poll-loop.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/epoll.h>
#endif
#include "lib/allocator.h"
#include "lib/fatal-signal.h"
#include "lib/timeval.h"
#include "lib/util.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(poll_loop);

static struct pollfd *pollfds;
static size_t n_pollfds, allocated_pollfds;
static long long deadline = LLONG_MAX;

/* When the last poll_block() returned (LLONG_MIN: never), and how long
 * the passes since then took. */
static long long pass_start = LLONG_MIN;
static struct poll_loop_stats stats;

/* Incremented by every poll_block(); never 0. */
static unsigned int poll_gen = 1;

struct fd_state {
    unsigned int wait_gen;      /* == poll_gen: 'index' is valid. */
    unsigned int polled_gen;    /* == poll_gen: 'maybe' is valid. */
    size_t index;               /* Entry in 'pollfds'. */
    short int maybe;            /* Events that may be ready. */
    short int in_set;           /* Events the epoll set has, 0 if none. */
    size_t set_index;           /* If 'in_set': entry in 'set_fds'. */
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

#ifdef __linux__
/* The epoll set: -1 before first use, -2 if epoll is unavailable. */
static int epoll_fd = -1;
/* Set in a child by fork(): the set is the parent's, the child makes its
 * own.  (Not getpid() on every pass: it is a system call each time.) */
static bool forked;
static int *set_fds;    /* The fds in the set. */
static size_t n_set_fds, allocated_set_fds;
static struct epoll_event *events;
static size_t allocated_events;
static long long next_resync;

/* Checks the whole set again this often (msec): see the top. */
#define RESYNC_MSEC 10000

static void
set_remove(int fd)
{
    struct fd_state *st = &fds[fd];
    size_t i = st->set_index;
    set_fds[i] = set_fds[--n_set_fds];
    fds[set_fds[i]].set_index = i;
    st->in_set = 0;
}

/* Makes the set have 'fd' for 'ev' (POLLIN, POLLOUT).  'force' rewrites
 * the registration even if the set seems to have it.  Returns false if
 * epoll cannot watch 'fd' (then poll_block() must not sleep). */
static bool
set_update(int fd, short int ev, bool force)
{
    struct fd_state *st = &fds[fd];
    if (st->in_set == ev && !force) {
        return true;
    }
    struct epoll_event e = {
        .events = ((ev & POLLIN ? EPOLLIN : 0) | (ev & POLLOUT ? EPOLLOUT : 0)
                   | (ev & POLLPRI ? EPOLLPRI : 0)),
        .data.fd = fd,
    };
    int op = st->in_set ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(epoll_fd, op, fd, &e) && op == EPOLL_CTL_MOD
        && errno == ENOENT) {
        /* Closed and reused behind our back. */
        op = EPOLL_CTL_ADD;
    }
    if (op == EPOLL_CTL_ADD && epoll_ctl(epoll_fd, op, fd, &e)
        && errno != EEXIST) {
        if (st->in_set) {
            set_remove(fd);
        }
        return false;
    }
    if (!st->in_set) {
        if (n_set_fds >= allocated_set_fds) {
            set_fds = x2nrealloc(set_fds, &allocated_set_fds, sizeof *set_fds);
        }
        st->set_index = n_set_fds;
        set_fds[n_set_fds++] = fd;
    }
    st->in_set = ev;
    return true;
}

static void
set_forget(int fd)
{
    if (epoll_fd >= 0 && fds[fd].in_set) {
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL);
        set_remove(fd);
    }
}

static void
note_fork(void)
{
    forked = true;
}

/* Opens the set if needed.  Returns false if epoll is unavailable. */
static bool
set_open(void)
{
    if (epoll_fd >= 0 && forked) {
        /* The set is shared with the parent; make our own. */
        close(epoll_fd);
        epoll_fd = -1;
        for (size_t i = 0; i < n_set_fds; i++) {
            fds[set_fds[i]].in_set = 0;
        }
        n_set_fds = 0;
    }
    if (epoll_fd == -1) {
        static bool registered;
        if (!registered) {
            registered = true;
            pthread_atfork(NULL, NULL, note_fork);
        }
        forked = false;
        epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        if (epoll_fd < 0) {
            VLOG_WARN("epoll_create1: %s (using poll)", ovs_strerror(errno));
            epoll_fd = -2;
        }
    }
    return epoll_fd >= 0;
}

/* Waits as poll(pollfds, n_pollfds, timeout) would, with the epoll set,
 * and leaves in each entry's 'revents' what it reported.  Returns what
 * poll() would. */
static int
epoll_block(int timeout)
{
    long long now = time_msec();
    bool resync = now >= next_resync;
    if (resync) {
        next_resync = now + RESYNC_MSEC;
    }

    /* The set loses the fds not registered this pass... */
    for (size_t i = 0; i < n_set_fds;) {
        int fd = set_fds[i];
        if (fds[fd].wait_gen != poll_gen) {
            set_forget(fd);
        } else {
            i++;
        }
    }
    /* ...and gains or changes the others. */
    bool unwatchable = false;
    for (size_t i = 0; i < n_pollfds; i++) {
        struct pollfd *p = &pollfds[i];
        p->revents = 0;
        if (p->fd >= 0 && !set_update(p->fd, p->events, resync)) {
            /* poll() would report it at once (POLLNVAL for a bad fd; a
             * regular file is always ready). */
            p->revents = errno == EBADF ? POLLNVAL : p->events;
            unwatchable = true;
        }
    }
    if (unwatchable) {
        timeout = 0;
    } else if (n_set_fds && (timeout < 0 || timeout > RESYNC_MSEC)) {
        timeout = RESYNC_MSEC;
    }

    if (allocated_events < MAX(n_set_fds, 1)) {
        allocated_events = MAX(n_set_fds, 16) * 2;
        free(events);
        events = xmalloc(allocated_events * sizeof *events);
    }
    int n = epoll_wait(epoll_fd, events, (int) allocated_events, timeout);
    if (n < 0) {
        return -1;
    }
    int retval = 0;
    for (size_t i = 0; i < n_pollfds; i++) {
        retval += pollfds[i].revents != 0;
    }
    for (int i = 0; i < n; i++) {
        int fd = events[i].data.fd;
        if (fd < 0 || (size_t) fd >= n_fds || fds[fd].wait_gen != poll_gen) {
            continue;
        }
        uint32_t e = events[i].events;
        struct pollfd *p = &pollfds[fds[fd].index];
        short int r = ((e & EPOLLIN ? POLLIN : 0)
                       | (e & EPOLLOUT ? POLLOUT : 0)
                       | (e & EPOLLPRI ? POLLPRI : 0)
                       | (e & EPOLLERR ? POLLERR : 0)
                       | (e & EPOLLHUP ? POLLHUP : 0));
        if (r && !p->revents) {
            retval++;
        }
        p->revents |= r;
    }
    return retval;
}
#endif /* __linux__ */

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
#ifdef __linux__
        set_forget(fd);
#endif
    }
}

/* The capture in progress, or NULL. */
static struct poll_capture *capture;

void
poll_capture_begin(struct poll_capture *c)
{
    c->n_fds = 0;
    c->fd = -1;
    c->events = 0;
    c->deadline = LLONG_MAX;
    capture = c;
}

void
poll_capture_end(void)
{
    capture = NULL;
}

void
poll_fd_wait(int fd, short int events)
{
    if (capture) {
        if (!capture->n_fds || capture->fd != fd) {
            capture->n_fds++;
            capture->fd = fd;
        }
        capture->events |= events;
    }
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
    if (capture && when < capture->deadline) {
        capture->deadline = when;
    }
    if (when < deadline) {
        deadline = when;
    }
}

void
poll_immediate_wake(void)
{
    if (capture) {
        capture->deadline = LLONG_MIN;
    }
    deadline = LLONG_MIN;
}

static poll_loop_pass_cb *pass_observer;
static void *pass_observer_aux;

void
poll_loop_set_pass_observer(poll_loop_pass_cb *cb, void *aux)
{
    pass_observer = cb;
    pass_observer_aux = aux;
}

/* Counts the pass that ends at 'now'. */
static void
end_pass(long long now)
{
    if (pass_start == LLONG_MIN) {
        return;
    }
    long long msec = now - pass_start;
    stats.n_passes++;
    if (pass_observer) {
        pass_observer(msec, pass_observer_aux);
    }
    stats.longest_msec = MAX(stats.longest_msec, msec);
    if (msec > 100) {
        stats.n_over_100++;
    }
    if (msec > 1000) {
        stats.n_over_1000++;
    }
    if (msec > POLL_LOOP_LONG_MSEC) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 10);
        VLOG_WARN_RL(&rl,
                     "unreasonably long pass of the loop: %lld ms "
                     "without serving anyone else",
                     msec);
    }
}

void
poll_loop_get_stats(struct poll_loop_stats *s)
{
    *s = stats;
}

void
poll_loop_reset_stats(void)
{
    memset(&stats, 0, sizeof stats);
}

void
poll_block(void)
{
    fatal_signal_wait();

    long long now = time_msec();
    end_pass(now);
    int timeout;
    if (deadline == LLONG_MAX) {
        timeout = -1;
    } else {
        long long msec = deadline <= now ? 0 : deadline - now;
        timeout = msec > INT_MAX ? INT_MAX : (int) msec;
    }

    int retval;
#ifdef __linux__
    if (set_open()) {
        retval = epoll_block(timeout);
    } else
#endif
    {
        retval = poll(pollfds, n_pollfds, timeout);
    }
    if (retval < 0 && errno != EINTR) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
        VLOG_ERR_RL(&rl, "poll: %s", ovs_strerror(errno));
    }

    if (++poll_gen == 0) {
        /* Wrapped around: stale stamps could match again. */
        for (size_t i = 0; i < n_fds; i++) {
            fds[i].wait_gen = fds[i].polled_gen = 0;
        }
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
    pass_start = time_msec();
}
