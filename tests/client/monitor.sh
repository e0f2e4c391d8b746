# tests/client/monitor.sh: "monitor" and "monitor-cond" print the same
# initial contents and updates as the reference ovsdb-client, in several
# formats, with column groups and !flags.
#
# Each monitor runs with --detach, which returns once the initial contents
# are printed; then transactions change the data; the outputs are compared
# with UUIDs and times masked and the rows of each update sorted (the
# reference prints them in hash order).
. "$OVSDB_SRCDIR/tests/e2e/lib.sh"
. "$OVSDB_SRCDIR/tests/client/lib.sh"

has_reference || skip "reference ovsdb-client not installed"

start_test_server "$SCHEMAS/types.ovsschema" "$SCHEMAS/refs.ovsschema"
S=$SOCK

"$REF_OVSDB_CLIENT" transact "$S" '["Types",
  {"op":"insert","table":"T","row":{"i":1,"s":"one","iset":["set",[1]]}},
  {"op":"insert","table":"T","row":{"i":2,"s":"two words"}}]' >/dev/null
"$REF_OVSDB_CLIENT" transact "$S" '["Refs",
  {"op":"insert","table":"Child","row":{"name":"c0"}}]' >/dev/null

n=0
monitors=
# start NAME ARGS...: starts a detached monitor with both clients.
start() {
    name=$1
    shift
    for who in our ref; do
        if [ $who = our ]; then bin=$OUR_CLIENT; else bin=$REF_OVSDB_CLIENT; fi
        "$bin" --detach --no-chdir --pidfile="$PWD/$name.$who.pid" "$@" \
            >"$name.$who.out" 2>"$name.$who.err" \
            || fail "$who $name: $(cat "$name.$who.err")"
        server_pids="$server_pids $(cat "$name.$who.pid")"
    done
    monitors="$monitors $name"
}

start table monitor "$S" Types T i,s,iset
start stamp --timestamp monitor "$S" Types T i,s
start json -f json monitor "$S" Types T i,s
start csv -f csv monitor "$S" Types T 'i,!delete' 's,!insert'
start list -f list monitor "$S" Types T 'i,!initial,!modify'
start all monitor "$S" Types T
start html --timestamp -f html monitor "$S" Types T 'i,s' 'iset,!insert'
start nohead --no-headings -d bare monitor-cond "$S" Types '[]' T i,sset
start allt monitor "$S" Refs ALL
start cond monitor-cond "$S" Types '[["i","==",7]]' T i,s,iset
start cond-json -f json monitor-cond "$S" Types '[["i",">=",2]]' T i,s
start cond-true monitor-cond "$S" Types '[true]' T 's,!initial'
start since monitor-cond-since "$S" Types '[]' T i,s
start since-id -f csv monitor-cond-since "$S" Types \
    00000000-0000-0000-0000-000000000000 '[["i","<",10]]' T 'i,s,!delete'

"$REF_OVSDB_CLIENT" transact "$S" '["Types",
  {"op":"insert","table":"T","row":{"i":7,"s":"new","iset":["set",[1,2]]}}]' \
    >/dev/null
"$REF_OVSDB_CLIENT" transact "$S" '["Types",
  {"op":"update","table":"T","where":[["i","==",7]],
   "row":{"s":"changed","iset":["set",[2,3]]}}]' >/dev/null
"$REF_OVSDB_CLIENT" transact "$S" '["Types",
  {"op":"mutate","table":"T","where":[],
   "mutations":[["i","+=",10]]}]' >/dev/null
"$REF_OVSDB_CLIENT" transact "$S" '["Types",
  {"op":"delete","table":"T","where":[["i","==",17]]}]' >/dev/null
"$REF_OVSDB_CLIENT" transact "$S" '["Refs",
  {"op":"insert","table":"Child","row":{"name":"c1"},"uuid-name":"c"},
  {"op":"insert","table":"Root","row":{"name":"r1",
     "children":["named-uuid","c"]}}]' >/dev/null

# Wait until every output has the same number of lines for both clients.
i=0
while :; do
    settled=true
    for m in $monitors; do
        [ "$(wc -l <"$m.our.out")" = "$(wc -l <"$m.ref.out")" ] \
            || settled=false
    done
    $settled && break
    i=$((i + 1))
    [ $i -lt 50 ] || break
    sleep 0.1
done
stop_servers

for m in $monitors; do
    case $m in
        *json*) sorter=sort_json_rows ;;
        *) sorter=sort_blocks ;;
    esac
    mask "$m.our.out" | $sorter >"$m.our.m"
    mask "$m.ref.out" | $sorter >"$m.ref.m"
    compare_files "$m" "$m.ref.m" "$m.our.m"
    [ -s "$m.our.m" ] || fail "$m: no output"
    echo "same: $m ($(wc -l <"$m.our.m") lines)"
done
