/* lib/stream-unix.c: "unix:PATH" and "punix:PATH" classes.
 *
 * A relative PATH is relative to the run directory (dirs_rundir():
 * $OVS_RUNDIR or the configured one), not to the working directory, as in
 * the reference: "unix:db.sock" names the same socket for every program.
 *
 * Accepted connections are named "unix#N" (N counts accepts in this
 * process), as the reference names them in logs. */
#include <config.h>
#include "lib/stream-provider.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/fatal-signal.h"
#include "lib/socket-util.h"

static int
unix_verify(const char *suffix)
{
    return suffix[0] ? 0 : EINVAL;
}

static int
unix_open(const char *name, char *suffix, struct stream **streamp)
{
    char *path = dirs_abs_file_name(dirs_rundir(), suffix);
    int fd;
    int error = make_unix_socket(SOCK_STREAM, true, NULL, path, 0, &fd);
    if (error) {
        free(path);
        return error;
    }
    new_fd_stream(xstrdup(name), fd, check_connection_completion(fd), true,
                  streamp);
    stream_set_peer_name(*streamp, path);
    return 0;
}

const struct stream_class unix_stream_class = {
    .name = "unix",
    .needs_probes = false,
    .verify = unix_verify,
    .open = unix_open,
};

static int
punix_accept(int fd, const struct sockaddr_storage *ss OVS_UNUSED,
             socklen_t ss_len OVS_UNUSED, struct stream **streamp)
{
    static unsigned int n_accepted;
    new_fd_stream(xasprintf("unix#%u", n_accepted++), fd, 0, true,
                  streamp);
    return 0;
}

static int
punix_listen(const char *name, char *suffix, struct pstream **pstreamp)
{
    char *path = dirs_abs_file_name(dirs_rundir(), suffix);
    int fd;
    int error = make_unix_socket(SOCK_STREAM, true, path, NULL,
                                 socket_get_unix_mode(), &fd);
    if (error) {
        free(path);
        return error;
    }
    if (listen(fd, 64) < 0) {
        error = errno;
        close(fd);
        unlink(path);
        free(path);
        return error;
    }
    fatal_signal_add_file_to_unlink(path);
    new_fd_pstream(xstrdup(name), fd, punix_accept, path, pstreamp);
    return 0;
}

const struct pstream_class punix_pstream_class = {
    .name = "punix",
    .needs_probes = false,
    .verify = unix_verify,
    .listen = punix_listen,
};
