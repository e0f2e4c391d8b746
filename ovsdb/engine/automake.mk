# ovsdb/engine/: the database engine (RFC 7047 sections 3 and 5): schemas,
# types and data, rows and tables, conditions, mutations, transactions and
# their execution, errors, RBAC, locks, the _Server database.  Calls only
# lib/.  See ovsdb/engine/README.md.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/engine/error.c ovsdb/engine/error.h \
	ovsdb/engine/parser.c ovsdb/engine/parser.h \
	ovsdb/engine/type.c ovsdb/engine/type.h \
	ovsdb/engine/datum.c ovsdb/engine/datum.h \
	ovsdb/engine/schema.c ovsdb/engine/schema.h \
	ovsdb/engine/row.c ovsdb/engine/row.h \
	ovsdb/engine/row-read.c ovsdb/engine/row-read.h \
	ovsdb/engine/table.c ovsdb/engine/table.h \
	ovsdb/engine/ovsdb.c ovsdb/engine/ovsdb.h \
	ovsdb/engine/condition.c ovsdb/engine/condition.h \
	ovsdb/engine/mutation.c ovsdb/engine/mutation.h \
	ovsdb/engine/txn.c ovsdb/engine/txn.h \
	ovsdb/engine/execution.c ovsdb/engine/execution.h \
	ovsdb/engine/rbac.c ovsdb/engine/rbac.h \
	ovsdb/engine/lock.c ovsdb/engine/lock.h \
	ovsdb/engine/sysdb.c ovsdb/engine/sysdb.h
EXTRA_DIST += ovsdb/engine/README.md
