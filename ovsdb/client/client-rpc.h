/* ovsdb/client/client-rpc.h: the blocking JSON-RPC conversation of
 * ovsdb-client.
 *
 * ovsdb-client runs one command per process over one connection, so these
 * helpers block, and every failure is fatal: they print "ovsdb-client:
 * <what went wrong>" on stderr and exit with status 1, as the reference
 * does.  The connection is to an active remote ("unix:PATH", "tcp:IP:PORT",
 * "ssl:IP:PORT"), the first of a comma-separated list of them that
 * connects, or, for a passive one ("punix:PATH", "ptcp:PORT[:IP]"), the
 * first server that connects to it. */
#ifndef OVSDB_CLIENT_RPC_H
#define OVSDB_CLIENT_RPC_H 1

#include <stdbool.h>
#include <jansson.h>

struct jsonrpc;
struct ovsdb_schema;

/* Connects to 'server'; fatal on failure.  Caller must free with
 * jsonrpc_close(). */
struct jsonrpc *client_rpc_open(const char *server);

/* Sends request 'method' with 'params' (stolen) and waits for the reply.
 * Returns its "result" (new reference).  An error reply is fatal, with a
 * message "<what> returned error: <error JSON>" ('what' NULL: "<method>
 * request"). */
json_t *client_rpc_call(struct jsonrpc *, const char *method,
                        json_t *params, const char *what);

/* Returns the names of the server's databases, as "list_dbs" returns them
 * (new reference: an array of strings). */
json_t *client_rpc_list_dbs(struct jsonrpc *);

/* True if 'dbs' (an array of strings, as from client_rpc_list_dbs()) holds
 * 'name'. */
bool client_rpc_dbs_contain(const json_t *dbs, const char *name);

/* Fetches and parses the schema of 'database'.  Caller must free with
 * ovsdb_schema_destroy(). */
struct ovsdb_schema *client_rpc_get_schema(struct jsonrpc *,
                                           const char *database);

/* Parses 's' as JSON; a syntax error is fatal and quotes 's'.  New
 * reference. */
json_t *client_parse_json(const char *s);

/* daemonize_complete() (lib/daemon.h), but stdout stays open: with
 * --detach, "monitor", "transact" and "lock" go on printing after they
 * detach.  With 'keep_stderr', so does stderr, where "monitor" and
 * "transact" report why they ended, as the reference's do. */
void client_daemonize_complete(bool keep_stderr);

/* Sends "set_db_change_aware" over 'rpc' and waits for the reply.  An
 * error from the server is fatal if 'required', ignored otherwise (an old
 * server); a broken connection is fatal. */
void client_rpc_set_db_change_aware(struct jsonrpc *rpc, bool required);

#endif /* ovsdb/client/client-rpc.h */
