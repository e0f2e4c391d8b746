/* ovsdb/engine/parser.h: checking the members of JSON objects.
 *
 *     struct ovsdb_parser p;
 *     ovsdb_parser_init(&p, json, "table schema for table %s", name);
 *     const json_t *rows = ovsdb_parser_member(&p, "maxRows",
 *                                              OP_INTEGER | OP_OPTIONAL);
 *     ...
 *     error = ovsdb_parser_finish(&p);
 *
 * The first problem wins and later calls return NULL.  Errors are "syntax
 * error"s worded as the reference words them ("Parsing NAME failed:
 * Required 'X' member is missing.", "Type mismatch for member 'X'.",
 * "Member 'X' is present but not allowed here.", "Object expected."), with
 * the whole object as "syntax". */
#ifndef OVSDB_PARSER_H
#define OVSDB_PARSER_H 1

#include <stdbool.h>
#include <jansson.h>
#include "lib/util.h"

struct ovsdb_error;

enum ovsdb_parser_types {
    OP_NULL = 1 << 0,
    OP_FALSE = 1 << 1,
    OP_TRUE = 1 << 2,
    OP_BOOLEAN = OP_FALSE | OP_TRUE,
    OP_INTEGER = 1 << 3,
    OP_NONINTEGER = 1 << 4,
    OP_NUMBER = OP_INTEGER | OP_NONINTEGER,
    OP_STRING = 1 << 5,
    OP_ARRAY = 1 << 6,
    OP_OBJECT = 1 << 7,
    OP_ID = 1 << 8,             /* A string that is a valid id. */
    OP_ANY = (OP_NULL | OP_BOOLEAN | OP_NUMBER | OP_STRING | OP_ARRAY
              | OP_OBJECT),
    OP_OPTIONAL = 1 << 9
};

struct ovsdb_parser {
    char *name;                 /* "table schema for table T", owned; NULL
                                 * for an operation until an error. */
    size_t op_index, n_ops;     /* For "ovsdb operation I of N". */
    const json_t *json;         /* The object, borrowed. */
    struct ovsdb_error *error;  /* First error, owned. */
    const char **used;          /* Names of members fetched. */
    size_t n_used, allocated;
    const char *used_buf[8];    /* Initial 'used' storage. */
};

void ovsdb_parser_init(struct ovsdb_parser *, const json_t *json,
                       const char *name, ...) PRINTF_FORMAT(3, 4);
/* Same as ovsdb_parser_init() with the name "ovsdb operation I of N", only
 * formatted if there is an error (this runs once per operation). */
void ovsdb_parser_init_operation(struct ovsdb_parser *, const json_t *json,
                                 size_t i, size_t n);
/* Returns member 'name' (borrowed) if present and of one of 'types'.
 * Otherwise records an error (unless absent and OP_OPTIONAL) and returns
 * NULL. */
const json_t *ovsdb_parser_member(struct ovsdb_parser *, const char *name,
                                  enum ovsdb_parser_types types);
/* Records a custom error (if none yet).  Takes ownership of 'error'. */
void ovsdb_parser_put_error(struct ovsdb_parser *, struct ovsdb_error *);
/* Records a "syntax error" "Parsing NAME failed: MESSAGE" (if none yet). */
void ovsdb_parser_raise_error(struct ovsdb_parser *, const char *fmt, ...)
    PRINTF_FORMAT(2, 3);
bool ovsdb_parser_has_error(const struct ovsdb_parser *);
/* Checks for unknown members, frees the parser and returns the error. */
struct ovsdb_error *ovsdb_parser_finish(struct ovsdb_parser *)
    WARN_UNUSED_RESULT;
/* Frees the parser, discarding any error. */
void ovsdb_parser_destroy(struct ovsdb_parser *);

/* True if 's' is a valid id: [a-zA-Z_][a-zA-Z0-9_]*. */
bool ovsdb_parser_is_id(const char *s);

#endif /* ovsdb/engine/parser.h */
