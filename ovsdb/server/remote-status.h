/* ovsdb/server/remote-status.h: the status columns of "db:" remotes.
 *
 * For "--remote=db:DB,TABLE,COLUMN" where COLUMN refers to rows of another
 * table (Open_vSwitch's "manager_options" to Manager, OVN's "connections"
 * to Connection), the server keeps each referenced row's "is_connected"
 * and "status" columns, when the table has them with the right types, up
 * to date with its connection to that row's "target", as the reference
 * does every 2.5 s: "ovs-vsctl list Manager" and "ovn-nbctl
 * get-connection" show them.  Only for databases served from a standalone
 * file (as the reference: a cluster's members would race to write them);
 * a status that did not change writes nothing.
 *
 * Single-threaded: called from the main loop. */
#ifndef OVSDB_SERVER_REMOTE_STATUS_H
#define OVSDB_SERVER_REMOTE_STATUS_H 1

#include <stdbool.h>
#include <stddef.h>

struct ovsdb_databases;

/* What the server knows of one remote, as the reference reports it. */
struct ovsdb_remote_status {
    bool is_connected;
    const char *state;                 /* Reconnection state ("ACTIVE"...), or
                                 * NULL (a listener). */
    unsigned int sec_since_connect;    /* UINT_MAX: never connected. */
    unsigned int sec_since_disconnect; /* UINT_MAX: never disconnected. */
    int last_error;                    /* errno value, 0 if none. */
    int n_connections;
    int bound_port; /* Listener's TCP port, or 0. */
};

/* Fills '*status' for the remote 'target' of the server 'aux'; returns
 * false if the server has no such remote. */
typedef bool ovsdb_remote_status_cb(const char *target,
                                    struct ovsdb_remote_status *status,
                                    void *aux);

/* Writes the status of the remotes that the "db:" specs among 'specs'
 * name into the databases of 'dbs', one transaction per database. */
void ovsdb_remote_status_update(struct ovsdb_databases *dbs, char **specs,
                                size_t n_specs,
                                ovsdb_remote_status_cb *get_status, void *aux);

#endif /* ovsdb/server/remote-status.h */
