#!/bin/sh
# tests/cluster/join-progress.sh: a joining member run in the foreground
# on a terminal shows its catch-up ("ovsdb-server: catching up with the
# cluster N% (I entries of C entries)", lib/progress.h) and erases it once
# the leader has added it; a joining member whose standard error is a file
# prints nothing of the kind.  Two of our servers on tcp:127.0.0.1: s1, a
# cluster of one with $ENTRIES committed entries; s2 joins under a
# pseudo-terminal (tests/ttyrun.py), s3 joins with its output redirected.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
tty=
trap 'kill_servers; [ -n "$tty" ] && kill $tty 2>/dev/null; true' EXIT
ENTRIES=2000

create_first s1 "$OUR_TOOL"
start_member s1 "$OUR_SERVER"
wait_until 30 "s1 never became leader" has_role s1 leader
$PYTHON - "$PWD/s1.sock" "$ENTRIES" <<'PY' || fail "loading $ENTRIES entries"
import sys, rpc
c = rpc.Client("unix:" + sys.argv[1], timeout=300)
n, sent, done = int(sys.argv[2]), 0, 0
while done < n:
    while sent < n and sent - done < 50:
        c.send({"id": sent, "method": "transact", "params": ["Store", {
            "op": "insert", "table": "Root", "row": {"name": "r%d" % sent}}]})
        sent += 1
    r = c.recv()
    if r.get("error") is not None or any("error" in x for x in r["result"]):
        raise SystemExit("transaction failed: %s" % r)
    done += 1
PY
wait_until 60 "s1 did not settle" settled s1

# s2 on a terminal, in the foreground until told to exit.
create_joiner s2 "$OUR_TOOL" s1
$PYTHON "$OVSDB_SRCDIR/tests/ttyrun.py" s2.tty "$OUR_SERVER" s2.db \
    --remote="punix:$PWD/s2.sock" --unixctl="$PWD/s2.ctl" \
    --log-file="$PWD/s2.log" &
tty=$!
wait_until 60 "s2 never joined" is_member s2
wait_until 60 "s2 did not settle" settled s2
appctl s2 exit || fail "s2 did not take exit"
wait $tty || fail "s2 on the terminal exited with an error: $(cat -v s2.tty)"
tty=
grep -q "ovsdb-server: catching up with the cluster 100% ([0-9]* entries of [0-9]* entries)" \
    s2.tty || fail "no catch-up progress on the terminal: $(cat -v s2.tty)"
# Erased: after the last progress line, a carriage return, spaces and a
# carriage return.
tr '\r' '\n' < s2.tty | grep -n "catching up" | tail -1 > last
line=$(cut -d: -f1 last)
rest=$(tr '\r' '\n' < s2.tty | sed -n "$((line + 1))p")
[ -z "$(echo "$rest" | tr -d ' ')" ] \
    || fail "the progress line was not erased: $(cat -v s2.tty)"

# s3 with its output in a file: no progress there.
create_joiner s3 "$OUR_TOOL" s1
start_member s3 "$OUR_SERVER"
wait_until 60 "s3 never joined" is_member s3
! grep -q "catching up" s3.stderr || fail "progress written to a file"
[ "$(names s3 | wc -l)" = $ENTRIES ] || fail "s3 lacks rows"
echo ok
