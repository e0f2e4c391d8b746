/* ovsdb/engine/condition.h: "where" conditions (RFC 7047 section 5.1
 * <condition>).
 *
 * A condition is a conjunction of clauses [column, function, value] with
 * the functions < <= == != >= > includes excludes.  As Open vSwitch does
 * for monitor_cond, a clause may also be the JSON literal true or false.
 *
 * Evaluating a condition whose clauses include ["_uuid", "==", U] is a
 * hash lookup (ovsdb_condition_get_uuid()), not a table scan. */
#ifndef OVSDB_CONDITION_H
#define OVSDB_CONDITION_H 1

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "lib/uuid.h"
#include "lib/util.h"
#include "ovsdb/engine/datum.h"

struct ovsdb_column;
struct ovsdb_error;
struct ovsdb_row;
struct ovsdb_symbol_table;
struct ovsdb_table_schema;

enum ovsdb_function {
    OVSDB_F_FALSE,              /* The literal false. */
    OVSDB_F_TRUE,               /* The literal true. */
    OVSDB_F_EQ,
    OVSDB_F_INCLUDES,
    OVSDB_F_LE,
    OVSDB_F_LT,
    OVSDB_F_GE,
    OVSDB_F_GT,
    OVSDB_F_EXCLUDES,
    OVSDB_F_NE
};

/* Returns "==", "includes", ... (or "false"/"true"). */
const char *ovsdb_function_to_string(enum ovsdb_function);

struct ovsdb_clause {
    enum ovsdb_function function;
    const struct ovsdb_column *column;  /* NULL for true/false. */
    unsigned int index;                 /* Column index. */
    struct ovsdb_type type;             /* Type of 'arg' (column's type,
                                         * scalar for < etc.). */
    struct ovsdb_datum arg;
};

struct ovsdb_condition {
    struct ovsdb_clause *clauses;       /* Sorted: cheapest test first. */
    size_t n_clauses;
};

#define OVSDB_CONDITION_INITIALIZER { NULL, 0 }

void ovsdb_condition_init(struct ovsdb_condition *);
/* True if the condition has no clauses (matches every row). */
bool ovsdb_condition_is_empty(const struct ovsdb_condition *);
/* True if the condition is the single clause "false" ... or always
 * false. */
bool ovsdb_condition_is_false(const struct ovsdb_condition *);

/* Parses a JSON array of clauses for 'table'.  Errors as the reference:
 * "unknown column", "unknown function", "syntax error" (wrong shape or a
 * function not allowed for the column type), the datum errors for the
 * value.  On error '*cond' is left empty. */
struct ovsdb_error *ovsdb_condition_from_json(
    const struct ovsdb_table_schema *table, const json_t *json,
    struct ovsdb_symbol_table *symtab, struct ovsdb_condition *cond)
    WARN_UNUSED_RESULT;
/* New reference. */
json_t *ovsdb_condition_to_json(const struct ovsdb_condition *);
void ovsdb_condition_destroy(struct ovsdb_condition *);
void ovsdb_condition_clone(struct ovsdb_condition *dst,
                           const struct ovsdb_condition *src);
bool ovsdb_condition_equals(const struct ovsdb_condition *,
                            const struct ovsdb_condition *);

/* True if 'row' satisfies every clause of 'cond'. */
bool ovsdb_condition_match(const struct ovsdb_row *row,
                           const struct ovsdb_condition *cond);
/* True if 'row' satisfies at least one clause of 'cond' (monitor_cond's
 * "any" semantics are not RFC 7047's; provided for callers that need
 * it). */
bool ovsdb_condition_match_any(const struct ovsdb_row *row,
                               const struct ovsdb_condition *cond);

/* If 'cond' has a clause ["_uuid", "==", U], returns U (borrowed, valid as
 * long as 'cond'); otherwise NULL. */
const struct uuid *ovsdb_condition_get_uuid(const struct ovsdb_condition *);

#endif /* ovsdb/engine/condition.h */
