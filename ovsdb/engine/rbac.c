/* ovsdb/engine/rbac.c: see rbac.h.
 *
 * Nothing is cached: each check looks the role up in RBAC_Role (a scan,
 * the table has one row per role) and follows its permissions map, so
 * changes to the RBAC tables apply to the very next operation. */
#include <config.h>
#include "ovsdb/engine/rbac.h"

#include <string.h>
#include "lib/allocator.h"
#include "lib/vlog.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row-read.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"

VLOG_DEFINE_THIS_MODULE(rbac);

#define RBAC_ROLE_TABLE "RBAC_Role"

bool
ovsdb_rbac_enabled(const struct ovsdb *db, const char *role)
{
    return role && role[0] && ovsdb_get_table(db, RBAC_ROLE_TABLE);
}

/* Returns the row of RBAC_Role named 'role', or NULL. */
static const struct ovsdb_row *
find_role(const struct ovsdb *db, const char *role)
{
    const struct ovsdb_table *roles = ovsdb_get_table(db, RBAC_ROLE_TABLE);
    const struct ovsdb_row *row;
    OVSDB_TABLE_FOR_EACH_ROW (row, roles) {
        const char *name;
        if (ovsdb_row_read_string(row, "name", &name)
            && !strcmp(name, role)) {
            return row;
        }
    }
    return NULL;
}

/* Returns the permission row that 'role' has for table 'table_name', or
 * NULL. */
static const struct ovsdb_row *
find_permissions(const struct ovsdb *db, const char *role,
                 const char *table_name)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
    const struct ovsdb_row *role_row = find_role(db, role);
    if (!role_row) {
        VLOG_INFO_RL(&rl, "rbac: role \"%s\" not found in %s", role,
                     RBAC_ROLE_TABLE);
        return NULL;
    }
    const struct ovsdb_column *column = ovsdb_table_schema_find_column(
        role_row->table->schema, "permissions");
    if (!column || column->type.key.type != OVSDB_TYPE_STRING
        || column->type.value.type != OVSDB_TYPE_UUID
        || !column->type.value.uuid.ref_table_name) {
        VLOG_INFO_RL(&rl, "rbac: %s has no usable \"permissions\" column",
                     RBAC_ROLE_TABLE);
        return NULL;
    }
    const struct ovsdb_table *perm_table = ovsdb_get_table(
        db, column->type.value.uuid.ref_table_name);
    const struct ovsdb_datum *d = ovsdb_row_get_datum(role_row, column);
    for (unsigned int i = 0; perm_table && i < d->n; i++) {
        if (!strcmp(ovsdb_atom_string(&d->keys[i]), table_name)) {
            return ovsdb_table_find_row(perm_table,
                                        &ovsdb_datum_values(d)[i].uuid);
        }
    }
    return NULL;
}

/* Returns true if one of the columns listed in 'perms''s "authorization"
 * holds 'id' in 'row'. */
static bool
is_authorized(const struct ovsdb_row *perms, const char *id,
              const struct ovsdb_row *row)
{
    const struct ovsdb_datum *auth = ovsdb_row_read_datum(
        perms, "authorization", OVSDB_TYPE_STRING, OVSDB_TYPE_VOID,
        OVSDB_UNLIMITED);
    for (unsigned int i = 0; auth && i < auth->n; i++) {
        const char *name = ovsdb_atom_string(&auth->keys[i]);
        if (!name[0]) {
            return true;        /* "" authorizes every row. */
        }

        const char *value = NULL;
        const char *colon = strchr(name, ':');
        if (colon) {
            char *column = xmemdup0(name, colon - name);
            value = ovsdb_row_read_map_string(row, column, colon + 1);
            free(column);
        } else {
            ovsdb_row_read_string(row, name, &value);
        }
        if (value && !strcmp(value, id)) {
            return true;
        }
    }
    return false;
}

/* Returns true if every column in 'columns' is in 'perms''s "update". */
static bool
columns_updatable(const struct ovsdb_row *perms,
                  const struct ovsdb_column_set *columns)
{
    for (size_t i = 0; i < columns->n_columns; i++) {
        if (!ovsdb_row_read_set_contains(perms, "update",
                                         columns->columns[i]->name)) {
            return false;
        }
    }
    return true;
}

static bool
is_allowed(const struct ovsdb_table *table, enum ovsdb_rbac_op op,
           const struct ovsdb_row *row,
           const struct ovsdb_column_set *columns, const char *role,
           const char *id)
{
    if (!id) {
        return false;
    }
    const struct ovsdb_row *perms = find_permissions(table->db, role,
                                                     table->schema->name);
    if (!perms) {
        return false;
    } else if (!row) {
        return true;            /* The operation as a whole. */
    } else if (!is_authorized(perms, id, row)) {
        return false;
    }
    bool insert_delete;
    switch (op) {
    case OVSDB_RBAC_INSERT:
    case OVSDB_RBAC_DELETE:
        return (ovsdb_row_read_bool(perms, "insert_delete", &insert_delete)
                && insert_delete);
    case OVSDB_RBAC_UPDATE:
    case OVSDB_RBAC_MUTATE:
        return columns && columns_updatable(perms, columns);
    }
    return false;
}

struct ovsdb_error *
ovsdb_rbac_check(const struct ovsdb_table *table, enum ovsdb_rbac_op op,
                 const struct ovsdb_row *row,
                 const struct ovsdb_column_set *columns, const char *role,
                 const char *id)
{
    if (!ovsdb_rbac_enabled(table->db, role)
        || is_allowed(table, op, row, columns, role, id)) {
        return NULL;
    }

    static const char *const what[] = {
        [OVSDB_RBAC_INSERT] = "row insertion into",
        [OVSDB_RBAC_DELETE] = "row deletion from",
        [OVSDB_RBAC_UPDATE] = "modification of",
        [OVSDB_RBAC_MUTATE] = "mutate operation on",
    };
    return ovsdb_error(OVSDB_E_PERMISSION, "RBAC rules for client \"%s\" "
                       "role \"%s\" prohibit %s table \"%s\".",
                       id ? id : "(null)", role, what[op],
                       table->schema->name);
}

struct ovsdb_error *
ovsdb_rbac_authorize(const struct ovsdb_table *table, enum ovsdb_rbac_op op,
                     const struct ovsdb_row *row,
                     const struct ovsdb_column_set *columns, void *aux)
{
    const struct ovsdb_rbac_client *client = aux;
    return ovsdb_rbac_check(table, op, row, columns, client->role,
                            client->id);
}
