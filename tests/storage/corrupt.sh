# tests/storage/corrupt.sh: a torn or corrupted last record is reported with
# its offset by show-log (exit 1, earlier records printed) and by the other
# commands, exactly as the reference reports it.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
TOOL=$OVSDB_BUILDDIR/ovsdb/ovsdb-tool

"$TOOL" create db "$SCHEMA"
run_txns "$TOOL" db
size=$(wc -c < db)

# check_both FILE: our show-log and query fail like the reference's.
check_both() {
    for args in "show-log $1" "-mm show-log $1" \
                "query $1 [\"Store\"]" "transact $1 [\"Store\"]"; do
        set +e
        "$TOOL" $args > out.ours 2> err.ours; rc=$?
        set -e
        expect_eq $rc 1 "exit code of $args"
        cat err.ours
        grep -q "offset" err.ours || fail "$args: error names no offset"
        if has_reference; then
            set +e
            "$REF_OVSDB_TOOL" $args > out.ref 2> err.ref; rrc=$?
            set -e
            expect_eq $rc $rrc "exit code of $args vs reference"
            sed 's/^[^:]*ovsdb-tool: /ovsdb-tool: /' err.ours > e1
            diff -u err.ref e1 || fail "$args: error differs from reference"
            case $args in
                show-log*) diff -u out.ref out.ours \
                               || fail "$args: output differs" ;;
            esac
        fi
    done
}

# Torn: the last record cut short.
cp db torn.db
truncate -s $((size - 7)) torn.db
check_both torn.db
n=$("$TOOL" show-log torn.db 2>/dev/null | grep -c '^record' || true)
expect_eq "$n" 11 "records before the torn one"

# A flipped byte in the last record's JSON: SHA-1 mismatch.
cp db flip.db
python3 -c '
import sys
d = bytearray(open("flip.db", "rb").read())
d[-5] ^= 0x01
open("flip.db", "wb").write(d)
'
check_both flip.db

# A bad header line in the middle of the file.
cp db hdr.db
python3 -c '
d = open("hdr.db", "rb").read()
i = d.index(b"OVSDB JSON", 100)
d = d[:i] + b"OVSDB JSOX" + d[i + 10:]
open("hdr.db", "wb").write(d)
'
check_both hdr.db
echo PASS
