# tests/cluster/ref-server.sh: the reference ovsdb-server serves a
# one-member cluster made by each tool and commits transactions to it
# (entries, votes, leader and commit index records).  Both tools read the
# result the same way; cluster-to-standalone by each gives the same data,
# and so does our ovsdb/format/cluster-file's replay; our compaction of the file
# (cluster_file_save_snapshot()) is accepted by the reference's tools and
# server, which goes on committing to it, and both tools still agree.
# An online conversion (an entry with a schema) replays to the new
# schema.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/storage/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/lib.sh"
need_ref_server

# The same transactions on a standalone file, for the expected contents.
"$TOOL" create expected.db "$SCHEMA"
run_txns "$TOOL" expected.db
# Clusters keep ephemeral columns ("scratch" is saved there, not in a
# standalone file), so that column is left out of the comparison.
noscratch() { sed 's/"scratch": "[^"]*", //g'; }
dump "$TOOL" expected.db --mask | noscratch > expected.txt

for who in ours ref; do
    case $who in ref) T=$REF_OVSDB_TOOL ;; ours) T=$TOOL ;; esac
    cdb=$who.db
    "$T" create-cluster $cdb "$SCHEMA" unix:$PWD/raft-$who.sock 2>/dev/null
    serve_ref $cdb
    run_txns via_client db.sock
    stop_ref

    read_all_both $cdb
    expect_eq "$(cdump "$TOOL" $cdb)" "$(cdump "$REF_OVSDB_TOOL" $cdb)" \
        "$who: cluster-to-standalone, ours vs the reference's"
    cdump "$TOOL" $cdb --mask | noscratch > got.txt
    grep -q '"scratch": "not saved"' cdump.db || grep -q 'not saved' cdump.db \
        || fail "$who: the ephemeral column was not kept"
    diff -u expected.txt got.txt || fail "$who: contents"
    rm -f replay.db
    "$UTIL" replay $cdb replay.db > replay.out
    [ ! -s replay.out ] || fail "$who: replay: $(cat replay.out)"
    expect_eq "$(dump "$TOOL" replay.db)" "$(cdump "$TOOL" $cdb)" \
        "$who: cluster-file replay vs cluster-to-standalone"
    grep -q '"commit_index"' $cdb || fail "$who: no commit index record"
    grep -q '"leader"' $cdb || fail "$who: no leader record"
    set -- $("$UTIL" state $cdb)
    # term T vote V commit C log S..E timer MS: everything is committed.
    last=${8#*..}
    expect_eq "$6" $((last - 1)) "$who: commit index vs log end"

    # An online conversion: an entry with a schema.  (Both tools'
    # cluster-to-standalone drop the new schema, as the reference does;
    # the replay applies it.)
    serve_ref $cdb
    "$REF_OVSDB_CLIENT" convert unix:$PWD/db.sock "$SCHEMA2" \
        || fail "$who: convert"
    stop_ref
    read_all_both $cdb
    rm -f replay.db
    "$UTIL" replay $cdb replay.db
    expect_eq "$("$TOOL" db-version replay.db)" \
        "$("$TOOL" schema-version "$SCHEMA2")" "$who: replay of a conversion"
    expect_eq "$(cdump "$TOOL" $cdb)" "$(cdump "$REF_OVSDB_TOOL" $cdb)" \
        "$who: cluster-to-standalone after a conversion"

    # Our compaction, then the reference again, then both tools.
    cp $cdb before.db
    "$UTIL" compact $cdb
    [ $(grep -c '^OVSDB CLUSTER' $cdb) -lt $(grep -c '^OVSDB CLUSTER' before.db) ] \
        || fail "$who: compaction did not shrink the log"
    read_all_both $cdb
    expect_eq "$(cdump "$REF_OVSDB_TOOL" $cdb)" "$(dump "$TOOL" replay.db)" \
        "$who: contents after compaction"
    serve_ref $cdb
    via_client transact db.sock '["Store",{"op":"insert","table":"Root",
        "row":{"name":"after-compaction"}}]' > txn.out
    grep -q uuid txn.out || fail "$who: commit after compaction: $(cat txn.out)"
    stop_ref
    read_all_both $cdb
    cdump "$REF_OVSDB_TOOL" $cdb | grep -q after-compaction \
        || fail "$who: the reference's commit after our compaction"
    expect_eq "$(cdump "$TOOL" $cdb)" "$(cdump "$REF_OVSDB_TOOL" $cdb)" \
        "$who: cluster-to-standalone after compaction"
    rm -f replay.db
    "$UTIL" replay $cdb replay.db
    expect_eq "$(dump "$TOOL" replay.db)" "$(cdump "$TOOL" $cdb)" \
        "$who: replay after compaction"
done
echo PASS
