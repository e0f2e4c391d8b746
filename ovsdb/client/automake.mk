# ovsdb/client/: ovsdb-client, the command-line client (built as
# ovsdb/ovsdb-client).  Calls ovsdb/format/, ovsdb/engine/ and lib/.  See
# ovsdb/client/README.md.
bin_PROGRAMS += ovsdb/ovsdb-client
ovsdb_ovsdb_client_SOURCES = ovsdb/client/ovsdb-client.c \
	ovsdb/client/client-backup.c ovsdb/client/client-backup.h \
	ovsdb/client/client-monitor.c ovsdb/client/client-monitor.h \
	ovsdb/client/client-rpc.c ovsdb/client/client-rpc.h \
	ovsdb/client/table-format.c ovsdb/client/table-format.h
ovsdb_ovsdb_client_LDADD = $(PROGRAM_LIBS)
EXTRA_DIST += ovsdb/client/README.md
