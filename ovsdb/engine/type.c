/* ovsdb/engine/type.c: see type.h. */
#include <config.h>
#include "ovsdb/engine/type.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/parser.h"

bool
ovsdb_atomic_type_from_string(const char *name, enum ovsdb_atomic_type *typep)
{
    for (int i = OVSDB_TYPE_INTEGER; i < OVSDB_N_TYPES; i++) {
        if (!strcmp(name, ovsdb_atomic_type_to_string(i))) {
            *typep = i;
            return true;
        }
    }
    return false;
}

void
ovsdb_base_type_clone(struct ovsdb_base_type *dst,
                      const struct ovsdb_base_type *src)
{
    *dst = *src;
    if (src->enum_) {
        struct ovsdb_type et;
        ovsdb_type_init_enum(&et, src);
        dst->enum_ = xmalloc(sizeof *dst->enum_);
        ovsdb_datum_clone(dst->enum_, src->enum_, &et);
    }
    if (src->type == OVSDB_TYPE_UUID && src->uuid.ref_table_name) {
        dst->uuid.ref_table_name = xstrdup(src->uuid.ref_table_name);
    }
}

void
ovsdb_base_type_destroy(struct ovsdb_base_type *base)
{
    if (!base) {
        return;
    }
    if (base->enum_) {
        struct ovsdb_type et;
        ovsdb_type_init_enum(&et, base);
        ovsdb_datum_destroy(base->enum_, &et);
        free(base->enum_);
        base->enum_ = NULL;
    }
    if (base->type == OVSDB_TYPE_UUID) {
        free(base->uuid.ref_table_name);
        base->uuid.ref_table_name = NULL;
    }
}

bool
ovsdb_base_type_equals(const struct ovsdb_base_type *a,
                       const struct ovsdb_base_type *b)
{
    if (a->type != b->type) {
        return false;
    }
    if (!a->enum_ != !b->enum_) {
        return false;
    }
    if (a->enum_) {
        struct ovsdb_type et;
        ovsdb_type_init_enum(&et, a);
        if (!ovsdb_datum_equals(a->enum_, b->enum_, &et)) {
            return false;
        }
    }
    switch (a->type) {
    case OVSDB_TYPE_INTEGER:
        return a->integer.min == b->integer.min
               && a->integer.max == b->integer.max;
    case OVSDB_TYPE_REAL:
        return a->real.min == b->real.min && a->real.max == b->real.max;
    case OVSDB_TYPE_STRING:
        return a->string.min_len == b->string.min_len
               && a->string.max_len == b->string.max_len;
    case OVSDB_TYPE_UUID:
        return nullable_string_is_equal(a->uuid.ref_table_name,
                                        b->uuid.ref_table_name)
               && (!a->uuid.ref_table_name
                   || a->uuid.ref_type == b->uuid.ref_type);
    case OVSDB_TYPE_VOID:
    case OVSDB_TYPE_BOOLEAN:
    case OVSDB_N_TYPES:
    default:
        return true;
    }
}

bool
ovsdb_base_type_has_constraints(const struct ovsdb_base_type *base)
{
    if (base->enum_) {
        return true;
    }
    switch (base->type) {
    case OVSDB_TYPE_INTEGER:
        return base->integer.min != INT64_MIN
               || base->integer.max != INT64_MAX;
    case OVSDB_TYPE_REAL:
        return base->real.min != -DBL_MAX || base->real.max != DBL_MAX;
    case OVSDB_TYPE_STRING:
        return base->string.min_len != 0 || base->string.max_len != UINT_MAX;
    case OVSDB_TYPE_UUID:
        return base->uuid.ref_table_name != NULL;
    case OVSDB_TYPE_VOID:
    case OVSDB_TYPE_BOOLEAN:
    case OVSDB_N_TYPES:
    default:
        return false;
    }
}

bool
ovsdb_base_type_is_strong_ref(const struct ovsdb_base_type *base)
{
    return base->type == OVSDB_TYPE_UUID && base->uuid.ref_table_name
           && base->uuid.ref_type == OVSDB_REF_STRONG;
}

bool
ovsdb_base_type_is_weak_ref(const struct ovsdb_base_type *base)
{
    return base->type == OVSDB_TYPE_UUID && base->uuid.ref_table_name
           && base->uuid.ref_type == OVSDB_REF_WEAK;
}

static struct ovsdb_error *
parse_atomic_type(const json_t *json, enum ovsdb_atomic_type *typep)
{
    if (json_is_string(json)
        && ovsdb_atomic_type_from_string(json_string_value(json), typep)) {
        return NULL;
    }
    char *s = jsonx_to_string_sorted(json);
    struct ovsdb_error *error = ovsdb_syntax_error(
        json, OVSDB_E_SYNTAX, "%s is not an atomic-type", s);
    free(s);
    return error;
}

static struct ovsdb_error *
parse_base_object(struct ovsdb_base_type *base, const json_t *json)
{
    struct ovsdb_parser p;
    ovsdb_parser_init(&p, json, "ovsdb type");
    const json_t *type = ovsdb_parser_member(&p, "type", OP_STRING);
    if (ovsdb_parser_has_error(&p)) {
        return ovsdb_parser_finish(&p);
    }
    enum ovsdb_atomic_type atomic;
    struct ovsdb_error *error = parse_atomic_type(type, &atomic);
    if (error) {
        ovsdb_parser_destroy(&p);
        return error;
    }
    ovsdb_base_type_init(base, atomic);

    const json_t *enum_ = ovsdb_parser_member(&p, "enum", OP_ANY
                                              | OP_OPTIONAL);
    if (enum_) {
        struct ovsdb_type et;
        ovsdb_type_init_enum(&et, base);
        base->enum_ = xmalloc(sizeof *base->enum_);
        error = ovsdb_datum_from_json(base->enum_, &et, enum_, NULL);
        if (error) {
            free(base->enum_);
            base->enum_ = NULL;
            ovsdb_parser_put_error(&p, error);
        }
    }

    if (atomic == OVSDB_TYPE_INTEGER) {
        const json_t *min = ovsdb_parser_member(&p, "minInteger",
                                                OP_INTEGER | OP_OPTIONAL);
        const json_t *max = ovsdb_parser_member(&p, "maxInteger",
                                                OP_INTEGER | OP_OPTIONAL);
        if (min) {
            base->integer.min = json_integer_value(min);
        }
        if (max) {
            base->integer.max = json_integer_value(max);
        }
        if (!ovsdb_parser_has_error(&p)
            && base->integer.min > base->integer.max) {
            ovsdb_parser_put_error(&p, ovsdb_syntax_error(
                json, OVSDB_E_SYNTAX, "minInteger exceeds maxInteger"));
        }
    } else if (atomic == OVSDB_TYPE_REAL) {
        const json_t *min = ovsdb_parser_member(&p, "minReal",
                                                OP_NUMBER | OP_OPTIONAL);
        const json_t *max = ovsdb_parser_member(&p, "maxReal",
                                                OP_NUMBER | OP_OPTIONAL);
        if (min) {
            base->real.min = json_number_value(min);
        }
        if (max) {
            base->real.max = json_number_value(max);
        }
        if (!ovsdb_parser_has_error(&p) && base->real.min > base->real.max) {
            ovsdb_parser_put_error(&p, ovsdb_syntax_error(
                json, OVSDB_E_SYNTAX, "minReal exceeds maxReal"));
        }
    } else if (atomic == OVSDB_TYPE_STRING) {
        const json_t *min = ovsdb_parser_member(&p, "minLength",
                                                OP_INTEGER | OP_OPTIONAL);
        const json_t *max = ovsdb_parser_member(&p, "maxLength",
                                                OP_INTEGER | OP_OPTIONAL);
        const json_t *lengths[] = {min, max};
        unsigned int *fields[] = {&base->string.min_len,
                                  &base->string.max_len};
        const char *names[] = {"minLength", "maxLength"};
        for (size_t i = 0; i < 2; i++) {
            if (!lengths[i]) {
                continue;
            }
            json_int_t v = json_integer_value(lengths[i]);
            if (v < 0 || v > UINT_MAX) {
                /* The reference refuses these rather than clamping. */
                ovsdb_parser_put_error(&p, ovsdb_syntax_error(
                    lengths[i], OVSDB_E_SYNTAX,
                    "%s out of valid range 0 to %u", names[i], UINT_MAX));
            } else {
                *fields[i] = v;
            }
        }
        if (!ovsdb_parser_has_error(&p)
            && base->string.min_len > base->string.max_len) {
            ovsdb_parser_put_error(&p, ovsdb_syntax_error(
                json, OVSDB_E_SYNTAX, "minLength exceeds maxLength"));
        }
    } else if (atomic == OVSDB_TYPE_UUID) {
        const json_t *ref_table = ovsdb_parser_member(&p, "refTable",
                                                      OP_ID | OP_OPTIONAL);
        if (ref_table) {
            base->uuid.ref_table_name = xstrdup(json_string_value(ref_table));
            const json_t *ref_type = ovsdb_parser_member(
                &p, "refType", OP_STRING | OP_OPTIONAL);
            if (ref_type) {
                const char *s = json_string_value(ref_type);
                if (!strcmp(s, "strong")) {
                    base->uuid.ref_type = OVSDB_REF_STRONG;
                } else if (!strcmp(s, "weak")) {
                    base->uuid.ref_type = OVSDB_REF_WEAK;
                } else {
                    ovsdb_parser_put_error(&p, ovsdb_syntax_error(
                        json, OVSDB_E_SYNTAX, "refType must be \"strong\" "
                        "or \"weak\" (not \"%s\")", s));
                }
            }
        }
    }

    error = ovsdb_parser_finish(&p);
    if (error) {
        ovsdb_base_type_destroy(base);
    }
    return error;
}

struct ovsdb_error *
ovsdb_base_type_from_json(struct ovsdb_base_type *base, const json_t *json)
{
    ovsdb_base_type_init(base, OVSDB_TYPE_VOID);
    if (json_is_string(json)) {
        enum ovsdb_atomic_type atomic;
        struct ovsdb_error *error = parse_atomic_type(json, &atomic);
        if (!error) {
            ovsdb_base_type_init(base, atomic);
        }
        return error;
    } else if (json_is_object(json)) {
        return parse_base_object(base, json);
    } else {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "base type expected");
    }
}

json_t *
ovsdb_base_type_to_json(const struct ovsdb_base_type *base)
{
    const char *name = ovsdb_atomic_type_to_string(base->type);
    if (!ovsdb_base_type_has_constraints(base)) {
        return json_string(name);
    }

    json_t *json = json_object();
    json_object_set_new(json, "type", json_string(name));
    if (base->enum_) {
        struct ovsdb_type et;
        ovsdb_type_init_enum(&et, base);
        json_object_set_new(json, "enum",
                            ovsdb_datum_to_json(base->enum_, &et));
    }
    switch (base->type) {
    case OVSDB_TYPE_INTEGER:
        if (base->integer.min != INT64_MIN) {
            json_object_set_new(json, "minInteger",
                                json_integer(base->integer.min));
        }
        if (base->integer.max != INT64_MAX) {
            json_object_set_new(json, "maxInteger",
                                json_integer(base->integer.max));
        }
        break;
    case OVSDB_TYPE_REAL:
        if (base->real.min != -DBL_MAX) {
            json_object_set_new(json, "minReal", json_real(base->real.min));
        }
        if (base->real.max != DBL_MAX) {
            json_object_set_new(json, "maxReal", json_real(base->real.max));
        }
        break;
    case OVSDB_TYPE_STRING:
        if (base->string.min_len != 0) {
            json_object_set_new(json, "minLength",
                                json_integer(base->string.min_len));
        }
        if (base->string.max_len != UINT_MAX) {
            json_object_set_new(json, "maxLength",
                                json_integer(base->string.max_len));
        }
        break;
    case OVSDB_TYPE_UUID:
        if (base->uuid.ref_table_name) {
            json_object_set_new(json, "refTable",
                                json_string(base->uuid.ref_table_name));
            if (base->uuid.ref_type == OVSDB_REF_WEAK) {
                json_object_set_new(json, "refType", json_string("weak"));
            }
        }
        break;
    case OVSDB_TYPE_VOID:
    case OVSDB_TYPE_BOOLEAN:
    case OVSDB_N_TYPES:
    default:
        break;
    }
    return json;
}

void
ovsdb_type_init_scalar(struct ovsdb_type *type, enum ovsdb_atomic_type key)
{
    ovsdb_base_type_init(&type->key, key);
    ovsdb_base_type_init(&type->value, OVSDB_TYPE_VOID);
    type->n_min = 1;
    type->n_max = 1;
}

void
ovsdb_type_clone(struct ovsdb_type *dst, const struct ovsdb_type *src)
{
    ovsdb_base_type_clone(&dst->key, &src->key);
    ovsdb_base_type_clone(&dst->value, &src->value);
    dst->n_min = src->n_min;
    dst->n_max = src->n_max;
}

void
ovsdb_type_destroy(struct ovsdb_type *type)
{
    if (type) {
        ovsdb_base_type_destroy(&type->key);
        ovsdb_base_type_destroy(&type->value);
    }
}

bool
ovsdb_type_equals(const struct ovsdb_type *a, const struct ovsdb_type *b)
{
    return ovsdb_base_type_equals(&a->key, &b->key)
           && ovsdb_base_type_equals(&a->value, &b->value)
           && a->n_min == b->n_min && a->n_max == b->n_max;
}

static struct ovsdb_error *
parse_count(const json_t *json, unsigned int default_value, bool allow_max,
            unsigned int *np)
{
    if (!json) {
        *np = default_value;
        return NULL;
    }
    if (json_is_integer(json) && json_integer_value(json) >= 0
        && json_integer_value(json) < UINT_MAX) {
        *np = json_integer_value(json);
        return NULL;
    }
    if (allow_max && json_is_string(json)
        && !strcmp(json_string_value(json), "unlimited")) {
        *np = UINT_MAX;
        return NULL;
    }
    return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                              "bad min or max value");
}

static bool
base_type_is_valid(const struct ovsdb_base_type *base)
{
    return base->type != OVSDB_N_TYPES;
}

struct ovsdb_error *
ovsdb_type_from_json(struct ovsdb_type *type, const json_t *json)
{
    ovsdb_base_type_init(&type->key, OVSDB_TYPE_VOID);
    ovsdb_base_type_init(&type->value, OVSDB_TYPE_VOID);
    type->n_min = type->n_max = 1;

    if (json_is_string(json)) {
        return ovsdb_base_type_from_json(&type->key, json);
    } else if (!json_is_object(json)) {
        return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                  "ovsdb type expected");
    }

    struct ovsdb_parser p;
    ovsdb_parser_init(&p, json, "ovsdb type");
    const json_t *key = ovsdb_parser_member(&p, "key", OP_STRING | OP_OBJECT);
    const json_t *value = ovsdb_parser_member(&p, "value",
                                              OP_STRING | OP_OBJECT
                                              | OP_OPTIONAL);
    const json_t *min = ovsdb_parser_member(&p, "min",
                                            OP_INTEGER | OP_OPTIONAL);
    const json_t *max = ovsdb_parser_member(&p, "max", OP_INTEGER | OP_STRING
                                            | OP_OPTIONAL);
    struct ovsdb_error *error = ovsdb_parser_finish(&p);
    if (error) {
        return error;
    }

    error = ovsdb_base_type_from_json(&type->key, key);
    if (error) {
        return error;
    }
    if (value) {
        error = ovsdb_base_type_from_json(&type->value, value);
        if (error) {
            ovsdb_base_type_destroy(&type->key);
            return error;
        }
    }
    error = parse_count(min, 1, false, &type->n_min);
    if (!error) {
        error = parse_count(max, 1, true, &type->n_max);
    }
    if (!error
        && (!base_type_is_valid(&type->key) || type->n_min > 1
            || type->n_max < 1 || type->n_min > type->n_max)) {
        error = ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                   "ovsdb type fails constraint checks");
    }
    if (error) {
        ovsdb_type_destroy(type);
    }
    return error;
}

json_t *
ovsdb_type_to_json(const struct ovsdb_type *type)
{
    if (ovsdb_type_is_scalar(type)
        && !ovsdb_base_type_has_constraints(&type->key)) {
        return ovsdb_base_type_to_json(&type->key);
    }

    json_t *json = json_object();
    json_object_set_new(json, "key", ovsdb_base_type_to_json(&type->key));
    if (type->value.type != OVSDB_TYPE_VOID) {
        json_object_set_new(json, "value",
                            ovsdb_base_type_to_json(&type->value));
    }
    if (type->n_min != 1) {
        json_object_set_new(json, "min", json_integer(type->n_min));
    }
    if (type->n_max == UINT_MAX) {
        json_object_set_new(json, "max", json_string("unlimited"));
    } else if (type->n_max != 1) {
        json_object_set_new(json, "max", json_integer(type->n_max));
    }
    return json;
}

char *
ovsdb_type_to_english(const struct ovsdb_type *type)
{
    const char *key = ovsdb_atomic_type_to_string(type->key.type);
    const char *value = ovsdb_atomic_type_to_string(type->value.type);
    if (ovsdb_type_is_scalar(type)) {
        return xstrdup(key);
    }

    struct ds s = DS_EMPTY_INITIALIZER;
    bool is_map = ovsdb_type_is_map(type);
    ds_put_cstr(&s, is_map ? "map" : "set");
    if (type->n_max == UINT_MAX) {
        if (type->n_min) {
            ds_put_format(&s, " of %u or more", type->n_min);
        } else {
            ds_put_cstr(&s, " of");
        }
    } else if (type->n_min) {
        ds_put_format(&s, " of %u to %u", type->n_min, type->n_max);
    } else {
        ds_put_format(&s, " of up to %u", type->n_max);
    }
    if (is_map) {
        ds_put_format(&s, " (%s, %s) pairs", key, value);
    } else {
        ds_put_format(&s, " %ss", key);
    }
    return ds_steal_cstr(&s);
}
