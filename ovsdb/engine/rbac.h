/* ovsdb/engine/rbac.h: role-based access control (ovsdb-server(7) "RBAC").
 *
 * RBAC applies to a transaction when the database has a table named
 * "RBAC_Role" and the connection the request came on has a role (the
 * "role" column of the Connection row that configured the remote, see
 * ovsdb/server/remotes.h).  The client's ID is the common name of its TLS
 * certificate (stream_ssl_get_peer_id()), NULL for other streams.
 *
 * RBAC_Role has one row per role: "name" and "permissions", a map from a
 * table name to a row of the permission table (RBAC_Permission) with:
 *   table          the table name (informational);
 *   authorization  column names, or "column:key" for a string map column:
 *                  a row is the client's if one of them equals its ID;
 *                  "" authorizes every row;
 *   insert_delete  whether the client may insert and delete its rows;
 *   update         the columns it may update and mutate in its rows.
 *
 * A request that would insert, delete, update or mutate a row it may not
 * fails with a "permission error" spelled as the reference spells it:
 *   RBAC rules for client "ID" role "ROLE" prohibit row insertion into
 *   table "T".   (deletion from / modification of / mutate operation on)
 * A client without an ID ("(null)") may change nothing; tables absent from
 * its role's permissions cannot be changed at all.  Reads are never
 * restricted.
 *
 * The engine's executor calls ovsdb_rbac_authorize() (its authorization
 * hook) once per delete, update and mutate operation with no row, which
 * checks the ID and that the role has permissions for the table, then once
 * per row it reaches, as the reference does: an update or delete whose
 * "where" matches no row is allowed if the first check passed. */
#ifndef OVSDB_RBAC_H
#define OVSDB_RBAC_H 1

#include <stdbool.h>
#include "lib/util.h"

struct ovsdb;
struct ovsdb_column_set;
struct ovsdb_error;
struct ovsdb_row;
struct ovsdb_table;

enum ovsdb_rbac_op {
    OVSDB_RBAC_INSERT,
    OVSDB_RBAC_DELETE,
    OVSDB_RBAC_UPDATE,
    OVSDB_RBAC_MUTATE
};

/* Returns true if RBAC restricts a client with 'role' on 'db': 'db' has an
 * RBAC_Role table and 'role' is nonnull and nonempty. */
bool ovsdb_rbac_enabled(const struct ovsdb *db, const char *role);

/* Checks that the client with 'role' and 'id' ('id' may be NULL) may apply
 * 'op' to 'row' of 'table':
 *   OVSDB_RBAC_INSERT: 'row' is the row to be inserted;
 *   OVSDB_RBAC_DELETE: 'row' is the row to be deleted;
 *   OVSDB_RBAC_UPDATE, OVSDB_RBAC_MUTATE: 'row' is the row before the
 *   change and 'columns' the columns the operation writes;
 *   'row' NULL (not for insert): the operation before any row is read.
 * Returns NULL if allowed, else a "permission error" (caller must free). */
struct ovsdb_error *ovsdb_rbac_check(const struct ovsdb_table *table,
                                     enum ovsdb_rbac_op op,
                                     const struct ovsdb_row *row,
                                     const struct ovsdb_column_set *columns,
                                     const char *role, const char *id)
    WARN_UNUSED_RESULT;

/* The client identity for ovsdb_rbac_authorize(): both strings borrowed
 * (valid while the request runs). */
struct ovsdb_rbac_client {
    const char *role;           /* NULL or "": no restriction. */
    const char *id;             /* NULL if the client has none. */
};

/* ovsdb_rbac_check() in the shape of the executor's authorization hook
 * (ovsdb/engine/execution.h): 'aux' is a 'const struct ovsdb_rbac_client *'.
 */
struct ovsdb_error *ovsdb_rbac_authorize(
    const struct ovsdb_table *table, enum ovsdb_rbac_op op,
    const struct ovsdb_row *row, const struct ovsdb_column_set *columns,
    void *aux) WARN_UNUSED_RESULT;

#endif /* ovsdb/engine/rbac.h */
