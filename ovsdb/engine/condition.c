/* ovsdb/engine/condition.c: see condition.h. */
#include <config.h>
#include "ovsdb/engine/condition.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"

static const char *const function_names[] = {
    [OVSDB_F_FALSE] = "false",
    [OVSDB_F_TRUE] = "true",
    [OVSDB_F_EQ] = "==",
    [OVSDB_F_INCLUDES] = "includes",
    [OVSDB_F_LE] = "<=",
    [OVSDB_F_LT] = "<",
    [OVSDB_F_GE] = ">=",
    [OVSDB_F_GT] = ">",
    [OVSDB_F_EXCLUDES] = "excludes",
    [OVSDB_F_NE] = "!=",
};

const char *
ovsdb_function_to_string(enum ovsdb_function function)
{
    return function_names[function];
}

static bool
function_from_string(const char *s, enum ovsdb_function *fp)
{
    for (int i = OVSDB_F_EQ; i < (int) ARRAY_SIZE(function_names); i++) {
        if (!strcmp(s, function_names[i])) {
            *fp = i;
            return true;
        }
    }
    return false;
}

void
ovsdb_condition_init(struct ovsdb_condition *cond)
{
    cond->clauses = NULL;
    cond->n_clauses = 0;
}

bool
ovsdb_condition_is_empty(const struct ovsdb_condition *cond)
{
    return !cond->n_clauses;
}

bool
ovsdb_condition_is_false(const struct ovsdb_condition *cond)
{
    for (size_t i = 0; i < cond->n_clauses; i++) {
        if (cond->clauses[i].function == OVSDB_F_FALSE) {
            return true;
        }
    }
    return false;
}

static void
clause_destroy(struct ovsdb_clause *clause)
{
    if (clause->column) {
        ovsdb_datum_destroy(&clause->arg, &clause->type);
        ovsdb_type_destroy(&clause->type);
    }
}

static struct ovsdb_error *
clause_from_json(const struct ovsdb_table_schema *ts, const json_t *json,
                 struct ovsdb_symbol_table *symtab,
                 struct ovsdb_clause *clause)
{
    memset(clause, 0, sizeof *clause);
    if (json_is_boolean(json)) {
        clause->function = json_is_true(json) ? OVSDB_F_TRUE : OVSDB_F_FALSE;
        return NULL;
    }
    if (!json_is_array(json) || json_array_size(json) != 3
        || !json_is_string(json_array_get(json, 0))
        || !json_is_string(json_array_get(json, 1))) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "Parse error in condition.");
    }
    const char *column_name = json_string_value(json_array_get(json, 0));
    const struct ovsdb_column *column;
    column = ovsdb_table_schema_find_column(ts, column_name);
    if (!column) {
        return ovsdb_syntax_error(json, OVSDB_E_UNKNOWN_COLUMN,
                                  "No column %s in table %s.", column_name,
                                  ts->name);
    }

    const char *function_name = json_string_value(json_array_get(json, 1));
    enum ovsdb_function function;
    if (!function_from_string(function_name, &function)) {
        return ovsdb_error(OVSDB_E_UNKNOWN_FUNCTION, "No function named %s.",
                           function_name);
    }

    const struct ovsdb_type *ct = &column->type;
    struct ovsdb_type type;
    ovsdb_type_clone(&type, ct);
    switch (function) {
    case OVSDB_F_LT:
    case OVSDB_F_LE:
    case OVSDB_F_GT:
    case OVSDB_F_GE:
        if ((ct->key.type != OVSDB_TYPE_INTEGER
             && ct->key.type != OVSDB_TYPE_REAL)
            || ovsdb_type_is_map(ct) || ct->n_max != 1) {
            char *english = ovsdb_type_to_english(ct);
            struct ovsdb_error *error = ovsdb_syntax_error(
                json, OVSDB_E_SYNTAX, "Type mismatch: \"%s\" operator may "
                "not be applied to column %s of type %s.", function_name,
                column->name, english);
            free(english);
            ovsdb_type_destroy(&type);
            return error;
        }
        type.n_min = 1;
        break;
    case OVSDB_F_INCLUDES:
    case OVSDB_F_EXCLUDES:
        /* As the reference: for a set or map, "includes" takes up to the
         * column's maximum and "excludes" any number of elements. */
        if (!ovsdb_type_is_scalar(ct)) {
            type.n_min = 0;
            if (function == OVSDB_F_EXCLUDES) {
                type.n_max = UINT_MAX;
            }
        }
        break;
    case OVSDB_F_EQ:
    case OVSDB_F_NE:
    case OVSDB_F_FALSE:
    case OVSDB_F_TRUE:
    default:
        break;
    }

    clause->function = function;
    clause->column = column;
    clause->index = column->index;
    clause->type = type;
    struct ovsdb_error *error = ovsdb_datum_from_json(
        &clause->arg, &clause->type, json_array_get(json, 2), symtab);
    if (error) {
        ovsdb_type_destroy(&clause->type);
        clause->column = NULL;
    }
    return error;
}

/* Cheapest and most selective first: _uuid equality first. */
static int
clause_rank(const struct ovsdb_clause *c)
{
    if (c->function == OVSDB_F_FALSE) {
        return 0;
    }
    if (c->function == OVSDB_F_EQ && c->index == OVSDB_COL_UUID) {
        return 1;
    }
    return 2 + (c->function == OVSDB_F_TRUE);
}

static int
compare_clauses(const void *a_, const void *b_)
{
    const struct ovsdb_clause *a = a_, *b = b_;
    int ra = clause_rank(a), rb = clause_rank(b);
    if (ra != rb) {
        return ra < rb ? -1 : 1;
    }
    return 0;
}

struct ovsdb_error *
ovsdb_condition_from_json(const struct ovsdb_table_schema *ts,
                          const json_t *json,
                          struct ovsdb_symbol_table *symtab,
                          struct ovsdb_condition *cond)
{
    ovsdb_condition_init(cond);
    if (!json_is_array(json)) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "Parse error in condition.");
    }
    size_t n = json_array_size(json);
    cond->clauses = xmalloc((n ? n : 1) * sizeof *cond->clauses);
    for (size_t i = 0; i < n; i++) {
        struct ovsdb_error *error = clause_from_json(
            ts, json_array_get(json, i), symtab,
            &cond->clauses[cond->n_clauses]);
        if (error) {
            ovsdb_condition_destroy(cond);
            return error;
        }
        cond->n_clauses++;
    }
    /* Stable insertion sort, so clauses of the same rank keep their
     * order. */
    for (size_t i = 1; i < cond->n_clauses; i++) {
        struct ovsdb_clause c = cond->clauses[i];
        size_t j = i;
        while (j > 0 && compare_clauses(&cond->clauses[j - 1], &c) > 0) {
            cond->clauses[j] = cond->clauses[j - 1];
            j--;
        }
        cond->clauses[j] = c;
    }
    return NULL;
}

json_t *
ovsdb_condition_to_json(const struct ovsdb_condition *cond)
{
    json_t *json = json_array();
    for (size_t i = 0; i < cond->n_clauses; i++) {
        const struct ovsdb_clause *c = &cond->clauses[i];
        if (!c->column) {
            json_array_append_new(json,
                                  json_boolean(c->function == OVSDB_F_TRUE));
            continue;
        }
        json_t *clause = json_array();
        json_array_append_new(clause, json_string(c->column->name));
        json_array_append_new(clause,
                              json_string(function_names[c->function]));
        json_array_append_new(clause, ovsdb_datum_to_json(&c->arg, &c->type));
        json_array_append_new(json, clause);
    }
    return json;
}

void
ovsdb_condition_destroy(struct ovsdb_condition *cond)
{
    if (!cond) {
        return;
    }
    for (size_t i = 0; i < cond->n_clauses; i++) {
        clause_destroy(&cond->clauses[i]);
    }
    free(cond->clauses);
    ovsdb_condition_init(cond);
}

void
ovsdb_condition_clone(struct ovsdb_condition *dst,
                      const struct ovsdb_condition *src)
{
    dst->n_clauses = src->n_clauses;
    dst->clauses = xmalloc((src->n_clauses ? src->n_clauses : 1)
                           * sizeof *dst->clauses);
    for (size_t i = 0; i < src->n_clauses; i++) {
        const struct ovsdb_clause *s = &src->clauses[i];
        struct ovsdb_clause *d = &dst->clauses[i];
        *d = *s;
        if (s->column) {
            ovsdb_type_clone(&d->type, &s->type);
            ovsdb_datum_clone(&d->arg, &s->arg, &s->type);
        }
    }
}

bool
ovsdb_condition_equals(const struct ovsdb_condition *a,
                       const struct ovsdb_condition *b)
{
    if (a->n_clauses != b->n_clauses) {
        return false;
    }
    for (size_t i = 0; i < a->n_clauses; i++) {
        const struct ovsdb_clause *x = &a->clauses[i], *y = &b->clauses[i];
        if (x->function != y->function || x->column != y->column) {
            return false;
        }
        if (x->column && !ovsdb_datum_equals(&x->arg, &y->arg, &x->type)) {
            return false;
        }
    }
    return true;
}

static bool
clause_match(const struct ovsdb_row *row, const struct ovsdb_clause *c)
{
    if (!c->column) {
        return c->function == OVSDB_F_TRUE;
    }
    const struct ovsdb_datum *field = ovsdb_row_datum(row, c->index);
    const struct ovsdb_datum *arg = &c->arg;
    const struct ovsdb_type *type = &c->column->type;

    switch (c->function) {
    case OVSDB_F_EQ:
        return ovsdb_datum_equals(field, arg, type);
    case OVSDB_F_NE:
        return !ovsdb_datum_equals(field, arg, type);
    case OVSDB_F_INCLUDES:
        return ovsdb_datum_includes_all(arg, field, type);
    case OVSDB_F_EXCLUDES:
        return ovsdb_datum_excludes_all(arg, field, type);
    case OVSDB_F_LT:
    case OVSDB_F_LE:
    case OVSDB_F_GT:
    case OVSDB_F_GE: {
        if (!field->n) {
            return false;
        }
        int cmp = ovsdb_atom_compare_3way(&field->keys[0], &arg->keys[0],
                                          type->key.type);
        switch (c->function) {
        case OVSDB_F_LT:
            return cmp < 0;
        case OVSDB_F_LE:
            return cmp <= 0;
        case OVSDB_F_GT:
            return cmp > 0;
        default:
            return cmp >= 0;
        }
    }
    case OVSDB_F_FALSE:
        return false;
    case OVSDB_F_TRUE:
    default:
        return true;
    }
}

bool
ovsdb_condition_match(const struct ovsdb_row *row,
                      const struct ovsdb_condition *cond)
{
    for (size_t i = 0; i < cond->n_clauses; i++) {
        if (!clause_match(row, &cond->clauses[i])) {
            return false;
        }
    }
    return true;
}

bool
ovsdb_condition_match_any(const struct ovsdb_row *row,
                          const struct ovsdb_condition *cond)
{
    for (size_t i = 0; i < cond->n_clauses; i++) {
        if (clause_match(row, &cond->clauses[i])) {
            return true;
        }
    }
    return false;
}

const struct uuid *
ovsdb_condition_get_uuid(const struct ovsdb_condition *cond)
{
    for (size_t i = 0; i < cond->n_clauses; i++) {
        const struct ovsdb_clause *c = &cond->clauses[i];
        if (c->function == OVSDB_F_EQ && c->index == OVSDB_COL_UUID
            && c->arg.n == 1) {
            return &c->arg.keys[0].uuid;
        }
    }
    return NULL;
}
