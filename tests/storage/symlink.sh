# tests/storage/symlink.sh: a database path that is a symbolic link, even
# one whose target does not exist yet (the conf.db layouts of Debian and
# Red Hat): ovsdb-tool and ovsdb-server work on the file it leads to, keep
# the lockfile and a compaction's temporary file beside that file, and
# leave the link in place, as the reference does.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
command -v ovs-appctl >/dev/null || skip "ovs-appctl not installed"
export OVS_RUNDIR=$PWD OVS_LOGDIR=$PWD
mkdir dir
ln -s dir/db db

# link_intact WHEN: db is still the link and dir/db a regular file.
link_intact() {
    [ -L db ] || fail "$1: db is no longer a symbolic link"
    expect_eq "$(readlink db)" dir/db "$1: link target"
    [ -f dir/db ] && [ ! -L dir/db ] || fail "$1: dir/db is not a file"
    if ls -a . | grep -q '\.tmp'; then
        fail "$1: temporary file beside the link: $(ls -a .)"
    fi
}

"$OUR_TOOL" create db "$SCHEMA" || fail "create through a dangling link"
link_intact create
[ -f dir/.db.~lock~ ] || fail "the lockfile is not beside the target"
run_txns "$OUR_TOOL" db
"$OUR_TOOL" query db '[{"op":"select","table":"Root","where":[],
    "columns":["name"]}]' >before.txt
"$OUR_TOOL" compact db || fail "compact"
link_intact compact
"$OUR_TOOL" query db '[{"op":"select","table":"Root","where":[],
    "columns":["name"]}]' >after.txt
diff -u before.txt after.txt || fail "compact changed contents"
"$OUR_TOOL" convert db "$SCHEMA2" || fail "convert"
link_intact convert

serve ours "$OUR_SERVER" db --unixctl="$PWD/ours.ctl"
"$OUR_CLIENT" transact "$SOCK" '["Store",{"op":"insert","table":"Root",
    "row":{"name":"online"}}]' >/dev/null || fail "transact"
ovs-appctl -t "$PWD/ours.ctl" ovsdb-server/compact \
    || fail "online compaction"
stop_server ours
link_intact "online compaction"
"$OUR_TOOL" query db '[{"op":"select","table":"Root","where":[["name",
    "==","online"]],"columns":["name"]}]' | grep -q online \
    || fail "the online transaction is not in the file"
echo "symbolic link: ok"
