# ovsdb/format/: the ovsdb(5) files: the record log, standalone databases,
# transaction records, the clustered file and Raft's record types.  Calls
# ovsdb/engine/ and lib/.  See ovsdb/format/README.md.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/format/log.c ovsdb/format/log.h \
	ovsdb/format/record.c ovsdb/format/record.h \
	ovsdb/format/file.c ovsdb/format/file.h \
	ovsdb/format/raft-record.c ovsdb/format/raft-record.h \
	ovsdb/format/cluster-file.c ovsdb/format/cluster-file.h
EXTRA_DIST += ovsdb/format/README.md
