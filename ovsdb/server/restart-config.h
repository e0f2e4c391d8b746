/* ovsdb/server/restart-config.h: what a restarted server serves.
 *
 * Under --monitor, the monitoring process restarts a crashed server with
 * its original command line, which would forget the databases and remotes
 * that control commands (ovsdb-server/add-db, remove-db, add-remote,
 * remove-remote) changed since.  As the reference does, the server keeps
 * them in an unlinked temporary file opened before daemonizing: the
 * monitoring process holds the descriptor open, every server it starts
 * inherits it, reads the file at start and rewrites it on each change.
 *
 * Single-threaded: the main loop owns the object. */
#ifndef OVSDB_SERVER_RESTART_CONFIG_H
#define OVSDB_SERVER_RESTART_CONFIG_H 1

#include <stdbool.h>
#include <stddef.h>

struct restart_config;

/* Creates the file (before daemonize_start()) holding 'dbs' (database files
 * and relay specs, in order) and 'remotes', all borrowed.  If the file
 * cannot be made, logs why and keeps the configuration in memory only. */
struct restart_config *restart_config_create(char **dbs, size_t n_dbs,
                                             char **remotes, size_t n_remotes);
void restart_config_destroy(struct restart_config *); /* NULL is fine. */

/* Replaces the configuration by what the file holds: in a server the
 * monitoring process restarted, what the previous one last saved. */
void restart_config_load(struct restart_config *);

/* The databases and remotes: borrowed, valid until the next change. */
size_t restart_config_n_dbs(const struct restart_config *);
const char *restart_config_db(const struct restart_config *, size_t i);
size_t restart_config_n_remotes(const struct restart_config *);
const char *restart_config_remote(const struct restart_config *, size_t i);

/* Records that the i-th database is served under 'name' (copied), so that
 * removing 'name' later forgets it. */
void restart_config_set_db_name(struct restart_config *, size_t i,
                                const char *name);

/* Each change is saved at once. */
void restart_config_add_db(struct restart_config *, const char *spec,
                           const char *name);
void restart_config_remove_db(struct restart_config *, const char *name);
void restart_config_add_remote(struct restart_config *, const char *remote);
void restart_config_remove_remote(struct restart_config *, const char *remote);

#endif /* ovsdb/server/restart-config.h */
