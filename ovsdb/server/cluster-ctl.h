/* ovsdb/server/cluster-ctl.h: the "cluster/..." control commands of
 * ovsdb-server (ovsdb-server(1) "CLUSTERED DATABASES"), with the reference's
 * names, arguments, output and errors: cluster/status, cluster/cid,
 * cluster/sid, cluster/leave, cluster/kick and cluster/change-election-timer
 * for the clustered databases among 'dbs'. */
#ifndef OVSDB_CLUSTER_CTL_H
#define OVSDB_CLUSTER_CTL_H 1

struct ovsdb_databases;

/* Registers the commands on the process's control socket (lib/unixctl);
 * 'dbs' is borrowed and must outlive the process's control server. */
void cluster_ctl_register(struct ovsdb_databases *dbs);

#endif /* ovsdb/server/cluster-ctl.h */
