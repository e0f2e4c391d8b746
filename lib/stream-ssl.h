/* lib/stream-ssl.h: TLS streams ("ssl:IP:PORT", "pssl:PORT[:IP]").
 *
 * TLS is one more stream class (lib/stream-provider.h): once a program has
 * configured its key, certificate and CA, "ssl:" and "pssl:" names work
 * everywhere lib/stream.h names do.  As in the reference Open vSwitch, the
 * configuration is global to the process: one private key, one certificate
 * and one CA certificate serve every TLS connection, in both directions.
 *
 * Both ends must present a certificate signed by the configured CA (the
 * server asks the client for one and refuses it if missing or foreign);
 * "--ca-cert=none" disables that check, with a warning.  A peer that fails
 * the handshake, or speaks plain JSON-RPC to a TLS port, is logged (rate
 * limited) and its stream fails with EPROTO.
 *
 * Files are re-read when they change: a new connection (at most one a
 * millisecond) and every call of a setter compare each file's inode, size
 * and mtime with what was loaded, so replacing a key and certificate on
 * disk takes effect for the next connection without a restart.
 *
 * OpenSSL is not linked but loaded (dlopen()) the first time something
 * needs it: a setter given a file or a protocol or cipher list, or an
 * "ssl:" or "pssl:" stream.  A program that never uses TLS never maps it.
 * Failure to load it is logged and fails TLS streams with ENOPROTOOPT.
 *
 * Command-line support, for mains using getopt_long():
 *
 *     enum { STREAM_SSL_OPTION_ENUMS, ... };
 *     static const struct option long_options[] = {
 *         STREAM_SSL_LONG_OPTIONS, ...
 *     };
 *     short options: include STREAM_SSL_SHORT_OPTIONS ("p:c:C:")
 *     switch (c) { STREAM_SSL_OPTION_HANDLERS ... }
 *
 * and stream_ssl_usage() in --help.  A program that defers some values
 * (ovsdb-server's "db:DB,TABLE,COLUMN") handles those cases itself and
 * calls stream_ssl_handle_option() for the rest. */
#ifndef LIB_STREAM_SSL_H
#define LIB_STREAM_SSL_H 1

#include <limits.h>
#include <stdbool.h>

struct stream;

/* Configuration.  Each setter may be called again at any time (with the
 * same or another file); 'file_name' is copied.  Errors are logged, not
 * returned: a TLS connection attempted without a usable key, certificate
 * and CA fails with ENOPROTOOPT, as in the reference. */
void stream_ssl_set_private_key_file(const char *file_name);
void stream_ssl_set_certificate_file(const char *file_name);

/* Sets both at once, so that a key and certificate replaced together are
 * never checked against each other's old version. */
void stream_ssl_set_key_and_cert(const char *private_key_file,
                                 const char *certificate_file);

/* Sets the CA certificate that peers' certificates must be signed by.
 * "none" disables peer verification (a security risk; logged).  If
 * 'bootstrap' is true and the file does not exist, the first TLS peer's CA
 * certificate (the self-signed top of the chain it sends) is saved there
 * and trusted from then on; that first connection is then dropped
 * (EPROTO) so that the caller reconnects. */
void stream_ssl_set_ca_cert_file(const char *file_name, bool bootstrap);

/* Sets a file of extra certificates to send in our chain (the CA that
 * signed our certificate), for peers that bootstrap their CA. */
void stream_ssl_set_peer_ca_cert_file(const char *file_name);

/* Sets the protocols, a comma- or space-separated list of "TLSv1",
 * "TLSv1.1", "TLSv1.2", "TLSv1.3"; NULL restores the default,
 * "TLSv1.2,TLSv1.3".  Unknown words are logged and ignored; a list with no
 * known word leaves the setting unchanged. */
void stream_ssl_set_protocols(const char *protocols);

/* Sets the OpenSSL cipher list for TLS 1.2 and below; NULL restores the
 * default, "HIGH:!aNULL:!MD5".  An invalid list is logged and ignored. */
void stream_ssl_set_ciphers(const char *ciphers);

/* Returns true if a private key, certificate and CA are all set (the CA
 * possibly "none" or to be bootstrapped). */
bool stream_ssl_is_configured(void);

/* Returns the common name (CN) of the certificate the peer presented on
 * TLS stream 'stream', or NULL if 'stream' is not a connected TLS stream
 * or the peer sent none.  Caller must free with free().  This is the
 * client ID that RBAC compares with authorization columns. */
char *stream_ssl_get_peer_id(const struct stream *stream);

/* Returns true if 'stream' is a TLS stream. */
bool stream_is_ssl(const struct stream *stream);

/* A server's TLS handshakes off the main thread (lib/handshake-pool.h).
 *
 * stream_ssl_may_handshake_elsewhere() is true for a TLS stream fresh from
 * pstream_accept() whose handshake may run on another thread: not while a
 * CA certificate is to be learned from a peer ("--bootstrap-ca-cert"),
 * which changes the process's configuration.  Main thread only.
 *
 * stream_ssl_handshake_step() runs one step of such a stream's handshake,
 * on whichever thread owns the stream at the time (one at a time): the
 * public-key work, and nothing that only the main thread may do.  Returns
 * EAGAIN (call again once '*fdp' is ready for '*eventsp', POLLIN or
 * POLLOUT), 0 (the handshake is through), or an errno (it failed; logged).
 * Either way the stream goes back to the main thread, whose
 * stream_connect() finishes it: peer verification and logging, cheap,
 * after a completed step; the same error after a failed one. */
bool stream_ssl_may_handshake_elsewhere(const struct stream *);
int stream_ssl_handshake_step(struct stream *, int *fdp, short *eventsp);

/* Closing off the main thread.  The end of a TLS session costs whoever
 * closes it a close_notify record and its write, the SSL object's
 * teardown and the socket's close: most of what a client that leaves
 * costs the main thread.  With a closer set, stream_close() of a TLS
 * stream takes its fd out of the poll loop (lib/poll-loop.h), which only
 * the main thread may do, and hands the stream to 'closer', which must
 * call stream_ssl_finish_close() on it once, on any thread.  Until then
 * the stream belongs to the closer; its name is already freed, and the
 * fd stays open, so its number cannot be reused meanwhile.  NULL (the
 * default) closes at once.  Main thread only. */
void stream_ssl_set_closer(void (*closer)(struct stream *, void *aux),
                           void *aux);
void stream_ssl_finish_close(struct stream *);

/* Command-line options (see the top of this file). */
#define STREAM_SSL_OPTION_ENUMS                                              \
    OPT_BOOTSTRAP_CA_CERT = UCHAR_MAX + 3000, OPT_PEER_CA_CERT,              \
    OPT_SSL_PROTOCOLS, OPT_SSL_CIPHERS
#define STREAM_SSL_SHORT_OPTIONS "p:c:C:"
#define STREAM_SSL_LONG_OPTIONS                                              \
    {"private-key", required_argument, NULL, 'p'},                           \
    {"certificate", required_argument, NULL, 'c'},                           \
    {"ca-cert", required_argument, NULL, 'C'},                               \
    {"bootstrap-ca-cert", required_argument, NULL, OPT_BOOTSTRAP_CA_CERT},   \
    {"peer-ca-cert", required_argument, NULL, OPT_PEER_CA_CERT},             \
    {"ssl-protocols", required_argument, NULL, OPT_SSL_PROTOCOLS},           \
    {"ssl-ciphers", required_argument, NULL, OPT_SSL_CIPHERS}
#define STREAM_SSL_OPTION_HANDLERS                                           \
    case 'p':                                                                \
        stream_ssl_handle_option('p', optarg);                               \
        break;                                                               \
    case 'c':                                                                \
        stream_ssl_handle_option('c', optarg);                               \
        break;                                                               \
    case 'C':                                                                \
        stream_ssl_handle_option('C', optarg);                               \
        break;                                                               \
    case OPT_BOOTSTRAP_CA_CERT:                                              \
        stream_ssl_handle_option(OPT_BOOTSTRAP_CA_CERT, optarg);             \
        break;                                                               \
    case OPT_PEER_CA_CERT:                                                   \
        stream_ssl_handle_option(OPT_PEER_CA_CERT, optarg);                  \
        break;                                                               \
    case OPT_SSL_PROTOCOLS:                                                  \
        stream_ssl_handle_option(OPT_SSL_PROTOCOLS, optarg);                 \
        break;                                                               \
    case OPT_SSL_CIPHERS:                                                    \
        stream_ssl_handle_option(OPT_SSL_CIPHERS, optarg);                   \
        break;

/* Applies option 'option' ('p', 'c', 'C' or one of the OPT_* values of
 * STREAM_SSL_OPTION_ENUMS) with argument 'arg'.  "--ca-cert" and
 * "--bootstrap-ca-cert" together are a fatal error, as in the
 * reference. */
void stream_ssl_handle_option(int option, const char *arg);

/* Prints the TLS options' help text to stdout. */
void stream_ssl_usage(void);

#endif /* lib/stream-ssl.h */
