/* ovsdb/storage/storage.h: the on-disk side of one database, as the server
 * uses it.
 *
 * One interface, two kinds of file, told apart by their magic at open: a
 * standalone file (ovsdb/format/log, ovsdb/format/file) or a clustered one,
 * served through this server's Raft member (ovsdb/raft).  Everything below
 * holds for both, except where it says "standalone" or "clustered": -
 * Clustered, ovsdb_storage_commit_defer() proposes the transaction's record
 * as a Raft entry [null, RECORD] (a follower's member forwards it to the
 * leader); every clustered commit is durable (Raft counts only entries on
 * disk).  The outcome is known when a majority has the entry, which may be
 * passes of the loop later: it comes out of ovsdb_storage_pop_outcome().  A
 * transaction that failed for a reason of the cluster's (no leader, a
 * leader change whose log overwrote its entry, another member's entry
 * committed first) fails with "cluster error": it did not happen, and the
 * caller may run it again.  One whose entry went to the cluster and whose
 * fate this member could not learn in time (see raft.h: 10 election
 * timers without a leader, a snapshot installed, the database closed)
 * fails with "unknown outcome": it is undone here, must not be run again,
 * and if its entry does commit later it comes back as any other member's
 * entry and is applied then, once.  A leader change alone decides
 * nothing: the entry is waited for in the log this member then follows.
 * Committed entries (others' transactions, and ours coming back) are applied
 * a slice per pass of the loop, so that a member with a long log to apply
 * keeps serving meanwhile; ovsdb_storage_wait() wakes the loop at once while
 * some are left. - Clustered compaction writes a Raft snapshot (the header's
 * prev_* fields), in a forked child as below (the reference snapshots in its
 * main loop); conversion commits the new schema and contents as one entry,
 * decided like a transaction (ovsdb_storage_propose_db()).
 *
 *     struct ovsdb_storage *s;
 *     struct ovsdb *db;
 *     error = ovsdb_storage_open("conf.db", &s, &db);
 *     ...
 *     txn = ovsdb_execute_compose(db, ...);
 *     error = ovsdb_txn_precommit(txn);
 *     if (!error) error = ovsdb_storage_commit_defer(s, txn, durable);
 *     if (error) ovsdb_txn_abort(txn);     (reply with the error now)
 *     else                                 (hold the reply: 's' owns txn)
 *     ... more transactions, each on top of the ones before ...
 *     error = ovsdb_storage_flush(s);      (end of the loop's pass)
 *     (answer every held reply: with the result if !error, else with it
 *      plus the error)
 *     ...
 *     loop: ovsdb_storage_run(s); ovsdb_storage_wait(s); poll_block();
 *     ...
 *     ovsdb_storage_close(s); ovsdb_destroy(db);
 *
 * Group commit.  ovsdb_storage_commit_defer() serializes the transaction's
 * record into a batch and makes its changes the database's state at once
 * (ovsdb_txn_commit_defer()), so that the next transaction sees them, but
 * it runs no commit observer (no monitor update) and writes nothing.
 * ovsdb_storage_flush() writes the whole batch with one write, fsyncs once
 * if any transaction of it was durable, and then either finishes every
 * transaction in commit order (commit observers run: monitor updates go
 * out only now) or, if the write or fsync failed, undoes them in reverse
 * order, so the database is exactly as before the batch.  The caller must
 * not let anything that depends on the batch's data (replies, reads) reach
 * a client before the flush.  The batch must be flushed before any other
 * call here except ovsdb_storage_commit_defer() and the getters.
 *
 * A failed write is undone by truncating the file back to the batch's
 * start.  A failed fsync is undone the same way, followed by a second
 * fsync, so that a crash cannot replay transactions that were answered
 * with an error; the file is then rewritten from memory soon (a background
 * compaction), since Linux may have dropped earlier unsynced pages.  If the
 * truncation or the second fsync fails too, the log refuses writes (later
 * commits fail at once) until ovsdb_storage_run() rewrites the whole file
 * from memory, which it retries by itself (every second) until writes
 * succeed again.  Until that rewrite, a crash may replay the failed batch:
 * the one window that remains.
 *
 * Compaction rewrites the file as the schema plus one snapshot of every
 * row, atomically (DB.tmp, fsync, rename, fsync directory).  Policy, as the
 * reference's: when the file is at least 10 MB and at least 4 times its
 * size after the last compaction (or at open), and at least 10 minutes have
 * passed since the last compaction (or open); also once 24 hours have
 * passed, if at least 100 records were added; and on demand.
 * The environment variables OVSDB_COMPACT_MIN_MSEC and
 * OVSDB_COMPACT_MIN_BYTES override the 10 minutes and 10 MB (for tests).
 *
 * Compaction runs in a forked child, so the loop is not stalled for the
 * snapshot's duration:
 *   1. ovsdb_storage_run() (never inside a transaction) creates DB.tmp and
 *      forks; the child owns a copy-on-write image of the database as of
 *      the last commit, writes the schema and snapshot to DB.tmp, fsyncs it
 *      and exits, reporting failure as text on a pipe.
 *   2. Meanwhile the parent keeps committing to DB and also keeps every
 *      record it commits in memory.
 *   3. When the pipe reaches end of file, ovsdb_storage_run() reaps the
 *      child; on success it appends the kept records to DB.tmp, fsyncs,
 *      renames it over DB and fsyncs the directory, then (with memory
 *      trimming on) calls allocator_release_free_memory().
 * The only state shared across the fork is the DB.tmp file.
 *
 * A clustered file is compacted the same way, with two differences: the
 * child writes only the new header, whose snapshot is the state after the
 * last applied entry (it takes back, in its copy, the transactions the
 * cluster has not decided yet); the entries after it, those committed
 * meanwhile included, come from the Raft log when the parent installs the
 * file (cluster_file_compact_finish()).  The Raft member keeps running
 * meanwhile.  The child dies with its parent (Linux), since it shares the
 * parent's lock on the file.  OVSDB_COMPACT_CHILD_DELAY_MSEC makes every
 * child last at least that long (for tests). */
#ifndef OVSDB_STORAGE_H
#define OVSDB_STORAGE_H 1

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "lib/util.h"

struct ds;
struct ovsdb;
struct ovsdb_error;
struct ovsdb_txn;
struct raft;

struct ovsdb_storage;

/* Opens the database file 'path' read-write (locked) and replays it into a
 * new database stored in '*dbp' (caller must free with ovsdb_destroy(),
 * after ovsdb_storage_close()).  A bad tail record is logged and dropped
 * (the next commit truncates it).  On success stores the storage in
 * '*storagep' (caller must free with ovsdb_storage_close()). */
struct ovsdb_error *ovsdb_storage_open(const char *path,
                                       struct ovsdb_storage **storagep,
                                       struct ovsdb **dbp)
    WARN_UNUSED_RESULT;

/* Ends any compaction in progress (killing its child) and closes the file.
 * Does not free the database.  NULL is fine. */
void ovsdb_storage_close(struct ovsdb_storage *);

/* The file name; borrowed (valid until the storage is closed). */
const char *ovsdb_storage_get_name(const struct ovsdb_storage *);

/* The Raft member of a clustered database (borrowed, valid until the
 * storage is closed), or NULL for a standalone one. */
struct raft *ovsdb_storage_get_raft(const struct ovsdb_storage *);

/* Adds 'txn' (after a successful precommit) to the batch and makes its
 * changes the database's committed state; fsyncs at the flush if
 * 'durable'.  On success takes ownership of 'txn' and returns NULL; the
 * outcome is known only after ovsdb_storage_flush().  If the log refuses
 * writes, returns the "I/O error" at once and leaves 'txn' to the caller,
 * which must abort it. */
struct ovsdb_error *ovsdb_storage_commit_defer(struct ovsdb_storage *,
                                               struct ovsdb_txn *txn,
                                               bool durable)
    WARN_UNUSED_RESULT;

/* Writes the batch (see above).  Returns NULL if every transaction of it
 * is on disk (fsynced if one was durable) and finished, or an "I/O error"
 * (caller must free it) if they were all undone.  NULL if nothing was
 * pending. */
struct ovsdb_error *ovsdb_storage_flush(struct ovsdb_storage *)
    WARN_UNUSED_RESULT;

/* True if some transaction committed in memory is not decided yet (in the
 * batch, or clustered and waiting for the cluster). */
bool ovsdb_storage_has_pending(const struct ovsdb_storage *);

/* Outcomes.  Every transaction that ovsdb_storage_commit_defer() takes
 * gets the next ticket (1, 2, ...); ovsdb_storage_get_last_ticket() is the
 * newest one's.  Once transactions are decided (at a flush; clustered,
 * possibly later, in ovsdb_storage_run()), ovsdb_storage_pop_outcome()
 * returns, oldest first, that every transaction up to '*ticket' is decided,
 * committed if '*errorp' is NULL, else undone with that error (caller must
 * free it), or false if nothing more is decided. */
uint64_t ovsdb_storage_get_last_ticket(const struct ovsdb_storage *);
bool ovsdb_storage_pop_outcome(struct ovsdb_storage *, uint64_t *ticket,
                               struct ovsdb_error **errorp);

/* Clustered: undoes every undecided transaction and decides them with an
 * "unknown outcome" (popped as usual): for a database about to be closed,
 * whose entries may still commit in the cluster.  Flush first.  Does
 * nothing for a standalone database. */
void ovsdb_storage_abandon(struct ovsdb_storage *);

/* Clustered: applies every entry already committed, at once rather than a
 * slice per ovsdb_storage_run(): what a server does at startup, after
 * ovsdb_storage_open() gave it the snapshot's database and it set up its
 * commit observers.  Does nothing for a standalone database. */
void ovsdb_storage_apply_committed(struct ovsdb_storage *);

/* Clustered: when an entry of another member replaced the whole database
 * (a conversion, or a snapshot installed from the leader), returns the new
 * database (the caller takes ownership and must serve it instead of, and
 * then destroy, the old one); else NULL. */
struct ovsdb *ovsdb_storage_take_new_db(struct ovsdb_storage *);

/* Writes the changes of 'txn' (after precommit; nothing if it changed
 * nothing persistent) as one record with its comment, and fsyncs if
 * 'durable', at once (with whatever the batch holds: flush it first).
 * Returns NULL once the record is written, or an "I/O error" (then the
 * caller must abort the transaction). */
struct ovsdb_error *ovsdb_storage_commit_txn(struct ovsdb_storage *,
                                             const struct ovsdb_txn *txn,
                                             bool durable)
    WARN_UNUSED_RESULT;

/* Replaces the file's contents, atomically and under the lock the storage
 * holds, by the schema and rows of 'db' (e.g. the result of
 * ovsdb_file_convert()), with 'comment' (may be NULL).  On success the
 * storage refers to 'db' (borrowed, as in ovsdb_storage_open(): the caller
 * must keep it until the storage is closed) instead of the old database;
 * on error nothing changed.  Ends a compaction in progress.  Must not be
 * called while a transaction is open.  Standalone only (a clustered
 * database fails with "not supported"). */
struct ovsdb_error *ovsdb_storage_replace_db(struct ovsdb_storage *,
                                             struct ovsdb *db,
                                             const char *comment)
    WARN_UNUSED_RESULT;

/* Clustered: proposes 'db' (takes ownership; e.g. the result of
 * ovsdb_file_convert()), schema included, as one entry [SCHEMA, SNAPSHOT],
 * as the reference commits an online conversion, built on the state the
 * database shows (on any member: a follower's goes to the leader).  The
 * batch must be flushed first, and no transaction may be committed on top
 * until the conversion is decided (the database does not show it yet).
 * Returns an error at once if the member cannot propose it (a "cluster
 * error", such as no leader, may be tried again), else NULL: the
 * conversion has the next ticket and is decided like a transaction
 * (ovsdb_storage_pop_outcome()): committed, and then
 * ovsdb_storage_take_new_db() returns 'db', or undone with an error (a
 * "cluster error" if another member's entry came first, or the leader
 * changed).  A schema with an ephemeral column is refused first, with the
 * reference's words (its members cannot apply one). */
struct ovsdb_error *ovsdb_storage_propose_db(struct ovsdb_storage *,
                                             struct ovsdb *db,
                                             const char *comment)
    WARN_UNUSED_RESULT;

/* Does background work: starts a compaction when the policy says so,
 * finishes one whose child is done, retries rewriting a broken file.
 * Never blocks; must not be called while a transaction is open on the
 * database. */
void ovsdb_storage_run(struct ovsdb_storage *);
void ovsdb_storage_wait(struct ovsdb_storage *);

/* Starts a compaction now, in the background (a no-op if one is running).
 * Must not be called while a transaction is open. */
struct ovsdb_error *ovsdb_storage_compact(struct ovsdb_storage *)
    WARN_UNUSED_RESULT;
/* Compacts now, in this process, and returns when done (for tools and the
 * recovery path).  Must not be called while a transaction is open. */
struct ovsdb_error *ovsdb_storage_compact_sync(struct ovsdb_storage *)
    WARN_UNUSED_RESULT;
bool ovsdb_storage_is_compacting(const struct ovsdb_storage *);

/* Number of compactions completed so far (successful or not), and the
 * error of the last one (borrowed, NULL if it succeeded or none ran), so a
 * caller that asked for one can tell when it is done. */
unsigned long long ovsdb_storage_n_compactions(const struct ovsdb_storage *);
const struct ovsdb_error *ovsdb_storage_last_compact_error(
    const struct ovsdb_storage *);

/* With 'trim', compaction ends with allocator_release_free_memory(). */
void ovsdb_storage_set_memory_trim(struct ovsdb_storage *, bool trim);

/* The size of the database's file (bytes), and its number of records
 * (clustered: log entries after the snapshot). */
long long ovsdb_storage_get_file_size(const struct ovsdb_storage *);
unsigned long long ovsdb_storage_get_n_records(const struct ovsdb_storage *);

/* Clustered: how long transactions' entries took from being proposed to
 * being known committed, in seconds (borrowed); NULL for a standalone
 * database, whose commit is the batch write. */
struct prom_histogram;
const struct prom_histogram *ovsdb_storage_get_commit_latency(
    const struct ovsdb_storage *);

/* Appends a one-line summary ("records:N size:B ...") for memory/show-like
 * reports. */
void ovsdb_storage_put_stats(const struct ovsdb_storage *, struct ds *out);

#endif /* ovsdb/storage/storage.h */
