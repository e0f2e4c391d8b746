#!/bin/sh
# tests/e2e/install.sh: "make install DESTDIR=..." puts ovsdb-server in
# sbin, the clients in bin, the man pages, the bundled schemas and the
# systemd unit (ovsdb.service, never Open vSwitch's names) under the
# prefix; the installed pages render, the unit passes systemd-analyze
# verify, the installed programs run; "make uninstall" removes every file.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
dest=$PWD/dest
make -s -C "$OVSDB_BUILDDIR" install DESTDIR="$dest" >install.log 2>&1 \
    || fail "make install: $(tail -5 install.log)"
prefix=$(sed -n 's/^prefix = //p' "$OVSDB_BUILDDIR/Makefile")
root=$dest$prefix
for f in sbin/ovsdb-server bin/ovsdb-tool bin/ovsdb-client \
         bin/ovsdb-appctl share/man/man1/ovsdb-appctl.1 \
         share/man/man1/ovsdb-server.1 share/man/man1/ovsdb-tool.1 \
         share/man/man1/ovsdb-client.1 share/ovsdb/example.ovsschema \
         share/ovsdb/vswitch.ovsschema lib/systemd/system/ovsdb.service; do
    [ -f "$root/$f" ] || fail "make install did not install $prefix/$f"
done
[ -x "$root/sbin/ovsdb-server" ] || fail "ovsdb-server is not executable"
find "$dest" -name 'openvswitch*' -o -name 'ovsdb-server.service' \
    | grep . && fail "installed under Open vSwitch's names"
if command -v man >/dev/null; then
    for p in ovsdb-server ovsdb-tool ovsdb-client ovsdb-appctl; do
        MANWIDTH=80 man --warnings -l "$root/share/man/man1/$p.1" \
            >/dev/null 2>warn || fail "installed $p.1 does not render"
        [ ! -s warn ] || fail "installed $p.1: $(cat warn)"
    done
fi
unit=$root/lib/systemd/system/ovsdb.service
grep -q "^ExecStart=$prefix/sbin/ovsdb-server " "$unit" \
    || fail "unit does not start $prefix/sbin/ovsdb-server: $(grep Exec "$unit")"
if command -v systemd-analyze >/dev/null; then
    # Verify the unit with its programs where DESTDIR put them.
    sed "s|$prefix/|$root/|g" "$unit" >ovsdb.service
    systemd-analyze verify "$PWD/ovsdb.service" >verify.out 2>&1 \
        || fail "systemd-analyze verify: $(cat verify.out)"
    [ ! -s verify.out ] || fail "systemd-analyze verify: $(cat verify.out)"
fi
# The installed programs work together on the installed schema.
"$root/bin/ovsdb-tool" create conf.db "$root/share/ovsdb/vswitch.ovsschema"
expect_eq "$("$root/bin/ovsdb-tool" db-name conf.db)" Open_vSwitch "db-name"
"$root/sbin/ovsdb-server" --help | grep -q -- --disable-file-column-diff \
    || fail "installed ovsdb-server --help"
make -s -C "$OVSDB_BUILDDIR" uninstall DESTDIR="$dest" >uninstall.log 2>&1 \
    || fail "make uninstall: $(tail -5 uninstall.log)"
left=$(find "$dest" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "install and uninstall under $prefix: ok"
