/* tests/unit/raft/test-raft-conn.c: tests for ovsdb/raft/raft-conn.
 *
 * Several 'struct raft_conns' in one process, on unix sockets in a
 * temporary directory: greetings, learning peers, replies over incoming
 * connections, per-peer queues, cluster checks, retain.  (Interoperation
 * with the reference is tests/cluster/raft-conn.sh.) */
#include <config.h>
#include "ovsdb/raft/raft-conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/poll-loop.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "ovsdb/raft/raft-rpc.h"
#include "tests/unit/check.h"

#define N_SERVERS 4
static struct raft_conns *servers[N_SERVERS];
static struct uuid sids[N_SERVERS];
static char *addresses[N_SERVERS];

/* Runs every server for up to 'ms' milliseconds.  If 'rpc' is nonnull,
 * stops at the first message server 'dst' receives, stores it in '*rpc'
 * (caller uninits) and returns 1, or returns 0 at the deadline.  If 'rpc'
 * is null, runs until the deadline and returns how many messages 'dst'
 * received.  Other servers' messages are dropped. */
static int
pump(int dst, union raft_rpc *rpc, int ms)
{
    long long deadline = time_msec() + ms;
    int n = 0;
    while (time_msec() < deadline) {
        for (int i = 0; i < N_SERVERS; i++) {
            if (!servers[i]) {
                continue;
            }
            raft_conns_run(servers[i]);
            union raft_rpc msg;
            while (raft_conns_recv(servers[i], &msg)) {
                if (i == dst && rpc) {
                    *rpc = msg;
                    return 1;
                }
                n += i == dst;
                raft_rpc_uninit(&msg);
            }
            raft_conns_wait(servers[i]);
        }
        poll_timer_wait(20);
        poll_block();
    }
    return n;
}

static bool
wait_for_message(int dst, union raft_rpc *rpc)
{
    return pump(dst, rpc, 5000) == 1;
}

static int
run_for(int dst, int ms)
{
    return pump(dst, NULL, ms);
}

static void
make_become_leader(union raft_rpc *rpc, int to, uint64_t term)
{
    memset(rpc, 0, sizeof *rpc);
    rpc->type = RAFT_RPC_BECOME_LEADER;
    rpc->common.to = sids[to];
    rpc->become_leader.term = term;
}

static char *
format(int i)
{
    struct ds s;
    ds_init(&s);
    raft_conns_format(servers[i], &s);
    return ds_steal_cstr(&s);
}

static char *dir;
static struct uuid cid, other_cid;

static char *case_dir;

/* Creates the servers, on sockets in a fresh directory: a, b and c are
 * members; d belongs to another cluster. */
static void
create_servers(void)
{
    static int n_cases;
    case_dir = xasprintf("%s/%d", dir, ++n_cases);
    CHECK(!mkdir(case_dir, 0700));
    for (int i = 0; i < N_SERVERS; i++) {
        uuid_generate(&sids[i]);
        addresses[i] = xasprintf("unix:%s/%c.sock", case_dir, 'a' + i);
    }
    for (int i = 0; i < 3; i++) {
        servers[i] = raft_conns_create(&sids[i], &cid, addresses[i]);
    }
    servers[3] = raft_conns_create(&sids[3], &other_cid, addresses[3]);
}

static void
destroy_servers(void)
{
    for (int i = 0; i < N_SERVERS; i++) {
        raft_conns_destroy(servers[i]);
        servers[i] = NULL;
        free(addresses[i]);
        addresses[i] = NULL;
    }
    rmdir(case_dir);
    free(case_dir);
}

/* a dials b without knowing its ID: b gets a hello and learns a. */
static void
test_hello(void)
{
    union raft_rpc rpc;
    create_servers();
    raft_conns_connect(servers[0], addresses[1], NULL);
    CHECK(wait_for_message(1, &rpc));
    CHECK_INTEQ(rpc.type, RAFT_RPC_HELLO_REQUEST);
    CHECK(uuid_equals(&rpc.common.from, &sids[0]));
    CHECK(uuid_equals(&rpc.common.cid, &cid));
    CHECK(uuid_is_zero(&rpc.common.to));
    CHECK_STREQ(rpc.hello_request.address, addresses[0]);
    raft_rpc_uninit(&rpc);
    CHECK(raft_conns_is_connected(servers[1], &sids[0]));
    destroy_servers();
}

/* a dials b without knowing its ID; b answers over the connection a
 * made, and a learns b's ID from it. */
static void
connect_a_to_b(void)
{
    union raft_rpc rpc;
    raft_conns_connect(servers[0], addresses[1], NULL);
    CHECK(wait_for_message(1, &rpc));
    raft_rpc_uninit(&rpc);

    make_become_leader(&rpc, 0, 3);
    CHECK(raft_conns_send(servers[1], &rpc));
    CHECK(wait_for_message(0, &rpc));
    CHECK_INTEQ(rpc.type, RAFT_RPC_BECOME_LEADER);
    CHECK(uuid_equals(&rpc.common.from, &sids[1]));
    CHECK(rpc.become_leader.term == 3);
    raft_rpc_uninit(&rpc);
    CHECK(raft_conns_is_connected(servers[0], &sids[1]));
}

/* b answers over the connection a made; a learns b's ID from it. */
static void
test_reply_over_incoming(void)
{
    create_servers();
    connect_a_to_b();
    char *s = format(0);
    CHECK_STREQ(s, " ->b");
    free(s);
    s = format(1);
    CHECK_STREQ(s, " <-a");
    free(s);
    destroy_servers();
}

/* b queues a message for c, which it cannot reach yet; c dials b,
 * greeting it as a joiner: b gets add_server_request, and c then gets
 * what b queued for it. */
static void
test_joiner_gets_queue(void)
{
    union raft_rpc rpc;
    create_servers();
    make_become_leader(&rpc, 2, 9);
    CHECK(!raft_conns_send(servers[1], &rpc));

    raft_conns_set_greeting(servers[2], RAFT_CONN_JOINING);
    raft_conns_connect(servers[2], addresses[1], &sids[1]);
    CHECK(wait_for_message(1, &rpc));
    CHECK_INTEQ(rpc.type, RAFT_RPC_ADD_SERVER_REQUEST);
    CHECK(uuid_is_zero(&rpc.common.to));
    CHECK_STREQ(rpc.add_server_request.address, addresses[2]);
    raft_rpc_uninit(&rpc);
    CHECK(wait_for_message(2, &rpc));
    CHECK_INTEQ(rpc.type, RAFT_RPC_BECOME_LEADER);
    CHECK(rpc.become_leader.term == 9);
    raft_rpc_uninit(&rpc);
    destroy_servers();
}

/* A leaving server greets with remove_server_request for itself; the
 * hello of a known peer names it in "to". */
static void
test_leaving_and_known_peer(void)
{
    union raft_rpc rpc;
    create_servers();
    raft_conns_set_greeting(servers[0], RAFT_CONN_LEAVING);
    raft_conns_connect(servers[0], addresses[2], &sids[2]);
    CHECK(wait_for_message(2, &rpc));
    CHECK_INTEQ(rpc.type, RAFT_RPC_REMOVE_SERVER_REQUEST);
    CHECK(uuid_equals(&rpc.common.to, &sids[2]));
    CHECK(uuid_equals(&rpc.remove_server_request.server_id, &sids[0]));
    raft_rpc_uninit(&rpc);
    raft_conns_set_greeting(servers[0], RAFT_CONN_HELLO);
    raft_conns_disconnect(servers[0], addresses[2]);
    raft_conns_connect(servers[0], addresses[2], &sids[2]);
    CHECK(wait_for_message(2, &rpc));
    CHECK_INTEQ(rpc.type, RAFT_RPC_HELLO_REQUEST);
    CHECK(uuid_equals(&rpc.common.to, &sids[2]));
    raft_rpc_uninit(&rpc);
    destroy_servers();
}

/* d is in another cluster: b drops its hello and what follows. */
static void
test_other_cluster(void)
{
    union raft_rpc rpc;
    create_servers();
    raft_conns_connect(servers[3], addresses[1], &sids[1]);
    CHECK_INTEQ(run_for(1, 300), 0);
    make_become_leader(&rpc, 1, 4);
    raft_conns_send(servers[3], &rpc);
    CHECK_INTEQ(run_for(1, 300), 0);
    CHECK(!raft_conns_is_connected(servers[1], &sids[3]));
    destroy_servers();
}

/* Sending to nobody or ourselves is refused. */
static void
test_send_refused(void)
{
    union raft_rpc rpc;
    create_servers();
    make_become_leader(&rpc, 1, 4);
    CHECK(!raft_conns_send(servers[1], &rpc));
    memset(&rpc.common.to, 0, sizeof rpc.common.to);
    CHECK(!raft_conns_send(servers[1], &rpc));
    destroy_servers();
}

/* retain() closes outgoing sessions to servers no longer wanted, and
 * keeps incoming ones. */
static void
test_retain(void)
{
    union raft_rpc rpc;
    create_servers();
    connect_a_to_b();
    raft_conns_connect(servers[0], addresses[2], &sids[2]);
    CHECK(wait_for_message(2, &rpc));
    raft_rpc_uninit(&rpc);

    size_t before = raft_conns_count(servers[0]);
    raft_conns_retain(servers[0], &sids[1], 1);
    CHECK_INTEQ(raft_conns_count(servers[0]), before - 1);
    CHECK(raft_conns_is_connected(servers[0], &sids[1]));
    raft_conns_retain(servers[0], NULL, 0);
    CHECK_INTEQ(raft_conns_count(servers[0]), before - 2);
    destroy_servers();
}

/* A peer that goes away: its incoming session closes, and messages for it
 * are queued again. */
static void
test_peer_goes_away(void)
{
    union raft_rpc rpc;
    create_servers();
    raft_conns_connect(servers[2], addresses[1], &sids[1]);
    CHECK(wait_for_message(1, &rpc));
    raft_rpc_uninit(&rpc);
    CHECK(raft_conns_is_connected(servers[1], &sids[2]));

    raft_conns_destroy(servers[2]);
    servers[2] = NULL;
    run_for(1, 300);
    CHECK(!raft_conns_is_connected(servers[1], &sids[2]));
    make_become_leader(&rpc, 2, 5);
    CHECK(!raft_conns_send(servers[1], &rpc));
    destroy_servers();
}

static const struct check_case cases[] = {
    CHECK_CASE(test_hello),
    CHECK_CASE(test_reply_over_incoming),
    CHECK_CASE(test_joiner_gets_queue),
    CHECK_CASE(test_leaving_and_known_peer),
    CHECK_CASE(test_other_cluster),
    CHECK_CASE(test_send_refused),
    CHECK_CASE(test_retain),
    CHECK_CASE(test_peer_goes_away),
};

int
main(int argc, char *argv[])
{
    char template[] = "/tmp/test-raft-conn.XXXXXX";
    const char *tmp = getenv("TEST_TMPDIR");
    dir = tmp ? xstrdup(tmp) : xstrdup(mkdtemp(template));

    vlog_set_levels_from_string_assert("off");
    uuid_generate(&cid);
    uuid_generate(&other_cid);

    int status = check_main(argc, argv, "test-raft-conn", cases,
                            ARRAY_SIZE(cases));
    if (!tmp) {
        rmdir(dir);
    }
    free(dir);
    return status;
}
