/* ovsdb/engine/type.h: OVSDB column types (RFC 7047 section 3.2 <type>).
 *
 * An atomic type is one of integer, real, boolean, string, uuid.  A base
 * type is an atomic type plus constraints (enum, min/max value, min/max
 * length, refTable/refType).  A column type is a key base type, an optional
 * value base type (maps), and the number of elements allowed, [n_min,
 * n_max] with n_max == UINT_MAX for "unlimited".
 *
 * Types are plain data: a 'struct ovsdb_type' is owned by its column schema
 * and freed with ovsdb_type_destroy(). */
#ifndef OVSDB_TYPE_H
#define OVSDB_TYPE_H 1

#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <jansson.h>
#include "lib/util.h"

struct ovsdb_datum;
struct ovsdb_error;
struct ovsdb_table_schema;

enum ovsdb_atomic_type {
    OVSDB_TYPE_VOID,            /* No value (absent value type of a set). */
    OVSDB_TYPE_INTEGER,         /* int64_t. */
    OVSDB_TYPE_REAL,            /* double. */
    OVSDB_TYPE_BOOLEAN,         /* bool. */
    OVSDB_TYPE_STRING,          /* Refcounted UTF-8 string. */
    OVSDB_TYPE_UUID,            /* struct uuid. */
    OVSDB_N_TYPES
};

/* Returns "integer", "real", "boolean", "string", "uuid" (or "void"). Inline,
 * like ovsdb_base_type_init() below, because ovsdb/engine/datum.c needs them
 * and type.c calls datum.c (for enum constraints): the call graph between the
 * two runs one way only. */
static inline const char *
ovsdb_atomic_type_to_string(enum ovsdb_atomic_type type)
{
    switch (type) {
    case OVSDB_TYPE_VOID:
        return "void";
    case OVSDB_TYPE_INTEGER:
        return "integer";
    case OVSDB_TYPE_REAL:
        return "real";
    case OVSDB_TYPE_BOOLEAN:
        return "boolean";
    case OVSDB_TYPE_STRING:
        return "string";
    case OVSDB_TYPE_UUID:
        return "uuid";
    case OVSDB_N_TYPES:
    default:
        return "<invalid>";
    }
}

/* Parses 'name'; returns false if it is not an atomic type name. */
bool ovsdb_atomic_type_from_string(const char *name,
                                   enum ovsdb_atomic_type *typep);

enum ovsdb_ref_type {
    OVSDB_REF_STRONG,           /* Referenced row must exist. */
    OVSDB_REF_WEAK              /* Dangling references are removed. */
};

struct ovsdb_base_type {
    enum ovsdb_atomic_type type;

    /* Allowed values, or NULL for no restriction.  A set datum of this
     * base type with no value type, owned by the base type. */
    struct ovsdb_datum *enum_;

    union {
        struct {
            int64_t min;        /* INT64_MIN if no minimum. */
            int64_t max;        /* INT64_MAX if no maximum. */
        } integer;
        struct {
            double min;         /* -DBL_MAX if no minimum. */
            double max;         /* DBL_MAX if no maximum. */
        } real;
        struct {
            unsigned int min_len;   /* 0 if no minimum (in characters). */
            unsigned int max_len;   /* UINT_MAX if no maximum. */
        } string;
        struct {
            char *ref_table_name;   /* Owned; NULL if not a reference. */
            struct ovsdb_table_schema *ref_table; /* Set by the schema. */
            enum ovsdb_ref_type ref_type;
        } uuid;
    };
};

struct ovsdb_type {
    struct ovsdb_base_type key;
    struct ovsdb_base_type value;   /* OVSDB_TYPE_VOID for a set. */
    unsigned int n_min;             /* 0 or 1. */
    unsigned int n_max;             /* >= 1, UINT_MAX for unlimited. */
};

#define OVSDB_UNLIMITED UINT_MAX

/* Initializes 'base' as an unconstrained base of 'type'. */
static inline void
ovsdb_base_type_init(struct ovsdb_base_type *base, enum ovsdb_atomic_type type)
{
    memset(base, 0, sizeof *base);
    base->type = type;
    base->enum_ = NULL;
    switch (type) {
    case OVSDB_TYPE_INTEGER:
        base->integer.min = INT64_MIN;
        base->integer.max = INT64_MAX;
        break;
    case OVSDB_TYPE_REAL:
        base->real.min = -DBL_MAX;
        base->real.max = DBL_MAX;
        break;
    case OVSDB_TYPE_STRING:
        base->string.min_len = 0;
        base->string.max_len = UINT_MAX;
        break;
    case OVSDB_TYPE_UUID:
        base->uuid.ref_table_name = NULL;
        base->uuid.ref_table = NULL;
        base->uuid.ref_type = OVSDB_REF_STRONG;
        break;
    case OVSDB_TYPE_VOID:
    case OVSDB_TYPE_BOOLEAN:
    case OVSDB_N_TYPES:
    default:
        break;
    }
}

/* Initializes 'type' as the type of 'base''s enum constraint: a set of any
 * number of unconstrained atoms of 'base''s atomic type. */
static inline void
ovsdb_type_init_enum(struct ovsdb_type *type,
                     const struct ovsdb_base_type *base)
{
    ovsdb_base_type_init(&type->key, base->type);
    ovsdb_base_type_init(&type->value, OVSDB_TYPE_VOID);
    type->n_min = 0;
    type->n_max = UINT_MAX;
}

void ovsdb_base_type_clone(struct ovsdb_base_type *dst,
                           const struct ovsdb_base_type *src);
void ovsdb_base_type_destroy(struct ovsdb_base_type *base);
bool ovsdb_base_type_equals(const struct ovsdb_base_type *,
                            const struct ovsdb_base_type *);
/* True if 'base' has any constraint beyond its atomic type. */
bool ovsdb_base_type_has_constraints(const struct ovsdb_base_type *base);
/* True for a uuid base with a refTable and refType strong/weak. */
bool ovsdb_base_type_is_strong_ref(const struct ovsdb_base_type *base);
bool ovsdb_base_type_is_weak_ref(const struct ovsdb_base_type *base);

/* Parses RFC 7047 <base-type> JSON ("integer" or {"type": ...}). */
struct ovsdb_error *ovsdb_base_type_from_json(struct ovsdb_base_type *base,
                                              const json_t *json)
    WARN_UNUSED_RESULT;
/* New reference: the shortest form, as the reference's get_schema. */
json_t *ovsdb_base_type_to_json(const struct ovsdb_base_type *base);

/* Initializes 'type' as a scalar of 'key' (exactly one key, no value). */
void ovsdb_type_init_scalar(struct ovsdb_type *type,
                            enum ovsdb_atomic_type key);
void ovsdb_type_clone(struct ovsdb_type *dst, const struct ovsdb_type *src);
void ovsdb_type_destroy(struct ovsdb_type *type);
bool ovsdb_type_equals(const struct ovsdb_type *, const struct ovsdb_type *);

/* Parses RFC 7047 <type> JSON; checks it is valid (min <= max, ...). */
struct ovsdb_error *ovsdb_type_from_json(struct ovsdb_type *type,
                                         const json_t *json)
    WARN_UNUSED_RESULT;
/* New reference, in the reference server's get_schema form. */
json_t *ovsdb_type_to_json(const struct ovsdb_type *type);

/* Returns 'type' in English as the reference's error messages spell it:
 * "integer", "set of up to 3 integers", "map of 1 or more (string,
 * integer) pairs"...  Caller must free with free(). */
char *ovsdb_type_to_english(const struct ovsdb_type *type);

static inline bool
ovsdb_type_is_scalar(const struct ovsdb_type *type)
{
    return type->value.type == OVSDB_TYPE_VOID && type->n_min == 1
           && type->n_max == 1;
}

static inline bool
ovsdb_type_is_optional(const struct ovsdb_type *type)
{
    return type->n_min == 0;
}

static inline bool
ovsdb_type_is_map(const struct ovsdb_type *type)
{
    return type->value.type != OVSDB_TYPE_VOID;
}

static inline bool
ovsdb_type_is_set(const struct ovsdb_type *type)
{
    return type->value.type == OVSDB_TYPE_VOID
           && (type->n_min != 1 || type->n_max != 1);
}

/* True if 'type' may hold several elements (a set or map with max > 1). */
static inline bool
ovsdb_type_is_composite(const struct ovsdb_type *type)
{
    return type->n_max > 1;
}

#endif /* ovsdb/engine/type.h */
