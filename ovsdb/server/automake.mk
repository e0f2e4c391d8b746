# ovsdb/server/: ovsdb-server: the loop, remotes, sessions, databases,
# relays, active-backup replication, control commands.  Calls every folder
# below it.  See ovsdb/server/README.md.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/server/databases.c ovsdb/server/databases.h \
	ovsdb/server/metrics.c ovsdb/server/metrics.h \
	ovsdb/server/server.c ovsdb/server/server.h \
	ovsdb/server/session.c ovsdb/server/session.h \
	ovsdb/server/session-private.h \
	ovsdb/server/session-txn.c \
	ovsdb/server/cluster-ctl.c ovsdb/server/cluster-ctl.h \
	ovsdb/server/updates.c ovsdb/server/updates.h \
	ovsdb/server/relay.c ovsdb/server/relay.h \
	ovsdb/server/replication.c ovsdb/server/replication.h \
	ovsdb/server/restart-config.c ovsdb/server/restart-config.h \
	ovsdb/server/remotes.c ovsdb/server/remotes.h \
	ovsdb/server/remote-status.c ovsdb/server/remote-status.h

# The server is a daemon (sbin); its program is built as ovsdb/ovsdb-server
# in the build tree, beside the other two.
sbin_PROGRAMS += ovsdb/ovsdb-server
ovsdb_ovsdb_server_SOURCES = ovsdb/server/ovsdb-server.c
ovsdb_ovsdb_server_LDADD = $(PROGRAM_LIBS)
EXTRA_DIST += ovsdb/server/README.md
