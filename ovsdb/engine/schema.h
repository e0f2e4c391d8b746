/* ovsdb/engine/schema.h: database schemas (RFC 7047 section 3.2, ovsdb(7)).
 *
 * A schema has a name, a version, an optional cksum and tables; a table
 * schema has columns, maxRows, isRoot and indexes; a column has a name, a
 * type, and the "ephemeral" and "mutable" flags.  Every table has the two
 * implicit columns "_uuid" (index OVSDB_COL_UUID) and "_version" (index
 * OVSDB_COL_VERSION); the declared columns follow from index
 * OVSDB_N_STD_COLUMNS, in alphabetical order.
 *
 * ovsdb_schema_from_json() validates everything the reference does and
 * names the offending table/column in the error; ovsdb_schema_to_json()
 * gives what the reference's "get_schema" gives.
 *
 * Schemas are immutable once parsed. */
#ifndef OVSDB_SCHEMA_H
#define OVSDB_SCHEMA_H 1

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "lib/hmap.h"
#include "lib/util.h"
#include "ovsdb/engine/type.h"

struct ovsdb_error;

enum {
    OVSDB_COL_UUID = 0,         /* "_uuid". */
    OVSDB_COL_VERSION = 1,      /* "_version". */
    OVSDB_N_STD_COLUMNS = 2
};

struct ovsdb_column {
    struct hmap_node name_node; /* In table schema's 'columns_by_name'. */
    unsigned int index;         /* Index in the table's 'columns' array. */
    char *name;
    bool is_mutable;            /* False for "mutable": false and _uuid. */
    bool is_persistent;         /* False for "ephemeral": true columns. */
    struct ovsdb_type type;
    int inline_slot;            /* Internal (row.c): index of the atom a
                                 * row stores a single key in, or -1. */
};

/* An index: a set of columns whose values are unique across rows. */
struct ovsdb_index_schema {
    const struct ovsdb_column **columns;
    size_t n_columns;
};

struct ovsdb_table_schema {
    struct hmap_node name_node; /* In schema's 'tables_by_name'. */
    unsigned int index;         /* Index in the schema's 'tables' array. */
    char *name;
    bool is_root;               /* "isRoot" (always true without isRoot
                                 * anywhere in a pre-1.0 schema...). */
    bool is_root_explicit;      /* "isRoot" was present in the JSON. */
    unsigned int max_rows;      /* UINT_MAX if unlimited. */

    struct ovsdb_column **columns;  /* Index order; [0] is _uuid. */
    size_t n_columns;
    struct hmap columns_by_name;

    struct ovsdb_index_schema *indexes;
    size_t n_indexes;

    size_t n_inline;            /* Internal: columns with an inline_slot. */
};

struct ovsdb_schema {
    char *name;
    char *version;              /* "x.y.z", or "" when absent. */
    char *cksum;                /* NULL if absent. */
    struct ovsdb_table_schema **tables;  /* Sorted by name. */
    size_t n_tables;
    struct hmap tables_by_name;
};

/* Parses and validates 'json'.  On success stores a new schema in
 * '*schemap' (caller must free with ovsdb_schema_destroy()). */
struct ovsdb_error *ovsdb_schema_from_json(const json_t *json,
                                           struct ovsdb_schema **schemap)
    WARN_UNUSED_RESULT;
/* Reads and parses the file 'path'. */
struct ovsdb_error *ovsdb_schema_from_file(const char *path,
                                           struct ovsdb_schema **schemap)
    WARN_UNUSED_RESULT;
/* New reference: the schema as the reference's "get_schema" returns it. */
json_t *ovsdb_schema_to_json(const struct ovsdb_schema *);
struct ovsdb_schema *ovsdb_schema_clone(const struct ovsdb_schema *);
void ovsdb_schema_destroy(struct ovsdb_schema *);
bool ovsdb_schema_equals(const struct ovsdb_schema *,
                         const struct ovsdb_schema *);

/* Makes every ephemeral column of 'schema' persistent, as a clustered
 * database needs (Raft keeps no ephemeral columns).  Returns NULL if there
 * was none, else the reference's warning naming 'file' (where the schema
 * came from), to be logged; caller must free with free(). */
char *ovsdb_schema_persist_ephemeral_columns(struct ovsdb_schema *,
                                             const char *file);

/* Returns the table schema named 'name', or NULL; borrowed (valid as long as
 * 'schema'). */
const struct ovsdb_table_schema *ovsdb_schema_find_table(
    const struct ovsdb_schema *schema, const char *name);

/* Returns the column named 'name' (including "_uuid" and "_version"), or
 * NULL; borrowed (valid as long as the schema). */
const struct ovsdb_column *ovsdb_table_schema_find_column(
    const struct ovsdb_table_schema *table, const char *name);

/* qsort() comparator for an array of 'const struct ovsdb_column *': by
 * name. */
int ovsdb_column_compare_by_name(const void *, const void *);

/* Version strings "x.y.z": returns true and fills '*major'... if valid. */
bool ovsdb_parse_version(const char *s, int *major, int *minor, int *patch);
bool ovsdb_is_valid_version(const char *s);

/* An ordered set of columns of one table (for "columns" members of select
 * and monitor requests, and for index definitions). */
struct ovsdb_column_set {
    const struct ovsdb_column **columns;
    size_t n_columns, allocated;
};

#define OVSDB_COLUMN_SET_INITIALIZER { NULL, 0, 0 }

void ovsdb_column_set_init(struct ovsdb_column_set *);
void ovsdb_column_set_destroy(struct ovsdb_column_set *);
void ovsdb_column_set_add(struct ovsdb_column_set *,
                          const struct ovsdb_column *);
/* Adds every column of 'table' (including _uuid and _version). */
void ovsdb_column_set_add_all(struct ovsdb_column_set *,
                              const struct ovsdb_table_schema *table);
bool ovsdb_column_set_contains(const struct ovsdb_column_set *,
                               unsigned int column_index);
/* Parses a JSON array of column names of 'table' ("unknown column" or
 * "syntax error" on failure).  A NULL 'json' gives all columns. */
struct ovsdb_error *ovsdb_column_set_from_json(
    const json_t *json, const struct ovsdb_table_schema *table,
    struct ovsdb_column_set *set) WARN_UNUSED_RESULT;

#endif /* ovsdb/engine/schema.h */
