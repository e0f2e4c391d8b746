/* lib/stream-replay.c: the stream and pstream classes of --replay (see
 * replay.h): every operation reads its result from the recording instead
 * of a socket.  lib/stream.c opens these in place of the class a name
 * asks for when replaying, and writes the recording when recording. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/poll-loop.h"
#include "lib/replay.h"
#include "lib/stream-provider.h"
#include "lib/util.h"

struct replay_stream {
    struct stream stream;
    struct replay_file *f;
};

static const struct stream_class replay_stream_class;

static struct replay_stream *
replay_stream_cast(struct stream *stream)
{
    return CONTAINER_OF(stream, struct replay_stream, stream);
}

int
replay_stream_open(const char *name, struct stream **streamp)
{
    int value;
    struct replay_file *f = replay_play_start(name, REPLAY_OPEN, &value, NULL,
                                              0);
    if (!f) {
        return value < 0 ? -value : EPROTO;
    }
    struct replay_stream *s = xzalloc(sizeof *s);
    stream_init(&s->stream, &replay_stream_class, value ? EAGAIN : 0,
                xstrdup(name));
    s->f = f;
    *streamp = &s->stream;
    return 0;
}

static void
replay_stream_close(struct stream *stream)
{
    struct replay_stream *s = replay_stream_cast(stream);
    replay_close(s->f);
    free(s);
}

static int
replay_stream_connect(struct stream *stream)
{
    struct replay_stream *s = replay_stream_cast(stream);
    int value;
    if (!replay_play_take(s->f, REPLAY_CONNECT, &value, NULL, 0)) {
        return EAGAIN;
    }
    return -value;
}

static ssize_t
replay_stream_recv(struct stream *stream, void *buffer, size_t n)
{
    struct replay_stream *s = replay_stream_cast(stream);
    int value;
    if (!replay_play_take(s->f, REPLAY_RECV, &value, buffer, n)) {
        return -EAGAIN;
    }
    return value > 0 ? (ssize_t) MIN((size_t) value, n) : value;
}

static ssize_t
replay_stream_send(struct stream *stream, const void *buffer OVS_UNUSED,
                   size_t n)
{
    struct replay_stream *s = replay_stream_cast(stream);
    int value;
    if (!replay_play_take(s->f, REPLAY_SEND, &value, NULL, 0)) {
        return -EAGAIN;
    }
    return value > 0 ? (ssize_t) MIN((size_t) value, n) : value;
}

static void
replay_stream_wait(struct stream *stream, int wait OVS_UNUSED)
{
    /* Whatever comes next, its turn comes without any socket: spin until
     * the recording is used up. */
    if (replay_play_pending(replay_stream_cast(stream)->f)) {
        poll_immediate_wake();
    }
}

static const struct stream_class replay_stream_class = {
    .name = "replay",
    .needs_probes = false,
    .open = NULL, /* Opened by replay_stream_open(). */
    .close = replay_stream_close,
    .connect = replay_stream_connect,
    .recv = replay_stream_recv,
    .send = replay_stream_send,
    .wait = replay_stream_wait,
};

/* Passive streams. */

struct replay_pstream {
    struct pstream pstream;
    struct replay_file *f;
};

static const struct pstream_class replay_pstream_class;

static struct replay_pstream *
replay_pstream_cast(struct pstream *pstream)
{
    return CONTAINER_OF(pstream, struct replay_pstream, pstream);
}

int
replay_pstream_listen(const char *name, struct pstream **pstreamp)
{
    int value;
    struct replay_file *f = replay_play_start(name, REPLAY_LISTEN, &value,
                                              NULL, 0);
    if (!f) {
        return value < 0 ? -value : EPROTO;
    }
    struct replay_pstream *ps = xzalloc(sizeof *ps);
    pstream_init(&ps->pstream, &replay_pstream_class, xstrdup(name));
    ps->pstream.bound_port = value;
    ps->f = f;
    *pstreamp = &ps->pstream;
    return 0;
}

static void
replay_pstream_close(struct pstream *pstream)
{
    struct replay_pstream *ps = replay_pstream_cast(pstream);
    replay_close(ps->f);
    free(ps);
}

static int
replay_pstream_accept(struct pstream *pstream, struct stream **streamp)
{
    struct replay_pstream *ps = replay_pstream_cast(pstream);
    char names[1024];
    int value;
    if (!replay_play_take(ps->f, REPLAY_ACCEPT, &value, names,
                          sizeof names - 1)) {
        return EAGAIN;
    } else if (value < 0) {
        return -value;
    }
    names[MIN((size_t) value, sizeof names - 1)] = '\0';
    /* "NAME\0PEER": the peer name may be empty. */
    const char *peer = names + strlen(names) + 1;
    int error = replay_stream_open(names, streamp);
    if (!error && peer < names + value && *peer) {
        stream_set_peer_name(*streamp, xstrdup(peer));
    }
    return error;
}

static void
replay_pstream_wait(struct pstream *pstream)
{
    if (replay_play_pending(replay_pstream_cast(pstream)->f)) {
        poll_immediate_wake();
    }
}

static const struct pstream_class replay_pstream_class = {
    .name = "preplay",
    .needs_probes = false,
    .listen = NULL, /* Opened by replay_pstream_listen(). */
    .close = replay_pstream_close,
    .accept = replay_pstream_accept,
    .wait = replay_pstream_wait,
};
