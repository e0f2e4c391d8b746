/* lib/stream-ssl.c: see stream-ssl.h.
 *
 * One global SSL_CTX holds the key, certificate, CA store and protocol
 * settings; each stream gets its own SSL from it.  A stream goes through
 * two connect states: TCP (the non-blocking connect() of an active stream)
 * and TLS (the handshake), driven by stream_connect() through ssl_connect().
 *
 * Writes go from the caller's buffer.  OpenSSL requires a write that would
 * block to be retried with the same bytes, which the caller's buffer does
 * not promise, so when one blocks ssl_send() copies up to TX_BUF_SIZE bytes
 * into a private buffer, returns that count, and ssl_run() finishes them. */
#include <config.h>
#include "lib/stream-ssl.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/poll-loop.h"
#include "lib/socket-util.h"
#include "lib/stream-provider.h"
#include "lib/timeval.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(stream_ssl);

/* OpenSSL is loaded with dlopen() by the first ssl_init(), not linked:
 * merely mapping libssl and libcrypto costs a process about 1.6 MB of RSS
 * (their relocations and symbol tables), which a server that never uses
 * TLS should not pay.  Every OpenSSL function this file calls, directly or
 * through OpenSSL's macros, is listed here and reached through 'ossl',
 * whose pointers are set together; none is called before ssl_init() has
 * succeeded, since every call needs 'ctx' or a stream made from it. */
#define OSSL_FUNCTIONS                                                        \
    F(ASN1_STRING_to_UTF8)                                                    \
    F(CRYPTO_free)                                                            \
    F(ERR_clear_error)                                                        \
    F(ERR_error_string_n)                                                     \
    F(ERR_get_error)                                                          \
    F(ERR_peek_error)                                                         \
    F(EVP_sha1)                                                               \
    F(OPENSSL_sk_num)                                                         \
    F(OPENSSL_sk_pop_free)                                                    \
    F(OPENSSL_sk_value)                                                       \
    F(PEM_read_X509)                                                          \
    F(PEM_write_X509)                                                         \
    F(SSL_CTX_check_private_key)                                              \
    F(SSL_CTX_clear_options)                                                  \
    F(SSL_CTX_get0_certificate)                                               \
    F(SSL_CTX_ctrl)                                                           \
    F(SSL_CTX_new)                                                            \
    F(SSL_CTX_set_cert_store)                                                 \
    F(SSL_CTX_set_cipher_list)                                                \
    F(SSL_CTX_set_client_CA_list)                                             \
    F(SSL_CTX_set_num_tickets)                                                \
    F(SSL_CTX_set_options)                                                    \
    F(SSL_CTX_set_verify)                                                     \
    F(SSL_CTX_use_PrivateKey_file)                                            \
    F(SSL_CTX_use_certificate_chain_file)                                     \
    F(SSL_accept)                                                             \
    F(SSL_connect)                                                            \
    F(SSL_free)                                                               \
    F(SSL_get1_peer_certificate)                                              \
    F(SSL_get_error)                                                          \
    F(SSL_get_peer_cert_chain)                                                \
    F(SSL_get_verify_result)                                                  \
    F(SSL_get_version)                                                        \
    F(SSL_is_init_finished)                                                   \
    F(SSL_load_client_CA_file)                                                \
    F(SSL_new)                                                                \
    F(SSL_pending)                                                            \
    F(SSL_read)                                                               \
    F(SSL_set_accept_state)                                                   \
    F(SSL_set_connect_state)                                                  \
    F(SSL_set_fd)                                                             \
    F(SSL_shutdown)                                                           \
    F(SSL_write)                                                              \
    F(TLS_method)                                                             \
    F(X509_NAME_ENTRY_get_data)                                               \
    F(X509_NAME_free)                                                         \
    F(X509_NAME_get_entry)                                                    \
    F(X509_NAME_get_index_by_NID)                                             \
    F(X509_OBJECT_get0_X509)                                                  \
    F(X509_STORE_free)                                                        \
    F(X509_STORE_get0_objects)                                                \
    F(X509_STORE_load_locations)                                              \
    F(X509_STORE_new)                                                         \
    F(X509_check_issued)                                                      \
    F(X509_check_purpose)                                                     \
    F(X509_digest)                                                            \
    F(X509_free)                                                              \
    F(X509_get_subject_name)                                                  \
    F(X509_verify_cert_error_string)

static struct {
#define F(NAME) __typeof__(&NAME) NAME;
    OSSL_FUNCTIONS
#undef F
} ossl;

#define OSSL_STR_(X) #X
#define OSSL_STR(X) OSSL_STR_(X)
#define OSSL_SONAME "libssl.so." OSSL_STR(OPENSSL_SHLIB_VERSION)

/* Loads libssl (and with it libcrypto) once.  Returns 0 or ENOPROTOOPT,
 * having logged why. */
static int
load_openssl(void)
{
    static int error = -1; /* -1: not tried yet. */
    if (error >= 0) {
        return error;
    }
    error = ENOPROTOOPT;
    void *lib = dlopen(OSSL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        VLOG_ERR("cannot load OpenSSL for TLS: %s", dlerror());
        return error;
    }
#define F(NAME)                                                               \
    *(void **) &ossl.NAME = dlsym(lib, #NAME);                                \
    if (!ossl.NAME) {                                                         \
        VLOG_ERR("%s: %s not found", OSSL_SONAME, #NAME);                     \
        return error;                                                         \
    }
    OSSL_FUNCTIONS
#undef F
    error = 0;
    return error;
}

/* From here on, OpenSSL's names mean the loaded functions. */
#define ASN1_STRING_to_UTF8 (ossl.ASN1_STRING_to_UTF8)
#define CRYPTO_free (ossl.CRYPTO_free)
#define ERR_clear_error (ossl.ERR_clear_error)
#define ERR_error_string_n (ossl.ERR_error_string_n)
#define ERR_get_error (ossl.ERR_get_error)
#define ERR_peek_error (ossl.ERR_peek_error)
#define EVP_sha1 (ossl.EVP_sha1)
#define OPENSSL_sk_num (ossl.OPENSSL_sk_num)
#define OPENSSL_sk_pop_free (ossl.OPENSSL_sk_pop_free)
#define OPENSSL_sk_value (ossl.OPENSSL_sk_value)
#define PEM_read_X509 (ossl.PEM_read_X509)
#define PEM_write_X509 (ossl.PEM_write_X509)
#define SSL_CTX_check_private_key (ossl.SSL_CTX_check_private_key)
#define SSL_CTX_clear_options (ossl.SSL_CTX_clear_options)
#define SSL_CTX_get0_certificate (ossl.SSL_CTX_get0_certificate)
#define SSL_CTX_ctrl (ossl.SSL_CTX_ctrl)
#define SSL_CTX_new (ossl.SSL_CTX_new)
#define SSL_CTX_set_cert_store (ossl.SSL_CTX_set_cert_store)
#define SSL_CTX_set_cipher_list (ossl.SSL_CTX_set_cipher_list)
#define SSL_CTX_set_client_CA_list (ossl.SSL_CTX_set_client_CA_list)
#define SSL_CTX_set_num_tickets (ossl.SSL_CTX_set_num_tickets)
#define SSL_CTX_set_options (ossl.SSL_CTX_set_options)
#define SSL_CTX_set_verify (ossl.SSL_CTX_set_verify)
#define SSL_CTX_use_PrivateKey_file (ossl.SSL_CTX_use_PrivateKey_file)
#define SSL_CTX_use_certificate_chain_file                                    \
    (ossl.SSL_CTX_use_certificate_chain_file)
#define SSL_accept (ossl.SSL_accept)
#define SSL_connect (ossl.SSL_connect)
#define SSL_free (ossl.SSL_free)
#define SSL_get1_peer_certificate (ossl.SSL_get1_peer_certificate)
#define SSL_get_error (ossl.SSL_get_error)
#define SSL_get_peer_cert_chain (ossl.SSL_get_peer_cert_chain)
#define SSL_get_verify_result (ossl.SSL_get_verify_result)
#define SSL_get_version (ossl.SSL_get_version)
#define SSL_is_init_finished (ossl.SSL_is_init_finished)
#define SSL_load_client_CA_file (ossl.SSL_load_client_CA_file)
#define SSL_new (ossl.SSL_new)
#define SSL_pending (ossl.SSL_pending)
#define SSL_read (ossl.SSL_read)
#define SSL_set_accept_state (ossl.SSL_set_accept_state)
#define SSL_set_connect_state (ossl.SSL_set_connect_state)
#define SSL_set_fd (ossl.SSL_set_fd)
#define SSL_shutdown (ossl.SSL_shutdown)
#define SSL_write (ossl.SSL_write)
#define TLS_method (ossl.TLS_method)
#define X509_NAME_ENTRY_get_data (ossl.X509_NAME_ENTRY_get_data)
#define X509_NAME_free (ossl.X509_NAME_free)
#define X509_NAME_get_entry (ossl.X509_NAME_get_entry)
#define X509_NAME_get_index_by_NID (ossl.X509_NAME_get_index_by_NID)
#define X509_OBJECT_get0_X509 (ossl.X509_OBJECT_get0_X509)
#define X509_STORE_free (ossl.X509_STORE_free)
#define X509_STORE_get0_objects (ossl.X509_STORE_get0_objects)
#define X509_STORE_load_locations (ossl.X509_STORE_load_locations)
#define X509_STORE_new (ossl.X509_STORE_new)
#define X509_check_issued (ossl.X509_check_issued)
#define X509_check_purpose (ossl.X509_check_purpose)
#define X509_digest (ossl.X509_digest)
#define X509_free (ossl.X509_free)
#define X509_get_subject_name (ossl.X509_get_subject_name)
#define X509_verify_cert_error_string (ossl.X509_verify_cert_error_string)

#define DEFAULT_PROTOCOLS "TLSv1.2,TLSv1.3"
#define DEFAULT_CIPHERS "HIGH:!aNULL:!MD5"
#define TX_BUF_SIZE 16384

/* Peers can trigger every warning below, so all are rate limited. */
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(10, 25);

/* A configured file and the identity of the version loaded from it. */
struct ssl_config_file {
    char *file_name;            /* NULL if not configured. */
    bool tried;                 /* A load was attempted. */
    bool loaded;                /* The last attempt succeeded. */
    struct stat st;             /* stat() at the last attempt... */
    bool st_valid;              /* ...if it succeeded, */
    int stat_error;             /* ...otherwise its errno. */
};

static SSL_CTX *ctx;
static struct ssl_config_file private_key;
static struct ssl_config_file certificate;
static struct ssl_config_file ca_cert;
static struct ssl_config_file peer_ca_cert;
static bool verify_peer_cert = true;    /* False for "--ca-cert=none". */
static bool bootstrap_ca_cert;          /* CA to be learned from a peer. */
static bool ca_cert_option_seen;        /* For the mutual exclusion. */
static bool bootstrap_option_seen;

/* Threads.  Everything above belongs to the main thread, with one
 * exception: a server handshake may run on another thread
 * (stream_ssl_handshake_step()), and it reads 'ctx' (the CA store) and the
 * verification flags.  So the main thread changes those holding
 * 'ctx_lock' for writing, and a handshake step elsewhere holds it for
 * reading; writers go first, so that a storm of handshakes cannot hold off
 * a certificate reload.  The main thread itself reads them unlocked.
 * stream_ssl_finish_close() may also run elsewhere: it touches only its
 * own stream (SSL_free() drops the stream's reference to 'ctx', which
 * OpenSSL counts atomically). */
static pthread_rwlock_t ctx_lock =
    PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

enum ssl_state {
    STATE_TCP_CONNECTING,
    STATE_SSL_CONNECTING
};

enum session_type {
    CLIENT,
    SERVER
};

/* What OpenSSL waits for before the last call can make progress. */
enum ssl_want {
    WANT_NOTHING,
    WANT_READ,
    WANT_WRITE
};

struct ssl_stream {
    struct stream stream;
    enum ssl_state state;
    enum session_type type;
    int fd;
    SSL *ssl;
    bool first_byte_checked;    /* SERVER: plain-text probe done. */
    int handshake_error;        /* Set by stream_ssl_handshake_step(). */
    enum ssl_want rx_want;      /* For connect and recv. */
    bool rx_starved;            /* The last SSL_read() wanted more input. */
    enum ssl_want tx_want;      /* For the tx buffer. */
    char *txbuf;                /* TX_BUF_SIZE bytes, NULL until needed. */
    size_t tx_ofs;              /* Offset of the first unsent byte. */
    size_t tx_len;              /* Unsent bytes from 'tx_ofs' on. */
};

static const struct stream_class ssl_data_stream_class;

static struct ssl_stream *
ssl_stream_cast(const struct stream *stream)
{
    return CONTAINER_OF(stream, struct ssl_stream, stream);
}

bool
stream_is_ssl(const struct stream *stream)
{
    return stream && stream->class == &ssl_data_stream_class;
}

/* Appends OpenSSL's queued errors to 's' (or 'fallback' if none). */
static const char *
format_ssl_errors(struct ds *s, const char *fallback)
{
    unsigned long err;
    bool any = false;
    while ((err = ERR_get_error()) != 0) {
        char buf[256];
        ERR_error_string_n(err, buf, sizeof buf);
        ds_put_format(s, "%s%s", any ? ", " : "", buf);
        any = true;
    }
    if (!any) {
        ds_put_cstr(s, fallback);
    }
    return ds_cstr(s);
}

static void
log_ssl_errors(enum vlog_level level, const char *prefix)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    VLOG_RL(&rl, level, "%s: %s", prefix,
            format_ssl_errors(&s, "unknown error"));
    ds_destroy(&s);
}

/* Global context. */

static int
accept_any_cert(int preverify_ok OVS_UNUSED, X509_STORE_CTX *store OVS_UNUSED)
{
    return 1;                   /* Only while bootstrapping the CA. */
}

static void
update_verify_mode(void)
{
    if (!verify_peer_cert) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    } else if (bootstrap_ca_cert) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                           accept_any_cert);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                           NULL);
    }
}

static void apply_protocols(void);
static void apply_ciphers(void);

/* Creates the global context on first use.  Returns 0 or ENOPROTOOPT. */
static int
ssl_init(void)
{
    if (ctx) {
        return 0;
    }
    if (load_openssl()) {
        return ENOPROTOOPT;
    }
    ctx = SSL_CTX_new(TLS_method());
    if (!ctx) {
        log_ssl_errors(VLL_ERR, "SSL_CTX_new");
        return ENOPROTOOPT;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3
                             | SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* SSL_MODE_RELEASE_BUFFERS: a connection with nothing under way keeps
     * no record buffers (two of about 17 kB otherwise, 14 kB of them
     * resident: 1,000 TLS clients connecting at once peaked at 35 MB
     * instead of 49), for 2-3% more CPU on connections busy with small
     * messages (Update 1 over ssl:, glibc). */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE
                              | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                              | SSL_MODE_RELEASE_BUFFERS);
    /* No session resumption: no session cache (as the reference) and no
     * TLS 1.3 session tickets (the reference sends two after every
     * handshake, but no OVSDB client resumes a session, and making them
     * was a fifth of the server's CPU per client in a storm of 1,000
     * handshakes). */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(ctx, 0);
    SSL_CTX_set_dh_auto(ctx, 1);
    update_verify_mode();
    apply_protocols();
    apply_ciphers();
    return 0;
}

static bool
stat_equal(const struct stat *a, const struct stat *b)
{
    return (a->st_dev == b->st_dev && a->st_ino == b->st_ino
            && a->st_size == b->st_size
            && a->st_mtim.tv_sec == b->st_mtim.tv_sec
            && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec);
}

/* Returns true if 'file' must be (re)loaded: configured, and either never
 * tried or changed on disk since.  Records the new identity. */
static bool
file_needs_load(struct ssl_config_file *file)
{
    if (!file->file_name) {
        return false;
    }
    struct stat st;
    bool ok = !stat(file->file_name, &st);
    bool changed = (!file->tried || ok != file->st_valid
                    || (ok && !stat_equal(&st, &file->st)));
    if (!changed) {
        return false;
    }
    file->tried = true;
    file->st_valid = ok;
    file->stat_error = ok ? 0 : errno;
    if (ok) {
        file->st = st;
    }
    return true;
}

/* Changes 'file''s name to 'file_name' (NULL to forget); returns true if
 * it changed, and then forces a reload. */
static bool
file_set_name(struct ssl_config_file *file, const char *file_name)
{
    if (nullable_string_is_equal(file->file_name, file_name)) {
        return false;
    }
    free(file->file_name);
    file->file_name = file_name ? xstrdup(file_name) : NULL;
    file->tried = file->loaded = false;
    return true;
}

static void
load_private_key(void)
{
    ERR_clear_error();
    private_key.loaded = SSL_CTX_use_PrivateKey_file(
        ctx, private_key.file_name, SSL_FILETYPE_PEM) == 1;
    if (!private_key.loaded) {
        struct ds s = DS_EMPTY_INITIALIZER;
        VLOG_ERR("SSL_use_PrivateKey_file: %s: %s", private_key.file_name,
                 format_ssl_errors(&s, "unknown error"));
        ds_destroy(&s);
    }
}

/* OpenSSL decodes a certificate's extensions (key identifiers, usages)
 * the first time a handshake needs them and caches them in the shared
 * X509, with a check of the cache outside its lock.  Two handshakes on
 * I/O threads (lib/handshake-pool.c) that met a fresh CA certificate
 * together would race on that cache (ThreadSanitizer saw it; OpenSSL issue
 * 25202), so every certificate every handshake shares is decoded here,
 * under 'ctx_lock' held for writing, before any handshake can see it. */
static void
fill_extension_cache(X509 *cert)
{
    if (cert) {
        X509_check_purpose(cert, -1, 0);
    }
}

static void
load_certificate(void)
{
    ERR_clear_error();
    certificate.loaded = SSL_CTX_use_certificate_chain_file(
        ctx, certificate.file_name) == 1;
    if (certificate.loaded) {
        fill_extension_cache(SSL_CTX_get0_certificate(ctx));
    } else {
        struct ds s = DS_EMPTY_INITIALIZER;
        VLOG_ERR("SSL_use_certificate_file: %s: %s", certificate.file_name,
                 format_ssl_errors(&s, "unknown error"));
        ds_destroy(&s);
    }
}

/* Loads the CA file into a fresh store, so a replaced CA file also drops
 * the certificates the old one held. */
static void
load_ca_cert(void)
{
    if (!strcmp(ca_cert.file_name, "none")) {
        ca_cert.loaded = true;
        return;
    }
    if (!ca_cert.st_valid) {
        if (bootstrap_ca_cert) {
            ca_cert.loaded = false;
            return;             /* Learned from the first peer. */
        }
        VLOG_ERR("could not open %s: %s", ca_cert.file_name,
                 ovs_strerror(ca_cert.stat_error));
        ca_cert.loaded = false;
        return;
    }

    ERR_clear_error();
    X509_STORE *store = X509_STORE_new();
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca_cert.file_name);
    if (!store || !names
        || X509_STORE_load_locations(store, ca_cert.file_name, NULL) != 1) {
        struct ds s = DS_EMPTY_INITIALIZER;
        VLOG_ERR("%s: failed to load CA certificate: %s", ca_cert.file_name,
                 format_ssl_errors(&s, "no certificate found"));
        ds_destroy(&s);
        X509_STORE_free(store);
        sk_X509_NAME_pop_free(names, X509_NAME_free);
        ca_cert.loaded = false;
        return;
    }
    STACK_OF(X509_OBJECT) *objects = X509_STORE_get0_objects(store);
    for (int i = 0; i < sk_X509_OBJECT_num(objects); i++) {
        fill_extension_cache(
            X509_OBJECT_get0_X509(sk_X509_OBJECT_value(objects, i)));
    }
    SSL_CTX_set_cert_store(ctx, store);     /* Frees the old store. */
    SSL_CTX_set_client_CA_list(ctx, names); /* Takes 'names'. */
    ca_cert.loaded = true;
    if (bootstrap_ca_cert) {
        bootstrap_ca_cert = false;
        update_verify_mode();
    }
}

static void
load_peer_ca_cert(void)
{
    FILE *file = fopen(peer_ca_cert.file_name, "r");
    if (!file) {
        VLOG_ERR("could not open %s: %s", peer_ca_cert.file_name,
                 ovs_strerror(errno));
        peer_ca_cert.loaded = false;
        return;
    }
    SSL_CTX_clear_extra_chain_certs(ctx);
    int n = 0;
    X509 *cert;
    while ((cert = PEM_read_X509(file, NULL, NULL, NULL)) != NULL) {
        SSL_CTX_add_extra_chain_cert(ctx, cert);    /* Takes 'cert'. */
        n++;
    }
    ERR_clear_error();
    fclose(file);
    if (!n) {
        VLOG_ERR("%s: no certificates found", peer_ca_cert.file_name);
    }
    peer_ca_cert.loaded = n > 0;
}

/* Reloads whatever changed on disk.  Cheap: a few stat() calls. */
static void
refresh_config(void)
{
    if (!ctx && !private_key.file_name && !certificate.file_name
        && !ca_cert.file_name && !peer_ca_cert.file_name) {
        return; /* Nothing to load: leave OpenSSL unloaded. */
    }
    if (ssl_init()) {
        return;
    }
    bool key = file_needs_load(&private_key);
    bool cert = file_needs_load(&certificate);
    bool ca = ca_cert.file_name && file_needs_load(&ca_cert);
    bool peer = peer_ca_cert.file_name && file_needs_load(&peer_ca_cert);
    if (!key && !cert && !ca && !peer) {
        return;
    }
    pthread_rwlock_wrlock(&ctx_lock);
    if (key || cert) {
        /* OpenSSL refuses a key that does not match the loaded
         * certificate, but a certificate replaces a mismatched key, so
         * load both, certificate first. */
        if (certificate.file_name) {
            load_certificate();
        }
        if (private_key.file_name) {
            load_private_key();
        }
    }
    if (ca) {
        load_ca_cert();
    }
    if (peer) {
        load_peer_ca_cert();
    }
    pthread_rwlock_unlock(&ctx_lock);
}

/* Returns 0 if TLS is usable now, else logs why and returns ENOPROTOOPT. */
static int
check_config(void)
{
    if (ssl_init()) {
        return ENOPROTOOPT;
    }
    /* In a storm the server accepts up to 50 streams a pass of its loop,
     * and three stat() calls per stream were 1-3% of the main thread's time:
     * look at the disk at most once a millisecond (the reference looks
     * once a pass). */
    static long long last_refresh = LLONG_MIN;
    long long now = time_msec();
    if (now != last_refresh) {
        last_refresh = now;
        refresh_config();
    }
    if (!private_key.file_name) {
        VLOG_ERR_RL(&rl, "Private key must be configured to use SSL");
        return ENOPROTOOPT;
    }
    if (!certificate.file_name) {
        VLOG_ERR_RL(&rl, "Certificate must be configured to use SSL");
        return ENOPROTOOPT;
    }
    if (!ca_cert.file_name) {
        VLOG_ERR_RL(&rl, "CA certificate must be configured to use SSL");
        return ENOPROTOOPT;
    }
    if (!private_key.loaded || !certificate.loaded
        || (!ca_cert.loaded && !bootstrap_ca_cert)) {
        VLOG_ERR_RL(&rl, "SSL key, certificate or CA could not be loaded");
        return ENOPROTOOPT;
    }
    ERR_clear_error();
    if (SSL_CTX_check_private_key(ctx) != 1) {
        struct ds s = DS_EMPTY_INITIALIZER;
        VLOG_ERR_RL(&rl, "Private key does not match certificate public key: "
                    "%s", format_ssl_errors(&s, "mismatch"));
        ds_destroy(&s);
        return ENOPROTOOPT;
    }
    return 0;
}

/* Configuration setters. */

void
stream_ssl_set_private_key_file(const char *file_name)
{
    stream_ssl_set_key_and_cert(file_name, certificate.file_name);
}

void
stream_ssl_set_certificate_file(const char *file_name)
{
    stream_ssl_set_key_and_cert(private_key.file_name, file_name);
}

void
stream_ssl_set_key_and_cert(const char *private_key_file,
                            const char *certificate_file)
{
    /* Copy first: the arguments may be our own current names. */
    char *key = private_key_file ? xstrdup(private_key_file) : NULL;
    char *cert = certificate_file ? xstrdup(certificate_file) : NULL;
    if (file_set_name(&private_key, key) | file_set_name(&certificate, cert)) {
        /* Whichever changed, reload both together. */
        private_key.tried = certificate.tried = false;
    }
    free(key);
    free(cert);
    refresh_config();
}

void
stream_ssl_set_ca_cert_file(const char *file_name, bool bootstrap)
{
    bool was_none = ca_cert.file_name && !strcmp(ca_cert.file_name, "none");
    if (file_set_name(&ca_cert, file_name) || bootstrap != bootstrap_ca_cert) {
        bool none = file_name && !strcmp(file_name, "none");
        if (none && !was_none) {
            VLOG_WARN("Peer certificate validation disabled "
                      "(this is a security risk)");
        }
        pthread_rwlock_wrlock(&ctx_lock);
        verify_peer_cert = !none;
        bootstrap_ca_cert = bootstrap && !none && file_name
                            && access(file_name, F_OK);
        ca_cert.tried = ca_cert.loaded = false;
        if (ctx) {
            update_verify_mode();
        }
        pthread_rwlock_unlock(&ctx_lock);
    }
    refresh_config();
}

void
stream_ssl_set_peer_ca_cert_file(const char *file_name)
{
    if (file_set_name(&peer_ca_cert, file_name) && !file_name && ctx) {
        pthread_rwlock_wrlock(&ctx_lock);
        SSL_CTX_clear_extra_chain_certs(ctx);
        pthread_rwlock_unlock(&ctx_lock);
    }
    refresh_config();
}

/* The protocols and ciphers last set (NULL: the defaults), applied when
 * the context exists: at once, or by ssl_init().  Setting one explicitly
 * creates the context, so that a bad value is reported when it is set. */
static char *protocols_wanted;
static char *ciphers_wanted;

static void
set_wanted(char **wanted, const char *value)
{
    if (!nullable_string_is_equal(*wanted, value)) {
        free(*wanted);
        *wanted = value ? xstrdup(value) : NULL;
    }
}

void
stream_ssl_set_protocols(const char *protocols)
{
    set_wanted(&protocols_wanted, protocols);
    if (protocols ? !ssl_init() : ctx != NULL) {
        apply_protocols();
    }
}

void
stream_ssl_set_ciphers(const char *ciphers)
{
    set_wanted(&ciphers_wanted, ciphers);
    if (ciphers ? !ssl_init() : ctx != NULL) {
        apply_ciphers();
    }
}

static void
apply_protocols(void)
{
    static const struct {
        const char *name;
        long no_flag;
    } protos[] = {
        {"TLSv1", SSL_OP_NO_TLSv1},
        {"TLSv1.1", SSL_OP_NO_TLSv1_1},
        {"TLSv1.2", SSL_OP_NO_TLSv1_2},
        {"TLSv1.3", SSL_OP_NO_TLSv1_3},
    };
    const long all = (SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 | SSL_OP_NO_TLSv1_2
                      | SSL_OP_NO_TLSv1_3);

    const char *protocols = protocols_wanted ? protocols_wanted
                                             : DEFAULT_PROTOCOLS;
    static char *current;       /* Last value applied. */
    if (nullable_string_is_equal(current, protocols)) {
        return;
    }
    free(current);
    current = xstrdup(protocols);
    char *copy = xstrdup(protocols);
    long no_flags = all;
    char *save = NULL;
    for (char *word = strtok_r(copy, " ,\t", &save); word;
         word = strtok_r(NULL, " ,\t", &save)) {
        size_t i;
        for (i = 0; i < ARRAY_SIZE(protos); i++) {
            if (!strcmp(word, protos[i].name)) {
                no_flags &= ~protos[i].no_flag;
                break;
            }
        }
        if (i >= ARRAY_SIZE(protos)) {
            VLOG_ERR("%s: SSL protocol not recognized", word);
        }
    }
    free(copy);
    if (no_flags == all) {
        VLOG_ERR("at least one valid SSL protocol must be enabled");
        return;
    }
    pthread_rwlock_wrlock(&ctx_lock);
    SSL_CTX_clear_options(ctx, all);
    SSL_CTX_set_options(ctx, no_flags);
    pthread_rwlock_unlock(&ctx_lock);
}

static void
apply_ciphers(void)
{
    const char *ciphers = ciphers_wanted ? ciphers_wanted : DEFAULT_CIPHERS;
    static char *current;       /* Last value applied. */
    if (nullable_string_is_equal(current, ciphers)) {
        return;
    }
    free(current);
    current = xstrdup(ciphers);
    ERR_clear_error();
    pthread_rwlock_wrlock(&ctx_lock);
    int ok = SSL_CTX_set_cipher_list(ctx, ciphers);
    pthread_rwlock_unlock(&ctx_lock);
    if (ok != 1) {
        struct ds s = DS_EMPTY_INITIALIZER;
        VLOG_ERR("SSL_CTX_set_cipher_list: %s",
                 format_ssl_errors(&s, "no cipher matches"));
        ds_destroy(&s);
    }
}

bool
stream_ssl_is_configured(void)
{
    return private_key.file_name && certificate.file_name
           && ca_cert.file_name;
}

void
stream_ssl_handle_option(int option, const char *arg)
{
    enum { STREAM_SSL_OPTION_ENUMS };
    switch (option) {
    case 'p':
        stream_ssl_set_private_key_file(arg);
        break;
    case 'c':
        stream_ssl_set_certificate_file(arg);
        break;
    case 'C':
    case OPT_BOOTSTRAP_CA_CERT:
        if (option == 'C') {
            ca_cert_option_seen = true;
        } else {
            bootstrap_option_seen = true;
        }
        if (ca_cert_option_seen && bootstrap_option_seen) {
            ovs_fatal(0, "--ca-cert and --bootstrap-ca-cert are mutually "
                      "exclusive");
        }
        stream_ssl_set_ca_cert_file(arg, option == OPT_BOOTSTRAP_CA_CERT);
        break;
    case OPT_PEER_CA_CERT:
        stream_ssl_set_peer_ca_cert_file(arg);
        break;
    case OPT_SSL_PROTOCOLS:
        stream_ssl_set_protocols(arg);
        break;
    case OPT_SSL_CIPHERS:
        stream_ssl_set_ciphers(arg);
        break;
    default:
        ovs_fatal(0, "stream_ssl_handle_option: unknown option %d", option);
    }
}

void
stream_ssl_usage(void)
{
    printf("\n"
           "PKI configuration (required to use SSL):\n"
           "  -p, --private-key=FILE  file with private key\n"
           "  -c, --certificate=FILE  file with certificate for private key\n"
           "  -C, --ca-cert=FILE      file with peer CA certificate\n"
           "  --bootstrap-ca-cert=FILE  file with peer CA certificate to "
           "read or create\n"
           "  --peer-ca-cert=FILE     file with extra certificates to send "
           "to peers\n"
           "SSL options:\n"
           "  --ssl-protocols=PROTOS  list of SSL protocols to enable\n"
           "  --ssl-ciphers=CIPHERS   list of SSL ciphers to enable\n");
}

/* Streams. */

/* Gives 's' its SSL, if it has none yet.  A server stream gets it with its
 * first handshake step, which may run on a handshake thread (under
 * 'ctx_lock'), so that a storm of accepts costs the main thread less:
 * SSL_new() was a twentieth of its time in one. */
static int
make_ssl(struct ssl_stream *s)
{
    if (s->ssl) {
        return 0;
    }
    ERR_clear_error();
    SSL *ssl = SSL_new(ctx);
    if (!ssl || SSL_set_fd(ssl, s->fd) != 1) {
        log_ssl_errors(VLL_ERR, "SSL_new");
        SSL_free(ssl);
        return ENOPROTOOPT;
    }
    if (s->type == CLIENT) {
        SSL_set_connect_state(ssl);
    } else {
        SSL_set_accept_state(ssl);
    }
    s->ssl = ssl;
    return 0;
}

static int
new_ssl_stream(char *name, int fd, enum session_type type,
               enum ssl_state state, struct stream **streamp)
{
    struct ssl_stream *s = NULL;
    int error = check_config();
    if (error) {
        goto error;
    }

    s = xzalloc(sizeof *s);
    s->state = state;
    s->type = type;
    s->fd = fd;
    error = type == CLIENT ? make_ssl(s) : 0;
    if (error) {
        goto error;
    }
    stream_init(&s->stream, &ssl_data_stream_class, EAGAIN, name);
    *streamp = &s->stream;
    return 0;

error:
    close(fd);
    free(name);
    free(s);
    *streamp = NULL;
    return error;
}

static int
ssl_verify(const char *suffix)
{
    struct sockaddr_storage ss;
    return inet_parse_active(suffix, -1, &ss);
}

static int
ssl_open(const char *name, char *suffix, struct stream **streamp)
{
    int error = check_config();
    if (error) {
        return error;
    }
    struct sockaddr_storage ss;
    int fd;
    error = inet_open_active(SOCK_STREAM, suffix, -1, &ss, &fd);
    if (error) {
        return error;
    }
    error = new_ssl_stream(xstrdup(name), fd, CLIENT, STATE_TCP_CONNECTING,
                           streamp);
    if (!error) {
        stream_set_peer_name(*streamp, ss_format_ip_port(&ss));
    }
    return error;
}

/* See stream_ssl_set_closer().  Main thread. */
static void (*closer)(struct stream *, void *aux);
static void *closer_aux;

void
stream_ssl_set_closer(void (*closer_)(struct stream *, void *aux), void *aux)
{
    closer = closer_;
    closer_aux = aux;
}

static void
ssl_close(struct stream *stream)
{
    struct ssl_stream *s = ssl_stream_cast(stream);
    poll_fd_forget(s->fd);
    if (closer) {
        closer(stream, closer_aux);
    } else {
        stream_ssl_finish_close(stream);
    }
}

void
stream_ssl_finish_close(struct stream *stream)
{
    struct ssl_stream *s = ssl_stream_cast(stream);
    /* Best effort close_notify: never blocks (the fd is non-blocking). */
    if (s->ssl && SSL_is_init_finished(s->ssl)) {
        SSL_shutdown(s->ssl);
    }
    ERR_clear_error();
    SSL_free(s->ssl);
    close(s->fd);
    free(s->txbuf);
    free(s);
}

static enum ssl_want
want_from_error(int ssl_error)
{
    return (ssl_error == SSL_ERROR_WANT_READ ? WANT_READ
            : ssl_error == SSL_ERROR_WANT_WRITE ? WANT_WRITE
            : WANT_NOTHING);
}

/* Logs and returns EPROTO for a failed SSL_*() call that returned 'ret'
 * with SSL_get_error() 'ssl_error'. */
static int
interpret_ssl_error(struct ssl_stream *s, const char *function, int ret,
                    int ssl_error)
{
    const char *name = stream_get_name(&s->stream);
    struct ds d = DS_EMPTY_INITIALIZER;

    if (ssl_error == SSL_ERROR_SYSCALL && !ERR_peek_error()) {
        int error = ret < 0 ? errno : EPROTO;
        if (ret == 0 || error == 0) {
            VLOG_WARN_RL(&rl, "%s: %s: unexpected SSL connection close",
                         name, function);
            error = EPROTO;
        } else {
            VLOG_WARN_RL(&rl, "%s: %s: system error (%s)", name, function,
                         ovs_strerror(error));
        }
        return error;
    }
    VLOG_WARN_RL(&rl, "%s: %s: %s", name, function,
                 format_ssl_errors(&d, "protocol error"));
    ds_destroy(&d);
    return EPROTO;
}

/* On a server stream, before the handshake, looks at the first byte the
 * client sent: a TLS client starts with a handshake record (0x16).
 * Returns 0 (looks like TLS), EAGAIN, or EPROTO (logged). */
static int
check_first_byte(struct ssl_stream *s)
{
    unsigned char byte;
    ssize_t n;
    do {
        n = recv(s->fd, &byte, 1, MSG_PEEK);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            s->rx_want = WANT_READ;
            return EAGAIN;
        }
        return errno;
    }
    if (n == 0) {
        VLOG_DBG_RL(&rl, "%s: closed before the SSL handshake",
                    stream_get_name(&s->stream));
        return EPROTO;
    }
    s->first_byte_checked = true;
    if (byte == '{' || byte == '[') {
        VLOG_WARN_RL(&rl, "%s: received JSON-RPC data on SSL channel",
                     stream_get_name(&s->stream));
        return EPROTO;
    } else if (byte != 0x16) {
        VLOG_WARN_RL(&rl, "%s: received non-SSL data (first byte 0x%02x) "
                     "on SSL channel", stream_get_name(&s->stream), byte);
        return EPROTO;
    }
    return 0;
}

/* Saves the CA certificate at the top of the peer's chain to the
 * bootstrap CA file and trusts it.  Returns EPROTO in every case: on
 * success so that the caller reconnects, now verifying the peer. */
static int
do_ca_cert_bootstrap(struct ssl_stream *s)
{
    const char *name = stream_get_name(&s->stream);
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(s->ssl);
    if (!chain || !sk_X509_num(chain)) {
        VLOG_ERR("%s: could not bootstrap CA cert: no certificate chain "
                 "received from peer", name);
        return EPROTO;
    }
    X509 *ca = sk_X509_value(chain, sk_X509_num(chain) - 1);
    if (X509_check_issued(ca, ca) != X509_V_OK) {
        VLOG_ERR("%s: could not bootstrap CA cert: the last certificate the "
                 "peer sent is not self-signed; use --peer-ca-cert on the "
                 "peer", name);
        return EPROTO;
    }

    int fd = open(ca_cert.file_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                  0444);
    if (fd < 0) {
        if (errno == EEXIST) {
            VLOG_INFO("%s: reading CA cert %s created by another process",
                      name, ca_cert.file_name);
            ca_cert.tried = false;
            refresh_config();
            return EPROTO;
        }
        VLOG_ERR("%s: could not bootstrap CA cert: creating %s failed: %s",
                 name, ca_cert.file_name, ovs_strerror(errno));
        return EPROTO;
    }
    FILE *file = fdopen(fd, "w");
    bool ok = file && PEM_write_X509(file, ca) == 1;
    ok = file && !fclose(file) && ok;
    if (!file) {
        close(fd);
    }
    if (!ok) {
        VLOG_ERR("%s: could not bootstrap CA cert: writing %s failed",
                 name, ca_cert.file_name);
        unlink(ca_cert.file_name);
        return EPROTO;
    }

    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    struct ds fp = DS_EMPTY_INITIALIZER;
    X509_digest(ca, EVP_sha1(), md, &md_len);
    for (unsigned int i = 0; i < md_len; i++) {
        ds_put_format(&fp, "%s%02x", i ? ":" : "", md[i]);
    }
    VLOG_INFO("%s: trusting CA cert from peer (fingerprint %s), saved to %s",
              name, ds_cstr(&fp), ca_cert.file_name);
    ds_destroy(&fp);

    file_needs_load(&ca_cert);
    pthread_rwlock_wrlock(&ctx_lock);
    load_ca_cert();             /* Ends bootstrap mode on success. */
    pthread_rwlock_unlock(&ctx_lock);
    return EPROTO;
}

bool
stream_ssl_may_handshake_elsewhere(const struct stream *stream)
{
    return (stream_is_ssl(stream) && ssl_stream_cast(stream)->type == SERVER
            && !bootstrap_ca_cert);
}

int
stream_ssl_handshake_step(struct stream *stream, int *fdp, short *eventsp)
{
    struct ssl_stream *s = ssl_stream_cast(stream);
    *fdp = s->fd;
    *eventsp = POLLIN;
    if (s->handshake_error) {
        return s->handshake_error;
    }

    pthread_rwlock_rdlock(&ctx_lock);
    int error = s->first_byte_checked ? 0 : check_first_byte(s);
    if (!error) {
        error = make_ssl(s);
    }
    if (!error) {
        ERR_clear_error();
        int ret = SSL_accept(s->ssl);
        if (ret == 1) {
            s->rx_want = WANT_NOTHING;
        } else {
            int ssl_error = SSL_get_error(s->ssl, ret);
            s->rx_want = want_from_error(ssl_error);
            error = (s->rx_want != WANT_NOTHING
                         ? EAGAIN
                         : interpret_ssl_error(s, "SSL_accept", ret,
                                               ssl_error));
        }
    }
    pthread_rwlock_unlock(&ctx_lock);

    if (error == EAGAIN) {
        *eventsp = s->rx_want == WANT_WRITE ? POLLOUT : POLLIN;
    } else if (error) {
        s->handshake_error = error; /* ssl_connect() reports it. */
    }
    return error;
}

static int
ssl_connect(struct stream *stream)
{
    struct ssl_stream *s = ssl_stream_cast(stream);
    if (s->handshake_error) {
        return s->handshake_error; /* Logged by the step that failed. */
    }

    if (s->state == STATE_TCP_CONNECTING) {
        int error = check_connection_completion(s->fd);
        if (error) {
            return error;
        }
        s->state = STATE_SSL_CONNECTING;
    }

    if (s->type == SERVER && !s->first_byte_checked) {
        int error = check_first_byte(s);
        if (error) {
            return error;
        }
    }

    int error = make_ssl(s);
    if (error) {
        return error;
    }
    ERR_clear_error();
    int ret = s->type == CLIENT ? SSL_connect(s->ssl) : SSL_accept(s->ssl);
    if (ret != 1) {
        int ssl_error = SSL_get_error(s->ssl, ret);
        s->rx_want = want_from_error(ssl_error);
        if (s->rx_want != WANT_NOTHING) {
            return EAGAIN;
        }
        return interpret_ssl_error(s, s->type == CLIENT ? "SSL_connect"
                                                        : "SSL_accept",
                                   ret, ssl_error);
    }
    s->rx_want = WANT_NOTHING;

    if (bootstrap_ca_cert && verify_peer_cert) {
        return do_ca_cert_bootstrap(s);
    }
    if (verify_peer_cert && SSL_get_verify_result(s->ssl) != X509_V_OK) {
        VLOG_WARN_RL(&rl, "%s: peer certificate verification failed: %s",
                     stream_get_name(stream),
                     X509_verify_cert_error_string(
                         SSL_get_verify_result(s->ssl)));
        return EPROTO;
    }
    if (VLOG_IS_DBG_ENABLED()) {
        char *id = stream_ssl_get_peer_id(stream);
        VLOG_DBG("%s: %s connected, peer \"%s\"", stream_get_name(stream),
                 SSL_get_version(s->ssl), id ? id : "");
        free(id);
    }
    return 0;
}

static ssize_t
ssl_recv(struct stream *stream, void *buffer, size_t n)
{
    struct ssl_stream *s = ssl_stream_cast(stream);
    int len = n > INT_MAX ? INT_MAX : n;

    /* A server tries every idle client on every pass of its loop: when
     * OpenSSL last ran out of input and poll() has seen none since, it
     * would only fail again, after a system call and the error queue's
     * locks.  OpenSSL reads records without read-ahead, so nothing unread
     * can sit in it while it wants input. */
    if (s->rx_starved && !poll_fd_may_be_ready(s->fd, POLLIN)) {
        return -EAGAIN;
    }
    ERR_clear_error();
    int ret = SSL_read(s->ssl, buffer, len);
    if (ret > 0) {
        s->rx_starved = false;
        return ret;
    }
    int ssl_error = SSL_get_error(s->ssl, ret);
    switch (ssl_error) {
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        s->rx_want = want_from_error(ssl_error);
        s->rx_starved = ssl_error == SSL_ERROR_WANT_READ;
        return -EAGAIN;
    default:
        return -interpret_ssl_error(s, "SSL_read", ret, ssl_error);
    }
}

/* One SSL_write() of 'n' (> 0) bytes at 'buffer': returns the number
 * written, -EAGAIN (with 's->tx_want' set) or a negative errno. */
static int
ssl_write(struct ssl_stream *s, const void *buffer, size_t n)
{
    ERR_clear_error();
    int ret = SSL_write(s->ssl, buffer, n);
    if (ret > 0) {
        return ret;
    }
    int ssl_error = SSL_get_error(s->ssl, ret);
    s->tx_want = want_from_error(ssl_error);
    return (s->tx_want != WANT_NOTHING
                ? -EAGAIN
                : -interpret_ssl_error(s, "SSL_write", ret, ssl_error));
}

/* Sends what is in the tx buffer.  Returns 0 (all sent), EAGAIN or an
 * errno. */
static int
ssl_do_tx(struct ssl_stream *s)
{
    while (s->tx_len) {
        int retval = ssl_write(s, s->txbuf + s->tx_ofs, s->tx_len);
        if (retval == -EAGAIN) {
            return EAGAIN;
        } else if (retval < 0) {
            s->tx_len = 0;
            return -retval;
        }
        s->tx_ofs += retval;
        s->tx_len -= retval;
    }
    s->tx_want = WANT_NOTHING;
    return 0;
}

static ssize_t
ssl_send(struct stream *stream, const void *buffer, size_t n)
{
    struct ssl_stream *s = ssl_stream_cast(stream);

    if (s->tx_len) {
        int error = ssl_do_tx(s);
        if (error) {
            return -error;
        }
    }
    if (!n) {
        return 0;
    }

    /* From the caller's buffer first: most writes go out at once, and then
     * nothing is copied.  At most TX_BUF_SIZE bytes (one record), so that
     * what a blocked write leaves pending fits the private buffer (OpenSSL
     * may encrypt several records at once from a longer buffer). */
    n = MIN(n, TX_BUF_SIZE);
    int retval = ssl_write(s, buffer, n);
    if (retval != -EAGAIN) {
        return retval;
    }

    /* OpenSSL holds a record of these bytes that the socket did not take,
     * and the retry must offer the same bytes: they are kept here and
     * count as sent. */
    if (!s->txbuf) {
        s->txbuf = xmalloc(TX_BUF_SIZE);
    }
    memcpy(s->txbuf, buffer, n);
    s->tx_ofs = 0;
    s->tx_len = n;
    return n;
}

static void
ssl_run(struct stream *stream)
{
    struct ssl_stream *s = ssl_stream_cast(stream);
    if (s->tx_len) {
        int error OVS_UNUSED = ssl_do_tx(s);
    }
}

static void
wait_for(const struct ssl_stream *s, enum ssl_want want)
{
    if (want == WANT_NOTHING) {
        poll_immediate_wake();
    } else {
        poll_fd_wait(s->fd, want == WANT_READ ? POLLIN : POLLOUT);
    }
}

static void
ssl_run_wait(struct stream *stream)
{
    struct ssl_stream *s = ssl_stream_cast(stream);
    if (s->tx_len) {
        wait_for(s, s->tx_want);
    }
}

static void
ssl_wait(struct stream *stream, int wait)
{
    struct ssl_stream *s = ssl_stream_cast(stream);

    switch (wait) {
    case STREAM_CONNECT:
        if (s->state == STATE_TCP_CONNECTING) {
            poll_fd_wait(s->fd, POLLOUT);
        } else {
            wait_for(s, s->rx_want);
        }
        break;
    case STREAM_RECV:
        /* Starved, OpenSSL holds nothing decrypted (see ssl_recv()). */
        if (!s->rx_starved && SSL_pending(s->ssl)) {
            poll_immediate_wake();  /* Already decrypted. */
        } else {
            wait_for(s, s->rx_want);
        }
        break;
    case STREAM_SEND:
        if (!s->tx_len) {
            poll_immediate_wake();
        } else {
            wait_for(s, s->tx_want);
        }
        break;
    }
}

char *
stream_ssl_get_peer_id(const struct stream *stream)
{
    if (!stream_is_ssl(stream)) {
        return NULL;
    }
    struct ssl_stream *s = ssl_stream_cast(stream);
    if (!s->ssl || !SSL_is_init_finished(s->ssl)) {
        return NULL;
    }
    X509 *peer = SSL_get1_peer_certificate(s->ssl);
    if (!peer) {
        return NULL;
    }
    char *id = NULL;
    X509_NAME *subject = X509_get_subject_name(peer);
    int i = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
    if (i >= 0) {
        ASN1_STRING *data = X509_NAME_ENTRY_get_data(
            X509_NAME_get_entry(subject, i));
        unsigned char *utf8;
        int len = ASN1_STRING_to_UTF8(&utf8, data);
        if (len >= 0) {
            id = xmemdup0((const char *) utf8, len);
            OPENSSL_free(utf8);
        }
    }
    X509_free(peer);
    return id;
}

/* The class of connected (or connecting) TLS streams.  "open" is NULL:
 * ssl_stream_class below opens. */
static const struct stream_class ssl_data_stream_class = {
    .name = "ssl",
    .needs_probes = true,
    .verify = ssl_verify,
    .open = NULL,
    .close = ssl_close,
    .connect = ssl_connect,
    .recv = ssl_recv,
    .send = ssl_send,
    .run = ssl_run,
    .run_wait = ssl_run_wait,
    .wait = ssl_wait,
};

const struct stream_class ssl_stream_class = {
    .name = "ssl",
    .needs_probes = true,
    .verify = ssl_verify,
    .open = ssl_open,
};

/* Listeners: an fd pstream whose accepted sockets become TLS streams. */

static int
pssl_verify(const char *suffix)
{
    struct sockaddr_storage ss;
    return inet_parse_passive(suffix, -1, &ss);
}

static int
pssl_accept(int fd, const struct sockaddr_storage *ss,
            socklen_t ss_len OVS_UNUSED, struct stream **streamp)
{
    /* As for tcp: a reply and the updates that follow it are separate
     * small records, and with Nagle's algorithm the second waited for the
     * client's delayed acknowledgement of the first (Update 1 over ssl:
     * 2.3 times the reference's wall time). */
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);

    char *peer = ss_format_ip_port(ss);
    int error = new_ssl_stream(xasprintf("ssl:%s", peer), fd, SERVER,
                               STATE_SSL_CONNECTING, streamp);
    if (error) {
        free(peer);
        return error;
    }
    stream_set_peer_name(*streamp, peer);
    return 0;
}

static int
pssl_listen(const char *name, char *suffix, struct pstream **pstreamp)
{
    int error = check_config();
    if (error) {
        return error;
    }
    struct sockaddr_storage ss;
    int fd;
    error = inet_open_passive(SOCK_STREAM, suffix, -1, &ss, &fd);
    if (error) {
        return error;
    }
    new_fd_pstream(xstrdup(name), fd, pssl_accept, NULL, pstreamp);
    (*pstreamp)->bound_port = ss_get_port(&ss);
    return 0;
}

const struct pstream_class pssl_pstream_class = {
    .name = "pssl",
    .needs_probes = true,
    .verify = pssl_verify,
    .listen = pssl_listen,
};
