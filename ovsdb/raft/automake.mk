# ovsdb/raft/: one Raft cluster member: messages, connections, the state
# machine, membership, client commands.  Calls ovsdb/format/, ovsdb/engine/
# and lib/.  See ovsdb/raft/README.md.
ovsdb_libovsdb_a_SOURCES += \
	ovsdb/raft/raft-rpc.c ovsdb/raft/raft-rpc.h \
	ovsdb/raft/raft-conn.c ovsdb/raft/raft-conn.h \
	ovsdb/raft/raft.c ovsdb/raft/raft.h \
	ovsdb/raft/raft-private.h \
	ovsdb/raft/raft-state.c \
	ovsdb/raft/raft-servers.c \
	ovsdb/raft/raft-commands.c
EXTRA_DIST += ovsdb/raft/README.md
