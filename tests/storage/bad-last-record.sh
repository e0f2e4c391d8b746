# tests/storage/bad-last-record.sh: a last record that is well-formed (good
# header and hash) but does not apply to the database, such as one naming a
# table the schema lacks, is handled as the reference handles it: the server
# logs it ("unknown table: No table named ..."), serves what came before it,
# and its first commit cuts it off the file.  The same record followed by a
# good one is not a tail: the server refuses the file and leaves it as it
# was, since serving it would drop the good record.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool
SERVER=$OVSDB_BUILDDIR/ovsdb/ovsdb-server
CLIENT=$OVSDB_BUILDDIR/ovsdb/ovsdb-client

"$TOOL" create db "$SCHEMA"
run_txns "$TOOL" db
dump "$TOOL" db > before
good_size=$(wc -c < db)

# bad_record: a well-formed record whose transaction names no table of the
# schema.
bad_record() {
    python3 -c '
import hashlib, sys
body = b"{\"invalid\":{}}\n"
sys.stdout.buffer.write(b"OVSDB JSON %d %s\n" % (len(body),
                        hashlib.sha1(body).hexdigest().encode()) + body)'
}

# 1. At the end of the file: served without it, then cut off.
cp db tail.db
bad_record >> tail.db
insert='["Store",{"op":"insert","table":"Root","row":{"name":"after"}}]'
"$SERVER" --remote=punix:$PWD/s.sock --unixctl=$PWD/ctl --no-chdir tail.db \
    --run="$CLIENT transact unix:$PWD/s.sock '$insert'" > out 2> err \
    || { cat err; fail "the server refused a file with a bad last record"; }
grep -q 'syntax "{"invalid":{}}": unknown table: No table named invalid.' err \
    || { cat err; fail "the bad record was not reported as the reference does"; }
grep -q '"uuid"' out || fail "the insert after the bad record failed: $(cat out)"
grep -q invalid tail.db && fail "the bad record is still in the file"
"$TOOL" show-log tail.db > /dev/null || fail "show-log fails after the cut"
dump "$TOOL" tail.db | grep -q '"after"' || fail "the new row is not stored"
"$TOOL" transact tail.db \
    '["Store",{"op":"delete","table":"Root","where":[["name","==","after"]]}]' \
    > /dev/null
dump "$TOOL" tail.db > after
diff -u before after || fail "rows before the bad record changed"

# 2. Followed by a good record: refused, and the file is untouched.
cp db mid.db
bad_record >> mid.db
"$TOOL" transact db "$insert" > /dev/null
tail -c +$((good_size + 1)) db >> mid.db
cp mid.db mid.orig
set +e
"$SERVER" --remote=punix:$PWD/m.sock --unixctl=$PWD/ctl --no-chdir mid.db --run=true \
    > out 2> err
rc=$?
set -e
[ $rc != 0 ] || fail "the server served a file with a bad record in the middle"
grep -q 'No table named invalid' err || { cat err; fail "no reason given"; }
cmp mid.db mid.orig || fail "the refused file was changed"
echo PASS
