/* ovsdb/format/cluster-file.h: a clustered database file as a whole (ovsdb(5)
 * "Clustered Format"; the records are in ovsdb/format/raft-record.h).
 *
 *     struct cluster_file *cf;
 *     error = cluster_file_open("nb.db", true, &cf);
 *     (cf->header: ids, name, address, snapshot; cf->term, cf->vote,
 *      cf->entries[0 .. log_end - log_start), cf->commit_index)
 *     error = cluster_file_replay(cf, cf->log_end - 1, &db, NULL);
 *     ...
 *     error = cluster_file_append_entry(cf, NULL, term, data, size, &eid,
 *                                       NULL, 0, &index);
 *     error = cluster_file_write_commit_index(cf, NULL, index);
 *     error = ovsdb_log_commit_block(cf->log);          (fsync)
 *     ...
 *     error = cluster_file_save_snapshot(cf, applied, data, size);
 *     cluster_file_close(cf);
 *
 * Reading applies the records as the reference does: a record with a
 * higher term starts that term (forgetting the vote); an entry at an index
 * below the end truncates the log there (not below the commit index); a
 * vote, a commit index that goes back or past the log, or a "left" note
 * that contradicts what came before makes the open fail with the
 * reference's message ("error reading record N from NAME log: ...").  A bad
 * record (torn tail, wrong SHA-1, not JSON) ends the file as in the
 * standalone log: the open succeeds with what came before, the error is
 * kept in 'tail_error' for the caller to report, and the next write
 * truncates the file there.
 *
 * Writing: every write function appends one record (no fsync: use
 * ovsdb_log_commit_block() on 'log'), now or into a batch, and updates the
 * state as reading that record would.  Entry DATA is held as JSON text: [SCHEMA or null, TXN or
 * null], SCHEMA an ovsdb(5) schema, TXN an ovsdb(5) transaction record
 * (ovsdb/format/record.h), both serialized as raft_data_put() does.
 *
 * The fields of 'struct cluster_file' are read-only for callers. */
#ifndef OVSDB_CLUSTER_FILE_H
#define OVSDB_CLUSTER_FILE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "lib/util.h"
#include "lib/uuid.h"
#include "ovsdb/format/raft-record.h"

struct ds;
struct ovsdb;
struct ovsdb_error;
struct ovsdb_log;

/* The reference's election timer: default, and bounds for a new one. */
#define CLUSTER_ELECTION_TIMER_DEFAULT 1000
#define CLUSTER_ELECTION_TIMER_MIN 100
#define CLUSTER_ELECTION_TIMER_MAX 600000

/* One entry of the log after the snapshot. */
struct cluster_entry {
    uint64_t term;
    char *data;                 /* JSON text of DATA, or NULL; owned. */
    size_t data_size;
    struct uuid eid;            /* Zero iff 'data' is NULL. */
    json_t *servers;            /* Object SID: ADDR, or NULL; owned. */
    uint64_t election_timer;    /* Or 0. */
};

struct cluster_file {
    struct ovsdb_log *log;      /* After the last good record. */
    struct raft_header header;  /* As read (or as last written by
                                 * cluster_file_save_snapshot(), which
                                 * leaves 'header.snap.data' NULL). */

    /* The log: entries[i] has index log_start + i.  log_start is
     * header.snap_index + 1. */
    uint64_t log_start, log_end;
    struct cluster_entry *entries;
    size_t allocated_entries;

    uint64_t term;              /* Current term (the highest seen). */
    struct uuid vote;           /* Vote in 'term', or zero. */
    struct uuid leader;         /* Leader recorded for 'term', or zero. */
    uint64_t commit_index;      /* At least header.snap_index. */

    unsigned long long n_records;   /* Records after the header. */
    struct ovsdb_error *tail_error; /* The bad record that ended the file,
                                     * or NULL. */
};

/* Opens the clustered file 'path' (read-write and locked if 'read_write')
 * and reads all of it.  On success stores a new cluster_file in '*cfp'
 * (caller must free with cluster_file_close()).  A joining file (made by
 * cluster_file_create_joining(), not joined yet) has only its header. */
struct ovsdb_error *cluster_file_open(const char *path, bool read_write,
                                      struct cluster_file **cfp)
    WARN_UNUSED_RESULT;
void cluster_file_close(struct cluster_file *);     /* NULL is fine. */

/* Creates the new file 'path' (which must not exist) for a new cluster of
 * one server at 'local_address' (checked with raft_address_validate()),
 * as the reference's create-cluster: a new cluster id and server id, a
 * header whose snapshot is index 1, term 1, with DATA 'data' ('data_size'
 * bytes of JSON text, borrowed) and a new eid, the server as the only
 * member; then, if 'election_timer' is nonzero (it must be within the
 * bounds above), the entry {term 1, index 2, election_timer}.  Fsyncs.
 * If 'sidp'/'cidp' are nonnull, stores the new ids there. */
struct ovsdb_error *cluster_file_create(const char *path, const char *name,
                                        const char *local_address,
                                        const char *data, size_t data_size,
                                        uint64_t election_timer,
                                        struct uuid *sidp, struct uuid *cidp)
    WARN_UNUSED_RESULT;

/* Creates the new file 'path' for a server that will join the cluster of
 * database 'name' through 'remotes' (n_remotes >= 1 addresses, none equal
 * to 'local_address'), as the reference's join-cluster.  'cid' may be NULL
 * (any cluster) and may not be all zeros.  Fsyncs. */
struct ovsdb_error *cluster_file_create_joining(const char *path,
                                                const char *name,
                                                const char *local_address,
                                                char *const *remotes,
                                                size_t n_remotes,
                                                const struct uuid *cid,
                                                struct uuid *sidp)
    WARN_UNUSED_RESULT;

/* Checks an election timer as the reference ("election timer must be
 * between 100 and 600000, in msec."). */
struct ovsdb_error *cluster_file_validate_election_timer(uint64_t ms)
    WARN_UNUSED_RESULT;

/* Returns the entry at 'index' (log_start <= index < log_end); borrowed,
 * valid until the next write. */
const struct cluster_entry *cluster_file_get_entry(
    const struct cluster_file *, uint64_t index);

/* Returns the term of 'index' (log_start - 1 <= index < log_end). */
uint64_t cluster_file_get_term(const struct cluster_file *, uint64_t index);

/* Returns the eid of the last entry with data at or before 'index', or the
 * snapshot's. */
const struct uuid *cluster_file_get_eid(const struct cluster_file *,
                                        uint64_t index);

/* Returns the newest server configuration (of the last entry that has one,
 * committed or not, else the snapshot's); borrowed, valid until the next
 * write.  NULL for a joining file. */
const json_t *cluster_file_get_servers(const struct cluster_file *);

/* Returns the election timer in force: the last committed entry's that
 * sets one, else the snapshot's, else the default. */
uint64_t cluster_file_get_election_timer(const struct cluster_file *);

/* Writing records.  Each function formats one record and applies it to the
 * state as reading it would.  With 'batch' NULL the record is written to
 * 'log' now (not fsynced).  Otherwise the complete record (header and
 * body) is appended to 'batch' for the caller to write, with others, in
 * one ovsdb_log_write_records() (group commit); take a
 * cluster_file_mark() first and, if that write fails,
 * cluster_file_rollback() to it.  A batched entry can only be appended
 * (at log_end). */

/* Writes an entry record at 'index' (at most log_end; below it, the log is
 * truncated there first, which must not go below the commit index).
 * 'data' is 'data_size' bytes of DATA's JSON text or NULL; 'eid' must be
 * nonnull and nonzero with data; 'servers' may be NULL; all borrowed. */
struct ovsdb_error *cluster_file_write_entry(struct cluster_file *,
                                             struct ds *batch,
                                             uint64_t term, uint64_t index,
                                             const char *data,
                                             size_t data_size,
                                             const struct uuid *eid,
                                             const json_t *servers,
                                             uint64_t election_timer)
    WARN_UNUSED_RESULT;

/* Same at log_end; stores the new entry's index in '*indexp' if
 * nonnull. */
struct ovsdb_error *cluster_file_append_entry(struct cluster_file *,
                                              struct ds *batch,
                                              uint64_t term,
                                              const char *data,
                                              size_t data_size,
                                              const struct uuid *eid,
                                              const json_t *servers,
                                              uint64_t election_timer,
                                              uint64_t *indexp)
    WARN_UNUSED_RESULT;

/* A term record, or a vote record if 'vote' is nonnull and nonzero. */
struct ovsdb_error *cluster_file_write_term(struct cluster_file *,
                                            struct ds *batch, uint64_t term,
                                            const struct uuid *vote)
    WARN_UNUSED_RESULT;
struct ovsdb_error *cluster_file_write_leader(struct cluster_file *,
                                              struct ds *batch,
                                              uint64_t term,
                                              const struct uuid *leader)
    WARN_UNUSED_RESULT;
struct ovsdb_error *cluster_file_write_commit_index(struct cluster_file *,
                                                    struct ds *batch,
                                                    uint64_t commit_index)
    WARN_UNUSED_RESULT;
struct ovsdb_error *cluster_file_write_note(struct cluster_file *,
                                            struct ds *batch,
                                            const char *note)
    WARN_UNUSED_RESULT;

/* Raises the commit index in memory only (to at most log_end - 1), for a
 * commit whose record could not be written. */
void cluster_file_set_commit_index(struct cluster_file *,
                                   uint64_t commit_index);

/* Forgets, in memory, the entries from 'log_end' on (never committed ones)
 * and sets the record count back to 'n_records': for a caller that cut
 * the records written after that point off the file again (a failed
 * fsync, ovsdb_log_commit_block_or_undo()). */
void cluster_file_forget(struct cluster_file *, uint64_t log_end,
                         unsigned long long n_records);

/* The state that cluster_file_rollback() restores: the log end, commit
 * index, term, vote, leader and record count. */
struct cluster_file_mark {
    uint64_t log_end, commit_index, term;
    struct uuid vote, leader;
    unsigned long long n_records;
};
void cluster_file_mark(const struct cluster_file *,
                       struct cluster_file_mark *);
void cluster_file_rollback(struct cluster_file *,
                           const struct cluster_file_mark *);

/* Compacts the file as the reference does: rewrites it atomically
 * (ovsdb_log_replace()) as a header whose snapshot is the state after
 * entry 'applied_index' (log_start <= applied_index < log_end) with DATA
 * 'data' ('data_size' bytes of JSON text, borrowed), that entry's term,
 * eid and server configuration and the current election timer; then the
 * entries after it, a term (or vote) record for the current term, and
 * the commit index if it is past 'applied_index'.  On error the file and
 * the state are unchanged. */
struct ovsdb_error *cluster_file_save_snapshot(struct cluster_file *,
                                               uint64_t applied_index,
                                               const char *data,
                                               size_t data_size)
    WARN_UNUSED_RESULT;

/* The same compaction in the background, for a snapshot whose DATA takes
 * long to build (another process may build and write it):
 *   1. cluster_file_compact_start() checks as cluster_file_save_snapshot()
 *      does and creates "<name>.tmp" for the snapshot after entry
 *      'applied_index' (its term, eid and configuration as of now).
 *   2. cluster_file_compact_write() writes the header with the snapshot's
 *      DATA to it and fsyncs; it touches nothing else, so a forked child
 *      can call it while the parent goes on writing to 'cf'.
 *   3. cluster_file_compact_finish() (in the process that owns 'cf', once
 *      step 2 is done) appends what follows the header from the state as
 *      it is then (every entry after the snapshot, the ones added
 *      meanwhile included; the term or vote; the commit index), fsyncs
 *      and renames the file over the log, and makes the state match.  It
 *      fails, and changes nothing, if a snapshot from the leader replaced
 *      the log meanwhile.  It always frees 'cc'.
 * cluster_file_compact_abort() ends a compaction instead (removes the
 * temporary file and frees 'cc'; NULL is fine). */
struct cluster_compaction;
struct ovsdb_error *cluster_file_compact_start(struct cluster_file *,
                                               uint64_t applied_index,
                                               struct cluster_compaction **)
    WARN_UNUSED_RESULT;
struct ovsdb_error *cluster_file_compact_write(struct cluster_compaction *,
                                               const char *data,
                                               size_t data_size)
    WARN_UNUSED_RESULT;
struct ovsdb_error *cluster_file_compact_finish(struct cluster_file *,
                                                struct cluster_compaction *)
    WARN_UNUSED_RESULT;
void cluster_file_compact_abort(struct cluster_compaction *);

/* Replaces the whole log by a snapshot received from the leader, as the
 * reference installs one: rewrites the file atomically as a header whose
 * snapshot is entry 'index' (at or past the last entry of the log) of term
 * 'term' with 'eid' (may be NULL), configuration 'servers' and
 * 'election_timer' (borrowed) and DATA 'data' ('data_size' bytes of JSON
 * text, borrowed), then the current term (or vote).  A joining file
 * becomes a member's file of cluster 'cid' (if nonnull).  Afterward the
 * log is empty, starting at index + 1, and 'index' is committed.  On error
 * the file and the state are unchanged. */
struct ovsdb_error *cluster_file_install_snapshot(
    struct cluster_file *, const struct uuid *cid, uint64_t index,
    uint64_t term, const struct uuid *eid, const json_t *servers,
    uint64_t election_timer, const char *data, size_t data_size)
    WARN_UNUSED_RESULT;

/* Reads the snapshot DATA from the header of the clustered file 'path'
 * (which may be open elsewhere): stores it in '*datap' (new reference).
 * For a leader that sends its snapshot without keeping it in memory. */
struct ovsdb_error *cluster_file_read_snapshot_data(const char *path,
                                                    json_t **datap)
    WARN_UNUSED_RESULT;

/* Builds the database of 'cf' after entry 'last_index' (log_start - 1 for
 * the snapshot alone) by applying the snapshot's DATA, then each entry's
 * (cluster_file_apply_data()).  The snapshot's DATA must still be in
 * memory (it is after cluster_file_open()).  On success stores the new
 * database in '*dbp' (caller must free with ovsdb_destroy()) and, if
 * 'eidp' is nonnull, the eid of the last entry applied (or of the
 * snapshot) in '*eidp'. */
struct ovsdb_error *cluster_file_replay(const struct cluster_file *cf,
                                        uint64_t last_index,
                                        struct ovsdb **dbp,
                                        struct uuid *eidp)
    WARN_UNUSED_RESULT;

/* Applies DATA 'data' (borrowed JSON) to '*dbp' (may be NULL before the
 * first schema): a SCHEMA replaces '*dbp' by a new empty database of that
 * schema (the old one is destroyed), then a TXN is replayed into it as a
 * committed transaction (ovsdb_record_replay()).  'name' is the
 * file's database name, which a schema must match. */
struct ovsdb_error *cluster_file_apply_data(struct ovsdb **dbp,
                                            const char *name,
                                            const json_t *data)
    WARN_UNUSED_RESULT;

/* Appends to 'out' the JSON text of DATA for a snapshot of 'db': its
 * schema and all of its rows (ovsdb_file_put_snapshot(), with 'comment'
 * if nonnull). */
void cluster_file_put_db_data(struct ds *out, const struct ovsdb *db,
                              const char *comment);

#endif /* ovsdb/format/cluster-file.h */
