/* ovsdb/sysdb.h: the "_Server" database that ovsdb-server serves about
 * itself: its "Database" table has one row per served database (name,
 * model, connected, leader, schema, cid, sid, index), as the reference's.
 * Clients (the IDLs, ovs-vsctl) monitor it to learn about schema changes
 * and cluster state; here every database is "standalone", connected and
 * leader. */
#ifndef OVSDB_SYSDB_H
#define OVSDB_SYSDB_H 1

struct ovsdb;
struct ovsdb_schema;

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

/* Deletes the row for database 'name', if any. */
void ovsdb_sysdb_remove(struct ovsdb *sysdb, const char *name);

#endif /* ovsdb/sysdb.h */
