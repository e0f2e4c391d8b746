# tests/server/run-command.sh: ovsdb-server --run=COMMAND (ovsdb-server(1)):
# the command runs once the remotes listen, with the server's standard
# streams; the server exits when it ends, with status 0 if it succeeded
# and 1 (and a message saying how it ended) if not.  Open vSwitch's test
# suite runs 26 tests on "transient" servers this way.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
export OVS_RUNDIR=$PWD OVS_LOGDIR=$PWD
create_db "$OUR_TOOL" db "$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema"

cat >txn.sh <<'SH'
set -e
ovsdb-client transact unix:db.sock \
    '["Example", {"op": "insert", "table": "Host", "row": {"name": "h1"}}]' \
    | sed 's/[0-9a-f-]\{36\}/<uuid>/g'
ovsdb-client dump unix:db.sock Example Host name
SH
"$OUR_SERVER" --remote=punix:db.sock --unixctl="$PWD/ctl" \
    --run="sh txn.sh" db >out 2>err || fail "exit $?: $(cat err)"
expect_eq "$(head -1 out)" '[{"uuid":["uuid","<uuid>"]}]' "insert reply"
grep -qx 'h1' out || fail "dump did not show the row: $(cat out)"
# The server is gone and the row is in the file.
[ -S db.sock ] && fail "socket left behind"
"$OUR_TOOL" query db '["Example", {"op": "select", "table": "Host",
    "where": [], "columns": ["name"]}]' | grep -q '"h1"' \
    || fail "the committed row is not in the file"

rc=0
"$OUR_SERVER" --remote=punix:db.sock --unixctl="$PWD/ctl" --run="exit 3" \
    db >out 2>err || rc=$?
expect_eq "$rc" 1 "exit status after a failed command"
grep -q 'exit 3: child exited, exit status 3' err \
    || fail "message: $(cat err)"

rc=0
"$OUR_SERVER" --remote=punix:db.sock --unixctl="$PWD/ctl" \
    --run='kill -9 $$' db >out 2>err || rc=$?
expect_eq "$rc" 1 "exit status after a killed command"
grep -q 'child exited, killed (Killed)' err || fail "message: $(cat err)"
echo "--run: ok"
