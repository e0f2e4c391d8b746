/* lib/stream-tcp.c: "tcp:IP:PORT" and "ptcp:PORT[:IP]" classes. */
#include <config.h>
#include "lib/stream-provider.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/socket-util.h"

static int
tcp_verify(const char *suffix)
{
    struct sockaddr_storage ss;
    return inet_parse_active(suffix, -1, &ss);
}

static int
tcp_open(const char *name, char *suffix, struct stream **streamp)
{
    struct sockaddr_storage ss;
    int fd;
    int error = inet_open_active(SOCK_STREAM, suffix, -1, &ss, &fd);
    if (error) {
        return error;
    }
    new_fd_stream(xstrdup(name), fd, EAGAIN, false, streamp);
    stream_set_peer_name(*streamp, ss_format_ip_port(&ss));
    return 0;
}

const struct stream_class tcp_stream_class = {
    .name = "tcp",
    .needs_probes = true,
    .verify = tcp_verify,
    .open = tcp_open,
};

static int
ptcp_verify(const char *suffix)
{
    struct sockaddr_storage ss;
    return inet_parse_passive(suffix, -1, &ss);
}

static int
ptcp_accept(int fd, const struct sockaddr_storage *ss, socklen_t ss_len,
            struct stream **streamp)
{
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);

    char *peer = ss_format_ip_port(ss);
    new_fd_stream(xasprintf("tcp:%s", peer), fd, 0, false, streamp);
    stream_set_peer_name(*streamp, peer);
    return 0;
}

static int
ptcp_listen(const char *name, char *suffix, struct pstream **pstreamp)
{
    struct sockaddr_storage ss;
    int fd;
    int error = inet_open_passive(SOCK_STREAM, suffix, -1, &ss, &fd);
    if (error) {
        return error;
    }
    new_fd_pstream(xstrdup(name), fd, ptcp_accept, NULL, pstreamp);
    (*pstreamp)->bound_port = ss_get_port(&ss);
    return 0;
}

const struct pstream_class ptcp_pstream_class = {
    .name = "ptcp",
    .needs_probes = true,
    .verify = ptcp_verify,
    .listen = ptcp_listen,
};
