#!/bin/sh
# tests/cluster/convert-wait.sh: an online "convert" of a clustered
# database waits for its entry without stalling its server, and a
# conversion that the cluster could not take is run again, as the
# reference's trigger does (ovsdb/server/session.c, ovsdb/server/databases.c).  Three of
# our servers on tcp:127.0.0.1:
#   1. while a writer keeps committing on the leader, a follower converts
#      three times: each conversion is built on the follower's state, which
#      lags the leader's, so the leader may refuse it ("prerequisite check
#      failed"); the follower runs it again and every reply is a success;
#      every member ends with the last schema and every acknowledged row;
#   2. with both followers killed, the leader (soon a candidate) is asked
#      to convert: it answers an echo and cluster/status meanwhile, before
#      the conversion's reply, which is a success once a follower is back.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
pids=
trap 'kill_servers; [ -n "$pids" ] && kill $pids 2>/dev/null; true' EXIT

three_of_ours
leader=$(wait_leader 30 s1 s2 s3)
followers=
for n in s1 s2 s3; do
    [ $n = "$leader" ] || followers="$followers $n"
done
f1=$(echo $followers | cut -d' ' -f1)
f2=$(echo $followers | cut -d' ' -f2)
echo "leader $leader, followers $f1 $f2"

# 1. Conversions on a follower under a writer on the leader.
rm -f stop acked acked.tried
$WRITER load "$PWD/acked" "$PWD/stop" 300 w "$PWD/$leader.sock" \
    > writer.out 2>&1 &
pids=$!
wait_until 30 "the writer acknowledged nothing" test -s acked
for v in 2.0.0 3.0.0 4.0.0; do
    new_schema $v
    "$OUR_CLIENT" convert "unix:$PWD/$f1.sock" "schema.$v" > convert.out \
        2>&1 || { show_logs s1 s2 s3;
                  fail "convert on $f1 to $v: $(cat convert.out)"; }
    has_version $f1 $v || fail "$f1 replied before serving $v"
done
touch stop
wait $pids || { cat writer.out; fail "the writer failed"; }
pids=
echo "writer: $(wc -l < acked) rows acknowledged"
for n in s1 s2 s3; do
    wait_until 30 "$n does not serve schema 4.0.0" has_version $n 4.0.0
    wait_until 30 "$n lost acknowledged rows" has_names $n acked
    wait_until 30 "$n did not settle" settled $n
done
# What the log says when the leader refused one (informative only).
echo "proposals of $f1 the leader refused as built on an old state:" \
    "$(grep -c "execute_command_reply.*prerequisite" $f1.log || true)"

# 2. A conversion that cannot commit yet does not stall its server.
kill_server $f1
kill_server $f2
new_schema 5.0.0
$PYTHON - "$PWD/$leader.sock" schema.5.0.0 <<'PY' &
import json, os, select, sys, time, rpc
sock, schema = sys.argv[1], json.load(open(sys.argv[2]))
c = rpc.Client("unix:" + sock, timeout=120)
c.result("set_db_change_aware", [True])
rid = c.request("convert", ["Store", schema])
# Another client is answered while the conversion waits.
other = rpc.Client("unix:" + sock, timeout=120)
r = other.call("echo", ["during"])
assert r.get("result") == ["during"], r
if c.text.strip() or select.select([c.sock], [], [], 0)[0]:
    raise SystemExit("the conversion was answered (%r) before an echo on "
                     "another connection: it stalled its server"
                     % (c.text or c.sock.recv(1000)))
open("answered", "w").close()
r = c.wait_reply(rid)
if r.get("error") is not None or r.get("result") != {}:
    raise SystemExit("convert: %s" % r)
open("converted", "w").close()
PY
pids=$!
wait_until 60 "the leader did not answer during its conversion" \
    test -e answered
status $leader > status.during || fail "no cluster/status during the convert"
test -e converted && fail "the conversion succeeded without a majority"
start_member $f1 "$OUR_SERVER"
wait $pids || { show_logs s1 s2 s3; fail "the conversion failed"; }
pids=
start_member $f2 "$OUR_SERVER"
for n in s1 s2 s3; do
    wait_until 60 "$n does not serve schema 5.0.0" has_version $n 5.0.0
    wait_until 30 "$n lost acknowledged rows" has_names $n acked
    wait_until 30 "$n did not settle" settled $n
done
echo PASS
