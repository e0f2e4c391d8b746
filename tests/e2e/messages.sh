#!/bin/sh
# tests/e2e/messages.sh: the errors a new user meets say what to do.
# A missing database file: how to create one.  A schema given for a
# database: says so.  A schema that is not JSON: a syntax error, not an
# I/O error.  A database another server holds: the holder's pid, whether
# the holder is ours or the reference's (and the reference names ours).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
B=$OVSDB_BUILDDIR/ovsdb
SCHEMA=$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema

! "$B/ovsdb-server" missing.db --remote=punix:"$PWD/x.sock" 2>err \
    || fail "server started without its database"
grep -q 'missing.db: open failed.*ovsdb-tool create missing.db SCHEMA' err \
    || fail "missing database: $(cat err)"

cp "$SCHEMA" my.ovsschema
! "$B/ovsdb-server" my.ovsschema --remote=punix:"$PWD/x.sock" 2>err \
    || fail "server served a schema"
grep -q 'my.ovsschema: a schema, not a database.*ovsdb-tool create DB my.ovsschema' err \
    || fail "schema for a database: $(cat err)"

printf '{"name": "S", oops}\n' >bad.ovsschema
! "$B/ovsdb-tool" create bad.db bad.ovsschema 2>err || fail "bad schema accepted"
grep -q "I/O error" err && fail "a JSON error called an I/O error: $(cat err)"
grep -q "syntax error: bad.ovsschema: .*not valid JSON" err \
    || fail "bad schema: $(cat err)"
! "$B/ovsdb-tool" create bad.db nowhere.ovsschema 2>err || fail "no schema?"
grep -q "I/O error: nowhere.ovsschema: open failed" err \
    || fail "missing schema: $(cat err)"

# Locks: the second opener names the first's pid.
"$B/ovsdb-tool" create db "$SCHEMA"
holders="$B/ovsdb-server"
has_reference && holders="$holders $REF_OVSDB_SERVER"
for holder in $holders; do
    serve holder "$holder" db
    "$B/ovsdb-server" db --remote=punix:"$PWD/y.sock" \
        --unixctl="$PWD/y.ctl" 2>err && fail "two servers on one file"
    grep -q "already locked by pid $SERVER_PID" err \
        || fail "lock held by $holder: $(cat err)"
    ! "$B/ovsdb-tool" compact db 2>err || fail "compacted a served file"
    grep -q "already locked by pid $SERVER_PID" err \
        || fail "ovsdb-tool, lock held by $holder: $(cat err)"
    if [ "$holder" = "$B/ovsdb-server" ] && has_reference; then
        ! "$REF_OVSDB_TOOL" compact db 2>err || fail "reference compacted"
        grep -q "already locked by pid $SERVER_PID" err \
            || fail "the reference does not name our pid: $(cat err)"
    fi
    stop_server holder
done
echo "messages say what to do"
