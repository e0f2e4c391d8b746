# lib/: generic support; knows nothing of OVSDB.
noinst_LIBRARIES += lib/libsupport.a
lib_libsupport_a_SOURCES = \
	lib/allocator.c lib/allocator.h lib/allocator-tune.c \
	lib/ds.c lib/ds.h \
	lib/hash.c lib/hash.h \
	lib/hmap.c lib/hmap.h \
	lib/prom.c lib/prom.h \
	lib/refbuf.c lib/refbuf.h \
	lib/sha1.c lib/sha1.h \
	lib/util.c lib/util.h \
	lib/uuid.c lib/uuid.h \
	lib/version.c lib/version.h
# (engine) generic JSON helpers.
lib_libsupport_a_SOURCES += lib/json-util.c lib/json-util.h lib/bitmap.h

# (net) event loop, streams, jsonrpc, unixctl, vlog go below.
lib_libsupport_a_SOURCES += \
	lib/daemon.c lib/daemon.h \
	lib/dirs.c lib/dirs.h \
	lib/fatal-signal.c lib/fatal-signal.h \
	lib/http-server.c lib/http-server.h \
	lib/jsonrpc.c lib/jsonrpc.h \
	lib/poll-loop.c lib/poll-loop.h \
	lib/process.c lib/process.h \
	lib/progress.c lib/progress.h \
	lib/reconnect.c lib/reconnect.h \
	lib/replay.c lib/replay.h lib/stream-replay.c \
	lib/socket-util.c lib/socket-util.h \
	lib/stream.c lib/stream.h lib/stream-provider.h \
	lib/stream-fd.c lib/stream-tcp.c lib/stream-unix.c \
	lib/timeval.c lib/timeval.h \
	lib/unixctl.c lib/unixctl.h \
	lib/vlog.c lib/vlog.h
# (security) TLS streams.
lib_libsupport_a_SOURCES += \
	lib/stream-ssl.c lib/stream-ssl.h \
	lib/handshake-pool.c lib/handshake-pool.h
EXTRA_DIST += lib/README.md
