/* ovsdb/engine/datum.c: see datum.h. */
#include <config.h>
#include "ovsdb/engine/datum.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"

/* Strings. */

/* Returns a new heap string with one reference. */
static struct ovsdb_string *
ovsdb_string_create(const char *s, size_t length)
{
    struct ovsdb_string *str = xmalloc(sizeof *str + length + 1);
    str->n_refs = 1;
    str->length = length;
    memcpy(str->string, s, length);
    str->string[length] = '\0';
    return str;
}

static struct ovsdb_string *
ovsdb_string_ref(struct ovsdb_string *s)
{
    s->n_refs++;
    return s;
}

static void
ovsdb_string_unref(struct ovsdb_string *s)
{
    if (s && !--s->n_refs) {
        free(s);
    }
}

static void
string_ref(union ovsdb_atom *atom)
{
    if (!ovsdb_atom_string_is_inline(atom)) {
        ovsdb_string_ref(atom->str_);
    }
}

static void
string_unref(union ovsdb_atom *atom)
{
    if (!ovsdb_atom_string_is_inline(atom)) {
        ovsdb_string_unref(atom->str_);
    }
}

/* Stores the 'length' bytes at 's' in 'atom' itself, if they fit, and
 * returns true, or returns false. */
static bool
put_inline_string(union ovsdb_atom *atom, const char *s, size_t length)
{
    if (!OVSDB_INLINE_STRING_MAX || length > OVSDB_INLINE_STRING_MAX) {
        return false;
    }
    memset(atom, 0, sizeof *atom); /* The null and no stale bytes. */
    atom->inline_[0] = 2 * length + 1;
    memcpy(&atom->inline_[1], s, length);
    return true;
}

void
ovsdb_atom_init_string(union ovsdb_atom *atom, const char *s, size_t length)
{
    if (!put_inline_string(atom, s, length)) {
        atom->str_ = ovsdb_string_create(s, length);
    }
}

/* Strings parsed from JSON go through caches of recent short strings
 * (each holds one reference to each of its strings), so that the copies
 * of a repeated value share one string: a map key in every row, a chassis
 * or datapath name in every port, a tag in every row of a big insert.
 * Map keys and set elements repeat far more than map values, which are
 * often unique (counters, addresses, a queue's payload), so they have a
 * cache of their own that unique values cannot flush.  Each cache is
 * two-way set associative: a string used every few hundred parses keeps
 * its place against one other string of the same hash, where a
 * direct-mapped cache would lose it to any. */
#define STRING_CACHE_SETS 2048 /* A power of 2. */
#define STRING_CACHE_MAX_LENGTH 64
struct string_cache {
    struct ovsdb_string *ways[STRING_CACHE_SETS][2]; /* [0]: used last. */
};
static struct string_cache key_strings, value_strings;

static struct ovsdb_string *
cached_string(const char *s, size_t length, struct string_cache *cache)
{
    if (length > STRING_CACHE_MAX_LENGTH) {
        return ovsdb_string_create(s, length);
    }
    struct ovsdb_string *
        *set = cache->ways[hash_bytes(s, length, 0) & (STRING_CACHE_SETS - 1)];
    for (int i = 0; i < 2; i++) {
        struct ovsdb_string *str = set[i];
        if (str && str->length == length && !memcmp(str->string, s, length)) {
            set[i] = set[0];
            set[0] = str;
            return ovsdb_string_ref(str);
        }
    }
    ovsdb_string_unref(set[1]);
    set[1] = set[0];
    set[0] = ovsdb_string_create(s, length);
    return ovsdb_string_ref(set[0]);
}

/* Makes 'atom' the string 'json': in the atom if it fits, else through
 * 'cache'. */
static void
string_from_json(union ovsdb_atom *atom, const json_t *json,
                 struct string_cache *cache)
{
    const char *s = json_string_value(json);
    size_t length = json_string_length(json);
    if (!put_inline_string(atom, s, length)) {
        atom->str_ = cached_string(s, length, cache);
    }
}

/* Atoms. */

void
ovsdb_atom_init_default(union ovsdb_atom *atom, enum ovsdb_atomic_type type)
{
    switch (type) {
    case OVSDB_TYPE_INTEGER:
        atom->integer = 0;
        break;
    case OVSDB_TYPE_REAL:
        atom->real = 0.0;
        break;
    case OVSDB_TYPE_BOOLEAN:
        atom->boolean = false;
        break;
    case OVSDB_TYPE_STRING:
        ovsdb_atom_init_string(atom, "", 0);
        break;
    case OVSDB_TYPE_UUID:
        uuid_zero(&atom->uuid);
        break;
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        memset(atom, 0, sizeof *atom);
        break;
    }
}

bool
ovsdb_atom_is_default(const union ovsdb_atom *atom,
                      enum ovsdb_atomic_type type)
{
    switch (type) {
    case OVSDB_TYPE_INTEGER:
        return atom->integer == 0;
    case OVSDB_TYPE_REAL:
        return atom->real == 0.0;
    case OVSDB_TYPE_BOOLEAN:
        return !atom->boolean;
    case OVSDB_TYPE_STRING:
        return ovsdb_atom_string_length(atom) == 0;
    case OVSDB_TYPE_UUID:
        return uuid_is_zero(&atom->uuid);
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        return true;
    }
}

void
ovsdb_atom_clone(union ovsdb_atom *dst, const union ovsdb_atom *src,
                 enum ovsdb_atomic_type type)
{
    *dst = *src;
    if (type == OVSDB_TYPE_STRING) {
        string_ref(dst);
    }
}

void
ovsdb_atom_destroy(union ovsdb_atom *atom, enum ovsdb_atomic_type type)
{
    if (type == OVSDB_TYPE_STRING) {
        string_unref(atom);
    }
}

uint32_t
ovsdb_atom_hash(const union ovsdb_atom *atom, enum ovsdb_atomic_type type,
                uint32_t basis)
{
    switch (type) {
    case OVSDB_TYPE_INTEGER:
        return hash_uint64(atom->integer, basis);
    case OVSDB_TYPE_REAL: {
        double d = atom->real == 0.0 ? 0.0 : atom->real;  /* -0.0 == 0.0 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return hash_uint64(bits, basis);
    }
    case OVSDB_TYPE_BOOLEAN:
        return hash_int(atom->boolean, basis);
    case OVSDB_TYPE_STRING:
        return hash_bytes(ovsdb_atom_string(atom),
                          ovsdb_atom_string_length(atom), basis);
    case OVSDB_TYPE_UUID:
        return hash_int(uuid_hash(&atom->uuid), basis);
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        return basis;
    }
}

int
ovsdb_atom_compare_3way(const union ovsdb_atom *a, const union ovsdb_atom *b,
                        enum ovsdb_atomic_type type)
{
    switch (type) {
    case OVSDB_TYPE_INTEGER:
        return a->integer < b->integer ? -1 : a->integer > b->integer;
    case OVSDB_TYPE_REAL:
        return a->real < b->real ? -1 : a->real > b->real;
    case OVSDB_TYPE_BOOLEAN:
        return a->boolean - b->boolean;
    case OVSDB_TYPE_STRING:
        if (!ovsdb_atom_string_is_inline(a) && a->str_ == b->str_) {
            return 0;
        }
        return strcmp(ovsdb_atom_string(a), ovsdb_atom_string(b));
    case OVSDB_TYPE_UUID:
        return uuid_compare_3way(&a->uuid, &b->uuid);
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        return 0;
    }
}

static size_t
utf8_length(const char *s, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i < size; i++) {
        if (((unsigned char) s[i] & 0xc0) != 0x80) {
            n++;
        }
    }
    return n;
}

static void
put_real(struct ds *out, double d)
{
    jsonx_put_real(out, d);
}

static bool
string_needs_quotes(const char *s)
{
    const unsigned char *p = (const unsigned char *) s;
    if (!isalpha(*p) && *p != '_') {
        return true;
    }
    for (p++; *p; p++) {
        if (!isalnum(*p) && *p != '_' && *p != '-' && *p != '.') {
            return true;
        }
    }
    return !strcmp(s, "true") || !strcmp(s, "false");
}

static void
put_quoted_string(struct ds *out, const union ovsdb_atom *atom)
{
    json_t *json = json_stringn(ovsdb_atom_string(atom),
                                ovsdb_atom_string_length(atom));
    if (json) {
        jsonx_put(out, json);
        json_decref(json);
    } else {
        ds_put_format(out, "\"%s\"", ovsdb_atom_string(atom));
    }
}

void
ovsdb_atom_to_string(const union ovsdb_atom *atom,
                     enum ovsdb_atomic_type type, struct ds *out)
{
    switch (type) {
    case OVSDB_TYPE_INTEGER:
        ds_put_format(out, "%lld", (long long) atom->integer);
        break;
    case OVSDB_TYPE_REAL:
        put_real(out, atom->real);
        break;
    case OVSDB_TYPE_BOOLEAN:
        ds_put_cstr(out, atom->boolean ? "true" : "false");
        break;
    case OVSDB_TYPE_STRING:
        if (string_needs_quotes(ovsdb_atom_string(atom))) {
            put_quoted_string(out, atom);
        } else {
            ds_put_buffer(out, ovsdb_atom_string(atom),
                          ovsdb_atom_string_length(atom));
        }
        break;
    case OVSDB_TYPE_UUID:
        ds_put_format(out, UUID_FMT, UUID_ARGS(&atom->uuid));
        break;
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        break;
    }
}

struct ovsdb_error *
ovsdb_atom_check_constraints(const union ovsdb_atom *atom,
                             const struct ovsdb_base_type *base)
{
    if (base->enum_
        && ovsdb_datum_find_key(base->enum_, atom, base->type) == UINT_MAX) {
        struct ds a = DS_EMPTY_INITIALIZER, e = DS_EMPTY_INITIALIZER;
        struct ovsdb_type et;
        ovsdb_type_init_enum(&et, base);
        ovsdb_atom_to_string(atom, base->type, &a);
        ovsdb_datum_to_string(base->enum_, &et, &e);
        struct ovsdb_error *error = ovsdb_error(
            OVSDB_E_CONSTRAINT, "%s is not one of the allowed values (%s)",
            ds_cstr(&a), ds_cstr(&e));
        ds_destroy(&a);
        ds_destroy(&e);
        return error;
    }

    switch (base->type) {
    case OVSDB_TYPE_INTEGER: {
        long long v = atom->integer;
        long long min = base->integer.min, max = base->integer.max;
        if (v >= min && v <= max) {
            return NULL;
        } else if (min != INT64_MIN && max != INT64_MAX) {
            return ovsdb_error(OVSDB_E_CONSTRAINT, "%lld is not in the valid "
                               "range %lld to %lld (inclusive)", v, min, max);
        } else if (v < min) {
            return ovsdb_error(OVSDB_E_CONSTRAINT, "%lld is less than "
                               "minimum allowed value %lld", v, min);
        } else {
            return ovsdb_error(OVSDB_E_CONSTRAINT, "%lld is greater than "
                               "maximum allowed value %lld", v, max);
        }
    }
    case OVSDB_TYPE_REAL: {
        double v = atom->real;
        double min = base->real.min, max = base->real.max;
        if (v >= min && v <= max) {
            return NULL;
        }
        struct ds s = DS_EMPTY_INITIALIZER;
        put_real(&s, v);
        if (min != -DBL_MAX && max != DBL_MAX) {
            ds_put_cstr(&s, " is not in the valid range ");
            put_real(&s, min);
            ds_put_cstr(&s, " to ");
            put_real(&s, max);
            ds_put_cstr(&s, " (inclusive)");
        } else if (v < min) {
            ds_put_cstr(&s, " is less than minimum allowed value ");
            put_real(&s, min);
        } else {
            ds_put_cstr(&s, " is greater than maximum allowed value ");
            put_real(&s, max);
        }
        struct ovsdb_error *error = ovsdb_error(OVSDB_E_CONSTRAINT, "%s",
                                                ds_cstr(&s));
        ds_destroy(&s);
        return error;
    }
    case OVSDB_TYPE_STRING: {
        if (!base->string.min_len && base->string.max_len == UINT_MAX) {
            return NULL;
        }
        size_t n = utf8_length(ovsdb_atom_string(atom),
                               ovsdb_atom_string_length(atom));
        if (n >= base->string.min_len && n <= base->string.max_len) {
            return NULL;
        }
        struct ds s = DS_EMPTY_INITIALIZER;
        put_quoted_string(&s, atom);
        struct ovsdb_error *error;
        if (n < base->string.min_len) {
            error = ovsdb_error(OVSDB_E_CONSTRAINT, "%s length %zu is less "
                                "than minimum allowed length %u",
                                ds_cstr(&s), n, base->string.min_len);
        } else {
            error = ovsdb_error(OVSDB_E_CONSTRAINT, "%s length %zu is "
                                "greater than maximum allowed length %u",
                                ds_cstr(&s), n, base->string.max_len);
        }
        ds_destroy(&s);
        return error;
    }
    case OVSDB_TYPE_BOOLEAN:
    case OVSDB_TYPE_UUID:
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        return NULL;
    }
}

static struct ovsdb_error *
parse_uuid_atom(union ovsdb_atom *atom, const json_t *json,
                struct ovsdb_symbol_table *symtab,
                const struct ovsdb_base_type *base)
{
    if (json_is_array(json) && json_array_size(json) == 2
        && json_is_string(json_array_get(json, 0))
        && json_is_string(json_array_get(json, 1))) {
        const char *tag = json_string_value(json_array_get(json, 0));
        const char *value = json_string_value(json_array_get(json, 1));
        if (!strcmp(tag, "uuid")) {
            if (!uuid_from_string(&atom->uuid, value)) {
                return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                          "\"%s\" is not a valid UUID",
                                          value);
            }
            return NULL;
        } else if (!strcmp(tag, "named-uuid")) {
            if (!symtab) {
                return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                          "named-uuid is not allowed here");
            }
            struct ovsdb_symbol *symbol = ovsdb_symbol_table_insert(symtab,
                                                                    value);
            atom->uuid = symbol->uuid;
            if (base->uuid.ref_table_name) {
                if (base->uuid.ref_type == OVSDB_REF_STRONG) {
                    symbol->strong_ref = true;
                } else {
                    symbol->weak_ref = true;
                }
            }
            return NULL;
        }
    }
    return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                              "expected [\"uuid\", <string>]");
}

static struct ovsdb_error *
parse_atom(union ovsdb_atom *atom, const struct ovsdb_base_type *base,
           const json_t *json, struct ovsdb_symbol_table *symtab,
           struct string_cache *strings)
{
    switch (base->type) {
    case OVSDB_TYPE_INTEGER:
        if (json_is_integer(json)) {
            atom->integer = json_integer_value(json);
            return NULL;
        } else if (json_is_real(json)) {
            double d = json_real_value(json);
            if (d == floor(d) && d > -9223372036854775808.0
                && d < 9223372036854775808.0) {
                atom->integer = (int64_t) d;
                return NULL;
            }
        }
        break;
    case OVSDB_TYPE_REAL:
        if (json_is_number(json)) {
            atom->real = json_number_value(json);
            return NULL;
        }
        break;
    case OVSDB_TYPE_BOOLEAN:
        if (json_is_boolean(json)) {
            atom->boolean = json_is_true(json);
            return NULL;
        }
        break;
    case OVSDB_TYPE_STRING:
        if (json_is_string(json)) {
            string_from_json(atom, json, strings);
            return NULL;
        }
        break;
    case OVSDB_TYPE_UUID:
        return parse_uuid_atom(atom, json, symtab, base);
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        return OVSDB_BUG("parsing atom of void type");
    }
    return ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "expected %s",
                              ovsdb_atomic_type_to_string(base->type));
}

/* ovsdb_atom_from_json() with the string cache for the atom's role. */
static struct ovsdb_error *
atom_from_json(union ovsdb_atom *atom, const struct ovsdb_base_type *base,
               const json_t *json, struct ovsdb_symbol_table *symtab,
               struct string_cache *strings)
{
    struct ovsdb_error *error = parse_atom(atom, base, json, symtab, strings);
    if (!error) {
        error = ovsdb_atom_check_constraints(atom, base);
        if (error) {
            ovsdb_atom_destroy(atom, base->type);
        }
    }
    return error;
}

struct ovsdb_error *
ovsdb_atom_from_json(union ovsdb_atom *atom,
                     const struct ovsdb_base_type *base, const json_t *json,
                     struct ovsdb_symbol_table *symtab)
{
    return atom_from_json(atom, base, json, symtab, &value_strings);
}

json_t *
ovsdb_atom_to_json(const union ovsdb_atom *atom, enum ovsdb_atomic_type type)
{
    switch (type) {
    case OVSDB_TYPE_INTEGER:
        return json_integer(atom->integer);
    case OVSDB_TYPE_REAL:
        return json_real(atom->real);
    case OVSDB_TYPE_BOOLEAN:
        return json_boolean(atom->boolean);
    case OVSDB_TYPE_STRING:
        return json_stringn_nocheck(ovsdb_atom_string(atom),
                                    ovsdb_atom_string_length(atom));
    case OVSDB_TYPE_UUID: {
        char s[UUID_LEN + 1];
        uuid_to_string(&atom->uuid, s);
        return jsonx_tagged_new("uuid", json_string_nocheck(s));
    }
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        return json_null();
    }
}

/* Datums. */

/* Frees the array of 'd' (not the atoms) and makes it empty. */
static void
free_arrays(struct ovsdb_datum *d)
{
    if (!d->keys_inline) {
        free(d->keys);
    }
    d->keys = NULL;
    d->keys_inline = false;
    d->n = 0;
}

void
ovsdb_datum_init_empty(struct ovsdb_datum *datum)
{
    datum->n = 0;
    datum->keys_inline = false;
    datum->is_map = false;
    datum->keys = NULL;
}

/* Allocates room for 'n' keys and, for a map, 'n' values after them. */
static void
datum_alloc(struct ovsdb_datum *datum, unsigned int n, bool is_map)
{
    datum->n = n;
    datum->keys_inline = false;
    datum->is_map = is_map;
    size_t n_atoms = is_map ? 2 * (size_t) n : n;
    datum->keys = n ? xmalloc(n_atoms * sizeof *datum->keys) : NULL;
}

/* For 'd' allocated for 'n_alloc' elements of which the first 'n' are set
 * (for a map, their values from index 'n_alloc'): moves the values next to
 * the keys, gives back the unused room and sets 'd->n'. */
static void
finish_elements(struct ovsdb_datum *d, unsigned int n, unsigned int n_alloc)
{
    if (!n) {
        free_arrays(d);
        return;
    }
    if (n != n_alloc && !d->keys_inline) {
        if (d->is_map) {
            memmove(&d->keys[n], &d->keys[n_alloc], n * sizeof *d->keys);
        }
        size_t n_atoms = d->is_map ? 2 * (size_t) n : n;
        d->keys = xrealloc(d->keys, n_atoms * sizeof *d->keys);
    }
    d->n = n;
}

void
ovsdb_datum_init_default(struct ovsdb_datum *datum,
                         const struct ovsdb_type *type)
{
    if (type->n_min == 0) {
        ovsdb_datum_init_empty(datum);
        return;
    }
    datum_alloc(datum, 1, ovsdb_type_is_map(type));
    ovsdb_atom_init_default(&datum->keys[0], type->key.type);
    if (datum->is_map) {
        ovsdb_atom_init_default(&datum->keys[1], type->value.type);
    }
}

bool
ovsdb_datum_is_default(const struct ovsdb_datum *datum,
                       const struct ovsdb_type *type)
{
    if (type->n_min == 0) {
        return datum->n == 0;
    }
    return datum->n == 1
           && ovsdb_atom_is_default(&datum->keys[0], type->key.type)
           && (!ovsdb_type_is_map(type)
               || ovsdb_atom_is_default(&datum->keys[1], type->value.type));
}

void
ovsdb_datum_init_atom(struct ovsdb_datum *datum, const union ovsdb_atom *atom,
                      enum ovsdb_atomic_type type)
{
    datum_alloc(datum, 1, false);
    ovsdb_atom_clone(&datum->keys[0], atom, type);
}

static void
clone_atoms(union ovsdb_atom *dst, const union ovsdb_atom *src,
            unsigned int n, enum ovsdb_atomic_type type)
{
    if (!n) {
        return;                 /* 'dst' and 'src' may be NULL. */
    }
    memcpy(dst, src, n * sizeof *dst);
    if (type == OVSDB_TYPE_STRING) {
        for (unsigned int i = 0; i < n; i++) {
            string_ref(&dst[i]);
        }
    }
}

static void
destroy_atoms(union ovsdb_atom *atoms, unsigned int n,
              enum ovsdb_atomic_type type)
{
    if (type == OVSDB_TYPE_STRING) {
        for (unsigned int i = 0; i < n; i++) {
            string_unref(&atoms[i]);
        }
    }
}

void
ovsdb_datum_clone(struct ovsdb_datum *dst, const struct ovsdb_datum *src,
                  const struct ovsdb_type *type)
{
    const union ovsdb_atom *values = ovsdb_datum_values(src);
    datum_alloc(dst, src->n, values != NULL);
    clone_atoms(dst->keys, src->keys, src->n, type->key.type);
    if (values) {
        clone_atoms(&dst->keys[src->n], values, src->n, type->value.type);
    }
}

void
ovsdb_datum_destroy(struct ovsdb_datum *datum, const struct ovsdb_type *type)
{
    union ovsdb_atom *values = ovsdb_datum_values(datum);
    destroy_atoms(datum->keys, datum->n, type->key.type);
    if (values) {
        destroy_atoms(values, datum->n, type->value.type);
    }
    free_arrays(datum);
}

void
ovsdb_datum_replace(struct ovsdb_datum *dst, const struct ovsdb_datum *src,
                    const struct ovsdb_type *type)
{
    if (dst->keys_inline && src->n == 1 && !src->is_map) {
        union ovsdb_atom atom;
        ovsdb_atom_clone(&atom, &src->keys[0], type->key.type);
        destroy_atoms(dst->keys, dst->n, type->key.type);
        dst->keys[0] = atom;
        dst->n = 1;
        return;
    }
    struct ovsdb_datum copy;
    ovsdb_datum_clone(&copy, src, type);
    ovsdb_datum_destroy(dst, type);
    *dst = copy;
}

void
ovsdb_datum_move(struct ovsdb_datum *dst, struct ovsdb_datum *src,
                 const struct ovsdb_type *type)
{
    if (src->keys_inline) {
        ovsdb_datum_replace(dst, src, type);
        ovsdb_datum_destroy(src, type);
    } else if (dst->keys_inline && src->n == 1 && !src->is_map) {
        destroy_atoms(dst->keys, dst->n, type->key.type);
        dst->keys[0] = src->keys[0];      /* Takes the string reference. */
        dst->n = 1;
        free_arrays(src);
    } else {
        ovsdb_datum_destroy(dst, type);
        *dst = *src;
        ovsdb_datum_init_empty(src);
    }
}

void
ovsdb_datum_clone_inline(struct ovsdb_datum *dst,
                         const struct ovsdb_datum *src,
                         union ovsdb_atom *slot,
                         const struct ovsdb_type *type)
{
    dst->n = 1;
    dst->keys_inline = true;
    dst->is_map = false;
    dst->keys = slot;
    ovsdb_atom_clone(slot, &src->keys[0], type->key.type);
}

void
ovsdb_datum_swap(struct ovsdb_datum *a, struct ovsdb_datum *b)
{
    struct ovsdb_datum tmp = *a;
    *a = *b;
    *b = tmp;
}

/* Sorting. */

struct sort_pair {
    union ovsdb_atom key;
    union ovsdb_atom value;
};

static int
compare_pairs(const void *a_, const void *b_, void *type_)
{
    const struct sort_pair *a = a_, *b = b_;
    const enum ovsdb_atomic_type *type = type_;
    return ovsdb_atom_compare_3way(&a->key, &b->key, *type);
}

static int
compare_atoms(const void *a_, const void *b_, void *type_)
{
    const enum ovsdb_atomic_type *type = type_;
    return ovsdb_atom_compare_3way(a_, b_, *type);
}

static bool
datum_is_sorted(const struct ovsdb_datum *datum, enum ovsdb_atomic_type type)
{
    for (unsigned int i = 1; i < datum->n; i++) {
        if (ovsdb_atom_compare_3way(&datum->keys[i - 1], &datum->keys[i],
                                    type) >= 0) {
            return false;
        }
    }
    return true;
}

static void
datum_sort_unchecked(struct ovsdb_datum *datum, const struct ovsdb_type *type)
{
    enum ovsdb_atomic_type kt = type->key.type;
    if (datum->n < 2 || datum_is_sorted(datum, kt)) {
        return;
    }
    union ovsdb_atom *values = ovsdb_datum_values(datum);
    if (!values) {
        qsort_r(datum->keys, datum->n, sizeof *datum->keys, compare_atoms,
                &kt);
        return;
    }
    /* The values must move with their keys. */
    struct sort_pair *pairs = xmalloc(datum->n * sizeof *pairs);
    for (unsigned int i = 0; i < datum->n; i++) {
        pairs[i].key = datum->keys[i];
        pairs[i].value = values[i];
    }
    qsort_r(pairs, datum->n, sizeof *pairs, compare_pairs, &kt);
    for (unsigned int i = 0; i < datum->n; i++) {
        datum->keys[i] = pairs[i].key;
        values[i] = pairs[i].value;
    }
    free(pairs);
}

struct ovsdb_error *
ovsdb_datum_sort(struct ovsdb_datum *datum, const struct ovsdb_type *type)
{
    datum_sort_unchecked(datum, type);
    for (unsigned int i = 1; i < datum->n; i++) {
        if (ovsdb_atom_equals(&datum->keys[i - 1], &datum->keys[i],
                              type->key.type)) {
            return ovsdb_error(OVSDB_E_OVSDB,
                               (datum->is_map ? "map contains duplicate key"
                                              : "set contains duplicate"));
        }
    }
    return NULL;
}

/* JSON. */

/* Destroys 'datum', allocated for datum->n elements of which only the first
 * 'n' (keys and, for a map, values) are set. */
static void
destroy_partial(struct ovsdb_datum *datum, unsigned int n,
                const struct ovsdb_type *type)
{
    destroy_atoms(datum->keys, n, type->key.type);
    if (datum->is_map) {
        destroy_atoms(&datum->keys[datum->n], n, type->value.type);
    }
    free_arrays(datum);
}

static struct ovsdb_error *
datum_from_json(struct ovsdb_datum *datum, const struct ovsdb_type *type,
                const json_t *json, struct ovsdb_symbol_table *symtab,
                bool check_size)
{
    bool is_map = ovsdb_type_is_map(type);
    ovsdb_datum_init_empty(datum);

    if (is_map
        || (json_is_array(json) && json_array_size(json) > 0
            && json_is_string(json_array_get(json, 0))
            && !strcmp(json_string_value(json_array_get(json, 0)), "set"))) {
        const char *class = is_map ? "map" : "set";
        if (!jsonx_is_tagged_array(json, class, 2)
            || !json_is_array(json_array_get(json, 1))) {
            return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                      "expected [\"%s\", <array>]", class);
        }
        const json_t *inner = json_array_get(json, 1);
        size_t n = json_array_size(inner);
        if (check_size && (n < type->n_min || n > type->n_max)) {
            if (type->n_min == 1 && type->n_max == 1) {
                return ovsdb_syntax_error(json, OVSDB_E_SYNTAX, "%s must "
                                          "have exactly one member but %zu "
                                          "are present", class, n);
            }
            return ovsdb_syntax_error(json, OVSDB_E_SYNTAX,
                                      "%s must have %u to %u members but "
                                      "%zu are present", class, type->n_min,
                                      type->n_max, n);
        }

        datum_alloc(datum, n, is_map);
        union ovsdb_atom *values = ovsdb_datum_values(datum);
        for (size_t i = 0; i < n; i++) {
            const json_t *elem = json_array_get(inner, i);
            const json_t *key_json = elem, *value_json = NULL;
            struct ovsdb_error *error = NULL;
            if (is_map) {
                if (!json_is_array(elem) || json_array_size(elem) != 2) {
                    error = ovsdb_syntax_error(elem, OVSDB_E_SYNTAX,
                                               "expected 2-element array");
                    destroy_partial(datum, i, type);
                    return error;
                }
                key_json = json_array_get(elem, 0);
                value_json = json_array_get(elem, 1);
            }
            /* A set's elements are cached as keys: both repeat. */
            error = atom_from_json(&datum->keys[i], &type->key, key_json,
                                   symtab, &key_strings);
            if (error) {
                destroy_partial(datum, i, type);
                return error;
            }
            if (is_map) {
                error = atom_from_json(&values[i], &type->value, value_json,
                                       symtab, &value_strings);
                if (error) {
                    ovsdb_atom_destroy(&datum->keys[i], type->key.type);
                    destroy_partial(datum, i, type);
                    return error;
                }
            }
        }
        struct ovsdb_error *error = ovsdb_datum_sort(datum, type);
        if (error) {
            ovsdb_datum_destroy(datum, type);
        }
        return error;
    }

    /* A bare atom. */
    datum_alloc(datum, 1, false);
    struct ovsdb_error *error = ovsdb_atom_from_json(&datum->keys[0],
                                                     &type->key, json,
                                                     symtab);
    if (error) {
        free_arrays(datum);
    }
    return error;
}

struct ovsdb_error *
ovsdb_datum_from_json(struct ovsdb_datum *datum,
                      const struct ovsdb_type *type, const json_t *json,
                      struct ovsdb_symbol_table *symtab)
{
    return datum_from_json(datum, type, json, symtab, true);
}

struct ovsdb_error *
ovsdb_datum_from_json_unbounded(struct ovsdb_datum *datum,
                                const struct ovsdb_type *type,
                                const json_t *json,
                                struct ovsdb_symbol_table *symtab)
{
    return datum_from_json(datum, type, json, symtab, false);
}

json_t *
ovsdb_datum_to_json(const struct ovsdb_datum *datum,
                    const struct ovsdb_type *type)
{
    if (ovsdb_type_is_map(type)) {
        const union ovsdb_atom *values = ovsdb_datum_values(datum);
        json_t *pairs = json_array();
        for (unsigned int i = 0; i < datum->n; i++) {
            json_t *pair = json_array();
            json_array_append_new(pair, ovsdb_atom_to_json(&datum->keys[i],
                                                           type->key.type));
            json_array_append_new(pair, ovsdb_atom_to_json(&values[i],
                                                           type->value.type));
            json_array_append_new(pairs, pair);
        }
        return jsonx_tagged_new("map", pairs);
    } else if (datum->n == 1) {
        return ovsdb_atom_to_json(&datum->keys[0], type->key.type);
    } else {
        json_t *elems = json_array();
        for (unsigned int i = 0; i < datum->n; i++) {
            json_array_append_new(elems, ovsdb_atom_to_json(&datum->keys[i],
                                                            type->key.type));
        }
        return jsonx_tagged_new("set", elems);
    }
}

void
ovsdb_atom_put_json(struct ds *out, const union ovsdb_atom *atom,
                    enum ovsdb_atomic_type type)
{
    switch (type) {
    case OVSDB_TYPE_INTEGER:
        jsonx_put_integer(out, atom->integer);
        break;
    case OVSDB_TYPE_REAL:
        jsonx_put_real(out, atom->real);
        break;
    case OVSDB_TYPE_BOOLEAN:
        ds_put_cstr(out, atom->boolean ? "true" : "false");
        break;
    case OVSDB_TYPE_STRING:
        jsonx_put_string(out, ovsdb_atom_string(atom),
                         ovsdb_atom_string_length(atom));
        break;
    case OVSDB_TYPE_UUID: {
        char *p = ds_put_uninit(out, UUID_LEN + 11);
        memcpy(p, "[\"uuid\",\"", 9);
        uuid_to_string(&atom->uuid, p + 9);
        memcpy(p + 9 + UUID_LEN, "\"]", 2);
        break;
    }
    case OVSDB_TYPE_VOID:
    case OVSDB_N_TYPES:
    default:
        ds_put_cstr(out, "null");
        break;
    }
}

void
ovsdb_datum_put_json(struct ds *out, const struct ovsdb_datum *datum,
                     const struct ovsdb_type *type)
{
    if (ovsdb_type_is_map(type)) {
        const union ovsdb_atom *values = ovsdb_datum_values(datum);
        ds_put_cstr(out, "[\"map\",[");
        for (unsigned int i = 0; i < datum->n; i++) {
            ds_put_cstr(out, i ? ",[" : "[");
            ovsdb_atom_put_json(out, &datum->keys[i], type->key.type);
            ds_put_char(out, ',');
            ovsdb_atom_put_json(out, &values[i], type->value.type);
            ds_put_char(out, ']');
        }
        ds_put_cstr(out, "]]");
    } else if (datum->n == 1) {
        ovsdb_atom_put_json(out, &datum->keys[0], type->key.type);
    } else {
        ds_put_cstr(out, "[\"set\",[");
        for (unsigned int i = 0; i < datum->n; i++) {
            if (i) {
                ds_put_char(out, ',');
            }
            ovsdb_atom_put_json(out, &datum->keys[i], type->key.type);
        }
        ds_put_cstr(out, "]]");
    }
}

struct ovsdb_error *
ovsdb_datum_check_size(const struct ovsdb_datum *datum,
                       const struct ovsdb_type *type)
{
    if (datum->n < type->n_min) {
        return ovsdb_error(OVSDB_E_CONSTRAINT,
                           "%u values when type requires at least %u",
                           datum->n, type->n_min);
    } else if (datum->n > type->n_max) {
        return ovsdb_error(OVSDB_E_CONSTRAINT,
                           "%u values when type requires at most %u",
                           datum->n, type->n_max);
    }
    return NULL;
}

struct ovsdb_error *
ovsdb_datum_check_constraints(const struct ovsdb_datum *datum,
                              const struct ovsdb_type *type)
{
    const union ovsdb_atom *values = ovsdb_datum_values(datum);
    for (unsigned int i = 0; i < datum->n; i++) {
        struct ovsdb_error *error;
        error = ovsdb_atom_check_constraints(&datum->keys[i], &type->key);
        if (!error && values) {
            error = ovsdb_atom_check_constraints(&values[i], &type->value);
        }
        if (error) {
            return error;
        }
    }
    return NULL;
}

/* Comparison. */

uint32_t
ovsdb_datum_hash(const struct ovsdb_datum *datum,
                 const struct ovsdb_type *type, uint32_t basis)
{
    const union ovsdb_atom *values = ovsdb_datum_values(datum);
    uint32_t hash = basis;
    for (unsigned int i = 0; i < datum->n; i++) {
        hash = ovsdb_atom_hash(&datum->keys[i], type->key.type, hash);
        if (values) {
            hash = ovsdb_atom_hash(&values[i], type->value.type, hash);
        }
    }
    return hash_finish(hash, datum->n);
}

int
ovsdb_datum_compare_3way(const struct ovsdb_datum *a,
                         const struct ovsdb_datum *b,
                         const struct ovsdb_type *type)
{
    if (a->n != b->n) {
        return a->n < b->n ? -1 : 1;
    }
    for (unsigned int i = 0; i < a->n; i++) {
        int c = ovsdb_atom_compare_3way(&a->keys[i], &b->keys[i],
                                        type->key.type);
        if (c) {
            return c;
        }
    }
    if (ovsdb_type_is_map(type)) {
        const union ovsdb_atom *av = ovsdb_datum_values(a);
        const union ovsdb_atom *bv = ovsdb_datum_values(b);
        for (unsigned int i = 0; i < a->n; i++) {
            int c = ovsdb_atom_compare_3way(&av[i], &bv[i], type->value.type);
            if (c) {
                return c;
            }
        }
    }
    return 0;
}

bool
ovsdb_datum_equals(const struct ovsdb_datum *a, const struct ovsdb_datum *b,
                   const struct ovsdb_type *type)
{
    return !ovsdb_datum_compare_3way(a, b, type);
}

unsigned int
ovsdb_datum_find_key(const struct ovsdb_datum *datum,
                     const union ovsdb_atom *key,
                     enum ovsdb_atomic_type key_type)
{
    unsigned int low = 0, high = datum->n;
    while (low < high) {
        unsigned int mid = low + (high - low) / 2;
        int c = ovsdb_atom_compare_3way(key, &datum->keys[mid], key_type);
        if (c < 0) {
            high = mid;
        } else if (c > 0) {
            low = mid + 1;
        } else {
            return mid;
        }
    }
    return UINT_MAX;
}

/* Returns the index in 'b' of element 'i' of 'a' (key and, for maps,
 * value), or UINT_MAX. */
static unsigned int
find_element(const struct ovsdb_datum *a, unsigned int i,
             const struct ovsdb_datum *b, const struct ovsdb_type *type)
{
    unsigned int j = ovsdb_datum_find_key(b, &a->keys[i], type->key.type);
    if (j != UINT_MAX && ovsdb_type_is_map(type)
        && !ovsdb_atom_equals(&ovsdb_datum_values(a)[i],
                              &ovsdb_datum_values(b)[j], type->value.type)) {
        return UINT_MAX;
    }
    return j;
}

bool
ovsdb_datum_includes_all(const struct ovsdb_datum *a,
                         const struct ovsdb_datum *b,
                         const struct ovsdb_type *type)
{
    if (a->n > b->n) {
        return false;
    }
    for (unsigned int i = 0; i < a->n; i++) {
        if (find_element(a, i, b, type) == UINT_MAX) {
            return false;
        }
    }
    return true;
}

bool
ovsdb_datum_excludes_all(const struct ovsdb_datum *a,
                         const struct ovsdb_datum *b,
                         const struct ovsdb_type *type)
{
    for (unsigned int i = 0; i < a->n; i++) {
        if (find_element(a, i, b, type) != UINT_MAX) {
            return false;
        }
    }
    return true;
}

/* Merges sorted 'a' and the elements of sorted 'b' selected by 'take_b'
 * into a new array, replacing 'a'.  Elements of 'b' are cloned. */
static void
merge_into(struct ovsdb_datum *a, const struct ovsdb_datum *b,
           const bool *take_b, const struct ovsdb_type *type)
{
    bool is_map = ovsdb_type_is_map(type);
    unsigned int n_take = 0;
    for (unsigned int j = 0; j < b->n; j++) {
        n_take += take_b[j];
    }
    if (!n_take) {
        return;
    }

    struct ovsdb_datum out;
    datum_alloc(&out, a->n + n_take, is_map);
    union ovsdb_atom *out_values = ovsdb_datum_values(&out);
    const union ovsdb_atom *a_values = ovsdb_datum_values(a);
    const union ovsdb_atom *b_values = ovsdb_datum_values(b);
    unsigned int i = 0, j = 0, k = 0;
    enum ovsdb_atomic_type kt = type->key.type, vt = type->value.type;
    while (i < a->n || j < b->n) {
        if (j < b->n && !take_b[j]) {
            j++;
            continue;
        }
        bool from_a = j >= b->n
                      || (i < a->n && ovsdb_atom_compare_3way(
                              &a->keys[i], &b->keys[j], kt) < 0);
        if (from_a) {
            out.keys[k] = a->keys[i];
            if (is_map) {
                out_values[k] = a_values[i];
            }
            i++;
        } else {
            ovsdb_atom_clone(&out.keys[k], &b->keys[j], kt);
            if (is_map) {
                ovsdb_atom_clone(&out_values[k], &b_values[j], vt);
            }
            j++;
        }
        k++;
    }
    free_arrays(a);
    *a = out;
}

void
ovsdb_datum_union(struct ovsdb_datum *a, const struct ovsdb_datum *b,
                  const struct ovsdb_type *type)
{
    bool *take = xmalloc((b->n ? b->n : 1) * sizeof *take);
    for (unsigned int j = 0; j < b->n; j++) {
        take[j] = ovsdb_datum_find_key(a, &b->keys[j], type->key.type)
                  == UINT_MAX;
    }
    merge_into(a, b, take, type);
    free(take);
}

/* Removes the elements of 'a' for which 'drop[i]' is true. */
static void
drop_elements(struct ovsdb_datum *a, const bool *drop,
              const struct ovsdb_type *type)
{
    union ovsdb_atom *values = ovsdb_datum_values(a);
    unsigned int k = 0;
    for (unsigned int i = 0; i < a->n; i++) {
        if (drop[i]) {
            ovsdb_atom_destroy(&a->keys[i], type->key.type);
            if (values) {
                ovsdb_atom_destroy(&values[i], type->value.type);
            }
        } else {
            a->keys[k] = a->keys[i];
            if (values) {
                values[k] = values[i];
            }
            k++;
        }
    }
    finish_elements(a, k, a->n);
}

void
ovsdb_datum_subtract(struct ovsdb_datum *a, const struct ovsdb_type *a_type,
                     const struct ovsdb_datum *b,
                     const struct ovsdb_type *b_type)
{
    if (!a->n || !b->n) {
        return;
    }
    bool *drop = xzalloc(a->n * sizeof *drop);
    bool any = false;
    for (unsigned int i = 0; i < a->n; i++) {
        unsigned int j = ovsdb_datum_find_key(b, &a->keys[i],
                                              a_type->key.type);
        if (j == UINT_MAX) {
            continue;
        }
        if (ovsdb_type_is_map(b_type)
            && !ovsdb_atom_equals(&ovsdb_datum_values(a)[i],
                                  &ovsdb_datum_values(b)[j],
                                  a_type->value.type)) {
            continue;
        }
        drop[i] = any = true;
    }
    if (any) {
        drop_elements(a, drop, a_type);
    }
    free(drop);
}

void
ovsdb_datum_put(struct ovsdb_datum *datum, const union ovsdb_atom *key,
                const union ovsdb_atom *value, const struct ovsdb_type *type)
{
    unsigned int idx = ovsdb_datum_find_key(datum, key, type->key.type);
    bool is_map = ovsdb_type_is_map(type);
    if (idx != UINT_MAX) {
        if (is_map) {
            union ovsdb_atom *values = ovsdb_datum_values(datum);
            ovsdb_atom_destroy(&values[idx], type->value.type);
            ovsdb_atom_clone(&values[idx], value, type->value.type);
        }
        return;
    }

    unsigned int n = datum->n;
    unsigned int pos = 0;
    enum ovsdb_atomic_type kt = type->key.type;
    while (pos < n
           && ovsdb_atom_compare_3way(&datum->keys[pos], key, kt) < 0) {
        pos++;
    }
    union ovsdb_atom *keys;
    if (datum->keys_inline) {
        /* Only a set's one key is ever inline. */
        keys = xmalloc((n + 1) * sizeof *keys);
        memcpy(keys, datum->keys, n * sizeof *keys);
        datum->keys_inline = false;
    } else {
        size_t n_atoms = is_map ? 2 * ((size_t) n + 1) : (size_t) n + 1;
        keys = xrealloc(datum->keys, n_atoms * sizeof *keys);
    }
    if (is_map) {
        /* [n keys][n values] becomes [n + 1 keys][n + 1 values] with a gap
         * at 'pos' in each: the values after 'pos' move by 2, those before
         * by 1, then the keys after 'pos' by 1, each into room already
         * vacated. */
        memmove(&keys[n + pos + 2], &keys[n + pos], (n - pos) * sizeof *keys);
        memmove(&keys[n + 1], &keys[n], pos * sizeof *keys);
        ovsdb_atom_clone(&keys[n + 1 + pos], value, type->value.type);
    }
    memmove(&keys[pos + 1], &keys[pos], (n - pos) * sizeof *keys);
    ovsdb_atom_clone(&keys[pos], key, kt);
    datum->keys = keys;
    datum->is_map = is_map;
    datum->n = n + 1;
}

void
ovsdb_datum_remove(struct ovsdb_datum *datum, unsigned int idx,
                   const struct ovsdb_type *type)
{
    unsigned int n = datum->n;
    union ovsdb_atom *keys = datum->keys;
    union ovsdb_atom *values = ovsdb_datum_values(datum);
    ovsdb_atom_destroy(&keys[idx], type->key.type);
    memmove(&keys[idx], &keys[idx + 1], (n - idx - 1) * sizeof *keys);
    if (values) {
        /* The values move down by 1 before 'idx' and by 2 after it, into
         * room already vacated. */
        ovsdb_atom_destroy(&values[idx], type->value.type);
        memmove(&keys[n - 1], &values[0], idx * sizeof *keys);
        memmove(&keys[n - 1 + idx], &values[idx + 1],
                (n - idx - 1) * sizeof *keys);
    }
    datum->n = n - 1;
    if (!datum->n) {
        free_arrays(datum);
    }
}

/* Diffs. */

void
ovsdb_datum_diff(struct ovsdb_datum *diff, const struct ovsdb_datum *old,
                 const struct ovsdb_datum *new,
                 const struct ovsdb_type *type)
{
    bool is_map = ovsdb_type_is_map(type);
    enum ovsdb_atomic_type kt = type->key.type, vt = type->value.type;
    const union ovsdb_atom *ov = ovsdb_datum_values(old);
    const union ovsdb_atom *nv = ovsdb_datum_values(new);
    unsigned int n_alloc = old->n + new->n;
    datum_alloc(diff, n_alloc, is_map);
    union ovsdb_atom *dv = ovsdb_datum_values(diff);
    unsigned int i = 0, j = 0, k = 0;
    while (i < old->n || j < new->n) {
        int c = (i >= old->n ? 1
                 : j >= new->n ? -1
                 : ovsdb_atom_compare_3way(&old->keys[i], &new->keys[j], kt));
        if (c < 0) {
            ovsdb_atom_clone(&diff->keys[k], &old->keys[i], kt);
            if (is_map) {
                ovsdb_atom_clone(&dv[k], &ov[i], vt);
            }
            i++;
            k++;
        } else if (c > 0) {
            ovsdb_atom_clone(&diff->keys[k], &new->keys[j], kt);
            if (is_map) {
                ovsdb_atom_clone(&dv[k], &nv[j], vt);
            }
            j++;
            k++;
        } else {
            if (is_map && !ovsdb_atom_equals(&ov[i], &nv[j], vt)) {
                ovsdb_atom_clone(&diff->keys[k], &new->keys[j], kt);
                ovsdb_atom_clone(&dv[k], &nv[j], vt);
                k++;
            }
            i++;
            j++;
        }
    }
    finish_elements(diff, k, n_alloc);
}

struct ovsdb_error *
ovsdb_datum_apply_diff(struct ovsdb_datum *new, const struct ovsdb_datum *old,
                       const struct ovsdb_datum *diff,
                       const struct ovsdb_type *type)
{
    bool is_map = ovsdb_type_is_map(type);
    enum ovsdb_atomic_type kt = type->key.type, vt = type->value.type;
    const union ovsdb_atom *ov = ovsdb_datum_values(old);
    const union ovsdb_atom *dv = ovsdb_datum_values(diff);
    unsigned int n_alloc = old->n + diff->n;
    datum_alloc(new, n_alloc, is_map);
    union ovsdb_atom *nv = ovsdb_datum_values(new);
    unsigned int i = 0, j = 0, k = 0;
    while (i < old->n || j < diff->n) {
        int c = (i >= old->n ? 1
                 : j >= diff->n ? -1
                 : ovsdb_atom_compare_3way(&old->keys[i], &diff->keys[j],
                                           kt));
        const union ovsdb_atom *key = NULL, *value = NULL;
        if (c < 0) {
            key = &old->keys[i];
            value = is_map ? &ov[i] : NULL;
            i++;
        } else if (c > 0) {
            key = &diff->keys[j];
            value = is_map ? &dv[j] : NULL;
            j++;
        } else {
            if (is_map && !ovsdb_atom_equals(&ov[i], &dv[j], vt)) {
                key = &diff->keys[j];
                value = &dv[j];
            }
            i++;
            j++;
        }
        if (key) {
            ovsdb_atom_clone(&new->keys[k], key, kt);
            if (is_map) {
                ovsdb_atom_clone(&nv[k], value, vt);
            }
            k++;
        }
    }
    finish_elements(new, k, n_alloc);
    struct ovsdb_error *error = ovsdb_datum_check_size(new, type);
    if (error) {
        ovsdb_datum_destroy(new, type);
    }
    return error;
}

struct ovsdb_error *
ovsdb_datum_diff_from_json(struct ovsdb_datum *diff,
                           const struct ovsdb_type *type, const json_t *json)
{
    struct ovsdb_type t = *type;
    t.n_min = 0;
    t.n_max = UINT_MAX;
    return ovsdb_datum_from_json_unbounded(diff, &t, json, NULL);
}

void
ovsdb_datum_to_string(const struct ovsdb_datum *datum,
                      const struct ovsdb_type *type, struct ds *out)
{
    bool is_map = ovsdb_type_is_map(type);
    bool brackets = type->n_max > 1 || !datum->n;
    if (brackets) {
        ds_put_char(out, is_map ? '{' : '[');
    }
    const union ovsdb_atom *values = ovsdb_datum_values(datum);
    for (unsigned int i = 0; i < datum->n; i++) {
        if (i) {
            ds_put_cstr(out, ", ");
        }
        ovsdb_atom_to_string(&datum->keys[i], type->key.type, out);
        if (is_map) {
            ds_put_char(out, '=');
            ovsdb_atom_to_string(&values[i], type->value.type, out);
        }
    }
    if (brackets) {
        ds_put_char(out, is_map ? '}' : ']');
    }
}

/* Symbol tables. */

struct ovsdb_symbol_table {
    struct hmap sh;
};

struct ovsdb_symbol_table *
ovsdb_symbol_table_create(void)
{
    struct ovsdb_symbol_table *symtab = xmalloc(sizeof *symtab);
    hmap_init(&symtab->sh);
    return symtab;
}

void
ovsdb_symbol_table_destroy(struct ovsdb_symbol_table *symtab)
{
    if (symtab) {
        struct ovsdb_symbol *symbol, *next;
        HMAP_FOR_EACH_SAFE (symbol, next, hmap_node, &symtab->sh) {
            free(symbol->name);
            free(symbol);
        }
        hmap_destroy(&symtab->sh);
        free(symtab);
    }
}

struct ovsdb_symbol *
ovsdb_symbol_table_get(const struct ovsdb_symbol_table *symtab,
                       const char *name)
{
    struct ovsdb_symbol *symbol;
    HMAP_FOR_EACH_WITH_HASH (symbol, hmap_node, hash_string(name, 0),
                             &symtab->sh) {
        if (!strcmp(symbol->name, name)) {
            return symbol;
        }
    }
    return NULL;
}

struct ovsdb_symbol *
ovsdb_symbol_table_put(struct ovsdb_symbol_table *symtab, const char *name,
                       const struct uuid *uuid, bool created)
{
    struct ovsdb_symbol *symbol = xzalloc(sizeof *symbol);
    symbol->name = xstrdup(name);
    symbol->uuid = *uuid;
    symbol->created = created;
    hmap_insert(&symtab->sh, &symbol->hmap_node, hash_string(name, 0));
    return symbol;
}

struct ovsdb_symbol *
ovsdb_symbol_table_insert(struct ovsdb_symbol_table *symtab,
                          const char *name)
{
    struct ovsdb_symbol *symbol = ovsdb_symbol_table_get(symtab, name);
    if (!symbol) {
        struct uuid uuid;
        uuid_generate(&uuid);
        symbol = ovsdb_symbol_table_put(symtab, name, &uuid, false);
    }
    return symbol;
}
