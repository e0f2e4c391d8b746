#!/bin/sh
# tests/relay/chain-start.sh: a relay whose upstream does not serve the
# database yet (here a relay of ours whose own upstream is not up) asks
# again for the schema on the same connection, sooner than a reconnection
# would, until the upstream has it (ovsdb/server/relay.c,
# SCHEMA_RETRY_MIN_MSEC).  A chain of relays started at once then follows
# the first transactions as notifications, as Open vSwitch's test
# "referential integrity -- simple - relay - clustered" expects.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
serve relay1 ovsdb-server "relay:Example:unix:$PWD/up.sock"
serve relay2 ovsdb-server "relay:Example:unix:$PWD/relay1.sock"
refused() { grep -q 'get_schema: error from upstream' relay2.log; }
wait_until 30 "relay2 asked relay1 for the schema" refused

start_upstream ours
serves() {
    ovsdb-client list-dbs "unix:$PWD/relay2.sock" 2>/dev/null \
        | grep -qx Example
}
wait_until 60 "relay2 serves Example" serves
n=$(grep -c "Example: connected to unix:$PWD/relay1.sock" relay2.log)
expect_eq "$n" 1 "relay2's connections to relay1 (asked again, not reconnected)"

# And the chain works: a transaction through relay2 reaches the upstream.
ovsdb-client transact "unix:$PWD/relay2.sock" \
    '["Example",{"op":"insert","table":"Host","row":{"name":"h1"}}]' \
    >txn.out || fail "transact through relay2: $(cat txn.out)"
grep -q '"uuid"' txn.out || fail "no insert result: $(cat txn.out)"
ovsdb-client dump "unix:$PWD/up.sock" Example Host | grep -q h1 \
    || fail "the row is not upstream"
