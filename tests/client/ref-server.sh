# tests/client/ref-server.sh: tests/client/commands.sh with the reference
# ovsdb-server, so our client is always checked against the reference
# server too (commands.sh uses ours once it serves).
CLIENT_TEST_SERVER=ref
export CLIENT_TEST_SERVER
exec sh "$OVSDB_SRCDIR/tests/client/commands.sh"
