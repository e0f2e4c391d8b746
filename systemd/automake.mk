# systemd/: the unit file, installed under the configured prefix.
systemdsystemunitdir = $(prefix)/lib/systemd/system
systemdsystemunit_DATA = systemd/ovsdb.service
EXTRA_DIST += systemd/ovsdb.service.in
CLEANFILES += systemd/ovsdb.service
systemd/ovsdb.service: systemd/ovsdb.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && \
	sed -e 's|@sbindir[@]|$(sbindir)|g' -e 's|@bindir[@]|$(bindir)|g' \
	    -e 's|@pkgdatadir[@]|$(pkgdatadir)|g' \
	    $(srcdir)/systemd/ovsdb.service.in >$@.tmp && mv $@.tmp $@
