/* ovsdb/engine/execution.h: executing RFC 7047 "transact" requests.
 *
 * ovsdb_execute_compose() runs every operation of one request (RFC 7047
 * section 5.2: insert, select, update, mutate, delete, wait, commit, abort,
 * comment, assert) inside a new transaction and builds the reply's result
 * array.  It does not commit: the caller (server or ovsdb-tool) then runs
 * ovsdb_txn_precommit(), writes ovsdb_record_put_txn() to storage, and calls
 * ovsdb_txn_commit_finish(), or ovsdb_txn_abort() on any failure.  A
 * precommit error goes in the reply as one more element appended to the
 * result array (ovsdb_execute_append_error()), as the reference does.
 *
 * Outcomes:
 *  - returns a txn, '*resultp' is the result array: all operations
 *    succeeded and there are changes to commit.
 *  - returns NULL, '*resultp' nonnull: done, nothing to commit (read-only
 *    request or no changes), or an operation failed (the result array ends
 *    with the error object; nothing changed).
 *  - returns NULL, '*resultp' NULL: a "wait" is not satisfied yet.  Retry
 *    the same request after the database changes, with the time elapsed
 *    since the first attempt in 'elapsed_msec', until '*timeout_msec'
 *    (LLONG_MAX if no timeout) has elapsed; then it replies "timed out".
 */
#ifndef OVSDB_EXECUTION_H
#define OVSDB_EXECUTION_H 1

#include <stdbool.h>
#include <jansson.h>
#include "lib/ds.h"
#include "ovsdb/engine/rbac.h"

struct jsonx_lazy_array;
struct ovsdb_results_text;
struct ovsdb;
struct ovsdb_column_set;
struct ovsdb_error;
struct ovsdb_row;
struct ovsdb_table;
struct ovsdb_txn;

/* Returns true if the session running the request holds lock 'name'. */
typedef bool ovsdb_lock_held_cb(const char *name, void *aux);

/* 'params' is the whole "transact" params array ["DBNAME", op, ...]
 * (borrowed).  To save memory on big requests, each operation that has
 * run is replaced by null in 'params' if nothing else holds a reference
 * to 'params' and it has no "wait" operation (so 'params' is intact
 * whenever the caller is asked to retry it): pass a copy, or hold a
 * reference, to keep the request.  If 'read_only', any operation that changes the database
 * fails ("not allowed").  'lock_held' may be NULL (no locks held).
 * '*durable' is set if a "commit" with "durable": true was seen.
 * '*resultp' receives a new reference (or NULL, see above).
 * 'timeout_msec' may be NULL if the caller cannot retry: then an
 * unsatisfied "wait" fails with "not supported", as in ovsdb-tool.
 *
 * If 'params' is not an array starting with the database's name,
 * '*resultp' is a lone error object (not an array), as the reference
 * answers. */
struct ovsdb_txn *ovsdb_execute_compose(struct ovsdb *db,
                                        json_t *params, bool read_only,
                                        ovsdb_lock_held_cb *lock_held,
                                        void *lock_aux,
                                        long long elapsed_msec,
                                        long long *timeout_msec,
                                        bool *durable, json_t **resultp);

/* Authorization hook (RBAC: ovsdb_rbac_authorize() in ovsdb/engine/rbac.h).
 * The executor calls it before an operation changes anything: once per
 * "delete", "update" and "mutate" operation with 'row' NULL, then for each row
 * the operation matched (the row as it is; for "insert", the new row).
 * 'columns' is the set of columns an "update" or "mutate" writes, else NULL.
 * An error fails the operation with it (and the whole request, as any
 * operation error does). */
typedef struct ovsdb_error *ovsdb_authorize_cb(
    const struct ovsdb_table *table, enum ovsdb_rbac_op op,
    const struct ovsdb_row *row, const struct ovsdb_column_set *columns,
    void *aux);

/* Same as ovsdb_execute_compose(), with authorization hook 'authorize'
 * (NULL: everything allowed) and its 'authorize_aux'.  If 'lazy' is
 * nonnull, 'params' is NULL and the request's params are 'lazy', whose
 * operations are parsed one at a time, each freed once it has run ('lazy'
 * keeps the text, so the caller may still parse the whole request).  If
 * 'results_text' is nonnull (initialized empty), the result array is
 * written there as text instead of '*resultp' (always NULL then), each
 * result as its operation runs: the tree of a big request's results costs
 * about 600 bytes per inserted row.  It stays empty if the request must
 * wait. */
struct ovsdb_txn *ovsdb_execute_compose_authorized(
    struct ovsdb *db, json_t *params, struct jsonx_lazy_array *lazy,
    bool read_only, ovsdb_lock_held_cb *lock_held, void *lock_aux,
    ovsdb_authorize_cb *authorize, void *authorize_aux, long long elapsed_msec,
    long long *timeout_msec, bool *durable, json_t **resultp,
    struct ovsdb_results_text *results_text);

/* Appends 'error' as an error object to 'result', the result array; takes
 * ownership of 'error'. */
void ovsdb_execute_append_error(json_t *result, struct ovsdb_error *error);
/* A result array as text (see ovsdb_execute_compose_authorized()). */
struct ovsdb_results_text {
    struct ds text; /* Empty if the request must wait. */
    bool has_error; /* An operation or the commit failed. */
};
#define OVSDB_RESULTS_TEXT_INITIALIZER                                        \
    {                                                                         \
        DS_EMPTY_INITIALIZER, false                                           \
    }

/* Same as ovsdb_execute_append_error() for a result array in text. */
void ovsdb_execute_append_error_text(struct ovsdb_results_text *results,
                                     struct ovsdb_error *error);

/* Convenience for tools and tests: compose, precommit, commit in memory
 * (no storage) and return the full reply; new reference.  'params' is
 * left intact.  Like the
 * reference's "ovsdb-tool transact", an unsatisfied "wait" with a timeout
 * replies "not supported" (there is nobody to retry it). */
json_t *ovsdb_execute(struct ovsdb *db, const json_t *params,
                      bool read_only);
/* Same, with an authorization hook (see ovsdb_authorize_cb). */
json_t *ovsdb_execute_authorized(struct ovsdb *db, const json_t *params,
                                 bool read_only,
                                 ovsdb_authorize_cb *authorize,
                                 void *authorize_aux);

/* True if the RFC 7047 operation 'name' ("insert", "update", ...) may
 * change the database, false for the read-only ones ("select", "wait",
 * "abort", ...) and for names that are no operation.  The one table of
 * which operations write. */
bool ovsdb_execute_op_writes(const char *name);

#endif /* ovsdb/engine/execution.h */
