/* ovsdb/engine/txn.h: transactions: atomic sets of row changes to one
 * database.
 *
 * Lifecycle:
 *
 *     txn = ovsdb_txn_create(db);          (at most one open per db)
 *     ovsdb_txn_row_insert/modify/delete(txn, ...);   (visible at once to
 *                                           lookups in the same db)
 *     error = ovsdb_txn_precommit(txn);    (refint, weak refs, garbage
 *                                           collection, maxRows, indexes,
 *                                           bumps _version)
 *     if (error) { report; ovsdb_txn_abort(txn); }
 *     else {
 *         (the caller writes the transaction record to disk)
 *         if (write failed) ovsdb_txn_abort(txn);
 *         else ovsdb_txn_commit_finish(txn);  (observers run; txn freed)
 *     }
 *
 * While a transaction is open, the tables show its changes (so later
 * operations of the same RFC 7047 transaction see earlier ones);
 * ovsdb_txn_abort() restores the exact prior state, rows included (old row
 * pointers stay valid and are reinstated).  ovsdb_txn_commit_finish()
 * frees the old versions of changed rows after the commit observers have
 * seen them.
 *
 * Changes are reported per row as (old, new, changed columns), old NULL
 * for an insert and new NULL for a delete. */
#ifndef OVSDB_TXN_H
#define OVSDB_TXN_H 1

#include <stdbool.h>
#include <jansson.h>
#include "lib/util.h"
#include "lib/uuid.h"

struct ds;
struct ovsdb;
struct ovsdb_column_set;
struct ovsdb_error;
struct ovsdb_row;
struct ovsdb_table;

struct ovsdb_txn;

/* Starts a transaction on 'db'.  Caller must end it with
 * ovsdb_txn_commit_finish() or ovsdb_txn_abort(), which free it. */
struct ovsdb_txn *ovsdb_txn_create(struct ovsdb *db);
struct ovsdb *ovsdb_txn_get_db(const struct ovsdb_txn *);

/* The transaction's id for monitor_cond_since, when its storage gives it
 * one (a clustered database: the Raft entry id, the same on every member);
 * get returns NULL if none was set.  Borrowed. */
void ovsdb_txn_set_id(struct ovsdb_txn *, const struct uuid *);
const struct uuid *ovsdb_txn_get_id(const struct ovsdb_txn *);

/* Row changes.
 *
 * ovsdb_txn_row_insert(): takes ownership of 'row', a row of 'table'
 * (ovsdb_row_create()) with its _uuid set, which must not exist yet.
 *
 * ovsdb_txn_row_modify(): returns a writable version of 'row' (a committed
 * row of the db, or one already returned by this txn); the caller changes
 * its fields (not _uuid).  Borrowed: valid until the txn ends.
 *
 * ovsdb_txn_row_delete(): deletes 'row' (committed or new in this txn). */
void ovsdb_txn_row_insert(struct ovsdb_txn *, struct ovsdb_row *row);
struct ovsdb_row *ovsdb_txn_row_modify(struct ovsdb_txn *,
                                       const struct ovsdb_row *row);
/* Same as ovsdb_txn_row_modify(), but if the row must be copied, the
 * columns in 'overwrite' are not copied (they hold their defaults): the
 * caller sets every one of them. */
struct ovsdb_row *ovsdb_txn_row_modify_except(
    struct ovsdb_txn *, const struct ovsdb_row *row,
    const struct ovsdb_column_set *overwrite);
void ovsdb_txn_row_delete(struct ovsdb_txn *, const struct ovsdb_row *row);

/* True if the row 'row' was inserted by this transaction (for "wait" and
 * garbage collection). */
bool ovsdb_txn_row_is_new(const struct ovsdb_row *row);

/* True if 'uuid' names a row of 'table' in the transaction's view, or a row
 * this transaction deleted (so it cannot be reused by an "insert"). */
bool ovsdb_txn_uuid_in_use(const struct ovsdb_table *table,
                           const struct uuid *uuid);

/* A comment for the log ("comment" operation); several are joined with
 * "\n".  Borrowed / NULL if none. */
void ovsdb_txn_add_comment(struct ovsdb_txn *, const char *comment);
const char *ovsdb_txn_get_comment(const struct ovsdb_txn *);

/* True if the transaction changes nothing (after precommit this accounts
 * for rows inserted and then garbage collected, or modified back to their
 * old values). */
bool ovsdb_txn_is_empty(const struct ovsdb_txn *);

/* Commit-time checks and fixes: deletes rows of non-root tables that no
 * longer have strong references (garbage collection), removes dangling
 * weak references (and checks the resulting sizes), checks referential
 * integrity of strong references, maxRows and index uniqueness, and gives
 * each changed row a new _version.  On error, the transaction must be
 * aborted. */
struct ovsdb_error *ovsdb_txn_precommit(struct ovsdb_txn *)
    WARN_UNUSED_RESULT;

/* Makes the transaction permanent, runs the db's commit observers, frees
 * the old rows and 'txn'. */
void ovsdb_txn_commit_finish(struct ovsdb_txn *);

/* Group commit (ovsdb/storage/storage.h).  ovsdb_txn_commit_defer() makes the
 * transaction's changes the database's committed state, so that the next
 * transaction can start on top of it, but neither runs the commit
 * observers nor frees the old rows: the caller keeps 'txn' (detached from
 * the database) and ends it later with exactly one of
 * ovsdb_txn_deferred_finish() (runs the observers, as commit_finish would
 * have, then frees the old rows and 'txn') or ovsdb_txn_deferred_undo()
 * (restores the state before 'txn', old row pointers included, and frees
 * 'txn'; no observer runs).  With several deferred transactions, finish
 * them in commit order, or undo them in the reverse order; no other
 * transaction may be open meanwhile. */
void ovsdb_txn_commit_defer(struct ovsdb_txn *);
void ovsdb_txn_deferred_finish(struct ovsdb_txn *);
void ovsdb_txn_deferred_undo(struct ovsdb_txn *);

/* Undoes every change and frees 'txn'.  NULL is fine. */
void ovsdb_txn_abort(struct ovsdb_txn *);

/* Iterates the changes of 'txn' (after precommit): calls 'cb' once per
 * changed row with the table, the old row (NULL if inserted), the new row
 * (NULL if deleted), and a bitmap (lib/bitmap.h) indexed by column index
 * of the columns that differ (all columns for insert/delete).  All
 * arguments are borrowed for the duration of the call.  Stops early if
 * 'cb' returns false. */
typedef bool ovsdb_txn_change_cb(const struct ovsdb_table *table,
                                 const struct ovsdb_row *old,
                                 const struct ovsdb_row *new,
                                 const unsigned long *changed, void *aux);
void ovsdb_txn_for_each_change(const struct ovsdb_txn *,
                               ovsdb_txn_change_cb *cb, void *aux);

/* The same changes grouped by table, as a transaction record lists them
 * (ovsdb/format/record.h): tables 0 to ovsdb_txn_get_n_tables() - 1, in the
 * order the transaction first touched them (some may have no change left after
 * precommit), and the changed rows of table 'i', in no particular order, with
 * the same arguments and early stop as ovsdb_txn_for_each_change(). */
size_t ovsdb_txn_get_n_tables(const struct ovsdb_txn *);
const struct ovsdb_table *ovsdb_txn_get_table(const struct ovsdb_txn *,
                                              size_t i);
void ovsdb_txn_for_each_change_in_table(const struct ovsdb_txn *, size_t i,
                                        ovsdb_txn_change_cb *cb, void *aux);

#endif /* ovsdb/engine/txn.h */
