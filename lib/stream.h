/* lib/stream.h: bidirectional byte streams and listeners.
 *
 * Active names:   "unix:PATH", "tcp:IP:PORT" (IPv6 as "tcp:[::1]:6640").
 * Passive names:  "punix:PATH", "ptcp:PORT[:IP]" ("ptcp:0:127.0.0.1" picks
 *                 a free port; see pstream_get_bound_port()).
 * TLS:            "ssl:IP:PORT", "pssl:PORT[:IP]" (configure the key,
 *                 certificate and CA first: lib/stream-ssl.h).
 * Each kind is a class (lib/stream-provider.h), so TLS is one more class,
 * added without touching callers.
 *
 * Everything is non-blocking.  stream_open() starts connecting and returns
 * at once; stream_connect() reports progress (EAGAIN until done).
 * stream_recv() and stream_send() return the byte count, or a negative
 * errno (-EAGAIN: would block; stream_recv() returns 0 at end of stream).
 * Call stream_run() in the main loop (TLS needs it to make progress) and
 * stream_*_wait() before poll_block().
 *
 *     struct stream *s;
 *     int error = stream_open("unix:/tmp/db.sock", &s);
 *     ...
 *     stream_close(s);
 *
 * The "_block" variants wait in a private poll loop; only tools and tests
 * should use them. */
#ifndef LIB_STREAM_H
#define LIB_STREAM_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/util.h"

struct stream;
struct pstream;

/* Active streams. */

/* Returns 0 if 'name' has a known active class and well-formed arguments,
 * else EAFNOSUPPORT (unknown class) or EINVAL. */
int stream_verify_name(const char *name);

/* Starts connecting to 'name'.  On success returns 0 with '*streamp' set
 * (caller must free with stream_close()); otherwise returns an errno and
 * sets '*streamp' to NULL. */
int stream_open(const char *name, struct stream **streamp)
    WARN_UNUSED_RESULT;

/* Completes stream_open(): if 'error' is 0, waits up to 'timeout' msec
 * (<0: forever) for the connection to complete.  On failure closes
 * '*streamp' and sets it to NULL.  Returns 0 or an errno (ETIMEDOUT).
 *     error = stream_open_block(stream_open(name, &s), -1, &s); */
int stream_open_block(int error, long long timeout, struct stream **streamp);

void stream_close(struct stream *);   /* NULL is fine. */

/* Returns the name passed to stream_open(), or for accepted streams
 * "unix#N" / "tcp:IP:PORT" of the peer; borrowed (valid until close). */
const char *stream_get_name(const struct stream *);

/* Returns "IP:PORT" of the remote end ("[::1]:PORT" for IPv6) for TCP, the
 * socket path or "" for unix; borrowed (valid until close). */
const char *stream_get_peer_name(const struct stream *);

/* Returns true if the class wants inactivity probes (TCP, TLS: the peer
 * can vanish silently), false for unix sockets. */
bool stream_needs_probes(const struct stream *);

/* Returns 0 once connected, EAGAIN while in progress, else the error (the
 * stream is then useless except for closing). */
int stream_connect(struct stream *);

/* Reads up to 'n' bytes into 'buffer'.  Returns the count (> 0), 0 at end
 * of stream, or a negative errno (-EAGAIN if nothing is available). */
ssize_t stream_recv(struct stream *, void *buffer, size_t n);

/* Writes up to 'n' bytes from 'buffer'.  Returns the count (> 0; may be
 * less than 'n') or a negative errno (-EAGAIN if the kernel buffer is
 * full).  Never raises SIGPIPE. */
ssize_t stream_send(struct stream *, const void *buffer, size_t n);

void stream_run(struct stream *);       /* Background work (TLS). */
/* True until the connection (and its TLS handshake) completes or fails. */
bool stream_is_connecting(const struct stream *);
void stream_run_wait(struct stream *);  /* Wakes when stream_run() has work. */

/* Wake the next poll_block() when connecting completes, when stream_recv()
 * may return data (or EOF or an error), or when stream_send() may accept
 * bytes. */
void stream_connect_wait(struct stream *);
void stream_recv_wait(struct stream *);
void stream_send_wait(struct stream *);

/* Passive streams (listeners). */

/* Returns true if 'name', active or passive, names a class that wants
 * inactivity probes ("tcp:", "ptcp:"; later "ssl:", "pssl:"). */
bool stream_name_needs_probes(const char *name);

/* Returns 0 if 'name' has a known passive class, else EAFNOSUPPORT or
 * EINVAL. */
int pstream_verify_name(const char *name);

/* Starts listening on 'name'.  On success returns 0 with '*pstreamp' set
 * (caller must free with pstream_close()), else an errno (EADDRINUSE...)
 * and NULL.  "punix:" sockets get socket_get_unix_mode() permissions and
 * their file is unlinked by pstream_close() and at exit
 * (lib/fatal-signal). */
int pstream_open(const char *name, struct pstream **pstreamp)
    WARN_UNUSED_RESULT;

void pstream_close(struct pstream *);   /* NULL is fine. */

/* Returns the name passed to pstream_open(); borrowed. */
const char *pstream_get_name(const struct pstream *);

/* Returns the TCP port actually bound (useful after "ptcp:0"), or 0. */
uint16_t pstream_get_bound_port(const struct pstream *);

/* Accepts one pending connection.  Returns 0 with '*streamp' (caller must
 * free with stream_close()), EAGAIN if none is pending, or an errno. */
int pstream_accept(struct pstream *, struct stream **streamp);

/* Wakes the next poll_block() when a connection may be accepted. */
void pstream_wait(struct pstream *);

#endif /* lib/stream.h */
