# tests/storage/progress.sh: long work shows progress on a terminal and
# nothing anywhere else (lib/progress.h).  ovsdb-tool compact, convert and
# cluster-to-standalone and ovsdb-client backup and restore, run under a
# pseudo-terminal, draw "LABEL: STEP ...%" lines on it and erase them;
# the same commands with output redirected print exactly what they printed
# before (nothing for the tool), and both runs write the same files.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
B=$OVSDB_BUILDDIR/ovsdb
SCHEMA=$OVSDB_SRCDIR/ovsdb/schemas/example.ovsschema

# on_tty OUT PROGRAM ARG...: runs PROGRAM on a pseudo-terminal, what it
# wrote there in OUT.
on_tty() {
    python3 "$OVSDB_SRCDIR/tests/ttyrun.py" "$@"
}
clean_db() {
    sed -e 's/^\(OVSDB JSON [0-9]*\).*/\1/' -e 's/"_date":[0-9]*/"_date":0/' \
        "$1"
}

# A database of 4,000 rows, in 20 transactions.
"$B/ovsdb-tool" create db "$SCHEMA"
python3 - <<'EOF'
import json
for k in range(20):
    ops = [{"op": "insert", "table": "Host",
            "row": {"name": "h%d_%d" % (k, i),
                    "external_ids": ["map", [["k%d" % j, "v" * 40]
                                             for j in range(4)]]}}
           for i in range(200)]
    open("t%d.json" % k, "w").write(json.dumps(["Example"] + ops))
EOF
for k in $(seq 0 19); do
    "$B/ovsdb-tool" transact db "$(cat t$k.json)" >/dev/null
done

# compact: on a terminal, then redirected.
on_tty tty.out "$B/ovsdb-tool" compact db db.tty || fail "compact on a tty"
grep -q "compact: reading 100%" tty.out || fail "no reading progress: $(cat -v tty.out)"
grep -q "compact: writing 100% (4000 rows of 4000 rows)" tty.out ||
    fail "no writing progress: $(cat -v tty.out)"
# Erased at the end: the last thing on the line is a carriage return.
[ "$(tail -c 1 tty.out | od -An -c | tr -d ' ')" = '\r' ] ||
    fail "the progress line was left on the terminal"
"$B/ovsdb-tool" compact db db.plain > plain.out 2> plain.err ||
    fail "compact redirected"
[ ! -s plain.out ] && [ ! -s plain.err ] ||
    fail "compact printed something when not on a terminal"
clean_db db.tty > a
clean_db db.plain > b
cmp -s a b || fail "compact wrote another file on a terminal"

# convert: the same schema is enough to convert every row.
on_tty tty.out "$B/ovsdb-tool" convert db "$SCHEMA" db.conv ||
    fail "convert on a tty"
grep -q "convert: converting 100% (4000 rows" tty.out ||
    fail "no converting progress: $(cat -v tty.out)"
"$B/ovsdb-tool" convert db "$SCHEMA" db.conv2 2> plain.err ||
    fail "convert redirected"
[ ! -s plain.err ] || fail "convert printed progress when redirected"

# cluster-to-standalone.
"$B/ovsdb-tool" create-cluster cdb db.plain unix:"$PWD/raft.sock"
on_tty tty.out "$B/ovsdb-tool" cluster-to-standalone sdb cdb ||
    fail "cluster-to-standalone on a tty"
grep -q "cluster-to-standalone: reading 100%" tty.out ||
    fail "no progress: $(cat -v tty.out)"

# ovsdb-client backup and restore, against a server.
"$B/ovsdb-server" db.plain --remote=punix:"$PWD/db.sock" --no-chdir \
    --unixctl="$PWD/ctl" --pidfile="$PWD/pid" --detach 2>err ||
    fail "server: $(cat err)"
trap 'kill $(cat pid 2>/dev/null) 2>/dev/null || true' EXIT
wait_until 20 "no socket" test -S db.sock
# Redirected first: the restore below gives the rows new UUIDs.
"$B/ovsdb-client" backup unix:"$PWD/db.sock" Example > backup.plain \
    2> plain.err || fail "backup redirected"
[ ! -s plain.err ] || fail "backup printed progress when redirected"
python3 - "$B/ovsdb-client" "$PWD/db.sock" <<'EOF'
import sys
import ttyrun
client, sock = sys.argv[1:]
# Backup to a file (stdout must stay the backup), then restore from it.
data, _ = ttyrun.run([client, "backup", "unix:" + sock, "Example"],
                     stdout="backup.tty")
if b"backup: receiving" not in data:
    sys.exit("backup drew no progress: %r" % data[:300])
data, _ = ttyrun.run([client, "restore", "unix:" + sock, "Example"],
                     stdin="backup.tty")
if b"restore: reading 100%" not in data or b"restore: sending" not in data:
    sys.exit("restore drew no progress: %r" % data[:300])
EOF
[ $? = 0 ] || fail "backup/restore on a terminal"
clean_db backup.tty > a
clean_db backup.plain > b
cmp -s a b || fail "the backup made on a terminal differs"
echo PASS
