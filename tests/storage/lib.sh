# tests/storage/lib.sh: helpers shared by the storage tests.  Source it
# after tests/e2e/lib.sh.
SCHEMA=$OVSDB_SRCDIR/tests/storage/test.ovsschema
SCHEMA2=$OVSDB_SRCDIR/tests/storage/test2.ovsschema

# run_txns TOOL DB: applies a fixed sequence of transactions that insert,
# update, mutate (sets and maps) and delete rows, including garbage
# collection and weak reference removal.  Rows are found by name, never by
# UUID, so the sequence works on any file.
run_txns() {
    tool=$1 db=$2
    for t in \
'[{"op":"insert","table":"Child","row":{"value":10},"uuid-name":"c1"},
  {"op":"insert","table":"Root","uuid-name":"a","row":{"name":"a","n":1,
   "tags":["set",["x","y"]],"opts":["map",[["k1","v1"]]],
   "kids":["named-uuid","c1"]}}]' \
'[{"op":"insert","table":"Root","row":{"name":"b","r":0.5,"flag":true,
   "ids":["set",[1,2,3]],"opts":["map",[["k","v"],["m","x"]]]}}]' \
'[{"op":"mutate","table":"Root","where":[["name","==","a"]],
   "mutations":[["tags","insert","z"],["opts","insert",["map",[["k2","v2"]]]],
                ["ids","insert",["set",[7]]],["n","+=",5]]}]' \
'[{"op":"update","table":"Root","where":[["name","==","b"]],
   "row":{"tags":["set",["p","q"]],"r":["set",[]]}}]' \
'[{"op":"mutate","table":"Root","where":[["name","==","b"]],
   "mutations":[["opts","delete",["set",["k"]]],["ids","delete",2]]}]' \
'[{"op":"insert","table":"Root","row":{"name":"c","n":3}}]' \
'[{"op":"delete","table":"Root","where":[["name","==","c"]]}]' \
'[{"op":"insert","table":"Child","row":{"value":20},"uuid-name":"c2"},
  {"op":"mutate","table":"Root","where":[["name","==","a"]],
   "mutations":[["kids","insert",["set",[["named-uuid","c2"]]]]]}]' \
'[{"op":"update","table":"Root","where":[["name","==","a"]],
   "row":{"kids":["set",[]]}},
  {"op":"insert","table":"Child","row":{"value":30},"uuid-name":"c3"},
  {"op":"update","table":"Root","where":[["name","==","b"]],
   "row":{"kids":["named-uuid","c3"],"scratch":"not saved"}},
  {"op":"comment","comment":"drop a kids, b gets c3"},
  {"op":"commit","durable":true}]' \
'[{"op":"mutate","table":"Root","where":[["name","==","b"]],
   "mutations":[["opts","insert",
                 ["map",[["caf\u00e9","\"quoted\" \\\\ \n"]]]]]}]' \
'[{"op":"update","table":"Root","where":[["name","==","a"]],
   "row":{"opts":["map",[["k1","changed"],["k3","v3"]]],"r":1.25e-7,
          "flag":true}}]'
    do
        out=$("$tool" transact "$db" "[\"Store\",${t#\[}") \
            || fail "$tool transact failed: $t"
        case $out in *error*) fail "$tool transact error: $out" ;; esac
    done
}

# dump TOOL DB [--mask]: prints every row of every table, without _version
# (which each program regenerates on load) and sorted, one line per table.
dump() {
    "$1" query "$2" '["Store",
        {"op":"select","table":"Root","where":[]},
        {"op":"select","table":"Child","where":[]}]' | normalize $3
}

# normalize [--mask]: reads a transact reply, drops _version, sorts rows;
# with --mask, replaces every UUID by "<uuid>" first.
normalize() {
    python3 -c '
import json, re, sys
mask = "--mask" in sys.argv
text = sys.stdin.read()
if mask:
    hex = "[0-9a-f]"
    uuid = "-".join(hex + "{%d}" % n for n in (8, 4, 4, 4, 12))
    text = re.sub(uuid, "<uuid>", text)
reply = json.loads(text)
for r in reply:
    if isinstance(r, dict) and "rows" in r:
        for row in r["rows"]:
            row.pop("_version", None)
        r["rows"].sort(key=lambda row: json.dumps(row, sort_keys=True))
    print(json.dumps(r, sort_keys=True))
' "$@"
}
