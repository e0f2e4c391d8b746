/* ovsdb/engine/error.c: see error.h. */
#include <config.h>
#include "ovsdb/engine/error.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"

struct ovsdb_error {
    enum ovsdb_error_tag tag;
    char *details;              /* Owned; NULL if none. */
    char *syntax;               /* JSON text, owned; NULL if none. */
};

static const char *const tag_strings[] = {
#define TAG(ENUM, STRING) STRING,
    OVSDB_ERROR_TAGS
#undef TAG
};

const char *
ovsdb_error_tag_string(enum ovsdb_error_tag tag)
{
    return tag < OVSDB_N_ERROR_TAGS ? tag_strings[tag] : "unknown error";
}

struct ovsdb_error *
ovsdb_error_valist(enum ovsdb_error_tag tag, const char *fmt, va_list args)
{
    struct ovsdb_error *error = xmalloc(sizeof *error);
    error->tag = tag;
    error->details = fmt ? xvasprintf(fmt, args) : NULL;
    error->syntax = NULL;
    return error;
}

struct ovsdb_error *
ovsdb_error(enum ovsdb_error_tag tag, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    struct ovsdb_error *error = ovsdb_error_valist(tag, fmt, args);
    va_end(args);
    return error;
}

struct ovsdb_error *
ovsdb_syntax_error(const json_t *json, enum ovsdb_error_tag tag,
                   const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    struct ovsdb_error *error = ovsdb_error_valist(tag, fmt, args);
    va_end(args);
    if (json) {
        error->syntax = jsonx_to_string_sorted(json);
    }
    return error;
}

struct ovsdb_error *
ovsdb_error_wrap(struct ovsdb_error *error, const char *fmt, ...)
{
    if (!error) {
        return NULL;
    }
    va_list args;
    va_start(args, fmt);
    char *context = xvasprintf(fmt, args);
    va_end(args);

    char *details = (error->details
                     ? xasprintf("%s: %s", context, error->details)
                     : xstrdup(context));
    free(context);
    free(error->details);
    error->details = details;
    return error;
}

struct ovsdb_error *
ovsdb_error_append(struct ovsdb_error *error, const char *fmt, ...)
{
    if (!error) {
        return NULL;
    }
    va_list args;
    va_start(args, fmt);
    char *more = xvasprintf(fmt, args);
    va_end(args);

    char *details = xasprintf("%s%s", error->details ? error->details : "",
                              more);
    free(more);
    free(error->details);
    error->details = details;
    return error;
}

struct ovsdb_error *
ovsdb_internal_error(const char *file, int line, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    char *message = xvasprintf(fmt, args);
    va_end(args);

    struct ovsdb_error *error = ovsdb_error(OVSDB_E_INTERNAL,
                                            "%s:%d: %s", file, line, message);
    free(message);
    return error;
}

void
ovsdb_error_destroy(struct ovsdb_error *error)
{
    if (error) {
        free(error->details);
        free(error->syntax);
        free(error);
    }
}

struct ovsdb_error *
ovsdb_error_clone(const struct ovsdb_error *src)
{
    struct ovsdb_error *error = xmalloc(sizeof *error);
    error->tag = src->tag;
    error->details = src->details ? xstrdup(src->details) : NULL;
    error->syntax = src->syntax ? xstrdup(src->syntax) : NULL;
    return error;
}

enum ovsdb_error_tag
ovsdb_error_get_tag(const struct ovsdb_error *error)
{
    return error->tag;
}

const char *
ovsdb_error_get_details(const struct ovsdb_error *error)
{
    return error->details;
}

json_t *
ovsdb_error_to_json(const struct ovsdb_error *error)
{
    json_t *json = json_object();
    json_object_set_new(json, "error",
                        json_string(ovsdb_error_tag_string(error->tag)));
    if (error->details) {
        json_object_set_new(json, "details", json_string(error->details));
    }
    if (error->syntax) {
        json_object_set_new(json, "syntax", json_string(error->syntax));
    }
    return json;
}

json_t *
ovsdb_error_to_json_free(struct ovsdb_error *error)
{
    json_t *json = ovsdb_error_to_json(error);
    ovsdb_error_destroy(error);
    return json;
}

char *
ovsdb_error_to_string(const struct ovsdb_error *error)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    if (error->syntax) {
        ds_put_format(&s, "syntax \"%s\": ", error->syntax);
    }
    ds_put_cstr(&s, ovsdb_error_tag_string(error->tag));
    if (error->details) {
        ds_put_format(&s, ": %s", error->details);
    }
    return ds_steal_cstr(&s);
}

char *
ovsdb_error_to_string_free(struct ovsdb_error *error)
{
    char *s = ovsdb_error_to_string(error);
    ovsdb_error_destroy(error);
    return s;
}
