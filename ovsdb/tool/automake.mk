# ovsdb/tool/: ovsdb-tool, the offline tool for database files (built as
# ovsdb/ovsdb-tool).  Calls ovsdb/format/, ovsdb/engine/ and lib/.  See
# ovsdb/tool/README.md.
bin_PROGRAMS += ovsdb/ovsdb-tool
ovsdb_ovsdb_tool_SOURCES = ovsdb/tool/ovsdb-tool.c \
	ovsdb/tool/tool-check-cluster.c ovsdb/tool/tool-check-cluster.h
ovsdb_ovsdb_tool_LDADD = $(PROGRAM_LIBS)
EXTRA_DIST += ovsdb/tool/README.md
