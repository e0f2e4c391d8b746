/* ovsdb/server/updates.h: applying the <table-updates2> (RFC 7047 extensions:
 * "update2", "update3", the replies of "monitor_cond" and
 * "monitor_cond_since") that another server sends, to a copy of its database.
 * The relay (ovsdb/server/relay) and the active-backup replication
 * (ovsdb/server/replication) both keep their copies with it.  The updates
 * become one ovsdb(5) transaction record (ovsdb/format/record.h), replayed as
 * a transaction. */
#ifndef OVSDB_UPDATES_H
#define OVSDB_UPDATES_H 1

#include <stdbool.h>
#include <jansson.h>
#include "lib/util.h"

struct ovsdb;
struct ovsdb_error;
struct ovsdb_txn;

/* Turns 'updates' (borrowed <table-updates2>) into a precommitted
 * transaction on 'db' in '*txnp' (the caller commits or aborts it), or
 * NULL if nothing changes.  With 'full' ('updates' is the whole contents,
 * e.g. an initial reply), rows missing from it are deleted, in the tables
 * that are members of the object 'tables' (borrowed; all tables if
 * NULL). */
struct ovsdb_error *ovsdb_updates_to_txn(struct ovsdb *db,
                                         const json_t *updates, bool full,
                                         const json_t *tables,
                                         struct ovsdb_txn **txnp)
    WARN_UNUSED_RESULT;

#endif /* ovsdb/server/updates.h */
