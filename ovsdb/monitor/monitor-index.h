/* ovsdb/monitor/monitor-index.h: value indexes for monitor conditions (used
 * only by ovsdb/monitor/monitor*.c).
 *
 * A monitor condition is a disjunction of clauses, and the clauses real
 * clients send are mostly [column, "==", value] (ovn-controller: a
 * chassis, a datapath, a port name).  An index of one column of one table
 * maps each value to
 *   - the rows that have it (by uuid), so that the rows a condition shows,
 *     or that enter or leave it when it changes, are found without
 *     scanning the table; and
 *   - the history's row changes whose old or new row has it, oldest
 *     first, so that a monitor_cond_since catch-up reads only the changes
 *     its condition can see; and
 *   - the watchers (shapes) whose conditions test it, so that a commit
 *     composes updates only for the shapes its rows can show.
 * An index "by elements" of a set column (for [column, "includes", set of
 * one element]) has each element, as a set of one, as a value instead:
 * a row is under each of its elements, an empty set under none.
 *
 * A hub owns one set of indexes; monitors take a reference on the indexes
 * their conditions use.  The set's owner keeps it up to date: every
 * committed row change goes to monitor_index_set_change(), every change
 * recorded in the history to monitor_index_set_add_history(), and every
 * change dropped from the history to monitor_index_set_trim_history(). */
#ifndef OVSDB_MONITOR_INDEX_H
#define OVSDB_MONITOR_INDEX_H 1

#include <stdbool.h>
#include <stddef.h>
#include "lib/uuid.h"

struct ovsdb_column;
struct ovsdb_datum;
struct ovsdb_row;
struct ovsdb_table;

struct monitor_index;
struct monitor_index_set;

struct monitor_index_set *monitor_index_set_create(void);
/* Frees the set and every index still in it.  NULL is fine. */
void monitor_index_set_destroy(struct monitor_index_set *);

/* Returns the index of 'column' of 'table' (by elements if 'elements')
 * with one more reference,
 * creating it from the table's rows if needed ('*created' tells; the
 * caller then adds the history's changes with monitor_index_add_history()).
 * 'table' and 'column' are borrowed: they must outlive the index. */
struct monitor_index *monitor_index_ref(struct monitor_index_set *,
                                        const struct ovsdb_table *table,
                                        const struct ovsdb_column *column,
                                        bool elements, bool *created);
/* Releases a reference.  NULL ok.  An index without references is kept
 * up to date for a while (a client that comes back finds it), then freed
 * by monitor_index_set_expire(), which the owner calls now and then. */
void monitor_index_unref(struct monitor_index_set *, struct monitor_index *);
void monitor_index_set_expire(struct monitor_index_set *);

/* Keeps the rows part up to date: a committed change 'old' -> 'new' in
 * 'table' ('old' NULL for an insert, 'new' NULL for a delete). */
void monitor_index_set_change(struct monitor_index_set *,
                              const struct ovsdb_table *table,
                              const struct ovsdb_row *old,
                              const struct ovsdb_row *new);

/* Records that history change 'change' (opaque to the index; borrowed
 * until it is trimmed) of transaction 'serial' changed 'old' to 'new' in
 * 'table'.  Serials must not decrease. */
void monitor_index_set_add_history(struct monitor_index_set *,
                                   const struct ovsdb_table *table,
                                   const struct ovsdb_row *old,
                                   const struct ovsdb_row *new,
                                   unsigned long long serial,
                                   const void *change);
void monitor_index_add_history(struct monitor_index *,
                               const struct ovsdb_row *old,
                               const struct ovsdb_row *new,
                               unsigned long long serial,
                               const void *change);
/* Forgets the history entries of the change 'old' -> 'new' in 'table' and
 * of every older transaction, up to and including 'serial'. */
void monitor_index_set_trim_history(struct monitor_index_set *,
                                    const struct ovsdb_table *table,
                                    const struct ovsdb_row *old,
                                    const struct ovsdb_row *new,
                                    unsigned long long serial);

/* Calls 'cb(uuid, aux)' for every row of the index's table whose column
 * equals 'value' (borrowed), or has it as an element for an index by
 * elements. */
void monitor_index_for_each_row(const struct monitor_index *,
                                const struct ovsdb_datum *value,
                                void (*cb)(const struct uuid *, void *aux),
                                void *aux);
/* Calls 'cb(serial, change, aux)', oldest first, for every history change
 * of a transaction with serial >= 'min_serial' whose old or new row has
 * 'value' in the index's column. */
void monitor_index_for_each_change(
    const struct monitor_index *, const struct ovsdb_datum *value,
    unsigned long long min_serial,
    void (*cb)(unsigned long long serial, const void *change, void *aux),
    void *aux);

/* Registers 'watcher' (opaque, borrowed until unwatched) as interested in
 * the rows whose column has 'value' (borrowed); once per call, so a
 * watcher registered twice is reported twice. */
void monitor_index_watch(struct monitor_index *,
                         const struct ovsdb_datum *value, void *watcher);
void monitor_index_unwatch(struct monitor_index *,
                           const struct ovsdb_datum *value, void *watcher);
/* Calls 'cb(watcher, aux)' for each watcher of the value that 'old' and of
 * the value that 'new' (either may be NULL) has in each index of
 * 'table'. */
void monitor_index_set_for_each_watcher(struct monitor_index_set *,
                                        const struct ovsdb_table *table,
                                        const struct ovsdb_row *old,
                                        const struct ovsdb_row *new,
                                        void (*cb)(void *watcher, void *aux),
                                        void *aux);

#endif /* ovsdb/monitor/monitor-index.h */
