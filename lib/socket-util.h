/* lib/socket-util.h: BSD socket helpers for streams.
 *
 * Addresses are written as the reference writes them: "IP:PORT" for active
 * targets, "PORT:IP" for passive ones, IPv6 in brackets ("[::1]:6640").
 * Every function returns 0 or a positive errno, and every fd it creates is
 * close-on-exec and, unless stated otherwise, non-blocking. */
#ifndef LIB_SOCKET_UTIL_H
#define LIB_SOCKET_UTIL_H 1

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "lib/ds.h"

int set_nonblocking(int fd);
int set_cloexec(int fd);

/* Returns the pending error on socket 'fd' (SO_ERROR), or 0. */
int get_socket_error(int fd);

/* Returns 0 if the non-blocking connect() on 'fd' has completed, EAGAIN if
 * it is still in progress, or the errno it failed with. */
int check_connection_completion(int fd);

/* Parses "IP[:PORT]" ("127.0.0.1:6640", "[::1]:6640", "[::1]") into '*ss'.
 * A host name ("localhost:6640") is resolved, blocking.
 * A missing port is 'default_port' (< 0: the port is required).  Returns 0
 * or EINVAL (and logs why at warn level, rate-limited). */
int inet_parse_active(const char *target, int default_port,
                      struct sockaddr_storage *ss);

/* Parses "[PORT][:IP]" ("6640", "6640:127.0.0.1", "0:[::1]", ":127.0.0.1")
 * into '*ss'.  A missing port is 'default_port' (< 0: required); a missing
 * IP is 0.0.0.0. */
int inet_parse_passive(const char *target, int default_port,
                       struct sockaddr_storage *ss);

/* Creates a non-blocking 'style' (SOCK_STREAM) socket and starts connecting
 * to 'target' (as inet_parse_active()).  On success returns 0 with '*fdp'
 * set: the connection may still be in progress (use
 * check_connection_completion()).  On failure '*fdp' is -1.  '*ssp', if
 * nonnull, receives the parsed address. */
int inet_open_active(int style, const char *target, int default_port,
                     struct sockaddr_storage *ssp, int *fdp);

/* Creates a non-blocking listening socket bound to 'target' (as
 * inet_parse_passive()), with SO_REUSEADDR.  Returns 0 and '*fdp', or an
 * errno.  '*ssp', if nonnull, receives the bound address (with the real
 * port when port 0 was asked for). */
int inet_open_passive(int style, const char *target, int default_port,
                      struct sockaddr_storage *ssp, int *fdp);

/* Creates a unix domain socket of 'style'; if 'bind_path' is nonnull binds
 * it there (after unlinking a stale socket file) with permissions 'mode'
 * (e.g. 0700, or 0770 like the reference), and if 'connect_path' is
 * nonnull connects it there (non-blocking if 'nonblock').  Paths longer
 * than sun_path are handled through /proc/self/fd/N of the directory, as
 * the reference does.  Returns 0 and '*fdp', or an errno. */
int make_unix_socket(int style, bool nonblock, const char *bind_path,
                     const char *connect_path, int mode, int *fdp);

/* Default 'mode' that lib/stream uses for "punix:" sockets: 0700 unless
 * changed (the reference uses 0770, i.e. also the owner's group). */
int socket_get_unix_mode(void);
void socket_set_unix_mode(int mode);

/* Appends "IP" ("127.0.0.1", "::1", without brackets) of 'ss' to 's'. */
void ss_format_address(const struct sockaddr_storage *ss, struct ds *s);
/* Returns "IP:PORT" of 'ss' ("[::1]:6640" for IPv6); caller must free
 * with free(). */
char *ss_format_ip_port(const struct sockaddr_storage *ss);
/* Returns the port of 'ss' (host byte order), 0 for non-inet. */
uint16_t ss_get_port(const struct sockaddr_storage *ss);
/* Returns the length to pass to bind() and connect() for 'ss'. */
socklen_t ss_length(const struct sockaddr_storage *ss);

/* Reads or writes exactly 'n' bytes on blocking 'fd', retrying on EINTR.
 * Return 0, EOF (read hit end of file first) or an errno. */
int read_fully(int fd, void *p, size_t n, size_t *bytes_read);
int write_fully(int fd, const void *p, size_t n, size_t *bytes_written);

#endif /* lib/socket-util.h */
