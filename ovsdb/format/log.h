/* ovsdb/format/log.h: append-only record log (the ovsdb(5) file formats).
 *
 * A log is a sequence of records, each a header line and a JSON body:
 *
 *     OVSDB JSON <size> <sha1>\n<json>\n          (a standalone database)
 *     OVSDB CLUSTER <size> <sha1>\n<json>\n       (a clustered database)
 *
 * Every record of a file has the same magic ("OVSDB JSON" or "OVSDB
 * CLUSTER"), chosen when the file is created and checked at open; a record
 * with the other magic is a bad record.  <size> counts the bytes of "<json>\n" and <sha1> is the lowercase
 * hex SHA-1 of those same bytes.  Open a log, read records until none are
 * left, then append.  The first bad record (a header that does not parse, a
 * size that runs past the end of the file, a wrong SHA-1 or a body that is
 * not JSON) ends the valid prefix: it is reported as an error by
 * ovsdb_log_read(), never returned as data, and the next write truncates the
 * file there.
 *
 * A read-write or created log holds a lock on ".NAME.~lock~" beside the file
 * (an fcntl write lock, as the reference's lockfile), so two writers never
 * share a file; read-only opens take no lock.
 *
 * Durability: ovsdb_log_commit_block() fsyncs the file; creating or renaming
 * a file also fsyncs its directory.  Compaction replaces a log atomically
 * with ovsdb_log_replace_start(), writes to the new log, then
 * ovsdb_log_replace_commit() (fsync, rename over, fsync directory) or
 * ovsdb_log_replace_abort().
 *
 * All file I/O goes through one seam, so tests can make the N-th call fail
 * (ovsdb_log_inject_fault()).  A failed write leaves the file as it was
 * before the write whenever the undo (truncate) succeeds; otherwise the log
 * refuses further writes until it is replaced. */
#ifndef OVSDB_LOG_H
#define OVSDB_LOG_H 1

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>
#include "lib/util.h"

struct ds;
struct ovsdb_error;
struct ovsdb_log;                  /* Opaque: the body is in log.c. */

/* Which magic a log's records carry. */
enum ovsdb_log_kind {
    OVSDB_LOG_STANDALONE,          /* "OVSDB JSON" */
    OVSDB_LOG_CLUSTERED,           /* "OVSDB CLUSTER" */
    OVSDB_LOG_ANY,                 /* At open only: whichever the file has. */
};

enum ovsdb_log_mode {
    OVSDB_LOG_READ_ONLY,           /* Existing file, no writes, no lock. */
    OVSDB_LOG_READ_WRITE,          /* Existing file, locked. */
    OVSDB_LOG_CREATE_EXCL,         /* New file; fails if it exists. */
    OVSDB_LOG_CREATE,              /* New or existing file, locked. */
};

/* Opens 'path' in 'mode'.  On success stores a new log in '*logp' (caller
 * must free with ovsdb_log_close()) and returns NULL; on failure stores NULL
 * and returns the error.  A file that is not in the standalone format
 * (e.g. a clustered database) is rejected. */
struct ovsdb_error *ovsdb_log_open(const char *path, enum ovsdb_log_mode mode,
                                   struct ovsdb_log **logp)
    WARN_UNUSED_RESULT;

/* Same as ovsdb_log_open() for a log of 'kind'.  A new file (the create
 * modes, or an empty file) gets the magic of 'kind', which may not be
 * OVSDB_LOG_ANY then.  Opening an existing file of the other kind fails:
 * "cannot apply this operation to clustered database file" for a
 * clustered file opened as standalone (ovsdb_log_open()), "cannot identify
 * file type" otherwise.  An existing empty file opened as clustered reads
 * as empty (as the reference's check-cluster sees it); as standalone or
 * OVSDB_LOG_ANY it fails with "cannot identify file type". */
struct ovsdb_error *ovsdb_log_open_kind(const char *path,
                                        enum ovsdb_log_mode mode,
                                        enum ovsdb_log_kind kind,
                                        struct ovsdb_log **logp)
    WARN_UNUSED_RESULT;
void ovsdb_log_close(struct ovsdb_log *);   /* NULL is fine. */

/* Returns the kind of the log's records (never OVSDB_LOG_ANY). */
enum ovsdb_log_kind ovsdb_log_get_kind(const struct ovsdb_log *);

/* Returns the file name given to ovsdb_log_open(); borrowed (valid until the
 * log is closed). */
const char *ovsdb_log_get_name(const struct ovsdb_log *);

/* Reads the next record.  Returns NULL and stores a new reference in
 * '*jsonp', or NULL in '*jsonp' at the end of the valid records.  On a bad
 * record returns an error naming its offset (and stores NULL); reading
 * again returns the same error. */
struct ovsdb_error *ovsdb_log_read(struct ovsdb_log *, json_t **jsonp)
    WARN_UNUSED_RESULT;

/* Appends 'json' (borrowed) as one record.  The first write after reading
 * truncates whatever follows the last good record.  Does not fsync: see
 * ovsdb_log_commit_block().  On error the file is left as before the call
 * (or the log refuses all writes if even that failed). */
struct ovsdb_error *ovsdb_log_write(struct ovsdb_log *, const json_t *json)
    WARN_UNUSED_RESULT;

/* Same as ovsdb_log_write() for JSON already serialized: 'text' is 'size'
 * bytes of one JSON value (borrowed), without the final newline.  For
 * writers that stream a big value instead of building a json_t. */
struct ovsdb_error *ovsdb_log_write_text(struct ovsdb_log *, const char *text,
                                         size_t size) WARN_UNUSED_RESULT;

/* Appends 'size' bytes of 'records' (borrowed), 'n_records' complete
 * records as ovsdb_log_format_record() makes them, with a single write.
 * Same semantics as ovsdb_log_write(): on error the file is left as before
 * the call (or the log refuses all writes if even that failed). */
struct ovsdb_error *ovsdb_log_write_records(struct ovsdb_log *,
                                           const char *records, size_t size,
                                           unsigned long long n_records)
    WARN_UNUSED_RESULT;

/* Like ovsdb_log_commit_block(), but if the fsync fails, cuts the file back
 * to 'undo_offset' (holding 'undo_n_records' records: values that
 * ovsdb_log_get_offset() and ovsdb_log_get_n_records() returned before the
 * records that were not acknowledged yet were written) and fsyncs again,
 * so that a crash cannot replay them.  Returns the fsync error either way;
 * only if the cut or the second fsync fails too does the log become
 * broken.  Records written before 'undo_offset' without an fsync may still
 * have lost pages (Linux can drop dirty pages after a failed writeback), so
 * the caller should rewrite the file from memory soon. */
struct ovsdb_error *ovsdb_log_commit_block_or_undo(
    struct ovsdb_log *, off_t undo_offset, unsigned long long undo_n_records)
    WARN_UNUSED_RESULT;

/* Fsyncs everything written so far.  On error the file's state is unknown
 * (Linux may have dropped the dirty pages), so the log becomes broken: it
 * refuses writes until it is replaced by ovsdb_log_replace_*(). */
struct ovsdb_error *ovsdb_log_commit_block(struct ovsdb_log *)
    WARN_UNUSED_RESULT;

/* Returns true if an earlier I/O failure could not be undone, so the log
 * refuses writes until it is replaced by ovsdb_log_replace_*(). */
bool ovsdb_log_is_broken(const struct ovsdb_log *);

/* Bytes of valid records in the file (after reading or writing). */
off_t ovsdb_log_get_offset(const struct ovsdb_log *);

/* Number of records read or written so far. */
unsigned long long ovsdb_log_get_n_records(const struct ovsdb_log *);

/* For a reader that found, at the end of the file, a record that is
 * well-formed but that it cannot use: the log forgets every record from
 * 'offset' on ('offset' and 'n_records' are what ovsdb_log_get_offset() and
 * ovsdb_log_get_n_records() returned before that record was read) and
 * behaves as if 'why' (taken) were a bad record there, so that the first
 * write truncates the file at 'offset'.  Only while reading. */
void ovsdb_log_forget_tail(struct ovsdb_log *, off_t offset,
                           unsigned long long n_records,
                           struct ovsdb_error *why);

/* Atomic replacement.  Creates "<name>.tmp" (removing any stale one) and
 * stores it in '*newp', to be filled with ovsdb_log_write().  Then either
 * ovsdb_log_replace_commit(old, new), which fsyncs the new file, renames it
 * over 'old''s file, fsyncs the directory and makes 'old' continue with the
 * new file (it always takes ownership of 'new', even on error, in which case
 * 'old' is unchanged, except when only the final directory fsync failed:
 * the replacement then took place and the error says so), or
 * ovsdb_log_replace_abort(new), which deletes the temporary file and frees
 * 'new'. */
struct ovsdb_error *ovsdb_log_replace_start(struct ovsdb_log *old,
                                            struct ovsdb_log **newp)
    WARN_UNUSED_RESULT;
struct ovsdb_error *ovsdb_log_replace_commit(struct ovsdb_log *old,
                                             struct ovsdb_log *new)
    WARN_UNUSED_RESULT;
void ovsdb_log_replace_abort(struct ovsdb_log *new);   /* NULL is fine. */

/* The whole sequence above: replace_start, 'write'(new, 'aux') to fill the
 * new log, then replace_commit, or replace_abort if 'write' failed.  The
 * new log has the same kind as 'log'. */
struct ovsdb_error *ovsdb_log_replace(
    struct ovsdb_log *log,
    struct ovsdb_error *(*write)(struct ovsdb_log *new, void *aux),
    void *aux) WARN_UNUSED_RESULT;

/* Makes 'log' (being written) continue at the current end of its file,
 * after another process that shares the file (a compaction child that
 * inherited it from ovsdb_log_replace_start()) appended to it. */
struct ovsdb_error *ovsdb_log_sync_size(struct ovsdb_log *log)
    WARN_UNUSED_RESULT;

/* Returns a new string "<name>.tmp" for 'log'; caller must free with
 * free(). */
char *ovsdb_log_tmp_name(const struct ovsdb_log *);

/* Appends to 'out' one complete record (header and body) for 'text', 'size'
 * bytes of one JSON value (borrowed) without the final newline.  A
 * standalone record; ovsdb_log_put_record_kind() for either kind. */
void ovsdb_log_put_record(struct ds *out, const char *text, size_t size);
void ovsdb_log_put_record_kind(struct ds *out, enum ovsdb_log_kind,
                               const char *text, size_t size);

/* Turns the JSON text that 'out' holds from byte 'start' to its end into
 * one complete record, in place: the same bytes as ovsdb_log_put_record()
 * would have appended for that text.  For writers that serialize straight
 * into their buffer (a big record is not copied). */
void ovsdb_log_finish_record(struct ds *out, size_t start);
void ovsdb_log_finish_record_kind(struct ds *out, enum ovsdb_log_kind,
                                  size_t start);

/* Serializes 'json' (borrowed) as one complete record (header and body) and
 * returns it as a new string of '*sizep' bytes; caller must free with
 * free().  For writers that do not go through a 'struct ovsdb_log'. */
char *ovsdb_log_format_record(const json_t *json, size_t *sizep);

/* Fault injection for tests: the 'nth' I/O call from now (1 = the next one;
 * reads, writes, fsyncs, truncates, renames and opens all count) fails with
 * 'error' (e.g. ENOSPC, EIO); with 'sticky', that call and every later one
 * fail.  ovsdb_log_inject_fault(0, 0, false) turns injection off.  The
 * environment variable OVSDB_LOG_FAULT="N:ERRNO[:sticky]" (ERRNO a number
 * or ENOSPC/EIO) sets the same at the first I/O call of a process. */
void ovsdb_log_inject_fault(unsigned long long nth, int error, bool sticky);

/* Number of I/O calls made through the seam so far (for tests). */
unsigned long long ovsdb_log_io_count(void);

#endif /* ovsdb/format/log.h */
