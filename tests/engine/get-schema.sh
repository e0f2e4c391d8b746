# tests/engine/get-schema.sh: ovsdb_schema_to_json() gives what the
# reference ovsdb-server's get_schema gives, for the installed real-world
# schemas and the test schemas.  Needs the reference.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
has_reference || skip "reference ovsdb-server not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

# One schema per database name (the server refuses duplicates).
schemas= seen=
for s in /usr/share/openvswitch/vswitch.ovsschema \
         /usr/share/ovn/ovn-nb.ovsschema /usr/share/ovn/ovn-sb.ovsschema \
         "$OVSDB_SRCDIR"/tests/data/schemas/*.ovsschema; do
    [ -r "$s" ] || continue
    name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$s")
    case " $seen " in *" $name "*) continue ;; esac
    seen="$seen $name"
    schemas="$schemas $s"
done
[ -n "$schemas" ] || skip "no schemas"

dbs= names=
i=0
for s in $schemas; do
    i=$((i + 1))
    "$REF_OVSDB_TOOL" create db$i "$s" || fail "reference cannot create $s"
    dbs="$dbs db$i"
done
"$REF_OVSDB_SERVER" --remote=punix:$PWD/ref.sock --unixctl=$PWD/ref.ctl \
    --pidfile=$PWD/ref.pid --detach --no-chdir --log-file=$PWD/ref.log \
    $dbs || fail "reference server did not start"
trap 'kill $(cat ref.pid) 2>/dev/null' EXIT

normalize() {
    python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))'
}
status=0
for s in $schemas; do
    name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$s")
    "$REF_OVSDB_CLIENT" get-schema unix:$PWD/ref.sock "$name" | normalize \
        > ref.json || fail "get-schema $name failed"
    "$OVSDB_BUILDDIR/tests/ovsdb-exec" --print-schema "$s" | normalize \
        > ours.json || fail "ovsdb-exec --print-schema $s failed"
    if cmp -s ref.json ours.json; then
        echo "same: $s"
    else
        echo "DIFFERENT: $s"
        diff ref.json ours.json | head -5
        status=1
    fi
done
exit $status
