/* ovsdb/tool/tool-check-cluster.h: "ovsdb-tool check-cluster DB...", the
 * reference's checks of Raft's safety properties over the clustered files
 * of several servers of one cluster (see ovsdb-tool(1)).  Prints nothing
 * and returns if they hold; exits with an error naming the first one that
 * does not. */
#ifndef OVSDB_TOOL_CHECK_CLUSTER_H
#define OVSDB_TOOL_CHECK_CLUSTER_H 1

/* 'argv[1]' to 'argv[argc - 1]' are the files. */
void tool_check_cluster(int argc, char *argv[]);

#endif /* ovsdb/tool/tool-check-cluster.h */
