/* lib/stream.c: see stream.h.
 *
 * Generic code: name parsing, class dispatch, the connect state machine and
 * the blocking helper.  The classes live in stream-fd.c (socket I/O),
 * stream-tcp.c and stream-unix.c.  Recording (--record) happens here,
 * around every class; replaying (--replay) swaps the class for
 * stream-replay.c's (see replay.h). */
#include <config.h>
#include "lib/stream.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/poll-loop.h"
#include "lib/replay.h"
#include "lib/stream-provider.h"
#include "lib/timeval.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(stream);

/* The classes. */
static const struct stream_class *const stream_classes[] = {
    &tcp_stream_class,
    &unix_stream_class,
    &ssl_stream_class,
};
static const struct pstream_class *const pstream_classes[] = {
    &ptcp_pstream_class,
    &punix_pstream_class,
    &pssl_pstream_class,
};

enum stream_state {
    SCS_CONNECTING,
    SCS_CONNECTED,
    SCS_DISCONNECTED
};

/* Returns the length of the class prefix of 'name' ("tcp" in
 * "tcp:1.2.3.4:5"), or 0 if it has no colon. */
static size_t
prefix_length(const char *name)
{
    const char *colon = strchr(name, ':');
    return colon ? colon - name : 0;
}

static bool
prefix_matches(const char *name, size_t n, const char *class_name)
{
    return n && strlen(class_name) == n && !strncmp(name, class_name, n);
}

/* Returns the class for 'name' and sets '*suffix' to the text after the
 * colon, or returns NULL. */
static const struct stream_class *
stream_lookup_class(const char *name, const char **suffix)
{
    size_t n = prefix_length(name);
    for (size_t i = 0; i < ARRAY_SIZE(stream_classes); i++) {
        if (prefix_matches(name, n, stream_classes[i]->name)) {
            *suffix = name + n + 1;
            return stream_classes[i];
        }
    }
    return NULL;
}

static const struct pstream_class *
pstream_lookup_class(const char *name, const char **suffix)
{
    size_t n = prefix_length(name);
    for (size_t i = 0; i < ARRAY_SIZE(pstream_classes); i++) {
        if (prefix_matches(name, n, pstream_classes[i]->name)) {
            *suffix = name + n + 1;
            return pstream_classes[i];
        }
    }
    return NULL;
}

bool
stream_name_needs_probes(const char *name)
{
    const char *suffix;
    const struct stream_class *class = stream_lookup_class(name, &suffix);
    if (class) {
        return class->needs_probes;
    }
    const struct pstream_class *pclass = pstream_lookup_class(name, &suffix);
    return pclass && pclass->needs_probes;
}

int
stream_verify_name(const char *name)
{
    const char *suffix;
    const struct stream_class *class = stream_lookup_class(name, &suffix);
    if (!class) {
        return EAFNOSUPPORT;
    }
    return class->verify ? class->verify(suffix) : 0;
}

int
stream_open(const char *name, struct stream **streamp)
{
    const char *suffix;
    const struct stream_class *class = stream_lookup_class(name, &suffix);

    *streamp = NULL;
    if (!class) {
        return EAFNOSUPPORT;
    }
    struct stream *stream = NULL;
    int error;
    if (replay_get_mode() == REPLAY_PLAY) {
        error = replay_stream_open(name, &stream);
    } else {
        char *suffix_copy = xstrdup(suffix);
        error = class->open(name, suffix_copy, &stream);
        free(suffix_copy);
        if (replay_get_mode() == REPLAY_RECORD) {
            struct replay_file *f = replay_record_start(
                name, REPLAY_OPEN,
                error ? -error : stream->state == SCS_CONNECTING, NULL, 0);
            if (!error) {
                stream->replay = f;
            }
        }
    }
    if (error) {
        VLOG_DBG("%s: connection failed (%s)", name, ovs_strerror(error));
        return error;
    }
    stream->needs_probes = class->needs_probes;
    *streamp = stream;
    return 0;
}

int
stream_open_block(int error, long long timeout, struct stream **streamp)
{
    struct stream *stream = *streamp;
    long long deadline = timeout < 0 ? LLONG_MAX : time_msec() + timeout;

    if (!error) {
        while ((error = stream_connect(stream)) == EAGAIN) {
            if (time_msec() >= deadline) {
                error = ETIMEDOUT;
                break;
            }
            stream_run(stream);
            stream_run_wait(stream);
            stream_connect_wait(stream);
            poll_timer_wait_until(deadline);
            poll_block();
        }
    }
    if (error) {
        stream_close(stream);
        *streamp = NULL;
    }
    return error;
}

void
stream_close(struct stream *stream)
{
    if (stream) {
        char *name = stream->name;
        char *peer_name = stream->peer_name;
        replay_close(stream->replay);
        stream->class->close(stream);
        free(name);
        free(peer_name);
    }
}

const char *
stream_get_name(const struct stream *stream)
{
    return stream->name;
}

const char *
stream_get_peer_name(const struct stream *stream)
{
    return stream->peer_name ? stream->peer_name : "";
}

bool
stream_needs_probes(const struct stream *stream)
{
    return stream->needs_probes;
}

int
stream_connect(struct stream *stream)
{
    if (stream->state == SCS_CONNECTING) {
        int error = stream->class->connect ? stream->class->connect(stream)
                                           : 0;
        if (!error) {
            stream->state = SCS_CONNECTED;
        } else if (error != EAGAIN) {
            stream->state = SCS_DISCONNECTED;
            stream->error = error;
        }
        if (error != EAGAIN) {
            replay_record(stream->replay, REPLAY_CONNECT, -error, NULL, 0);
        }
    }
    switch (stream->state) {
    case SCS_CONNECTING:
        return EAGAIN;
    case SCS_CONNECTED:
        return 0;
    case SCS_DISCONNECTED:
    default:
        return stream->error;
    }
}

bool
stream_is_connecting(const struct stream *stream)
{
    return stream->state == SCS_CONNECTING;
}

ssize_t
stream_recv(struct stream *stream, void *buffer, size_t n)
{
    int error = stream_connect(stream);
    if (error) {
        return -error;
    }
    if (!n) {
        return 0;
    }
    ssize_t retval = stream->class->recv(stream, buffer, n);
    if (stream->replay) {
        replay_record(stream->replay, REPLAY_RECV, retval, buffer,
                      retval > 0 ? retval : 0);
    }
    return retval;
}

ssize_t
stream_send(struct stream *stream, const void *buffer, size_t n)
{
    int error = stream_connect(stream);
    if (error) {
        return -error;
    }
    if (!n) {
        return 0;
    }
    ssize_t retval = stream->class->send(stream, buffer, n);
    if (stream->replay) {
        replay_record(stream->replay, REPLAY_SEND, retval, NULL, 0);
    }
    return retval;
}

void
stream_run(struct stream *stream)
{
    if (stream->class->run) {
        stream->class->run(stream);
    }
}

void
stream_run_wait(struct stream *stream)
{
    if (stream->class->run_wait) {
        stream->class->run_wait(stream);
    }
}

static void
stream_wait(struct stream *stream, int wait)
{
    switch (stream->state) {
    case SCS_CONNECTING:
        wait = STREAM_CONNECT;
        break;
    case SCS_DISCONNECTED:
        poll_immediate_wake();
        return;
    }
    stream->class->wait(stream, wait);
}

void
stream_connect_wait(struct stream *stream)
{
    stream_wait(stream, STREAM_CONNECT);
}

void
stream_recv_wait(struct stream *stream)
{
    stream_wait(stream, STREAM_RECV);
}

void
stream_send_wait(struct stream *stream)
{
    stream_wait(stream, STREAM_SEND);
}

void
stream_init(struct stream *stream, const struct stream_class *class,
            int connect_status, char *name)
{
    memset(stream, 0, sizeof *stream);
    stream->class = class;
    stream->state = (connect_status == EAGAIN ? SCS_CONNECTING
                     : !connect_status ? SCS_CONNECTED
                     : SCS_DISCONNECTED);
    stream->error = connect_status == EAGAIN ? 0 : connect_status;
    stream->name = name;
}

void
stream_set_peer_name(struct stream *stream, char *peer_name)
{
    free(stream->peer_name);
    stream->peer_name = peer_name;
}

/* Passive streams. */

int
pstream_verify_name(const char *name)
{
    const char *suffix;
    const struct pstream_class *class = pstream_lookup_class(name, &suffix);
    if (!class) {
        return EAFNOSUPPORT;
    }
    return class->verify ? class->verify(suffix) : 0;
}

int
pstream_open(const char *name, struct pstream **pstreamp)
{
    const char *suffix;
    const struct pstream_class *class = pstream_lookup_class(name, &suffix);

    *pstreamp = NULL;
    if (!class) {
        return EAFNOSUPPORT;
    }
    struct pstream *pstream = NULL;
    int error;
    if (replay_get_mode() == REPLAY_PLAY) {
        error = replay_pstream_listen(name, &pstream);
    } else {
        char *suffix_copy = xstrdup(suffix);
        error = class->listen(name, suffix_copy, &pstream);
        free(suffix_copy);
        if (replay_get_mode() == REPLAY_RECORD) {
            struct replay_file *f = replay_record_start(
                name, REPLAY_LISTEN, error ? -error : pstream->bound_port,
                NULL, 0);
            if (!error) {
                pstream->replay = f;
            }
        }
    }
    if (error) {
        return error;
    }
    pstream->needs_probes = class->needs_probes;
    *pstreamp = pstream;
    return 0;
}

void
pstream_close(struct pstream *pstream)
{
    if (pstream) {
        char *name = pstream->name;
        replay_close(pstream->replay);
        pstream->class->close(pstream);
        free(name);
    }
}

const char *
pstream_get_name(const struct pstream *pstream)
{
    return pstream->name;
}

uint16_t
pstream_get_bound_port(const struct pstream *pstream)
{
    return pstream->bound_port;
}

/* Records the accept of 'stream' by 'pstream' (or its failure with
 * 'error'), and opens the new stream's own recording. */
static void
record_accept(struct pstream *pstream, int error, struct stream *stream)
{
    if (error) {
        replay_record(pstream->replay, REPLAY_ACCEPT, -error, NULL, 0);
        return;
    }
    const char *peer = stream->peer_name ? stream->peer_name : "";
    size_t name_size = strlen(stream->name) + 1;
    size_t size = name_size + strlen(peer);
    char *names = xmalloc(size + 1);
    memcpy(names, stream->name, name_size);
    strcpy(names + name_size, peer);
    replay_record(pstream->replay, REPLAY_ACCEPT, size, names, size);
    free(names);
    stream->replay = replay_record_start(stream->name, REPLAY_OPEN,
                                         stream->state == SCS_CONNECTING, NULL,
                                         0);
}

int
pstream_accept(struct pstream *pstream, struct stream **streamp)
{
    int error = pstream->class->accept(pstream, streamp);
    if (pstream->replay) {
        record_accept(pstream, error, *streamp);
    }
    if (error) {
        *streamp = NULL;
        return error;
    }
    (*streamp)->needs_probes = pstream->needs_probes;
    return 0;
}

void
pstream_wait(struct pstream *pstream)
{
    pstream->class->wait(pstream);
}

void
pstream_init(struct pstream *pstream, const struct pstream_class *class,
             char *name)
{
    memset(pstream, 0, sizeof *pstream);
    pstream->class = class;
    pstream->name = name;
}
