/* ovsdb/engine/mutation.c: see mutation.h. */
#include <config.h>
#include "ovsdb/engine/mutation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"

static const char *const mutator_names[] = {
    [OVSDB_M_ADD] = "+=",
    [OVSDB_M_SUB] = "-=",
    [OVSDB_M_MUL] = "*=",
    [OVSDB_M_DIV] = "/=",
    [OVSDB_M_MOD] = "%=",
    [OVSDB_M_INSERT] = "insert",
    [OVSDB_M_DELETE] = "delete",
};

const char *
ovsdb_mutator_to_string(enum ovsdb_mutator mutator)
{
    return mutator_names[mutator];
}

static bool
mutator_from_string(const char *s, enum ovsdb_mutator *mp)
{
    for (int i = 0; i < (int) ARRAY_SIZE(mutator_names); i++) {
        if (!strcmp(s, mutator_names[i])) {
            *mp = i;
            return true;
        }
    }
    return false;
}

static struct ovsdb_error *
type_mismatch(const struct ovsdb_mutation *m, const json_t *json)
{
    char *english = ovsdb_type_to_english(&m->column->type);
    struct ovsdb_error *error = ovsdb_syntax_error(
        json, OVSDB_E_SYNTAX, "Type mismatch: \"%s\" operator may not be "
        "applied to column %s of type %s.", mutator_names[m->mutator],
        m->column->name, english);
    free(english);
    return error;
}

static struct ovsdb_error *
mutation_from_json(const struct ovsdb_table_schema *ts, const json_t *json,
                   struct ovsdb_symbol_table *symtab,
                   struct ovsdb_mutation *m)
{
    memset(m, 0, sizeof *m);
    if (!json_is_array(json) || json_array_size(json) != 3
        || !json_is_string(json_array_get(json, 0))
        || !json_is_string(json_array_get(json, 1))) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "Parse error in mutation.");
    }
    const char *column_name = json_string_value(json_array_get(json, 0));
    const struct ovsdb_column *column;
    column = ovsdb_table_schema_find_column(ts, column_name);
    if (!column) {
        return ovsdb_syntax_error(json, OVSDB_E_UNKNOWN_COLUMN,
                                  "No column %s in table %s.", column_name,
                                  ts->name);
    }
    if (!column->is_mutable) {
        return ovsdb_syntax_error(json, OVSDB_E_CONSTRAINT, "Cannot mutate "
                                  "immutable column %s in table %s.",
                                  column_name, ts->name);
    }

    const char *mutator_name = json_string_value(json_array_get(json, 1));
    if (!mutator_from_string(mutator_name, &m->mutator)) {
        return ovsdb_error(OVSDB_E_UNKNOWN_MUTATOR, "No mutator named %s.",
                           mutator_name);
    }
    m->column = column;

    const struct ovsdb_type *ct = &column->type;
    const json_t *arg = json_array_get(json, 2);
    struct ovsdb_error *error;
    switch (m->mutator) {
    case OVSDB_M_ADD:
    case OVSDB_M_SUB:
    case OVSDB_M_MUL:
    case OVSDB_M_DIV:
    case OVSDB_M_MOD:
        if ((ct->key.type != OVSDB_TYPE_INTEGER
             && (ct->key.type != OVSDB_TYPE_REAL
                 || m->mutator == OVSDB_M_MOD))
            || ovsdb_type_is_map(ct)) {
            return type_mismatch(m, json);
        }
        ovsdb_type_init_scalar(&m->type, ct->key.type);
        /* Division by zero is reported only if a row is mutated. */
        error = ovsdb_datum_from_json(&m->arg, &m->type, arg, symtab);
        break;

    case OVSDB_M_INSERT:
    case OVSDB_M_DELETE:
        if (!ovsdb_type_is_composite(ct) && !ovsdb_type_is_set(ct)
            && !ovsdb_type_is_map(ct)) {
            return type_mismatch(m, json);
        }
        /* As the reference: "insert" takes up to the column's maximum,
         * "delete" any number of elements. */
        ovsdb_type_clone(&m->type, ct);
        m->type.n_min = 0;
        if (m->mutator == OVSDB_M_DELETE) {
            m->type.n_max = UINT_MAX;
        }
        error = ovsdb_datum_from_json(&m->arg, &m->type, arg, symtab);
        if (error && m->mutator == OVSDB_M_DELETE
            && ovsdb_type_is_map(ct)) {
            /* Not a map: maybe a set of keys to delete.  If that fails
             * too, its error is the one reported, as the reference's. */
            ovsdb_error_destroy(error);
            ovsdb_base_type_destroy(&m->type.value);
            ovsdb_base_type_init(&m->type.value, OVSDB_TYPE_VOID);
            error = ovsdb_datum_from_json(&m->arg, &m->type, arg, symtab);
        }
        break;

    default:
        error = OVSDB_BUG("unknown mutator");
        break;
    }
    if (error) {
        ovsdb_type_destroy(&m->type);
        m->column = NULL;
    }
    return error;
}

struct ovsdb_error *
ovsdb_mutation_set_from_json(const struct ovsdb_table_schema *ts,
                             const json_t *json,
                             struct ovsdb_symbol_table *symtab,
                             struct ovsdb_mutation_set *set)
{
    set->mutations = NULL;
    set->n_mutations = 0;
    if (!json_is_array(json)) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "Parse error in mutation.");
    }
    size_t n = json_array_size(json);
    set->mutations = xmalloc((n ? n : 1) * sizeof *set->mutations);
    for (size_t i = 0; i < n; i++) {
        struct ovsdb_error *error = mutation_from_json(
            ts, json_array_get(json, i), symtab,
            &set->mutations[set->n_mutations]);
        if (error) {
            ovsdb_mutation_set_destroy(set);
            return error;
        }
        set->n_mutations++;
    }
    return NULL;
}

json_t *
ovsdb_mutation_set_to_json(const struct ovsdb_mutation_set *set)
{
    json_t *json = json_array();
    for (size_t i = 0; i < set->n_mutations; i++) {
        const struct ovsdb_mutation *m = &set->mutations[i];
        json_t *mj = json_array();
        json_array_append_new(mj, json_string(m->column->name));
        json_array_append_new(mj, json_string(mutator_names[m->mutator]));
        json_array_append_new(mj, ovsdb_datum_to_json(&m->arg, &m->type));
        json_array_append_new(json, mj);
    }
    return json;
}

void
ovsdb_mutation_set_destroy(struct ovsdb_mutation_set *set)
{
    if (!set) {
        return;
    }
    for (size_t i = 0; i < set->n_mutations; i++) {
        struct ovsdb_mutation *m = &set->mutations[i];
        ovsdb_datum_destroy(&m->arg, &m->type);
        ovsdb_type_destroy(&m->type);
    }
    free(set->mutations);
    set->mutations = NULL;
    set->n_mutations = 0;
}

static struct ovsdb_error *
range_error(enum ovsdb_mutator mutator)
{
    return ovsdb_error(OVSDB_E_RANGE, "Result of \"%s\" operation is out of "
                       "range.", mutator_names[mutator]);
}

static struct ovsdb_error *
mutate_integer(int64_t *x, int64_t y, enum ovsdb_mutator mutator)
{
    int64_t r;
    bool overflow;
    switch (mutator) {
    case OVSDB_M_ADD:
        overflow = __builtin_add_overflow(*x, y, &r);
        break;
    case OVSDB_M_SUB:
        overflow = __builtin_sub_overflow(*x, y, &r);
        break;
    case OVSDB_M_MUL:
        overflow = __builtin_mul_overflow(*x, y, &r);
        break;
    case OVSDB_M_DIV:
        if (!y) {
            return ovsdb_error(OVSDB_E_DOMAIN, "Division by zero.");
        }
        overflow = *x == INT64_MIN && y == -1;
        r = overflow ? 0 : *x / y;
        break;
    case OVSDB_M_MOD:
        if (!y) {
            return ovsdb_error(OVSDB_E_DOMAIN, "Division by zero.");
        }
        overflow = *x == INT64_MIN && y == -1;
        r = overflow ? 0 : *x % y;
        break;
    case OVSDB_M_INSERT:
    case OVSDB_M_DELETE:
    default:
        return OVSDB_BUG("bad integer mutator");
    }
    if (overflow) {
        return range_error(mutator);
    }
    *x = r;
    return NULL;
}

static struct ovsdb_error *
mutate_real(double *x, double y, enum ovsdb_mutator mutator)
{
    double r;
    switch (mutator) {
    case OVSDB_M_ADD:
        r = *x + y;
        break;
    case OVSDB_M_SUB:
        r = *x - y;
        break;
    case OVSDB_M_MUL:
        r = *x * y;
        break;
    case OVSDB_M_DIV:
        if (y == 0.0) {
            return ovsdb_error(OVSDB_E_DOMAIN, "Division by zero.");
        }
        r = *x / y;
        break;
    case OVSDB_M_MOD:
    case OVSDB_M_INSERT:
    case OVSDB_M_DELETE:
    default:
        return OVSDB_BUG("bad real mutator");
    }
    if (!isfinite(r)) {
        return range_error(mutator);
    }
    *x = r;
    return NULL;
}

static struct ovsdb_error *
size_error(const struct ovsdb_datum *d, const struct ovsdb_type *type)
{
    char *english = ovsdb_type_to_english(type);
    struct ovsdb_error *error = ovsdb_error(
        OVSDB_E_CONSTRAINT, "Attempted to store %u elements in %s.", d->n,
        english);
    free(english);
    return error;
}

static struct ovsdb_error *
execute_mutation(struct ovsdb_row *row, const struct ovsdb_mutation *m)
{
    const struct ovsdb_type *ct = &m->column->type;
    struct ovsdb_datum *d = ovsdb_row_datum_rw(row, m->column->index);
    struct ovsdb_error *error = NULL;

    switch (m->mutator) {
    case OVSDB_M_ADD:
    case OVSDB_M_SUB:
    case OVSDB_M_MUL:
    case OVSDB_M_DIV:
    case OVSDB_M_MOD:
        for (unsigned int i = 0; i < d->n && !error; i++) {
            if (ct->key.type == OVSDB_TYPE_INTEGER) {
                error = mutate_integer(&d->keys[i].integer,
                                       m->arg.keys[0].integer, m->mutator);
            } else {
                error = mutate_real(&d->keys[i].real, m->arg.keys[0].real,
                                    m->mutator);
            }
            if (!error) {
                error = ovsdb_atom_check_constraints(&d->keys[i], &ct->key);
            }
        }
        if (!error && d->n > 1) {
            struct ovsdb_error *dup = ovsdb_datum_sort(d, ct);
            if (dup) {
                ovsdb_error_destroy(dup);
                error = ovsdb_error(OVSDB_E_CONSTRAINT, "Result of \"%s\" "
                                    "operation contains duplicates.",
                                    mutator_names[m->mutator]);
            }
        }
        break;

    case OVSDB_M_INSERT:
        ovsdb_datum_union(d, &m->arg, ct);
        break;

    case OVSDB_M_DELETE:
        ovsdb_datum_subtract(d, ct, &m->arg, &m->type);
        break;

    default:
        return OVSDB_BUG("unknown mutator");
    }

    if (!error && (d->n < ct->n_min || d->n > ct->n_max)) {
        error = size_error(d, ct);
    }
    return error;
}

struct ovsdb_error *
ovsdb_mutation_set_execute(struct ovsdb_row *row,
                           const struct ovsdb_mutation_set *set)
{
    for (size_t i = 0; i < set->n_mutations; i++) {
        struct ovsdb_error *error = execute_mutation(row,
                                                     &set->mutations[i]);
        if (error) {
            return error;
        }
    }
    return NULL;
}
