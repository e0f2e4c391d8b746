#!/bin/sh
# tests/server/multi.sh: two databases, a unix and a TCP remote, add-db
# and remove-db at run time.
. "$OVSDB_SRCDIR/tests/server/lib.sh"
command -v ovs-appctl >/dev/null || skip "ovs-appctl not installed"
cat >second.ovsschema <<'SCHEMA'
{"name": "Second", "version": "1.0.0",
 "tables": {"T": {"columns": {"n": {"type": "integer"}}}}}
SCHEMA
create_db ovsdb-tool second.db second.ovsschema
port=$(free_port)
start_server ours ovsdb-server ovsdb-tool "$PWD/second.db" \
    --remote="ptcp:$port:127.0.0.1"
python3 "$RPC_DIR/multi.py" "unix:$PWD/ours.sock" "tcp:127.0.0.1:$port" \
    "$PWD/ours.ctl" "$PWD/second.db" || { cat ours.log; fail "multi"; }
