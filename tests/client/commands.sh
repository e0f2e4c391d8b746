# tests/client/commands.sh: every one-shot ovsdb-client command, in every
# output format, gives the same output, errors and exit status as the
# reference ovsdb-client, both talking to the same server.
#
# The server is ours when it serves ($CLIENT_TEST_SERVER=ref forces the
# reference), else the reference's.  Rows and columns the reference prints
# in hash order are compared sorted.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/client/lib.sh"

has_reference || skip "reference ovsdb-client not installed"

start_test_server "$SCHEMAS/types.ovsschema" "$SCHEMAS/refs.ovsschema" \
    "$SCHEMAS/vswitch.ovsschema"
S=$SOCK

# Data of every type, including strings that need quoting in each format.
"$REF_OVSDB_CLIENT" transact "$S" '["Types",
  {"op":"insert","table":"T","row":{"i":5,"r":2.5,"b":true,
     "s":"hello world","iset":["set",[1,2,3]],"rset":["set",[0.5,-1.25]],
     "sset":["set",["x y","z","a,b","q\"uote"]],"opt":3,"small":["set",[7]],
     "ssmap":["map",[["a","b"],["c d","e\"f"]]],
     "simap":["map",[["k",-3]]],"ismall":["map",[[1,"one"]]],
     "u":["uuid","01234567-89ab-cdef-0123-456789abcdef"]}},
  {"op":"insert","table":"T","row":{}},
  {"op":"insert","table":"T","row":{"i":-2,"s":"<html> & \"more\""}},
  {"op":"insert","table":"T","row":{"i":-2,"s":"tab\there, new\nline"}},
  {"op":"insert","table":"T","row":{"s":"ünïcödé","r":1e100}}]' >/dev/null
"$REF_OVSDB_CLIENT" transact "$S" '["Refs",
  {"op":"insert","table":"Child","row":{"name":"c1"},"uuid-name":"c1"},
  {"op":"insert","table":"Child","row":{"name":"c2"},"uuid-name":"c2"},
  {"op":"insert","table":"Root","row":{"name":"r1",
     "children":["set",[["named-uuid","c1"],["named-uuid","c2"]]],
     "child":["named-uuid","c1"],
     "byname":["map",[["one",["named-uuid","c1"]]]]}}]' >/dev/null

same_output list-dbs list-dbs "$S"
# The default server is unix:$OVS_RUNDIR/db.sock (lib.sh sets OVS_RUNDIR).
ln -s srv.sock db.sock
same_output default-server list-dbs
same_output default-server-db get-schema-version Refs
for db in Types Refs Open_vSwitch; do
    same_output "get-schema-$db" get-schema "$S" $db
    same_output "get-schema-pretty-$db" --pretty get-schema "$S" $db
    same_output "version-$db" get-schema-version "$S" $db
    same_output "cksum-$db" get-schema-cksum "$S" $db
    same_sorted "list-tables-$db" list-tables "$S" $db
    same_sorted "list-columns-$db" list-columns "$S" $db
done
same_sorted list-columns-T list-columns "$S" Types T
same_sorted list-columns-T-csv -f csv list-columns "$S" Types T
same_sorted list-columns-none list-columns "$S" Types NoSuchTable

for f in table list html csv json; do
    for d in string bare json; do
        same_output "dump-types-$f-$d" --format=$f --data=$d dump "$S" Types
        same_output "dump-refs-$f-$d" -f $f -d $d dump "$S" Refs
    done
    same_output "dump-noheadings-$f" -f $f --no-headings dump "$S" Types
done
same_output dump-json-pretty -f json --pretty dump "$S" Refs
same_output dump-bare --bare dump "$S" Types
same_output dump-columns dump "$S" Types T s i sset _uuid
same_output dump-one-table dump "$S" Refs Child
same_output dump-width --max-column-width=6 dump "$S" Types T s ssmap i
same_output dump-empty-db dump "$S" Open_vSwitch

txn='["Types",{"op":"select","table":"T","where":[["i","==",5]],
       "columns":["i","ssmap","r","u"]}]'
same_output transact transact "$S" "$txn"
same_output transact-pretty --pretty transact "$S" "$txn"
same_output transact-error transact "$S" \
    '["Types",{"op":"insert","table":"T","row":{"nope":1}}]'
same_output transact-unknown-db transact "$S" '["Nope"]'
same_output query-select query "$S" "$txn"
same_output query-insert query "$S" \
    '["Types",{"op":"insert","table":"T","row":{"i":99}}]'
same_output query-not-kept dump "$S" Types T i

same_output needs-conversion-no needs-conversion "$S" \
    "$SCHEMAS/types.ovsschema"
sed 's/"1.0.0"/"1.0.1"/' "$SCHEMAS/refs.ovsschema" >refs2.ovsschema
same_output needs-conversion-yes needs-conversion "$S" refs2.ovsschema
same_output wait-added wait "$S" Types added
same_output wait-connected wait "$S" Refs connected
same_output wait-removed wait "$S" Nope removed

# Errors: same message on stderr, same status.
same_error unknown-command frobnicate
same_error bad-format --format=xml list-dbs "$S"
same_error bad-data --data=xml list-dbs "$S"
same_error bad-timeout --timeout=0 list-dbs "$S"
same_error unknown-db get-schema "$S" Nope
same_error extra-args get-schema-version "$S" Types extra
same_error list-dbs-args list-dbs "$S" a b
same_error transact-no-args transact
same_error dump-no-table dump "$S" Refs Nope
same_error dump-no-column dump "$S" Refs Root nope
same_error wait-bad-state wait "$S" Types sideways
same_error refused list-dbs unix:$PWD/nothing-here.sock
same_error monitor-no-table monitor "$S" Types Nope
same_error monitor-no-column monitor "$S" Types T 's,!bogus'
same_error monitor-twice monitor "$S" Types T s s
same_error txn-object transact "$S" '{}'
same_error txn-empty query "$S" '[]'
same_error txn-no-db transact "$S" '[1]'
# Bad JSON fails alike, but the parsers word their messages differently.
run_both txn-not-json transact "$S" '[1'
compare_files txn-not-json.rc txn-not-json.ref.rc txn-not-json.our.rc
grep -q '^ovsdb-client: "\[1": line ' txn-not-json.our.err \
    || fail "bad JSON: $(cat txn-not-json.our.err)"
same_error cond-column monitor-cond "$S" Types '[["nope","==",1]]' T
same_error cond-value monitor-cond "$S" Types '[["i","==","x"]]' T
same_error cond-shape monitor-cond "$S" Types '[["i","<"]]' T
same_error convert-missing convert "$S" "$PWD/no-such.ovsschema"
echo '{"name":"Types"}' >bad.ovsschema
same_error convert-bad convert "$S" bad.ovsschema
same_error needs-conversion-missing needs-conversion "$S" no-such.ovsschema
same_error option-no-arg -f
same_error option-unknown --bogus list-dbs "$S"
same_error option-short -x list-dbs "$S"

# --timeout kills a command that waits forever with SIGALRM, as the
# reference.
set +e
"$OUR_CLIENT" --timeout=1 wait "$S" Nope added 2>/dev/null
rc=$?
set -e
expect_eq "$rc" 142 "status after --timeout"

# Online conversion, then both see the new version.
"$OUR_CLIENT" convert "$S" refs2.ovsschema
same_output version-converted get-schema-version "$S" Refs
same_output dump-converted dump "$S" Refs Root name
