/* tests/cluster/test-raft-conn.c: joins a reference cluster with
 * ovsdb/raft/raft-conn and a scripted follower.
 *
 * Usage: test-raft-conn LOCAL-ADDRESS REMOTE-ADDRESS [TIMEOUT-SECONDS]
 *
 * With a fresh server ID it connects to REMOTE (a cluster member of Open
 * vSwitch's), greets it with add_server_request, and answers what the
 * leader sends as a follower with an empty log would, keeping nothing but
 * the log end: append_reply to append_request, install_snapshot_reply to
 * install_snapshot_request.  The leader must dial LOCAL and say
 * hello_request, and add_server_reply must report success; the program
 * then drops its
 * own session and dials REMOTE again, which must now greet with
 * hello_request (visible in the reference's log), and it must keep
 * receiving heartbeats.  Prints each step; exits 0 when all happened, 1
 * on timeout (default 30 s).  This is a test driver, not a Raft member:
 * the state machine is ovsdb/raft/raft.c's business. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/ds.h"
#include "lib/poll-loop.h"
#include "lib/timeval.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/raft/raft-conn.h"
#include "ovsdb/raft/raft-rpc.h"

static struct uuid leader;
static uint64_t log_end = 1;
static bool joined, leader_hello, rehello;
static int heartbeats_after;

static void
step(const char *what, const union raft_rpc *rpc)
{
    struct ds s;
    ds_init(&s);
    if (rpc) {
        raft_rpc_format(rpc, &s);
    }
    printf("%lld ms: %s%s%s\n", time_msec(), what, rpc ? ": " : "",
           ds_cstr(&s));
    fflush(stdout);
    ds_destroy(&s);
}

static void
reply(struct raft_conns *rc, union raft_rpc *out, const union raft_rpc *rq,
      enum raft_rpc_type type, const char *comment)
{
    out->type = type;
    out->common.to = rq->common.from;
    out->common.comment = (char *) comment;
    raft_conns_send(rc, out);
}

static void
handle(struct raft_conns *rc, const union raft_rpc *rpc)
{
    union raft_rpc out;
    memset(&out, 0, sizeof out);

    switch (rpc->type) {
    case RAFT_RPC_APPEND_REQUEST: {
        const struct raft_append_request *rq = &rpc->append_request;
        struct raft_append_reply *rpy = &out.append_reply;
        bool heartbeat = raft_rpc_is_heartbeat(rpc);

        if (uuid_is_zero(&leader)) {
            leader = rpc->common.from;
        }
        if (!heartbeat) {
            step("received", rpc);
        } else if (rehello) {
            heartbeats_after++;
        }
        rpy->term = rq->term;
        rpy->prev_log_index = rq->prev_log_index;
        rpy->prev_log_term = rq->prev_log_term;
        rpy->n_entries = rq->n_entries;
        if (rq->prev_log_index >= log_end) {
            rpy->result = RAFT_APPEND_INCONSISTENCY;
            rpy->log_end = log_end;
            reply(rc, &out, rpc, RAFT_RPC_APPEND_REPLY,
                  "mismatch past end of log");
        } else {
            log_end = rq->prev_log_index + rq->n_entries + 1;
            rpy->result = RAFT_APPEND_OK;
            rpy->log_end = log_end;
            reply(rc, &out, rpc, RAFT_RPC_APPEND_REPLY,
                  heartbeat ? "heartbeat" : "log updated");
        }
        break;
    }
    case RAFT_RPC_INSTALL_SNAPSHOT_REQUEST: {
        const struct raft_install_snapshot_request *rq
            = &rpc->install_snapshot_request;
        step("received", rpc);
        log_end = rq->last_index + 1;
        out.install_snapshot_reply.term = rq->term;
        out.install_snapshot_reply.last_index = rq->last_index;
        out.install_snapshot_reply.last_term = rq->last_term;
        reply(rc, &out, rpc, RAFT_RPC_INSTALL_SNAPSHOT_REPLY, NULL);
        break;
    }
    case RAFT_RPC_ADD_SERVER_REPLY:
        step("received", rpc);
        if (rpc->add_server_reply.success && !joined) {
            joined = true;
            raft_conns_set_greeting(rc, RAFT_CONN_HELLO);
        }
        break;
    case RAFT_RPC_HELLO_REQUEST:
        step("received", rpc);
        /* The leader dials us once it has appended the configuration
         * that adds us, which is before it commits it and replies. */
        if (uuid_equals(&rpc->common.from, &leader)) {
            leader_hello = true;
        }
        break;
    case RAFT_RPC_APPEND_REPLY:
    case RAFT_RPC_VOTE_REQUEST:
    case RAFT_RPC_VOTE_REPLY:
    case RAFT_RPC_ADD_SERVER_REQUEST:
    case RAFT_RPC_REMOVE_SERVER_REQUEST:
    case RAFT_RPC_REMOVE_SERVER_REPLY:
    case RAFT_RPC_INSTALL_SNAPSHOT_REPLY:
    case RAFT_RPC_BECOME_LEADER:
    case RAFT_RPC_EXECUTE_COMMAND_REQUEST:
    case RAFT_RPC_EXECUTE_COMMAND_REPLY:
    case RAFT_N_RPC_TYPES:
        step("ignored", rpc);
        break;
    }
}

int
main(int argc, char *argv[])
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s LOCAL REMOTE [TIMEOUT]\n", argv[0]);
        return 2;
    }
    const char *local = argv[1];
    const char *remote = argv[2];
    long long deadline = time_msec() + 1000LL * (argc > 3 ? atoi(argv[3])
                                                          : 30);
    struct uuid sid, zero;
    uuid_generate(&sid);
    uuid_zero(&zero);
    printf("server ID " UUID_FMT "\n", UUID_ARGS(&sid));

    struct raft_conns *rc = raft_conns_create(&sid, &zero, local);
    raft_conns_set_greeting(rc, RAFT_CONN_JOINING);
    raft_conns_connect(rc, remote, NULL);

    bool redialed = false;
    while (time_msec() < deadline) {
        raft_conns_run(rc);
        union raft_rpc rpc;
        while (raft_conns_recv(rc, &rpc)) {
            handle(rc, &rpc);
            raft_rpc_uninit(&rpc);
        }
        if (joined && leader_hello && !redialed) {
            /* A new outgoing session: this time the greeting is hello. */
            raft_conns_disconnect(rc, remote);
            raft_conns_connect(rc, remote, &leader);
            redialed = true;
            step("redialing with hello", NULL);
        }
        if (redialed && !rehello) {
            struct ds s;
            ds_init(&s);
            raft_conns_format(rc, &s);
            if (raft_conns_count(rc) >= 2 && !strstr(ds_cstr(&s), "(")) {
                rehello = true;
                step(ds_cstr(&s), NULL);
            }
            ds_destroy(&s);
        }
        if (rehello && heartbeats_after >= 3) {
            struct ds s;
            ds_init(&s);
            raft_conns_format(rc, &s);
            printf("cluster " UUID_FMT " joined; connections:%s\n",
                   UUID_ARGS(raft_conns_get_cid(rc)), ds_cstr(&s));
            ds_destroy(&s);
            raft_conns_destroy(rc);
            return 0;
        }
        raft_conns_run(rc);
        raft_conns_wait(rc);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    fprintf(stderr, "timed out: joined=%d leader_hello=%d rehello=%d "
            "heartbeats=%d\n", joined, leader_hello, rehello,
            heartbeats_after);
    raft_conns_destroy(rc);
    return 1;
}
