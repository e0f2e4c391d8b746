/* tests/unit/lib/test-http-server.c: the minimal HTTP/1.x responder, driven
 * by a client in the same process and loop. */
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
#include "tests/unit/check.h"

static bool
get_cb(const char *path, struct ds *body, const char **content_type,
       void *aux OVS_UNUSED)
{
    if (strcmp(path, "/x")) {
        return false;
    }
    ds_put_cstr(body, "hello\n");
    *content_type = "text/plain";
    return true;
}

static struct http_server *
open_server(void)
{
    struct http_server *hs;
    CHECK_INTEQ(http_server_open("ptcp:0:127.0.0.1", get_cb, NULL, &hs), 0);
    return hs;
}

static struct stream *
connect_to(const struct http_server *hs)
{
    char *name = xasprintf("tcp:127.0.0.1:%u",
                           (unsigned) http_server_get_bound_port(hs));
    struct stream *s;
    CHECK_INTEQ(stream_open_block(stream_open(name, &s), 5000, &s), 0);
    free(name);
    return s;
}

/* True if 'reply' holds the headers and as many body bytes as their
 * Content-Length says (all of a response to HEAD holds more than it). */
static bool
response_is_complete(struct ds *reply)
{
    const char *s = ds_cstr(reply);
    const char *end = strstr(s, "\r\n\r\n");
    const char *length = strstr(s, "\r\nContent-Length: ");
    if (!end || !length || length > end) {
        return false;
    }
    size_t body = strtoul(length + 18, NULL, 10);
    return reply->length >= (size_t) (end + 4 - s) + body;
}

/* Sends each of the 'n' 'parts' in turn, running 'hs' between them, then
 * returns what the server answers until it closes the connection (caller
 * must free with free()), or what came within 5 s. */
static char *
exchange(struct http_server *hs, const char *const parts[], size_t n)
{
    struct stream *s = connect_to(hs);
    struct ds reply = DS_EMPTY_INITIALIZER;
    long long deadline = time_msec() + 5000;
    size_t part = 0;
    while (time_msec() < deadline) {
        if (part < n) {
            size_t len = strlen(parts[part]);
            CHECK_INTEQ(stream_send(s, parts[part], len), len);
            part++;
        }
        http_server_run(hs);
        char buf[4096];
        ssize_t retval = stream_recv(s, buf, sizeof buf);
        if (retval > 0) {
            ds_put_buffer(&reply, buf, retval);
            if (response_is_complete(&reply)) {
                break; /* As a client reads: up to Content-Length. */
            }
            continue;
        } else if (retval != -EAGAIN) {
            break;
        }
        http_server_wait(hs);
        stream_recv_wait(s);
        poll_timer_wait_until(deadline);
        if (part < n) {
            poll_immediate_wake();
        }
        poll_block();
    }
    stream_close(s);
    return ds_steal_cstr(&reply);
}

static char *
request(struct http_server *hs, const char *text)
{
    return exchange(hs, &text, 1);
}

/* GET and HEAD of a resource, with a query string; a request in pieces. */
static void
test_get(void)
{
    struct http_server *hs = open_server();
    char *r = request(hs, "GET /x?a=b HTTP/1.1\r\nHost: h\r\n\r\n");
    CHECK_STREQ(r, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                   "Content-Length: 6\r\nConnection: close\r\n\r\n"
                   "hello\n");
    free(r);

    r = request(hs, "HEAD /x HTTP/1.0\n\n");
    CHECK_STREQ(r, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                   "Content-Length: 6\r\nConnection: close\r\n\r\n");
    free(r);

    static const char *const parts[] = { "GE", "T /x HTTP/1.1\r\n",
                                         "Host: h\r\n", "\r\n" };
    r = exchange(hs, parts, ARRAY_SIZE(parts));
    CHECK(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
    CHECK(strstr(r, "\r\n\r\nhello\n") != NULL);
    free(r);
    CHECK_INTEQ(http_server_n_conns(hs), 0);
    http_server_close(hs);
}

/* 404, 405 (with Allow), 400 for garbage, a bad version, a null byte, and
 * a request over the size limit. */
static void
test_errors(void)
{
    struct http_server *hs = open_server();
    static const struct {
        const char *request;
        const char *status;
    } cases[] = {
        { "GET /y HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found\r\n" },
        { "POST /x HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed\r\n" },
        { "garbage\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n" },
        { "GET /x SPDY/3\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n" },
        { "GET x HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n" },
        { "G(T /x HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *r = request(hs, cases[i].request);
        if (strncmp(r, cases[i].status, strlen(cases[i].status))) {
            CHECK_STREQ(r, cases[i].status);
        }
        if (i == 1) {
            CHECK(strstr(r, "\r\nAllow: GET, HEAD\r\n") != NULL);
        }
        free(r);
    }

    char *big = xmalloc(HTTP_SERVER_MAX_REQUEST + 100);
    memset(big, 'a', HTTP_SERVER_MAX_REQUEST + 99);
    memcpy(big, "GET /x HTTP/1.1\r\nX: ", 20);
    big[HTTP_SERVER_MAX_REQUEST + 99] = '\0';
    char *r = request(hs, big);
    CHECK(!strncmp(r, "HTTP/1.1 400 Bad Request\r\n", 26));
    free(r);
    free(big);
    http_server_close(hs);
}

/* Runs 'hs' until it has 'n' connections, for at most 'msec'.  Returns
 * how long that took (msec). */
static long long
run_until_n_conns(struct http_server *hs, size_t n, long long msec)
{
    long long start = time_msec();
    long long deadline = start + msec;
    for (;;) {
        http_server_run(hs);
        if (http_server_n_conns(hs) == n || time_msec() >= deadline) {
            return time_msec() - start;
        }
        http_server_wait(hs);
        poll_timer_wait_until(deadline);
        poll_block();
    }
}

/* A connection that sends nothing is counted, and closed once it has
 * been open for the timeout, not much later. */
static void
test_idle(void)
{
    struct http_server *hs = open_server();
    struct stream *s = connect_to(hs);
    run_until_n_conns(hs, 1, 5000);
    CHECK_INTEQ(http_server_n_conns(hs), 1);
    long long msec = run_until_n_conns(hs, 0, HTTP_SERVER_TIMEOUT_MSEC + 5000);
    CHECK_INTEQ(http_server_n_conns(hs), 0);
    CHECK(msec >= HTTP_SERVER_TIMEOUT_MSEC - 1000);
    CHECK(msec <= HTTP_SERVER_TIMEOUT_MSEC + 1000);
    stream_close(s);
    http_server_close(hs);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_get),
    CHECK_CASE(test_errors),
    CHECK_CASE(test_idle),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-http-server", cases,
                      sizeof cases / sizeof *cases);
}
