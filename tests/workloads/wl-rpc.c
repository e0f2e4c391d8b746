/* tests/workloads/wl-rpc.c: see wl-rpc.h. */
#include <config.h>
#include "tests/workloads/wl-rpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/util.h"

/* Refuse single messages larger than this (a runaway server). */
#define MAX_MESSAGE_SIZE ((size_t) 1 << 31)

struct wl_rpc {
    int fd;

    /* "ssl:" connections: the TLS session (the socket is then nonblocking
     * and every wait is a poll()), and while 'handshaking' the bytes sent
     * so far, kept until the handshake completes, so that opening many
     * connections in a row does not wait for each handshake in turn. */
    SSL *ssl;
    bool handshaking;
    struct ds early;

    /* Received bytes not yet returned as messages: buf[0, len).  The
     * scanner has examined buf[0, scan) of the message that starts at 0. */
    char *buf;
    size_t len, alloc, scan;
    int depth;                  /* Nesting depth of [ and { at 'scan'. */
    bool in_string, escape;     /* Scanner is inside a string / after \. */

    /* Notifications received while waiting for a reply, oldest first. */
    json_t **queue;
    size_t queue_head, queue_len, queue_alloc;

    long long next_id;
    size_t bytes_sent, bytes_received;
    char *error;
};

static void
set_error(struct wl_rpc *rpc, const char *fmt, ...) PRINTF_FORMAT(2, 3);

static void
set_error(struct wl_rpc *rpc, const char *fmt, ...)
{
    va_list args;

    va_start(args, fmt);
    free(rpc->error);
    rpc->error = xvasprintf(fmt, args);
    va_end(args);
}

/* The files for "ssl:" connections (wl_rpc_set_ssl()) and the context made
 * from them on first use, shared by every connection and thread. */
static const char *ssl_key_file, *ssl_cert_file, *ssl_ca_file;
static pthread_once_t ssl_once = PTHREAD_ONCE_INIT;
static SSL_CTX *ssl_ctx;

void
wl_rpc_set_ssl(const char *private_key, const char *certificate,
               const char *ca_cert)
{
    ssl_key_file = private_key;
    ssl_cert_file = certificate;
    ssl_ca_file = ca_cert;
}

static void
ssl_ctx_init(void)
{
    unsigned long err;
    SSL_CTX *ctx;

    if (!ssl_key_file || !ssl_cert_file || !ssl_ca_file) {
        fprintf(stderr,
                "%s: ssl: remotes need --private-key, "
                "--certificate and --ca-cert\n",
                program_name());
        return;
    }
    ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx || SSL_CTX_use_certificate_chain_file(ctx, ssl_cert_file) != 1
        || SSL_CTX_use_PrivateKey_file(ctx, ssl_key_file, SSL_FILETYPE_PEM)
               != 1
        || SSL_CTX_load_verify_locations(ctx, ssl_ca_file, NULL) != 1) {
        err = ERR_get_error();
        fprintf(stderr, "%s: TLS set-up: %s\n", program_name(),
                err ? ERR_error_string(err, NULL) : "out of memory");
        SSL_CTX_free(ctx);
        return;
    }
    /* The server's certificate is checked against the CA, as OVSDB's
     * clients do; its name is not (ovs-pki certificates name no host). */
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE
                              | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    ssl_ctx = ctx;
}

/* Waits until 'rpc''s socket is readable ('want_read') or writable. */
static void
wait_socket(const struct wl_rpc *rpc, bool want_read)
{
    struct pollfd pfd = { .fd = rpc->fd,
                          .events = want_read ? POLLIN : POLLOUT };
    while (poll(&pfd, 1, -1) < 0 && errno == EINTR) {
        continue;
    }
}

/* Describes why TLS call 'what' failed with 'retval'; sets rpc->error. */
static void
set_ssl_error(struct wl_rpc *rpc, const char *what, int retval)
{
    int code = SSL_get_error(rpc->ssl, retval);
    unsigned long err = ERR_get_error();

    if (err) {
        set_error(rpc, "%s: %s", what, ERR_error_string(err, NULL));
    } else if (code == SSL_ERROR_ZERO_RETURN
               || (code == SSL_ERROR_SYSCALL && !errno)) {
        set_error(rpc, "%s: connection closed", what);
    } else if (code == SSL_ERROR_SYSCALL) {
        set_error(rpc, "%s: %s", what, ovs_strerror(errno));
    } else {
        set_error(rpc, "%s: TLS error %d", what, code);
    }
}

/* After TLS call 'what' returned 'retval' without success: if OpenSSL only
 * needs the socket, returns EAGAIN without 'wait', or waits for the socket
 * and returns 0 (call again); otherwise sets rpc->error, returns -1. */
static int
ssl_await(struct wl_rpc *rpc, const char *what, int retval, bool wait)
{
    int code = SSL_get_error(rpc->ssl, retval);
    if (code != SSL_ERROR_WANT_READ && code != SSL_ERROR_WANT_WRITE) {
        set_ssl_error(rpc, what, retval);
        return -1;
    } else if (!wait) {
        return EAGAIN;
    }
    wait_socket(rpc, code == SSL_ERROR_WANT_READ);
    return 0;
}

static int ssl_write_all(struct wl_rpc *, const char *data, size_t size);

/* Moves the TLS handshake on; once it is complete, sends what was kept
 * meanwhile.  With 'wait', blocks until the handshake completes.  Returns
 * 0 (complete), EAGAIN (not yet, and not 'wait') or -1 on error. */
static int
ssl_handshake(struct wl_rpc *rpc, bool wait)
{
    while (rpc->handshaking) {
        ERR_clear_error();
        int retval = SSL_connect(rpc->ssl);
        if (retval == 1) {
            rpc->handshaking = false;
            break;
        }
        retval = ssl_await(rpc, "TLS handshake", retval, wait);
        if (retval) {
            return retval;
        }
    }
    if (rpc->early.length) {
        struct ds early = rpc->early;
        ds_init(&rpc->early);
        int retval = ssl_write_all(rpc, early.string, early.length);
        ds_destroy(&early);
        return retval;
    }
    return 0;
}

/* Sends all of 'data' on a connected TLS session, blocking. */
static int
ssl_write_all(struct wl_rpc *rpc, const char *data, size_t size)
{
    while (size > 0) {
        ERR_clear_error();
        int n = SSL_write(rpc->ssl, data, MIN(size, INT_MAX));
        if (n > 0) {
            data += n;
            size -= n;
            continue;
        }
        if (ssl_await(rpc, "send", n, true)) {
            return -1;
        }
    }
    return 0;
}

static bool
set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

static int
open_unix(const char *path)
{
    struct sockaddr_un sun;
    int fd;

    if (strlen(path) >= sizeof sun.sun_path) {
        return ENAMETOOLONG;
    }
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    strcpy(sun.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        return -errno;
    }
    if (connect(fd, (struct sockaddr *) &sun, sizeof sun) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

static int
open_tcp(const char *target)
{
    struct sockaddr_in sin;
    const char *colon = strrchr(target, ':');
    char *host;
    int fd, port, one = 1;

    if (!colon || !str_to_int(colon + 1, &port) || port <= 0
        || port > 65535) {
        return -EINVAL;
    }
    host = xmemdup0(target, colon - target);
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
        free(host);
        return -EINVAL;
    }
    free(host);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return -errno;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *) &sin, sizeof sin) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int
wl_rpc_open(const char *remote, struct wl_rpc **rpcp)
{
    struct wl_rpc *rpc;
    int fd;

    *rpcp = NULL;
    if (!strncmp(remote, "unix:", 5)) {
        fd = open_unix(remote + 5);
    } else if (!strncmp(remote, "tcp:", 4)) {
        fd = open_tcp(remote + 4);
    } else if (!strncmp(remote, "ssl:", 4)) {
        pthread_once(&ssl_once, ssl_ctx_init);
        if (!ssl_ctx) {
            return EPROTO; /* ssl_ctx_init() said why, once. */
        }
        fd = open_tcp(remote + 4);
    } else {
        return EINVAL;
    }
    if (fd < 0) {
        return -fd;
    }
    rpc = xzalloc(sizeof *rpc);
    rpc->fd = fd;
    rpc->alloc = 65536;
    rpc->buf = xmalloc(rpc->alloc);
    rpc->next_id = 1;
    ds_init(&rpc->early);
    if (!strncmp(remote, "ssl:", 4)) {
        rpc->ssl = SSL_new(ssl_ctx);
        if (!rpc->ssl || !set_nonblocking(fd) || !SSL_set_fd(rpc->ssl, fd)) {
            wl_rpc_close(rpc);
            return ENOMEM;
        }
        SSL_set_connect_state(rpc->ssl);
        rpc->handshaking = true;
        if (ssl_handshake(rpc, false) < 0) {
            fprintf(stderr, "%s: %s: %s\n", program_name(), remote,
                    wl_rpc_error(rpc));
            wl_rpc_close(rpc);
            return EPROTO;
        }
    }
    *rpcp = rpc;
    return 0;
}

void
wl_rpc_close(struct wl_rpc *rpc)
{
    if (!rpc) {
        return;
    }
    SSL_free(rpc->ssl);
    ds_destroy(&rpc->early);
    close(rpc->fd);
    for (size_t i = 0; i < rpc->queue_len; i++) {
        json_decref(rpc->queue[rpc->queue_head + i]);
    }
    free(rpc->queue);
    free(rpc->buf);
    free(rpc->error);
    free(rpc);
}

const char *
wl_rpc_error(const struct wl_rpc *rpc)
{
    return rpc->error ? rpc->error : "no error";
}

size_t
wl_rpc_bytes_sent(const struct wl_rpc *rpc)
{
    return rpc->bytes_sent;
}

size_t
wl_rpc_bytes_received(const struct wl_rpc *rpc)
{
    return rpc->bytes_received;
}

static int
send_all(struct wl_rpc *rpc, const char *data, size_t size)
{
    if (rpc->ssl) {
        int retval;
        if (rpc->handshaking) {
            ds_put_buffer(&rpc->early, data, size);
            retval = ssl_handshake(rpc, false) < 0 ? -1 : 0;
        } else {
            retval = ssl_write_all(rpc, data, size);
        }
        if (!retval) {
            rpc->bytes_sent += size;
        }
        return retval;
    }
    while (size > 0) {
        ssize_t n = send(rpc->fd, data, size, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            set_error(rpc, "send: %s", ovs_strerror(errno));
            return -1;
        }
        data += n;
        size -= n;
        rpc->bytes_sent += n;
    }
    return 0;
}

/* Scans buf[scan, len) for the end of the message that starts at buf[0].
 * Returns the message's size once complete, 0 if more bytes are needed, or
 * SIZE_MAX on a framing error. */
static size_t
scan_message(struct wl_rpc *rpc)
{
    for (; rpc->scan < rpc->len; rpc->scan++) {
        char c = rpc->buf[rpc->scan];
        if (rpc->in_string) {
            if (rpc->escape) {
                rpc->escape = false;
            } else if (c == '\\') {
                rpc->escape = true;
            } else if (c == '"') {
                rpc->in_string = false;
            }
        } else if (c == '"') {
            rpc->in_string = true;
        } else if (c == '{' || c == '[') {
            rpc->depth++;
        } else if (c == '}' || c == ']') {
            if (--rpc->depth == 0) {
                return ++rpc->scan;
            } else if (rpc->depth < 0) {
                return SIZE_MAX;
            }
        } else if (rpc->depth == 0 && c != ' ' && c != '\t' && c != '\n'
                   && c != '\r') {
            return SIZE_MAX;
        }
    }
    return 0;
}

/* Takes the first complete message out of the buffer.  Returns 0 and
 * stores it (new reference, or NULL if none is complete yet) in '*msgp',
 * or -1 on error. */
static int
take_message(struct wl_rpc *rpc, json_t **msgp)
{
    size_t size = scan_message(rpc);

    *msgp = NULL;
    if (size == SIZE_MAX) {
        set_error(rpc, "framing error in data from server");
        return -1;
    } else if (size > 0) {
        json_error_t jerr;
        json_t *msg = json_loadb(rpc->buf, size, 0, &jerr);
        memmove(rpc->buf, rpc->buf + size, rpc->len - size);
        rpc->len -= size;
        rpc->scan = 0;
        if (!msg || !json_is_object(msg)) {
            set_error(rpc, "bad JSON from server: %s",
                      msg ? "not an object" : jerr.text);
            json_decref(msg);
            return -1;
        }
        *msgp = msg;
    }
    return 0;
}

/* recv_more() for a TLS session: 'wait' false is MSG_DONTWAIT. */
static int
ssl_recv_more(struct wl_rpc *rpc, bool wait)
{
    int retval = ssl_handshake(rpc, wait);
    if (retval) {
        return retval; /* EAGAIN or -1. */
    }
    for (;;) {
        size_t room = MIN(rpc->alloc - rpc->len, INT_MAX);
        ERR_clear_error();
        int n = SSL_read(rpc->ssl, rpc->buf + rpc->len, room);
        if (n > 0) {
            rpc->len += n;
            rpc->bytes_received += n;
            return 0;
        }
        retval = ssl_await(rpc, "recv", n, wait);
        if (retval) {
            return retval;
        }
    }
}

/* Receives more bytes, with recv() 'flags'.  Returns 0, EAGAIN if
 * nonblocking and nothing is there, or -1 on error or end of stream. */
static int
recv_more(struct wl_rpc *rpc, int flags)
{
    if (rpc->alloc - rpc->len < 65536) {
        if (rpc->alloc >= MAX_MESSAGE_SIZE) {
            set_error(rpc, "message from server too large");
            return -1;
        }
        rpc->alloc *= 2;
        rpc->buf = xrealloc(rpc->buf, rpc->alloc);
    }
    if (rpc->ssl) {
        return ssl_recv_more(rpc, !(flags & MSG_DONTWAIT));
    }
    for (;;) {
        ssize_t n = recv(rpc->fd, rpc->buf + rpc->len,
                         rpc->alloc - rpc->len, flags);
        if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN && flags & MSG_DONTWAIT) {
            return EAGAIN;
        } else if (n <= 0) {
            set_error(rpc, "recv: %s",
                      n < 0 ? ovs_strerror(errno) : "connection closed");
            return -1;
        }
        rpc->len += n;
        rpc->bytes_received += n;
        return 0;
    }
}

/* Reads one message from the server, blocking.  Returns it (new
 * reference), or NULL on error. */
static json_t *
read_message(struct wl_rpc *rpc)
{
    for (;;) {
        json_t *msg;
        if (take_message(rpc, &msg)) {
            return NULL;
        } else if (msg) {
            return msg;
        }
        if (recv_more(rpc, 0)) {
            return NULL;
        }
    }
}

static void
enqueue(struct wl_rpc *rpc, json_t *msg)
{
    if (rpc->queue_head + rpc->queue_len >= rpc->queue_alloc) {
        if (rpc->queue_head > 0) {
            memmove(rpc->queue, rpc->queue + rpc->queue_head,
                    rpc->queue_len * sizeof *rpc->queue);
            rpc->queue_head = 0;
        }
        if (rpc->queue_len >= rpc->queue_alloc) {
            rpc->queue = x2nrealloc(rpc->queue, &rpc->queue_alloc,
                                    sizeof *rpc->queue);
        }
    }
    rpc->queue[rpc->queue_head + rpc->queue_len++] = msg;
}

/* Answers an "echo" request.  Returns 0 or -1 on error. */
static int
reply_echo(struct wl_rpc *rpc, json_t *msg)
{
    json_t *reply = json_pack("{s:O, s:O, s:n}", "id",
                              json_object_get(msg, "id"), "result",
                              json_object_get(msg, "params"), "error");
    char *text = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
    int retval = text ? send_all(rpc, text, strlen(text)) : -1;

    if (!text) {
        set_error(rpc, "cannot answer echo");
    }
    free(text);
    json_decref(reply);
    return retval;
}

/* Reads until the reply to request 'id'.  Returns 0 and stores the result
 * (new reference) in '*resultp', or -1. */
static int
wait_reply(struct wl_rpc *rpc, long long id, const char *method,
           json_t **resultp)
{
    for (;;) {
        json_t *msg = read_message(rpc);
        json_t *msg_id, *error;

        if (!msg) {
            return -1;
        }
        msg_id = json_object_get(msg, "id");
        if (json_object_get(msg, "method")) {
            const char *m = json_string_value(json_object_get(msg,
                                                              "method"));
            if (m && !strcmp(m, "echo") && msg_id && !json_is_null(msg_id)) {
                int retval = reply_echo(rpc, msg);
                json_decref(msg);
                if (retval) {
                    return retval;
                }
            } else {
                enqueue(rpc, msg);
            }
            continue;
        }
        if (!json_is_integer(msg_id) || json_integer_value(msg_id) != id) {
            char *s = json_dumps(msg, JSON_COMPACT);
            set_error(rpc, "%s: unexpected reply %.200s", method, s);
            free(s);
            json_decref(msg);
            return -1;
        }
        error = json_object_get(msg, "error");
        if (error && !json_is_null(error)) {
            char *s = json_dumps(error, JSON_COMPACT | JSON_ENCODE_ANY);
            set_error(rpc, "%s: error reply %.500s", method, s);
            free(s);
            json_decref(msg);
            return -1;
        }
        *resultp = json_incref(json_object_get(msg, "result"));
        json_decref(msg);
        if (!*resultp) {
            set_error(rpc, "%s: reply without result", method);
            return -1;
        }
        return 0;
    }
}

static bool durable;

void
wl_rpc_set_durable(bool durable_)
{
    durable = durable_;
}

int
wl_rpc_request(struct wl_rpc *rpc, const char *method,
               const char *params_text, json_t **resultp)
{
    long long id = rpc->next_id++;
    struct ds head = DS_EMPTY_INITIALIZER;
    size_t len = strlen(params_text);
    const char *end = durable && !strcmp(method, "transact")
                      ? strrchr(params_text, ']') : NULL;
    int retval;

    *resultp = NULL;
    ds_put_format(&head, "{\"id\":%lld,\"method\":\"%s\",\"params\":", id,
                  method);
    retval = send_all(rpc, ds_cstr(&head), head.length);
    ds_destroy(&head);
    if (!retval && end) {
        /* --durable: end the transaction with a durable commit. */
        static const char commit[]
            = ",{\"op\":\"commit\",\"durable\":true}";
        retval = send_all(rpc, params_text, end - params_text);
        if (!retval) {
            retval = send_all(rpc, commit, strlen(commit));
        }
        params_text = end;
        len = strlen(end);
    }
    if (!retval) {
        retval = send_all(rpc, params_text, len);
    }
    if (!retval) {
        retval = send_all(rpc, "}", 1);
    }
    return retval ? retval : wait_reply(rpc, id, method, resultp);
}

int
wl_rpc_request_json(struct wl_rpc *rpc, const char *method,
                    const json_t *params, json_t **resultp)
{
    char *text = json_dumps(params, JSON_COMPACT);
    int retval = wl_rpc_request(rpc, method, text, resultp);

    free(text);
    return retval;
}

json_t *
wl_rpc_recv_notification(struct wl_rpc *rpc)
{
    for (;;) {
        json_t *msg, *id;
        const char *method;

        if (rpc->queue_len > 0) {
            rpc->queue_len--;
            return rpc->queue[rpc->queue_head++];
        }
        msg = read_message(rpc);
        if (!msg) {
            return NULL;
        }
        method = json_string_value(json_object_get(msg, "method"));
        id = json_object_get(msg, "id");
        if (method && !strcmp(method, "echo") && id && !json_is_null(id)) {
            int retval = reply_echo(rpc, msg);
            json_decref(msg);
            if (retval) {
                return NULL;
            }
        } else if (method) {
            return msg;
        } else {
            char *s = json_dumps(msg, JSON_COMPACT);
            set_error(rpc, "unexpected reply %.200s", s);
            free(s);
            json_decref(msg);
            return NULL;
        }
    }
}

int
wl_rpc_fd(const struct wl_rpc *rpc)
{
    return rpc->fd;
}

int
wl_rpc_send_request(struct wl_rpc *rpc, const char *method,
                    const char *params_text, long long *idp)
{
    long long id = rpc->next_id++;
    char *text = xasprintf("{\"id\":%lld,\"method\":\"%s\","
                           "\"params\":%s}", id, method, params_text);
    int retval = send_all(rpc, text, strlen(text));

    free(text);
    *idp = id;
    return retval;
}

int
wl_rpc_try_recv(struct wl_rpc *rpc, bool wait, json_t **msgp)
{
    *msgp = NULL;
    for (;;) {
        json_t *msg;
        if (take_message(rpc, &msg)) {
            return -1;
        }
        if (!msg) {
            int retval = recv_more(rpc, wait ? 0 : MSG_DONTWAIT);
            if (retval == EAGAIN) {
                return 0;
            } else if (retval) {
                return -1;
            }
            wait = false;
            continue;
        }

        const char *method = json_string_value(json_object_get(msg,
                                                               "method"));
        json_t *id = json_object_get(msg, "id");
        if (method && !strcmp(method, "echo") && id && !json_is_null(id)) {
            int retval = reply_echo(rpc, msg);
            json_decref(msg);
            if (retval) {
                return -1;
            }
            continue;
        }
        *msgp = msg;
        return 0;
    }
}

size_t
wl_rpc_discard_notifications(struct wl_rpc *rpc)
{
    size_t n = rpc->queue_len;
    for (size_t i = 0; i < n; i++) {
        json_decref(rpc->queue[rpc->queue_head + i]);
    }
    rpc->queue_head = rpc->queue_len = 0;
    return n;
}
