/* ovsdb/server/remotes.c: see remotes.h. */
#include <config.h>
#include "ovsdb/server/remotes.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/stream-ssl.h"
#include "lib/util.h"
#include "lib/vlog.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row-read.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"

VLOG_DEFINE_THIS_MODULE(remotes);

void
ovsdb_remotes_init(struct ovsdb_remotes *remotes)
{
    hmap_init(&remotes->map);
}

void
ovsdb_remotes_clear(struct ovsdb_remotes *remotes)
{
    struct ovsdb_remote_options *o, *next;
    HMAP_FOR_EACH_SAFE (o, next, hmap_node, &remotes->map) {
        hmap_remove(&remotes->map, &o->hmap_node);
        free(o->target);
        free(o->role);
        free(o);
    }
}

void
ovsdb_remotes_destroy(struct ovsdb_remotes *remotes)
{
    if (remotes) {
        ovsdb_remotes_clear(remotes);
        hmap_destroy(&remotes->map);
    }
}

void
ovsdb_remotes_swap(struct ovsdb_remotes *a, struct ovsdb_remotes *b)
{
    hmap_swap(&a->map, &b->map);
}

static struct ovsdb_remote_options *
find(const struct ovsdb_remotes *remotes, const char *target)
{
    struct ovsdb_remote_options *o;
    HMAP_FOR_EACH_WITH_HASH (o, hmap_node, hash_string(target, 0),
                             &remotes->map) {
        if (!strcmp(o->target, target)) {
            return o;
        }
    }
    return NULL;
}

struct ovsdb_remote_options *
ovsdb_remotes_add(struct ovsdb_remotes *remotes, const char *target)
{
    struct ovsdb_remote_options *o = find(remotes, target);
    if (!o) {
        o = xzalloc(sizeof *o);
        o->target = xstrdup(target);
        o->max_backoff = OVSDB_REMOTE_DEFAULT_MAX_BACKOFF;
        o->probe_interval = OVSDB_REMOTE_DEFAULT_PROBE_INTERVAL;
        o->dscp = OVSDB_REMOTE_DEFAULT_DSCP;
        hmap_insert(&remotes->map, &o->hmap_node, hash_string(target, 0));
    }
    return o;
}

const struct ovsdb_remote_options *
ovsdb_remotes_find(const struct ovsdb_remotes *remotes, const char *target)
{
    return find(remotes, target);
}

size_t
ovsdb_remotes_count(const struct ovsdb_remotes *remotes)
{
    return hmap_count(&remotes->map);
}

bool
ovsdb_remote_options_equal(const struct ovsdb_remote_options *a,
                           const struct ovsdb_remote_options *b)
{
    return (!strcmp(a->target, b->target)
            && a->max_backoff == b->max_backoff
            && a->probe_interval == b->probe_interval
            && a->read_only == b->read_only
            && nullable_string_is_equal(a->role, b->role)
            && a->dscp == b->dscp);
}

bool
ovsdb_remotes_equal(const struct ovsdb_remotes *a,
                    const struct ovsdb_remotes *b)
{
    if (hmap_count(&a->map) != hmap_count(&b->map)) {
        return false;
    }
    const struct ovsdb_remote_options *o;
    HMAP_FOR_EACH (o, hmap_node, &a->map) {
        const struct ovsdb_remote_options *other = find(b, o->target);
        if (!other || !ovsdb_remote_options_equal(o, other)) {
            return false;
        }
    }
    return true;
}

static int
compare_targets(const void *a_, const void *b_)
{
    const struct ovsdb_remote_options *const *a = a_;
    const struct ovsdb_remote_options *const *b = b_;
    return strcmp((*a)->target, (*b)->target);
}

const struct ovsdb_remote_options **
ovsdb_remotes_sort(const struct ovsdb_remotes *remotes)
{
    size_t n = hmap_count(&remotes->map);
    const struct ovsdb_remote_options **array
        = xcalloc(n + 1, sizeof *array);
    size_t i = 0;
    const struct ovsdb_remote_options *o;
    HMAP_FOR_EACH (o, hmap_node, &remotes->map) {
        array[i++] = o;
    }
    qsort(array, n, sizeof *array, compare_targets);
    return array;
}

bool
ovsdb_remotes_is_db_spec(const char *spec)
{
    return !strncmp(spec, "db:", 3);
}

struct ovsdb_error *
ovsdb_remotes_parse_db_column(const char *spec,
                              ovsdb_remotes_find_db_cb *find_db, void *aux,
                              struct ovsdb **dbp,
                              const struct ovsdb_table **tablep,
                              const struct ovsdb_column **columnp)
{
    struct ovsdb_error *error = NULL;
    char *copy = xstrdup(spec);
    char *save = NULL;
    char *prefix = strtok_r(copy, ":", &save);
    char *db_name = strtok_r(NULL, ",", &save);
    char *table_name = strtok_r(NULL, ",", &save);
    char *column_name = strtok_r(NULL, ",", &save);

    if (!prefix || strcmp(prefix, "db") || !db_name || !table_name
        || !column_name || strtok_r(NULL, ",", &save)) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "\"%s\": invalid syntax", spec);
        goto out;
    }
    struct ovsdb *db = find_db ? find_db(db_name, aux) : NULL;
    if (!db) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "\"%s\": no database named %s",
                            spec, db_name);
        goto out;
    }
    const struct ovsdb_table *table = ovsdb_get_table(db, table_name);
    if (!table && !ovsdb_n_tables(db)) {
        /* A clustered database that has not joined its cluster yet: there
         * is nothing to read from it, which, as in the reference, is not
         * an error.  The caller finds no table. */
        if (dbp) {
            *dbp = db;
        }
        if (tablep) {
            *tablep = NULL;
        }
        if (columnp) {
            *columnp = NULL;
        }
        goto out;
    } else if (!table) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "\"%s\": no table named %s",
                            spec, table_name);
        goto out;
    }
    const struct ovsdb_column *column
        = ovsdb_table_schema_find_column(table->schema, column_name);
    if (!column) {
        error = ovsdb_error(OVSDB_E_SYNTAX,
                            "\"%s\": table \"%s\" has no column \"%s\"",
                            spec, table_name, column_name);
        goto out;
    }
    if (dbp) {
        *dbp = db;
    }
    if (tablep) {
        *tablep = table;
    }
    if (columnp) {
        *columnp = column;
    }

out:
    free(copy);
    return error;
}

/* Adds the remote configured by 'row', a row of a Manager- or
 * Connection-like table. */
static void
add_remote_from_row(struct ovsdb_remotes *remotes,
                    const struct ovsdb_row *row)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 1);
    const char *target;
    if (!ovsdb_row_read_string(row, "target", &target) || !target[0]) {
        VLOG_INFO_RL(&rl, "Table `%s' has missing or invalid `target' column",
                     row->table->schema->name);
        return;
    }

    struct ovsdb_remote_options *o = ovsdb_remotes_add(remotes, target);
    long long value;
    if (ovsdb_row_read_integer(row, "max_backoff", &value)) {
        o->max_backoff = MIN(MAX(value, 0), INT_MAX);
    }
    if (ovsdb_row_read_integer(row, "inactivity_probe", &value)) {
        o->probe_interval = MIN(MAX(value, 0), INT_MAX);
    }
    bool read_only;
    if (ovsdb_row_read_bool(row, "read_only", &read_only)) {
        o->read_only = read_only;
    }
    const char *role;
    free(o->role);
    o->role = NULL;
    if (ovsdb_row_read_string(row, "role", &role) && role[0]) {
        o->role = xstrdup(role);
    }
    o->dscp = OVSDB_REMOTE_DEFAULT_DSCP;
    const char *dscp = ovsdb_row_read_map_string(row, "other_config", "dscp");
    int dscp_value;
    if (dscp && str_to_int(dscp, &dscp_value) && dscp_value >= 0
        && dscp_value <= 63) {
        o->dscp = dscp_value;
    }
}

struct ovsdb_error *
ovsdb_remotes_add_spec(struct ovsdb_remotes *remotes, const char *spec,
                       ovsdb_remotes_find_db_cb *find_db, void *aux)
{
    if (!ovsdb_remotes_is_db_spec(spec)) {
        ovsdb_remotes_add(remotes, spec);
        return NULL;
    }

    struct ovsdb *db;
    const struct ovsdb_table *table;
    const struct ovsdb_column *column;
    struct ovsdb_error *error = ovsdb_remotes_parse_db_column(
        spec, find_db, aux, &db, &table, &column);
    if (error || !table) {
        return error;
    }

    const struct ovsdb_type *type = &column->type;
    const struct ovsdb_row *row;
    if (type->key.type == OVSDB_TYPE_STRING
        && type->value.type == OVSDB_TYPE_VOID) {
        OVSDB_TABLE_FOR_EACH_ROW (row, table) {
            const struct ovsdb_datum *d = ovsdb_row_get_datum(row, column);
            for (unsigned int i = 0; i < d->n; i++) {
                ovsdb_remotes_add(remotes, ovsdb_atom_string(&d->keys[i]));
            }
        }
    } else if (type->key.type == OVSDB_TYPE_UUID
               && type->key.uuid.ref_table_name
               && type->value.type == OVSDB_TYPE_VOID) {
        const struct ovsdb_table *ref_table
            = ovsdb_get_table(db, type->key.uuid.ref_table_name);
        OVSDB_TABLE_FOR_EACH_ROW (row, table) {
            const struct ovsdb_datum *d = ovsdb_row_get_datum(row, column);
            for (unsigned int i = 0; ref_table && i < d->n; i++) {
                const struct ovsdb_row *ref
                    = ovsdb_table_find_row(ref_table, &d->keys[i].uuid);
                if (ref) {
                    add_remote_from_row(remotes, ref);
                }
            }
        }
    }
    return NULL;
}

void
ovsdb_remotes_collect(struct ovsdb_remotes *remotes,
                      const char *const *specs, size_t n,
                      ovsdb_remotes_find_db_cb *find_db, void *aux,
                      struct ds *errors)
{
    ovsdb_remotes_clear(remotes);
    for (size_t i = 0; i < n; i++) {
        struct ovsdb_error *error = ovsdb_remotes_add_spec(
            remotes, specs[i], find_db, aux);
        if (error) {
            if (errors) {
                ds_put_format(errors, "%s\n",
                              ovsdb_error_get_details(error));
            }
            ovsdb_error_destroy(error);
        }
    }
}

struct ovsdb_error *
ovsdb_remotes_query_string(const char *spec,
                           ovsdb_remotes_find_db_cb *find_db, void *aux,
                           char **valuep)
{
    *valuep = NULL;
    if (!spec) {
        return NULL;
    }
    if (!ovsdb_remotes_is_db_spec(spec)) {
        *valuep = xstrdup(spec);
        return NULL;
    }

    const struct ovsdb_table *table;
    const struct ovsdb_column *column;
    struct ovsdb_error *error = ovsdb_remotes_parse_db_column(
        spec, find_db, aux, NULL, &table, &column);
    if (error || !table) {
        return error;
    }
    if (column->type.key.type != OVSDB_TYPE_STRING
        || column->type.value.type != OVSDB_TYPE_VOID) {
        return ovsdb_error(OVSDB_E_SYNTAX, "\"%s\": table \"%s\" column "
                           "\"%s\" is not a string or set of strings",
                           spec, table->schema->name, column->name);
    }
    const struct ovsdb_row *row;
    OVSDB_TABLE_FOR_EACH_ROW (row, table) {
        const struct ovsdb_datum *d = ovsdb_row_get_datum(row, column);
        for (unsigned int i = 0; i < d->n; i++) {
            if (ovsdb_atom_string(&d->keys[i])[0]) {
                *valuep = xstrdup(ovsdb_atom_string(&d->keys[i]));
                return NULL;
            }
        }
    }
    return NULL;
}

/* TLS configuration. */

static void
set_string(char **dst, const char *src)
{
    free(*dst);
    *dst = src ? xstrdup(src) : NULL;
}

void
ovsdb_ssl_config_set_option(struct ovsdb_ssl_config *config, int option,
                            const char *arg)
{
    enum { STREAM_SSL_OPTION_ENUMS };

    switch (option) {
    case 'p':
        set_string(&config->private_key, arg);
        break;
    case 'c':
        set_string(&config->certificate, arg);
        break;
    case 'C':
    case OPT_BOOTSTRAP_CA_CERT:
        if (config->ca_cert
            && config->bootstrap_ca_cert != (option != 'C')) {
            ovs_fatal(0, "--ca-cert and --bootstrap-ca-cert are mutually "
                      "exclusive");
        }
        set_string(&config->ca_cert, arg);
        config->bootstrap_ca_cert = option != 'C';
        break;
    case OPT_PEER_CA_CERT:
        set_string(&config->peer_ca_cert, arg);
        break;
    case OPT_SSL_PROTOCOLS:
        set_string(&config->ssl_protocols, arg);
        break;
    case OPT_SSL_CIPHERS:
        set_string(&config->ssl_ciphers, arg);
        break;
    default:
        ovs_fatal(0, "ovsdb_ssl_config_set_option: unknown option %d",
                  option);
    }
}

void
ovsdb_ssl_config_destroy(struct ovsdb_ssl_config *config)
{
    if (config) {
        free(config->private_key);
        free(config->certificate);
        free(config->ca_cert);
        free(config->peer_ca_cert);
        free(config->ssl_protocols);
        free(config->ssl_ciphers);
        memset(config, 0, sizeof *config);
    }
}

static char *
resolve(const char *spec, ovsdb_remotes_find_db_cb *find_db, void *aux,
        struct ds *errors)
{
    char *value;
    struct ovsdb_error *error = ovsdb_remotes_query_string(spec, find_db,
                                                           aux, &value);
    if (error) {
        if (errors) {
            ds_put_format(errors, "%s\n", ovsdb_error_get_details(error));
        }
        ovsdb_error_destroy(error);
    }
    return value;
}

void
ovsdb_ssl_config_apply(const struct ovsdb_ssl_config *config,
                       ovsdb_remotes_find_db_cb *find_db, void *aux,
                       struct ds *errors)
{
    char *key = resolve(config->private_key, find_db, aux, errors);
    char *cert = resolve(config->certificate, find_db, aux, errors);
    char *ca = resolve(config->ca_cert, find_db, aux, errors);
    char *protocols = resolve(config->ssl_protocols, find_db, aux, errors);
    char *ciphers = resolve(config->ssl_ciphers, find_db, aux, errors);

    if (config->private_key || config->certificate) {
        stream_ssl_set_key_and_cert(key, cert);
    }
    if (config->ca_cert) {
        stream_ssl_set_ca_cert_file(ca, config->bootstrap_ca_cert);
    }
    if (config->peer_ca_cert) {
        stream_ssl_set_peer_ca_cert_file(config->peer_ca_cert);
    }
    if (protocols) {
        stream_ssl_set_protocols(protocols);
    }
    if (ciphers) {
        stream_ssl_set_ciphers(ciphers);
    }
    free(key);
    free(cert);
    free(ca);
    free(protocols);
    free(ciphers);
}
