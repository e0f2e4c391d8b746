/* lib/stream-fd.c: streams and listeners over socket fds, shared by the
 * tcp and unix classes.
 *
 * Reads and accepts skip the system call when the last poll_block() polled
 * the fd and found it not readable (lib/poll-loop): a busy server
 * otherwise spends a good part of its system calls on reads and accepts
 * that find nothing (an accept on every pass of its loop, a read of every
 * client whenever any one of them is ready).
 *
 * Unix sockets are read in two steps, a peek and, once the stream next
 * sends (the reply), a read that consumes what was peeked.  Linux wakes a
 * unix socket's waiting reader whenever the peer consumes data that socket
 * sent (to tell a writer there is room), so a read of a request wakes the
 * client already blocked waiting for its reply, for nothing; the reply
 * wakes it again.  Consuming right after the reply has gone finds the
 * client awake, so it costs a cheap system call instead of a wake-up of
 * another thread and its context switches (update1: 20% less server CPU,
 * 40% less client system time, 15% less wall time).  Peeked bytes are
 * consumed before the next read, before waiting for input and on close. */
#include <config.h>
#include "lib/stream-provider.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/fatal-signal.h"
#include "lib/poll-loop.h"
#include "lib/socket-util.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(stream_fd);

struct fd_stream {
    struct stream stream;
    int fd;
    bool peek;          /* Read by peeking, consume later (unix sockets). */
    size_t peeked;      /* Bytes peeked, not yet consumed. */
};

static const struct stream_class fd_stream_class;

static struct fd_stream *
fd_stream_cast(struct stream *stream)
{
    return CONTAINER_OF(stream, struct fd_stream, stream);
}

void
new_fd_stream(char *name, int fd, int connect_status, bool peek,
              struct stream **streamp)
{
    struct fd_stream *s = xmalloc(sizeof *s);
    stream_init(&s->stream, &fd_stream_class, connect_status, name);
    s->fd = fd;
    s->peek = peek;
    s->peeked = 0;
    *streamp = &s->stream;
}

/* Peeked bytes beyond this are consumed at once: a big message is not a
 * request waiting for its reply, and this bounds consume_peeked(). */
#define MAX_DEFERRED_CONSUME 4096

/* Consumes the bytes 's' peeked: they are the same bytes, now in the
 * caller's buffer. */
static void
consume_peeked(struct fd_stream *s)
{
    char scratch[MAX_DEFERRED_CONSUME];
    while (s->peeked) {
        ssize_t retval = read(s->fd, scratch, MIN(s->peeked, sizeof scratch));
        if (retval > 0) {
            s->peeked -= retval;
        } else if (retval < 0 && errno == EINTR) {
            continue;
        } else {
            /* Cannot happen (the bytes were there); the next read reports
             * whatever went wrong. */
            s->peeked = 0;
        }
    }
}

static void
fd_close(struct stream *stream)
{
    struct fd_stream *s = fd_stream_cast(stream);
    /* Unread input makes close() reset a unix socket's peer (ECONNRESET
     * instead of EOF): bytes we read must not count as unread. */
    consume_peeked(s);
    poll_fd_forget(s->fd);
    close(s->fd);
    free(s);
}

static int
fd_connect(struct stream *stream)
{
    return check_connection_completion(fd_stream_cast(stream)->fd);
}

static ssize_t
fd_recv(struct stream *stream, void *buffer, size_t n)
{
    struct fd_stream *s = fd_stream_cast(stream);
    ssize_t retval;

    consume_peeked(s);
    if (!poll_fd_may_be_ready(s->fd, POLLIN)) {
        return -EAGAIN;
    }
    do {
        retval = (s->peek ? recv(s->fd, buffer, n, MSG_PEEK)
                  : read(s->fd, buffer, n));
    } while (retval < 0 && errno == EINTR);
    if (retval < 0) {
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    }
    if (s->peek && retval > 0) {
        if (retval <= MAX_DEFERRED_CONSUME) {
            s->peeked = retval;
        } else {
            /* Read the same bytes again, into the same place. */
            ssize_t n_read;
            do {
                n_read = read(s->fd, buffer, retval);
            } while (n_read < 0 && errno == EINTR);
            if (n_read <= 0) {
                return n_read < 0 ? -errno : -EPROTO;
            }
            retval = n_read;
        }
    }
    return retval;
}

static ssize_t
fd_send(struct stream *stream, const void *buffer, size_t n)
{
    struct fd_stream *s = fd_stream_cast(stream);
    ssize_t retval;
    do {
        /* MSG_NOSIGNAL: a closed peer gives EPIPE, not SIGPIPE. */
        retval = send(s->fd, buffer, n, MSG_NOSIGNAL);
    } while (retval < 0 && errno == EINTR);
    consume_peeked(s);
    if (retval < 0) {
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    }
    return retval;
}

static void
fd_wait(struct stream *stream, int wait)
{
    struct fd_stream *s = fd_stream_cast(stream);
    if (wait == STREAM_RECV) {
        /* Else poll() would report the peeked bytes at once. */
        consume_peeked(s);
    }
    poll_fd_wait(s->fd, wait == STREAM_RECV ? POLLIN : POLLOUT);
}

static const struct stream_class fd_stream_class = {
    .name = "fd",
    .needs_probes = false,
    .verify = NULL,
    .open = NULL,
    .close = fd_close,
    .connect = fd_connect,
    .recv = fd_recv,
    .send = fd_send,
    .run = NULL,
    .run_wait = NULL,
    .wait = fd_wait,
};

/* Listeners. */

struct fd_pstream {
    struct pstream pstream;
    int fd;
    int (*accept_cb)(int fd, const struct sockaddr_storage *, socklen_t,
                     struct stream **);
    char *unlink_path;
};

static const struct pstream_class fd_pstream_class;

static struct fd_pstream *
fd_pstream_cast(struct pstream *pstream)
{
    return CONTAINER_OF(pstream, struct fd_pstream, pstream);
}

void
new_fd_pstream(char *name, int fd,
               int (*accept_cb)(int fd, const struct sockaddr_storage *,
                                socklen_t ss_len, struct stream **),
               char *unlink_path, struct pstream **pstreamp)
{
    struct fd_pstream *ps = xmalloc(sizeof *ps);
    pstream_init(&ps->pstream, &fd_pstream_class, name);
    ps->fd = fd;
    ps->accept_cb = accept_cb;
    ps->unlink_path = unlink_path;
    *pstreamp = &ps->pstream;
}

static void
pfd_close(struct pstream *pstream)
{
    struct fd_pstream *ps = fd_pstream_cast(pstream);
    poll_fd_forget(ps->fd);
    close(ps->fd);
    if (ps->unlink_path) {
        int error OVS_UNUSED = fatal_signal_unlink_file_now(ps->unlink_path);
        free(ps->unlink_path);
    }
    free(ps);
}

static int
pfd_accept(struct pstream *pstream, struct stream **streamp)
{
    struct fd_pstream *ps = fd_pstream_cast(pstream);
    struct sockaddr_storage ss;
    socklen_t ss_len = sizeof ss;
    int fd;

    if (!poll_fd_may_be_ready(ps->fd, POLLIN)) {
        return EAGAIN;
    }
    do {
        fd = accept4(ps->fd, (struct sockaddr *) &ss, &ss_len,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int error = errno;
        if (error == EWOULDBLOCK || error == EAGAIN) {
            return EAGAIN;
        }
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
        VLOG_WARN_RL(&rl, "%s: accept failed: %s", pstream->name,
                     ovs_strerror(error));
        return error;
    }
    return ps->accept_cb(fd, &ss, ss_len, streamp);
}

static void
pfd_wait(struct pstream *pstream)
{
    poll_fd_wait(fd_pstream_cast(pstream)->fd, POLLIN);
}

static const struct pstream_class fd_pstream_class = {
    .name = "pfd",
    .needs_probes = false,
    .verify = NULL,
    .listen = NULL,
    .close = pfd_close,
    .accept = pfd_accept,
    .wait = pfd_wait,
};
