/* ovsdb/server/remotes.h: the remotes a server serves, with their options,
 * from the command line and from the database ("db:DB,TABLE,COLUMN").
 *
 * ovsdb-server(1) takes "--remote=db:DB,TABLE,COLUMN": the connection
 * methods are read from COLUMN of every row of TABLE in database DB, and
 * follow the database as it changes.  If COLUMN is a string or a set of
 * strings, each string is a target with default options.  If it is a UUID
 * or set of UUIDs referring to another table (as Open_vSwitch's
 * "manager_options" and OVN's "connections"), each referenced row gives a
 * target and its options from the columns "target", "max_backoff",
 * "inactivity_probe", "read_only", "role" and other_config:dscp, when
 * present with the right type.  Other column types give nothing.
 *
 * The PKI options ("--private-key=db:...", also --certificate, --ca-cert,
 * --bootstrap-ca-cert, --ssl-protocols, --ssl-ciphers) take the first
 * nonempty string of a string column instead.
 *
 * The server calls ovsdb_remotes_collect() (and, if it serves TLS,
 * ovsdb_ssl_config_apply()) once per main loop iteration, or after each
 * commit, and reconciles its listeners and connections with the result:
 *
 *     struct ovsdb_remotes now;
 *     ovsdb_remotes_init(&now);
 *     ovsdb_remotes_collect(&now, specs, n_specs, find_db, srv, &errors);
 *     if (!ovsdb_remotes_equal(&now, &srv->remotes)) { ...reconcile... }
 *
 * Lookups go through a callback so that this module does not depend on
 * how the server stores its databases. */
#ifndef OVSDB_REMOTES_H
#define OVSDB_REMOTES_H 1

#include <stdbool.h>
#include <stddef.h>
#include "lib/hmap.h"
#include "lib/util.h"

struct ds;
struct ovsdb;
struct ovsdb_column;
struct ovsdb_error;
struct ovsdb_table;

/* Defaults, as the reference's. */
#define OVSDB_REMOTE_DEFAULT_MAX_BACKOFF 8000     /* msec. */
#define OVSDB_REMOTE_DEFAULT_PROBE_INTERVAL 5000  /* msec. */
#define OVSDB_REMOTE_DEFAULT_DSCP 48

struct ovsdb_remote_options {
    struct hmap_node hmap_node; /* In 'struct ovsdb_remotes', by target. */
    char *target;               /* "pssl:6640", "tcp:1.2.3.4:6640"... */
    int max_backoff;            /* msec. */
    int probe_interval;         /* msec; 0 disables probes. */
    bool read_only;             /* Only read-only transactions allowed. */
    char *role;                 /* RBAC role (ovsdb/engine/rbac.h), or NULL. */
    int dscp;                   /* 0...63. */
};

/* A set of remotes, one per distinct target. */
struct ovsdb_remotes {
    struct hmap map;
};

void ovsdb_remotes_init(struct ovsdb_remotes *);
void ovsdb_remotes_destroy(struct ovsdb_remotes *);
void ovsdb_remotes_clear(struct ovsdb_remotes *);
void ovsdb_remotes_swap(struct ovsdb_remotes *, struct ovsdb_remotes *);

/* Returns the options of 'target', adding it with default options if it
 * is not yet there.  Borrowed (valid until the set is cleared). */
struct ovsdb_remote_options *ovsdb_remotes_add(struct ovsdb_remotes *,
                                               const char *target);
/* Returns the options of 'target', or NULL; borrowed. */
const struct ovsdb_remote_options *ovsdb_remotes_find(
    const struct ovsdb_remotes *, const char *target);
size_t ovsdb_remotes_count(const struct ovsdb_remotes *);

/* True if both sets have the same targets with the same options. */
bool ovsdb_remotes_equal(const struct ovsdb_remotes *,
                         const struct ovsdb_remotes *);
bool ovsdb_remote_options_equal(const struct ovsdb_remote_options *,
                                const struct ovsdb_remote_options *);

/* Returns an array of the set's options sorted by target; caller must free
 * the array (not the options, borrowed as above) with free(). */
const struct ovsdb_remote_options **ovsdb_remotes_sort(
    const struct ovsdb_remotes *);

/* Returns the database named 'name', or NULL. */
typedef struct ovsdb *ovsdb_remotes_find_db_cb(const char *name, void *aux);

/* Returns true if 'spec' is of the form "db:..." */
bool ovsdb_remotes_is_db_spec(const char *spec);

/* Resolves "db:DB,TABLE,COLUMN".  On success stores borrowed pointers in
 * the nonnull ones of '*dbp', '*tablep', '*columnp'.  Errors, with the
 * reference's wording in the details ("\"db:x,y\": invalid syntax", "...:
 * no database named x", "...: no table named y", "...: table \"y\" has no
 * column \"z\""), are "syntax error"s the caller must free.  A database
 * without tables (a clustered one that has not joined yet) is no error:
 * '*tablep' and '*columnp' are then NULL. */
struct ovsdb_error *ovsdb_remotes_parse_db_column(
    const char *spec, ovsdb_remotes_find_db_cb *find_db, void *aux,
    struct ovsdb **dbp, const struct ovsdb_table **tablep,
    const struct ovsdb_column **columnp) WARN_UNUSED_RESULT;

/* Adds to 'remotes' what 'spec' names: for "db:DB,TABLE,COLUMN" the remotes
 * currently in the database (see the top of this file), otherwise 'spec'
 * itself with default options. */
struct ovsdb_error *ovsdb_remotes_add_spec(struct ovsdb_remotes *remotes,
                                           const char *spec,
                                           ovsdb_remotes_find_db_cb *find_db,
                                           void *aux) WARN_UNUSED_RESULT;

/* Clears 'remotes' and adds every one of the 'n' 'specs'.  Errors do not
 * stop it: each is appended to 'errors' (if nonnull) as one line. */
void ovsdb_remotes_collect(struct ovsdb_remotes *remotes,
                           const char *const *specs, size_t n,
                           ovsdb_remotes_find_db_cb *find_db, void *aux,
                           struct ds *errors);

/* Resolves a PKI option value: 'spec' itself unless it is "db:DB,TABLE,
 * COLUMN", whose column must be a string or set of strings; then the first
 * nonempty string in any row, or NULL if there is none.  '*valuep' gets a
 * copy (caller must free with free()) or NULL. */
struct ovsdb_error *ovsdb_remotes_query_string(
    const char *spec, ovsdb_remotes_find_db_cb *find_db, void *aux,
    char **valuep) WARN_UNUSED_RESULT;

/* The TLS options of ovsdb-server, any of which may be "db:...".  The
 * server stores the command-line values here and applies them every main
 * loop iteration (lib/stream-ssl reloads only what changed). */
struct ovsdb_ssl_config {
    char *private_key;
    char *certificate;
    char *ca_cert;
    bool bootstrap_ca_cert;
    char *peer_ca_cert;         /* Never "db:" (as the reference). */
    char *ssl_protocols;
    char *ssl_ciphers;
};

/* Records option 'option' (a lib/stream-ssl.h option: 'p', 'c', 'C',
 * OPT_BOOTSTRAP_CA_CERT, OPT_PEER_CA_CERT, OPT_SSL_PROTOCOLS,
 * OPT_SSL_CIPHERS) with argument 'arg' in 'config'. */
void ovsdb_ssl_config_set_option(struct ovsdb_ssl_config *config,
                                 int option, const char *arg);
void ovsdb_ssl_config_destroy(struct ovsdb_ssl_config *config);

/* Resolves every value of 'config' and hands the results to
 * lib/stream-ssl.  Resolution errors are appended to 'errors' (if nonnull),
 * one per line. */
void ovsdb_ssl_config_apply(const struct ovsdb_ssl_config *config,
                            ovsdb_remotes_find_db_cb *find_db, void *aux,
                            struct ds *errors);

/* Use in ovsdb-server's getopt switch in place of
 * STREAM_SSL_OPTION_HANDLERS: 'CONFIG' is a 'struct ovsdb_ssl_config *',
 * 'OPTION' the switch variable. */
#define OVSDB_SSL_CONFIG_OPTION_HANDLERS(CONFIG, OPTION)                     \
    case 'p':                                                                \
    case 'c':                                                                \
    case 'C':                                                                \
    case OPT_BOOTSTRAP_CA_CERT:                                              \
    case OPT_PEER_CA_CERT:                                                   \
    case OPT_SSL_PROTOCOLS:                                                  \
    case OPT_SSL_CIPHERS:                                                    \
        ovsdb_ssl_config_set_option(CONFIG, OPTION, optarg);                 \
        break;

#endif /* ovsdb/server/remotes.h */
