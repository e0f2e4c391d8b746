/* lib/http-server.c: a minimal HTTP/1.x responder.  See http-server.h. */
#include <config.h>

#include "lib/http-server.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/poll-loop.h"
#include "lib/stream.h"
#include "lib/timeval.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(http_server);

/* One connection: it reads a request, then writes the response, then it is
 * closed. */
struct http_conn {
    struct stream *stream;
    long long deadline; /* time_msec() at which it is closed. */
    char in[HTTP_SERVER_MAX_REQUEST];
    size_t in_size;  /* Bytes of 'in' used. */
    bool responding; /* 'out' holds the whole response. */
    bool draining;   /* Answered before the end of the request: the rest
                      * is read and dropped until the client closes, as
                      * closing with unread input would reset the
                      * connection and lose the answer. */
    struct ds out;
    size_t sent; /* Bytes of 'out' already written. */
};

struct http_server {
    struct pstream *listener;
    http_server_get_cb *get;
    void *aux;
    struct http_conn *conns[HTTP_SERVER_MAX_CONNS];
    size_t n_conns;
};

int
http_server_open(const char *name, http_server_get_cb *get, void *aux,
                 struct http_server **hsp)
{
    struct pstream *listener;
    int error = pstream_open(name, &listener);
    if (error) {
        *hsp = NULL;
        return error;
    }
    struct http_server *hs = xzalloc(sizeof *hs);
    hs->listener = listener;
    hs->get = get;
    hs->aux = aux;
    *hsp = hs;
    return 0;
}

static void
conn_close(struct http_conn *c)
{
    stream_close(c->stream);
    ds_destroy(&c->out);
    free(c);
}

void
http_server_close(struct http_server *hs)
{
    if (!hs) {
        return;
    }
    for (size_t i = 0; i < hs->n_conns; i++) {
        conn_close(hs->conns[i]);
    }
    pstream_close(hs->listener);
    free(hs);
}

const char *
http_server_get_name(const struct http_server *hs)
{
    return pstream_get_name(hs->listener);
}

uint16_t
http_server_get_bound_port(const struct http_server *hs)
{
    return pstream_get_bound_port(hs->listener);
}

size_t
http_server_n_conns(const struct http_server *hs)
{
    return hs->n_conns;
}

/* Makes 'c''s response: status 'code' with 'body' (may be NULL), which it
 * leaves out for HEAD ('head'). */
static void
respond(struct http_conn *c, int code, const char *content_type,
        const struct ds *body, bool head)
{
    static const struct {
        int code;
        const char *reason;
    } reasons[] = {
        { 200, "OK" },
        { 400, "Bad Request" },
        { 404, "Not Found" },
        { 405, "Method Not Allowed" },
    };
    const char *reason = "Error";
    for (size_t i = 0; i < ARRAY_SIZE(reasons); i++) {
        if (reasons[i].code == code) {
            reason = reasons[i].reason;
        }
    }
    size_t body_size = body ? body->length : 0;
    ds_put_format(&c->out,
                  "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
                  "Content-Length: %zu\r\nConnection: close\r\n%s\r\n",
                  code, reason, content_type, body_size,
                  code == 405 ? "Allow: GET, HEAD\r\n" : "");
    if (body && !head) {
        ds_put_buffer(&c->out, body->string, body->length);
    }
    c->responding = true;
}

static void
respond_text(struct http_conn *c, int code, const char *text)
{
    struct ds body = DS_EMPTY_INITIALIZER;
    ds_put_format(&body, "%s\n", text);
    respond(c, code, "text/plain; charset=utf-8", &body, false);
    ds_destroy(&body);
}

/* Returns true if 's' is an HTTP token (RFC 9110 section 5.6.2), as a
 * method must be. */
static bool
is_token(const char *s)
{
    if (!*s) {
        return false;
    }
    for (; *s; s++) {
        if (*s <= ' ' || *s >= 127 || strchr("\"(),/:;<=>?@[\\]{}", *s)) {
            return false;
        }
    }
    return true;
}

/* Answers the request line 'line' (null-terminated, no line end). */
static void
handle_request(struct http_server *hs, struct http_conn *c, char *line)
{
    char *save = NULL;
    char *method = strtok_r(line, " ", &save);
    char *target = method ? strtok_r(NULL, " ", &save) : NULL;
    char *version = target ? strtok_r(NULL, " ", &save) : NULL;
    if (!version || strtok_r(NULL, " ", &save) || !is_token(method)
        || target[0] != '/' || strncmp(version, "HTTP/1.", 7)) {
        respond_text(c, 400, "bad request");
        return;
    }
    bool head = !strcmp(method, "HEAD");
    if (!head && strcmp(method, "GET")) {
        respond_text(c, 405, "method not allowed");
        return;
    }
    target[strcspn(target, "?#")] = '\0';

    struct ds body = DS_EMPTY_INITIALIZER;
    const char *content_type = "text/plain; charset=utf-8";
    if (hs->get(target, &body, &content_type, hs->aux)) {
        respond(c, 200, content_type, &body, head);
    } else {
        respond_text(c, 404, "not found");
    }
    ds_destroy(&body);
}

/* Looks for the end of the request's headers in 'c''s input; once there,
 * answers it. */
static void
parse_input(struct http_server *hs, struct http_conn *c)
{
    char *end = memmem(c->in, c->in_size, "\r\n\r\n", 4);
    if (!end) {
        /* HTTP/1.1 allows bare line feeds (RFC 9112 section 2.2). */
        end = memmem(c->in, c->in_size, "\n\n", 2);
    }
    if (!end) {
        if (c->in_size >= sizeof c->in) {
            respond_text(c, 400, "request too large");
            c->draining = true;
        }
        return;
    }
    /* The match's first line feed ends the request line: at 'end' + 1
     * for "\r\n\r\n", at 'end' for "\n\n", both inside the match. */
    char *line_end = memchr(c->in, '\n', end - c->in + 2);
    if (memchr(c->in, '\0', line_end - c->in)) {
        respond_text(c, 400, "bad request");
        return;
    }
    *line_end = '\0';
    if (line_end > c->in && line_end[-1] == '\r') {
        line_end[-1] = '\0';
    }
    handle_request(hs, c, c->in);
}

/* Does what 'c' can do now.  Returns false if it is done with. */
static bool
conn_run(struct http_server *hs, struct http_conn *c, long long now)
{
    if (now >= c->deadline) {
        return false;
    }
    stream_run(c->stream);
    while (!c->responding) {
        ssize_t n = stream_recv(c->stream, c->in + c->in_size,
                                sizeof c->in - c->in_size);
        if (n == -EAGAIN) {
            return true;
        } else if (n <= 0) {
            return false; /* Closed or failed before asking. */
        }
        c->in_size += n;
        parse_input(hs, c);
    }
    while (c->sent < c->out.length) {
        ssize_t n = stream_send(c->stream, c->out.string + c->sent,
                                c->out.length - c->sent);
        if (n == -EAGAIN) {
            return true;
        } else if (n < 0) {
            return false;
        }
        c->sent += n;
    }
    while (c->draining) {
        ssize_t n = stream_recv(c->stream, c->in, sizeof c->in);
        if (n == -EAGAIN) {
            return true;
        } else if (n <= 0) {
            return false;
        }
    }
    return false; /* All sent: "Connection: close". */
}

void
http_server_run(struct http_server *hs)
{
    long long now = time_msec();
    for (int i = 0; i < HTTP_SERVER_MAX_CONNS; i++) {
        struct stream *stream;
        int error = pstream_accept(hs->listener, &stream);
        if (error) {
            if (error != EAGAIN) {
                static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
                VLOG_WARN_RL(&rl, "%s: accept failed: %s",
                             http_server_get_name(hs), ovs_strerror(error));
            }
            break;
        }
        if (hs->n_conns >= HTTP_SERVER_MAX_CONNS) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
            VLOG_WARN_RL(&rl, "%s: %s: too many connections, closing",
                         http_server_get_name(hs), stream_get_name(stream));
            stream_close(stream);
            continue;
        }
        struct http_conn *c = xzalloc(sizeof *c);
        c->stream = stream;
        c->deadline = now + HTTP_SERVER_TIMEOUT_MSEC;
        ds_init(&c->out);
        hs->conns[hs->n_conns++] = c;
    }

    for (size_t i = 0; i < hs->n_conns;) {
        struct http_conn *c = hs->conns[i];
        if (conn_run(hs, c, now)) {
            i++;
        } else {
            conn_close(c);
            hs->conns[i] = hs->conns[--hs->n_conns];
        }
    }
}

void
http_server_wait(struct http_server *hs)
{
    pstream_wait(hs->listener);
    for (size_t i = 0; i < hs->n_conns; i++) {
        struct http_conn *c = hs->conns[i];
        stream_run_wait(c->stream);
        if (c->sent < c->out.length) {
            stream_send_wait(c->stream);
        } else {
            stream_recv_wait(c->stream);
        }
        poll_timer_wait_until(c->deadline);
    }
}
