/* ovsdb/raft/raft-private.h: what the four files of this server's Raft
 * member share: ovsdb/raft/raft.c, the protocol (roles, elections, log
 * replication, commit); ovsdb/raft/raft-servers.c, the configuration and
 * membership changes; ovsdb/raft/raft-commands.c, the proposals;
 * ovsdb/raft/raft-state.c, what the member tells its users (getters, the
 * committed entries, snapshots and compaction).
 *
 * Why they are one unit and not layers: Raft's rules tie them together in
 * both directions.  The protocol completes proposals as entries commit and
 * reacts to configuration entries as it appends them (raft.c calls
 * raft-commands.c and raft-servers.c); a membership change is itself an
 * entry proposed and committed like any command, and both kinds need the
 * protocol's sending, timers and role changes (they call raft.c back).
 * The split is by concept, each file one part of the protocol; what they
 * call of each other is declared here, or in raft.h when users call it
 * too (the getters, raft_sync()).  Nothing outside ovsdb/raft/ includes
 * this header (tests/e2e/layering.sh checks): the interface is
 * ovsdb/raft/raft.h. */
#ifndef OVSDB_RAFT_PRIVATE_H
#define OVSDB_RAFT_PRIVATE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>
#include "lib/util.h"
#include "lib/uuid.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/raft/raft-rpc.h"

struct ds;
struct ovsdb_error;

/* The fault raft_set_failure_test() engaged (see raft.h): each is checked
 * where its message is sent or received. */
enum raft_failure_test {
    RAFT_FT_NONE,
    RAFT_FT_CRASH_BEFORE_SEND_APPEND_REQ, /* Leader, a new entry. */
    RAFT_FT_CRASH_AFTER_SEND_APPEND_REQ,
    RAFT_FT_CRASH_BEFORE_SEND_EXEC_REP, /* Leader, a forwarded command's
                                            * outcome. */
    RAFT_FT_CRASH_AFTER_SEND_EXEC_REP,
    RAFT_FT_CRASH_BEFORE_SEND_EXEC_REQ, /* Follower, forwarding. */
    RAFT_FT_CRASH_AFTER_SEND_EXEC_REQ,
    RAFT_FT_CRASH_AFTER_RECV_APPEND_REQ_UPDATE, /* Follower, entries. */
    RAFT_FT_CRASH_BEFORE_SEND_SNAPSHOT_REP,
    RAFT_FT_DELAY_ELECTION, /* Election timer twice as long. */
    RAFT_FT_DONT_SEND_VOTE_REQUEST,
    RAFT_FT_STOP_RAFT_RPC,       /* Sends and handles no message. */
    RAFT_FT_TRANSFER_LEADERSHIP, /* Once, at the next raft_run(). */
    RAFT_FT_TRANSFER_LEADERSHIP_AFTER_SEND_APPEND_REQ,
    RAFT_FT_STOP_RAFT_RPC_AFTER_SEND_APPEND_REQ, /* Ours: the leader's
                                                  * entries go out, then it
                                                  * hears nothing. */
};
extern enum raft_failure_test raft_failure_test;
extern unsigned int raft_failure_test_seq; /* Changes with each test. */

/* Ends the process as the test 'what' asks, if it is engaged. */
void raft_failure_test_crash(enum raft_failure_test, const char *what);

enum raft_role {
    RAFT_FOLLOWER,
    RAFT_CANDIDATE,
    RAFT_LEADER,
};

/* Where a server stands in a membership change (leader's view). */
enum server_phase {
    PHASE_STABLE,     /* A member, nothing pending. */
    PHASE_CATCHUP,    /* Being added: receiving the log. */
    PHASE_CAUGHT_UP,  /* Being added: has the log. */
    PHASE_COMMITTING, /* Added: the configuration is not
                                 * committed yet. */
    PHASE_REMOVE,     /* To be removed. */
};

struct server {
    struct uuid sid;
    char *address;
    char *nickname;
    enum server_phase phase;

    /* The leader's view. */
    uint64_t next_index;  /* Next entry to send. */
    uint64_t match_index; /* Highest index known to be on it. */
    bool replied;         /* Replied since the last election
                                 * timeout. */
    bool snapshot_in_flight;

    struct uuid vote;      /* Its vote in this term (candidate). */
    long long last_msg;    /* time_msec() of its last message, or 0. */
    struct uuid requester; /* Server that asked to add or remove it,
                                 * or zero. */
};

struct server_set {
    struct server **s;
    size_t n, allocated;
};

struct raft_command {
    int n_refs; /* The caller's, and raft's while listed. */
    enum raft_command_status status;
    uint64_t index; /* 0 if none assigned. */
    struct uuid eid;
    struct uuid sid;     /* Leader: the follower that forwarded it,
                                 * to reply to; else zero. */
    long long timestamp; /* time_msec() of the last news of its fate,
                                 * for run_timers()'s limit; 0 for none. */
    uint64_t forward_term; /* One this member forwarded: the term in which
                            * it went to that term's leader; else 0. */
};

struct raft {
    char *file_name;
    struct cluster_file *cf;
    struct raft_conns *conns; /* NULL once left. */
    char *local_nickname;

    enum raft_role role;
    struct uuid leader; /* Zero if unknown. */
    unsigned long long n_leader_changes; /* Times 'leader' took a new
                                          * nonzero value (metrics). */
    unsigned int failure_test_seq; /* raft_failure_test_seq when this
                                    * member last saw a test engaged. */
    int logged_connected;          /* raft_is_connected() last logged: 0 or
                                    * 1, -1 before the first time. */
    bool joining, leaving, left, failed;
    uint64_t leader_commit_seen; /* Highest commit index a leader sent. */
    bool showing_join;           /* Drawing catch-up progress. */
    bool had_leader; /* A leader was known since the last
                                 * election started. */
    bool ever_had_leader;
    bool candidate_retrying;  /* No leader since the previous election. */
    bool leadership_transfer; /* Reason of the last election. */
    size_t n_votes;

    /* Timers (time_msec()). */
    uint64_t election_timer;     /* In force. */
    uint64_t election_timer_new; /* Leader: a change not committed yet,
                                     * or 0. */
    long long election_base, election_timeout;
    long long ping_timeout; /* Heartbeats and command timeouts. */
    long long join_timeout, leave_timeout;
    long long election_start, election_won; /* 0 if never. */

    /* The configuration (from the newest servers entry of the log), the
     * servers being added (leader) and the one being removed (leader). */
    struct server_set servers;
    struct server_set add_servers;
    struct server *remove_server;
    char **remotes; /* Joining: addresses to ask. */
    size_t n_remotes;

    /* Durability (see the top of raft.c). */
    bool need_sync;      /* Records written since the last fsync
                                 * need it. */
    uint64_t log_synced; /* Highest index durable. */
    uint64_t synced_term;
    struct uuid synced_vote;
    union raft_rpc **deferred;
    size_t n_deferred, allocated_deferred;
    /* Where the file stood at the last fsync, to cut off a failed batch
     * in a cluster of one. */
    uint64_t sync_log_end;
    off_t sync_offset;
    unsigned long long sync_records;
    unsigned long long sync_cf_records;

    /* Leader: entries below this were sent to every caught-up server. */
    uint64_t flushed_end;

    /* What the database above has applied. */
    uint64_t applied_index;
    struct uuid applied_eid;
    bool snapshot_unread; /* An installed snapshot not returned by
                                 * raft_next_entry() yet. */
    char *snap_text;      /* Its DATA (or, once returned, the text
                                 * last returned), owned. */
    size_t snap_size;

    unsigned int n_disconnections;

    struct raft_command **commands;
    size_t n_commands, allocated_commands;
};

static inline const struct uuid *
raft_self(const struct raft *raft)
{
    return &raft->cf->header.sid;
}

static inline bool
raft_is_self(const struct raft *raft, const struct uuid *sid)
{
    return uuid_equals(sid, raft_self(raft));
}

/* ovsdb/raft/raft.c. */
const char *raft_role_to_string(enum raft_role);
/* Sends 'rpc' (borrowed) now, or once what it promises is durable. */
void raft_send_rpc(struct raft *, union raft_rpc *);
void raft_become_follower(struct raft *);
void raft_reset_election_timer(struct raft *);
/* Logs a write error of a record that need not be durable; takes
 * ownership of 'error' (NULL is fine). */
void raft_ignore_error(struct raft *, struct ovsdb_error *error);
/* Writes an entry at 'index' (at most log_end), truncating the log there
 * first, and follows a change of configuration. */
struct ovsdb_error *raft_write_entry(struct raft *, uint64_t term,
                                     uint64_t index, const char *data,
                                     size_t size, const struct uuid *eid,
                                     const json_t *servers,
                                     uint64_t election_timer)
    WARN_UNUSED_RESULT;
/* A write Raft needs failed: this server stops taking part (takes
 * ownership of 'error'). */
void raft_fail(struct raft *, struct ovsdb_error *error);
/* Notes where the file stands after an fsync: everything written so far
 * is durable. */
void raft_mark_synced(struct raft *);
/* Leader: sends 's' up to 'n' entries from its next_index. */
void raft_send_append_request(struct raft *, struct server *, uint64_t n,
                              const char *comment);

/* ovsdb/raft/raft-commands.c. */
/* Leader: appends an entry of the current term (data, configuration or
 * election timer); returns its listed command if it has data. */
struct raft_command *raft_initiate(struct raft *, const char *data,
                                   size_t size, const struct uuid *eid,
                                   const json_t *servers,
                                   uint64_t election_timer,
                                   enum raft_command_status *statusp);
/* Ends listed command number 'i' with 'status' (replying to the follower
 * that forwarded it, if any). */
void raft_complete_command(struct raft *, size_t i, enum raft_command_status);
void raft_complete_all_commands(struct raft *, enum raft_command_status);
/* Ends with 'status' every listed command whose entry has an index at or
 * past 'from' (those entries were cut off the log). */
void raft_complete_truncated(struct raft *, uint64_t from,
                             enum raft_command_status);
/* The listed command with entry id 'eid', or -1. */
ssize_t raft_find_command(const struct raft *, const struct uuid *eid);
/* An entry with id 'eid' was written at 'index' of the local log: a listed
 * command with that eid and no index yet (one this member forwarded) gets
 * it. */
void raft_note_command_entry(struct raft *, uint64_t index,
                             const struct uuid *eid);
/* The entry at 'commit_index' of term 'commit_term' was committed: a
 * forwarded command that never reached the local log and was forwarded in
 * an earlier term can no longer commit, and ends as lost. */
void raft_complete_forwarded_before(struct raft *, uint64_t commit_term);
void raft_send_execute_command_reply(struct raft *, const struct uuid *to,
                                     const struct uuid *eid,
                                     enum raft_command_status,
                                     uint64_t commit_index);
void raft_handle_execute_command_request(
    struct raft *, const struct raft_execute_command_request *);
void raft_handle_execute_command_reply(
    struct raft *, const struct raft_execute_command_reply *);

/* ovsdb/raft/raft-servers.c: servers and sets of them. */
void raft_server_destroy(struct server *);
struct server *raft_set_find(const struct server_set *, const struct uuid *);
void raft_set_remove(struct server_set *, const struct server *);
void raft_set_clear(struct server_set *);
/* A server of the configuration other than this one (or, with _or_new,
 * one being added). */
struct server *raft_find_peer(const struct raft *, const struct uuid *);
struct server *raft_find_peer_or_new(const struct raft *, const struct uuid *);
/* The short name of 'sid' for logs and cluster/status.  Borrowed, valid
 * until the fourth next call (so that one message may name several). */
const char *raft_nickname(const struct raft *, const struct uuid *sid);
void raft_init_leader_view(struct raft *, struct server *);
void raft_reload_servers(struct raft *);

/* ovsdb/raft/raft-servers.c: membership changes. */
void raft_transfer_leadership(struct raft *, const char *reason);
void raft_run_reconfigure(struct raft *);
void raft_send_add_server_reply(struct raft *, const struct uuid *sid,
                                const char *address, bool success,
                                const char *comment);
void raft_send_remove_server_reply(struct raft *, const struct uuid *target,
                                   const struct uuid *requester,
                                   struct ds *unixctl, bool success,
                                   const char *comment);
void raft_send_remove_server_requests(struct raft *);
void raft_finished_leaving(struct raft *);
void raft_handle_add_server_request(struct raft *,
                                    const struct raft_add_server_request *);
void raft_handle_add_server_reply(struct raft *,
                                  const struct raft_add_server_reply *);
void raft_handle_remove_server_request(
    struct raft *, const struct raft_remove_server_request *);
void raft_handle_remove_server_reply(struct raft *,
                                     const struct raft_remove_server_reply *);

#endif /* ovsdb/raft/raft-private.h */
