/* lib/socket-util.c: see socket-util.h. */
#include <config.h>
#include "lib/socket-util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(socket_util);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

static int unix_mode = 0700;

int
set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        return errno;
    }
    return 0;
}

int
set_cloexec(int fd)
{
    int flags = fcntl(fd, F_GETFD, 0);
    if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0) {
        return errno;
    }
    return 0;
}

int
get_socket_error(int fd)
{
    int error;
    socklen_t len = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) < 0) {
        return errno;
    }
    return error;
}

int
check_connection_completion(int fd)
{
    struct pollfd pfd = { .fd = fd, .events = POLLOUT };
    int retval;
    do {
        retval = poll(&pfd, 1, 0);
    } while (retval < 0 && errno == EINTR);
    if (retval == 1) {
        if (pfd.revents & (POLLERR | POLLHUP)) {
            int error = get_socket_error(fd);
            return error ? error : ECONNREFUSED;
        }
        return 0;
    } else if (retval < 0) {
        return errno;
    }
    return EAGAIN;
}

/* Parses 'host' (an IPv4 or IPv6 literal, IPv6 without brackets) and
 * 'port' into '*ss'. */
static int
parse_sockaddr_components(struct sockaddr_storage *ss, const char *host,
                          int port, const char *s)
{
    memset(ss, 0, sizeof *ss);
    if (port < 0 || port > 65535) {
        VLOG_WARN_RL(&rl, "%s: bad port number", s);
        return EINVAL;
    }
    if (strchr(host, ':')) {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) ss;
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons(port);
        if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1) {
            VLOG_WARN_RL(&rl, "%s: bad IPv6 address \"%s\"", s, host);
            return EINVAL;
        }
    } else {
        struct sockaddr_in *sin = (struct sockaddr_in *) ss;
        sin->sin_family = AF_INET;
        sin->sin_port = htons(port);
        if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
            VLOG_WARN_RL(&rl, "%s: bad IPv4 address \"%s\"", s, host);
            return EINVAL;
        }
    }
    return 0;
}

/* Resolves host name 'host' (blocking; /etc/hosts answers "localhost" at
 * once) into '*ss' with 'port'.  Returns 0 or EINVAL. */
static int
resolve_host(const char *host, int port, struct sockaddr_storage *ss,
             const char *s)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC,
                              .ai_socktype = SOCK_STREAM };
    struct addrinfo *ai;
    int retval = getaddrinfo(host, NULL, &hints, &ai);
    if (retval) {
        VLOG_WARN_RL(&rl, "%s: could not resolve \"%s\" (%s)", s, host,
                     gai_strerror(retval));
        return EINVAL;
    }
    memset(ss, 0, sizeof *ss);
    memcpy(ss, ai->ai_addr, MIN(ai->ai_addrlen, sizeof *ss));
    if (ss->ss_family == AF_INET) {
        ((struct sockaddr_in *) ss)->sin_port = htons(port);
    } else if (ss->ss_family == AF_INET6) {
        ((struct sockaddr_in6 *) ss)->sin6_port = htons(port);
    }
    freeaddrinfo(ai);
    return 0;
}

/* Returns true if 'host' could be a DNS name rather than an address. */
static bool
is_host_name(const char *host)
{
    bool alpha = false;
    for (const char *p = host; *p; p++) {
        if (isalpha((unsigned char) *p)) {
            alpha = true;
        } else if (!isdigit((unsigned char) *p) && *p != '.' && *p != '-') {
            return false;
        }
    }
    return alpha;
}

/* Splits 's' at the front: returns a copy of the host part (brackets
 * removed) and sets '*rest' to what follows it.  A bracketed host must be
 * closed. */
static char *
take_host(const char *s, const char **rest)
{
    if (*s == '[') {
        const char *end = strchr(s, ']');
        if (!end) {
            return NULL;
        }
        *rest = end + 1;
        return xmemdup0(s + 1, end - s - 1);
    }
    const char *colon = strchr(s, ':');
    size_t n = colon ? colon - s : strlen(s);
    *rest = s + n;
    return xmemdup0(s, n);
}

/* Parses 'text' as a port number (nonempty, decimal), or returns -1. */
static int
parse_port(const char *text, size_t n)
{
    if (!n || n > 5) {
        return -1;
    }
    int port = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] < '0' || text[i] > '9') {
            return -1;
        }
        port = port * 10 + (text[i] - '0');
    }
    return port;
}

int
inet_parse_active(const char *target, int default_port,
                  struct sockaddr_storage *ss)
{
    const char *rest;
    char *host = take_host(target, &rest);
    int port;

    memset(ss, 0, sizeof *ss);
    if (!host || !host[0]) {
        VLOG_WARN_RL(&rl, "%s: host must be specified", target);
        free(host);
        return EINVAL;
    }
    if (*rest == ':') {
        port = parse_port(rest + 1, strlen(rest + 1));
        if (port < 0) {
            VLOG_WARN_RL(&rl, "%s: bad port number \"%s\"", target, rest + 1);
            free(host);
            return EINVAL;
        }
    } else if (*rest) {
        VLOG_WARN_RL(&rl, "%s: bad address syntax", target);
        free(host);
        return EINVAL;
    } else if (default_port < 0) {
        VLOG_WARN_RL(&rl, "%s: port must be specified", target);
        free(host);
        return EINVAL;
    } else {
        port = default_port;
    }

    int error = (is_host_name(host) ? resolve_host(host, port, ss, target)
                 : parse_sockaddr_components(ss, host, port, target));
    free(host);
    return error;
}

int
inet_parse_passive(const char *target, int default_port,
                   struct sockaddr_storage *ss)
{
    const char *colon = strchr(target, ':');
    size_t port_len = colon ? colon - target : strlen(target);
    int port;

    memset(ss, 0, sizeof *ss);
    if (port_len) {
        port = parse_port(target, port_len);
        if (port < 0) {
            VLOG_WARN_RL(&rl, "%s: bad port number", target);
            return EINVAL;
        }
    } else if (default_port < 0) {
        VLOG_WARN_RL(&rl, "%s: port must be specified", target);
        return EINVAL;
    } else {
        port = default_port;
    }

    char *host;
    if (colon && colon[1]) {
        const char *rest;
        host = take_host(colon + 1, &rest);
        if (!host || *rest) {
            VLOG_WARN_RL(&rl, "%s: bad address syntax", target);
            free(host);
            return EINVAL;
        }
    } else {
        host = xstrdup("0.0.0.0");
    }
    int error = parse_sockaddr_components(ss, host, port, target);
    free(host);
    return error;
}

socklen_t
ss_length(const struct sockaddr_storage *ss)
{
    switch (ss->ss_family) {
    case AF_INET:
        return sizeof(struct sockaddr_in);
    case AF_INET6:
        return sizeof(struct sockaddr_in6);
    default:
        return sizeof *ss;
    }
}

char *
ss_format_ip_port(const struct sockaddr_storage *ss)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    bool ipv6 = ss->ss_family == AF_INET6;
    ds_put_cstr(&s, ipv6 ? "[" : "");
    ss_format_address(ss, &s);
    ds_put_format(&s, "%s:%u", ipv6 ? "]" : "", ss_get_port(ss));
    return ds_steal_cstr(&s);
}

uint16_t
ss_get_port(const struct sockaddr_storage *ss)
{
    switch (ss->ss_family) {
    case AF_INET:
        return ntohs(((const struct sockaddr_in *) ss)->sin_port);
    case AF_INET6:
        return ntohs(((const struct sockaddr_in6 *) ss)->sin6_port);
    default:
        return 0;
    }
}

void
ss_format_address(const struct sockaddr_storage *ss, struct ds *s)
{
    char buf[INET6_ADDRSTRLEN];
    const void *addr = NULL;
    if (ss->ss_family == AF_INET) {
        addr = &((const struct sockaddr_in *) ss)->sin_addr;
    } else if (ss->ss_family == AF_INET6) {
        addr = &((const struct sockaddr_in6 *) ss)->sin6_addr;
    }
    if (addr && inet_ntop(ss->ss_family, addr, buf, sizeof buf)) {
        ds_put_cstr(s, buf);
    } else {
        ds_put_cstr(s, "(unknown)");
    }
}

/* Creates a non-blocking, close-on-exec socket. */
static int
new_socket(int domain, int style, int *fdp)
{
    int fd = socket(domain, style | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *fdp = -1;
        return errno;
    }
    *fdp = fd;
    return 0;
}

int
inet_open_active(int style, const char *target, int default_port,
                 struct sockaddr_storage *ssp, int *fdp)
{
    struct sockaddr_storage ss;
    int fd;

    *fdp = -1;
    int error = inet_parse_active(target, default_port, &ss);
    if (!error) {
        error = new_socket(ss.ss_family, style, &fd);
    }
    if (error) {
        goto exit;
    }

    if (style == SOCK_STREAM) {
        int on = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    if (connect(fd, (struct sockaddr *) &ss, ss_length(&ss)) < 0
        && errno != EINPROGRESS) {
        error = errno;
        close(fd);
        goto exit;
    }
    *fdp = fd;

exit:
    if (ssp) {
        *ssp = ss;
    }
    return error;
}

int
inet_open_passive(int style, const char *target, int default_port,
                  struct sockaddr_storage *ssp, int *fdp)
{
    struct sockaddr_storage ss;
    int fd;

    *fdp = -1;
    int error = inet_parse_passive(target, default_port, &ss);
    if (error) {
        return error;
    }
    error = new_socket(ss.ss_family, style, &fd);
    if (error) {
        return error;
    }

    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) < 0) {
        error = errno;
        goto error;
    }
    if (ss.ss_family == AF_INET6) {
        /* "ptcp:6640:[::]" should not also grab the IPv4 port. */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    }
    if (bind(fd, (struct sockaddr *) &ss, ss_length(&ss)) < 0) {
        error = errno;
        VLOG_ERR("%s: bind: %s", target, ovs_strerror(error));
        goto error;
    }
    if (style == SOCK_STREAM && listen(fd, 64) < 0) {
        error = errno;
        VLOG_ERR("%s: listen: %s", target, ovs_strerror(error));
        goto error;
    }
    struct sockaddr_storage bound;
    socklen_t len = sizeof bound;
    if (getsockname(fd, (struct sockaddr *) &bound, &len) < 0) {
        error = errno;
        goto error;
    }
    if (!ss_get_port(&ss)) {
        /* The kernel chose: say which, as the reference does. */
        VLOG_INFO("%s: listening on port %u", target, ss_get_port(&bound));
    }
    if (ssp) {
        *ssp = bound;
    }
    *fdp = fd;
    return 0;

error:
    close(fd);
    return error;
}

int
socket_get_unix_mode(void)
{
    return unix_mode;
}

void
socket_set_unix_mode(int mode)
{
    unix_mode = mode;
}

/* Fills in '*un' for 'name'.  If 'name' is too long for sun_path, opens
 * its directory as '*dirfdp' (caller must close it) and uses
 * "/proc/self/fd/N/BASENAME" instead, which the kernel resolves at bind()
 * and connect() time. */
static int
make_sockaddr_un(const char *name, struct sockaddr_un *un, socklen_t *lenp,
                 int *dirfdp)
{
    *dirfdp = -1;
    memset(un, 0, sizeof *un);
    un->sun_family = AF_UNIX;

    size_t max = sizeof un->sun_path - 1;
    if (strlen(name) > max) {
        const char *slash = strrchr(name, '/');
        char *dir = (slash ? xmemdup0(name, slash == name ? 1 : slash - name)
                     : xstrdup("."));
        const char *base = slash ? slash + 1 : name;
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int error = dirfd < 0 ? errno : 0;
        free(dir);
        if (error) {
            return error;
        }
        char short_name[sizeof un->sun_path + 64];
        snprintf(short_name, sizeof short_name, "/proc/self/fd/%d/%s", dirfd,
                 base);
        if (strlen(short_name) > max) {
            close(dirfd);
            return ENAMETOOLONG;
        }
        strcpy(un->sun_path, short_name);
        *dirfdp = dirfd;
    } else {
        strcpy(un->sun_path, name);
    }
    *lenp = offsetof(struct sockaddr_un, sun_path) + strlen(un->sun_path) + 1;
    return 0;
}

int
make_unix_socket(int style, bool nonblock, const char *bind_path,
                 const char *connect_path, int mode, int *fdp)
{
    int fd;
    *fdp = -1;
    int error = new_socket(AF_UNIX, style, &fd);
    if (error) {
        return error;
    }
    if (!nonblock) {
        int flags = fcntl(fd, F_GETFL, 0);
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    }

    if (bind_path) {
        struct sockaddr_un un;
        socklen_t len;
        int dirfd;

        error = make_sockaddr_un(bind_path, &un, &len, &dirfd);
        if (!error) {
            /* A socket file left by a dead process is in the way. */
            struct stat st;
            if (!stat(bind_path, &st) && S_ISSOCK(st.st_mode)) {
                unlink(bind_path);
            }
            /* On Linux the socket inode's mode, filtered by the umask,
             * becomes the file's mode. */
            if (fchmod(fd, mode) < 0
                || bind(fd, (struct sockaddr *) &un, len) < 0) {
                error = errno;
            } else if (chmod(bind_path, mode) < 0) {
                error = errno;
            }
            if (dirfd >= 0) {
                close(dirfd);
            }
        }
        if (error) {
            goto error;
        }
    }

    if (connect_path) {
        struct sockaddr_un un;
        socklen_t len;
        int dirfd;

        error = make_sockaddr_un(connect_path, &un, &len, &dirfd);
        if (!error && connect(fd, (struct sockaddr *) &un, len) < 0
            && errno != EINPROGRESS) {
            error = errno;
        }
        if (dirfd >= 0) {
            close(dirfd);
        }
        if (error) {
            goto error;
        }
    }

    *fdp = fd;
    return 0;

error:
    close(fd);
    return error;
}

int
read_fully(int fd, void *p_, size_t n, size_t *bytes_read)
{
    char *p = p_;
    *bytes_read = 0;
    while (n > 0) {
        ssize_t retval = read(fd, p, n);
        if (retval > 0) {
            p += retval;
            n -= retval;
            *bytes_read += retval;
        } else if (retval == 0) {
            return EOF;
        } else if (errno != EINTR) {
            return errno;
        }
    }
    return 0;
}

int
write_fully(int fd, const void *p_, size_t n, size_t *bytes_written)
{
    const char *p = p_;
    *bytes_written = 0;
    while (n > 0) {
        ssize_t retval = write(fd, p, n);
        if (retval > 0) {
            p += retval;
            n -= retval;
            *bytes_written += retval;
        } else if (retval == 0) {
            return EPROTO;
        } else if (errno != EINTR) {
            return errno;
        }
    }
    return 0;
}
