#!/bin/sh
# tests/cluster/idl.sh: real IDL clients on a 3-member cluster of ours
# with the OVN Northbound schema: the Open vSwitch Python IDL (leader-only)
# and ovn-nbctl (which wants the leader), both given the list of all three
# members, write while the leader is killed with SIGKILL; both reconnect to
# another member and keep working, the killed member comes back and
# catches up, and every member serves every acknowledged row once.
# _Server.Database (model, connected, leader, index) on each member after
# each step, and at the end on a member left alone, and the shape of each
# member's cluster/status after each step (see status_shape in raft-lib),
# must read as on a reference cluster put through the same steps.
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/cluster/raft-lib"
DB=OVN_Northbound
SCHEMA=/usr/share/ovn/ovn-nb.ovsschema
export LC_ALL=C
[ -r $SCHEMA ] || skip "no OVN Northbound schema (ovn-common)"
NBCTL=$(command -v ovn-nbctl) || skip "ovn-nbctl not installed"
IDLPY=
for p in "$PYTHON" /usr/bin/python3; do
    if "$p" -c 'import ovs.db.idl' 2>/dev/null; then
        IDLPY=$p
        break
    fi
done
[ -n "$IDLPY" ] || skip "no python with the ovs module (python3-openvswitch)"
pids=
trap 'touch stop; kill_servers; for p in $pids; do kill $p; done
      2>/dev/null; true' EXIT

# server_rows NAMES...: each member's role and _Server.Database row, the
# index replaced by "=" when it is the same on all of NAMES.
server_rows() {
    _first=
    for _n in "$@"; do
        _role=$(status $_n | sed -n 's/^Role: //p')
        _row=$($WRITER server "$PWD/$_n.sock" $DB) || return 1
        _idx=${_row##* }
        [ -n "$_first" ] || _first=$_idx
        [ "$_idx" = "$_first" ] && _row="${_row% *} ="
        echo "$_role $_row"
    done | sort
}
# rows_settled FILE NAMES...: the members agree on one index; FILE gets
# their rows.
rows_settled() {
    _f=$1
    shift
    for _n in "$@"; do settled $_n || return 1; done
    server_rows "$@" > "$_f" || return 1
    [ "$(grep -c ' =$' "$_f")" = $# ] || return 1
    # The shape of cluster/status, the leader's first.
    _step=${_f#rows.}
    : > "status.$_step"
    for _n in "$@"; do
        status_shape $_n > "status.$_step.$_n"
        grep -q '^Role: leader$' "status.$_step.$_n" \
            && cat "status.$_step.$_n" >> "status.$_step"
    done
    for _n in "$@"; do
        grep -q '^Role: leader$' "status.$_step.$_n" \
            || cat "status.$_step.$_n"
    done | sort >> "status.$_step"
    # With every member up, settled also means connected both ways, with
    # no connection still being made ("(->id)"): either server shows those
    # for seconds after a member comes back.  (With one killed, the others
    # keep trying to reach it: "(->id)" is the settled state then.)
    case $_step in start|back) ;; *) return 0 ;; esac
    for _n in "$@"; do
        _c=$(grep '^Connections:' "status.$_step.$_n")
        case $_c in *'('*) return 1 ;; esac
        case $_c in *'->'*) ;; *) return 1 ;; esac
        case $_c in *'<-'*) ;; *) return 1 ;; esac
    done
}

# nbctl_loop ACKED STOP TAG: ovn-nbctl ls-add with a new name each time,
# on the list of every member, until STOP exists.
nbctl_loop() {
    _i=0
    until [ -e "$2" ]; do
        _i=$((_i + 1))
        echo "$3-$_i" >> "$1.tried"
        if "$NBCTL" --db="$remotes" --timeout=30 ls-add "$3-$_i" \
                2>>nbctl.err; then
            echo "$3-$_i" >> "$1"
        fi
    done
}
count() { cat "$@" 2>/dev/null | wc -l; }
both_more() {
    _nb=$(count nb.acked) _idl=$(count idl.acked)
    wait_until 60 "ovn-nbctl made no progress after $1" \
        eval '[ $(count nb.acked) -ge $((_nb + 5)) ]'
    wait_until 60 "the Python IDL made no progress after $1" \
        eval '[ $(count idl.acked) -ge $((_idl + 5)) ]'
}

# start_clients TAG: the Python IDL and ovn-nbctl loops, until
# stop_clients.
start_clients() {
    rm -f stop
    "$IDLPY" "$OVSDB_SRCDIR/tests/cluster/idl-client.py" $SCHEMA \
        "$remotes" idl.acked stop idl$1 >> idl.out 2>&1 &
    idl=$!
    nbctl_loop nb.acked stop nb$1 &
    nb=$!
    pids="$idl $nb"
}
stop_clients() {
    touch stop
    wait $nb
    wait $idl || { cat idl.out; fail "the Python IDL client failed"; }
    pids=
    cat idl.out
    echo "ovn-nbctl: $(count nb.acked) acknowledged in" \
        "$(count nb.acked.tried) attempts;" \
        "$(grep -c 'transaction error' nbctl.err) transaction errors," \
        "$(grep -c 'inconsistent IDL' nbctl.err) inconsistent-IDL resyncs"
    # A monitor of ours never sees a row the cluster has not decided (the
    # read barrier): the C IDL would find it inserted twice.
    [ "$kind" != ours ] || ! grep -q 'inconsistent IDL' nbctl.err \
        || fail "ovn-nbctl saw an inconsistent IDL: $(grep -m1 \
                 'inconsistent IDL' nbctl.err)"
}

# scenario KIND: the steps on a cluster of three KIND members, in ./KIND;
# leaves the _Server rows of each step in ./KIND/rows.*.
scenario() {
    kind=$1
    mkdir $1 && cd $1
    make_cluster $1 $1 $1
    leader=$(wait_leader 30 $all)
    wait_until 30 "no agreement on _Server" rows_settled rows.start $all
    : > idl.acked
    : > nb.acked
    : > nbctl.err
    remotes=
    for n in $all; do
        remotes="$remotes${remotes:+,}unix:$PWD/$n.sock"
    done
    start_clients a
    both_more "the start"

    kill_server $leader
    rest=
    for n in $all; do [ $n = $leader ] || rest="$rest $n"; done
    wait_leader 60 $rest > /dev/null
    both_more "the leader ($leader) was killed"
    stop_clients
    wait_until 30 "no agreement on _Server" rows_settled rows.killed $rest

    start_member $leader "$(prog_of $leader)"
    wait_until 60 "$leader did not rejoin" is_member $leader
    start_clients b
    both_more "$leader came back"
    stop_clients
    wait_leader 30 $all > /dev/null
    wait_until 60 "no agreement on _Server" rows_settled rows.back $all

    cat idl.acked nb.acked | sort > acked
    cat idl.acked.tried nb.acked.tried | sort > tried
    for n in $all; do
        wait_until 60 "$n does not serve every acknowledged row" \
            has_names_ls $n acked
        $WRITER names "$PWD/$n.sock" $DB Logical_Switch > final.$n
        dup=$(uniq -d final.$n)
        [ -z "$dup" ] || fail "$n serves rows twice: $dup"
        extra=$(comm -13 tried final.$n)
        [ -z "$extra" ] || fail "$n serves rows nobody wrote: $extra"
        cmp -s final.s1 final.$n || fail "s1 and $n serve different rows"
    done

    # Alone, a member is neither connected nor leader.
    leader=$(wait_leader 30 $all)
    for n in $all; do
        [ $n = $leader ] || { kill_server $n; lone=$n; }
    done
    kill_server $leader
    start_member $lone "$(prog_of $lone)"
    lone_rows() {
        server_rows $lone > rows.alone
        [ "$(cat rows.alone)" = "candidate clustered false false =" ]
    }
    wait_until 30 "$lone alone: $(cat rows.alone 2>/dev/null)" lone_rows
    kill_servers
    SERVER_PIDS=
    cd ..
}
has_names_ls() {
    $WRITER names "$PWD/$1.sock" $DB Logical_Switch > names.$1 2>/dev/null \
        && [ -z "$(comm -23 "$2" names.$1)" ]
}

scenario ours
for step in start killed back alone; do
    echo "ours, $step:"; cat ours/rows.$step
done
if has_reference; then
    scenario ref
    for step in start killed back alone; do
        cmp -s ours/rows.$step ref/rows.$step \
            || fail "_Server after $step: ours $(cat ours/rows.$step)," \
                    "reference $(cat ref/rows.$step)"
    done
    for step in start killed back; do
        diff ref/status.$step ours/status.$step \
            || fail "cluster/status after $step differs in shape (above)"
    done
else
    echo "reference not installed: _Server not compared"
fi
echo PASS
