#!/bin/sh
# tests/server/schema-exactness.sh: schema checks and normalization as the
# reference does them.  A negative (or too large) minLength/maxLength is
# refused with the reference's message; a weak reference is always mutable
# and a strong reference to a non-root table always persistent, whatever
# the schema says: get_schema shows the normalized schema, even for a file
# whose stored schema was not normalized, and the server acts on it.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server

# 1. Bad string lengths: same refusal from both tools.
for bad in '"maxLength": -1' '"minLength": -1' '"minLength": 5000000000' \
           '"minLength": 5, "maxLength": 3'; do
    cat >bad.ovsschema <<EOS
{"name": "S", "version": "1.0.0", "tables": {"A": {"columns":
  {"s": {"type": {"key": {"type": "string", $bad}}}}}}}
EOS
    rm -f ours.db ref.db
    ! "$TOOL" create ours.db bad.ovsschema 2>ours.err \
        || fail "$bad: our ovsdb-tool accepted it"
    ! "$REF_OVSDB_TOOL" create ref.db bad.ovsschema 2>ref.err \
        || fail "$bad: the reference accepted it"
    expect_eq "$(sed 's/^[^:]*: //' ours.err)" "$(sed 's/^[^:]*: //' ref.err)" \
        "$bad: message"
    echo "$bad: $(cat ours.err)"
done

# 2. Normalization.
cat >norm.ovsschema <<'EOS'
{"name": "S", "version": "1.0.0", "tables": {
  "A": {"columns": {
     "r": {"type": {"key": {"type": "uuid", "refTable": "B"},
                    "min": 0, "max": "unlimited"}, "ephemeral": true},
     "v": {"type": {"key": "string", "value": {"type": "uuid",
                    "refTable": "B"}, "min": 0, "max": "unlimited"},
           "ephemeral": true},
     "rr": {"type": {"key": {"type": "uuid", "refTable": "A"},
                     "min": 0, "max": "unlimited"}, "ephemeral": true},
     "w": {"type": {"key": {"type": "uuid", "refTable": "B",
                            "refType": "weak"},
                    "min": 0, "max": "unlimited"}, "mutable": false},
     "s": {"type": "string", "mutable": false}},
   "isRoot": true},
  "B": {"columns": {"x": {"type": "integer"}}}}}
EOS
# A file whose stored schema is the one above, not normalized (as a file
# from another writer could be).
python3 - <<'EOS'
import hashlib, json
body = json.dumps(json.load(open("norm.ovsschema")),
                  separators=(",", ":")).encode() + b"\n"
with open("raw.db", "wb") as f:
    f.write(b"OVSDB JSON %d %s\n" % (len(body),
                                      hashlib.sha1(body).hexdigest().encode()))
    f.write(body)
EOS
get_schema() {
    python3 -c "
import json, sys
from rpc import Client
c = Client('unix:$PWD/' + sys.argv[1])
print(json.dumps(c.call('get_schema', ['S'])['result'], sort_keys=True))
r = c.call('transact', ['S',
    {'op': 'insert', 'table': 'B', 'row': {'x': 1}, 'uuid-name': 'b'},
    {'op': 'insert', 'table': 'A', 'row': {'r': ['named-uuid', 'b'],
                                           'w': ['named-uuid', 'b']}}])
print(json.dumps(r.get('error')))
r = c.call('transact', ['S', {'op': 'update', 'table': 'A', 'where': [],
                              'row': {'w': ['set', []]}}])
print(json.dumps(r['result'], sort_keys=True))
" "$1.sock"
}
for how in created raw; do
    rm -f ours.db ref.db
    if [ $how = created ]; then
        "$TOOL" create ours.db norm.ovsschema
        "$REF_OVSDB_TOOL" create ref.db norm.ovsschema
    else
        cp raw.db ours.db
        cp raw.db ref.db
        "$REF_OVSDB_TOOL" show-log ref.db >/dev/null \
            || fail "raw.db is not a good file"
    fi
    serve ours "$SERVER" ours.db
    serve ref "$REF_OVSDB_SERVER" ref.db
    get_schema ours >ours.out
    get_schema ref >ref.out
    grep -q '"r": {"type"' ref.out || fail "the reference kept r ephemeral?"
    diff -u ref.out ours.out \
        || fail "$how: get_schema or transactions differ (- reference, + ours)"
    stop_server ours
    stop_server ref
    # The strong reference is persistent: its value is in the file.
    python3 - "$how" <<'EOS' || fail "$how: r was not written to the file"
import json, sys
recs = [json.loads(l) for l in open("ours.db") if l.startswith("{")]
assert any("r" in row for rec in recs[1:] for t, rows in rec.items()
           if t == "A" for row in rows.values() if isinstance(row, dict)), recs
EOS
    echo "$how: same as the reference"
done
