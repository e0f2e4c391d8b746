/* ovsdb/engine/mutation.h: "mutate" mutations (RFC 7047 section 5.1
 * <mutation>).
 *
 * A mutation is [column, mutator, value] with the mutators += -= *= /= %=
 * (integers and reals, and element-wise on sets of them) and insert/delete
 * (sets and maps).  Errors, with the reference's strings: "unknown
 * column", "unknown mutator", "syntax error", "constraint violation"
 * (immutable column, result too big/small or outside the column's
 * constraints), "domain error" (division by zero), "range error" (integer
 * overflow). */
#ifndef OVSDB_MUTATION_H
#define OVSDB_MUTATION_H 1

#include <stddef.h>
#include <jansson.h>
#include "lib/util.h"
#include "ovsdb/engine/datum.h"

struct ovsdb_column;
struct ovsdb_error;
struct ovsdb_row;
struct ovsdb_symbol_table;
struct ovsdb_table_schema;

enum ovsdb_mutator {
    OVSDB_M_ADD,
    OVSDB_M_SUB,
    OVSDB_M_MUL,
    OVSDB_M_DIV,
    OVSDB_M_MOD,
    OVSDB_M_INSERT,
    OVSDB_M_DELETE
};

/* Returns "+=", ..., "insert", "delete". */
const char *ovsdb_mutator_to_string(enum ovsdb_mutator);

struct ovsdb_mutation {
    enum ovsdb_mutator mutator;
    const struct ovsdb_column *column;
    struct ovsdb_type type;         /* Type of 'arg'. */
    struct ovsdb_datum arg;
};

struct ovsdb_mutation_set {
    struct ovsdb_mutation *mutations;
    size_t n_mutations;
};

#define OVSDB_MUTATION_SET_INITIALIZER { NULL, 0 }

/* Parses a JSON array of mutations for 'table'. */
struct ovsdb_error *ovsdb_mutation_set_from_json(
    const struct ovsdb_table_schema *table, const json_t *json,
    struct ovsdb_symbol_table *symtab, struct ovsdb_mutation_set *set)
    WARN_UNUSED_RESULT;
/* New reference. */
json_t *ovsdb_mutation_set_to_json(const struct ovsdb_mutation_set *);
void ovsdb_mutation_set_destroy(struct ovsdb_mutation_set *);

/* Applies every mutation to 'row' in order.  On error 'row' may be
 * partially modified (the caller's transaction is discarded anyway). */
struct ovsdb_error *ovsdb_mutation_set_execute(
    struct ovsdb_row *row, const struct ovsdb_mutation_set *set)
    WARN_UNUSED_RESULT;

#endif /* ovsdb/engine/mutation.h */
