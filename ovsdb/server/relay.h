/* ovsdb/server/relay.h: a database served as a relay of another server
 * ("relay:DB:REMOTE[,REMOTE...]" on the ovsdb-server command line).
 *
 * The relay keeps one JSON-RPC session to an upstream server (trying the
 * remotes round robin while none answers), asks for the schema of DB,
 * builds an in-memory copy served among the local databases (no file), and
 * monitors every table upstream with monitor_cond_since.  Each update3 is
 * applied as one local committed transaction, so the relay's own monitors,
 * history and "_Server" work for its clients.  After a reconnect it asks
 * for the changes since the last transaction id it saw; if the upstream no
 * longer has it, the reply is the full contents and the copy is brought to
 * it in one transaction (rows missing upstream deleted, the others
 * replaced).
 *
 * Transactions that only read ("select", "wait", "comment", "assert") run
 * on the copy; any other is forwarded upstream unchanged
 * (ovsdb_relay_transact()).  The upstream servers (ours and the
 * reference) send a transaction's monitor updates on a connection before
 * its reply, and the relay applies messages in order, so by the time the
 * reply reaches a client the relay's copy already contains the commit: a
 * client that reads its own write through the relay sees it.  If the
 * connection drops after a request was forwarded and before its reply, the
 * outcome is unknown and the client gets the error "canceled"; requests
 * not yet forwarded wait for the next connection.
 *
 *     relay = ovsdb_relay_create(dbs, "relay:DB:tcp:127.0.0.1:6641");
 *     loop: ovsdb_relay_run(relay); ovsdb_relay_wait(relay); poll_block();
 *     ovsdb_server_destroy(server); ovsdb_relay_destroy(relay);
 * (dbs = ovsdb_server_get_databases(server))
 */
#ifndef OVSDB_RELAY_H
#define OVSDB_RELAY_H 1

#include <stdbool.h>
#include <jansson.h>
#include "lib/util.h"

struct ovsdb;
struct ovsdb_error;
struct ovsdb_databases;
struct ovsdb_txn;

struct ovsdb_relay;
struct ovsdb_relay_txn;         /* One forwarded transaction. */

/* True if 'arg' is a relay specification ("relay:..."). */
bool ovsdb_relay_is_spec(const char *arg);

/* Parses 'spec' ("relay:DB:REMOTE[,REMOTE...]") and starts relaying DB
 * into 'dbs' (borrowed: must outlive the relay).  The database is
 * served once its schema has arrived.  Caller must free with
 * ovsdb_relay_destroy(), after ovsdb_server_destroy() (whose sessions
 * abandon their forwarded transactions). */
struct ovsdb_error *ovsdb_relay_create(struct ovsdb_databases *dbs,
                                       const char *spec,
                                       struct ovsdb_relay **relayp)
    WARN_UNUSED_RESULT;
void ovsdb_relay_destroy(struct ovsdb_relay *);     /* NULL is fine. */

void ovsdb_relay_run(struct ovsdb_relay *);
void ovsdb_relay_wait(struct ovsdb_relay *);

/* The name of the database relayed; borrowed (valid until destroyed). */
const char *ovsdb_relay_get_db_name(const struct ovsdb_relay *);

/* True while the relay's copy is in sync with a connected upstream. */
bool ovsdb_relay_is_connected(const struct ovsdb_relay *);

/* True if the "transact" 'params' (borrowed) has an operation that writes,
 * so it must be forwarded upstream. */
bool ovsdb_relay_must_forward(const json_t *params);

/* Forwards the "transact" 'params' (borrowed) upstream.  Returns the
 * pending transaction; its owner polls ovsdb_relay_txn_get_reply() (the
 * relay wakes the poll loop when a reply arrives) and must release it
 * with ovsdb_relay_txn_abandon(). */
struct ovsdb_relay_txn *ovsdb_relay_transact(struct ovsdb_relay *,
                                             const json_t *params);
/* Returns NULL while the transaction is pending.  Once it is done, returns
 * the upstream's result (borrowed, valid until abandon) and sets
 * '*is_error' if it is a JSON-RPC error rather than a result. */
const json_t *ovsdb_relay_txn_get_reply(const struct ovsdb_relay_txn *,
                                        bool *is_error);
/* Releases 'txn' (NULL is fine): its reply, if any comes later, is
 * dropped. */
void ovsdb_relay_txn_abandon(struct ovsdb_relay_txn *txn);

#endif /* ovsdb/server/relay.h */
