# ovsdb/: the database and its programs.
noinst_LIBRARIES += ovsdb/libovsdb.a
ovsdb_libovsdb_a_SOURCES = \
	ovsdb/version.c ovsdb/version.h
# (engine) schema, data, transactions go below.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/error.c ovsdb/error.h \
	ovsdb/parser.c ovsdb/parser.h \
	ovsdb/type.c ovsdb/type.h \
	ovsdb/datum.c ovsdb/datum.h \
	ovsdb/schema.c ovsdb/schema.h \
	ovsdb/row.c ovsdb/row.h \
	ovsdb/table.c ovsdb/table.h \
	ovsdb/ovsdb.c ovsdb/ovsdb.h \
	ovsdb/condition.c ovsdb/condition.h \
	ovsdb/mutation.c ovsdb/mutation.h \
	ovsdb/txn.c ovsdb/txn.h \
	ovsdb/record.c ovsdb/record.h \
	ovsdb/execution.c ovsdb/execution.h

# (storage) log, file go below.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/log.c ovsdb/log.h \
	ovsdb/file.c ovsdb/file.h \
	ovsdb/storage.c ovsdb/storage.h \
	ovsdb/raft.c ovsdb/raft.h ovsdb/raft-private.h \
	ovsdb/raft-servers.c ovsdb/raft-commands.c ovsdb/raft-state.c
# (cluster) the clustered file format.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/raft-record.c ovsdb/raft-record.h \
	ovsdb/cluster-file.c ovsdb/cluster-file.h

# (server) sessions, monitors go below.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/lock.c ovsdb/lock.h \
	ovsdb/monitor.c ovsdb/monitor.h ovsdb/monitor-private.h \
	ovsdb/monitor-cond.c ovsdb/monitor-since.c \
	ovsdb/monitor-index.c ovsdb/monitor-index.h \
	ovsdb/databases.c ovsdb/databases.h \
	ovsdb/server.c ovsdb/server.h \
	ovsdb/session.c ovsdb/session.h ovsdb/session-private.h \
	ovsdb/session-txn.c \
	ovsdb/sysdb.c ovsdb/sysdb.h \
	ovsdb/cluster-ctl.c ovsdb/cluster-ctl.h

# (relay) relay mode and active-backup replication.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/updates.c ovsdb/updates.h \
	ovsdb/relay.c ovsdb/relay.h \
	ovsdb/replication.c ovsdb/replication.h

# (raft) the cluster members' wire protocol.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/raft-rpc.c ovsdb/raft-rpc.h
ovsdb_libovsdb_a_SOURCES += ovsdb/raft-conn.c ovsdb/raft-conn.h

# The server is a daemon (sbin), the others are clients (bin).
sbin_PROGRAMS += ovsdb/ovsdb-server
bin_PROGRAMS += ovsdb/ovsdb-tool ovsdb/ovsdb-client
ovsdb_ovsdb_server_SOURCES = ovsdb/ovsdb-server.c
ovsdb_ovsdb_server_LDADD = $(PROGRAM_LIBS)
ovsdb_ovsdb_tool_SOURCES = ovsdb/ovsdb-tool.c ovsdb/tool-check-cluster.c \
	ovsdb/tool-check-cluster.h
ovsdb_ovsdb_tool_LDADD = $(PROGRAM_LIBS)
ovsdb_ovsdb_client_SOURCES = ovsdb/ovsdb-client.c
ovsdb_ovsdb_client_LDADD = $(PROGRAM_LIBS)

# The bundled schemas: ours, and Open vSwitch's, to serve to ovs-vsctl.
pkgdata_DATA = ovsdb/schemas/example.ovsschema \
	tests/data/schemas/vswitch.ovsschema
EXTRA_DIST += ovsdb/schemas/example.ovsschema

# (security) RBAC and remotes from the database.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/rbac.c ovsdb/rbac.h \
	ovsdb/remotes.c ovsdb/remotes.h \
	ovsdb/row-read.c ovsdb/row-read.h

# (client) ovsdb-client modules go below.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/table-format.c ovsdb/table-format.h
ovsdb_ovsdb_client_SOURCES += \
	ovsdb/client-backup.c ovsdb/client-backup.h \
	ovsdb/client-monitor.c ovsdb/client-monitor.h \
	ovsdb/client-rpc.c ovsdb/client-rpc.h
