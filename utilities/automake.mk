# utilities/: programs that know nothing of OVSDB (ovsdb-appctl, the
# control client).  Call lib/ only.  See utilities/README.md.
bin_PROGRAMS += utilities/ovsdb-appctl
utilities_ovsdb_appctl_SOURCES = utilities/ovsdb-appctl.c
utilities_ovsdb_appctl_LDADD = lib/libsupport.a $(JANSSON_LIBS) $(DL_LIBS) \
	$(PTHREAD_LIBS) $(MALLOC_LIBS)
EXTRA_DIST += utilities/README.md
