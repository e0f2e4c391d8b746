/* lib/poll-loop.c: see poll-loop.h.
 *
 * Registrations accumulate in a growable pollfd array (one entry per fd,
 * events merged through a small hash map from fd to index) and a single
 * earliest deadline.  What the last poll() reported is kept per fd number
 * in 'readiness', stamped with that poll's generation, so nothing has to be
 * cleared between polls. */
#include <config.h>
#include "lib/poll-loop.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/fatal-signal.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "lib/timeval.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(poll_loop);

struct poll_node {
    struct hmap_node node;      /* In 'nodes', by hash of 'fd'. */
    int fd;
    size_t index;               /* In 'pollfds'. */
};

static struct hmap nodes = HMAP_INITIALIZER(&nodes);
static struct pollfd *pollfds;
static struct poll_node *node_pool;
static size_t n_pollfds, allocated_pollfds;
static long long deadline = LLONG_MAX;

/* What the last poll() said of an fd, valid if 'gen' == 'poll_gen'.
 * 'maybe' holds the events that may be ready. */
struct fd_readiness {
    unsigned int gen;
    short int maybe;
};
static struct fd_readiness *readiness;     /* Indexed by fd. */
static size_t n_readiness;
static unsigned int poll_gen = 1;

/* Returns the entry for 'fd', growing the array if needed. */
static struct fd_readiness *
get_readiness(int fd)
{
    if ((size_t) fd >= n_readiness) {
        size_t n = MAX(n_readiness * 2, (size_t) fd + 1);
        n = MAX(n, 64);
        readiness = xrealloc(readiness, n * sizeof *readiness);
        memset(&readiness[n_readiness], 0,
               (n - n_readiness) * sizeof *readiness);
        n_readiness = n;
    }
    return &readiness[fd];
}

bool
poll_fd_may_be_ready(int fd, short int events)
{
    if (fd < 0 || (size_t) fd >= n_readiness
        || readiness[fd].gen != poll_gen) {
        return true;
    }
    return (readiness[fd].maybe & (events | POLLERR | POLLHUP | POLLNVAL))
           != 0;
}

void
poll_fd_forget(int fd)
{
    if (fd >= 0 && (size_t) fd < n_readiness) {
        readiness[fd].gen = 0;
    }
}

void
poll_fd_wait(int fd, short int events)
{
    uint32_t hash = hash_int(fd, 0);
    struct poll_node *pn;

    HMAP_FOR_EACH_WITH_HASH (pn, node, hash, &nodes) {
        if (pn->fd == fd) {
            pollfds[pn->index].events |= events;
            return;
        }
    }

    if (n_pollfds >= allocated_pollfds) {
        /* Grow both arrays together; rebuild the map since nodes move. */
        size_t n_alloc = allocated_pollfds;
        pollfds = x2nrealloc(pollfds, &n_alloc, sizeof *pollfds);
        node_pool = xrealloc(node_pool, n_alloc * sizeof *node_pool);
        allocated_pollfds = n_alloc;
        hmap_clear(&nodes);
        for (size_t i = 0; i < n_pollfds; i++) {
            hmap_insert(&nodes, &node_pool[i].node,
                        hash_int(node_pool[i].fd, 0));
        }
    }
    pn = &node_pool[n_pollfds];
    pn->fd = fd;
    pn->index = n_pollfds;
    hmap_insert(&nodes, &pn->node, hash);
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
        memset(readiness, 0, n_readiness * sizeof *readiness);
        poll_gen = 1;
    }
    if (retval >= 0) {
        for (size_t i = 0; i < n_pollfds; i++) {
            struct fd_readiness *r = get_readiness(pollfds[i].fd);
            r->gen = poll_gen;
            /* Events not asked about are unknown, so maybe ready; errors
             * and hang-ups are always reported. */
            r->maybe = (pollfds[i].revents
                        | ~(pollfds[i].events | POLLERR | POLLHUP
                            | POLLNVAL));
        }
    }

    hmap_clear(&nodes);
    n_pollfds = 0;
    deadline = LLONG_MAX;

    fatal_signal_run();
}
