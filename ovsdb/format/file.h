/* ovsdb/format/file.h: standalone database files (ovsdb(5)).
 *
 * A database file is a log (ovsdb/format/log.h) whose first record is the
 * schema (as ovsdb_schema_to_json() gives it) and whose other records are
 * transaction records (ovsdb/format/record.h, which writes and parses them).
 */
#ifndef OVSDB_FILE_H
#define OVSDB_FILE_H 1

#include <stdbool.h>
#include <jansson.h>
#include "lib/util.h"

struct ds;
struct ovsdb;
struct ovsdb_error;
struct ovsdb_log;
struct ovsdb_schema;
struct ovsdb_txn;

/* Reads only the schema (first record) of the database file 'path'.  On
 * success stores a new schema in '*schemap' (caller must free with
 * ovsdb_schema_destroy()). */
struct ovsdb_error *ovsdb_file_read_schema(const char *path,
                                           struct ovsdb_schema **schemap)
    WARN_UNUSED_RESULT;

/* Opens the database file 'path', reads its schema and replays every
 * transaction into a new database, stored in '*dbp' (caller must free with
 * ovsdb_destroy()).
 *
 * If 'logp' is nonnull, the file is opened read-write and locked, and the
 * log, positioned after the last good record, is stored in '*logp' (caller
 * must free with ovsdb_log_close()); otherwise it is opened read-only.
 *
 * A bad record after the schema ends the replay.  If 'tail_errorp' is
 * nonnull, the open still succeeds with the valid prefix and the error is
 * stored there for the caller to report (the next write truncates the bad
 * tail); otherwise the open fails with that error, as the reference's
 * ovsdb-tool does. */
struct ovsdb_error *ovsdb_file_open(const char *path, struct ovsdb **dbp,
                                    struct ovsdb_log **logp,
                                    struct ovsdb_error **tail_errorp)
    WARN_UNUSED_RESULT;

/* Creates the new file 'path' (which must not exist) holding 'schema'
 * (borrowed), then, if 'db' is nonnull, a snapshot of 'db' with 'comment'
 * (may be NULL).  Fsyncs.  If 'logp' is nonnull, stores the open log there
 * (caller must free with ovsdb_log_close()); otherwise closes it. */
struct ovsdb_error *ovsdb_file_create(const char *path,
                                      const struct ovsdb_schema *schema,
                                      const struct ovsdb *db,
                                      const char *comment,
                                      struct ovsdb_log **logp)
    WARN_UNUSED_RESULT;

/* Returns a record that holds every row of 'db' (a non-diff record), with
 * "_date" and "_comment" when 'comment' is nonnull.  New reference. */
json_t *ovsdb_file_snapshot(const struct ovsdb *db, const char *comment);

/* Same, appended to 'out' as JSON text, without building a json_t (for big
 * databases). */
void ovsdb_file_put_snapshot(struct ds *out, const struct ovsdb *db,
                             const char *comment);

/* Writes a complete compacted copy of 'db' (schema record, then snapshot)
 * to 'log' (an empty log being written, e.g. from
 * ovsdb_log_replace_start()).  Does not fsync. */
struct ovsdb_error *ovsdb_file_write_snapshot(struct ovsdb_log *log,
                                              const struct ovsdb *db,
                                              const char *comment)
    WARN_UNUSED_RESULT;

/* Converts 'src' to 'schema' (borrowed; cloned for the new database):
 * tables and columns missing from 'schema' are dropped, new ones get
 * default values, a column at its default value gets the new type's
 * default, and a column whose type changed is converted through its JSON
 * form (an error names the table, column and row if a value does not
 * fit).  On success stores the new database in '*dstp' (caller must free
 * with ovsdb_destroy()). */
struct ovsdb_error *ovsdb_file_convert(const struct ovsdb *src,
                                       const struct ovsdb_schema *schema,
                                       struct ovsdb **dstp)
    WARN_UNUSED_RESULT;

#endif /* ovsdb/format/file.h */
