# tests/storage/tool-reports.sh: ovsdb-tool's simple commands give the
# reference's output and exit codes: create, db-* and schema-* reports,
# needs-conversion, compare-versions, usage errors.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool

# run_both ARGS...: runs our tool and (when installed) the reference with
# the same arguments; stdout, stderr (program name masked) and exit code
# must match.  Without the reference, prints ours for the log.
run_both() {
    rc_only=false
    if [ "$1" = --rc-only ]; then
        rc_only=true
        shift
    fi
    set +e
    out=$("$TOOL" "$@" 2>err.ours); rc=$?
    set -e
    err=$(sed 's/^[^:]*ovsdb-tool: /ovsdb-tool: /' err.ours)
    echo "ours: $* -> rc=$rc out=[$out] err=[$err]"
    if [ -x "$REF_OVSDB_TOOL" ]; then
        set +e
        rout=$("$REF_OVSDB_TOOL" "$@" 2>err.ref); rrc=$?
        set -e
        rerr=$(cat err.ref)
        expect_eq "$out" "$rout" "stdout of $*"
        expect_eq "$rc" "$rrc" "exit code of $*"
        $rc_only || expect_eq "$err" "$rerr" "stderr of $*"
    fi
}

"$TOOL" create db "$SCHEMA" || fail "create"
[ -f db ] || fail "create made no file"
[ -f .db.~lock~ ] || fail "create made no lock file"
for cmd in db-name db-version db-cksum; do
    run_both $cmd db
done
expect_eq "$("$TOOL" db-name db)" Store "db-name"
expect_eq "$("$TOOL" db-version db)" 1.2.3 "db-version"
expect_eq "$("$TOOL" db-cksum db)" "12345 678" "db-cksum"
for cmd in schema-name schema-version schema-cksum; do
    run_both $cmd "$SCHEMA"
done
run_both needs-conversion db "$SCHEMA"
run_both needs-conversion db "$SCHEMA2"
expect_eq "$("$TOOL" needs-conversion db "$SCHEMA")" no "needs-conversion"
expect_eq "$("$TOOL" needs-conversion db "$SCHEMA2")" yes "needs-conversion"
run_both db-is-standalone db
run_both db-is-clustered db

for op in '<' '<=' '==' '>=' '>' '!='; do
    run_both compare-versions 1.2.3 "$op" 1.10.0
    run_both compare-versions 2.0.0 "$op" 2.0.0
done
set +e
"$TOOL" compare-versions 1.2.3 '<' 1.10.0; rc=$?
set -e
expect_eq $rc 0 "1.2.3 < 1.10.0"
set +e
"$TOOL" compare-versions 1.2.3 '>' 1.10.0; rc=$?
set -e
expect_eq $rc 2 "1.2.3 > 1.10.0 is false"

# Errors: exit 1 with the reference's messages.
run_both create db "$SCHEMA"
run_both db-name nonexistent.db
run_both compare-versions 1.2 '<' 1.3.0
run_both compare-versions 1.2.3 '~' 1.3.0
run_both
run_both frobnicate
run_both db-name db extra
run_both compare-versions 1.2.3
: > empty.db
run_both db-name empty.db
printf 'OVSDB JSON 12' > short.db
run_both db-name short.db
printf 'hello\n' > garbage.db
run_both db-name garbage.db

# Defaults come from $OVS_DBDIR and $OVS_PKGDATADIR.
mkdir dbdir pkg
cp "$SCHEMA" pkg/vswitch.ovsschema
OVS_DBDIR=$PWD/dbdir OVS_PKGDATADIR=$PWD/pkg "$TOOL" create \
    || fail "create with defaults"
expect_eq "$(OVS_DBDIR=$PWD/dbdir "$TOOL" db-name)" Store "default db"
# Options may follow the command, as with the reference.
"$TOOL" show-log -m db | grep -q '^record 0: "Store" schema' \
    || fail "show-log -m after the command"
"$TOOL" --help | grep -q "transact \[DB\] TRNS" || fail "--help"
"$TOOL" --version | grep -q "^ovsdb-tool (ovsdb) " || fail "--version"
echo PASS
