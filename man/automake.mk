# man/: the manual pages, installed by "make install" and checked by
# tests/e2e/man.sh.
dist_man1_MANS = man/ovsdb-server.1 man/ovsdb-tool.1 man/ovsdb-client.1 \
	man/ovsdb-appctl.1
