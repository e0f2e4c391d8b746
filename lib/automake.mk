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
