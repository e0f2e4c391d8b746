# tests/server/allocator-stats.sh: "memory/allocator-stats" names the
# allocator this build links (checked against ldd and nm), shows the built-in
# tuning, and contains that allocator's own report; a setting given in the
# environment overrides the built-in one and shows as such.
. "$OVSDB_SRCDIR/tests/server/lib.sh"

server=$(command -v ovsdb-server)
alloc_name=$(ovsdb-server --version | sed -n 's/^allocator: //p')
[ -n "$alloc_name" ] || fail "ovsdb-server --version names no allocator"
ldd "$server" >ldd.out || fail "ldd $server"
nm -D --defined-only "$server" >nm.out || fail "nm -D $server"
case $alloc_name in
    jemalloc-*) kind=jemalloc lib=libjemalloc ;;
    tcmalloc-*) kind=tcmalloc lib=libtcmalloc ;;
    glibc-*) kind=glibc lib= ;;
    *) fail "unknown allocator $alloc_name" ;;
esac
# A statically linked allocator shows as the program's own malloc, which
# libc and the shared libraries bind to; a shared one shows in ldd.
link=$(sed -n 's/^ALLOCATOR_LINK = //p' "$OVSDB_BUILDDIR/Makefile")
own_malloc=no
grep -Eq ' T malloc$' nm.out && own_malloc=yes
case $lib:$link in
    :) [ $own_malloc = no ] || fail "glibc build defines its own malloc" ;;
    *:static) [ $own_malloc = yes ] || fail "$alloc_name static build does not export malloc" ;;
    *:shared) grep -q "$lib" ldd.out || fail "$alloc_name build does not link $lib" ;;
    *) fail "unknown allocator link '$link'" ;;
esac
for l in libjemalloc libtcmalloc; do
    if [ "$l" != "$lib" ] || [ "$link" = static ]; then
        ! grep -q "$l" ldd.out || fail "$alloc_name $link build links $l"
    fi
done

# stats NAME: runs memory/allocator-stats on server NAME into NAME.stats.
stats() {
    ovs-appctl -t "$PWD/$1.ctl" memory/allocator-stats >"$1.stats" \
        || fail "memory/allocator-stats on $1"
}
# has FILE REGEX WHAT: FILE has a line matching extended REGEX.
has() {
    grep -Eq -- "$2" "$1" || { cat "$1"; fail "$1: no $3 ($2)"; }
}

start_server plain ovsdb-server ovsdb-tool
stats plain
has plain.stats "^allocator: $alloc_name\$" "allocator name"
for field in allocated active resident mapped retained "process RSS"; do
    has plain.stats "^  $field +[0-9]+\.[0-9] MB\$" "summary line $field"
done
has plain.stats '^  fragmentation ratio +[0-9]+\.[0-9]+ ' "fragmentation"
has plain.stats '^  returned to the kernel +[0-9]+\.[0-9] MB in [0-9]+ calls' \
    "bytes returned to the kernel"
case $kind in
    jemalloc)
        has plain.stats '^___ Begin jemalloc statistics ___$' "jemalloc report"
        has plain.stats '^--- End jemalloc statistics ---$' "end of report"
        has plain.stats '^  background_thread +true +built-in malloc_conf$' \
            "built-in background_thread"
        has plain.stats '^  narenas +1 +built-in malloc_conf$' \
            "built-in narenas"
        has plain.stats '^  dirty_decay_ms +3000 +built-in malloc_conf$' \
            "built-in dirty_decay_ms"
        has plain.stats '^  background_thread now +running ' \
            "running background thread"
        env_setting='MALLOC_CONF=dirty_decay_ms:4321,background_thread:false'
        ;;
    tcmalloc)
        has plain.stats '^MALLOC: +[0-9]+ \( *[0-9.]+ MiB\) Bytes in use by application$' \
            "tcmalloc report"
        has plain.stats '^  release_rate +1 +built-in$' "built-in release rate"
        has plain.stats '^  aggressive_memory_decommit +1 +built-in$' \
            "built-in aggressive decommit"
        env_setting='TCMALLOC_RELEASE_RATE=7 TCMALLOC_AGGRESSIVE_DECOMMIT=0'
        ;;
    glibc)
        has plain.stats '^<malloc version="1">$' "malloc_info() report"
        has plain.stats '^</malloc>$' "end of malloc_info()"
        has plain.stats '^  arena_max +1 +built-in mallopt$' "built-in arena_max"
        env_setting=MALLOC_ARENA_MAX=3
        ;;
esac

# memory/show keeps its one-line allocator form.
ovs-appctl -t "$PWD/plain.ctl" memory/show >show.out
has show.out "^allocator:$alloc_name allocated:[0-9]+ " "memory/show allocator line"
[ "$(wc -l <show.out)" -le 3 ] || fail "memory/show grew: $(cat show.out)"

# The environment wins over the built-in tuning.
export $env_setting   # one or more VAR=VALUE words
start_server tuned ovsdb-server ovsdb-tool
stats tuned
case $kind in
    jemalloc)
        has tuned.stats '^  dirty_decay_ms +4321 +environment MALLOC_CONF$' \
            "MALLOC_CONF dirty_decay_ms"
        has tuned.stats '^  background_thread +false +environment MALLOC_CONF$' \
            "MALLOC_CONF background_thread"
        has tuned.stats '^  narenas +1 +built-in malloc_conf$' \
            "built-in narenas kept"
        has tuned.stats 'opt\.dirty_decay_ms: 4321' \
            "jemalloc's own report of the override"
        has tuned.stats '^  background_thread now +stopped ' \
            "background thread turned off"
        ;;
    tcmalloc)
        has tuned.stats '^  release_rate +7 +environment TCMALLOC_RELEASE_RATE=7$' \
            "TCMALLOC_RELEASE_RATE"
        has tuned.stats '^  aggressive_memory_decommit +0 +environment TCMALLOC_AGGRESSIVE_DECOMMIT=0$' \
            "TCMALLOC_AGGRESSIVE_DECOMMIT"
        ;;
    glibc)
        has tuned.stats '^  arena_max +3 +environment MALLOC_ARENA_MAX=3$' \
            "MALLOC_ARENA_MAX"
        ;;
esac

# jemalloc stops its background thread in a fork's child: a detached
# server must have started it again.
if [ $kind = jemalloc ]; then
    unset MALLOC_CONF
    create_db ovsdb-tool detached.db "$SCHEMA"
    ovsdb-server detached.db --remote="punix:$PWD/detached.sock" \
        --unixctl="$PWD/detached.ctl" --pidfile="$PWD/detached.pid" \
        --detach --no-chdir --log-file="$PWD/detached.log" \
        || fail "ovsdb-server --detach"
    SERVER_PIDS="$SERVER_PIDS $(cat detached.pid)"
    stats detached
    has detached.stats '^  background_thread now +running ' \
        "background thread after --detach"
fi
echo "ok: $alloc_name"
