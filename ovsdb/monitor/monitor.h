/* ovsdb/monitor/monitor.h: monitors (RFC 7047 section 4.1.5 and the Open
 * vSwitch extensions monitor_cond, monitor_cond_change, monitor_cond_since).
 *
 * A monitor is a *shape*: the tables, columns, "select" flags, conditions
 * and protocol version that one or more clients asked for.  Clients that
 * ask for the same shape share one 'struct ovsdb_monitor', so the update
 * for a committed transaction is computed and serialized once per shape,
 * not once per client.
 *
 * A hub (one per database) owns the shapes of that database, watches its
 * commits (a commit observer) and keeps a bounded history of recent
 * transactions with ids, so that monitor_cond_since can catch a
 * reconnecting client up without a full resend.  The history starts the
 * first time a client uses monitor_cond_since on the database.
 *
 *     hub = ovsdb_monitor_hub_create(db);
 *     error = ovsdb_monitor_hub_get(hub, requests_json, OVSDB_MONITOR_V2,
 *                                   &m);
 *     initial = ovsdb_monitor_get_initial_text(m);  (the reply's result)
 *     ovsdb_monitor_subscribe(m, cb, aux);        (updates on each commit)
 *     ...
 *     ovsdb_monitor_unsubscribe(m, cb, aux);
 *     ovsdb_monitor_unref(m);
 *
 * Every table-updates value here is the JSON object of RFC 7047
 * <table-updates> (v1) or Open vSwitch <table-updates2> (v2 and v3). */
#ifndef OVSDB_MONITOR_H
#define OVSDB_MONITOR_H 1

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "lib/util.h"
#include "lib/uuid.h"

struct ds;
struct ovsdb;
struct ovsdb_error;
struct ovsdb_txn;
struct refbuf;

enum ovsdb_monitor_version {
    OVSDB_MONITOR_V1,           /* "monitor": "update", "old"/"new". */
    OVSDB_MONITOR_V2,           /* "monitor_cond": "update2", row diffs. */
    OVSDB_MONITOR_V3            /* "monitor_cond_since": "update3". */
};

struct ovsdb_monitor_hub;
struct ovsdb_monitor;

/* The update of one shape for one committed transaction, serialized once.
 * Borrowed: valid only during the subscriber callback. */
struct ovsdb_monitor_update {
    const char *body;           /* Serialized <table-updates>, compact. */
    size_t body_size;           /* Bytes in 'body'. */
    struct refbuf *shared;      /* For a big body, the same bytes as a
                                 * buffer a subscriber may keep a reference
                                 * to (queue it without a copy), else
                                 * NULL. */
    const struct uuid *txn_id;  /* Id of the transaction (for update3). */
    const struct ovsdb_txn *txn;    /* The committed transaction, for a
                                     * subscriber that keeps it pending
                                     * (ovsdb_monitor_pending_add()). */
};

typedef void ovsdb_monitor_update_cb(void *aux,
                                     const struct ovsdb_monitor_update *);

/* Creates the hub of 'db' (borrowed: must outlive the hub) and registers
 * its commit observer.  Caller must free with ovsdb_monitor_hub_destroy()
 * after every monitor is unreferenced. */
struct ovsdb_monitor_hub *ovsdb_monitor_hub_create(struct ovsdb *db);
void ovsdb_monitor_hub_destroy(struct ovsdb_monitor_hub *); /* NULL ok. */

/* Parses 'requests' (borrowed), the <monitor-requests> object of a monitor
 * request, for 'version'.  On success stores the shape in '*mp' with one
 * new reference (caller must release it with ovsdb_monitor_unref()).
 * Errors are the reference's "syntax error"s (unknown table or column,
 * bad members) and condition errors. */
struct ovsdb_error *ovsdb_monitor_hub_get(struct ovsdb_monitor_hub *,
                                          const json_t *requests,
                                          enum ovsdb_monitor_version,
                                          struct ovsdb_monitor **mp)
    WARN_UNUSED_RESULT;

/* Returns the id of the last transaction committed to the hub's database
 * (random at start, so a restarted server never claims to know an id it
 * gave out before).  Borrowed. */
const struct uuid *ovsdb_monitor_hub_get_last_txn_id(
    const struct ovsdb_monitor_hub *);
/* Sets the id of the transaction the database stands at, for a database
 * whose ids come from its storage (clustered: the last applied Raft entry
 * id), so that a client that saw it elsewhere resumes.  Zero is ignored. */
void ovsdb_monitor_hub_set_last_txn_id(struct ovsdb_monitor_hub *,
                                       const struct uuid *);

/* Starts keeping the history of transactions now, rather than at the
 * first monitor_cond_since: for a clustered database, whose transaction
 * ids are its log's entry ids, so that the history replayed at startup
 * serves the clients that reconnect after a restart. */
void ovsdb_monitor_hub_start_history(struct ovsdb_monitor_hub *);

/* Number of shapes and of transactions in the history (memory/show). */
size_t ovsdb_monitor_hub_n_monitors(const struct ovsdb_monitor_hub *);
size_t ovsdb_monitor_hub_n_history(const struct ovsdb_monitor_hub *);
/* The atoms of the database's committed rows (ovsdb_row_n_atoms()),
 * kept by every commit: reading it visits no row. */
size_t ovsdb_monitor_hub_n_db_atoms(const struct ovsdb_monitor_hub *);
/* The atoms of the row versions the history holds (memory/show's
 * "txn-history-atoms"). */
size_t ovsdb_monitor_hub_n_history_atoms(const struct ovsdb_monitor_hub *);

/* For monitor_cond_change: parses 'changes' (borrowed), the
 * {table: [<monitor-cond-update-request>...]} object, and returns in
 * '*newp' (one new reference) the shape equal to 'm' with those tables'
 * conditions replaced.  Changing "columns" is refused as the reference
 * does. */
struct ovsdb_error *ovsdb_monitor_change_cond(struct ovsdb_monitor *m,
                                              const json_t *changes,
                                              struct ovsdb_monitor **newp)
    WARN_UNUSED_RESULT;

/* Adds a reference to 'm' / releases one (freeing 'm' with the last one;
 * NULL is fine). */
struct ovsdb_monitor *ovsdb_monitor_ref(struct ovsdb_monitor *m);
void ovsdb_monitor_unref(struct ovsdb_monitor *m);

enum ovsdb_monitor_version ovsdb_monitor_get_version(
    const struct ovsdb_monitor *);
struct ovsdb_monitor_hub *ovsdb_monitor_get_hub(const struct ovsdb_monitor *);

/* Calls 'cb(aux, update)' for every later commit that changes something
 * 'm' shows, before the commit's transaction gets its reply.  The pair
 * ('cb', 'aux') identifies the subscription for unsubscribe. */
void ovsdb_monitor_subscribe(struct ovsdb_monitor *m,
                             ovsdb_monitor_update_cb *cb, void *aux);
void ovsdb_monitor_unsubscribe(struct ovsdb_monitor *m,
                               ovsdb_monitor_update_cb *cb, void *aux);

/* Returns the initial contents: every row that matches, in "new" (v1) or
 * "initial" (v2, v3) form, for tables whose "select" has "initial" (an
 * empty object if nothing), as the text jsonx_put() would write for that
 * object (tables in schema order).  Built once per shape and shared: until
 * the database changes, every caller gets the same buffer while any still
 * holds it.  New reference (caller must refbuf_unref()). */
struct refbuf *ovsdb_monitor_get_initial_text(struct ovsdb_monitor *m);

/* Appends to 'out' the <table-updates> JSON text that takes a client from
 * 'old''s view to 'new''s view after a condition change (rows leaving are
 * deleted, rows entering are inserted; members in the order jsonx_put()
 * writes them) and returns true; appends nothing and returns false if
 * nothing changes. */
bool ovsdb_monitor_put_cond_change(struct ds *out,
                                   const struct ovsdb_monitor *old,
                                   const struct ovsdb_monitor *new);

/* For monitor_cond_since: if transaction 'last_id' is the last one or is
 * in the history, appends the <table-updates2> text of the changes
 * committed after it to 'out' ("{}" if none) and returns true; otherwise
 * returns false, appending nothing: the client needs the initial contents,
 * ovsdb_monitor_get_initial_text(), shared with every client of the shape
 * rather than built for this one.  Starts the history of the hub if it was
 * off. */
bool ovsdb_monitor_get_since(struct ovsdb_monitor *m,
                             const struct uuid *last_id, struct ds *out);

/* Pending changes, for a subscriber that cannot take updates as fast as
 * they come (its client is not reading): instead of queuing an update per
 * transaction, it adds each update's transaction to a pending set, which
 * keeps one change per row, from the row as the client last saw it to its
 * latest state (or its deletion).  Memory is bounded by the rows changed,
 * not by how often they change.  Once the client can take more, the set
 * becomes one merged update.
 *
 *     p = ovsdb_monitor_pending_create();
 *     ovsdb_monitor_pending_add(p, m, update);     (in the callback)
 *     ...
 *     if (ovsdb_monitor_pending_take(p, m, &text)) ...  (false: none)
 *     ovsdb_monitor_pending_destroy(p);
 *
 * The same shape 'm' must be passed to every call for one set. */
struct ovsdb_monitor_pending;

struct ovsdb_monitor_pending *ovsdb_monitor_pending_create(void);
void ovsdb_monitor_pending_destroy(struct ovsdb_monitor_pending *); /* NULL
                                                                      * ok. */

/* Adds the changes of 'u''s transaction (borrowed) that 'm' shows, or that
 * touch a row already pending, to 'p' (which holds the committed versions
 * of the rows), and remembers 'u''s transaction id. */
void ovsdb_monitor_pending_add(struct ovsdb_monitor_pending *p,
                               const struct ovsdb_monitor *m,
                               const struct ovsdb_monitor_update *u);

/* Returns the number of rows with a pending change. */
size_t ovsdb_monitor_pending_n_rows(const struct ovsdb_monitor_pending *);

/* Returns the id of the last transaction added (for update3).  Borrowed:
 * valid until 'p' is destroyed. */
const struct uuid *ovsdb_monitor_pending_get_txn_id(
    const struct ovsdb_monitor_pending *p);

/* Puts into 'out' (which must be empty) the <table-updates> (v1) or
 * <table-updates2> (v2, v3) text that takes a client from what it last saw to the rows' latest
 * states, as 'm' shows them, empties 'p' and returns true; or, if the
 * changes cancel out (a row inserted then deleted, a value changed back),
 * leaves 'out' empty, empties 'p' and returns false. */
bool ovsdb_monitor_pending_take(struct ovsdb_monitor_pending *p,
                                const struct ovsdb_monitor *m, struct ds *out);

#endif /* ovsdb/monitor/monitor.h */
