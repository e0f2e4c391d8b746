#!/bin/sh
# tests/security/db-remote-errors.sh: a "db:" remote naming a missing
# database, table or column, or malformed, stops ovsdb-server at startup
# with the reference's message.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"

ovsdb-tool create s.db "$OVSDB_SRCDIR/tests/data/schemas/rbac.ovsschema"
check() {
    spec=$1 expected=$2
    if timeout 5 ovsdb-server --remote="$spec" --unixctl="$PWD/s.ctl" \
            s.db >out 2>&1; then
        fail "$spec: server did not fail"
    fi
    got=$(grep -v '|' out | grep . | tail -n 1)
    expect_eq "$got" "ovsdb-server: \"$spec\": $expected" "$spec"
    if has_reference; then
        "$REF_OVSDB_TOOL" create ref.db \
            "$OVSDB_SRCDIR/tests/data/schemas/rbac.ovsschema" 2>/dev/null || true
        if timeout 5 "$REF_OVSDB_SERVER" --remote="$spec" \
                --unixctl="$PWD/ref.ctl" ref.db >ref.out 2>&1; then
            fail "$spec: reference did not fail"
        fi
        expect_eq "$(grep -v '|' ref.out | grep . | tail -n 1)" "$got" \
            "$spec: same message as the reference"
    fi
}
check db:nodb,X,Y "no database named nodb"
check db:Secure,Nope,x "no table named Nope"
check db:Secure,Global,nope "table \"Global\" has no column \"nope\""
check db:Secure,Global "invalid syntax"
echo "db: remote errors match the reference"
