/* lib/stream-fd.c: streams and listeners over socket fds, shared by the
 * tcp and unix classes.
 *
 * Reads and accepts skip the system call when the last poll_block() polled
 * the fd and found it not readable (lib/poll-loop): a busy server
 * otherwise spends a good part of its system calls on reads and accepts
 * that find nothing (an accept on every pass of its loop, a read of every
 * client whenever any one of them is ready). */
#include <config.h>
#include "lib/stream-provider.h"

#include <errno.h>
#include <stdlib.h>
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
};

static const struct stream_class fd_stream_class;

static struct fd_stream *
fd_stream_cast(struct stream *stream)
{
    return CONTAINER_OF(stream, struct fd_stream, stream);
}

void
new_fd_stream(char *name, int fd, int connect_status,
              struct stream **streamp)
{
    struct fd_stream *s = xmalloc(sizeof *s);
    stream_init(&s->stream, &fd_stream_class, connect_status, name);
    s->fd = fd;
    *streamp = &s->stream;
}

static void
fd_close(struct stream *stream)
{
    struct fd_stream *s = fd_stream_cast(stream);
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
    int fd = fd_stream_cast(stream)->fd;
    ssize_t retval;

    if (!poll_fd_may_be_ready(fd, POLLIN)) {
        return -EAGAIN;
    }
    do {
        retval = read(fd, buffer, n);
    } while (retval < 0 && errno == EINTR);
    if (retval < 0) {
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    }
    return retval;
}

static ssize_t
fd_send(struct stream *stream, const void *buffer, size_t n)
{
    ssize_t retval;
    do {
        /* MSG_NOSIGNAL: a closed peer gives EPIPE, not SIGPIPE. */
        retval = send(fd_stream_cast(stream)->fd, buffer, n, MSG_NOSIGNAL);
    } while (retval < 0 && errno == EINTR);
    if (retval < 0) {
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    }
    return retval;
}

static void
fd_wait(struct stream *stream, int wait)
{
    int fd = fd_stream_cast(stream)->fd;
    poll_fd_wait(fd, wait == STREAM_RECV ? POLLIN : POLLOUT);
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
