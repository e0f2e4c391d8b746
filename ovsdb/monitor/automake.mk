# ovsdb/monitor/: monitors of every protocol version, their conditions,
# the transaction history of monitor_cond_since, shared update text.  Calls
# ovsdb/engine/ and lib/.  See ovsdb/monitor/README.md.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/monitor/monitor.c ovsdb/monitor/monitor.h \
	ovsdb/monitor/monitor-private.h \
	ovsdb/monitor/monitor-cond.c \
	ovsdb/monitor/monitor-since.c \
	ovsdb/monitor/monitor-index.c ovsdb/monitor/monitor-index.h
EXTRA_DIST += ovsdb/monitor/README.md
