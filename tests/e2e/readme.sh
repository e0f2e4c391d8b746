# tests/e2e/readme.sh: the commands README.md shows under "Talking to it"
# (down to "Installing") work, in order, as written, against a server
# started the way ./run.sh starts it: they are read from README.md, so a
# command changed there is a command tested here.  A copy of the source
# tree's layout (run/, build/glibc -> this build, tests/) stands in for the
# top of the tree.  Lines needing a program that is not installed (Open
# vSwitch's ovs-vsctl, OVN's schema) are reported and left out.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"

top=$PWD/top
mkdir -p "$top/run" "$top/build"
ln -s "$OVSDB_BUILDDIR" "$top/build/glibc"
ln -s "$OVSDB_SRCDIR/tests" "$top/tests"
ln -s "$OVSDB_SRCDIR/ovsdb" "$top/ovsdb"

# The README's commands: the indented lines of the section.
python3 - "$OVSDB_SRCDIR/README.md" > commands <<'EOF'
import sys
text = open(sys.argv[1]).read()
section = text.split("## Talking to it", 1)[1].split("## Installing", 1)[0]
for line in section.splitlines():
    if line.startswith("    ") and line.strip():
        print(line[4:])
EOF
[ "$(wc -l < commands)" -ge 10 ] || fail "too few commands found: $(cat commands)"
grep -q "^ovsdb-appctl" commands || fail "the README shows no ovsdb-appctl"

# As ./run.sh does (its TCP port made free for this test).
port=$(free_port)
(cd "$top" && OVS_RUNDIR=$top/run exec "$OUR_TOOL" create run/example.db \
    ovsdb/schemas/example.ovsschema)
(cd "$top" && OVS_RUNDIR=$top/run exec "$OUR_SERVER" run/example.db \
    --remote=punix:db.sock --remote=ptcp:$port:127.0.0.1 --pidfile) \
    > server.out 2>&1 &
server=$!
wait_until 20 "the server did not start: $(cat server.out)" \
    test -S "$top/run/db.sock"

# The script: each command as written, stopping at the first failure; a
# monitor runs until it has shown the inserted row; after "exit" the
# server is gone before the next command.
python3 - commands "$OVSDB_SRCDIR" "$top" "$server" > script.sh <<'EOF'
import os, re, shlex, shutil, sys
commands, srcdir, top, server = sys.argv[1:]
print("set -e")
print(". %s" % shlex.quote(srcdir + "/tests/e2e/lib.sh"))
print("cd %s" % shlex.quote(top))
cluster = True
for line in open(commands).read().splitlines():
    prog = line.split()[0]
    bare = re.sub(r"\s+#.*$", "", line)        # without its comment
    if prog != "export" and not prog.startswith("ovsdb-") \
            and not shutil.which(prog):
        print("echo %s" % shlex.quote("left out (no %s): %s" % (prog, line)))
        continue
    if "ovn-nb.ovsschema" in line \
            and not os.path.exists("/usr/share/ovn/ovn-nb.ovsschema"):
        print("echo 'left out: no OVN schema'")
        cluster = False
    if ("nb.db" in line or "nb.pid" in line) and not cluster:
        continue
    print("echo %s" % shlex.quote("+ " + line))
    if " monitor " in line:
        print("(%s) > monitor.out 2>&1 &" % bare)
        print("wait_until 20 'the monitor showed no row' grep -q h1 monitor.out")
        print("kill $! 2>/dev/null || true")
    elif bare.startswith("ovsdb-appctl exit"):
        print(bare)
        print("wait_exit %s || fail 'the server did not exit'" % server)
    else:
        print(bare)
EOF
sh script.sh > script.out 2>&1 || {
    cat script.out
    fail "a README command failed (the last one above)"
}
cat script.out
grep -q '^+ ovsdb-appctl memory/show' script.out || fail "memory/show not run"
grep -q "cells" script.out || fail "memory/show printed nothing"
alive "$server" && fail "ovsdb-appctl exit left the server running"
echo PASS
