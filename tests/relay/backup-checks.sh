# tests/relay/backup-checks.sh: what a backup checks before it replicates,
# as the reference does.  A server told to replicate itself refuses ("Self
# replicating is not allowed"), stays active and keeps its rows.  A backup
# whose database lacks a table or column of the active server's schema does
# not replicate it ("cannot be replicated"), and with nothing left becomes
# active again; one whose schema holds all of the active's (a newer
# version, say) replicates it ("can be replicated").  connect-active with
# no active server set answers, without failing, that none is.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
APPCTL=$(command -v ovs-appctl || true)
[ -n "$APPCTL" ] || skip "ovs-appctl not installed"
B=$OVSDB_BUILDDIR/ovsdb

# A schema that holds everything of the test schema, and more.
python3 - "$OVSDB_SRCDIR/tests/storage/test.ovsschema" > super.ovsschema <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["version"] = "9.9.9"
s["tables"]["Root"]["columns"]["added"] = {"type": "string"}
s["tables"]["More"] = {"columns": {"x": {"type": "integer"}}}
print(json.dumps(s))
PY
"$B/ovsdb-tool" create sub.db "$OVSDB_SRCDIR/tests/storage/test.ovsschema"
"$B/ovsdb-tool" create super.db super.ovsschema
insert() {
    "$B/ovsdb-tool" transact "$1" "[\"Store\",{\"op\":\"insert\",
        \"table\":\"Root\",\"row\":{\"name\":\"$2\"}}]" > /dev/null
}
insert sub.db in-sub
insert super.db in-super
names() {
    "$B/ovsdb-client" transact "unix:$PWD/$1.sock" '["Store",{"op":"select",
        "table":"Root","where":[],"columns":["name"]}]' \
        | grep -o '"name":"[^"]*"' | sort | tr '\n' ' '
}
status() { "$APPCTL" -t "$PWD/$1.ctl" ovsdb-server/sync-status; }
is_active() { status "$1" | grep -q "state: active"; }
names_are() { [ "$(names "$1")" = "$2" ]; }
# replicate BACKUP ACTIVE: server BACKUP starts replicating server ACTIVE.
replicate() {
    "$APPCTL" -t "$PWD/$1.ctl" ovsdb-server/set-active-ovsdb-server \
        "unix:$PWD/$2.sock"
    "$APPCTL" -t "$PWD/$1.ctl" ovsdb-server/connect-active-ovsdb-server
}

serve sub "$B/ovsdb-server" sub.db
serve super "$B/ovsdb-server" super.db

# connect-active with none set: a reply, not an error.
out=$("$APPCTL" -t "$PWD/sub.ctl" ovsdb-server/connect-active-ovsdb-server) \
    || fail "connect-active without an active server failed"
expect_eq "$out" "Unable to connect: active server is not specified." \
    "connect-active without an active server"

# Itself.
replicate sub sub
wait_until 30 "no refusal to replicate itself" \
    grep -q "Self replicating is not allowed" sub.log
wait_until 30 "the server is not active again" is_active sub
expect_eq "$(names sub)" '"name":"in-sub" ' "rows after self replication"
out=$("$B/ovsdb-client" transact "unix:$PWD/sub.sock" \
    '["Store",{"op":"insert","table":"Root","row":{"name":"later"}}]')
case $out in *error*) fail "not writable: $out" ;; esac

# From a schema with more: refused, active again, rows kept.
replicate sub super
wait_until 30 "no refusal of a bigger schema" \
    grep -q "Store cannot be replicated" sub.log
grep -q "Schema version mismatch, checking if Store can still be replicated" \
    sub.log || fail "no mismatch message"
grep -q "Column added not present in the local db schema table Root\|Table More not present" \
    sub.log || fail "the missing column or table is not named"
wait_until 30 "the refusing server is not active again" is_active sub
expect_eq "$(names sub)" '"name":"in-sub" "name":"later" ' \
    "rows after a refused replication"

# From a schema with less: replicated.
"$APPCTL" -t "$PWD/sub.ctl" ovsdb-server/set-active-ovsdb-server ""
replicate super sub
wait_until 30 "no acceptance of a smaller schema" \
    grep -q "Store can be replicated" super.log
wait_until 30 "the backup did not replicate the active's rows" \
    names_are super '"name":"in-sub" "name":"later" '
status super | grep -q "^replicating: unix:$PWD/sub.sock" \
    || fail "sync-status of the backup: $(status super)"
echo PASS
