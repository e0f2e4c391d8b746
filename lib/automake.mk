# lib/: generic support; knows nothing of OVSDB.
noinst_LIBRARIES += lib/libsupport.a
lib_libsupport_a_SOURCES = \
	lib/allocator.c lib/allocator.h \
	lib/ds.c lib/ds.h \
	lib/hash.c lib/hash.h \
	lib/hmap.c lib/hmap.h \
	lib/util.c lib/util.h \
	lib/uuid.c lib/uuid.h
# (net) event loop, streams, jsonrpc, unixctl, vlog go below.
lib_libsupport_a_SOURCES += \
	lib/dirs.c lib/dirs.h \
	lib/timeval.c lib/timeval.h
# Headers whose implementation is landing next.
EXTRA_DIST += \
	lib/daemon.h lib/fatal-signal.h lib/jsonrpc.h lib/poll-loop.h \
	lib/reconnect.h lib/socket-util.h lib/stream.h lib/stream-provider.h \
	lib/unixctl.h lib/vlog.h
