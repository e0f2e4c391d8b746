# ovsdb/: the database and its programs, one folder per subsystem.  The
# folders are layers (ovsdb/README.md); each contributes its sources to
# libovsdb.a or to its program through its own automake.mk, included from
# the top-level Makefile.am in layer order.
noinst_LIBRARIES += ovsdb/libovsdb.a
ovsdb_libovsdb_a_SOURCES =

# The bundled schemas: ours, and Open vSwitch's, to serve to ovs-vsctl.
pkgdata_DATA = ovsdb/schemas/example.ovsschema \
	tests/data/schemas/vswitch.ovsschema
EXTRA_DIST += ovsdb/schemas/example.ovsschema ovsdb/README.md
