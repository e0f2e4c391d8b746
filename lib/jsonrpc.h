/* lib/jsonrpc.h: JSON-RPC 1.0 over a stream, as RFC 7047 section 4 uses
 * it.
 *
 * Messages are JSON objects sent back to back, with no framing: the
 * receiver finds where each top-level value ends by scanning bytes
 * (tracking strings and escapes), with a maximum message size and nesting
 * depth, then parses the whole message with jansson.
 *
 *     request:  {"method": M, "params": [...], "id": ID}    (ID not null)
 *     notify:   {"method": M, "params": [...], "id": null}
 *     reply:    {"result": R, "error": null, "id": ID}
 *     error:    {"result": null, "error": E, "id": ID}
 *
 * A 'struct jsonrpc' wraps one connected stream: jsonrpc_send() queues a
 * message (serialized compactly into one output buffer, sent with as few
 * writes as possible: see jsonrpc_recv()) and jsonrpc_recv() returns the
 * next complete message.
 * An error (bad JSON, bad message shape, over-limit message, I/O error or
 * EOF) is sticky: afterward both return it, and the owner should close the
 * connection.
 *
 * A 'struct jsonrpc_session' adds reconnection with exponential back-off
 * for active connections and an inactivity probe ("echo" requests).
 *
 * References: jansson's vocabulary.  A 'json_t *' parameter documented as
 * "steals" takes over the caller's reference. */
#ifndef LIB_JSONRPC_H
#define LIB_JSONRPC_H 1

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>
#include "lib/util.h"

struct ds;
struct jsonx_lazy_array;
struct stream;
struct pstream;

/* Messages. */

enum jsonrpc_msg_type {
    JSONRPC_REQUEST,
    JSONRPC_NOTIFY,
    JSONRPC_REPLY,
    JSONRPC_ERROR
};

struct jsonrpc_msg {
    enum jsonrpc_msg_type type;
    char *method;     /* Request, notify: owned.  Otherwise NULL. */
    json_t *params;   /* Request, notify: an array, owned.  Else NULL. */
    json_t *result;   /* Reply: owned (any value).  Else NULL. */
    json_t *error;    /* Error: owned (any value but null).  Else NULL. */
    json_t *id;       /* Request, reply, error: owned, any JSON value;
                       * notify: NULL. */

    /* Request: if nonnull, 'params' is NULL and the params are still
     * text (see jsonrpc_set_lazy_params()); owned. */
    struct jsonx_lazy_array *lazy_params;
};

/* Parses a request's lazy params into 'params' (nothing if there are
 * none). */
void jsonrpc_msg_parse_params(struct jsonrpc_msg *);

/* Returns a new request.  Steals 'params' (must be an array).  The id is a
 * process-wide counter (an integer); if 'idp' is nonnull '*idp' gets a new
 * reference to it, for matching the reply. */
struct jsonrpc_msg *jsonrpc_create_request(const char *method,
                                           json_t *params, json_t **idp);
/* Returns a new notification.  Steals 'params' (an array). */
struct jsonrpc_msg *jsonrpc_create_notify(const char *method,
                                          json_t *params);
/* Returns a new reply or error.  Steals 'result'/'error'; 'id' is borrowed
 * (the message takes its own reference). */
struct jsonrpc_msg *jsonrpc_create_reply(json_t *result, const json_t *id);
struct jsonrpc_msg *jsonrpc_create_error(json_t *error, const json_t *id);

void jsonrpc_msg_destroy(struct jsonrpc_msg *);   /* NULL is fine. */

const char *jsonrpc_msg_type_to_string(enum jsonrpc_msg_type);

/* Returns NULL if 'msg' has the members its type requires, else an error
 * message; caller must free with free(). */
char *jsonrpc_msg_is_valid(const struct jsonrpc_msg *msg);

/* Converts 'json' (borrowed) into a message.  Returns NULL and '*msgp', or
 * an error message such as "message is not a JSON object" (caller must
 * free with free()) and NULL. */
char *jsonrpc_msg_from_json(const json_t *json, struct jsonrpc_msg **msgp)
    WARN_UNUSED_RESULT;

/* Returns 'msg' as JSON (a new reference); consumes 'msg'. */
json_t *jsonrpc_msg_to_json(struct jsonrpc_msg *msg);

/* Appends the compact serialization of 'msg' to 'out' (for logging, tests,
 * and serializing once to send to many connections). */
void jsonrpc_msg_serialize(const struct jsonrpc_msg *msg, struct ds *out);

/* Returns a short human-readable form for logs; caller must free. */
char *jsonrpc_msg_to_string(const struct jsonrpc_msg *msg);

/* Connections. */

/* Default limits for received messages. */
#define JSONRPC_DEFAULT_MAX_MSG_SIZE (64 * 1024 * 1024)    /* Bytes. */
#define JSONRPC_DEFAULT_MAX_DEPTH 1000

struct jsonrpc;
struct refbuf;

/* Returns a connection over 'stream' (connected or still connecting);
 * takes ownership of 'stream'.  Caller must free with jsonrpc_close(). */
struct jsonrpc *jsonrpc_open(struct stream *stream);
void jsonrpc_close(struct jsonrpc *);   /* NULL is fine. */

/* Sets the largest message (bytes) and deepest nesting accepted from the
 * peer; a bigger or deeper one makes the connection fail with EMSGSIZE or
 * EPROTO. */
void jsonrpc_set_limits(struct jsonrpc *, size_t max_msg_size,
                        int max_depth);

/* Requests for 'method' (a string that outlives 'rpc'; NULL for none) of
 * at least 'min_size' bytes arrive with their params lazy (struct
 * jsonrpc_msg's 'lazy_params'), so that their consumer may parse and
 * free them one element at a time.  Their syntax is checked whole on
 * arrival, as any message's. */
void jsonrpc_set_lazy_params(struct jsonrpc *, const char *method,
                             size_t min_size);

/* Sends queued output and does stream background work; never blocks. */
void jsonrpc_run(struct jsonrpc *);
/* Wakes poll_block() when jsonrpc_run() can send queued output. */
void jsonrpc_wait(struct jsonrpc *);

/* Returns 0 while usable, else the sticky error: EOF (peer closed cleanly),
 * EPROTO (bad JSON or message), EMSGSIZE (over the size limit) or an I/O
 * errno. */
int jsonrpc_get_status(const struct jsonrpc *);

/* Returns a description of the last protocol error (e.g. "syntax error at
 * line 1, column 5: ..." or "message exceeds maximum size 67108864"), or
 * NULL; borrowed (valid until close). */
const char *jsonrpc_get_error_detail(const struct jsonrpc *);

/* Returns the bytes queued but not yet written: compare with a limit to
 * drop peers that stop reading. */
size_t jsonrpc_get_backlog(const struct jsonrpc *);

/* Returns the number of bytes received so far. */
unsigned long long jsonrpc_get_received_bytes(const struct jsonrpc *);

/* The kind of stream a connection runs over, told by its name's first
 * word ("unix", "tcp", "ssl"; anything else is "other"), for statistics
 * by transport. */
enum jsonrpc_transport {
    JSONRPC_UNIX,
    JSONRPC_TCP,
    JSONRPC_SSL,
    JSONRPC_OTHER,
    JSONRPC_N_TRANSPORTS
};
enum jsonrpc_transport jsonrpc_transport_of(const char *stream_name);
const char *jsonrpc_transport_to_string(enum jsonrpc_transport);

/* Bytes received and sent by every connection of the process over
 * 'transport' so far (two additions per read or write: cheap enough to
 * always count). */
void jsonrpc_get_totals(enum jsonrpc_transport transport,
                        unsigned long long *received,
                        unsigned long long *sent);

/* Returns the stream's name; borrowed (valid until close). */
const char *jsonrpc_get_name(const struct jsonrpc *);
/* Returns the underlying stream; borrowed (valid until close). */
struct stream *jsonrpc_get_stream(const struct jsonrpc *);

/* Queues 'msg' for sending and tries to send at once.  Always takes
 * ownership of 'msg', even on error.  Returns 0 or the sticky error. */
int jsonrpc_send(struct jsonrpc *, struct jsonrpc_msg *msg);

/* Queues the concatenation of 'iov', which must be exactly one complete,
 * serialized JSON-RPC message (the caller vouches for it).  For sending the
 * same pre-serialized update to many connections.  'iov' is borrowed: the
 * bytes are copied.  Returns 0 or the sticky error. */
int jsonrpc_send_raw(struct jsonrpc *, const struct iovec *iov, int n_iov);
/* Queues one message made of the bytes of 'head', 'body' and 'tail', as
 * jsonrpc_send_raw() would, but 'body' (a text shared by many connections)
 * by reference, not copied: it holds a reference until 'body' is sent. */
int jsonrpc_send_shared(struct jsonrpc *, const struct iovec *head, int n_head,
                        struct refbuf *body, const struct iovec *tail,
                        int n_tail);

/* Receives the next message.  Returns 0 and '*msgp' (caller must free with
 * jsonrpc_msg_destroy()), EAGAIN if no complete message has arrived yet, or
 * the sticky error, with '*msgp' NULL.  Reads from the stream until EAGAIN,
 * a complete message or 1 MiB read in this call (then it returns EAGAIN
 * and jsonrpc_recv_wait() wakes at once).
 *
 * It first tries to send queued output, so everything queued while
 * handling the previous message (a reply and its notifications) leaves in
 * one write, before the next message is looked at.  Output queued
 * otherwise is sent by jsonrpc_run() or once 64 KiB are queued. */
int jsonrpc_recv(struct jsonrpc *, struct jsonrpc_msg **msgp);

/* Wakes poll_block() when jsonrpc_recv() may return something. */
void jsonrpc_recv_wait(struct jsonrpc *);

/* Blocking helpers for tools and tests: they run a private poll loop. */
/* Sends 'msg' (takes ownership) and waits until it has all been written. */
int jsonrpc_send_block(struct jsonrpc *, struct jsonrpc_msg *msg);
/* Waits for the next message. */
int jsonrpc_recv_block(struct jsonrpc *, struct jsonrpc_msg **msgp);
/* Sends 'request' (takes ownership) and waits for the reply or error with
 * the same id, answering "echo" requests and discarding other messages
 * meanwhile.  '*replyp': caller must free with jsonrpc_msg_destroy(). */
int jsonrpc_transact_block(struct jsonrpc *, struct jsonrpc_msg *request,
                           struct jsonrpc_msg **replyp);

/* Sessions: a connection that survives reconnects. */

struct jsonrpc_session;

/* Returns a session that connects to 'name' (e.g. "tcp:127.0.0.1:6640").
 * If 'retry', it reconnects forever with exponential back-off (1 s up to
 * jsonrpc_session_set_backoff(), default 8 s); otherwise it tries
 * once.  A passive 'name' ("ptcp:...", "punix:...") listens and serves the
 * first connection, like the reference.  Caller must free with
 * jsonrpc_session_close(). */
struct jsonrpc_session *jsonrpc_session_open(const char *name, bool retry);

/* Returns a session for 'rpc', a connection accepted by a server; takes
 * ownership of 'rpc'.  It never reconnects: once the connection fails,
 * jsonrpc_session_is_alive() turns false. */
struct jsonrpc_session *jsonrpc_session_open_unreliably(struct jsonrpc *rpc);

void jsonrpc_session_close(struct jsonrpc_session *);   /* NULL is fine. */

/* Connects, reconnects, sends probes, sends queued output.  Output that
 * the peer takes counts as activity for the inactivity probe, as input
 * does. */
void jsonrpc_session_run(struct jsonrpc_session *);
/* Only sends queued output (as far as the socket takes it); cheap. */
void jsonrpc_session_flush(struct jsonrpc_session *);
void jsonrpc_session_wait(struct jsonrpc_session *);

/* Returns the next message, or NULL.  Answers "echo" requests itself and
 * swallows replies to its own probes.  Looks at one message per call at
 * most, so it returns NULL after handling one itself; then
 * jsonrpc_session_recv_wait() wakes at once if more input is buffered.
 * The owner's limits (how much it reads per pass, what backlog stops it
 * reading) thus hold for echo requests too.  Caller must free with
 * jsonrpc_msg_destroy(). */
struct jsonrpc_msg *jsonrpc_session_recv(struct jsonrpc_session *);
void jsonrpc_session_recv_wait(struct jsonrpc_session *);

/* Sends 'msg' if connected (takes ownership, even on error; dropped when
 * not connected).  Returns 0, ENOTCONN, or the connection's error. */
int jsonrpc_session_send(struct jsonrpc_session *, struct jsonrpc_msg *msg);
/* As jsonrpc_send_raw(). */
int jsonrpc_session_send_raw(struct jsonrpc_session *,
                             const struct iovec *iov, int n_iov);
/* As jsonrpc_send_shared(). */
int jsonrpc_session_send_shared(struct jsonrpc_session *,
                                const struct iovec *head, int n_head,
                                struct refbuf *body, const struct iovec *tail,
                                int n_tail);

/* Returns the current connection, or NULL; borrowed (valid until the next
 * jsonrpc_session_run()). */
struct jsonrpc *jsonrpc_session_get_rpc(const struct jsonrpc_session *);

size_t jsonrpc_session_get_backlog(const struct jsonrpc_session *);
/* Returns the session's name (the remote for accepted ones); borrowed. */
const char *jsonrpc_session_get_name(const struct jsonrpc_session *);

/* False once a non-retrying session's connection has failed. */
bool jsonrpc_session_is_alive(const struct jsonrpc_session *);
bool jsonrpc_session_is_connected(const struct jsonrpc_session *);
/* True while the session's stream is still being set up (a TCP connect or
 * a TLS handshake under way): running it then may cost a handshake step,
 * a public-key operation of a millisecond or more. */
bool jsonrpc_session_is_handshaking(const struct jsonrpc_session *);

/* Returns a number that changes every time the session connects or
 * disconnects: a caller that sees it change must resend its state
 * (monitors, locks). */
unsigned int jsonrpc_session_get_seqno(const struct jsonrpc_session *);

/* Returns the error of the last connection failure (EOF for a clean
 * close), or 0. */
int jsonrpc_session_get_last_error(const struct jsonrpc_session *);
/* The session's connection state and times (see lib/reconnect.h). */
struct reconnect_stats;
void jsonrpc_session_get_reconnect_stats(const struct jsonrpc_session *,
                                         struct reconnect_stats *);

/* Drops the current connection and reconnects (if retrying). */
void jsonrpc_session_force_reconnect(struct jsonrpc_session *);

/* Sets the back-off bounds in msec (defaults 1000 and 8000). */
void jsonrpc_session_set_backoff(struct jsonrpc_session *, int min_backoff,
                                 int max_backoff);

/* Sets the inactivity probe interval in msec: after this long without
 * receiving anything an "echo" request is sent, and after as long again
 * the connection is dropped.  0 disables.  Default: 5000 for streams that
 * need probes (TCP), 0 for unix sockets. */
void jsonrpc_session_set_probe_interval(struct jsonrpc_session *,
                                        int probe_interval);

/* Applies jsonrpc_set_limits() to current and future connections. */
void jsonrpc_session_set_limits(struct jsonrpc_session *,
                                size_t max_msg_size, int max_depth);

/* Applies jsonrpc_set_lazy_params() to current and future connections. */
void jsonrpc_session_set_lazy_params(struct jsonrpc_session *,
                                     const char *method, size_t min_size);

#endif /* lib/jsonrpc.h */
