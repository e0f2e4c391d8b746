/* ovsdb/engine/schema.c: see schema.h. */
#include <config.h>
#include "ovsdb/engine/schema.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/hash.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/parser.h"

/* Columns. */

static struct ovsdb_column *
column_create(const char *name, bool is_mutable, bool is_persistent,
              const struct ovsdb_type *type)
{
    struct ovsdb_column *column = xzalloc(sizeof *column);
    column->name = xstrdup(name);
    column->is_mutable = is_mutable;
    column->is_persistent = is_persistent;
    column->type = *type;       /* Takes ownership. */
    return column;
}

static void
column_destroy(struct ovsdb_column *column)
{
    if (column) {
        ovsdb_type_destroy(&column->type);
        free(column->name);
        free(column);
    }
}

static struct ovsdb_error *
column_from_json(const json_t *json, const char *name,
                 struct ovsdb_column **columnp)
{
    *columnp = NULL;
    struct ovsdb_parser p;
    ovsdb_parser_init(&p, json, "schema for column %s", name);
    const json_t *mutable = ovsdb_parser_member(&p, "mutable",
                                                OP_BOOLEAN | OP_OPTIONAL);
    const json_t *ephemeral = ovsdb_parser_member(&p, "ephemeral",
                                                  OP_BOOLEAN | OP_OPTIONAL);
    const json_t *type_json = ovsdb_parser_member(&p, "type",
                                                  OP_STRING | OP_OBJECT);
    struct ovsdb_error *error = ovsdb_parser_finish(&p);
    if (error) {
        return error;
    }

    struct ovsdb_type type;
    error = ovsdb_type_from_json(&type, type_json);
    if (error) {
        return error;
    }
    /* As the reference, a weak reference is always mutable: deleting the
     * rows it points to must be able to change it. */
    bool is_mutable = (!mutable || json_is_true(mutable)
                       || ovsdb_base_type_is_weak_ref(&type.key)
                       || ovsdb_base_type_is_weak_ref(&type.value));
    *columnp = column_create(name, is_mutable,
                             !ephemeral || !json_is_true(ephemeral), &type);
    return NULL;
}

static json_t *
column_to_json(const struct ovsdb_column *column)
{
    json_t *json = json_object();
    json_object_set_new(json, "type", ovsdb_type_to_json(&column->type));
    if (!column->is_persistent) {
        json_object_set_new(json, "ephemeral", json_true());
    }
    if (!column->is_mutable) {
        json_object_set_new(json, "mutable", json_false());
    }
    return json;
}

/* Table schemas. */

static void
table_add_column(struct ovsdb_table_schema *ts, struct ovsdb_column *column)
{
    column->index = ts->n_columns;
    column->inline_slot = (column->type.n_min == 1 && column->type.n_max == 1
                                   && column->type.value.type
                                          == OVSDB_TYPE_VOID
                               ? (int) ts->n_inline++
                               : -1);
    ts->columns = xrealloc(ts->columns,
                           (ts->n_columns + 1) * sizeof *ts->columns);
    ts->columns[ts->n_columns++] = column;
    hmap_insert(&ts->columns_by_name, &column->name_node,
                hash_string(column->name, 0));
}

static struct ovsdb_table_schema *
table_schema_create(const char *name)
{
    struct ovsdb_table_schema *ts = xzalloc(sizeof *ts);
    ts->name = xstrdup(name);
    ts->max_rows = UINT_MAX;
    hmap_init(&ts->columns_by_name);

    struct ovsdb_type uuid_type;
    ovsdb_type_init_scalar(&uuid_type, OVSDB_TYPE_UUID);
    table_add_column(ts, column_create("_uuid", false, true, &uuid_type));
    ovsdb_type_init_scalar(&uuid_type, OVSDB_TYPE_UUID);
    table_add_column(ts, column_create("_version", false, false,
                                       &uuid_type));
    return ts;
}

static void
table_schema_destroy(struct ovsdb_table_schema *ts)
{
    if (!ts) {
        return;
    }
    for (size_t i = 0; i < ts->n_columns; i++) {
        column_destroy(ts->columns[i]);
    }
    free(ts->columns);
    hmap_destroy(&ts->columns_by_name);
    for (size_t i = 0; i < ts->n_indexes; i++) {
        free(ts->indexes[i].columns);
    }
    free(ts->indexes);
    free(ts->name);
    free(ts);
}

int
ovsdb_column_compare_by_name(const void *a_, const void *b_)
{
    const struct ovsdb_column *const *a = a_;
    const struct ovsdb_column *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

const struct ovsdb_column *
ovsdb_table_schema_find_column(const struct ovsdb_table_schema *ts,
                               const char *name)
{
    struct ovsdb_column *column;
    HMAP_FOR_EACH_WITH_HASH (column, name_node, hash_string(name, 0),
                             &ts->columns_by_name) {
        if (!strcmp(column->name, name)) {
            return column;
        }
    }
    return NULL;
}

static struct ovsdb_error *
check_name(const char *name, const json_t *syntax)
{
    if (name[0] == '_') {
        return ovsdb_syntax_error(syntax, OVSDB_E_SYNTAX, "names beginning "
                                  "with \"_\" are reserved");
    } else if (!ovsdb_parser_is_id(name)) {
        return ovsdb_syntax_error(syntax, OVSDB_E_SYNTAX,
                                  "name must be a valid id");
    }
    return NULL;
}

static struct ovsdb_error *
parse_indexes(struct ovsdb_table_schema *ts, const json_t *table_json,
              const json_t *indexes)
{
    size_t n = json_array_size(indexes);
    ts->indexes = xzalloc((n ? n : 1) * sizeof *ts->indexes);
    for (size_t i = 0; i < n; i++) {
        const json_t *index = json_array_get(indexes, i);
        if (!json_is_array(index)) {
            return ovsdb_syntax_error(index, OVSDB_E_SYNTAX,
                                      "array of index column names "
                                      "expected");
        }
        size_t n_columns = json_array_size(index);
        if (!n_columns) {
            return ovsdb_syntax_error(table_json, OVSDB_E_SYNTAX, "index "
                                      "must have at least one column");
        }
        struct ovsdb_index_schema *is = &ts->indexes[ts->n_indexes++];
        is->columns = xmalloc(n_columns * sizeof *is->columns);
        for (size_t j = 0; j < n_columns; j++) {
            const json_t *name = json_array_get(index, j);
            const struct ovsdb_column *column = NULL;
            if (json_is_string(name)) {
                column = ovsdb_table_schema_find_column(
                    ts, json_string_value(name));
            }
            if (!column) {
                char *s = (json_is_string(name)
                           ? xstrdup(json_string_value(name))
                           : jsonx_to_string_sorted(name));
                struct ovsdb_error *error = ovsdb_syntax_error(
                    index, OVSDB_E_SYNTAX, "%s is not a valid column name",
                    s);
                free(s);
                return error;
            }
            if (!column->is_persistent) {
                return ovsdb_syntax_error(table_json, OVSDB_E_SYNTAX,
                                          "ephemeral columns (such as %s) "
                                          "may not be indexed",
                                          column->name);
            }
            is->columns[is->n_columns++] = column;
        }
    }
    return NULL;
}

static struct ovsdb_error *
table_schema_from_json(const json_t *json, const char *name,
                       struct ovsdb_table_schema **tsp)
{
    *tsp = NULL;
    struct ovsdb_parser p;
    ovsdb_parser_init(&p, json, "table schema for table %s", name);
    const json_t *columns = ovsdb_parser_member(&p, "columns", OP_OBJECT);
    const json_t *max_rows = ovsdb_parser_member(&p, "maxRows",
                                                 OP_INTEGER | OP_OPTIONAL);
    const json_t *is_root = ovsdb_parser_member(&p, "isRoot",
                                                OP_BOOLEAN | OP_OPTIONAL);
    const json_t *indexes = ovsdb_parser_member(&p, "indexes",
                                                OP_ARRAY | OP_OPTIONAL);
    struct ovsdb_error *error = ovsdb_parser_finish(&p);
    if (error) {
        return error;
    }

    if (max_rows && json_integer_value(max_rows) < 1) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "maxRows must be at least 1");
    }
    if (!json_object_size(columns)) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "table must have at least one column");
    }

    struct ovsdb_table_schema *ts = table_schema_create(name);
    if (max_rows) {
        json_int_t v = json_integer_value(max_rows);
        ts->max_rows = v >= UINT_MAX ? UINT_MAX : v;
    }
    ts->is_root = is_root && json_is_true(is_root);
    ts->is_root_explicit = is_root != NULL;

    size_t n;
    const char **names = jsonx_sorted_keys(columns, &n);
    for (size_t i = 0; i < n && !error; i++) {
        error = check_name(names[i], json);
        if (!error) {
            struct ovsdb_column *column;
            error = column_from_json(json_object_get(columns, names[i]),
                                     names[i], &column);
            if (!error) {
                table_add_column(ts, column);
            }
        }
    }
    free(names);

    if (!error && indexes) {
        error = parse_indexes(ts, json, indexes);
    }
    if (error) {
        table_schema_destroy(ts);
        return error;
    }
    *tsp = ts;
    return NULL;
}

static json_t *
table_schema_to_json(const struct ovsdb_table_schema *ts,
                     bool default_is_root)
{
    json_t *json = json_object();
    json_t *columns = json_object();
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns; i++) {
        json_object_set_new(columns, ts->columns[i]->name,
                            column_to_json(ts->columns[i]));
    }
    json_object_set_new(json, "columns", columns);
    if (ts->max_rows != UINT_MAX) {
        json_object_set_new(json, "maxRows", json_integer(ts->max_rows));
    }
    if (ts->is_root != default_is_root) {
        json_object_set_new(json, "isRoot", json_boolean(ts->is_root));
    }
    if (ts->n_indexes) {
        json_t *indexes = json_array();
        for (size_t i = 0; i < ts->n_indexes; i++) {
            json_t *index = json_array();
            for (size_t j = 0; j < ts->indexes[i].n_columns; j++) {
                json_array_append_new(
                    index, json_string(ts->indexes[i].columns[j]->name));
            }
            json_array_append_new(indexes, index);
        }
        json_object_set_new(json, "indexes", indexes);
    }
    return json;
}

/* Database schemas. */

bool
ovsdb_parse_version(const char *s, int *major, int *minor, int *patch)
{
    int a, b, c, n = 0;
    if (sscanf(s, "%d.%d.%d%n", &a, &b, &c, &n) != 3 || s[n]
        || a < 0 || b < 0 || c < 0 || !isdigit((unsigned char) s[0])) {
        return false;
    }
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char) *p) && *p != '.') {
            return false;
        }
    }
    if (major) {
        *major = a;
    }
    if (minor) {
        *minor = b;
    }
    if (patch) {
        *patch = c;
    }
    return true;
}

bool
ovsdb_is_valid_version(const char *s)
{
    return ovsdb_parse_version(s, NULL, NULL, NULL);
}

const struct ovsdb_table_schema *
ovsdb_schema_find_table(const struct ovsdb_schema *schema, const char *name)
{
    struct ovsdb_table_schema *ts;
    HMAP_FOR_EACH_WITH_HASH (ts, name_node, hash_string(name, 0),
                             &schema->tables_by_name) {
        if (!strcmp(ts->name, name)) {
            return ts;
        }
    }
    return NULL;
}

static struct ovsdb_error *
resolve_base_ref(struct ovsdb_schema *schema, struct ovsdb_base_type *base,
                 const char *column_name, const char *which)
{
    if (base->type != OVSDB_TYPE_UUID || !base->uuid.ref_table_name) {
        return NULL;
    }
    const struct ovsdb_table_schema *ref = ovsdb_schema_find_table(
        schema, base->uuid.ref_table_name);
    if (!ref) {
        return ovsdb_syntax_error(NULL, OVSDB_E_SYNTAX, "column %s %s refers "
                                  "to undefined table %s", column_name,
                                  which, base->uuid.ref_table_name);
    }
    base->uuid.ref_table = (struct ovsdb_table_schema *) ref;
    return NULL;
}

void
ovsdb_schema_destroy(struct ovsdb_schema *schema)
{
    if (!schema) {
        return;
    }
    for (size_t i = 0; i < schema->n_tables; i++) {
        table_schema_destroy(schema->tables[i]);
    }
    free(schema->tables);
    hmap_destroy(&schema->tables_by_name);
    free(schema->name);
    free(schema->version);
    free(schema->cksum);
    free(schema);
}

struct ovsdb_error *
ovsdb_schema_from_json(const json_t *json, struct ovsdb_schema **schemap)
{
    *schemap = NULL;
    struct ovsdb_parser p;
    ovsdb_parser_init(&p, json, "database schema");
    const json_t *name = ovsdb_parser_member(&p, "name", OP_ID);
    const json_t *version = ovsdb_parser_member(&p, "version",
                                                OP_STRING | OP_OPTIONAL);
    ovsdb_parser_member(&p, "doc", OP_STRING | OP_OPTIONAL);
    const json_t *cksum = ovsdb_parser_member(&p, "cksum",
                                              OP_STRING | OP_OPTIONAL);
    const json_t *tables = ovsdb_parser_member(&p, "tables", OP_OBJECT);
    struct ovsdb_error *error = ovsdb_parser_finish(&p);
    if (error) {
        return error;
    }

    if (version && !ovsdb_is_valid_version(json_string_value(version))) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "schema version "
                                  "\"%s\" not in format x.y.z",
                                  json_string_value(version));
    }

    struct ovsdb_schema *schema = xzalloc(sizeof *schema);
    schema->name = xstrdup(json_string_value(name));
    schema->version = xstrdup(version ? json_string_value(version) : "");
    schema->cksum = cksum ? xstrdup(json_string_value(cksum)) : NULL;
    hmap_init(&schema->tables_by_name);

    size_t n;
    const char **names = jsonx_sorted_keys(tables, &n);
    schema->tables = xmalloc((n ? n : 1) * sizeof *schema->tables);
    for (size_t i = 0; i < n && !error; i++) {
        error = check_name(names[i], json);
        if (!error) {
            struct ovsdb_table_schema *ts;
            error = table_schema_from_json(json_object_get(tables, names[i]),
                                           names[i], &ts);
            if (!error) {
                ts->index = schema->n_tables;
                schema->tables[schema->n_tables++] = ts;
                hmap_insert(&schema->tables_by_name, &ts->name_node,
                            hash_string(ts->name, 0));
            }
        }
    }
    free(names);

    /* Resolve references. */
    for (size_t i = 0; i < schema->n_tables && !error; i++) {
        struct ovsdb_table_schema *ts = schema->tables[i];
        for (size_t j = OVSDB_N_STD_COLUMNS; j < ts->n_columns && !error;
             j++) {
            struct ovsdb_column *column = ts->columns[j];
            error = resolve_base_ref(schema, &column->type.key, column->name,
                                     "key");
            if (!error) {
                error = resolve_base_ref(schema, &column->type.value,
                                         column->name, "value");
            }
        }
    }

    if (error) {
        ovsdb_schema_destroy(schema);
        return error;
    }

    /* Before "isRoot" existed there was no garbage collection: if no table
     * is a root table, all of them are. */
    bool any_root = false;
    for (size_t i = 0; i < schema->n_tables; i++) {
        any_root |= schema->tables[i]->is_root;
    }
    if (!any_root) {
        for (size_t i = 0; i < schema->n_tables; i++) {
            schema->tables[i]->is_root = true;
        }
    }

    /* As the reference, a strong reference to a non-root table is always
     * persistent: if it were the only reference to a row, replaying the log
     * would garbage-collect a row that existed in memory. */
    for (size_t i = 0; i < schema->n_tables; i++) {
        struct ovsdb_table_schema *ts = schema->tables[i];
        for (size_t j = OVSDB_N_STD_COLUMNS; j < ts->n_columns; j++) {
            struct ovsdb_column *column = ts->columns[j];
            const struct ovsdb_base_type *bases[] = {&column->type.key,
                                                     &column->type.value};
            for (size_t k = 0; k < ARRAY_SIZE(bases); k++) {
                if (ovsdb_base_type_is_strong_ref(bases[k])
                    && !bases[k]->uuid.ref_table->is_root) {
                    column->is_persistent = true;
                }
            }
        }
    }

    *schemap = schema;
    return NULL;
}

struct ovsdb_error *
ovsdb_schema_from_file(const char *path, struct ovsdb_schema **schemap)
{
    *schemap = NULL;
    char *msg;
    json_t *json = jsonx_from_file(path, &msg);
    if (!json) {
        /* Only a file we cannot read is an I/O error; one we can read but
         * not parse is the schema's fault. */
        struct ovsdb_error *error
            = (access(path, R_OK)
               ? ovsdb_error(OVSDB_E_IO, "%s: open failed (%s)", path,
                             ovs_strerror(errno))
               : ovsdb_error(OVSDB_E_SYNTAX, "%s (the schema file is not "
                             "valid JSON)", msg));
        free(msg);
        return error;
    }
    struct ovsdb_error *error = ovsdb_schema_from_json(json, schemap);
    json_decref(json);
    return ovsdb_error_wrap(error, "failed to parse \"%s\" as ovsdb schema",
                            path);
}

json_t *
ovsdb_schema_to_json(const struct ovsdb_schema *schema)
{
    bool all_root = true;
    for (size_t i = 0; i < schema->n_tables; i++) {
        all_root &= schema->tables[i]->is_root;
    }

    json_t *json = json_object();
    json_object_set_new(json, "name", json_string(schema->name));
    if (schema->version[0]) {
        json_object_set_new(json, "version", json_string(schema->version));
    }
    if (schema->cksum) {
        json_object_set_new(json, "cksum", json_string(schema->cksum));
    }
    json_t *tables = json_object();
    for (size_t i = 0; i < schema->n_tables; i++) {
        json_object_set_new(tables, schema->tables[i]->name,
                            table_schema_to_json(schema->tables[i],
                                                 all_root));
    }
    json_object_set_new(json, "tables", tables);
    return json;
}

struct ovsdb_schema *
ovsdb_schema_clone(const struct ovsdb_schema *schema)
{
    json_t *json = ovsdb_schema_to_json(schema);
    struct ovsdb_schema *clone;
    struct ovsdb_error *error = ovsdb_schema_from_json(json, &clone);
    json_decref(json);
    if (error) {
        /* Cannot happen: the JSON came from a valid schema. */
        abort();
    }
    return clone;
}

bool
ovsdb_schema_equals(const struct ovsdb_schema *a,
                    const struct ovsdb_schema *b)
{
    json_t *ja = ovsdb_schema_to_json(a);
    json_t *jb = ovsdb_schema_to_json(b);
    bool equal = json_equal(ja, jb);
    json_decref(ja);
    json_decref(jb);
    return equal;
}

/* Column sets. */

void
ovsdb_column_set_init(struct ovsdb_column_set *set)
{
    set->columns = NULL;
    set->n_columns = set->allocated = 0;
}

void
ovsdb_column_set_destroy(struct ovsdb_column_set *set)
{
    if (set) {
        free(set->columns);
        ovsdb_column_set_init(set);
    }
}

void
ovsdb_column_set_add(struct ovsdb_column_set *set,
                     const struct ovsdb_column *column)
{
    if (set->n_columns >= set->allocated) {
        set->columns = x2nrealloc(set->columns, &set->allocated,
                                  sizeof *set->columns);
    }
    set->columns[set->n_columns++] = column;
}

void
ovsdb_column_set_add_all(struct ovsdb_column_set *set,
                         const struct ovsdb_table_schema *ts)
{
    for (size_t i = 0; i < ts->n_columns; i++) {
        ovsdb_column_set_add(set, ts->columns[i]);
    }
}

bool
ovsdb_column_set_contains(const struct ovsdb_column_set *set,
                          unsigned int column_index)
{
    for (size_t i = 0; i < set->n_columns; i++) {
        if (set->columns[i]->index == column_index) {
            return true;
        }
    }
    return false;
}

struct ovsdb_error *
ovsdb_column_set_from_json(const json_t *json,
                           const struct ovsdb_table_schema *ts,
                           struct ovsdb_column_set *set)
{
    ovsdb_column_set_init(set);
    if (!json) {
        ovsdb_column_set_add_all(set, ts);
        return NULL;
    }
    if (!json_is_array(json)) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "array of distinct column names expected");
    }
    for (size_t i = 0; i < json_array_size(json); i++) {
        const json_t *name = json_array_get(json, i);
        if (!json_is_string(name)) {
            ovsdb_column_set_destroy(set);
            return ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "array of "
                                      "distinct column names expected");
        }
        const struct ovsdb_column *column = ovsdb_table_schema_find_column(
            ts, json_string_value(name));
        if (!column) {
            ovsdb_column_set_destroy(set);
            return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                      "%s is not a valid column name",
                                      json_string_value(name));
        }
        if (ovsdb_column_set_contains(set, column->index)) {
            ovsdb_column_set_destroy(set);
            return ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "array of "
                                      "distinct column names expected");
        }
        ovsdb_column_set_add(set, column);
    }
    return NULL;
}

char *
ovsdb_schema_persist_ephemeral_columns(struct ovsdb_schema *schema,
                                       const char *file)
{
    int n = 0;
    const char *table = NULL, *column = NULL;
    for (size_t i = 0; i < schema->n_tables; i++) {
        struct ovsdb_table_schema *ts = schema->tables[i];
        for (size_t j = OVSDB_N_STD_COLUMNS; j < ts->n_columns; j++) {
            struct ovsdb_column *c = ts->columns[j];
            if (!c->is_persistent) {
                c->is_persistent = true;
                table = ts->name;
                column = c->name;
                n++;
            }
        }
    }
    return (n ? xasprintf("%s: changed %d columns in '%s' database from "
                          "ephemeral to persistent, including '%s' column in "
                          "'%s' table, because clusters do not support "
                          "ephemeral columns",
                          file, n, schema->name, column, table)
              : NULL);
}
