# tests/cluster/tool-interop.sh: clustered files made by our ovsdb-tool
# (create-cluster, with and without --election-timer; join-cluster, with
# and without --cid) and by the reference's read the same in both tools
# (show-log at every verbosity, db-cid, db-sid, db-local-address, db-name,
# db-is-clustered, db-is-standalone, check-cluster), are byte for byte the
# reference's but for ids, and the commands' errors are the reference's.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/lib.sh"
[ -x "$REF_OVSDB_TOOL" ] || skip "reference ovsdb-tool not installed"
command -v python3 >/dev/null || skip "no python3"

"$TOOL" --help | grep -q -- "--election-timer" \
    || fail "--help does not mention --election-timer (ovn-ctl greps it)"
"$REF_OVSDB_TOOL" --help | grep -v -e '^Logging options' -e '^  -v' \
    -e '--verbose' -e '--log-file' -e 'syslog' -e '(default:' \
    -e 'ROLE' > help.ref
"$TOOL" --help | grep -v -e 'ROLE' > help.ours
sed -n '/^usage/,/^The default SCHEMA/p' help.ref > usage.ref
sed -n '/^usage/,/^The default SCHEMA/p' help.ours > usage.ours
diff -u usage.ref usage.ours || fail "--help command list differs"

# Each tool creates a file of each shape; both tools read all of them.
for who in ref ours; do
    case $who in ref) T=$REF_OVSDB_TOOL ;; ours) T=$TOOL ;; esac
    "$T" create-cluster $who-c.db "$SCHEMA" tcp:127.0.0.1:6641 \
        2> $who-c.err || fail "$who create-cluster"
    "$T" --election-timer=2500 create-cluster $who-t.db "$SCHEMA" \
        unix:$PWD/raft.sock 2>/dev/null || fail "$who create-cluster timer"
    "$T" join-cluster $who-j.db Store tcp:127.0.0.1:6641 \
        tcp:127.0.0.1:6642 tcp:10.0.0.3:6643 ssl:[::1]:6644 \
        tcp:127.0.0.1:6645 unix:foo tcp:127.0.0.1:6642 \
        || fail "$who join-cluster"
    "$T" --cid=0ac52ee5-4dda-4759-8562-1f06c6b0cc44 join-cluster $who-k.db \
        Store ssl:127.0.0.1:6641 ssl:127.0.0.1:6642 \
        || fail "$who join-cluster --cid"
    "$T" create $who-s.db "$SCHEMA"
    run_txns "$T" $who-s.db
    "$T" create-cluster $who-d.db $who-s.db tcp:127.0.0.1:6641 \
        2>/dev/null || fail "$who create-cluster from a database"
done
sed 's/^[0-9T:.-]*Z|[0-9]*|/TIME|/' ref-c.err > ref-c.err.masked
sed 's/^[0-9T:.-]*Z|[0-9]*|/TIME|/' ours-c.err > ours-c.err.masked
diff -u ref-c.err.masked ours-c.err.masked \
    || fail "create-cluster's ephemeral-column warning differs"

for shape in c t j k; do
    mask_file ref-$shape.db > ref-$shape.masked
    mask_file ours-$shape.db > ours-$shape.masked
    diff -u ref-$shape.masked ours-$shape.masked \
        || fail "file $shape differs from the reference's (ids masked)"
done
for f in ref-c.db ours-c.db ref-t.db ours-t.db ref-j.db ours-j.db \
         ref-k.db ours-k.db ref-d.db ours-d.db ref-s.db; do
    read_all_both $f
done
expect_eq "$("$TOOL" db-cid ours-k.db)" 0ac52ee5-4dda-4759-8562-1f06c6b0cc44 \
    "--cid"
expect_eq "$("$REF_OVSDB_TOOL" db-local-address ours-t.db)" \
    "unix:$PWD/raft.sock" "local address"
expect_eq "$("$REF_OVSDB_TOOL" db-sid ours-c.db)" \
    "$(sed -n 's/.*"server_id":"\([^"]*\)".*/\1/p' ours-c.db)" "db-sid"

# The contents of a database made into a cluster, by both tools.
for f in ref-d.db ours-d.db; do
    expect_eq "$(cdump "$TOOL" $f)" "$(cdump "$REF_OVSDB_TOOL" $f)" \
        "cluster-to-standalone of $f"
    expect_eq "$(cdump "$TOOL" $f --mask)" \
        "$(dump "$TOOL" ref-s.db --mask)" "contents of $f"
done

# Errors, with the reference's words and statuses (each in a fresh name).
made() { ls e[0-9]*.db 2>/dev/null || true; }
err_both() {
    rm -f e[0-9]*.db
    "$REF_OVSDB_TOOL" "$@" > out.ref 2> err.ref && rc_ref=0 || rc_ref=$?
    ref_made=$(made)
    rm -f e[0-9]*.db
    "$TOOL" "$@" > out.ours 2> err.ours && rc=0 || rc=$?
    ours_made=$(made)
    expect_eq "$rc" "$rc_ref" "exit status of $*"
    expect_eq "$ours_made" "$ref_made" "file made by $*"
    expect_eq "$(cat out.ours)" "$(cat out.ref)" "stdout of $*"
    # The reference also logs why an address does not parse (module
    # socket_util, at "err"); we do not.
    expect_eq "$(sed 's/^[0-9T:.-]*Z|[0-9]*|/TIME|/' err.ours)" \
        "$(sed -e 's/^[0-9T:.-]*Z|[0-9]*|/TIME|/' -e '/|socket_util|/d' \
           err.ref)" "stderr of $*"
}
err_both create-cluster e1.db "$SCHEMA" tcp:127.0.0.1
err_both create-cluster e2.db "$SCHEMA" tcp:127.0.0.1:99999 2>/dev/null
err_both create-cluster e3.db "$SCHEMA" udp:1.2.3.4:5
err_both create-cluster e4.db /nonexistent tcp:1.2.3.4:5
err_both create-cluster ref-c.db "$SCHEMA" tcp:1.2.3.4:5
err_both create-cluster e6.db "$SCHEMA"
err_both --election-timer=99 create-cluster e7.db "$SCHEMA" tcp:1.2.3.4:5
err_both --election-timer=600001 create-cluster e8.db "$SCHEMA" \
    tcp:1.2.3.4:5
err_both --election-timer=abc create-cluster e9.db "$SCHEMA" tcp:1.2.3.4:5
err_both --election-timer=600000 create-cluster e10.db "$SCHEMA" \
    tcp:1.2.3.4:5
# ovs-lib runs "ovsdb-tool -vconsole:off create-cluster": no warning.
err_both -vconsole:off create-cluster e20.db "$SCHEMA" tcp:1.2.3.4:5
err_both join-cluster e11.db 1Store tcp:1.2.3.4:5 tcp:1.2.3.4:6
err_both join-cluster e12.db Store tcp:1.2.3.4:5 tcp:1.2.3.4:5
err_both join-cluster e13.db Store tcp:1.2.3.4:5 bogus:1
err_both join-cluster e14.db Store tcp:1.2.3.4:5
err_both --cid=nonsense join-cluster e15.db Store tcp:1.2.3.4:5 \
    tcp:1.2.3.4:6
err_both --cid=00000000-0000-0000-0000-000000000000 join-cluster e16.db \
    Store tcp:1.2.3.4:5 tcp:1.2.3.4:6
err_both db-cid ref-j.db
err_both db-cid ref-s.db
err_both db-sid ref-s.db
err_both db-local-address ref-s.db
err_both db-cid /nonexistent
err_both db-is-clustered /nonexistent
err_both check-cluster ref-s.db
err_both check-cluster ref-c.db ours-c.db
err_both check-cluster ref-c.db ref-c.db
err_both check-cluster ref-j.db
err_both check-cluster ref-c.db ref-j.db
: > empty.db
err_both check-cluster empty.db
err_both db-is-clustered empty.db
err_both show-log empty.db
err_both cluster-to-standalone e30.db ref-s.db
err_both cluster-to-standalone e31.db ref-j.db
err_both cluster-to-standalone ref-s.db ref-c.db
echo PASS
