/* ovsdb/engine/ovsdb.h: a database: a schema plus one table per table schema.
 *
 *     struct ovsdb *db = ovsdb_create(schema);    (takes the schema)
 *     const struct ovsdb_table *t = ovsdb_get_table(db, "Bridge");
 *     ... transactions (ovsdb/engine/txn.h, ovsdb/engine/execution.h) ...
 *     ovsdb_destroy(db);
 *
 * Commit observers are told about every committed transaction, whatever
 * its source (client transaction, replay from a file), after the change is
 * visible and before the transaction's old rows are freed. */
#ifndef OVSDB_OVSDB_H
#define OVSDB_OVSDB_H 1

#include <stddef.h>
#include "ovsdb/engine/schema.h"

struct ovsdb_table;
struct ovsdb_txn;

struct ovsdb;

/* Creates an empty database for 'schema'; takes ownership of 'schema'.
 * Caller must free with ovsdb_destroy(). */
struct ovsdb *ovsdb_create(struct ovsdb_schema *schema);
void ovsdb_destroy(struct ovsdb *db);

/* Borrowed, valid as long as 'db'. */
const struct ovsdb_schema *ovsdb_get_schema(const struct ovsdb *db);
struct ovsdb_table *ovsdb_get_table(const struct ovsdb *db,
                                    const char *name);
/* Table by index in the schema's (sorted) 'tables' array. */
struct ovsdb_table *ovsdb_get_table_by_index(const struct ovsdb *db,
                                             size_t i);
size_t ovsdb_n_tables(const struct ovsdb *db);

/* Total number of rows in all tables. */
size_t ovsdb_n_rows(const struct ovsdb *db);
/* Number of string/datum atoms in all rows ("atoms" in memory/show). */
size_t ovsdb_n_atoms(const struct ovsdb *db);

/* Called with every committed transaction.  'txn' is borrowed: it is valid
 * only during the call; use ovsdb_txn_for_each_change() on it. */
typedef void ovsdb_commit_cb(struct ovsdb *db, const struct ovsdb_txn *txn,
                             void *aux);
void ovsdb_add_commit_observer(struct ovsdb *db, ovsdb_commit_cb *cb,
                               void *aux);
void ovsdb_remove_commit_observer(struct ovsdb *db, ovsdb_commit_cb *cb,
                                  void *aux);

/* Internal to ovsdb/engine/txn.c: runs the observers. */
void ovsdb_notify_commit_observers(struct ovsdb *db,
                                   const struct ovsdb_txn *txn);

/* Internal: ovsdb_table_put_row() marks its table's strong reference counts
 * stale; ovsdb_txn_create() recomputes them (all rows, once) before any
 * transaction relies on them. */
void ovsdb_refresh_refs(struct ovsdb *db);

/* Internal to ovsdb/engine/txn.c: the transaction in progress on 'db', or
 * NULL. At most one transaction is open on a database at a time. */
struct ovsdb_txn *ovsdb_get_txn(const struct ovsdb *db);
void ovsdb_set_txn(struct ovsdb *db, struct ovsdb_txn *txn);

#endif /* ovsdb/engine/ovsdb.h */
