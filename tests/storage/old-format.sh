# tests/storage/old-format.sh: files from older writers: transaction
# records without "_is_diff" (a modified row lists whole new values of the
# changed columns only) and "_date" in seconds.  Ours reads them as the
# reference does.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
command -v python3 >/dev/null || skip "python3 not installed"

python3 - "$SCHEMA" <<'PY'
import hashlib, json, sys
schema = json.load(open(sys.argv[1]))
def rec(obj):
    body = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    sha1 = hashlib.sha1(body).hexdigest().encode()
    return b"OVSDB JSON %d %s\n" % (len(body), sha1) + body
a = "11111111-2222-3333-4444-555555555555"
b = "66666666-2222-3333-4444-555555555555"
with open("old.db", "wb") as f:
    f.write(rec(schema))
    f.write(rec({"Root": {a: {"name": "a", "n": 1,
                              "tags": ["set", ["x", "y"]],
                              "opts": ["map", [["k", "v"]]]},
                          b: {"name": "b"}}, "_date": 1300000000}))
    f.write(rec({"Root": {a: {"tags": ["set", ["z"]]}}, "_date": 1300000001}))
    f.write(rec({"Root": {a: {"n": 5, "opts": ["map", []]}, b: None},
                 "_date": 1300000002000, "_comment": "old style"}))
PY
out=$("$TOOL" query old.db '["Store",{"op":"select","table":"Root",
    "where":[],"columns":["name","n","tags","opts"]}]')
want='[{"rows":[{"n":5,"name":"a","opts":["map",[]],"tags":"z"}]}]'
expect_eq "$out" "$want" "old-format replay"
"$TOOL" show-log old.db > ours.log
grep -q '^record 1: 2011-03-13 07:06:40.000$' ours.log \
    || fail "seconds date: $(sed -n 3p ours.log)"
if has_reference; then
    for m in "" -m -mm; do
        "$REF_OVSDB_TOOL" $m show-log old.db | sort > ref.log
        "$TOOL" $m show-log old.db | sort > ours.log
        diff -u ref.log ours.log || fail "show-log $m differs"
    done
    "$REF_OVSDB_TOOL" query old.db '["Store",{"op":"select","table":"Root",
        "where":[],"columns":["name","n","tags","opts"]}]' > ref.out
    expect_eq "$out" "$(cat ref.out)" "query vs reference"
fi
echo PASS
