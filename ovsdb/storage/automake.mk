# ovsdb/storage/: the one commit seam over a standalone log and a Raft
# member.  Calls ovsdb/raft/, ovsdb/format/, ovsdb/engine/ and lib/.  See
# ovsdb/storage/README.md.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/storage/storage.c ovsdb/storage/storage.h
EXTRA_DIST += ovsdb/storage/README.md
