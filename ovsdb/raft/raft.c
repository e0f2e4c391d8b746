/* ovsdb/raft/raft.c: this server's Raft member.  See raft.h.
 *
 * The persistent state (term, vote, log, commit index, snapshot) is the
 * clustered file's, read and written through ovsdb/format/cluster-file; the
 * connections to the other members are ovsdb/raft/raft-conn's.  This module
 * adds the volatile state (role, leader, the leader's view of each server,
 * what is applied, pending commands) and the rules of the protocol, as
 * Open vSwitch 3.1 runs it (tests/data/raft/README.md).
 *
 * Durability: a record is written when the state changes, and one fsync
 * at the end of each raft_run() (or in raft_sync()) makes everything
 * written so far durable.  A message that promises something not on disk
 * yet (a vote, a term, log entries up to an index) waits in 'deferred'
 * until that fsync, as raft_rpc_get_min_sync_index() says; messages to
 * the same server keep their order. */
#include <config.h>

#include "ovsdb/raft/raft.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/poll-loop.h"
#include "lib/progress.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/log.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/raft/raft-conn.h"
#include "ovsdb/raft/raft-private.h"
#include "ovsdb/engine/schema.h"

VLOG_DEFINE_THIS_MODULE(raft);

/* The election timeout is the election timer plus up to this much. */
#define ELECTION_RANGE_MSEC 1000
/* A joining server repeats its add_server_request this often. */
#define JOIN_RETRY_MSEC 1000
/* Bounds for one append_request that catches a server up.  Small enough
 * that building, copying and parsing one (fresh pages, faulted in one by
 * one) keeps neither end's main loop from its heartbeats for long: with
 * 16 MB a leader catching a member up on 500,000 rows lost leadership
 * again and again on the loaded test machine. */
#define MAX_APPEND_ENTRIES 4096
#define MAX_APPEND_BYTES (1024 * 1024)
/* Messages handled in one raft_run() before the loop runs again. */
#define MAX_RECV_PER_RUN 5000
/* How long a proposed command whose fate this member cannot learn waits
 * before it ends as RAFT_CMD_UNKNOWN (run_timers()): time without a leader
 * for an entry in the local log, time since the leader last said it had it
 * under way for a forwarded one.  10 election timers, and at least a
 * minute: a cut-off member usually hears again within that and can then
 * answer exactly, and a client that cannot wait that long has its own
 * timeout, which it takes as "maybe" where an error reply would read as
 * "did not happen" to many. */
#define OUTCOME_WAIT_TIMERS 10
#define OUTCOME_WAIT_MIN_MSEC 60000


static void start_election(struct raft *, bool leadership_transfer);
static void update_commit_index(struct raft *, uint64_t);
static void consider_commit(struct raft *);

const char *
raft_role_to_string(enum raft_role role)
{
    switch (role) {
    case RAFT_FOLLOWER:
        return "follower";
    case RAFT_CANDIDATE:
        return "candidate";
    case RAFT_LEADER:
        return "leader";
    }
    return "<error>";
}

const char *
raft_get_role(const struct raft *raft)
{
    return raft_role_to_string(raft->role);
}

unsigned long long
raft_get_n_leader_changes(const struct raft *raft)
{
    return raft->n_leader_changes;
}

/* ---------------------------------------------------------------------
 * Timers. */

static unsigned int
random_msec(unsigned int range)
{
    struct uuid u;
    uuid_generate(&u);
    return u.parts[0] % range;
}

/* Failure tests. */

enum raft_failure_test raft_failure_test = RAFT_FT_NONE;
unsigned int raft_failure_test_seq;

void
raft_failure_test_crash(enum raft_failure_test test, const char *what)
{
    if (raft_failure_test == test) {
        /* A crash as the tests expect it: the process ends at once, its
         * pidfile removed, with nothing more sent. */
        ovs_fatal(0, "Raft test: %s", what);
    }
}

bool
raft_set_failure_test(const char *scenario, const char **replyp)
{
    static const struct {
        const char *name;
        enum raft_failure_test test;
    } scenarios[] = {
        { "crash-before-sending-append-request",
          RAFT_FT_CRASH_BEFORE_SEND_APPEND_REQ },
        { "crash-after-sending-append-request",
          RAFT_FT_CRASH_AFTER_SEND_APPEND_REQ },
        { "crash-before-sending-execute-command-reply",
          RAFT_FT_CRASH_BEFORE_SEND_EXEC_REP },
        { "crash-after-sending-execute-command-reply",
          RAFT_FT_CRASH_AFTER_SEND_EXEC_REP },
        { "crash-before-sending-execute-command-request",
          RAFT_FT_CRASH_BEFORE_SEND_EXEC_REQ },
        { "crash-after-sending-execute-command-request",
          RAFT_FT_CRASH_AFTER_SEND_EXEC_REQ },
        { "crash-after-receiving-append-request-update",
          RAFT_FT_CRASH_AFTER_RECV_APPEND_REQ_UPDATE },
        { "crash-before-sending-install-snapshot-reply",
          RAFT_FT_CRASH_BEFORE_SEND_SNAPSHOT_REP },
        { "delay-election", RAFT_FT_DELAY_ELECTION },
        { "dont-send-vote-request", RAFT_FT_DONT_SEND_VOTE_REQUEST },
        { "stop-raft-rpc", RAFT_FT_STOP_RAFT_RPC },
        { "transfer-leadership-after-sending-append-request",
          RAFT_FT_TRANSFER_LEADERSHIP_AFTER_SEND_APPEND_REQ },
        { "transfer-leadership", RAFT_FT_TRANSFER_LEADERSHIP },
        { "stop-raft-rpc-after-sending-append-request",
          RAFT_FT_STOP_RAFT_RPC_AFTER_SEND_APPEND_REQ },
        { "clear", RAFT_FT_NONE },
    };
    for (size_t i = 0; i < ARRAY_SIZE(scenarios); i++) {
        if (!strcmp(scenario, scenarios[i].name)) {
            raft_failure_test = scenarios[i].test;
            raft_failure_test_seq++;
            *replyp = (raft_failure_test == RAFT_FT_NONE ? "test dismissed"
                                                         : "test engaged");
            return true;
        }
    }
    *replyp = "unknown test scenario";
    return false;
}

void
raft_reset_election_timer(struct raft *raft)
{
    raft->election_base = time_msec();
    raft->election_timeout = (raft->election_base + raft->election_timer
                              + random_msec(ELECTION_RANGE_MSEC));
    if (raft_failure_test == RAFT_FT_DELAY_ELECTION) {
        /* So that this server does not win the next election. */
        raft->election_timeout += raft->election_timer;
    }
}

static void
reset_ping_timer(struct raft *raft)
{
    raft->ping_timeout = time_msec() + raft->election_timer / 3;
}

static void
set_election_timer(struct raft *raft, uint64_t ms)
{
    if (ms && ms != raft->election_timer) {
        raft->election_timer = ms;
        if (raft->conns) {
            raft_conns_set_election_timer(raft->conns, ms);
        }
    }
}

/* ---------------------------------------------------------------------
 * Writing, with the durability rules. */

/* Notes where the file stands after an fsync. */
void
raft_mark_synced(struct raft *raft)
{
    struct cluster_file *cf = raft->cf;
    raft->sync_log_end = cf->log_end;
    raft->sync_offset = ovsdb_log_get_offset(cf->log);
    raft->sync_records = ovsdb_log_get_n_records(cf->log);
    raft->sync_cf_records = cf->n_records;
    raft->log_synced = cf->log_end - 1;
    raft->synced_term = cf->term;
    raft->synced_vote = cf->vote;
    raft->need_sync = false;
}

/* Logs a write error of a record that does not need to be durable. */
void
raft_ignore_error(struct raft *raft, struct ovsdb_error *error)
{
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
        VLOG_WARN_RL(&rl, "%s: %s", raft->file_name, s);
        free(s);
    }
}

static bool
set_term(struct raft *raft, uint64_t term, const struct uuid *vote)
{
    struct ovsdb_error *error = cluster_file_write_term(raft->cf, NULL, term,
                                                        vote);
    if (error) {
        raft_fail(raft, error);
        return false;
    }
    raft->need_sync = true;
    return true;
}

/* Writes an entry at 'index' (at most log_end), truncating the log there
 * first, and follows a change of configuration. */
struct ovsdb_error *
raft_write_entry(struct raft *raft, uint64_t term, uint64_t index,
                 const char *data, size_t size, const struct uuid *eid,
                 const json_t *servers, uint64_t election_timer)
{
    struct cluster_file *cf = raft->cf;
    bool servers_changed = servers != NULL;
    if (index < cf->log_end) {
        VLOG_INFO("%s truncating %" PRIu64 " entries from end of log",
                  raft->local_nickname, cf->log_end - index);
        for (uint64_t i = index; i < cf->log_end; i++) {
            if (cluster_file_get_entry(cf, i)->servers) {
                servers_changed = true;
            }
        }
        raft_complete_truncated(raft, index, RAFT_CMD_LOST_LEADERSHIP);
        raft->log_synced = MIN(raft->log_synced, index - 1);
    }
    struct ovsdb_error *error = cluster_file_write_entry(
        cf, NULL, term, index, data, size, eid, servers, election_timer);
    if (!error) {
        raft->need_sync = true;
        if (data && eid) {
            raft_note_command_entry(raft, index, eid);
        }
    }
    if (servers_changed) {
        raft_reload_servers(raft);
    }
    return error;
}

/* A write that Raft needs failed on a server of a real cluster: as the
 * reference, stop taking part (restarting the server recovers). */
void
raft_fail(struct raft *raft, struct ovsdb_error *error)
{
    char *s = ovsdb_error_to_string_free(error);
    VLOG_ERR("%s: %s; this server stops taking part in its cluster until "
             "it is restarted",
             raft->file_name, s);
    free(s);
    if (!raft->failed) {
        raft->failed = true;
        raft->role = RAFT_FOLLOWER;
        uuid_zero(&raft->leader);
        /* Their entries may have gone out before the write failed. */
        while (raft->n_commands) {
            struct raft_command *cmd = raft->commands[--raft->n_commands];
            cmd->status = RAFT_CMD_UNKNOWN;
            raft_command_unref(cmd);
        }
    }
}

/* True if 'rpc' promises state that is not on disk yet. */
static bool
needs_sync(const struct raft *raft, const union raft_rpc *rpc)
{
    if (raft_rpc_get_term(rpc) > raft->synced_term
        || raft_rpc_get_min_sync_index(rpc) > raft->log_synced) {
        return true;
    }
    return (rpc->type == RAFT_RPC_VOTE_REPLY
            && !uuid_equals(&rpc->vote_reply.vote, &raft->synced_vote));
}

static bool
is_deferred_to(const struct raft *raft, const struct uuid *to)
{
    for (size_t i = 0; i < raft->n_deferred; i++) {
        if (uuid_equals(&raft->deferred[i]->common.to, to)) {
            return true;
        }
    }
    return false;
}

/* Sends 'rpc' (borrowed) now, or once what it promises is durable. */
void
raft_send_rpc(struct raft *raft, union raft_rpc *rpc)
{
    if (!raft->conns || raft_is_self(raft, &rpc->common.to)
        || raft_failure_test == RAFT_FT_STOP_RAFT_RPC) {
        return;
    }
    if (needs_sync(raft, rpc) || is_deferred_to(raft, &rpc->common.to)) {
        if (raft->n_deferred >= raft->allocated_deferred) {
            raft->deferred = x2nrealloc(raft->deferred,
                                        &raft->allocated_deferred,
                                        sizeof *raft->deferred);
        }
        raft->deferred[raft->n_deferred++] = raft_rpc_clone(rpc);
        return;
    }
    raft_conns_send(raft->conns, rpc);
}

/* Sends the deferred messages that are durable now; drops those of an
 * older term. */
static void
send_deferred(struct raft *raft)
{
    size_t n = 0;
    for (size_t i = 0; i < raft->n_deferred; i++) {
        union raft_rpc *rpc = raft->deferred[i];
        uint64_t term = raft_rpc_get_term(rpc);
        bool keep = false;
        if (term && term < raft->cf->term) {
            /* Expired. */
        } else if (needs_sync(raft, rpc)) {
            keep = true;
        } else {
            for (size_t j = 0; j < n && !keep; j++) {
                keep = uuid_equals(&raft->deferred[j]->common.to,
                                   &rpc->common.to);
            }
        }
        if (keep) {
            raft->deferred[n++] = rpc;
        } else {
            if (!(term && term < raft->cf->term) && raft->conns) {
                raft_conns_send(raft->conns, rpc);
            }
            raft_rpc_destroy(rpc);
        }
    }
    raft->n_deferred = n;
}

static void update_match_index(struct raft *, struct server *, uint64_t);

/* The records written so far are durable now. */
static void
after_sync(struct raft *raft)
{
    raft_mark_synced(raft);
    if (raft->role == RAFT_LEADER) {
        struct server *me = raft_set_find(&raft->servers, raft_self(raft));
        if (me) {
            update_match_index(raft, me, raft->log_synced);
        }
    }
    send_deferred(raft);
}

/* Makes what was written durable (one fsync), in a real cluster. */
static void
sync_now(struct raft *raft)
{
    if (raft->need_sync && !raft->failed) {
        struct ovsdb_error *error = ovsdb_log_commit_block(raft->cf->log);
        if (error) {
            raft_fail(raft, error);
            return;
        }
        after_sync(raft);
    } else if (raft->n_deferred) {
        send_deferred(raft);
    }
    if (raft->conns) {
        raft_conns_run(raft->conns); /* The replies leave now. */
    }
}

/* ---------------------------------------------------------------------
 * Sending the log (leader). */

/* Fills 'e' from entry 'index' of the log.  Returns its DATA size. */
static size_t
rpc_entry_from_log(const struct raft *raft, uint64_t index,
                   struct raft_rpc_entry *e)
{
    const struct cluster_entry *ce = cluster_file_get_entry(raft->cf, index);
    memset(e, 0, sizeof *e);
    e->term = ce->term;
    if (ce->data) {
        /* Sent as it is (raft_rpc_serialize()): it was JSON when it was
         * written, and the file's checksums say it still is. */
        e->data_text = xmemdup0(ce->data, ce->data_size);
        e->data_len = ce->data_size;
        e->eid = ce->eid;
    }
    e->servers = ce->servers ? json_incref(ce->servers) : NULL;
    e->election_timer = ce->election_timer;
    return ce->data_size;
}

/* Sends 's' an append_request with up to 'n' entries from its next_index
 * (fewer if they are too many or too big).  Returns how many it sent. */
static uint64_t
send_append_request__(struct raft *raft, struct server *s, uint64_t n,
                      const char *comment)
{
    const struct cluster_file *cf = raft->cf;
    uint64_t prev = s->next_index - 1;
    if (s->next_index < cf->log_start || s->next_index > cf->log_end) {
        n = 0;
    } else {
        n = MIN(n, cf->log_end - s->next_index);
    }
    n = MIN(n, MAX_APPEND_ENTRIES);
    struct raft_rpc_entry *entries = n ? xmalloc(n * sizeof *entries) : NULL;
    size_t bytes = 0;
    uint64_t i;
    for (i = 0; i < n && (i == 0 || bytes < MAX_APPEND_BYTES); i++) {
        bytes += rpc_entry_from_log(raft, s->next_index + i, &entries[i]);
    }
    n = i;
    union raft_rpc rpc = { .append_request = {
                               .common = { .type = RAFT_RPC_APPEND_REQUEST,
                                           .to = s->sid,
                                           .comment = (char *) comment },
                               .term = cf->term,
                               .prev_log_index = prev,
                               .prev_log_term =
                                   (prev >= cf->log_start && prev < cf->log_end
                                        ? cluster_file_get_term(cf, prev)
                                        : cf->header.snap.term),
                               .leader_commit = cf->commit_index,
                               .entries = entries,
                               .n_entries = n,
                           } };
    raft_send_rpc(raft, &rpc);
    for (i = 0; i < n; i++) {
        free(entries[i].data_text);
        json_decref(entries[i].servers);
    }
    free(entries);
    return n;
}

void
raft_send_append_request(struct raft *raft, struct server *s, uint64_t n,
                         const char *comment)
{
    send_append_request__(raft, s, n, comment);
}

/* Leader: sends the entries appended since the last flush to every server
 * that had all the entries before them. */
static void
flush_appends(struct raft *raft)
{
    uint64_t log_end = raft->cf->log_end;
    if (raft->role != RAFT_LEADER || raft->flushed_end >= log_end) {
        return;
    }
    raft_failure_test_crash(RAFT_FT_CRASH_BEFORE_SEND_APPEND_REQ,
                            "crash before sending append_request.");
    for (size_t i = 0; i < raft->servers.n; i++) {
        struct server *s = raft->servers.s[i];
        if (!raft_is_self(raft, &s->sid)
            && s->next_index == raft->flushed_end) {
            s->next_index += send_append_request__(raft, s,
                                                   log_end - s->next_index,
                                                   "execute command");
        }
    }
    raft->flushed_end = log_end;
    reset_ping_timer(raft);
    /* Put them on the wire now, so that the followers write them while
     * this server's fsync runs. */
    if (raft->conns) {
        raft_conns_run(raft->conns);
    }
    raft_failure_test_crash(RAFT_FT_CRASH_AFTER_SEND_APPEND_REQ,
                            "crash after sending append_request.");
    if (raft_failure_test
        == RAFT_FT_TRANSFER_LEADERSHIP_AFTER_SEND_APPEND_REQ) {
        raft_failure_test = RAFT_FT_TRANSFER_LEADERSHIP;
    } else if (raft_failure_test
               == RAFT_FT_STOP_RAFT_RPC_AFTER_SEND_APPEND_REQ) {
        /* The followers get the entries and acknowledge them; this
         * leader never learns that they did. */
        raft_failure_test = RAFT_FT_STOP_RAFT_RPC;
    }
}

static void
send_heartbeats(struct raft *raft)
{
    for (size_t i = 0; i < raft->servers.n; i++) {
        struct server *s = raft->servers.s[i];
        if (!raft_is_self(raft, &s->sid)) {
            raft_send_append_request(raft, s, 0, "heartbeat");
        }
    }
    /* Tell the followers waiting for a forwarded command that it is still
     * under way. */
    for (size_t i = 0; i < raft->n_commands; i++) {
        const struct raft_command *cmd = raft->commands[i];
        if (!uuid_is_zero(&cmd->sid)) {
            raft_send_execute_command_reply(raft, &cmd->sid, &cmd->eid,
                                            RAFT_CMD_INCOMPLETE, 0);
        }
    }
    reset_ping_timer(raft);
}

static void
send_install_snapshot_request(struct raft *raft, struct server *s,
                              const char *comment)
{
    const struct cluster_file *cf = raft->cf;
    if (s->snapshot_in_flight) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
        VLOG_INFO_RL(&rl,
                     "not sending snapshot to server %s, already in "
                     "progress",
                     s->nickname);
        return;
    }
    json_t *data = NULL;
    if (cf->header.snap.data) {
        data = json_incref(cf->header.snap.data);
    } else {
        struct ovsdb_error
            *error = cluster_file_read_snapshot_data(raft->file_name, &data);
        if (error) {
            raft_ignore_error(raft, error);
            return;
        }
    }
    VLOG_INFO("sending snapshot to server %s, %" PRIu64 ":%" PRIu64 ".",
              s->nickname, cf->term, cf->log_start - 1);
    union raft_rpc
        rpc = { .install_snapshot_request = {
                    .common = { .type = RAFT_RPC_INSTALL_SNAPSHOT_REQUEST,
                                .to = s->sid,
                                .comment = (char *) comment },
                    .term = cf->term,
                    .last_index = cf->log_start - 1,
                    .last_term = cf->header.snap.term,
                    .last_eid = cf->header.snap.eid,
                    .last_servers = cf->header.snap.servers,
                    .election_timer = raft->election_timer,
                    .data = data,
                } };
    raft_send_rpc(raft, &rpc);
    s->snapshot_in_flight = true;
    json_decref(data);
}

/* ---------------------------------------------------------------------
 * Roles. */

static void
set_leader(struct raft *raft, const struct uuid *sid)
{
    if (!uuid_equals(&raft->leader, sid)) {
        raft->n_leader_changes++;
    }
    raft->leader = *sid;
    raft->had_leader = raft->ever_had_leader = true;
    raft->candidate_retrying = false;
}

void
raft_become_follower(struct raft *raft)
{
    uuid_zero(&raft->leader);
    if (raft->role == RAFT_FOLLOWER) {
        return;
    }
    /* Commands stay: their entries may still commit under the next
     * leader (they complete when they do, or when that leader's log
     * overwrites them), and run_timers() ends them if this member cannot
     * learn which for long.  Stepping down, that wait starts now. */
    for (size_t i = 0; raft->role == RAFT_LEADER && i < raft->n_commands;
         i++) {
        raft->commands[i]->timestamp = time_msec();
    }
    raft->role = RAFT_FOLLOWER;
    raft_reset_election_timer(raft);

    for (size_t i = 0; i < raft->add_servers.n; i++) {
        const struct server *s = raft->add_servers.s[i];
        raft_send_add_server_reply(raft, &s->sid, s->address, false,
                                   RAFT_SERVER_LOST_LEADERSHIP);
    }
    raft_set_clear(&raft->add_servers);
    if (raft->remove_server) {
        raft_send_remove_server_reply(raft, &raft->remove_server->sid,
                                      &raft->remove_server->requester, NULL,
                                      false, RAFT_SERVER_LOST_LEADERSHIP);
        raft_server_destroy(raft->remove_server);
        raft->remove_server = NULL;
    }
}

static void
become_leader(struct raft *raft)
{
    struct cluster_file *cf = raft->cf;
    VLOG_INFO("term %" PRIu64 ": elected leader by %zu+ of %zu servers",
              cf->term, raft->n_votes, raft->servers.n);
    raft->role = RAFT_LEADER;
    raft->election_won = time_msec();
    set_leader(raft, raft_self(raft));
    raft_reset_election_timer(raft);
    reset_ping_timer(raft);
    for (size_t i = 0; i < raft->servers.n; i++) {
        raft_init_leader_view(raft, raft->servers.s[i]);
    }
    raft->election_timer_new = 0;
    raft->flushed_end = cf->log_end;
    struct server *me = raft_set_find(&raft->servers, raft_self(raft));
    if (me) {
        me->match_index = raft->log_synced;
    }
    raft_ignore_error(raft, cluster_file_write_leader(cf, NULL, cf->term,
                                                      raft_self(raft)));

    /* A no-op entry of the new term: committing it commits everything
     * before it. */
    enum raft_command_status status;
    raft_initiate(raft, NULL, 0, NULL, NULL, 0, &status);
}

static void
accept_vote(struct raft *raft, struct server *s, const struct uuid *vote)
{
    if (uuid_equals(&s->vote, vote)) {
        return;
    }
    s->vote = *vote;
    if (raft_is_self(raft, vote) && ++raft->n_votes > raft->servers.n / 2) {
        become_leader(raft);
    }
}

static void
start_election(struct raft *raft, bool leadership_transfer)
{
    struct cluster_file *cf = raft->cf;
    if (raft->leaving || raft->joining || raft->failed) {
        return;
    }
    struct server *me = raft_set_find(&raft->servers, raft_self(raft));
    if (!me) {
        raft_reset_election_timer(raft);
        return;
    }
    long long now = time_msec();
    bool expired = now >= raft->election_timeout;
    if (!set_term(raft, cf->term + 1, raft_self(raft))) {
        return;
    }
    uuid_zero(&raft->leader);
    raft->role = RAFT_CANDIDATE;
    raft->candidate_retrying = !raft->had_leader;
    raft->had_leader = false;
    raft->n_votes = 0;
    raft->election_start = now;
    raft->election_won = 0;
    raft->leadership_transfer = leadership_transfer;
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    if (expired) {
        VLOG_INFO_RL(&rl,
                     "term %" PRIu64 ": %lld ms timeout expired, "
                     "starting election",
                     cf->term, now - raft->election_base);
    } else {
        VLOG_INFO_RL(&rl, "term %" PRIu64 ": starting election", cf->term);
    }
    raft_reset_election_timer(raft);

    for (size_t i = 0; i < raft->servers.n; i++) {
        struct server *s = raft->servers.s[i];
        uuid_zero(&s->vote);
        if (raft_is_self(raft, &s->sid)) {
            continue;
        }
        union raft_rpc rpc = { .vote_request = {
                                   .common = { .type = RAFT_RPC_VOTE_REQUEST,
                                               .to = s->sid },
                                   .term = cf->term,
                                   .last_log_index = cf->log_end - 1,
                                   .last_log_term = cluster_file_get_term(
                                       cf, cf->log_end - 1),
                                   .leadership_transfer = leadership_transfer,
                               } };
        if (raft_failure_test != RAFT_FT_DONT_SEND_VOTE_REQUEST) {
            raft_send_rpc(raft, &rpc);
        }
    }
    accept_vote(raft, me, raft_self(raft));
}

/* ---------------------------------------------------------------------
 * Committing. */

static void
update_match_index(struct raft *raft, struct server *s, uint64_t index)
{
    if (index > s->match_index) {
        s->match_index = index;
        consider_commit(raft);
    }
}

/* Leader: commits the newest entry of the current term that a majority
 * has. */
static void
consider_commit(struct raft *raft)
{
    const struct cluster_file *cf = raft->cf;
    if (raft->role != RAFT_LEADER) {
        return;
    }
    uint64_t new_commit = cf->commit_index;
    for (uint64_t idx = MAX(cf->commit_index + 1, cf->log_start);
         idx < cf->log_end; idx++) {
        if (cluster_file_get_term(cf, idx) != cf->term) {
            continue;
        }
        size_t count = 0;
        for (size_t i = 0; i < raft->servers.n; i++) {
            count += raft->servers.s[i]->match_index >= idx;
        }
        if (count > raft->servers.n / 2) {
            new_commit = idx;
        } else {
            break;
        }
    }
    if (new_commit > cf->commit_index) {
        update_commit_index(raft, new_commit);
        if (raft->role == RAFT_LEADER) {
            send_heartbeats(raft);
        }
    }
}

static void
update_commit_index(struct raft *raft, uint64_t new_commit)
{
    struct cluster_file *cf = raft->cf;
    new_commit = MIN(new_commit, cf->log_end - 1);
    if (new_commit <= cf->commit_index) {
        return;
    }
    uint64_t first = cf->commit_index + 1;
    cluster_file_set_commit_index(cf, new_commit);
    bool reconfigure = false;
    for (uint64_t index = MAX(first, cf->log_start); index <= new_commit;
         index++) {
        const struct cluster_entry *e = cluster_file_get_entry(cf, index);
        if (e->data) {
            ssize_t i = raft_find_command(raft, &e->eid);
            if (i >= 0) {
                struct raft_command *cmd = raft->commands[i];
                if (raft->role != RAFT_LEADER) {
                    uuid_zero(&cmd->sid);
                }
                cmd->index = index;
                raft_complete_command(raft, i, RAFT_CMD_SUCCESS);
            }
        }
        if (e->election_timer) {
            VLOG_INFO("Election timer changed from %" PRIu64 " to %" PRIu64,
                      raft->election_timer, e->election_timer);
            set_election_timer(raft, e->election_timer);
            raft->election_timer_new = 0;
        }
        if (e->servers) {
            reconfigure = true;
        }
    }
    if (new_commit >= cf->log_start) {
        raft_complete_forwarded_before(
            raft, cluster_file_get_entry(cf, new_commit)->term);
    }
    /* Recorded so that a restart serves a fresh log at once; it need not
     * be durable. */
    struct ovsdb_error *error = cluster_file_write_commit_index(cf, NULL,
                                                                new_commit);
    if (error) {
        raft_ignore_error(raft, error);
    }
    if (reconfigure && raft->role == RAFT_LEADER) {
        raft_run_reconfigure(raft);
    }
}

/* ---------------------------------------------------------------------
 * Handling messages. */

/* Follows the term of a message: a newer one makes this server a
 * follower of it.  Returns false for a message of an older term. */
static bool
receive_term(struct raft *raft, const union raft_rpc *rpc, uint64_t term)
{
    struct cluster_file *cf = raft->cf;
    if (term > cf->term) {
        if (!set_term(raft, term, NULL)) {
            return false;
        }
        raft_become_follower(raft);
    } else if (term < cf->term) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
        VLOG_INFO_RL(&rl,
                     "rejecting term %" PRIu64 " < current term %" PRIu64
                     " received in %s message from server %s",
                     term, cf->term, raft_rpc_type_to_string(rpc->type),
                     raft_nickname(raft, &rpc->common.from));
        return false;
    }
    return true;
}

static void
send_append_reply(struct raft *raft, const struct raft_append_request *rq,
                  enum raft_append_result result, const char *comment)
{
    struct cluster_file *cf = raft->cf;
    raft->leader_commit_seen = MAX(raft->leader_commit_seen,
                                   rq->leader_commit);
    if (result == RAFT_APPEND_OK && rq->leader_commit > cf->commit_index) {
        update_commit_index(raft, MIN(rq->leader_commit,
                                      rq->prev_log_index + rq->n_entries));
    }
    union raft_rpc rpc = { .append_reply = {
                               .common = { .type = RAFT_RPC_APPEND_REPLY,
                                           .to = rq->common.from,
                                           .comment = (char *) comment },
                               .term = cf->term,
                               .log_end = cf->log_end,
                               .prev_log_index = rq->prev_log_index,
                               .prev_log_term = rq->prev_log_term,
                               .n_entries = rq->n_entries,
                               .result = result,
                           } };
    raft_send_rpc(raft, &rpc);
}

static const char *
match_index_and_term(const struct raft *raft, uint64_t prev_index,
                     uint64_t prev_term)
{
    const struct cluster_file *cf = raft->cf;
    if (prev_index < cf->log_start - 1) {
        return "mismatch before start of log";
    } else if (prev_index == cf->log_start - 1) {
        if (prev_term != cf->header.snap.term) {
            return "prev_term mismatch";
        }
    } else if (prev_index < cf->log_end) {
        if (cluster_file_get_term(cf, prev_index) != prev_term) {
            return "term mismatch";
        }
    } else {
        return "mismatch past end of log";
    }
    return NULL;
}

/* Appends 'n' entries that follow entry 'prev_index' of term
 * 'prev_term'. */
static void
append_entries(struct raft *raft, const struct raft_append_request *rq,
               uint64_t prev_index, uint64_t prev_term,
               const struct raft_rpc_entry *entries, uint64_t n)
{
    struct cluster_file *cf = raft->cf;
    const char *mismatch = match_index_and_term(raft, prev_index, prev_term);
    if (mismatch) {
        VLOG_INFO("rejecting append_request because previous entry "
                  "%" PRIu64 ",%" PRIu64 " not in local log (%s)",
                  prev_term, prev_index, mismatch);
        send_append_reply(raft, rq, RAFT_APPEND_INCONSISTENCY, mismatch);
        return;
    }
    uint64_t i;
    for (i = 0; i < n; i++) {
        uint64_t index = prev_index + 1 + i;
        if (index >= cf->log_end
            || cluster_file_get_term(cf, index) != entries[i].term) {
            break;
        }
    }
    if (i >= n) {
        send_append_reply(raft, rq, RAFT_APPEND_OK,
                          raft_rpc_is_heartbeat((const union raft_rpc *) rq)
                              ? "heartbeat"
                              : "no change");
        return;
    }
    struct ds text = DS_EMPTY_INITIALIZER;
    for (; i < n; i++) {
        const struct raft_rpc_entry *e = &entries[i];
        uint64_t index = prev_index + 1 + i;
        if (index < cf->commit_index + 1) {
            /* Cannot conflict with a committed entry. */
            continue;
        }
        ds_clear(&text);
        if (e->data) {
            raft_data_put_json(&text, e->data);
        }
        struct ovsdb_error *error = raft_write_entry(raft, e->term, index,
                                                     e->data ? text.string
                                                             : NULL,
                                                     text.length, &e->eid,
                                                     e->servers,
                                                     e->election_timer);
        if (error) {
            ds_destroy(&text);
            char *s = ovsdb_error_to_string_free(error);
            VLOG_ERR("%s", s);
            free(s);
            send_append_reply(raft, rq, RAFT_APPEND_IO_ERROR, "I/O error");
            return;
        }
    }
    ds_destroy(&text);
    send_append_reply(raft, rq, RAFT_APPEND_OK, "log updated");
}

/* Records 'sid' as the leader of the current term.  Returns false if this
 * server is the leader. */
static bool
update_leader(struct raft *raft, const struct uuid *sid)
{
    if (raft->role == RAFT_LEADER) {
        VLOG_ERR("this server is leader but server %s claims to be",
                 raft_nickname(raft, sid));
        return false;
    }
    if (!uuid_equals(sid, &raft->leader)) {
        if (!uuid_is_zero(&raft->leader)) {
            VLOG_ERR("leader for term %" PRIu64 " changed from %s to %s",
                     raft->cf->term, raft_nickname(raft, &raft->leader),
                     raft_nickname(raft, sid));
        } else {
            VLOG_INFO("server %s is leader for term %" PRIu64,
                      raft_nickname(raft, sid), raft->cf->term);
        }
        set_leader(raft, sid);
        raft_ignore_error(raft,
                          cluster_file_write_leader(raft->cf, NULL,
                                                    raft->cf->term, sid));
    }
    if (raft->role == RAFT_CANDIDATE) {
        raft->role = RAFT_FOLLOWER;
    }
    return true;
}

static void
handle_append_request(struct raft *raft, const struct raft_append_request *rq)
{
    const struct cluster_file *cf = raft->cf;
    if (!update_leader(raft, &rq->common.from)) {
        send_append_reply(raft, rq, RAFT_APPEND_INCONSISTENCY,
                          "usurped leadership");
        return;
    }
    raft_reset_election_timer(raft);
    if (rq->n_entries) {
        raft_failure_test_crash(RAFT_FT_CRASH_AFTER_RECV_APPEND_REQ_UPDATE,
                                "crash after receiving append_request with "
                                "update.");
    }

    uint64_t first = rq->prev_log_index + 1;
    uint64_t last = rq->prev_log_index + rq->n_entries;
    if (first >= cf->log_start) {
        append_entries(raft, rq, rq->prev_log_index, rq->prev_log_term,
                       rq->entries, rq->n_entries);
    } else if (last < cf->log_start - 1) {
        /* All of it is in our snapshot already. */
        send_append_reply(raft, rq, RAFT_APPEND_OK, "append before log start");
    } else if (last == cf->log_start - 1) {
        uint64_t term = (rq->n_entries ? rq->entries[rq->n_entries - 1].term
                                       : rq->prev_log_term);
        if (term == cf->header.snap.term) {
            send_append_reply(raft, rq, RAFT_APPEND_OK, "no change");
        } else {
            send_append_reply(raft, rq, RAFT_APPEND_INCONSISTENCY,
                              "term mismatch");
        }
    } else {
        /* It overlaps the end of our snapshot: skip what that covers. */
        uint64_t ofs = cf->log_start - first;
        append_entries(raft, rq, cf->log_start - 1, rq->entries[ofs - 1].term,
                       &rq->entries[ofs], rq->n_entries - ofs);
    }
}

static void
handle_append_reply(struct raft *raft, const struct raft_append_reply *rpy)
{
    const struct cluster_file *cf = raft->cf;
    if (raft->role != RAFT_LEADER) {
        return;
    }
    struct server *s = raft_find_peer_or_new(raft, &rpy->common.from);
    if (!s) {
        return;
    }
    s->replied = true;
    if (rpy->result == RAFT_APPEND_OK) {
        uint64_t min_index = rpy->prev_log_index + rpy->n_entries + 1;
        s->next_index = MAX(s->next_index, min_index);
        update_match_index(raft, s, min_index - 1);
    } else {
        if (rpy->prev_log_index >= s->next_index) {
            /* A reply to a request sent before we backed off below it
             * (appends are pipelined): what it says is known already.
             * Backing off once per such reply would walk next_index far
             * below the follower's log, resending everything each time. */
            return;
        }
        /* The follower lacks entry prev_log_index, or it differs. */
        s->next_index = MIN(rpy->prev_log_index, rpy->log_end);
        if (rpy->result == RAFT_APPEND_IO_ERROR) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
            VLOG_INFO_RL(&rl, "%s reported I/O error", s->nickname);
            return;
        }
    }
    if (raft->role != RAFT_LEADER) {
        return;
    }
    if (s->next_index < cf->log_start) {
        send_install_snapshot_request(raft, s, NULL);
    } else if (s->next_index < cf->log_end) {
        bool flushing = (raft_find_peer(raft, &s->sid)
                         && s->next_index == raft->flushed_end);
        if (!flushing
            && (rpy->result != RAFT_APPEND_OK
                || s->next_index
                       == rpy->prev_log_index + rpy->n_entries + 1)) {
            /* Catching up: send what follows.  (A reply to an earlier
             * request while newer entries are in flight needs nothing, nor
             * one that flush_appends() is about to serve.) */
            raft_send_append_request(raft, s, cf->log_end - s->next_index,
                                     NULL);
        }
    } else if (s->phase == PHASE_CATCHUP) {
        s->phase = PHASE_CAUGHT_UP;
        raft_run_reconfigure(raft);
    }
}

static bool
suppress_vote_request(struct raft *raft, const struct raft_vote_request *rq)
{
    if (rq->leadership_transfer) {
        return false;
    }
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
    long long now = time_msec();
    switch (raft->role) {
    case RAFT_LEADER:
        VLOG_WARN_RL(&rl, "ignoring vote request received as leader");
        return true;
    case RAFT_FOLLOWER:
        if (!uuid_is_zero(&raft->leader)
            && now < raft->election_base + (long long) raft->election_timer) {
            VLOG_WARN_RL(&rl,
                         "ignoring vote request received after only "
                         "%lld ms (minimum election time is %" PRIu64 " ms)",
                         now - raft->election_base, raft->election_timer);
            return true;
        }
        return false;
    case RAFT_CANDIDATE:
        return false;
    }
    return false;
}

static void
handle_vote_request(struct raft *raft, const struct raft_vote_request *rq)
{
    struct cluster_file *cf = raft->cf;
    if (uuid_is_zero(&cf->vote)) {
        uint64_t last_term = cluster_file_get_term(cf, cf->log_end - 1);
        if (last_term > rq->last_log_term
            || (last_term == rq->last_log_term
                && cf->log_end - 1 > rq->last_log_index)) {
            /* Our log is newer: withhold the vote. */
            return;
        }
        if (!set_term(raft, cf->term, &rq->common.from)) {
            return;
        }
        raft_reset_election_timer(raft);
    }
    union raft_rpc rpc = { .vote_reply = {
                               .common = { .type = RAFT_RPC_VOTE_REPLY,
                                           .to = rq->common.from },
                               .term = cf->term,
                               .vote = cf->vote,
                           } };
    raft_send_rpc(raft, &rpc);
}

static void
handle_vote_reply(struct raft *raft, const struct raft_vote_reply *rpy)
{
    if (raft->role != RAFT_CANDIDATE) {
        return;
    }
    struct server *s = raft_find_peer(raft, &rpy->common.from);
    if (s) {
        accept_vote(raft, s, &rpy->vote);
    }
}

static void
handle_install_snapshot_request(struct raft *raft,
                                const struct raft_install_snapshot_request *rq)
{
    raft_failure_test_crash(RAFT_FT_CRASH_BEFORE_SEND_SNAPSHOT_REP,
                            "crash before sending install_snapshot_reply");
    struct cluster_file *cf = raft->cf;
    raft_reset_election_timer(raft);
    uint64_t new_start = rq->last_index + 1;
    if (new_start >= cf->log_start && new_start >= cf->log_end) {
        struct ds text = DS_EMPTY_INITIALIZER;
        raft_data_put_json(&text, rq->data);
        const struct uuid *cid = raft_conns_get_cid(raft->conns);
        struct ovsdb_error *error = cluster_file_install_snapshot(
            cf, uuid_is_zero(cid) ? NULL : cid, rq->last_index, rq->last_term,
            &rq->last_eid, rq->last_servers, rq->election_timer, text.string,
            text.length);
        if (error) {
            ds_destroy(&text);
            char *s = ovsdb_error_to_string_free(error);
            VLOG_WARN("could not save snapshot: %s", s);
            free(s);
            return;
        }
        VLOG_INFO("%s: installed snapshot %" PRIu64 ":%" PRIu64 " from %s",
                  raft->file_name, rq->last_term, rq->last_index,
                  raft_nickname(raft, &rq->common.from));
        free(raft->snap_text);
        raft->snap_size = text.length;
        raft->snap_text = ds_steal_cstr(&text);
        raft->snapshot_unread = true;
        /* The snapshot may or may not contain their entries. */
        raft_complete_all_commands(raft, RAFT_CMD_UNKNOWN);
        raft_mark_synced(raft);
        set_election_timer(raft, rq->election_timer);
        raft_reload_servers(raft);
    }
    union raft_rpc
        rpc = { .install_snapshot_reply = {
                    .common = { .type = RAFT_RPC_INSTALL_SNAPSHOT_REPLY,
                                .to = rq->common.from },
                    .term = cf->term,
                    .last_index = rq->last_index,
                    .last_term = rq->last_term,
                } };
    raft_send_rpc(raft, &rpc);
}

static void
handle_install_snapshot_reply(struct raft *raft,
                              const struct raft_install_snapshot_reply *rpy)
{
    const struct cluster_file *cf = raft->cf;
    if (raft->role != RAFT_LEADER) {
        return;
    }
    struct server *s = raft_find_peer_or_new(raft, &rpy->common.from);
    if (!s) {
        return;
    }
    s->snapshot_in_flight = false;
    if (rpy->last_index != cf->log_start - 1
        || rpy->last_term != cf->header.snap.term) {
        VLOG_INFO("cluster " RAFT_SID_FMT ": server %s installed out-of-date "
                  "snapshot, starting over",
                  RAFT_SID_ARGS(&cf->header.cid), s->nickname);
        send_install_snapshot_request(raft, s, "installed obsolete snapshot");
        return;
    }
    VLOG_INFO("cluster " RAFT_SID_FMT ": installed snapshot on server %s up "
              "to %" PRIu64 ":%" PRIu64,
              RAFT_SID_ARGS(&cf->header.cid), s->nickname, rpy->last_term,
              rpy->last_index);
    s->next_index = cf->log_start;
    raft_send_append_request(raft, s, cf->log_end - s->next_index,
                             "snapshot installed");
}

static void
handle_become_leader(struct raft *raft, const struct raft_become_leader *rq)
{
    if (raft->role == RAFT_FOLLOWER) {
        VLOG_INFO("received leadership transfer from %s in term %" PRIu64,
                  raft_nickname(raft, &rq->common.from), rq->term);
        start_election(raft, true);
    }
}

static void
handle_rpc(struct raft *raft, const union raft_rpc *rpc)
{
    struct server *s = raft_set_find(&raft->servers, &rpc->common.from);
    if (s) {
        s->last_msg = time_msec();
    }
    if (rpc->type == RAFT_RPC_VOTE_REQUEST
        && suppress_vote_request(raft, &rpc->vote_request)) {
        return;
    }
    uint64_t term = raft_rpc_get_term(rpc);
    if (term && !receive_term(raft, rpc, term)) {
        if (rpc->type == RAFT_RPC_APPEND_REQUEST) {
            send_append_reply(raft, &rpc->append_request,
                              RAFT_APPEND_INCONSISTENCY, "stale term");
        }
        return;
    }
    switch (rpc->type) {
    case RAFT_RPC_HELLO_REQUEST:
        break;
    case RAFT_RPC_APPEND_REQUEST:
        handle_append_request(raft, &rpc->append_request);
        break;
    case RAFT_RPC_APPEND_REPLY:
        handle_append_reply(raft, &rpc->append_reply);
        break;
    case RAFT_RPC_VOTE_REQUEST:
        handle_vote_request(raft, &rpc->vote_request);
        break;
    case RAFT_RPC_VOTE_REPLY:
        handle_vote_reply(raft, &rpc->vote_reply);
        break;
    case RAFT_RPC_ADD_SERVER_REQUEST:
        raft_handle_add_server_request(raft, &rpc->add_server_request);
        break;
    case RAFT_RPC_ADD_SERVER_REPLY:
        raft_handle_add_server_reply(raft, &rpc->add_server_reply);
        break;
    case RAFT_RPC_REMOVE_SERVER_REQUEST:
        raft_handle_remove_server_request(raft, &rpc->remove_server_request);
        break;
    case RAFT_RPC_REMOVE_SERVER_REPLY:
        raft_handle_remove_server_reply(raft, &rpc->remove_server_reply);
        break;
    case RAFT_RPC_INSTALL_SNAPSHOT_REQUEST:
        handle_install_snapshot_request(raft, &rpc->install_snapshot_request);
        break;
    case RAFT_RPC_INSTALL_SNAPSHOT_REPLY:
        handle_install_snapshot_reply(raft, &rpc->install_snapshot_reply);
        break;
    case RAFT_RPC_BECOME_LEADER:
        handle_become_leader(raft, &rpc->become_leader);
        break;
    case RAFT_RPC_EXECUTE_COMMAND_REQUEST:
        raft_handle_execute_command_request(raft,
                                            &rpc->execute_command_request);
        break;
    case RAFT_RPC_EXECUTE_COMMAND_REPLY:
        raft_handle_execute_command_reply(raft, &rpc->execute_command_reply);
        break;
    case RAFT_N_RPC_TYPES:
        break;
    }
}

/* ---------------------------------------------------------------------
 * Opening and closing. */

struct ovsdb_error *
raft_open(const char *path, struct raft **raftp)
{
    *raftp = NULL;
    struct cluster_file *cf;
    struct ovsdb_error *error = cluster_file_open(path, true, &cf);
    if (error) {
        return error;
    }
    if (cf->tail_error) {
        char *s = ovsdb_error_to_string(cf->tail_error);
        VLOG_ERR("%s", s);
        free(s);
    }

    struct raft *raft = xzalloc(sizeof *raft);
    raft->file_name = xstrdup(path);
    raft->cf = cf;
    raft->role = RAFT_FOLLOWER;
    raft->logged_connected = -1;
    raft->joining = cf->header.joining;
    raft->applied_index = cf->header.snap_index;
    raft->applied_eid = cf->header.snap.eid;
    raft->local_nickname = raft_conns_nickname(cf->header.local_address,
                                               &cf->header.sid);
    raft->election_timer = (raft->joining
                                ? CLUSTER_ELECTION_TIMER_DEFAULT
                                : cluster_file_get_election_timer(cf));
    raft->conns = raft_conns_create(&cf->header.sid, &cf->header.cid,
                                    cf->header.local_address);
    raft_conns_set_election_timer(raft->conns, raft->election_timer);
    raft_mark_synced(raft);
    VLOG_INFO("local server ID is "RAFT_SID_FMT,
              RAFT_SID_ARGS(&cf->header.sid));

    if (raft->joining) {
        for (size_t i = 0; i < cf->header.n_remote_addresses; i++) {
            raft->remotes = xrealloc(raft->remotes,
                                     (raft->n_remotes + 1)
                                         * sizeof *raft->remotes);
            raft->remotes[raft->n_remotes++] = xstrdup(
                cf->header.remote_addresses[i]);
        }
        raft_conns_set_greeting(raft->conns, RAFT_CONN_JOINING);
        raft->join_timeout = time_msec() + JOIN_RETRY_MSEC;
        VLOG_INFO("%s: joining cluster through %zu remote address(es)", path,
                  raft->n_remotes);
    }
    raft_reload_servers(raft);
    raft_reset_election_timer(raft);
    reset_ping_timer(raft);

    if (!raft->joining && raft_is_alone(raft)) {
        /* Nobody else to ask: elect ourselves now. */
        start_election(raft, false);
        error = raft->failed ? NULL : ovsdb_log_commit_block(cf->log);
        if (raft->failed || error) {
            raft_close(raft);
            return error ? error
                         : ovsdb_error(OVSDB_E_IO,
                                       "%s: cannot "
                                       "start an election",
                                       path);
        }
        after_sync(raft);
    }
    *raftp = raft;
    return NULL;
}

void
raft_close(struct raft *raft)
{
    if (!raft) {
        return;
    }
    if (raft->conns && !raft->left && !raft->failed) {
        raft_transfer_leadership(raft, "this server is shutting down");
        raft_conns_run(raft->conns);
    }
    /* Proposed, their entries may still commit: no one will know here. */
    raft_complete_all_commands(raft, RAFT_CMD_UNKNOWN);
    free(raft->commands);
    for (size_t i = 0; i < raft->n_deferred; i++) {
        raft_rpc_destroy(raft->deferred[i]);
    }
    free(raft->deferred);
    raft_conns_destroy(raft->conns);
    raft_set_clear(&raft->servers);
    free(raft->servers.s);
    raft_set_clear(&raft->add_servers);
    free(raft->add_servers.s);
    raft_server_destroy(raft->remove_server);
    for (size_t i = 0; i < raft->n_remotes; i++) {
        free(raft->remotes[i]);
    }
    free(raft->remotes);
    free(raft->snap_text);
    cluster_file_close(raft->cf);
    free(raft->local_nickname);
    free(raft->file_name);
    free(raft);
}

/* A database with the file's name and no tables, for a server that has
 * not joined yet: the leader's snapshot replaces it. */
static struct ovsdb *
placeholder_db(const char *name)
{
    json_t *json = json_pack("{s:s, s:s, s:{}}", "name", name, "version",
                             "0.0.0", "tables");
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(json, &schema);
    json_decref(json);
    if (error) {
        ovsdb_error_destroy(error);
        return NULL;
    }
    return ovsdb_create(schema);
}

struct ovsdb_error *
raft_read_db(struct raft *raft, struct ovsdb **dbp)
{
    struct cluster_file *cf = raft->cf;
    if (raft->joining) {
        *dbp = placeholder_db(cf->header.name);
        return *dbp ? NULL
                    : ovsdb_error(OVSDB_E_OVSDB,
                                  "%s: bad database "
                                  "name",
                                  cf->header.name);
    }
    /* Only the snapshot: the committed entries after it come from
     * raft_next_entry(), each its own transaction with its entry id, so
     * that the database's monitor history holds them again after a
     * restart, as the reference's does. */
    struct uuid eid;
    struct ovsdb_error *error = cluster_file_replay(cf, cf->log_start - 1, dbp,
                                                    &eid);
    if (!error) {
        raft->applied_index = cf->log_start - 1;
        raft->applied_eid = eid;
    }
    return error;
}

/* ---------------------------------------------------------------------
 * The main loop. */

static void
forget_lost_snapshots(struct raft *raft, struct server_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        struct server *s = set->s[i];
        if (s->snapshot_in_flight
            && !raft_conns_is_connected(raft->conns, &s->sid)) {
            s->snapshot_in_flight = false;
        }
    }
}

static void
run_timers(struct raft *raft)
{
    long long now = time_msec();
    if (!raft->joining && now >= raft->election_timeout) {
        if (raft->role == RAFT_LEADER) {
            /* Step down unless a majority answered in the last election
             * timeout. */
            size_t count = 0;
            for (size_t i = 0; i < raft->servers.n; i++) {
                count += raft->servers.s[i]->replied;
            }
            if (count >= raft->servers.n / 2) {
                for (size_t i = 0; i < raft->servers.n; i++) {
                    raft->servers.s[i]->replied = false;
                }
                raft_reset_election_timer(raft);
            } else {
                VLOG_INFO("term %" PRIu64 ": only %zu of %zu servers replied "
                          "in the last election timeout: stepping down",
                          raft->cf->term, count, raft->servers.n);
                raft_become_follower(raft);
                start_election(raft, false);
            }
        } else {
            start_election(raft, false);
        }
    }
    if (raft->leaving && now >= raft->leave_timeout) {
        raft_send_remove_server_requests(raft);
    }
    if (raft->joining && now >= raft->join_timeout) {
        raft->join_timeout = now + JOIN_RETRY_MSEC;
        raft_conns_regreet(raft->conns);
    }
    if (now >= raft->ping_timeout) {
        if (raft->role == RAFT_LEADER) {
            send_heartbeats(raft);
        }
        long long outcome_wait = MAX(OUTCOME_WAIT_TIMERS
                                         * (long long) raft->election_timer,
                                     OUTCOME_WAIT_MIN_MSEC);
        for (size_t i = 0; i < raft->n_commands;) {
            struct raft_command *cmd = raft->commands[i];
            if (cmd->index && !uuid_is_zero(&raft->leader)) {
                /* An entry in the local log, and a leader (this member,
                 * or the one it follows): the entry commits once a
                 * majority has it, or that leader's log overwrites it
                 * here (its first entry of its term does at the latest).
                 * Ending it now would only have the client try again a
                 * transaction that may still commit, and then commit it
                 * twice. */
                cmd->timestamp = now;
                i++;
                continue;
            }
            if (cmd->timestamp && now - cmd->timestamp > outcome_wait) {
                /* This member could not learn the entry's fate in time:
                 * it may or may not commit. */
                raft_complete_command(raft, i, RAFT_CMD_UNKNOWN);
            } else {
                i++;
            }
        }
        reset_ping_timer(raft);
    }
    if (raft->role == RAFT_LEADER) {
        /* A snapshot whose connection went down may never have arrived. */
        forget_lost_snapshots(raft, &raft->servers);
        forget_lost_snapshots(raft, &raft->add_servers);
        /* A server being added that dropped its connection starts over
         * when it asks again. */
        for (size_t i = 0; i < raft->add_servers.n;) {
            struct server *s = raft->add_servers.s[i];
            if (!raft_conns_is_connected(raft->conns, &s->sid)) {
                VLOG_INFO("cluster " RAFT_SID_FMT ": server %s (%s) "
                          "disconnected while joining",
                          RAFT_SID_ARGS(&raft->cf->header.cid), s->nickname,
                          s->address);
                raft_set_remove(&raft->add_servers, s);
                raft_server_destroy(s);
                raft->n_disconnections++;
            } else {
                i++;
            }
        }
    }
}

/* On a terminal (lib/progress, when the program turned it on), a joining
 * member shows how far it has caught up: the log index it has reached out
 * of the newest commit index a leader sent, until the leader adds it. */
static void
show_join_progress(struct raft *raft)
{
    if (!progress_is_enabled()) {
        return;
    }
    if (raft->joining) {
        if (!raft->showing_join) {
            progress_begin("catching up with the cluster", 0,
                           PROGRESS_ENTRIES);
            raft->showing_join = true;
        }
        progress_set_total(raft->leader_commit_seen);
        progress_update(raft->cf->log_end - 1);
    } else if (raft->showing_join) {
        progress_end();
        raft->showing_join = false;
    }
}

void
raft_run(struct raft *raft)
{
    if (raft->left || raft->failed) {
        return;
    }
    /* The reference logs this (at every call); Open vSwitch's tests grep
     * it to see a member notice that it lost its cluster, and that it
     * does not flap.  Only the changes here. */
    int connected = raft_is_connected(raft);
    if (connected != raft->logged_connected) {
        raft->logged_connected = connected;
        VLOG_DBG("raft_is_connected: %s", connected ? "true" : "false");
    }
    if (raft->failure_test_seq != raft_failure_test_seq) {
        raft->failure_test_seq = raft_failure_test_seq;
        if (raft_failure_test == RAFT_FT_DELAY_ELECTION
            && raft->role == RAFT_FOLLOWER) {
            raft_reset_election_timer(raft); /* Delayed from now on. */
        }
    }
    if (raft_failure_test == RAFT_FT_TRANSFER_LEADERSHIP) {
        raft_failure_test = RAFT_FT_NONE;
        if (raft->role == RAFT_LEADER) {
            VLOG_INFO("Transferring leadership, as a failure test asks.");
            raft_transfer_leadership(raft, "a failure test asks");
        }
    }
    bool stopped = raft_failure_test == RAFT_FT_STOP_RAFT_RPC;
    if (!stopped) {
        raft_conns_run(raft->conns);
    }
    union raft_rpc rpc;
    for (int i = 0; !stopped && i < MAX_RECV_PER_RUN
                    && raft_conns_recv(raft->conns, &rpc);
         i++) {
        handle_rpc(raft, &rpc);
        raft_rpc_uninit(&rpc);
        if (raft->left || raft->failed) {
            break;
        }
    }
    if (!raft->left && !raft->failed) {
        run_timers(raft);
        flush_appends(raft);
        sync_now(raft);
    }
    show_join_progress(raft);
    if (raft->left) {
        /* Out of the cluster for good: nothing more to say to anyone, nor
         * to learn of the entries proposed. */
        raft_complete_all_commands(raft, RAFT_CMD_UNKNOWN);
        raft_conns_destroy(raft->conns);
        raft->conns = NULL;
        raft->role = RAFT_FOLLOWER;
        uuid_zero(&raft->leader);
    }
}

void
raft_wait(struct raft *raft)
{
    if (raft->left || raft->failed) {
        return;
    }
    raft_conns_wait(raft->conns);
    if (raft->need_sync || raft->n_deferred
        || (raft->role == RAFT_LEADER
            && raft->flushed_end < raft->cf->log_end)) {
        poll_immediate_wake();
    }
    if (raft->joining) {
        poll_timer_wait_until(raft->join_timeout);
    } else {
        poll_timer_wait_until(raft->election_timeout);
    }
    if (raft->leaving) {
        poll_timer_wait_until(raft->leave_timeout);
    }
    if (raft->role == RAFT_LEADER || raft->n_commands) {
        poll_timer_wait_until(raft->ping_timeout);
    }
    if (raft->role == RAFT_LEADER && raft->add_servers.n) {
        poll_timer_wait_until(time_msec() + 100);
    }
}

struct ovsdb_error *
raft_sync(struct raft *raft)
{
    struct cluster_file *cf = raft->cf;
    if (raft->failed) {
        return ovsdb_error(OVSDB_E_IO,
                           "%s: this server failed to write its "
                           "log",
                           raft->file_name);
    }
    flush_appends(raft);
    if (!raft->need_sync) {
        return NULL;
    }
    if (!raft_is_alone(raft)) {
        sync_now(raft);
        return (raft->failed
                    ? ovsdb_error(OVSDB_E_IO, "%s: writing the log failed",
                                  raft->file_name)
                    : NULL);
    }

    /* A cluster of one: a failed batch is cut off again and its commands
     * fail, and the server goes on. */
    struct ovsdb_error *error = ovsdb_log_commit_block_or_undo(
        cf->log, raft->sync_offset, raft->sync_records);
    if (error) {
        cluster_file_forget(cf, raft->sync_log_end, raft->sync_cf_records);
        raft_complete_truncated(raft, raft->sync_log_end, RAFT_CMD_IO_ERROR);
        raft_mark_synced(raft);
        return error;
    }
    after_sync(raft);
    return NULL;
}
