/* ovsdb/engine/error.h: error objects carrying the RFC 7047 "error" strings.
 *
 * In ovsdb/, a function that can fail returns a 'struct ovsdb_error *':
 * NULL means success, anything else is an error the caller owns and must
 * either return (after ovsdb_error_wrap() to add context), convert to JSON
 * (ovsdb_error_to_json()) or free (ovsdb_error_destroy()).
 *
 * The RFC 7047 "error" strings (and the extra ones Open vSwitch uses) are
 * spelled only in OVSDB_ERROR_TAGS below, with one of ours: "unknown
 * outcome", a clustered commit that may or may not have happened (see
 * ovsdb/storage/storage.h).  An error also has optional
 * "details" (free text) and "syntax" (the offending JSON, as text), which
 * ovsdb_error_to_json() emits as members of the same names, like the
 * reference server. */
#ifndef OVSDB_ERROR_H
#define OVSDB_ERROR_H 1

#include <stdarg.h>
#include <stdbool.h>
#include <jansson.h>
#include "lib/util.h"

#define OVSDB_ERROR_TAGS                                                      \
    TAG(CONSTRAINT, "constraint violation")                                   \
    TAG(DOMAIN, "domain error")                                               \
    TAG(RANGE, "range error")                                                 \
    TAG(TIMED_OUT, "timed out")                                               \
    TAG(NOT_SUPP, "not supported")                                            \
    TAG(ABORTED, "aborted")                                                   \
    TAG(NOT_OWNER, "not owner")                                               \
    TAG(REFINT, "referential integrity violation")                            \
    TAG(RESOURCES, "resources exhausted")                                     \
    TAG(IO, "I/O error")                                                      \
    TAG(DUP_NAME, "duplicate uuid-name")                                      \
    TAG(SYNTAX, "syntax error")                                               \
    TAG(UNKNOWN_COLUMN, "unknown column")                                     \
    TAG(UNKNOWN_TABLE, "unknown table")                                       \
    TAG(UNKNOWN_FUNCTION, "unknown function")                                 \
    TAG(UNKNOWN_MUTATOR, "unknown mutator")                                   \
    TAG(UNKNOWN_DATABASE, "unknown database")                                 \
    TAG(NOT_ALLOWED, "not allowed")                                           \
    TAG(INTERNAL, "internal error")                                           \
    TAG(OVSDB, "ovsdb error")                                                 \
    TAG(DUP_UUID, "duplicate uuid")                                           \
    TAG(PERMISSION, "permission error")                                       \
    TAG(NOT_LEADER, "not leader")                                             \
    TAG(CLUSTER, "cluster error")                                             \
    TAG(UNKNOWN_OUTCOME, "unknown outcome")

enum ovsdb_error_tag {
#define TAG(ENUM, STRING) OVSDB_E_##ENUM,
    OVSDB_ERROR_TAGS
#undef TAG
    OVSDB_N_ERROR_TAGS
};

struct ovsdb_error;                     /* Opaque. */

/* Returns the RFC 7047 string for 'tag', e.g. "constraint violation". */
const char *ovsdb_error_tag_string(enum ovsdb_error_tag tag);

/* Creates an error with 'tag' and details formatted from 'fmt' ('fmt' may
 * be NULL for no details).  Caller must free with ovsdb_error_destroy(). */
struct ovsdb_error *ovsdb_error(enum ovsdb_error_tag tag, const char *fmt,
                                ...) PRINTF_FORMAT(2, 3) WARN_UNUSED_RESULT;
struct ovsdb_error *ovsdb_error_valist(enum ovsdb_error_tag tag,
                                       const char *fmt, va_list)
    PRINTF_FORMAT(2, 0) WARN_UNUSED_RESULT;

/* Same as ovsdb_error() but also records 'json' (borrowed; may be NULL) as
 * the "syntax" member: the JSON text of the offending input. */
struct ovsdb_error *ovsdb_syntax_error(const json_t *json,
                                       enum ovsdb_error_tag tag,
                                       const char *fmt, ...)
    PRINTF_FORMAT(3, 4) WARN_UNUSED_RESULT;

/* Appends text formatted from 'fmt' to 'error''s details.  Takes
 * ownership of 'error' and returns it (NULL stays NULL). */
struct ovsdb_error *ovsdb_error_append(struct ovsdb_error *error,
                                       const char *fmt, ...)
    PRINTF_FORMAT(2, 3) WARN_UNUSED_RESULT;

/* Prefixes 'error''s details with "CONTEXT: " (formatted from 'fmt').
 * Takes ownership of 'error' and returns it (NULL stays NULL). */
struct ovsdb_error *ovsdb_error_wrap(struct ovsdb_error *error,
                                     const char *fmt, ...)
    PRINTF_FORMAT(2, 3) WARN_UNUSED_RESULT;

/* Returns an "internal error" naming 'file' and 'line'.  Use through
 * OVSDB_BUG(); the request fails, the server keeps running. */
struct ovsdb_error *ovsdb_internal_error(const char *file, int line,
                                         const char *fmt, ...)
    PRINTF_FORMAT(3, 4) WARN_UNUSED_RESULT;
#define OVSDB_BUG(MSG) ovsdb_internal_error(__FILE__, __LINE__, "%s", MSG)

/* Frees 'error'.  NULL is fine. */
void ovsdb_error_destroy(struct ovsdb_error *error);

/* Returns a copy of 'error'; caller must free with ovsdb_error_destroy(). */
struct ovsdb_error *ovsdb_error_clone(const struct ovsdb_error *error);

enum ovsdb_error_tag ovsdb_error_get_tag(const struct ovsdb_error *error);

/* Returns the error's details, or NULL if none; borrowed (valid until
 * 'error' is freed or wrapped). */
const char *ovsdb_error_get_details(const struct ovsdb_error *error);

/* Returns {"error": TAG, "details": ..., "syntax": ...} as the reference
 * server sends it; new reference.  The _free variant also destroys
 * 'error'. */
json_t *ovsdb_error_to_json(const struct ovsdb_error *error);
json_t *ovsdb_error_to_json_free(struct ovsdb_error *error);

/* Returns "TAG: details" (or "TAG" alone, or "syntax "SYNTAX": TAG: details"
 * when there is syntax, as the reference's tools print errors); caller must
 * free with free(). */
char *ovsdb_error_to_string(const struct ovsdb_error *error);
char *ovsdb_error_to_string_free(struct ovsdb_error *error);

#endif /* ovsdb/engine/error.h */
