#!/bin/sh
# tests/cluster/kill-roles.sh: kill -9 of each role under load.  Three
# writers, each starting on a different member and moving on when one
# fails or goes away, insert rows with unique names into a 3-member
# cluster of ours; the leader is killed, comes back and catches up; then a
# follower is killed and comes back.  Afterwards every member serves the
# same rows: every acknowledged name, no name twice, and no name that no
# writer tried.  tests/cluster/kill-mixed.sh runs it with reference
# members ($KINDS: one word, ours or ref, per member).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
command -v python3 >/dev/null || skip "no python3 for the test clients"
KINDS=${KINDS:-ours ours ours}
export LC_ALL=C     # sort and comm as the writer sorts
case $KINDS in *ref*) has_reference || skip "reference not installed" ;; esac
writers=
trap 'touch stop; kill_servers; for w in $writers; do kill $w; done
      2>/dev/null; true' EXIT

make_cluster $KINDS
leader=$(wait_leader 30 $all)
echo "members:$all ($KINDS), leader $leader"

# Three writers, each starting on its own member.
socks() {
    for _n in $all $all; do echo "$PWD/$_n.sock"; done | sed -n "$1,$(($1 + 2))p"
}
for w in 1 2 3; do
    : > w$w.acked
    $WRITER load w$w.acked stop 300 w$w $(socks $w) > writer.w$w.out 2>&1 &
    writers="$writers $!"
done
n_acked() { [ "$(cat *.acked | wc -l)" -ge "$1" ]; }
more_acked() {
    _base=$(cat *.acked | wc -l)
    wait_until 60 "no progress after $1 (at $_base acked)" \
        n_acked $((_base + 30))
}
more_acked "the start"

# kill_and_back NAME: kill -9 of NAME under the load, progress without it,
# then NAME comes back and rejoins.
kill_and_back() {
    kill_server $1
    _rest=
    for _n in $all; do [ $_n = $1 ] || _rest="$_rest $_n"; done
    _l=$(wait_leader 60 $_rest) || { show_logs $all; exit 1; }
    echo "killed $1 ($2); leader $_l"
    more_acked "killing $1 ($2)"
    for _n in $_rest; do
        eval "_lines_$_n=\$(wc -l < $_n.log)"
    done
    start_member $1 "$(prog_of $1)"
    wait_until 60 "$1 did not rejoin" is_member $1
    more_acked "restarting $1"
    # Nothing was compacted: appends alone bring it up to date, however
    # many pipelined appends it rejected while it was behind.
    _sid=$(appctl $1 cluster/sid $DB | cut -c1-4)
    for _n in $_rest; do
        [ "$(prog_of $_n)" = "$OUR_SERVER" ] || continue
        eval "_from=\$((_lines_$_n + 1))"
        if tail -n +$_from $_n.log | grep "sending snapshot to server $_sid"
        then
            fail "$_n sent a snapshot to $1, which only lagged"
        fi
    done
}
kill_and_back $leader leader
leader=$(wait_leader 30 $all)
for n in $all; do
    [ $n = $leader ] || follower=$n
done
kill_and_back $follower follower

touch stop
for w in $writers; do
    wait $w || { cat writer.w*.out; fail "a writer failed"; }
done
writers=
cat writer.w*.out
cat *.acked | sort > acked
cat *.acked.tried | sort > tried
[ -z "$(uniq -d tried)" ] || fail "a writer tried a name twice"

# Every member: the acknowledged rows, each once, nothing untried.
for n in $all; do
    wait_until 60 "$n did not settle" settled $n
    wait_until 60 "$n does not serve every acknowledged row" has_names $n acked
done
leader=$(wait_leader 30 $all)
# Wait until all the members apply the last index the leader has.
applied() { status "$1" | sed -n 's/^Log: \[\([0-9]*\), \([0-9]*\)\]$/\2/p'; }
same_log() {
    _want=$(applied $leader)
    for _n in $all; do [ "$(applied $_n)" = "$_want" ] || return 1; done
    for _n in $all; do settled $_n || return 1; done
}
wait_until 60 "the members do not reach the same log end" same_log
for n in $all; do
    names $n > final.$n || fail "names on $n"
    dup=$(uniq -d final.$n)
    [ -z "$dup" ] || fail "$n serves rows twice: $dup"
    lost=$(comm -23 acked final.$n)
    [ -z "$lost" ] || fail "$n lost acknowledged rows: $lost"
    extra=$(comm -13 tried final.$n)
    [ -z "$extra" ] || fail "$n serves rows nobody wrote: $extra"
    cmp -s final.s1 final.$n || fail "s1 and $n serve different rows"
done
echo "$(wc -l < acked) acknowledged, $(wc -l < tried) tried," \
    "$(wc -l < final.s1) rows on every member"
echo PASS
