/* ovsdb/client/client-backup.h: ovsdb-client's "backup" and "restore"
 * commands.
 *
 * "backup" writes a standalone database file (ovsdb(5)) to stdout: the
 * schema record, then one record holding every row (persistent columns
 * only), as the reference's "ovsdb-client backup".  "restore" reads such a
 * file from stdin, checks that its schema is the server's (unless
 * 'force'), and replaces the whole contents of the database in one
 * transaction: the rows get new UUIDs (RFC 7047 gives clients no way to
 * choose them), references between them are kept through "uuid-name"s. */
#ifndef OVSDB_CLIENT_BACKUP_H
#define OVSDB_CLIENT_BACKUP_H 1

#include <stdbool.h>

struct jsonrpc;

/* Both are fatal on any error, as the reference. */
void client_backup(struct jsonrpc *rpc, const char *database);
void client_restore(struct jsonrpc *rpc, const char *database, bool force);

#endif /* ovsdb/client/client-backup.h */
