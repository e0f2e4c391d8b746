#!/bin/sh
# run.sh: the two commands of README.md.
#
#   ./run.sh          set up, build, and run the server in the foreground on
#                     the bundled example schema (run/example.db), with run/
#                     as its run directory (OVS_RUNDIR): listening on
#                     unix:run/db.sock and tcp:127.0.0.1:6640, control socket
#                     run/ovsdb-server.PID.ctl, pidfile run/ovsdb-server.pid.
#   ./run.sh check    set up, build, and run the test suite ("make check").
#   ./run.sh setup    only install the packages and bootstrap autotools
#                     (what .ci/run needs before its own builds).
#
# Set-up: installs missing Debian packages (as root, with apt-get),
# bootstraps autotools, configures and builds out of tree in build/$ALLOCATOR.
# ALLOCATOR=glibc (default), jemalloc or tcmalloc chooses the malloc.
set -e
cd "$(dirname "$0")"
top=$(pwd)
ALLOCATOR=${ALLOCATOR:-glibc}
mode=${1:-run}

build_pkgs="build-essential autoconf automake libtool pkg-config
    libjansson-dev libssl-dev libjemalloc-dev libgoogle-perftools-dev"
# The tests also use the reference Open vSwitch programs and clients (to
# compare replies and to prove interoperability), python3 and openssl, man
# (to check our manual pages); systemd-analyze, where present, checks our
# unit; make check-upstream builds Open vSwitch's test suite from
# openvswitch-source (and its tests need python3-sortedcontainers);
# CI's package pass builds the Debian package with debhelper;
# prometheus (its promtool and server) checks and scrapes our metrics,
# curl reads them in the README; nftables makes the fault-injection
# suite's partitions and packet loss (tests/faults).
test_pkgs="python3 openssl procps openvswitch-common openvswitch-switch
    python3-openvswitch ovn-common ovn-central python3-ovsdbapp gnuplot-nox
    man-db groff-base openvswitch-source python3-sortedcontainers
    debhelper prometheus curl nftables"

install_missing() {
    missing=
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
            || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "run.sh: missing packages:$missing (run as root to install)" >&2
        exit 1
    fi
    echo "run.sh: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || true
    # Packages whose services cannot start here (no systemd) still install.
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

case $mode in
    run) install_missing $build_pkgs ;;
    check|setup) install_missing $build_pkgs $test_pkgs ;;
    *) echo "usage: $0 [check|setup]" >&2; exit 2 ;;
esac

case $ALLOCATOR in
    glibc) config_flags= ;;
    jemalloc|tcmalloc) config_flags=--enable-$ALLOCATOR ;;
    *) echo "run.sh: ALLOCATOR must be glibc, jemalloc or tcmalloc" >&2; exit 2 ;;
esac

if [ -f config.status ]; then
    echo "run.sh: the source tree is configured in place; run 'make distclean'" \
         "first (run.sh builds out of tree in build/)" >&2
    exit 1
fi
if [ ! -x configure ] || [ configure.ac -nt configure ] \
       || [ Makefile.am -nt configure ]; then
    autoreconf -fi
fi
[ "$mode" = setup ] && exit 0
builddir=$top/build/$ALLOCATOR
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$top/configure" -nt config.status ]; then
    "$top/configure" $config_flags
fi
make -j"$(nproc)"

case $mode in
    check)
        exec make check
        ;;
    run)
        mkdir -p "$top/run"
        db=$top/run/example.db
        if [ ! -f "$db" ]; then
            ./ovsdb/ovsdb-tool create "$db" \
                "$top/ovsdb/schemas/example.ovsschema"
        fi
        # As Open vSwitch lays out its run directory: relative socket
        # names and the default pidfile and control socket are in it, so
        # OVS_RUNDIR=run makes every client (ours or the reference's) find
        # the server by its default names.
        export OVS_RUNDIR="$top/run"
        exec ./ovsdb/ovsdb-server "$db" \
            --remote=punix:db.sock \
            --remote=ptcp:6640:127.0.0.1 \
            --pidfile
        ;;
esac
