/* tests/unit/lib/test-jsonrpc.c: JSON-RPC framing, limits, errors, output
 * format, backlog and sessions, over real unix sockets. */
#include <config.h>
#include "lib/jsonrpc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/poll-loop.h"
#include "lib/refbuf.h"
#include "lib/stream.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "tests/unit/check.h"

static char *dir;
static int n_socks;

/* Makes a connected pair of streams over a fresh unix socket. */
static void
make_pair(struct stream **client, struct stream **server)
{
    char *name = xasprintf("punix:%s/s%d", dir, n_socks++);
    struct pstream *listener;
    CHECK_INTEQ(pstream_open(name, &listener), 0);
    CHECK_INTEQ(stream_open_block(stream_open(name + 1, client), 5000,
                                  client), 0);
    int error;
    while ((error = pstream_accept(listener, server)) == EAGAIN) {
        pstream_wait(listener);
        poll_block();
    }
    CHECK_INTEQ(error, 0);
    pstream_close(listener);
    free(name);
}

static void
send_all(struct stream *s, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t retval = stream_send(s, p, n);
        if (retval == -EAGAIN) {
            stream_send_wait(s);
            poll_block();
            continue;
        }
        CHECK(retval > 0);
        if (retval <= 0) {
            return;
        }
        p += retval;
        n -= retval;
    }
}

/* Receives on 'rpc', waiting up to a second for something other than
 * EAGAIN. */
static int
recv_wait(struct jsonrpc *rpc, struct jsonrpc_msg **msgp)
{
    long long deadline = time_msec() + 1000;
    int error;
    while ((error = jsonrpc_recv(rpc, msgp)) == EAGAIN
           && time_msec() < deadline) {
        jsonrpc_recv_wait(rpc);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    return error;
}

/* Receives on 'rpc' without waiting: the bytes sent on a unix socket are
 * readable at once. */
static int
recv_wait_short(struct jsonrpc *rpc, struct jsonrpc_msg **msgp)
{
    return jsonrpc_recv(rpc, msgp);
}

/* Returns the compact text of 'msg' (borrowed); caller frees. */
static char *
msg_text(const struct jsonrpc_msg *msg)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    jsonrpc_msg_serialize(msg, &s);
    return ds_steal_cstr(&s);
}

static const char *const good_messages[] = {
    "{\"id\":1,\"method\":\"echo\",\"params\":[]}",
    "{\"id\":\"x\",\"method\":\"transact\",\"params\":[\"db\",{\"op\":"
    "\"insert\",\"row\":{\"name\":\"}{][\\\"\\\\\"}}]}",
    "{\"id\":null,\"method\":\"update\",\"params\":[null,{\"t\":{}}]}",
    "{\"id\":[1,{\"a\":\"]\"}],\"result\":[{\"rows\":[]}],\"error\":null}",
    "{\"id\":7,\"error\":\"unknown method\"}",
    "{\"id\":8,\"method\":\"echo\",\"params\":[\"\\u00e9\\n\\t\\\\\\\"\"]}",
};

/* The same messages as the sender of each would write them. */
static void
test_framing(void)
{
    struct stream *c, *s;
    make_pair(&c, &s);
    struct jsonrpc *rpc = jsonrpc_open(s);

    for (size_t i = 0; i < ARRAY_SIZE(good_messages); i++) {
        const char *text = good_messages[i];
        size_t len = strlen(text);
        /* Every split point. */
        for (size_t k = 1; k <= len; k++) {
            struct jsonrpc_msg *msg;
            send_all(c, text, k);
            if (k < len) {
                CHECK_INTEQ(recv_wait_short(rpc, &msg), EAGAIN);
                send_all(c, text + k, len - k);
            }
            CHECK_INTEQ(recv_wait(rpc, &msg), 0);
            if (msg) {
                json_t *want = json_loads(text, 0, NULL);
                json_t *got = jsonrpc_msg_to_json(msg);
                CHECK(json_equal(want, got));
                json_decref(want);
                json_decref(got);
            }
        }
    }

    /* Many messages in one write, with white space between. */
    struct ds all = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < ARRAY_SIZE(good_messages); i++) {
        ds_put_format(&all, "%s%s", good_messages[i], i % 2 ? " \n" : "");
    }
    send_all(c, all.string, all.length);
    for (size_t i = 0; i < ARRAY_SIZE(good_messages); i++) {
        struct jsonrpc_msg *msg;
        CHECK_INTEQ(recv_wait(rpc, &msg), 0);
        json_t *want = json_loads(good_messages[i], 0, NULL);
        json_t *got = msg ? jsonrpc_msg_to_json(msg) : NULL;
        CHECK(got && json_equal(want, got));
        json_decref(want);
        json_decref(got);
    }
    ds_destroy(&all);

    /* Clean close gives EOF, and it sticks. */
    stream_close(c);
    struct jsonrpc_msg *msg;
    CHECK_INTEQ(recv_wait(rpc, &msg), EOF);
    CHECK(msg == NULL);
    CHECK_INTEQ(jsonrpc_get_status(rpc), EOF);
    CHECK_INTEQ(jsonrpc_send(rpc, jsonrpc_create_notify("x", json_array())),
                EOF);
    jsonrpc_close(rpc);
}

/* Sends 'text' to a fresh connection with the given limits; returns the
 * receive status and, in '*detail', the error detail (caller frees). */
static int
try_input(const char *text, size_t max_size, int max_depth, char **detail)
{
    struct stream *c, *s;
    make_pair(&c, &s);
    struct jsonrpc *rpc = jsonrpc_open(s);
    jsonrpc_set_limits(rpc, max_size, max_depth);

    send_all(c, text, strlen(text));
    struct jsonrpc_msg *msg;
    int error = recv_wait(rpc, &msg);
    jsonrpc_msg_destroy(msg);
    const char *d = jsonrpc_get_error_detail(rpc);
    *detail = d ? xstrdup(d) : NULL;
    jsonrpc_close(rpc);
    stream_close(c);
    return error;
}

static void
check_rejected(const char *text, size_t max_size, int max_depth,
               int expected_error, const char *detail_prefix)
{
    char *detail;
    int error = try_input(text, max_size, max_depth, &detail);
    CHECK_INTEQ(error, expected_error);
    if (!detail || strncmp(detail, detail_prefix, strlen(detail_prefix))) {
        fprintf(stderr, "input %s: detail \"%s\" lacks prefix \"%s\"\n",
                text, detail ? detail : "(null)", detail_prefix);
        check_failures++;
    }
    free(detail);
}

/* Checks that the next message on 'rpc' is 'text'. */
static void
check_next(struct jsonrpc *rpc, const char *text)
{
    struct jsonrpc_msg *msg;
    CHECK_INTEQ(recv_wait(rpc, &msg), 0);
    json_t *want = json_loads(text, 0, NULL);
    json_t *got = msg ? jsonrpc_msg_to_json(msg) : NULL;
    if (!got || !json_equal(want, got)) {
        fprintf(stderr, "expected %s\n", text);
        check_failures++;
    }
    json_decref(want);
    json_decref(got);
}

/* Makes a request whose text is exactly 'size' bytes long. */
static char *
request_of_size(size_t size)
{
    const char *head = "{\"id\":9,\"method\":\"echo\",\"params\":[\"";
    const char *tail = "\"]}";
    size_t fill = size - strlen(head) - strlen(tail);
    char *text = xmalloc(size + 1);
    strcpy(text, head);
    memset(text + strlen(head), 'a', fill);
    strcpy(text + strlen(head) + fill, tail);
    return text;
}

/* A connection with nothing buffered reads into a small buffer on the
 * stack and parses a request that is exactly what it read from there;
 * every other first read (two requests, a request and part of the next,
 * white space after it, one longer than the stack buffer, bad bytes) goes
 * to a buffer of the connection's own and comes out the same. */
static void
test_idle_reads(void)
{
    const char *m0 = good_messages[0], *m1 = good_messages[1];
    char *sizes[] = { request_of_size(511), request_of_size(512),
                      request_of_size(513), request_of_size(3000) };

    struct stream *c, *s;
    make_pair(&c, &s);
    struct jsonrpc *rpc = jsonrpc_open(s);

    /* One request per read, several times, then requests of sizes around
     * the stack buffer's. */
    for (int i = 0; i < 3; i++) {
        send_all(c, m1, strlen(m1));
        check_next(rpc, m1);
    }
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        send_all(c, sizes[i], strlen(sizes[i]));
        check_next(rpc, sizes[i]);
    }
    jsonrpc_close(rpc);
    stream_close(c);

    /* Two requests in the first read, then white space after one. */
    make_pair(&c, &s);
    rpc = jsonrpc_open(s);
    char *two = xasprintf("%s%s", m0, m1);
    send_all(c, two, strlen(two));
    check_next(rpc, m0);
    check_next(rpc, m1);
    free(two);
    char *spaced = xasprintf("%s \n", m1);
    send_all(c, spaced, strlen(spaced));
    check_next(rpc, m1);
    send_all(c, m0, strlen(m0));
    check_next(rpc, m0);
    free(spaced);
    jsonrpc_close(rpc);
    stream_close(c);

    /* A request and the first half of the next, then the rest. */
    make_pair(&c, &s);
    rpc = jsonrpc_open(s);
    size_t half = strlen(m1) / 2;
    char *one_and_half = xasprintf("%s%.*s", m0, (int) half, m1);
    send_all(c, one_and_half, strlen(one_and_half));
    check_next(rpc, m0);
    struct jsonrpc_msg *msg;
    CHECK_INTEQ(recv_wait_short(rpc, &msg), EAGAIN);
    send_all(c, m1 + half, strlen(m1) - half);
    check_next(rpc, m1);
    free(one_and_half);
    jsonrpc_close(rpc);
    stream_close(c);

    /* Bad bytes in the first read, and a request that is not JSON-RPC. */
    check_rejected("x{}", SIZE_MAX, 100, EPROTO, "syntax error");
    check_rejected("{\"id\":1}", SIZE_MAX, 100, EPROTO,
                   "received bad JSON-RPC message");

    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        free(sizes[i]);
    }
}

static void
test_limits_and_errors(void)
{
    char *detail;
    struct ds big = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&big, "{\"id\":1,\"method\":\"echo\",\"params\":[\"");
    ds_put_char_multiple(&big, 'x', 200);
    ds_put_cstr(&big, "\"]}");

    /* Size: the same message passes under a big enough limit. */
    CHECK_INTEQ(try_input(big.string, big.length, 100, &detail), 0);
    free(detail);
    check_rejected(big.string, big.length - 1, 100, EMSGSIZE,
                   "message exceeds maximum size");

    /* An endless message is cut off at the limit, not buffered forever. */
    ds_truncate(&big, 100);
    check_rejected(big.string, 50, 100, EMSGSIZE,
                   "message exceeds maximum size");
    ds_destroy(&big);

    /* Depth: brackets inside strings do not count. */
    const char *deep = "{\"id\":1,\"method\":\"echo\","
                       "\"params\":[[[[\"[[[[\"]]]]}";
    CHECK_INTEQ(try_input(deep, 1000, 5, &detail), 0);
    free(detail);
    check_rejected(deep, 1000, 4, EPROTO, "syntax error: nesting deeper");

    struct ds very_deep = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&very_deep, "{\"id\":1,\"method\":\"echo\",\"params\":");
    ds_put_char_multiple(&very_deep, '[', 5000);
    check_rejected(very_deep.string, 1 << 20, JSONRPC_DEFAULT_MAX_DEPTH,
                   EPROTO, "syntax error: nesting deeper than 1000");
    ds_destroy(&very_deep);

    /* Malformed JSON. */
    check_rejected("{\"id\":1,,\"method\":\"echo\"}", 1000, 100, EPROTO,
                   "syntax error");
    check_rejected("{\"id\":1]", 1000, 100, EPROTO, "syntax error");
    check_rejected("  \"just a string\" ", 1000, 100, EPROTO,
                   "syntax error");
    check_rejected("{\"id\":1,\"method\":\"echo\",\"params\":[\"\\u0000\"]}",
                   1000, 100, EPROTO, "syntax error");
    check_rejected("{\"id\":1,\"method\":\"echo\",\"params\":[\"\xff\"]}",
                   1000, 100, EPROTO, "syntax error");

    /* Well-formed JSON, wrong message shape. */
    check_rejected("[1,2]", 1000, 100, EPROTO,
                   "received bad JSON-RPC message: message is not a JSON "
                   "object");
    check_rejected("{\"id\":7,\"method\":\"echo\"}", 1000, 100, EPROTO,
                   "received bad JSON-RPC message: request must have "
                   "\"params\"");
    check_rejected("{\"id\":7,\"method\":\"echo\",\"params\":{}}", 1000, 100,
                   EPROTO, "received bad JSON-RPC message: \"params\" must "
                   "be JSON array");
    check_rejected("{\"id\":7,\"method\":\"e\",\"params\":[],\"x\":1}", 1000,
                   100, EPROTO, "received bad JSON-RPC message: message has "
                   "unexpected member \"x\"");
    check_rejected("{\"id\":7,\"method\":5,\"params\":[]}", 1000, 100,
                   EPROTO, "received bad JSON-RPC message: method is not");
}

static void
test_serialization(void)
{
    json_t *id = json_integer(1);
    struct {
        struct jsonrpc_msg *msg;
        const char *text;
    } cases[] = {
        { jsonrpc_create_reply(json_pack("[i]", 1), id),
          "{\"id\":1,\"result\":[1],\"error\":null}" },
        { jsonrpc_create_error(json_string("unknown method"), id),
          "{\"id\":1,\"error\":\"unknown method\"}" },
        { jsonrpc_create_notify("update", json_pack("[n,{}]")),
          "{\"id\":null,\"method\":\"update\",\"params\":[null,{}]}" },
        { jsonrpc_create_reply(json_pack("[f,f,s]", 0.1, 1.5e300, "a\"/\x01"),
                               id),
          "{\"id\":1,\"result\":[0.1,1.5e300,\"a\\\"/\\u0001\"],"
          "\"error\":null}" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *text = msg_text(cases[i].msg);
        CHECK_STREQ(text, cases[i].text);
        free(text);
        char *problem = jsonrpc_msg_is_valid(cases[i].msg);
        CHECK(problem == NULL);
        free(problem);
        jsonrpc_msg_destroy(cases[i].msg);
    }
    json_decref(id);

    /* Requests get distinct ids. */
    json_t *id1, *id2;
    struct jsonrpc_msg *r1 = jsonrpc_create_request("a", json_array(), &id1);
    struct jsonrpc_msg *r2 = jsonrpc_create_request("b", json_array(), &id2);
    CHECK(!json_equal(id1, id2));
    CHECK(json_equal(r1->id, id1));
    json_decref(id1);
    json_decref(id2);
    jsonrpc_msg_destroy(r1);
    jsonrpc_msg_destroy(r2);
}

/* A peer that stops reading: the backlog grows, then drains. */
static void
test_backlog(void)
{
    struct stream *c, *s;
    make_pair(&c, &s);
    struct jsonrpc *server = jsonrpc_open(s);
    struct jsonrpc *client = jsonrpc_open(c);

    char *blob = xmalloc(10000);
    memset(blob, 'b', 9999);
    blob[9999] = '\0';
    int n = 0;
    while (jsonrpc_get_backlog(server) < 1024 * 1024 && n < 10000) {
        CHECK_INTEQ(jsonrpc_send(server, jsonrpc_create_notify(
                                             "blob", json_pack("[s]", blob))),
                    0);
        jsonrpc_run(server);
        n++;
    }
    CHECK(jsonrpc_get_backlog(server) >= 1024 * 1024);

    /* Raw, pre-serialized message in two pieces. */
    const char *part1 = "{\"id\":null,\"method\":\"raw\",";
    const char *part2 = "\"params\":[42]}";
    struct iovec iov[2] = {
        { (void *) part1, strlen(part1) },
        { (void *) part2, strlen(part2) },
    };
    CHECK_INTEQ(jsonrpc_send_raw(server, iov, 2), 0);

    /* Now read everything. */
    int got = 0;
    bool raw_seen = false;
    long long deadline = time_msec() + 10000;
    while ((got < n || !raw_seen) && time_msec() < deadline) {
        struct jsonrpc_msg *msg;
        jsonrpc_run(server);
        int error = jsonrpc_recv(client, &msg);
        if (!error) {
            if (!strcmp(msg->method, "raw")) {
                raw_seen = true;
                CHECK_INTEQ(json_integer_value(json_array_get(msg->params,
                                                              0)), 42);
            } else {
                CHECK_STREQ(json_string_value(json_array_get(msg->params, 0)),
                            blob);
                got++;
            }
            jsonrpc_msg_destroy(msg);
            continue;
        }
        CHECK_INTEQ(error, EAGAIN);
        jsonrpc_wait(server);
        jsonrpc_recv_wait(client);
        poll_block();
    }
    CHECK_INTEQ(got, n);
    CHECK(raw_seen);
    jsonrpc_run(server);
    CHECK_INTEQ(jsonrpc_get_backlog(server), 0);
    free(blob);
    jsonrpc_close(server);
    jsonrpc_close(client);
}

/* A shared buffer queued on two connections between ordinary messages,
 * one of whose peers does not read for a while: every message arrives
 * whole and in order, and the buffer lives until both have sent it. */
static void
test_shared(void)
{
    enum {
        N_CONNS = 2,
        N_ROUNDS = 40
    };
    struct jsonrpc *server[N_CONNS], *client[N_CONNS];
    for (int i = 0; i < N_CONNS; i++) {
        struct stream *c, *s;
        make_pair(&c, &s);
        server[i] = jsonrpc_open(s);
        client[i] = jsonrpc_open(c);
    }

    /* A body of about 200 kB, more than a socket buffer takes at once. */
    struct ds text = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&text, "[");
    for (int i = 0; i < 20000; i++) {
        ds_put_format(&text, "%s\"r%05d\"", i ? "," : "", i);
    }
    ds_put_cstr(&text, "]");
    struct refbuf *body = refbuf_from_ds(&text);
    struct refbuf *weak = body;
    refbuf_set_weak(body, &weak);

    static const char tail[] = "]}";
    for (int round = 0; round < N_ROUNDS; round++) {
        for (int i = 0; i < N_CONNS; i++) {
            CHECK_INTEQ(jsonrpc_send(server[i],
                                     jsonrpc_create_notify("n",
                                                           json_pack("[i]",
                                                                     round))),
                        0);
            if (round % 4 == 1) {
                char head[64];
                snprintf(head, sizeof head,
                         "{\"id\":null,\"method\":\"big\",\"params\":"
                         "[%d,",
                         round);
                struct iovec h = { head, strlen(head) };
                struct iovec t = { (char *) tail, 2 };
                CHECK_INTEQ(jsonrpc_send_shared(server[i], &h, 1, body, &t, 1),
                            0);
            }
        }
    }
    refbuf_unref(body);
    CHECK(weak != NULL); /* Still queued. */

    int next[N_CONNS] = { 0 };
    long long deadline = time_msec() + 10000;
    while ((next[0] < N_ROUNDS || next[1] < N_ROUNDS)
           && time_msec() < deadline) {
        for (int i = 0; i < N_CONNS; i++) {
            jsonrpc_run(server[i]);
            if (i == 1 && next[0] < N_ROUNDS / 2) {
                continue; /* Not reading yet. */
            }
            struct jsonrpc_msg *msg;
            int error = jsonrpc_recv(client[i], &msg);
            if (error) {
                CHECK_INTEQ(error, EAGAIN);
                continue;
            }
            int round = json_integer_value(json_array_get(msg->params, 0));
            if (!strcmp(msg->method, "big")) {
                CHECK_INTEQ(round, next[i] - 1);
                const json_t *a = json_array_get(msg->params, 1);
                CHECK_INTEQ(json_array_size(a), 20000);
                CHECK_STREQ(json_string_value(json_array_get(a, 19999)),
                            "r19999");
            } else {
                CHECK_INTEQ(round, next[i]);
                next[i]++;
            }
            jsonrpc_msg_destroy(msg);
        }
        for (int i = 0; i < N_CONNS; i++) {
            jsonrpc_wait(server[i]);
            jsonrpc_recv_wait(client[i]);
        }
        poll_timer_wait(10);
        poll_block();
    }
    CHECK_INTEQ(next[0], N_ROUNDS);
    CHECK_INTEQ(next[1], N_ROUNDS);
    for (int i = 0; i < N_CONNS; i++) {
        jsonrpc_run(server[i]);
        CHECK_INTEQ(jsonrpc_get_backlog(server[i]), 0);
    }
    CHECK(weak == NULL); /* Freed with the last reference. */
    for (int i = 0; i < N_CONNS; i++) {
        jsonrpc_close(server[i]);
        jsonrpc_close(client[i]);
    }
}

/* Queued output waits for the next jsonrpc_recv() or jsonrpc_run() and
 * then leaves in one write. */
static void
test_batching(void)
{
    struct stream *c, *s;
    make_pair(&c, &s);
    struct jsonrpc *rpc = jsonrpc_open(s);
    char buf[4096];

    for (int i = 0; i < 3; i++) {
        CHECK_INTEQ(jsonrpc_send(rpc, jsonrpc_create_notify(
                                          "n", json_pack("[i]", i))), 0);
    }
    CHECK(jsonrpc_get_backlog(rpc) > 0);
    CHECK_INTEQ(stream_recv(c, buf, sizeof buf), -EAGAIN);

    struct jsonrpc_msg *msg;
    CHECK_INTEQ(jsonrpc_recv(rpc, &msg), EAGAIN);
    CHECK_INTEQ(jsonrpc_get_backlog(rpc), 0);
    const char *expected = "{\"id\":null,\"method\":\"n\",\"params\":[0]}"
                           "{\"id\":null,\"method\":\"n\",\"params\":[1]}"
                           "{\"id\":null,\"method\":\"n\",\"params\":[2]}";
    ssize_t n = stream_recv(c, buf, sizeof buf);
    CHECK_INTEQ(n, strlen(expected));
    CHECK(n > 0 && !memcmp(buf, expected, n));

    CHECK_INTEQ(jsonrpc_send(rpc, jsonrpc_create_notify("x", json_array())),
                0);
    jsonrpc_run(rpc);
    CHECK_INTEQ(jsonrpc_get_backlog(rpc), 0);
    n = stream_recv(c, buf, sizeof buf);
    CHECK_INTEQ(n, strlen("{\"id\":null,\"method\":\"x\",\"params\":[]}"));

    jsonrpc_close(rpc);
    stream_close(c);
}

/* Child: an echo server on 'name' that answers "echo" and "add", sends a
 * notification before each "add" reply, and exits on "exit". */
static void
run_child_server(const char *name)
{
    struct pstream *listener;
    if (pstream_open(name, &listener)) {
        _exit(1);
    }
    for (;;) {
        struct stream *stream;
        int error = pstream_accept(listener, &stream);
        if (error == EAGAIN) {
            pstream_wait(listener);
            poll_block();
            continue;
        } else if (error) {
            _exit(1);
        }
        struct jsonrpc *rpc = jsonrpc_open(stream);
        for (;;) {
            struct jsonrpc_msg *msg;
            error = jsonrpc_recv_block(rpc, &msg);
            if (error) {
                break;
            }
            if (!msg->method) {
                /* A reply to our "echo". */
            } else if (!strcmp(msg->method, "exit")) {
                jsonrpc_close(rpc);
                pstream_close(listener);
                _exit(0);
            } else if (!strcmp(msg->method, "add")) {
                json_int_t sum = 0;
                for (size_t i = 0; i < json_array_size(msg->params); i++) {
                    sum += json_integer_value(json_array_get(msg->params, i));
                }
                jsonrpc_send(rpc, jsonrpc_create_notify("noise",
                                                        json_array()));
                jsonrpc_send(rpc, jsonrpc_create_request("echo",
                                                         json_array(), NULL));
                jsonrpc_send_block(rpc, jsonrpc_create_reply(
                                            json_integer(sum), msg->id));
            } else if (!strcmp(msg->method, "drop")) {
                jsonrpc_msg_destroy(msg);
                break;
            }
            jsonrpc_msg_destroy(msg);
        }
        jsonrpc_close(rpc);
    }
}

/* Runs 's' until it is connected or 'deadline' passes. */
static void
session_run_until_connected(struct jsonrpc_session *s, long long deadline)
{
    for (;;) {
        jsonrpc_session_run(s);
        if (jsonrpc_session_is_connected(s) || time_msec() >= deadline) {
            return;
        }
        jsonrpc_session_wait(s);
        poll_timer_wait_until(deadline);
        poll_block();
    }
}

static void
test_transact_and_session(void)
{
    char *pname = xasprintf("punix:%s/child", dir);
    pid_t pid = fork();
    if (!pid) {
        run_child_server(pname);
    }
    char *name = pname + 1;

    /* Blocking transact skips the notification and answers the echo. */
    struct stream *stream;
    int error = EAGAIN;
    for (int i = 0; i < 200 && error; i++) {
        error = stream_open_block(stream_open(name, &stream), 1000, &stream);
        if (error) {
            usleep(10000);
        }
    }
    CHECK_INTEQ(error, 0);
    struct jsonrpc *rpc = jsonrpc_open(stream);
    struct jsonrpc_msg *reply;
    CHECK_INTEQ(jsonrpc_transact_block(
                    rpc, jsonrpc_create_request("add", json_pack("[i,i,i]",
                                                                 1, 2, 39),
                                                NULL),
                    &reply), 0);
    CHECK(reply && reply->type == JSONRPC_REPLY
          && json_integer_value(reply->result) == 42);
    jsonrpc_msg_destroy(reply);
    jsonrpc_close(rpc);

    /* A session reconnects after the server drops it; the seqno says so. */
    struct jsonrpc_session *s = jsonrpc_session_open(name, true);
    jsonrpc_session_set_backoff(s, 1000, 1000);
    long long deadline = time_msec() + 10000;
    session_run_until_connected(s, deadline);
    CHECK(jsonrpc_session_is_connected(s));
    unsigned int seqno = jsonrpc_session_get_seqno(s);
    CHECK_INTEQ(jsonrpc_session_send(
                    s, jsonrpc_create_request("drop", json_array(), NULL)),
                0);
    while (jsonrpc_session_get_seqno(s) == seqno && time_msec() < deadline) {
        jsonrpc_session_run(s);
        struct jsonrpc_msg *msg = jsonrpc_session_recv(s);
        jsonrpc_msg_destroy(msg);
        jsonrpc_session_wait(s);
        jsonrpc_session_recv_wait(s);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    CHECK(jsonrpc_session_get_seqno(s) != seqno);
    CHECK_INTEQ(jsonrpc_session_get_last_error(s), EOF);
    CHECK(jsonrpc_session_is_alive(s));
    seqno = jsonrpc_session_get_seqno(s);
    session_run_until_connected(s, deadline);
    CHECK(jsonrpc_session_is_connected(s));
    CHECK(jsonrpc_session_get_seqno(s) != seqno);

    /* The session answers "echo" itself and hands over the rest. */
    jsonrpc_session_send(s, jsonrpc_create_request("add",
                                                   json_pack("[i]", 5),
                                                   NULL));
    bool got_reply = false, got_noise = false;
    while (!got_reply && time_msec() < deadline) {
        jsonrpc_session_run(s);
        struct jsonrpc_msg *msg = jsonrpc_session_recv(s);
        if (msg) {
            CHECK(msg->type != JSONRPC_REQUEST);
            if (msg->type == JSONRPC_NOTIFY) {
                got_noise = true;
            } else {
                got_reply = json_integer_value(msg->result) == 5;
            }
            jsonrpc_msg_destroy(msg);
            continue;
        }
        jsonrpc_session_wait(s);
        jsonrpc_session_recv_wait(s);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    CHECK(got_reply && got_noise);

    jsonrpc_session_send(s, jsonrpc_create_notify("exit", json_array()));
    for (int i = 0; i < 10; i++) {
        jsonrpc_session_run(s);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && !WEXITSTATUS(status));
    jsonrpc_session_close(s);

    /* A session that may not retry dies with its connection attempt. */
    s = jsonrpc_session_open(name, false);
    deadline = time_msec() + 5000;
    for (;;) {
        jsonrpc_session_run(s);
        if (!jsonrpc_session_is_alive(s) || time_msec() >= deadline) {
            break;
        }
        jsonrpc_session_wait(s);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    CHECK(!jsonrpc_session_is_alive(s));
    CHECK(jsonrpc_session_get_last_error(s) != 0);
    jsonrpc_session_close(s);
    free(pname);
}

/* Reads whatever 'stream' has within 'msec' into 's'. */
static void
read_for(struct stream *stream, struct ds *s, struct jsonrpc_session *js,
         long long msec)
{
    long long deadline = time_msec() + msec;
    while (time_msec() < deadline) {
        char buf[256];
        ssize_t n = stream_recv(stream, buf, sizeof buf);
        if (n > 0) {
            ds_put_buffer(s, buf, n);
            continue;
        }
        jsonrpc_session_run(js);
        jsonrpc_msg_destroy(jsonrpc_session_recv(js));
        if (!jsonrpc_session_is_alive(js)) {
            return;
        }
        jsonrpc_session_wait(js);
        jsonrpc_session_recv_wait(js);
        stream_recv_wait(stream);
        poll_timer_wait_until(deadline);
        poll_block();
    }
}

/* Inactivity probe on an accepted connection: "echo" after the interval,
 * kept alive by an answer, dropped after a second unanswered interval. */
static void
test_probe(void)
{
    struct stream *c, *s;
    make_pair(&c, &s);
    struct jsonrpc_session *js =
        jsonrpc_session_open_unreliably(jsonrpc_open(s));
    jsonrpc_session_set_probe_interval(js, 1000);
    const char *probe = "{\"id\":\"echo\",\"method\":\"echo\",\"params\":[]}";

    long long start = time_msec();
    struct ds got = DS_EMPTY_INITIALIZER;
    read_for(c, &got, js, 1500);
    CHECK_STREQ(ds_cstr(&got), probe);
    CHECK(jsonrpc_session_is_alive(js));

    const char *answer = "{\"id\":\"echo\",\"result\":[],\"error\":null}";
    send_all(c, answer, strlen(answer));
    ds_clear(&got);
    read_for(c, &got, js, 1500);
    CHECK_STREQ(ds_cstr(&got), probe);
    CHECK(jsonrpc_session_is_alive(js));

    /* No answer this time. */
    ds_clear(&got);
    read_for(c, &got, js, 3000);
    CHECK(!jsonrpc_session_is_alive(js));
    long long elapsed = time_msec() - start;
    CHECK(elapsed >= 2900 && elapsed < 8000);

    ds_destroy(&got);
    jsonrpc_session_close(js);
    stream_close(c);
}

/* Returns a random JSON value of at most 'depth' levels, with strings
 * full of the characters a framer could trip on. */
static json_t *
random_json(unsigned int *seed, int depth)
{
    static const char *const pieces[] = {
        "{", "}", "[", "]", "\"", "\\", ",", ":", " ", "a", "\n", "\t",
        "\xc3\xa9", "\xe2\x82\xac", "\\\"", "\"}", "null",
    };
    switch (depth > 0 ? rand_r(seed) % 6 : rand_r(seed) % 3) {
    case 0: {
        struct ds s = DS_EMPTY_INITIALIZER;
        int n = rand_r(seed) % 8;
        for (int i = 0; i < n; i++) {
            ds_put_cstr(&s, pieces[rand_r(seed) % ARRAY_SIZE(pieces)]);
        }
        json_t *json = json_string(ds_cstr(&s));
        ds_destroy(&s);
        return json;
    }
    case 1:
        return json_integer((json_int_t) rand_r(seed) - RAND_MAX / 2);
    case 2:
        return rand_r(seed) % 2 ? json_true() : json_null();
    case 3:
    case 4: {
        json_t *array = json_array();
        int n = rand_r(seed) % 4;
        for (int i = 0; i < n; i++) {
            json_array_append_new(array, random_json(seed, depth - 1));
        }
        return array;
    }
    default: {
        json_t *object = json_object();
        int n = rand_r(seed) % 4;
        for (int i = 0; i < n; i++) {
            char key[16];
            snprintf(key, sizeof key, "k}%d\"", i);
            json_object_set_new(object, key, random_json(seed, depth - 1));
        }
        return object;
    }
    }
}

/* Random messages, concatenated and delivered in random-sized chunks,
 * come out equal and in order. */
static void
test_random_chunks(void)
{
    unsigned int seed = 12345;
    struct stream *c, *s;
    make_pair(&c, &s);
    struct jsonrpc *rpc = jsonrpc_open(s);

    enum { N = 300 };
    json_t *sent[N];
    struct ds wire = DS_EMPTY_INITIALIZER;
    for (int i = 0; i < N; i++) {
        json_t *params = json_array();
        json_array_append_new(params, random_json(&seed, 5));
        struct jsonrpc_msg *msg = (i % 3
                                   ? jsonrpc_create_request("m", params, NULL)
                                   : jsonrpc_create_notify("n", params));
        jsonrpc_msg_serialize(msg, &wire);
        if (i % 5 == 0) {
            ds_put_cstr(&wire, "\n ");
        }
        sent[i] = jsonrpc_msg_to_json(msg);
    }

    size_t pos = 0;
    int received = 0;
    while (received < N) {
        if (pos < wire.length) {
            size_t chunk = 1 + rand_r(&seed) % 97;
            chunk = MIN(chunk, wire.length - pos);
            send_all(c, wire.string + pos, chunk);
            pos += chunk;
        }
        struct jsonrpc_msg *msg;
        int error = jsonrpc_recv(rpc, &msg);
        if (error == EAGAIN) {
            CHECK(pos < wire.length);
            if (pos >= wire.length) {
                break;
            }
            continue;
        }
        CHECK_INTEQ(error, 0);
        if (error) {
            break;
        }
        json_t *got = jsonrpc_msg_to_json(msg);
        if (!json_equal(got, sent[received])) {
            char *a = json_dumps(got, JSON_COMPACT);
            char *b = json_dumps(sent[received], JSON_COMPACT);
            fprintf(stderr, "message %d differs:\n  got  %s\n  sent %s\n",
                    received, a, b);
            free(a);
            free(b);
            check_failures++;
        }
        json_decref(got);
        received++;
    }
    CHECK_INTEQ(received, N);
    for (int i = 0; i < N; i++) {
        json_decref(sent[i]);
    }
    ds_destroy(&wire);
    jsonrpc_close(rpc);
    stream_close(c);
}

/* Several connections read in random order: messages bigger than 16 kB,
 * several in one read and messages split across reads come out whole, in
 * order, on the right connection. */
static void
test_interleaved_connections(void)
{
    enum {
        N_CONN = 3,
        N_MSG = 60
    };
    unsigned int seed = 777;
    struct stream *c[N_CONN], *s[N_CONN];
    struct jsonrpc *rpc[N_CONN];
    struct ds wire[N_CONN];
    json_t *sent[N_CONN][N_MSG];
    size_t pos[N_CONN];
    int received[N_CONN];

    for (int k = 0; k < N_CONN; k++) {
        make_pair(&c[k], &s[k]);
        rpc[k] = jsonrpc_open(s[k]);
        jsonrpc_set_limits(rpc[k], 1024 * 1024, 1000);
        ds_init(&wire[k]);
        pos[k] = 0;
        received[k] = 0;
        for (int i = 0; i < N_MSG; i++) {
            json_t *params = json_array();
            json_array_append_new(params, random_json(&seed, 4));
            if (i % 4 == 1) {
                size_t n = 10000 + rand_r(&seed) % 40000;
                char *big = xmalloc(n + 1);
                memset(big, 'a' + k, n);
                big[n] = '\0';
                json_array_append_new(params, json_string(big));
                free(big);
            }
            struct jsonrpc_msg *msg = jsonrpc_create_request("m", params,
                                                             NULL);
            jsonrpc_msg_serialize(msg, &wire[k]);
            sent[k][i] = jsonrpc_msg_to_json(msg); /* Takes 'msg'. */
        }
    }

    int done = 0;
    for (int round = 0; done < N_CONN && round < 100000; round++) {
        int k = rand_r(&seed) % N_CONN;
        size_t unread = pos[k] - jsonrpc_get_received_bytes(rpc[k]);
        if (pos[k] < wire[k].length && unread < 65536 && rand_r(&seed) % 2) {
            /* (Bounded by what is unread, so a send never blocks.) */
            size_t chunk = 1 + rand_r(&seed) % 30000;
            chunk = MIN(chunk, wire[k].length - pos[k]);
            send_all(c[k], wire[k].string + pos[k], chunk);
            pos[k] += chunk;
        }
        int r = rand_r(&seed) % N_CONN;
        if (received[r] == N_MSG) {
            continue;
        }
        struct jsonrpc_msg *msg;
        int error = jsonrpc_recv(rpc[r], &msg);
        if (error == EAGAIN) {
            continue;
        }
        CHECK_INTEQ(error, 0);
        if (error) {
            break;
        }
        json_t *got = jsonrpc_msg_to_json(msg);
        CHECK(json_equal(got, sent[r][received[r]]));
        json_decref(got);
        if (++received[r] == N_MSG) {
            done++;
        }
    }
    for (int k = 0; k < N_CONN; k++) {
        CHECK_INTEQ(received[k], N_MSG);
        for (int i = 0; i < N_MSG; i++) {
            json_decref(sent[k][i]);
        }
        ds_destroy(&wire[k]);
        jsonrpc_close(rpc[k]);
        stream_close(c[k]);
    }
}

/* A session on a passive name listens and serves whoever connects,
 * answering "echo" requests itself. */
static void
test_passive_session(void)
{
    char *pname = xasprintf("punix:%s/passive", dir);
    struct jsonrpc_session *js = jsonrpc_session_open(pname, true);
    long long deadline = time_msec() + 5000;

    /* Run until listening. */
    struct stream *c = NULL;
    while (!c && time_msec() < deadline) {
        jsonrpc_session_run(js);
        if (stream_open(pname + 1, &c)) {
            c = NULL;
            jsonrpc_session_wait(js);
            poll_timer_wait(10);
            poll_block();
        }
    }
    CHECK(c != NULL);
    CHECK_INTEQ(stream_open_block(0, 5000, &c), 0);
    session_run_until_connected(js, deadline);
    CHECK(jsonrpc_session_is_connected(js));

    const char *echo = "{\"id\":\"e1\",\"method\":\"echo\",\"params\":[7]}";
    send_all(c, echo, strlen(echo));
    struct ds got = DS_EMPTY_INITIALIZER;
    read_for(c, &got, js, 300);
    CHECK_STREQ(ds_cstr(&got),
                "{\"id\":\"e1\",\"result\":[7],\"error\":null}");
    ds_destroy(&got);

    stream_close(c);
    jsonrpc_session_close(js);
    struct stat st;
    CHECK(stat(pname + 6, &st) < 0);
    free(pname);
}

/* Sends 'text' to a connection set for lazy "transact" params of 1 kB or
 * more and returns what it received (NULL on error, '*errorp' set). */
static struct jsonrpc_msg *
recv_lazy(const char *text, int *errorp)
{
    struct stream *client, *server;
    make_pair(&client, &server);
    struct jsonrpc *rpc = jsonrpc_open(server);
    jsonrpc_set_lazy_params(rpc, "transact", 1024);
    send_all(client, text, strlen(text));
    struct jsonrpc_msg *msg = NULL;
    *errorp = recv_wait(rpc, &msg);
    jsonrpc_close(rpc);
    stream_close(client);
    return msg;
}

/* Big "transact" requests arrive with their params as text, parsed on
 * demand into the same tree; others, small ones and bad ones as always. */
static void
test_lazy_params(void)
{
    struct ds ops = DS_EMPTY_INITIALIZER;
    for (int i = 0; i < 40; i++) {
        ds_put_format(&ops,
                      ",{\"op\":\"insert\",\"table\":\"t\","
                      "\"row\":{\"name\":\"row-%d-\\u00e9\"}}",
                      i);
    }
    char *big = xasprintf("{\"params\":[\"db\"%s],\"id\":3,"
                          "\"method\":\"transact\"}",
                          ds_cstr(&ops));
    CHECK(strlen(big) >= 1024);

    int error;
    struct jsonrpc_msg *msg = recv_lazy(big, &error);
    CHECK_INTEQ(error, 0);
    CHECK(msg && msg->lazy_params && !msg->params);
    if (msg) {
        CHECK(json_integer_value(msg->id) == 3);
        jsonrpc_msg_parse_params(msg);
        CHECK(!msg->lazy_params && json_array_size(msg->params) == 41);
        CHECK_STREQ(json_string_value(json_object_get(
                        json_object_get(json_array_get(msg->params, 40),
                                        "row"),
                        "name")),
                    "row-39-\xc3\xa9");
    }
    jsonrpc_msg_destroy(msg);

    /* Another method, or a small request: parsed whole. */
    char *other = xasprintf("{\"params\":[\"db\"%s],\"id\":3,"
                            "\"method\":\"echo\"}",
                            ds_cstr(&ops));
    msg = recv_lazy(other, &error);
    CHECK(msg && !msg->lazy_params && json_array_size(msg->params) == 41);
    jsonrpc_msg_destroy(msg);
    msg = recv_lazy("{\"id\":1,\"method\":\"transact\",\"params\":[]}",
                    &error);
    CHECK(msg && !msg->lazy_params && msg->params);
    jsonrpc_msg_destroy(msg);

    /* Errors anywhere in a big request are the whole parse's errors. */
    char *bad = xasprintf("{\"params\":[\"db\"%s,],\"id\":3,"
                          "\"method\":\"transact\"}",
                          ds_cstr(&ops));
    msg = recv_lazy(bad, &error);
    CHECK(!msg && error == EPROTO);
    char *notify = xasprintf("{\"params\":[\"db\"%s],\"id\":null,"
                             "\"method\":\"transact\",\"x\":1}",
                             ds_cstr(&ops));
    msg = recv_lazy(notify, &error);
    CHECK(!msg && error == EPROTO);

    free(notify);
    free(bad);
    free(other);
    free(big);
    ds_destroy(&ops);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_framing),
    CHECK_CASE(test_random_chunks),
    CHECK_CASE(test_interleaved_connections),
    CHECK_CASE(test_limits_and_errors),
    CHECK_CASE(test_idle_reads),
    CHECK_CASE(test_serialization),
    CHECK_CASE(test_backlog),
    CHECK_CASE(test_shared),
    CHECK_CASE(test_batching),
    CHECK_CASE(test_transact_and_session),
    CHECK_CASE(test_probe),
    CHECK_CASE(test_passive_session),
    CHECK_CASE(test_lazy_params),
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);
    char tmpl[] = "/tmp/test-jsonrpc.XXXXXX";
    dir = mkdtemp(tmpl);
    CHECK(dir != NULL);

    int status = check_main(argc, argv, "test-jsonrpc", cases,
                            sizeof cases / sizeof *cases);

    char *cmd = xasprintf("rm -rf %s", dir);
    CHECK_INTEQ(system(cmd), 0);
    free(cmd);
    return status;
}
