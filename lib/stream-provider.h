/* lib/stream-provider.h: how to add a stream class (e.g. TLS).
 *
 * Only stream implementations include this file.  A class is a table of
 * functions; a stream or pstream embeds the base struct below as its first
 * member and the class casts back with CONTAINER_OF.  Register a new class
 * by adding it to the tables at the top of lib/stream.c.
 *
 * The class named in stream_open() or pstream_open() only opens: the object
 * it returns may carry another class (tcp and unix streams both return
 * stream-fd.c's class), which then serves every other call. */
#ifndef LIB_STREAM_PROVIDER_H
#define LIB_STREAM_PROVIDER_H 1

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "lib/stream.h"

struct stream {
    const struct stream_class *class;
    int state;                  /* Private to stream.c. */
    int error;                  /* Connect error once failed. */
    char *name;                 /* Owned. */
    char *peer_name;            /* Owned, may be NULL. */
    bool needs_probes;          /* Set by stream.c from the opening class. */
    struct replay_file *replay; /* With --record: this stream's file. */
};

/* Initializes 'stream'.  'connect_status' is 0 (already connected), EAGAIN
 * (in progress) or an errno.  Takes ownership of 'name'. */
void stream_init(struct stream *, const struct stream_class *,
                 int connect_status, char *name);
/* Takes ownership of 'peer_name'. */
void stream_set_peer_name(struct stream *, char *peer_name);

struct stream_class {
    const char *name;           /* Prefix before ':', e.g. "tcp". */
    bool needs_probes;

    /* Validates 'suffix' (the text after "name:").  May be NULL. */
    int (*verify)(const char *suffix);

    /* Opens 'name' ("tcp:1.2.3.4:5"); 'suffix' is the part after ':'.
     * Returns 0 and '*streamp', or an errno. */
    int (*open)(const char *name, char *suffix, struct stream **streamp);
    void (*close)(struct stream *);

    /* Completes a connection in progress: 0, EAGAIN or an errno.  NULL if
     * the class connects in open(). */
    int (*connect)(struct stream *);

    ssize_t (*recv)(struct stream *, void *buffer, size_t n);
    ssize_t (*send)(struct stream *, const void *buffer, size_t n);

    void (*run)(struct stream *);          /* May be NULL. */
    void (*run_wait)(struct stream *);     /* May be NULL. */

    /* Registers a wait: 'wait' is STREAM_CONNECT, STREAM_RECV or
     * STREAM_SEND. */
    void (*wait)(struct stream *, int wait);
};

enum { STREAM_CONNECT, STREAM_RECV, STREAM_SEND };

struct pstream {
    const struct pstream_class *class;
    char *name;                 /* Owned. */
    uint16_t bound_port;        /* TCP port, 0 otherwise. */
    bool needs_probes;          /* Set by stream.c from the opening class. */
    struct replay_file *replay; /* With --record: this pstream's file. */
};

/* Takes ownership of 'name'. */
void pstream_init(struct pstream *, const struct pstream_class *, char *name);

struct pstream_class {
    const char *name;           /* "ptcp", "punix", "pssl". */
    bool needs_probes;
    int (*verify)(const char *suffix);
    int (*listen)(const char *name, char *suffix, struct pstream **);
    void (*close)(struct pstream *);
    /* Returns 0 and a new connected stream, EAGAIN, or an errno. */
    int (*accept)(struct pstream *, struct stream **);
    void (*wait)(struct pstream *);
};

/* Classes built in. */
extern const struct stream_class tcp_stream_class;
extern const struct stream_class unix_stream_class;
extern const struct pstream_class ptcp_pstream_class;
extern const struct pstream_class punix_pstream_class;
extern const struct stream_class ssl_stream_class;      /* stream-ssl.c */
extern const struct pstream_class pssl_pstream_class;

/* With --replay (lib/replay.h), stream.c opens every name with these
 * (lib/stream-replay.c) instead of the class the name asks for. */
int replay_stream_open(const char *name, struct stream **);
int replay_pstream_listen(const char *name, struct pstream **);

/* Helpers for fd-based classes (lib/stream-fd.c): a stream or pstream over
 * a socket fd, whose class is private to stream-fd.c.  They take ownership
 * of 'fd' and 'name'.  'connect_status' is as for stream_init().
 * 'accept_cb' turns an accepted fd and its peer address into a stream.
 * 'unlink_path', if nonnull, is a file to remove when the pstream closes
 * (taken).  'peek' reads by peeking and consumes the bytes on the next send
 * (see stream-fd.c: for unix sockets, where it saves the peer a wake-up
 * per request). */
void new_fd_stream(char *name, int fd, int connect_status, bool peek,
                   struct stream **streamp);
void new_fd_pstream(char *name, int fd,
                    int (*accept_cb)(int fd, const struct sockaddr_storage *,
                                     socklen_t ss_len, struct stream **),
                    char *unlink_path, struct pstream **pstreamp);

#endif /* lib/stream-provider.h */
