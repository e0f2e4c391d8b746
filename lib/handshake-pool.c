/* lib/handshake-pool.c: see handshake-pool.h. */
#include <config.h>
#include "lib/handshake-pool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/poll-loop.h"
#include "lib/socket-util.h"
#include "lib/stream-ssl.h"
#include "lib/stream.h"
#include "lib/timeval.h"
#include "lib/util.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(handshake_pool);

struct hs_item {
    struct stream *stream;
    void *aux;
    long long deadline; /* time_msec() after which it goes back as is. */
    int fd;             /* What the last step waits for. */
    short events;
};

/* A growable array of items. */
struct hs_list {
    struct hs_item *items;
    size_t n, allocated;
};

static void
hs_list_push(struct hs_list *list, const struct hs_item *item)
{
    if (list->n >= list->allocated) {
        list->items = x2nrealloc(list->items, &list->allocated,
                                 sizeof *list->items);
    }
    list->items[list->n++] = *item;
}

struct hs_worker {
    struct handshake_pool *pool;
    pthread_t thread;
    int wake[2];             /* The main thread writes a byte to wake it. */
    struct hs_list incoming; /* Under the pool's mutex. */
    struct hs_list closing;  /* Under the pool's mutex: to finish closing. */
    struct hs_list active;   /* The worker's own. */
};

struct handshake_pool {
    pthread_mutex_t mutex;
    bool stop;           /* Under 'mutex'. */
    struct hs_list done; /* Under 'mutex': to be taken back. */
    int done_pipe[2];    /* Readable while 'done' is not empty. */
    bool poked;          /* Under 'mutex': 'done_pipe' has a byte to drain
                          * (so the main thread's every pass does not
                          * read the pipe to find it empty). */

    struct hs_worker *workers;
    int n_workers;
    size_t next_worker; /* Main thread: round robin. */
    size_t n_inflight;  /* Main thread. */
};

static void
make_pipe(int fds[2])
{
    if (pipe(fds) || set_nonblocking(fds[0]) || set_nonblocking(fds[1])
        || set_cloexec(fds[0]) || set_cloexec(fds[1])) {
        ovs_fatal(errno, "handshake pool: pipe");
    }
}

static void
drain(int fd)
{
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0) {
        continue;
    }
}

static void
poke(int fd)
{
    char c = 0;
    /* A full pipe already wakes the reader. */
    ssize_t n = write(fd, &c, 1);
    (void) n;
}

/* Worker: hands 'list''s items back to the main thread. */
static void
hand_back(struct handshake_pool *pool, struct hs_list *list)
{
    if (!list->n) {
        return;
    }
    pthread_mutex_lock(&pool->mutex);
    if (!pool->poked) {
        poke(pool->done_pipe[1]);
        pool->poked = true;
    }
    for (size_t i = 0; i < list->n; i++) {
        hs_list_push(&pool->done, &list->items[i]);
    }
    pthread_mutex_unlock(&pool->mutex);
    list->n = 0;
}

static void *
worker_main(void *w_)
{
    struct hs_worker *w = w_;
    struct handshake_pool *pool = w->pool;
    struct hs_list finished = { NULL, 0, 0 };
    struct hs_list closing = { NULL, 0, 0 };
    struct pollfd *pfds = NULL;
    size_t allocated_pfds = 0;

    for (;;) {
        /* New streams: a first step at once (their ClientHello is often
         * there already).  Streams to close: closed first, even when
         * stopping (those given later, the main thread closes itself). */
        pthread_mutex_lock(&pool->mutex);
        bool stop = pool->stop;
        size_t first_new = w->active.n;
        for (size_t i = 0; i < w->incoming.n; i++) {
            hs_list_push(&w->active, &w->incoming.items[i]);
        }
        w->incoming.n = 0;
        struct hs_list swap = closing;
        closing = w->closing;
        w->closing = swap;
        pthread_mutex_unlock(&pool->mutex);
        for (size_t i = 0; i < closing.n; i++) {
            stream_ssl_finish_close(closing.items[i].stream);
        }
        closing.n = 0;
        if (stop) {
            break;
        }

        /* Steps for the new ones and for those whose fd is ready.  The
         * first 'n_polled' items are those of the last poll, in the order
         * of 'pfds'. */
        size_t n_polled = first_new;
        long long now = time_msec();
        for (size_t i = 0; i < w->active.n;) {
            struct hs_item *it = &w->active.items[i];
            bool ready = i >= n_polled || pfds[i].revents;
            int error = EAGAIN;
            if (ready) {
                error = stream_ssl_handshake_step(it->stream, &it->fd,
                                                  &it->events);
            }
            if (error != EAGAIN || now >= it->deadline) {
                hs_list_push(&finished, it);
                memmove(it, it + 1, (w->active.n - i - 1) * sizeof *it);
                w->active.n--;
                if (i < n_polled) {
                    memmove(&pfds[i], &pfds[i + 1],
                            (n_polled - i - 1) * sizeof *pfds);
                    n_polled--;
                }
            } else {
                i++;
            }
        }
        hand_back(pool, &finished);

        /* Wait for any of them, a new stream, or the next deadline. */
        size_t n = w->active.n + 1;
        if (n > allocated_pfds) {
            allocated_pfds = n * 2;
            pfds = xrealloc(pfds, allocated_pfds * sizeof *pfds);
        }
        long long next_deadline = LLONG_MAX;
        for (size_t i = 0; i < w->active.n; i++) {
            const struct hs_item *it = &w->active.items[i];
            pfds[i] = (struct pollfd){ .fd = it->fd, .events = it->events };
            if (it->deadline < next_deadline) {
                next_deadline = it->deadline;
            }
        }
        pfds[w->active.n] = (struct pollfd){ .fd = w->wake[0],
                                             .events = POLLIN };
        int timeout = -1;
        if (next_deadline != LLONG_MAX) {
            long long left = next_deadline - time_msec();
            timeout = left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int) left;
        }
        if (poll(pfds, n, timeout) < 0 && errno != EINTR) {
            VLOG_WARN("poll failed: %s", ovs_strerror(errno));
        }
        if (pfds[w->active.n].revents) {
            drain(w->wake[0]);
        }
    }
    /* Stopping: the main thread closes what is left. */
    hand_back(pool, &w->active);
    free(finished.items);
    free(closing.items);
    free(pfds);
    return NULL;
}

struct handshake_pool *
handshake_pool_create(int n_threads)
{
    struct handshake_pool *pool = xzalloc(sizeof *pool);
    pthread_mutex_init(&pool->mutex, NULL);
    make_pipe(pool->done_pipe);
    pool->n_workers = n_threads > 0 ? n_threads : 1;
    pool->workers = xzalloc(pool->n_workers * sizeof *pool->workers);
    for (int i = 0; i < pool->n_workers; i++) {
        struct hs_worker *w = &pool->workers[i];
        w->pool = pool;
        make_pipe(w->wake);
        int error = pthread_create(&w->thread, NULL, worker_main, w);
        if (error) {
            ovs_fatal(error, "handshake pool: pthread_create");
        }
    }
    return pool;
}

void
handshake_pool_stop(struct handshake_pool *pool)
{
    pthread_mutex_lock(&pool->mutex);
    bool stopped = pool->stop;
    pool->stop = true;
    pthread_mutex_unlock(&pool->mutex);
    if (stopped) {
        return;
    }
    for (int i = 0; i < pool->n_workers; i++) {
        struct hs_worker *w = &pool->workers[i];
        poke(w->wake[1]);
        pthread_join(w->thread, NULL);
    }
    /* The workers handed back their active streams; the ones they never
     * saw join them. */
    for (int i = 0; i < pool->n_workers; i++) {
        hand_back(pool, &pool->workers[i].incoming);
    }
}

void
handshake_pool_destroy(struct handshake_pool *pool)
{
    if (!pool) {
        return;
    }
    handshake_pool_stop(pool);
    for (int i = 0; i < pool->n_workers; i++) {
        struct hs_worker *w = &pool->workers[i];
        free(w->incoming.items);
        free(w->closing.items);
        free(w->active.items);
        close(w->wake[0]);
        close(w->wake[1]);
    }
    for (size_t j = 0; j < pool->done.n; j++) {
        stream_close(pool->done.items[j].stream);
    }
    free(pool->done.items);
    close(pool->done_pipe[0]);
    close(pool->done_pipe[1]);
    pthread_mutex_destroy(&pool->mutex);
    free(pool->workers);
    free(pool);
}

int
handshake_pool_n_threads(const struct handshake_pool *pool)
{
    return pool->n_workers;
}

size_t
handshake_pool_n_inflight(const struct handshake_pool *pool)
{
    return pool->n_inflight;
}

void
handshake_pool_submit(struct handshake_pool *pool, struct stream *stream,
                      void *aux)
{
    struct hs_worker
        *w = &pool->workers[pool->next_worker++ % pool->n_workers];
    struct hs_item it = {
        .stream = stream,
        .aux = aux,
        .deadline = time_msec() + HANDSHAKE_POOL_TIMEOUT_MSEC,
        .fd = -1,
        .events = 0,
    };
    pthread_mutex_lock(&pool->mutex);
    hs_list_push(&w->incoming, &it);
    bool first = w->incoming.n == 1;
    pthread_mutex_unlock(&pool->mutex);
    if (first) {
        poke(w->wake[1]);
    }
    pool->n_inflight++;
}

struct stream *
handshake_pool_take(struct handshake_pool *pool, void **auxp)
{
    struct stream *stream = NULL;
    pthread_mutex_lock(&pool->mutex);
    if (pool->done.n) {
        /* Oldest first: the order the workers finished them in. */
        struct hs_item it = pool->done.items[0];
        memmove(&pool->done.items[0], &pool->done.items[1],
                (pool->done.n - 1) * sizeof it);
        pool->done.n--;
        stream = it.stream;
        *auxp = it.aux;
    }
    if (!pool->done.n && pool->poked) {
        drain(pool->done_pipe[0]);
        pool->poked = false;
    }
    pthread_mutex_unlock(&pool->mutex);
    if (stream) {
        pool->n_inflight--;
    }
    return stream;
}

void
handshake_pool_wait(struct handshake_pool *pool)
{
    poll_fd_wait(pool->done_pipe[0], POLLIN);
}

void
handshake_pool_close(struct stream *stream, void *pool_)
{
    struct handshake_pool *pool = pool_;
    struct hs_worker
        *w = &pool->workers[pool->next_worker++ % pool->n_workers];
    struct hs_item it = { .stream = stream };
    pthread_mutex_lock(&pool->mutex);
    bool stopped = pool->stop;
    bool first = false;
    if (!stopped) {
        hs_list_push(&w->closing, &it);
        first = w->closing.n == 1;
    }
    pthread_mutex_unlock(&pool->mutex);
    if (stopped) {
        stream_ssl_finish_close(stream);
    } else if (first) {
        poke(w->wake[1]);
    }
}
