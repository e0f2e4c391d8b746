/* tests/unit/lib/test-stream.c: address parsing, name checks, and real
 * connections over unix (including a path longer than sun_path), TCP on
 * 127.0.0.1 and, where available, ::1. */
#include <config.h>
#include "lib/stream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/poll-loop.h"
#include "lib/socket-util.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "tests/unit/check.h"

static void
check_active(const char *target, int default_port, int error, int family,
             const char *addr, int port)
{
    struct sockaddr_storage ss;
    int retval = inet_parse_active(target, default_port, &ss);
    CHECK_INTEQ(retval, error);
    if (!error && !retval) {
        struct ds s = DS_EMPTY_INITIALIZER;
        ss_format_address(&ss, &s);
        CHECK_INTEQ(ss.ss_family, family);
        CHECK_STREQ(ds_cstr(&s), addr);
        CHECK_INTEQ(ss_get_port(&ss), port);
        ds_destroy(&s);
    }
}

static void
check_passive(const char *target, int default_port, int error, int family,
              const char *addr, int port)
{
    struct sockaddr_storage ss;
    int retval = inet_parse_passive(target, default_port, &ss);
    CHECK_INTEQ(retval, error);
    if (!error && !retval) {
        struct ds s = DS_EMPTY_INITIALIZER;
        ss_format_address(&ss, &s);
        CHECK_INTEQ(ss.ss_family, family);
        CHECK_STREQ(ds_cstr(&s), addr);
        CHECK_INTEQ(ss_get_port(&ss), port);
        ds_destroy(&s);
    }
}

static void
test_parsing(void)
{
    check_active("127.0.0.1:6640", -1, 0, AF_INET, "127.0.0.1", 6640);
    check_active("10.1.2.3", 6640, 0, AF_INET, "10.1.2.3", 6640);
    check_active("[::1]:6641", -1, 0, AF_INET6, "::1", 6641);
    check_active("[fe80::1]", 7, 0, AF_INET6, "fe80::1", 7);
    check_active("127.0.0.1", -1, EINVAL, 0, NULL, 0);
    check_active("127.0.0.1:65536", -1, EINVAL, 0, NULL, 0);
    check_active("127.0.0.1:x", -1, EINVAL, 0, NULL, 0);
    check_active("1.2.3:1", -1, EINVAL, 0, NULL, 0);
    check_active("[::1:1", -1, EINVAL, 0, NULL, 0);
    check_active(":1", -1, EINVAL, 0, NULL, 0);

    check_passive("6640", -1, 0, AF_INET, "0.0.0.0", 6640);
    check_passive("6640:127.0.0.1", -1, 0, AF_INET, "127.0.0.1", 6640);
    check_passive("0:[::1]", -1, 0, AF_INET6, "::1", 0);
    check_passive(":127.0.0.1", 6640, 0, AF_INET, "127.0.0.1", 6640);
    check_passive("", 6640, 0, AF_INET, "0.0.0.0", 6640);
    check_passive("", -1, EINVAL, 0, NULL, 0);
    check_passive("abc", -1, EINVAL, 0, NULL, 0);
    check_passive("1:[::1", -1, EINVAL, 0, NULL, 0);

    CHECK_INTEQ(stream_verify_name("tcp:127.0.0.1:6640"), 0);
    CHECK_INTEQ(stream_verify_name("tcp:[::1]:6640"), 0);
    CHECK_INTEQ(stream_verify_name("tcp:127.0.0.1"), EINVAL);
    CHECK_INTEQ(stream_verify_name("unix:/x"), 0);
    CHECK_INTEQ(stream_verify_name("unix:"), EINVAL);
    CHECK_INTEQ(stream_verify_name("bogus:x"), EAFNOSUPPORT);
    CHECK_INTEQ(stream_verify_name("ptcp:6640"), EAFNOSUPPORT);
    CHECK_INTEQ(stream_verify_name("nocolon"), EAFNOSUPPORT);
    CHECK_INTEQ(pstream_verify_name("ptcp:6640"), 0);
    CHECK_INTEQ(pstream_verify_name("ptcp:0:127.0.0.1"), 0);
    CHECK_INTEQ(pstream_verify_name("punix:/x"), 0);
    CHECK_INTEQ(pstream_verify_name("tcp:127.0.0.1:1"), EAFNOSUPPORT);
    CHECK(stream_name_needs_probes("tcp:127.0.0.1:1"));
    CHECK(stream_name_needs_probes("ptcp:1"));
    CHECK(!stream_name_needs_probes("unix:/x"));
    CHECK(!stream_name_needs_probes("punix:/x"));

    struct stream *s;
    CHECK_INTEQ(stream_open("bogus:x", &s), EAFNOSUPPORT);
    CHECK(s == NULL);
    struct pstream *ps;
    CHECK_INTEQ(pstream_open("ptcp:notaport", &ps), EINVAL);
    CHECK(ps == NULL);
}

/* Pumps 'n' bytes of a pattern from 'from' to 'to' with non-blocking calls
 * interleaved, as two peers in one loop would. */
static void
pump(struct stream *from, struct stream *to, size_t n)
{
    char *out = xmalloc(n);
    char *in = xmalloc(n);
    for (size_t i = 0; i < n; i++) {
        out[i] = (char) (i * 7 + i / 251);
    }
    size_t sent = 0, received = 0;
    long long deadline = time_msec() + 10000;
    while (received < n && time_msec() < deadline) {
        if (sent < n) {
            ssize_t retval = stream_send(from, out + sent, n - sent);
            CHECK(retval > 0 || retval == -EAGAIN);
            if (retval > 0) {
                sent += retval;
            }
        }
        ssize_t retval = stream_recv(to, in + received, n - received);
        CHECK(retval > 0 || retval == -EAGAIN);
        if (retval > 0) {
            received += retval;
            continue;
        }
        if (sent < n) {
            stream_send_wait(from);
        }
        stream_recv_wait(to);
        poll_block();
    }
    CHECK_INTEQ(received, n);
    CHECK(!memcmp(in, out, n));
    free(in);
    free(out);
}

/* Opens 'pname', connects to 'name' (with "%d" replaced by the bound port,
 * if any), and exchanges data both ways.  Returns false if 'pname' could
 * not be opened with an error in 'soft_errors' (feature unavailable). */
static bool
test_connection(const char *pname, const char *name_fmt, bool expect_probes,
                const char *accepted_name_prefix)
{
    struct pstream *ps;
    int error = pstream_open(pname, &ps);
    if (error == EAFNOSUPPORT || error == EADDRNOTAVAIL) {
        return false;
    }
    CHECK_INTEQ(error, 0);
    if (error) {
        return false;
    }
    CHECK_STREQ(pstream_get_name(ps), pname);

    char *name = xasprintf(name_fmt, pstream_get_bound_port(ps));
    struct stream *client, *server;

    /* Nothing to accept yet. */
    CHECK_INTEQ(pstream_accept(ps, &server), EAGAIN);

    CHECK_INTEQ(stream_open(name, &client), 0);
    CHECK_STREQ(stream_get_name(client), name);
    CHECK(stream_needs_probes(client) == expect_probes);
    CHECK_INTEQ(stream_open_block(0, 5000, &client), 0);
    CHECK_INTEQ(stream_connect(client), 0);

    long long deadline = time_msec() + 5000;
    while ((error = pstream_accept(ps, &server)) == EAGAIN
           && time_msec() < deadline) {
        pstream_wait(ps);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    CHECK_INTEQ(error, 0);
    CHECK(stream_needs_probes(server) == expect_probes);
    CHECK(!strncmp(stream_get_name(server), accepted_name_prefix,
                   strlen(accepted_name_prefix)));

    pump(client, server, 3 * 1000 * 1000 + 7);
    pump(server, client, 1000 * 1000);

    /* Nothing more to read yet, then EOF once the peer closes. */
    char buf[16];
    memset(buf, 0, sizeof buf);
    CHECK_INTEQ(stream_recv(server, buf, sizeof buf), -EAGAIN);

    /* A read is skipped while the last poll_block() found the socket
     * empty: it says EAGAIN even though bytes arrived since, and they are
     * there after the next poll. */
    stream_recv_wait(server);
    poll_timer_wait(0);
    poll_block();
    CHECK_INTEQ(stream_send(client, "abc", 3), 3);
    CHECK_INTEQ(stream_recv(server, buf, sizeof buf), -EAGAIN);
    stream_recv_wait(server);
    poll_block();
    CHECK_INTEQ(stream_recv(server, buf, sizeof buf), 3);
    CHECK(!memcmp(buf, "abc", 3));
    stream_close(client);
    ssize_t retval;
    while ((retval = stream_recv(server, buf, sizeof buf)) == -EAGAIN) {
        stream_recv_wait(server);
        poll_block();
    }
    CHECK_INTEQ(retval, 0);
    /* Sending to a closed peer reports an error, never SIGPIPE. */
    for (int i = 0; i < 100; i++) {
        retval = stream_send(server, buf, sizeof buf);
        if (retval < 0 && retval != -EAGAIN) {
            break;
        }
    }
    CHECK(retval == -EPIPE || retval == -ECONNRESET);

    stream_close(server);
    pstream_close(ps);
    free(name);
    return true;
}

static void
test_tcp(void)
{
    CHECK(test_connection("ptcp:0:127.0.0.1", "tcp:127.0.0.1:%d", true,
                          "tcp:127.0.0.1:"));
    if (!test_connection("ptcp:0:[::1]", "tcp:[::1]:%d", true, "tcp:[::1]:")) {
        printf("IPv6 loopback unavailable, skipped\n");
    }

    /* A host name works for active connections. */
    struct sockaddr_storage ss;
    CHECK_INTEQ(inet_parse_active("localhost:6640", -1, &ss), 0);
    CHECK(ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
    CHECK_INTEQ(ss_get_port(&ss), 6640);

    /* Peer names. */
    struct pstream *ps;
    CHECK_INTEQ(pstream_open("ptcp:0:127.0.0.1", &ps), 0);
    uint16_t port = pstream_get_bound_port(ps);
    CHECK(port != 0);
    char *name = xasprintf("tcp:127.0.0.1:%u", port);
    char *peer = xasprintf("127.0.0.1:%u", port);
    struct stream *client, *server;
    CHECK_INTEQ(stream_open_block(stream_open(name, &client), 5000, &client),
                0);
    CHECK_STREQ(stream_get_peer_name(client), peer);
    while (pstream_accept(ps, &server) == EAGAIN) {
        pstream_wait(ps);
        poll_block();
    }
    char *expected = xasprintf("tcp:%s", stream_get_peer_name(server));
    CHECK_STREQ(stream_get_name(server), expected);
    free(expected);
    stream_close(client);
    stream_close(server);

    /* The port is taken while listening. */
    char *pname = xasprintf("ptcp:%u:127.0.0.1", port);
    struct pstream *ps2;
    CHECK_INTEQ(pstream_open(pname, &ps2), EADDRINUSE);
    pstream_close(ps);

    /* Nobody listens any more: refused. */
    int error = stream_open_block(stream_open(name, &client), 5000, &client);
    CHECK_INTEQ(error, ECONNREFUSED);
    CHECK(client == NULL);
    free(pname);
    free(name);
    free(peer);
}

/* A temporary directory for the sockets. */
static char *dir;

static void
test_unix(void)
{
    char *pname = xasprintf("punix:%s/sock", dir);
    CHECK(test_connection(pname, pname + 1, false, "unix#"));

    /* The file is gone after close; connecting now fails. */
    struct stat st;
    CHECK(stat(pname + 6, &st) < 0 && errno == ENOENT);
    struct stream *s;
    int error = stream_open(pname + 1, &s);
    CHECK_INTEQ(error, ENOENT);
    free(pname);

    /* A path longer than sun_path (108 bytes). */
    struct ds path = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&path, dir);
    for (int i = 0; i < 3; i++) {
        ds_put_format(&path, "/%s", "a-rather-long-directory-name-component");
        CHECK_INTEQ(mkdir(ds_cstr(&path), 0700), 0);
    }
    ds_put_cstr(&path, "/long.sock");
    CHECK(path.length > 108);
    pname = xasprintf("punix:%s", ds_cstr(&path));
    CHECK(test_connection(pname, pname + 1, false, "unix#"));
    free(pname);

    /* Owner-only permissions by default, and settable. */
    pname = xasprintf("punix:%s/mode.sock", dir);
    struct pstream *ps;
    CHECK_INTEQ(pstream_open(pname, &ps), 0);
    CHECK_INTEQ(stat(pname + 6, &st), 0);
    CHECK(S_ISSOCK(st.st_mode));
    CHECK_INTEQ(st.st_mode & 0777, 0700);
    pstream_close(ps);
    socket_set_unix_mode(0770);
    CHECK_INTEQ(pstream_open(pname, &ps), 0);
    CHECK_INTEQ(stat(pname + 6, &st), 0);
    CHECK_INTEQ(st.st_mode & 0777, 0770);
    pstream_close(ps);
    socket_set_unix_mode(0700);

    /* A stale socket file (no listener) is replaced. */
    int fd;
    CHECK_INTEQ(make_unix_socket(SOCK_STREAM, true, pname + 6, NULL, 0700,
                                 &fd), 0);
    close(fd);
    CHECK_INTEQ(stat(pname + 6, &st), 0);
    CHECK_INTEQ(pstream_open(pname, &ps), 0);
    pstream_close(ps);
    free(pname);
    ds_destroy(&path);
}

/* Waits up to 5 s for 'to' to read something; returns the count. */
static ssize_t
recv_some(struct stream *to, char *buf, size_t n)
{
    long long deadline = time_msec() + 5000;
    ssize_t retval;
    while ((retval = stream_recv(to, buf, n)) == -EAGAIN
           && time_msec() < deadline) {
        stream_recv_wait(to);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    return retval;
}

/* Sends 'text' on 'from' and checks that 'to' receives exactly it. */
static void
transfer(struct stream *from, struct stream *to, const char *text)
{
    char buf[64];
    size_t n = strlen(text);
    CHECK_INTEQ(stream_send(from, text, n), n);
    CHECK_INTEQ(recv_some(to, buf, sizeof buf), n);
    CHECK(!memcmp(buf, text, n));
}

/* Unix streams read small messages by peeking and consume them later (see
 * lib/stream-fd.c): every byte still arrives once, in order, and bytes
 * already read never make poll() report input. */
static void
test_unix_peek(void)
{
    char *pname = xasprintf("punix:%s/peek", dir);
    struct pstream *ps;
    CHECK_INTEQ(pstream_open(pname, &ps), 0);
    struct stream *client, *server;
    CHECK_INTEQ(stream_open_block(stream_open(pname + 1, &client), 5000,
                                  &client), 0);
    int error;
    while ((error = pstream_accept(ps, &server)) == EAGAIN) {
        pstream_wait(ps);
        poll_block();
    }
    CHECK_INTEQ(error, 0);

    char buf[64];
    for (int i = 0; i < 3; i++) {
        /* A request, read; then one more, read without a reply between:
         * only the new bytes come back. */
        transfer(client, server, "abc");
        transfer(client, server, "de");

        /* Waiting for input does not wake at once for bytes read. */
        stream_recv_wait(server);
        poll_timer_wait(100);
        long long start = time_msec();
        poll_block();
        CHECK(time_msec() - start >= 100);
        CHECK_INTEQ(stream_recv(server, buf, sizeof buf), -EAGAIN);

        /* A reply, then the next request. */
        transfer(client, server, "f");
        transfer(server, client, "xyz");
        transfer(client, server, "gh");
    }

    /* A message bigger than what is consumed later, then small ones. */
    pump(client, server, 100 * 1000);
    transfer(client, server, "ij");

    /* Closing after reading gives the peer EOF (unread input would reset
     * it: ECONNRESET). */
    transfer(client, server, "k");
    stream_close(server);
    CHECK_INTEQ(recv_some(client, buf, sizeof buf), 0);

    stream_close(client);
    pstream_close(ps);
    free(pname);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_parsing),
    CHECK_CASE(test_tcp),
    CHECK_CASE(test_unix),
    CHECK_CASE(test_unix_peek),
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);
    char tmpl[] = "/tmp/test-stream.XXXXXX";
    dir = mkdtemp(tmpl);
    CHECK(dir != NULL);

    int status = check_main(argc, argv, "test-stream", cases,
                            sizeof cases / sizeof *cases);

    char *cmd = xasprintf("rm -rf %s", dir);
    CHECK_INTEQ(system(cmd), 0);
    free(cmd);
    return status;
}
