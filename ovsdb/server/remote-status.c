/* ovsdb/server/remote-status.c: the status columns of "db:" remotes.  See
 * remote-status.h. */
#include <config.h>

#include "ovsdb/server/remote-status.h"

#include <limits.h>
#include <string.h>
#include "lib/json-util.h"
#include "lib/util.h"
#include "lib/vlog.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/server/remotes.h"

VLOG_DEFINE_THIS_MODULE(remote_status);

/* Sets 'row''s column 'name' to 'value' (taken) in 'txn', if the table
 * has such a column of a type 'value' fits and the value differs.
 * '*rwp' is the writable version of 'row' in 'txn', or NULL if there is
 * none yet (a committed row is made writable once per transaction). */
static void
write_column(struct ovsdb_txn *txn, const struct ovsdb_row *row,
             struct ovsdb_row **rwp, const char *name, json_t *value)
{
    const struct ovsdb_column
        *c = ovsdb_table_schema_find_column(row->table->schema, name);
    if (c) {
        json_t *old = ovsdb_datum_to_json(ovsdb_row_get_datum(row, c),
                                          &c->type);
        struct ovsdb_datum datum;
        if (!json_equal(old, value)) {
            struct ovsdb_error *error = ovsdb_datum_from_json(&datum, &c->type,
                                                              value, NULL);
            if (!error) {
                if (!*rwp) {
                    *rwp = ovsdb_txn_row_modify(txn, row);
                }
                ovsdb_datum_move(ovsdb_row_datum_rw(*rwp, c->index), &datum,
                                 &c->type);
                ovsdb_datum_destroy(&datum, &c->type);
            }
            ovsdb_error_destroy(error); /* Not the reference's type. */
        }
        json_decref(old);
    }
    json_decref(value);
}

static void
put_status(json_t *pairs, const char *key, json_t *value)
{
    json_array_append_new(pairs, json_pack("[s o]", key, value));
}

/* Updates the status columns of 'row', a referenced row, if it has a
 * "target" the server has a remote for. */
static void
update_row(struct ovsdb_txn *txn, const struct ovsdb_row *row,
           ovsdb_remote_status_cb *get_status, void *aux)
{
    const struct ovsdb_column
        *tc = ovsdb_table_schema_find_column(row->table->schema, "target");
    if (!tc || tc->type.key.type != OVSDB_TYPE_STRING
        || tc->type.value.type != OVSDB_TYPE_VOID) {
        return;
    }
    const struct ovsdb_datum *target = ovsdb_row_get_datum(row, tc);
    if (target->n != 1) {
        return;
    }
    struct ovsdb_remote_status st = { .sec_since_connect = UINT_MAX,
                                      .sec_since_disconnect = UINT_MAX };
    get_status(ovsdb_atom_string(&target->keys[0]), &st, aux);

    /* The keys the reference writes, in its order, those it knows. */
    json_t *pairs = json_array();
    if (st.state) {
        put_status(pairs, "state", json_string(st.state));
    }
    if (st.sec_since_connect != UINT_MAX) {
        put_status(pairs, "sec_since_connect",
                   json_sprintf("%u", st.sec_since_connect));
    }
    if (st.sec_since_disconnect != UINT_MAX) {
        put_status(pairs, "sec_since_disconnect",
                   json_sprintf("%u", st.sec_since_disconnect));
    }
    if (st.last_error) {
        put_status(pairs, "last_error",
                   json_string(st.last_error == EOF
                                   ? "End of file"
                                   : ovs_strerror(st.last_error)));
    }
    if (st.n_connections > 1) {
        put_status(pairs, "n_connections",
                   json_sprintf("%d", st.n_connections));
    }
    if (st.bound_port) {
        put_status(pairs, "bound_port", json_sprintf("%d", st.bound_port));
    }
    struct ovsdb_row *rw = NULL;
    write_column(txn, row, &rw, "is_connected", json_boolean(st.is_connected));
    write_column(txn, row, &rw, "status", json_pack("[s o]", "map", pairs));
}

/* ovsdb_remotes_find_db_cb for 'dbs'. */
static struct ovsdb *
find_db(const char *name, void *dbs)
{
    struct ovsdb_served_db *sdb = ovsdb_databases_find(dbs, name);
    return sdb ? ovsdb_served_db_get_ovsdb(sdb) : NULL;
}

/* Whether 'sdb' is served from a standalone file. */
static bool
is_standalone(const struct ovsdb_served_db *sdb)
{
    return (!ovsdb_served_db_get_raft(sdb) && !ovsdb_served_db_get_relay(sdb)
            && strcmp(ovsdb_served_db_get_name(sdb), "_Server"));
}

void
ovsdb_remote_status_update(struct ovsdb_databases *dbs, char **specs,
                           size_t n_specs, ovsdb_remote_status_cb *get_status,
                           void *aux)
{
    for (size_t i = 0; i < ovsdb_databases_count(dbs); i++) {
        struct ovsdb_served_db *sdb = ovsdb_databases_at(dbs, i);
        if (!is_standalone(sdb)) {
            continue;
        }
        struct ovsdb *db = ovsdb_served_db_get_ovsdb(sdb);
        struct ovsdb_txn *txn = NULL;
        for (size_t j = 0; j < n_specs; j++) {
            struct ovsdb *spec_db;
            const struct ovsdb_table *table;
            const struct ovsdb_column *column;
            if (!ovsdb_remotes_is_db_spec(specs[j])) {
                continue;
            }
            struct ovsdb_error *error = ovsdb_remotes_parse_db_column(specs[j],
                                                                      find_db,
                                                                      dbs,
                                                                      &spec_db,
                                                                      &table,
                                                                      &column);
            if (error) {
                ovsdb_error_destroy(error);
                continue;
            }
            if (spec_db != db || !column
                || column->type.key.type != OVSDB_TYPE_UUID
                || !column->type.key.uuid.ref_table
                || column->type.value.type != OVSDB_TYPE_VOID) {
                continue;
            }
            const struct ovsdb_table *ref_table =
                ovsdb_get_table(db, column->type.key.uuid.ref_table->name);
            if (!ref_table) {
                continue;
            }
            if (!txn) {
                txn = ovsdb_txn_create(db);
            }
            const struct ovsdb_row *row;
            OVSDB_TABLE_FOR_EACH_ROW (row, table) {
                const struct ovsdb_datum *d = ovsdb_row_get_datum(row, column);
                for (size_t k = 0; k < d->n; k++) {
                    const struct ovsdb_row *ref =
                        ovsdb_table_find_row(ref_table, &d->keys[k].uuid);
                    if (ref) {
                        update_row(txn, ref, get_status, aux);
                    }
                }
            }
        }
        if (!txn) {
            continue;
        }
        if (ovsdb_txn_is_empty(txn)) {
            ovsdb_txn_abort(txn);
            continue;
        }
        struct ovsdb_error *error = ovsdb_txn_precommit(txn);
        if (!error) {
            error = ovsdb_served_db_commit_txn(sdb, txn);
        } else {
            ovsdb_txn_abort(txn);
        }
        if (error) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 1);
            char *s = ovsdb_error_to_string_free(error);
            VLOG_ERR_RL(&rl, "Failed to update remote status: %s", s);
            free(s);
        }
    }
}
