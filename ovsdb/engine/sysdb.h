/* ovsdb/engine/sysdb.h: the "_Server" database that ovsdb-server serves about
 * itself: its "Database" table has one row per served database (name,
 * model, connected, leader, schema, cid, sid, index), as the reference's.
 * Clients (the IDLs, ovs-vsctl) monitor it to learn about schema changes
 * and cluster state; a database read from a file is "standalone",
 * connected and leader, a relay as ovsdb_sysdb_set_status() sets it. */
#ifndef OVSDB_SYSDB_H
#define OVSDB_SYSDB_H 1

#include <stdbool.h>
#include <stdint.h>

struct ovsdb;
struct ovsdb_schema;
struct uuid;

/* Returns a new, empty "_Server" database; caller must free with
 * ovsdb_destroy(). */
struct ovsdb *ovsdb_sysdb_create(void);

/* Adds the row for database 'name' with 'schema' (borrowed) to 'sysdb', as
 * a committed transaction (so monitors of "_Server" see it). */
void ovsdb_sysdb_add(struct ovsdb *sysdb, const char *name,
                     const struct ovsdb_schema *schema);

/* Sets the schema of database 'name' in its row (after a conversion). */
void ovsdb_sysdb_set_schema(struct ovsdb *sysdb, const char *name,
                            const struct ovsdb_schema *schema);

/* Sets the "model", "connected" and "leader" columns of database 'name''s
 * row (a relay is "relay", not a leader, and connected only while in sync
 * with its upstream). */
void ovsdb_sysdb_set_status(struct ovsdb *sysdb, const char *name,
                            const char *model, bool connected, bool leader);

/* Sets the cluster columns of database 'name''s row: its cluster and
 * server ids and the index of the last Raft entry it applied. */
void ovsdb_sysdb_set_cluster(struct ovsdb *sysdb, const char *name,
                             const struct uuid *cid, const struct uuid *sid,
                             uint64_t index);

/* Deletes the row for database 'name', if any. */
void ovsdb_sysdb_remove(struct ovsdb *sysdb, const char *name);

#endif /* ovsdb/engine/sysdb.h */
