/* ovsdb/engine/row-read.c: see row-read.h. */
#include <config.h>
#include "ovsdb/engine/row-read.h"

#include <string.h>
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"

const struct ovsdb_datum *
ovsdb_row_read_datum(const struct ovsdb_row *row, const char *name,
                     enum ovsdb_atomic_type key_type,
                     enum ovsdb_atomic_type value_type, unsigned int n_max)
{
    const struct ovsdb_column *column
        = ovsdb_table_schema_find_column(row->table->schema, name);
    if (!column || column->type.key.type != key_type
        || column->type.value.type != value_type
        || column->type.n_max != n_max) {
        return NULL;
    }
    return ovsdb_row_get_datum(row, column);
}

bool
ovsdb_row_read_string(const struct ovsdb_row *row, const char *name,
                      const char **valuep)
{
    const struct ovsdb_datum *d = ovsdb_row_read_datum(
        row, name, OVSDB_TYPE_STRING, OVSDB_TYPE_VOID, 1);
    if (!d || !d->n) {
        return false;
    }
    *valuep = ovsdb_atom_string(&d->keys[0]);
    return true;
}

bool
ovsdb_row_read_integer(const struct ovsdb_row *row, const char *name,
                       long long *valuep)
{
    const struct ovsdb_datum *d = ovsdb_row_read_datum(
        row, name, OVSDB_TYPE_INTEGER, OVSDB_TYPE_VOID, 1);
    if (!d || !d->n) {
        return false;
    }
    *valuep = d->keys[0].integer;
    return true;
}

bool
ovsdb_row_read_bool(const struct ovsdb_row *row, const char *name,
                    bool *valuep)
{
    const struct ovsdb_datum *d = ovsdb_row_read_datum(
        row, name, OVSDB_TYPE_BOOLEAN, OVSDB_TYPE_VOID, 1);
    if (!d || !d->n) {
        return false;
    }
    *valuep = d->keys[0].boolean;
    return true;
}

const char *
ovsdb_row_read_map_string(const struct ovsdb_row *row, const char *name,
                          const char *key)
{
    const struct ovsdb_datum *d = ovsdb_row_read_datum(
        row, name, OVSDB_TYPE_STRING, OVSDB_TYPE_STRING, OVSDB_UNLIMITED);
    for (unsigned int i = 0; d && i < d->n; i++) {
        if (!strcmp(ovsdb_atom_string(&d->keys[i]), key)) {
            return ovsdb_atom_string(&ovsdb_datum_values(d)[i]);
        }
    }
    return NULL;
}

bool
ovsdb_row_read_set_contains(const struct ovsdb_row *row, const char *name,
                            const char *value)
{
    const struct ovsdb_column *column
        = ovsdb_table_schema_find_column(row->table->schema, name);
    if (!column || column->type.key.type != OVSDB_TYPE_STRING
        || column->type.value.type != OVSDB_TYPE_VOID) {
        return false;
    }
    const struct ovsdb_datum *d = ovsdb_row_get_datum(row, column);
    for (unsigned int i = 0; i < d->n; i++) {
        if (!strcmp(ovsdb_atom_string(&d->keys[i]), value)) {
            return true;
        }
    }
    return false;
}
