/* lib/http-server.h: a minimal HTTP/1.x responder on a listener, for
 * read-only endpoints such as a metrics scrape.
 *
 * It answers GET and HEAD, one request per connection ("Connection:
 * close"): the 'get' callback fills in the body of a path, or says there
 * is none (404).  Other methods get 405, anything unparsable 400.  Every
 * limit is about not letting a client hurt the loop it runs in:
 *   - a request (line and headers) is at most HTTP_SERVER_MAX_REQUEST
 *     bytes, or it gets 400;
 *   - at most HTTP_SERVER_MAX_CONNS connections at once: more are
 *     accepted and closed at once;
 *   - a connection is closed HTTP_SERVER_TIMEOUT_MSEC after it opened,
 *     whatever it is doing (a client that never sends or never reads);
 *   - the response is built once, into memory, and written as the socket
 *     takes it, from http_server_run(), never blocking.
 *
 *     error = http_server_open("ptcp:9100:127.0.0.1", get_cb, aux, &hs);
 *     for (;;) {
 *         http_server_run(hs);
 *         http_server_wait(hs);
 *         poll_block();
 *     }
 */
#ifndef LIB_HTTP_SERVER_H
#define LIB_HTTP_SERVER_H 1

#include <stdbool.h>
#include <stdint.h>
#include "lib/util.h"

struct ds;

#define HTTP_SERVER_MAX_REQUEST 8192
#define HTTP_SERVER_MAX_CONNS 16
#define HTTP_SERVER_TIMEOUT_MSEC 10000

/* Fills in 'body' (empty) with the resource at 'path' (without its query
 * string) and sets '*content_type' (static) for it, or returns false if
 * there is none. */
typedef bool http_server_get_cb(const char *path, struct ds *body,
                                const char **content_type, void *aux);

struct http_server;

/* Starts listening on passive stream 'name' ("ptcp:PORT[:IP]", any
 * lib/stream passive name).  On success returns 0 and sets '*hsp' (caller
 * must free with http_server_close()); otherwise returns an errno and sets
 * '*hsp' to NULL. */
int http_server_open(const char *name, http_server_get_cb *get, void *aux,
                     struct http_server **hsp) WARN_UNUSED_RESULT;
void http_server_close(struct http_server *); /* NULL is fine. */

/* The name it was opened with (borrowed), and the TCP port it is bound to
 * (0 if not TCP). */
const char *http_server_get_name(const struct http_server *);
uint16_t http_server_get_bound_port(const struct http_server *);

/* Number of connections open now. */
size_t http_server_n_conns(const struct http_server *);

void http_server_run(struct http_server *);
void http_server_wait(struct http_server *);

#endif /* lib/http-server.h */
