# tests/cluster/lib.sh: helpers for the clustered-file tests.  Source it
# after tests/e2e/lib.sh and tests/storage/lib.sh.
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
UTIL=$OVSDB_BUILDDIR/tests/cluster-util

# need_ref_server: skips the test unless the reference server and client
# (and python3, for tests/storage/lib.sh's dump) are installed.
need_ref_server() {
    has_reference || skip "reference ovsdb-server not installed"
    [ -x "$REF_OVSDB_CLIENT" ] || skip "reference ovsdb-client not installed"
    command -v python3 >/dev/null || skip "no python3"
}

# run_both ARGS...: runs the reference's ovsdb-tool and ours with ARGS and
# fails unless stdout, stderr (log timestamps masked) and the exit status
# are the same.  Leaves ours in out.ours/err.ours and $rc.
run_both() {
    rc_ref=0 rc=0
    "$REF_OVSDB_TOOL" "$@" > out.ref 2> err.ref || rc_ref=$?
    "$TOOL" "$@" > out.ours 2> err.ours || rc=$?
    for _err in err.ref err.ours; do
        sed 's/^[0-9T:.-]*Z|[0-9]*|/TIME|/' $_err > $_err.masked
    done
    cmp -s out.ref out.ours \
        || fail "ovsdb-tool $*: stdout differs: $(diff out.ref out.ours)"
    cmp -s err.ref.masked err.ours.masked \
        || fail "ovsdb-tool $*: stderr differs: $(diff err.ref err.ours)"
    [ $rc_ref = $rc ] || fail "ovsdb-tool $*: exit $rc, reference $rc_ref"
}

# read_all_both FILE: every command that reads a clustered file, by both
# tools, must give the same results.
read_all_both() {
    for cmd in show-log "-m show-log" "-mm show-log" db-cid db-sid \
               db-local-address db-name db-is-clustered db-is-standalone \
               check-cluster; do
        run_both $cmd "$1"
    done
}

# mask_file FILE: the file's text with every UUID replaced by <uuid>, the
# SHA-1 of each record header by <sha1> and "_date" values by <date>, so
# that files with different ids can be compared byte for byte.
mask_file() {
    sed -e 's/^\(OVSDB [A-Z]* [0-9]*\) [0-9a-f]*$/\1 <sha1>/' \
        -e 's/[0-9a-f]\{8\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{12\}/<uuid>/g' \
        -e 's/"_date":[0-9]*/"_date":<date>/g' "$1"
}

# via_client transact SOCKET TXN: "ovsdb-client transact" on unix:SOCKET,
# so that run_txns (tests/storage/lib.sh) can drive a server.
via_client() {
    "$REF_OVSDB_CLIENT" transact "unix:$PWD/$2" "$3"
}

# serve_ref DB: runs the reference ovsdb-server on DB (on ./db.sock) in the
# background until stop_ref.
serve_ref() {
    rm -f db.sock server.pid
    "$REF_OVSDB_SERVER" --remote=punix:$PWD/db.sock --unixctl=$PWD/ctl \
        --no-chdir --log-file=$PWD/server.log --pidfile=$PWD/server.pid \
        --detach "$1" 2>> server.err || fail "reference server: $(tail -3 server.err)"
    trap 'kill $(cat server.pid 2>/dev/null) 2>/dev/null || true' EXIT
    i=0
    until "$REF_OVSDB_CLIENT" list-dbs unix:$PWD/db.sock >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "reference server did not answer"
        sleep 0.1
    done
}
stop_ref() {
    kill $(cat server.pid)
    i=0
    while [ -e server.pid ]; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "reference server did not exit"
        sleep 0.1
    done
    trap - EXIT
}

# cdump TOOL DB [--mask]: the contents of clustered DB, through TOOL's
# cluster-to-standalone, as tests/storage/lib.sh's dump prints them.
cdump() {
    rm -f cdump.db
    "$1" cluster-to-standalone cdump.db "$2" \
        || fail "$1 cluster-to-standalone $2"
    dump "$TOOL" cdump.db $3
}
