/* ovsdb/engine/row-read.h: reading a row's columns by name, with a type check.
 *
 * For modules that interpret configuration stored in a database (remotes
 * from the database, RBAC permissions): they know a column only by name
 * and must tolerate a schema where it is missing or has another type.
 * Each reader returns "nothing" in those cases, as the reference does.
 *
 * Returned strings and datums are borrowed from the row: valid as long as
 * the row (until the next commit or abort on its database). */
#ifndef OVSDB_ROW_READ_H
#define OVSDB_ROW_READ_H 1

#include <stdbool.h>
#include "ovsdb/engine/type.h"

struct ovsdb_datum;
struct ovsdb_row;

/* Returns 'row''s datum for column 'name' if the column exists with key
 * type 'key_type', value type 'value_type' (OVSDB_TYPE_VOID for a set or
 * scalar) and maximum size 'n_max' (1 for a scalar or optional value,
 * OVSDB_UNLIMITED for a set or map), otherwise NULL. */
const struct ovsdb_datum *ovsdb_row_read_datum(
    const struct ovsdb_row *row, const char *name,
    enum ovsdb_atomic_type key_type, enum ovsdb_atomic_type value_type,
    unsigned int n_max);

/* Scalar or optional columns: return true and the value if the column has
 * the type and a value. */
bool ovsdb_row_read_string(const struct ovsdb_row *row, const char *name,
                           const char **valuep);
bool ovsdb_row_read_integer(const struct ovsdb_row *row, const char *name,
                            long long *valuep);
bool ovsdb_row_read_bool(const struct ovsdb_row *row, const char *name,
                         bool *valuep);

/* Returns the value of 'key' in string-to-string map column 'name', or
 * NULL. */
const char *ovsdb_row_read_map_string(const struct ovsdb_row *row,
                                      const char *name, const char *key);

/* Returns true if string or set-of-strings column 'name' contains
 * 'value'. */
bool ovsdb_row_read_set_contains(const struct ovsdb_row *row,
                                 const char *name, const char *value);

#endif /* ovsdb/engine/row-read.h */
