/* ovsdb/format/record.h: the ovsdb(5) transaction record, written and read.
 *
 * A transaction record is the JSON object that a database file holds for
 * one committed transaction, and that a clustered database holds in the
 * data of a Raft entry:
 *
 *     {"TABLE": {"ROW-UUID": {"COLUMN": VALUE, ...} or null, ...}, ...,
 *      "_date": MSEC, "_comment": "TEXT", "_is_diff": true}
 *
 * null deletes a row.  For an inserted row the record lists its persistent
 * non-default columns.  With "_is_diff": true (what we write for every
 * commit) a modified row lists only its changed persistent columns, and a
 * changed set or map column holds the diff from the old value
 * (ovsdb_datum_diff()) unless the old value was the column's default, in
 * which case it holds the new value, which is how the reference reads it
 * back.  Without "_is_diff" (older writers, and snapshots), each row lists
 * its full non-default persistent columns.
 *
 * This module is the only one that writes or parses these records;
 * ovsdb/format/file (standalone files), ovsdb/storage, the relay and
 * ovsdb-tool go through it. */
#ifndef OVSDB_RECORD_H
#define OVSDB_RECORD_H 1

#include <stdbool.h>
#include <jansson.h>
#include "lib/util.h"

struct ds;
struct ovsdb;
struct ovsdb_error;
struct ovsdb_txn;
struct uuid;

/* Appends to 'out' the JSON text of the record to write for 'txn' (after
 * precommit): its changes with "_date" (now, wall clock), "_comment" if
 * the transaction has one, and "_is_diff": true.  Serialized straight from
 * the transaction, without building a json_t (for a big transaction a
 * tree costs several times its text).  Returns false, appending nothing,
 * if nothing persistent changed. */
bool ovsdb_record_put_txn(struct ds *out, const struct ovsdb_txn *txn);

/* From now on, ovsdb_record_put_txn() writes each changed column of a
 * modified row whole, and no "_is_diff" (as the reference's
 * --disable-file-column-diff, for readers older than column diffs). */
void ovsdb_record_disable_column_diff(void);

/* Returns the changes of 'txn' (after precommit) as a record without
 * "_date", "_comment" and "_is_diff" (for tests and tools).  New
 * reference; NULL if nothing persistent changed. */
json_t *ovsdb_record_from_txn(const struct ovsdb_txn *txn);

/* Parses the record 'json' (borrowed; "_date" and "_is_diff" are ignored,
 * "_comment" becomes the transaction's comment) into a new open
 * transaction on 'db', stored in '*txnp': the caller then runs precommit
 * and commit (or abort), as for any transaction.  'is_diff' says how to
 * read modified set and map columns (see above).  On error '*txnp' is
 * NULL. */
struct ovsdb_error *ovsdb_record_to_txn(struct ovsdb *db, const json_t *json,
                                        bool is_diff,
                                        struct ovsdb_txn **txnp)
    WARN_UNUSED_RESULT;

/* Applies the record 'json' (borrowed; its own "_is_diff" says how to read
 * it) to 'db' as a committed transaction: parse, precommit, commit. */
struct ovsdb_error *ovsdb_record_replay(struct ovsdb *db, const json_t *json)
    WARN_UNUSED_RESULT;
/* Same, giving the transaction the id 'id' (if nonnull; see
 * ovsdb_txn_set_id()). */
struct ovsdb_error *ovsdb_record_replay_id(struct ovsdb *db,
                                           const json_t *json,
                                           const struct uuid *id)
    WARN_UNUSED_RESULT;

#endif /* ovsdb/format/record.h */
