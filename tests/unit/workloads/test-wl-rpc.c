/* tests/unit/workloads/test-wl-rpc.c: the workload driver's JSON-RPC client
 * against a scripted server on a real unix socket.
 *
 * The server thread sends messages one byte at a time, with braces,
 * brackets, quotes and backslashes inside strings, so message boundaries
 * fall everywhere; it checks the echo reply the client must send. */
#include <config.h>
#include "tests/workloads/wl-rpc.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "tests/unit/check.h"

static int listen_fd;
static int server_failures;

static void
send_bytewise(int fd, const char *s)
{
    for (; *s; s++) {
        if (write(fd, s, 1) != 1) {
            server_failures++;
            return;
        }
    }
}

/* Reads one message the client sends: until a '}' ends the bytes read. */
static json_t *
read_client(int fd)
{
    char buf[4096];
    size_t n = 0;

    while (n < sizeof buf - 1) {
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0) {
            return NULL;
        }
        n++;
        buf[n] = '\0';
        json_t *msg = buf[n - 1] == '}' ? json_loads(buf, 0, NULL) : NULL;
        if (msg) {
            return msg;
        }
    }
    return NULL;
}

static void *
server_main(void *arg)
{
    int fd = accept(listen_fd, NULL, NULL);
    json_t *msg;

    (void) arg;
    /* Request 1: answered after an echo and a tricky notification. */
    msg = read_client(fd);
    if (!msg || json_integer_value(json_object_get(msg, "id")) != 1) {
        server_failures++;
    }
    json_decref(msg);
    send_bytewise(fd, "{\"id\":\"e1\",\"method\":\"echo\",\"params\":[\"x\"]}");
    send_bytewise(fd, " \n{\"id\":null,\"method\":\"update\",\"params\":"
                  "[\"q\",{\"T\":{\"u\":{\"new\":{\"s\":\"a}b\\\"]c\\\\\","
                  "\"t\":[[1,{}],[]]}}}}]}");
    send_bytewise(fd, "{\"id\":1,\"result\":[{\"count\":1}],\"error\":null}");

    /* The echo reply. */
    msg = read_client(fd);
    if (!msg || strcmp(json_string_value(json_object_get(msg, "id")) ?: "",
                       "e1")
        || strcmp(json_string_value(json_array_get(
                      json_object_get(msg, "result"), 0)) ?: "", "x")) {
        server_failures++;
    }
    json_decref(msg);

    /* Request 2: an error reply. */
    msg = read_client(fd);
    json_decref(msg);
    send_bytewise(fd, "{\"id\":2,\"result\":null,\"error\":"
                  "{\"error\":\"boom\"}}");

    /* Then garbage. */
    send_bytewise(fd, "]");
    close(fd);
    return NULL;
}

/* A bad remote or a missing socket fails to open. */
static void
test_open_errors(void)
{
    struct wl_rpc *rpc;
    CHECK(wl_rpc_open("nonsense", &rpc) != 0);
    CHECK(wl_rpc_open("unix:/nonexistent/sock", &rpc) != 0);
}

/* The scripted conversation: a reply after an echo and a notification,
 * the notification queued intact, an error reply, then a framing error. */
static void
test_conversation(void)
{
    char dir[] = "/tmp/test-wl-rpc.XXXXXX";
    struct sockaddr_un sun;
    struct wl_rpc *rpc;
    pthread_t thread;
    json_t *result, *msg;
    char *remote;

    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        CHECK(false);
        return;
    }
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    snprintf(sun.sun_path, sizeof sun.sun_path, "%s/sock", dir);
    listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(listen_fd >= 0);
    CHECK(!bind(listen_fd, (struct sockaddr *) &sun, sizeof sun));
    CHECK(!listen(listen_fd, 1));
    remote = xasprintf("unix:%s", sun.sun_path);

    CHECK(!wl_rpc_open(remote, &rpc));
    pthread_create(&thread, NULL, server_main, NULL);

    /* The reply comes after the echo and the notification. */
    CHECK(!wl_rpc_request(rpc, "transact", "[]", &result));
    CHECK_INTEQ(json_integer_value(json_object_get(json_array_get(result, 0),
                                                   "count")), 1);
    json_decref(result);

    /* The notification was queued intact. */
    msg = wl_rpc_recv_notification(rpc);
    CHECK(msg != NULL);
    json_t *row = json_object_get(json_object_get(json_object_get(
        json_array_get(json_object_get(msg, "params"), 1), "T"), "u"),
                                  "new");
    CHECK_STREQ(json_string_value(json_object_get(row, "s")), "a}b\"]c\\");
    CHECK_INTEQ(json_array_size(json_object_get(row, "t")), 2);
    json_decref(msg);

    /* An error reply fails the request and says why. */
    CHECK(wl_rpc_request(rpc, "transact", "[]", &result) == -1);
    CHECK(strstr(wl_rpc_error(rpc), "boom") != NULL);

    /* A framing error is reported, not mistaken for a message. */
    CHECK(wl_rpc_recv_notification(rpc) == NULL);
    CHECK(strstr(wl_rpc_error(rpc), "framing") != NULL);
    CHECK(wl_rpc_bytes_sent(rpc) > 0 && wl_rpc_bytes_received(rpc) > 100);

    pthread_join(thread, NULL);
    CHECK_INTEQ(server_failures, 0);
    wl_rpc_close(rpc);
    close(listen_fd);
    unlink(sun.sun_path);
    rmdir(dir);
    free(remote);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_open_errors),
    CHECK_CASE(test_conversation),
};

int
main(int argc, char *argv[])
{
    /* A framing bug hangs: fail instead. */
    alarm(20);
    return check_main(argc, argv, "test-wl-rpc", cases,
                      sizeof cases / sizeof *cases);
}
