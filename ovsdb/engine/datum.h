/* ovsdb/engine/datum.h: typed values: atoms and datums.
 *
 * An atom is one value of an atomic type, in a 'union ovsdb_atom' (16
 * bytes).  Short strings are stored in the atom; longer ones are
 * refcounted ('struct ovsdb_string'), so copying an atom or a datum of
 * strings never copies more than 16 bytes per atom.
 *
 * A datum is the value of one column: 'n' keys (and, for a map, 'n'
 * values after them in the same array) sorted by key, without duplicate
 * keys.  A scalar is a datum with n == 1.  The type of a datum is not
 * stored in it: every function takes the 'struct ovsdb_type' (or atomic
 * type) from the column.
 *
 * JSON follows RFC 7047 section 5.1: atoms are JSON numbers, booleans,
 * strings or ["uuid", "..."] / ["named-uuid", "..."]; sets are a bare atom
 * or ["set", [...]]; maps are ["map", [[k, v], ...]].
 *
 * Ownership: a datum owns its array and one reference to each string in
 * it; ovsdb_datum_destroy() releases them. */
#ifndef OVSDB_DATUM_H
#define OVSDB_DATUM_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "lib/hmap.h"
#include "lib/uuid.h"
#include "ovsdb/engine/type.h"

struct ds;
struct ovsdb_error;
struct ovsdb_symbol_table;

/* A refcounted, immutable, null-terminated string: a string atom longer
 * than OVSDB_INLINE_STRING_MAX bytes holds a reference to one.  Only
 * datum.c creates and frees them; everyone else reads a string atom with
 * ovsdb_atom_string() and ovsdb_atom_string_length(). */
struct ovsdb_string {
    uint32_t n_refs;
    uint32_t length;            /* Bytes, not counting the null. */
    char string[];
};

/* Strings of up to this many bytes are stored in the atom itself, with
 * their null, and cost no allocation: most values in real databases are
 * that short (names, numbers as text, "true", a queue's payload), and
 * each one as a 'struct ovsdb_string' cost a 32-byte heap chunk besides
 * the atom.  The first byte of the atom tells the two apart: 2 * length
 * + 1 for an inline string, always odd, where it is the lowest byte of an
 * aligned, so even, pointer otherwise.  That needs a little-endian
 * machine; elsewhere every string is a 'struct ovsdb_string'. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OVSDB_INLINE_STRING_MAX 14
#else
#define OVSDB_INLINE_STRING_MAX 0
#endif

union ovsdb_atom {
    int64_t integer;
    double real;
    bool boolean;
    struct uuid uuid;
    /* A string: use the functions below, not these members. */
    struct ovsdb_string *str_;
    unsigned char inline_[16];
};

static inline bool
ovsdb_atom_string_is_inline(const union ovsdb_atom *atom)
{
    return OVSDB_INLINE_STRING_MAX && (atom->inline_[0] & 1);
}

/* The characters of string atom 'atom', null-terminated: valid as long
 * as 'atom' is (for an inline string, in 'atom' itself). */
static inline const char *
ovsdb_atom_string(const union ovsdb_atom *atom)
{
    return (ovsdb_atom_string_is_inline(atom)
                ? (const char *) &atom->inline_[1]
                : atom->str_->string);
}

static inline size_t
ovsdb_atom_string_length(const union ovsdb_atom *atom)
{
    return (ovsdb_atom_string_is_inline(atom) ? atom->inline_[0] >> 1
                                              : atom->str_->length);
}

/* Makes 'atom' a string atom holding a copy of the 'length' bytes at
 * 's'; free it with ovsdb_atom_destroy(). */
void ovsdb_atom_init_string(union ovsdb_atom *atom, const char *s,
                            size_t length);

/* Atoms.  An atom of a string type holds one reference to its string. */
void ovsdb_atom_init_default(union ovsdb_atom *, enum ovsdb_atomic_type);
bool ovsdb_atom_is_default(const union ovsdb_atom *, enum ovsdb_atomic_type);
void ovsdb_atom_clone(union ovsdb_atom *dst, const union ovsdb_atom *src,
                      enum ovsdb_atomic_type);
void ovsdb_atom_destroy(union ovsdb_atom *, enum ovsdb_atomic_type);
uint32_t ovsdb_atom_hash(const union ovsdb_atom *, enum ovsdb_atomic_type,
                         uint32_t basis);
int ovsdb_atom_compare_3way(const union ovsdb_atom *,
                            const union ovsdb_atom *, enum ovsdb_atomic_type);
static inline bool
ovsdb_atom_equals(const union ovsdb_atom *a, const union ovsdb_atom *b,
                  enum ovsdb_atomic_type type)
{
    return !ovsdb_atom_compare_3way(a, b, type);
}

/* Parses 'json' as an atom of 'base''s type and checks 'base''s
 * constraints.  'symtab' (may be NULL) resolves ["named-uuid", NAME].  On
 * error '*atom' is left uninitialized. */
struct ovsdb_error *ovsdb_atom_from_json(union ovsdb_atom *atom,
                                         const struct ovsdb_base_type *base,
                                         const json_t *json,
                                         struct ovsdb_symbol_table *symtab)
    WARN_UNUSED_RESULT;
/* New reference. */
json_t *ovsdb_atom_to_json(const union ovsdb_atom *, enum ovsdb_atomic_type);

/* Checks 'atom' against 'base''s constraints (enum, range, length).  The
 * errors are "constraint violation" with the reference's details. */
struct ovsdb_error *ovsdb_atom_check_constraints(
    const union ovsdb_atom *atom, const struct ovsdb_base_type *base)
    WARN_UNUSED_RESULT;

/* Appends the atom's text form (as ovsdb-client prints it) to 'out'. */
void ovsdb_atom_to_string(const union ovsdb_atom *, enum ovsdb_atomic_type,
                          struct ds *out);

struct ovsdb_datum {
    unsigned int n;             /* Number of elements. */
    bool keys_inline;           /* Internal: 'keys' is one atom stored in
                                 * the row itself (see row.h), not freed
                                 * separately.  Datum functions keep it
                                 * right; code that assigns 'keys' by hand
                                 * must leave it false.  Never for a map. */
    bool is_map;                /* 'keys' is followed by the 'n' values. */
    union ovsdb_atom *keys;     /* 'n' keys, sorted, then for a map their
                                 * 'n' values in the same array (one block,
                                 * so that a datum is 16 bytes); NULL if
                                 * n == 0. */
};

/* Empty, not inline, not a map. */
#define OVSDB_DATUM_EMPTY_INITIALIZER                                         \
    {                                                                         \
        0, false, false, NULL                                                 \
    }

/* Returns the 'n' values of a map datum (they follow its keys), or NULL if
 * 'datum' is not a map or is empty.  Changing 'datum->n' moves them, so
 * only datum.c changes the number of elements of a map. */
static inline union ovsdb_atom *
ovsdb_datum_values(const struct ovsdb_datum *datum)
{
    return datum->is_map && datum->n ? datum->keys + datum->n : NULL;
}

/* Initialization and lifecycle. */
void ovsdb_datum_init_empty(struct ovsdb_datum *);
/* The default value of 'type': empty if n_min == 0, otherwise one
 * default atom (0, 0.0, false, "", all-zero uuid). */
void ovsdb_datum_init_default(struct ovsdb_datum *, const struct ovsdb_type *);
bool ovsdb_datum_is_default(const struct ovsdb_datum *,
                            const struct ovsdb_type *);
/* Initializes 'datum' as a single-key datum holding 'atom' (cloned). */
void ovsdb_datum_init_atom(struct ovsdb_datum *datum,
                           const union ovsdb_atom *atom,
                           enum ovsdb_atomic_type);
void ovsdb_datum_clone(struct ovsdb_datum *dst, const struct ovsdb_datum *src,
                       const struct ovsdb_type *);
void ovsdb_datum_destroy(struct ovsdb_datum *, const struct ovsdb_type *);
void ovsdb_datum_swap(struct ovsdb_datum *, struct ovsdb_datum *);
/* Replaces the value of 'dst' (initialized) by a copy of 'src', reusing
 * the storage of 'dst' when it can (e.g. a scalar stored in a row). */
void ovsdb_datum_replace(struct ovsdb_datum *dst,
                         const struct ovsdb_datum *src,
                         const struct ovsdb_type *);
/* Moves the value of 'src' into 'dst' (both initialized), destroying the
 * old value of 'dst' and leaving 'src' empty.  Reuses the storage of 'dst'
 * when it can. */
void ovsdb_datum_move(struct ovsdb_datum *dst, struct ovsdb_datum *src,
                      const struct ovsdb_type *);
/* Initializes 'dst' as a copy of 'src' whose one key (src->n must be 1,
 * without values) is stored in 'slot'.  For rows. */
void ovsdb_datum_clone_inline(struct ovsdb_datum *dst,
                              const struct ovsdb_datum *src,
                              union ovsdb_atom *slot,
                              const struct ovsdb_type *);

/* JSON.  from_json checks types, sortedness/duplicates (a duplicate key in
 * a set or map is a "syntax error" naming it, as the reference), element
 * count against [n_min, n_max] ("syntax error" too, as the reference), and
 * every base constraint ("constraint violation"). */
struct ovsdb_error *ovsdb_datum_from_json(struct ovsdb_datum *datum,
                                          const struct ovsdb_type *type,
                                          const json_t *json,
                                          struct ovsdb_symbol_table *symtab)
    WARN_UNUSED_RESULT;
/* New reference: a bare atom for exactly one element of a set type, else
 * ["set", [...]] / ["map", [...]]. */
json_t *ovsdb_datum_to_json(const struct ovsdb_datum *,
                            const struct ovsdb_type *);

/* Append the JSON text of an atom or a datum to 'out', exactly as
 * jsonx_put() would print ovsdb_atom_to_json() or ovsdb_datum_to_json(),
 * without building a json_t (for big values). */
void ovsdb_atom_put_json(struct ds *out, const union ovsdb_atom *,
                         enum ovsdb_atomic_type);
void ovsdb_datum_put_json(struct ds *out, const struct ovsdb_datum *,
                          const struct ovsdb_type *);

/* Like ovsdb_datum_from_json() but without the [n_min, n_max] check, for
 * the arguments of mutations and conditions that are not whole values
 * (e.g. a set to insert).  'type' gives the element types. */
struct ovsdb_error *ovsdb_datum_from_json_unbounded(
    struct ovsdb_datum *datum, const struct ovsdb_type *type,
    const json_t *json, struct ovsdb_symbol_table *symtab)
    WARN_UNUSED_RESULT;

/* Checks 'datum''s element count against 'type' ("constraint violation"
 * with the reference's details).  Used after mutations and weak ref
 * removal. */
struct ovsdb_error *ovsdb_datum_check_size(const struct ovsdb_datum *,
                                           const struct ovsdb_type *)
    WARN_UNUSED_RESULT;
/* Checks every atom against its base type's constraints. */
struct ovsdb_error *ovsdb_datum_check_constraints(const struct ovsdb_datum *,
                                                  const struct ovsdb_type *)
    WARN_UNUSED_RESULT;

/* Comparison and hashing. */
uint32_t ovsdb_datum_hash(const struct ovsdb_datum *,
                          const struct ovsdb_type *, uint32_t basis);
int ovsdb_datum_compare_3way(const struct ovsdb_datum *,
                             const struct ovsdb_datum *,
                             const struct ovsdb_type *);
bool ovsdb_datum_equals(const struct ovsdb_datum *,
                        const struct ovsdb_datum *,
                        const struct ovsdb_type *);

/* Search.  Returns the index of 'key' in 'datum''s keys, or UINT_MAX. */
unsigned int ovsdb_datum_find_key(const struct ovsdb_datum *datum,
                                  const union ovsdb_atom *key,
                                  enum ovsdb_atomic_type key_type);
/* True if every element (key, or key/value pair for a map) of 'a' is in
 * 'b'. */
bool ovsdb_datum_includes_all(const struct ovsdb_datum *a,
                              const struct ovsdb_datum *b,
                              const struct ovsdb_type *);
/* True if no element of 'a' is in 'b'. */
bool ovsdb_datum_excludes_all(const struct ovsdb_datum *a,
                              const struct ovsdb_datum *b,
                              const struct ovsdb_type *);

/* Set operations, in place on 'a'.  For maps, union adds only keys not
 * already in 'a'; subtract with a set-of-keys 'b' ('b_type' has no value)
 * removes those keys, with a map removes matching key/value pairs. */
void ovsdb_datum_union(struct ovsdb_datum *a, const struct ovsdb_datum *b,
                       const struct ovsdb_type *type);
void ovsdb_datum_subtract(struct ovsdb_datum *a,
                          const struct ovsdb_type *a_type,
                          const struct ovsdb_datum *b,
                          const struct ovsdb_type *b_type);

/* Adds 'key' (and 'value' for maps), cloned, keeping order; replaces the
 * value if the key exists.  Removes the element with index 'idx'. */
void ovsdb_datum_put(struct ovsdb_datum *datum, const union ovsdb_atom *key,
                     const union ovsdb_atom *value,
                     const struct ovsdb_type *type);
void ovsdb_datum_remove(struct ovsdb_datum *datum, unsigned int idx,
                        const struct ovsdb_type *type);

/* Sorts 'datum' by key and checks for duplicates (returns a "syntax error"
 * naming the duplicate, or NULL).  For building datums element by
 * element. */
struct ovsdb_error *ovsdb_datum_sort(struct ovsdb_datum *datum,
                                     const struct ovsdb_type *type)
    WARN_UNUSED_RESULT;

/* Diffs, as in monitor "update2" and ovsdb(5) "_is_diff" records.
 *
 * For a set: the diff is the symmetric difference of 'old' and 'new'.  For
 * a map: the keys removed (with their old values), the keys added (with
 * their new values) and the keys whose value changed (with the new value).
 * ovsdb_datum_diff() initializes 'diff' (caller must destroy it);
 * 'type' is the column type, and the diff is a datum of the same type but
 * with unlimited size.
 *
 * ovsdb_datum_apply_diff() computes 'new' from 'old' and 'diff'; it returns
 * a "constraint violation" if the result does not fit 'type' (then 'new' is
 * not initialized). */
void ovsdb_datum_diff(struct ovsdb_datum *diff, const struct ovsdb_datum *old,
                      const struct ovsdb_datum *new,
                      const struct ovsdb_type *type);
struct ovsdb_error *ovsdb_datum_apply_diff(struct ovsdb_datum *new,
                                           const struct ovsdb_datum *old,
                                           const struct ovsdb_datum *diff,
                                           const struct ovsdb_type *type)
    WARN_UNUSED_RESULT;
/* Parses the JSON of a diff (any number of elements). */
struct ovsdb_error *ovsdb_datum_diff_from_json(
    struct ovsdb_datum *diff, const struct ovsdb_type *type,
    const json_t *json) WARN_UNUSED_RESULT;

/* Appends the text form, as "ovsdb-client" prints a cell. */
void ovsdb_datum_to_string(const struct ovsdb_datum *,
                           const struct ovsdb_type *, struct ds *out);

/* Symbol table: the "uuid-name"s of one transaction. */
struct ovsdb_symbol {
    struct hmap_node hmap_node; /* In 'symtab->sh', by name hash. */
    char *name;
    struct uuid uuid;           /* The row's UUID. */
    bool created;               /* Defined by an "insert" with uuid-name. */
    bool strong_ref;            /* Used as a strong reference. */
    bool weak_ref;              /* Used as a weak reference. */
};

struct ovsdb_symbol_table *ovsdb_symbol_table_create(void);
void ovsdb_symbol_table_destroy(struct ovsdb_symbol_table *);
/* Returns the symbol named 'name', or NULL; borrowed (valid until the table
 * is destroyed). */
struct ovsdb_symbol *ovsdb_symbol_table_get(
    const struct ovsdb_symbol_table *, const char *name);
/* Adds 'name' with 'uuid'; 'name' must not exist. */
struct ovsdb_symbol *ovsdb_symbol_table_put(struct ovsdb_symbol_table *,
                                            const char *name,
                                            const struct uuid *uuid,
                                            bool created);
/* Returns the symbol 'name', adding it with a fresh random UUID if it does
 * not exist. */
struct ovsdb_symbol *ovsdb_symbol_table_insert(struct ovsdb_symbol_table *,
                                               const char *name);

#endif /* ovsdb/engine/datum.h */
