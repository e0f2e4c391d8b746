/* tests/workloads/wl-rpc.h: a small blocking JSON-RPC client for the
 * workload driver.
 *
 * One connection to an OVSDB server over "unix:PATH", "tcp:IP:PORT" or
 * "ssl:IP:PORT".  A TLS handshake completes in the background of the first
 * reads (what is sent meanwhile is kept until it completes), so a caller
 * can open many connections at once.
 * Requests are synchronous: wl_rpc_request() sends one request and reads
 * until its reply arrives.  Notifications ("update" from monitors) that
 * arrive meanwhile are queued, in order, for wl_rpc_recv_notification().
 * "echo" requests from the server are answered as they arrive.
 *
 * Message boundaries are found by scanning the byte stream for the end of
 * the top-level JSON object (strings and escapes included), so each message
 * is parsed once, whatever its size.  Not thread-safe: one thread per
 * connection. */
#ifndef TESTS_WORKLOADS_WL_RPC_H
#define TESTS_WORKLOADS_WL_RPC_H 1

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct wl_rpc;

/* Sets the files that "ssl:IP:PORT" connections use: this client's private
 * key and certificate, and the CA certificate that the server's must be
 * signed by (strings borrowed for the life of the program).  Call before
 * the first wl_rpc_open() of an "ssl:" remote. */
void wl_rpc_set_ssl(const char *private_key, const char *certificate,
                    const char *ca_cert);

/* Connects to 'remote'.  Returns 0 and stores a new connection in '*rpcp',
 * or returns a positive errno (EINVAL for a malformed remote). */
int wl_rpc_open(const char *remote, struct wl_rpc **rpcp);
void wl_rpc_close(struct wl_rpc *); /* NULL is fine. */

/* Sends request 'method' with 'params_text' (the JSON text of the params
 * array, borrowed) and waits for the reply.  On success returns 0 and
 * stores the "result" in '*resultp' (new reference).  On failure (I/O,
 * protocol, or a non-null "error" in the reply) returns -1 and
 * wl_rpc_error() says why. */
int wl_rpc_request(struct wl_rpc *, const char *method,
                   const char *params_text, json_t **resultp);

/* With 'durable', every "transact" request sent from now on (by any
 * connection) ends with {"op":"commit","durable":true}. */
void wl_rpc_set_durable(bool durable);

/* Same, with 'params' as a JSON value (borrowed). */
int wl_rpc_request_json(struct wl_rpc *, const char *method,
                        const json_t *params, json_t **resultp);

/* Returns the next notification (new reference), reading from the server
 * if none is queued, or NULL on error (see wl_rpc_error()). */
json_t *wl_rpc_recv_notification(struct wl_rpc *);

/* For driving many connections from one thread (poll()):
 *
 * Returns the socket of 'rpc'. */
int wl_rpc_fd(const struct wl_rpc *);

/* Sends request 'method' with 'params_text' (borrowed) without waiting for
 * the reply; stores the request's id in '*idp'.  Returns 0 or -1. */
int wl_rpc_send_request(struct wl_rpc *, const char *method,
                        const char *params_text, long long *idp);

/* Returns 0 and stores in '*msgp' the next message from the server (a
 * reply or a notification; new reference), or NULL if no complete message
 * has arrived and the socket has nothing more to read now ('wait' false)
 * or after one blocking read ('wait' true).  Answers "echo" requests
 * itself.  Returns -1 on error or when the server closed the
 * connection.  Do not mix with wl_rpc_request() on one connection while
 * replies are outstanding. */
int wl_rpc_try_recv(struct wl_rpc *, bool wait, json_t **msgp);

/* Frees the notifications queued so far and returns how many there were
 * (a client that monitors a table only to read its updates, as an IDL
 * does). */
size_t wl_rpc_discard_notifications(struct wl_rpc *);

/* Returns a description of the last error; borrowed (valid until the next
 * call on 'rpc'). */
const char *wl_rpc_error(const struct wl_rpc *);

/* Number of bytes sent and received so far. */
size_t wl_rpc_bytes_sent(const struct wl_rpc *);
size_t wl_rpc_bytes_received(const struct wl_rpc *);

#endif /* tests/workloads/wl-rpc.h */
