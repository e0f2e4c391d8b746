/* lib/handshake-pool.h: server TLS handshakes on threads of their own.
 *
 * A TLS handshake costs the server a public-key operation (a millisecond or
 * two with RSA-2048), and a storm of reconnecting clients brings hundreds
 * at once.  A pool of worker threads takes streams fresh from
 * pstream_accept() (those for which stream_ssl_may_handshake_elsewhere()
 * is true), runs their handshakes with stream_ssl_handshake_step() while
 * the main thread goes on serving everyone else, and hands each back once
 * its handshake is through, failed, or took longer than
 * HANDSHAKE_POOL_TIMEOUT_MSEC.  The main thread then opens it as usual:
 * its stream_connect() finishes the handshake (peer verification, cheap)
 * or reports the failure.
 *
 * The same workers also finish closing TLS streams, given
 * stream_ssl_set_closer(handshake_pool_close, pool): when a thousand
 * clients leave at once, their close_notify records, SSL teardowns and
 * socket closes were a quarter to a third of what the clients had cost
 * the main thread.
 *
 * Ownership: a submitted stream belongs to the pool (to one worker at a
 * time) until handshake_pool_take() returns it; nothing else may touch it
 * meanwhile.  A stream given to handshake_pool_close() is the pool's for
 * good: a worker finishes closing it, or the main thread does once the
 * pool is stopped.  'aux' is carried along untouched.  Every function here is
 * for the main thread.  The pool's own state: the lists between the main
 * thread and a worker are under the pool's mutex; each worker's list of
 * streams under way is its own. */
#ifndef LIB_HANDSHAKE_POOL_H
#define LIB_HANDSHAKE_POOL_H 1

#include <stddef.h>

struct stream;

/* A stream handed back unfinished after this long (its client sent too
 * little); the main thread then carries on with it like any other. */
#define HANDSHAKE_POOL_TIMEOUT_MSEC 10000

/* Starts 'n_threads' (at least 1) workers. */
struct handshake_pool *handshake_pool_create(int n_threads);
/* Stops the workers: every stream still inside is then ready to be taken,
 * as it is, and nothing more is submitted. */
void handshake_pool_stop(struct handshake_pool *);
/* Stops the workers and closes the streams not taken.  NULL is fine. */
void handshake_pool_destroy(struct handshake_pool *);
int handshake_pool_n_threads(const struct handshake_pool *);
/* Streams submitted and not yet taken back. */
size_t handshake_pool_n_inflight(const struct handshake_pool *);

/* Takes 'stream' (see above). */
void handshake_pool_submit(struct handshake_pool *, struct stream *,
                           void *aux);
/* A stream handed back, with its 'aux' in '*auxp', or NULL if none is
 * ready.  The caller owns it again. */
struct stream *handshake_pool_take(struct handshake_pool *, void **auxp);
/* Wakes the poll loop when a stream is ready to be taken. */
void handshake_pool_wait(struct handshake_pool *);

/* A closer for stream_ssl_set_closer(), whose 'pool' is the pool: a
 * worker calls stream_ssl_finish_close(stream) (the main thread, at once,
 * if the pool is stopped).  Unset the closer before destroying the pool. */
void handshake_pool_close(struct stream *, void *pool);

#endif
