# tests/client/backup.sh: "backup" writes a standalone database file that
# the reference tools read back with the same contents, and "restore"
# puts a backup (ours or the reference's) back, keeping references between
# rows; mismatched schemas and bad files fail as in the reference.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/client/lib.sh"

has_reference || skip "reference ovsdb-client not installed"

start_test_server "$SCHEMAS/refs.ovsschema" "$SCHEMAS/types.ovsschema"
S=$SOCK

"$REF_OVSDB_CLIENT" transact "$S" '["Refs",
  {"op":"insert","table":"Grandchild","row":{"n":7},"uuid-name":"g"},
  {"op":"insert","table":"Child",
   "row":{"name":"c1","grandchild":["named-uuid","g"]},
   "uuid-name":"c1"},
  {"op":"insert","table":"Child","row":{"name":"c2"},"uuid-name":"c2"},
  {"op":"insert","table":"Target","row":{"name":"t"},"uuid-name":"t"},
  {"op":"insert","table":"Root","row":{"name":"r1",
     "children":["set",[["named-uuid","c1"],["named-uuid","c2"]]],
     "byname":["map",[["two",["named-uuid","c2"]]]],
     "weak":["named-uuid","t"]}}]' >/dev/null
"$REF_OVSDB_CLIENT" transact "$S" '["Types",
  {"op":"insert","table":"T",
   "row":{"i":1,"s":"x y","ssmap":["map",[["k","v"]]]}}]' \
    >/dev/null

# Our snapshot of a database, as the reference dump sees it with the
# references followed: "_uuid" values differ, so compare the masked dumps,
# and check each reference points at a row that exists.
dump_masked() {
    "$REF_OVSDB_CLIENT" dump "$1" Refs | mask
}
dump_masked "$S" >orig.txt

"$OUR_CLIENT" backup "$S" Refs >our.snap
"$REF_OVSDB_CLIENT" backup "$S" Refs >ref.snap
"$REF_OVSDB_TOOL" show-log our.snap >our.log
grep -q '^record 0: "Refs" schema, version="1.0.0"' our.log \
    || fail "schema record: $(cat our.log)"
grep -q '^record 1: .*"produced by "ovsdb-client backup""' our.log \
    || fail "data record: $(cat our.log)"

# The reference tool reads the same rows, with the same UUIDs, from both
# snapshots.
all='["Refs"'
for t in Child Grandchild Node Root Strong Target WeakMin; do
    all="$all,{\"op\":\"select\",\"table\":\"$t\",\"where\":[]}"
done
all="$all]"
for f in our ref; do
    "$REF_OVSDB_TOOL" query $f.snap "$all" | python3 -c '
import json, sys
for result in json.load(sys.stdin):
    rows = [{k: v for k, v in r.items() if k != "_version"}
            for r in result["rows"]]
    print(json.dumps(sorted(rows, key=lambda r: r["_uuid"][1]),
                     sort_keys=True))' >$f.rows
done
diff -u ref.rows our.rows || fail "our backup holds other rows"

# Restore into an emptied database, from our snapshot and from the
# reference's, with our client; and ours with the reference client.
for case in our:our ref:our our:ref; do
    snap=${case%%:*} client=${case#*:}
    if [ $client = our ]; then bin=$OUR_CLIENT; else bin=$REF_OVSDB_CLIENT; fi
    "$REF_OVSDB_CLIENT" transact "$S" '["Refs",
      {"op":"delete","table":"Root","where":[]}]' >/dev/null
    "$bin" restore "$S" Refs <$snap.snap || fail "$client restore of $snap"
    dump_masked "$S" >restored.txt
    diff -u orig.txt restored.txt || fail "$client restore of $snap differs"
    "$REF_OVSDB_CLIENT" query "$S" '["Refs",
      {"op":"select","table":"Root","where":[["children","includes",
         ["set",[]]]],"columns":["children","byname","weak"]},
      {"op":"select","table":"Child","where":[],"columns":["_uuid"]}]' \
        >refs.json
    python3 -c '
import json, sys
roots, children = json.load(open("refs.json"))
uuids = {c["_uuid"][1] for c in children["rows"]}
r = roots["rows"][0]
kids = r["children"][1] if r["children"][0] == "set" else [r["children"]]
assert len(kids) == 2 and all(k[1] in uuids for k in kids), r
assert r["byname"][1][0][1][1] in uuids, r
assert r["weak"] != ["set", []], r' || fail "references after restore"
    echo "restored $snap snapshot with $client client"
done

# Standard input from a file whose absolute name is longer than 64 bytes
# (what the kernel says its /proc/self/fd link holds: the name must not be
# cut there; here its first 65 bytes name a directory, which a cut name
# would open), and from a pipe.
n=$((63 - ${#PWD}))
[ $n -gt 0 ] || n=1
long=$PWD/$(printf '%*s' $n '' | tr ' ' d)/x
mkdir -p "$long"
cp our.snap "$long/our.snap"
"$REF_OVSDB_CLIENT" transact "$S" '["Refs",
  {"op":"delete","table":"Root","where":[]}]' >/dev/null
"$OUR_CLIENT" restore "$S" Refs <"$long/our.snap" \
    || fail "restore from a file with a long name"
dump_masked "$S" >restored.txt
diff -u orig.txt restored.txt || fail "restore from a long name differs"
cat our.snap | "$OUR_CLIENT" restore "$S" Refs || fail "restore from a pipe"

# A snapshot of another schema version, and files that are no database.
"$OUR_CLIENT" backup "$S" Types >types.snap
sed 's/"1.0.0"/"1.0.1"/' "$SCHEMAS/refs.ovsschema" >refs2.ovsschema
"$REF_OVSDB_TOOL" create other.db refs2.ovsschema
same_error restore-version restore "$S" Refs <other.db
echo garbage >garbage.snap
same_error restore-garbage restore "$S" Refs <garbage.snap
same_error restore-empty restore "$S" Refs </dev/null

# --force goes on, to the database the backup's schema names.
"$OUR_CLIENT" --force restore "$S" Refs <other.db 2>force.err \
    || fail "forced restore: $(cat force.err)"
grep -q 'backup schema has version "1.0.1"' force.err \
    || fail "forced restore: $(cat force.err)"
expect_eq "$("$OUR_CLIENT" dump "$S" Refs Root name | tail -n +4)" "" \
    "Root after restoring an empty backup"
