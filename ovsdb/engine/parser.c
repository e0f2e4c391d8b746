/* ovsdb/engine/parser.c: see parser.h. */
#include <config.h>
#include "ovsdb/engine/parser.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "ovsdb/engine/error.h"

static const char *
parser_name(struct ovsdb_parser *p)
{
    if (!p->name) {
        p->name = xasprintf("ovsdb operation %zu of %zu", p->op_index,
                            p->n_ops);
    }
    return p->name;
}

static void
parser_init(struct ovsdb_parser *p, const json_t *json)
{
    p->json = json;
    p->error = NULL;
    p->used = p->used_buf;
    p->n_used = 0;
    p->allocated = ARRAY_SIZE(p->used_buf);
    if (!json_is_object(json)) {
        /* The reference reports this one without "syntax". */
        p->error = ovsdb_error(OVSDB_E_SYNTAX, "Parsing %s failed: Object "
                               "expected.", parser_name(p));
    }
}

void
ovsdb_parser_init(struct ovsdb_parser *p, const json_t *json,
                  const char *name, ...)
{
    va_list args;
    va_start(args, name);
    p->name = xvasprintf(name, args);
    va_end(args);
    parser_init(p, json);
}

void
ovsdb_parser_init_operation(struct ovsdb_parser *p, const json_t *json,
                            size_t i, size_t n)
{
    p->name = NULL;
    p->op_index = i;
    p->n_ops = n;
    parser_init(p, json);
}

bool
ovsdb_parser_is_id(const char *s)
{
    if (!isalpha((unsigned char) *s) && *s != '_') {
        return false;
    }
    for (s++; *s; s++) {
        if (!isalnum((unsigned char) *s) && *s != '_') {
            return false;
        }
    }
    return true;
}

static bool
type_matches(const json_t *value, enum ovsdb_parser_types types)
{
    switch (json_typeof(value)) {
    case JSON_NULL:
        return types & OP_NULL;
    case JSON_FALSE:
        return types & OP_FALSE;
    case JSON_TRUE:
        return types & OP_TRUE;
    case JSON_INTEGER:
        return types & OP_INTEGER;
    case JSON_REAL:
        return types & OP_NONINTEGER;
    case JSON_STRING:
        if (types & OP_STRING) {
            return true;
        }
        return (types & OP_ID) && ovsdb_parser_is_id(json_string_value(value));
    case JSON_ARRAY:
        return types & OP_ARRAY;
    case JSON_OBJECT:
        return types & OP_OBJECT;
    }
    return false;
}

const json_t *
ovsdb_parser_member(struct ovsdb_parser *p, const char *name,
                    enum ovsdb_parser_types types)
{
    if (p->error) {
        return NULL;
    }
    const json_t *value = json_object_get(p->json, name);
    if (!value) {
        if (!(types & OP_OPTIONAL)) {
            ovsdb_parser_raise_error(p, "Required '%s' member is missing.",
                                     name);
        }
        return NULL;
    }
    if (!type_matches(value, types)) {
        ovsdb_parser_raise_error(p, "Type mismatch for member '%s'.", name);
        return NULL;
    }
    if (p->n_used >= p->allocated) {
        if (p->used == p->used_buf) {
            p->used = xmemdup(p->used_buf, sizeof p->used_buf);
        }
        p->used = x2nrealloc(p->used, &p->allocated, sizeof *p->used);
    }
    p->used[p->n_used++] = name;
    return value;
}

void
ovsdb_parser_put_error(struct ovsdb_parser *p, struct ovsdb_error *error)
{
    if (!p->error) {
        p->error = error;
    } else {
        ovsdb_error_destroy(error);
    }
}

void
ovsdb_parser_raise_error(struct ovsdb_parser *p, const char *fmt, ...)
{
    if (p->error) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    char *message = xvasprintf(fmt, args);
    va_end(args);
    p->error = ovsdb_syntax_error(p->json, OVSDB_E_SYNTAX,
                                  "Parsing %s failed: %s", parser_name(p),
                                  message);
    free(message);
}

bool
ovsdb_parser_has_error(const struct ovsdb_parser *p)
{
    return p->error != NULL;
}

struct ovsdb_error *
ovsdb_parser_finish(struct ovsdb_parser *p)
{
    if (!p->error) {
        const char *key;
        json_t *value;
        json_object_foreach ((json_t *) p->json, key, value) {
            bool used = false;
            for (size_t i = 0; i < p->n_used; i++) {
                if (!strcmp(p->used[i], key)) {
                    used = true;
                    break;
                }
            }
            if (!used) {
                ovsdb_parser_raise_error(
                    p, "Member '%s' is present but not allowed here.", key);
                break;
            }
        }
    }
    struct ovsdb_error *error = p->error;
    p->error = NULL;
    ovsdb_parser_destroy(p);
    return error;
}

void
ovsdb_parser_destroy(struct ovsdb_parser *p)
{
    ovsdb_error_destroy(p->error);
    free(p->name);
    if (p->used != p->used_buf) {
        free(p->used);
    }
    p->error = NULL;
    p->name = NULL;
    p->used = NULL;
}
