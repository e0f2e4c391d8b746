/* ovsdb/raft/raft-rpc.h: the messages Raft cluster members exchange.
 *
 * Each message is a JSON-RPC notification ("id": null) whose method names
 * its type and whose one parameter is an object:
 *
 *     {"method": "append_request", "id": null,
 *      "params": [{"cluster": CID, "from": SID, "to": SID,
 *                  "comment": "heartbeat", "term": 3, ...}]}
 *
 * as Open vSwitch 3.1's ovsdb-server sends them (tests/data/raft/README.md
 * lists every field with traces).  This module only converts between that
 * form and structs: what a message means, and whether it is addressed to
 * us, is the state machine's business (raft_rpc_check_address() helps).
 *
 * Parsing is as strict as the reference's: a missing required member, a
 * member of the wrong type or an unknown member is an error.  Printing
 * emits exactly the members the reference emits, so a parsed message
 * prints back to the same JSON (up to member order).  Unsigned 64-bit
 * numbers travel as JSON integers; values of 2**63 and more are sent, and
 * accepted, as the negative int64 with the same bits, as the reference
 * does. */
#ifndef OVSDB_RAFT_RPC_H
#define OVSDB_RAFT_RPC_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "lib/util.h"
#include "lib/uuid.h"

struct ds;
struct jsonrpc_msg;
struct ovsdb_error;

/* Every message type: enum member and wire method name. */
#define RAFT_RPC_TYPES                                                      \
    RAFT_RPC(HELLO_REQUEST, hello_request)                                  \
    RAFT_RPC(APPEND_REQUEST, append_request)                                \
    RAFT_RPC(APPEND_REPLY, append_reply)                                    \
    RAFT_RPC(VOTE_REQUEST, vote_request)                                    \
    RAFT_RPC(VOTE_REPLY, vote_reply)                                        \
    RAFT_RPC(ADD_SERVER_REQUEST, add_server_request)                        \
    RAFT_RPC(ADD_SERVER_REPLY, add_server_reply)                            \
    RAFT_RPC(REMOVE_SERVER_REQUEST, remove_server_request)                  \
    RAFT_RPC(REMOVE_SERVER_REPLY, remove_server_reply)                      \
    RAFT_RPC(INSTALL_SNAPSHOT_REQUEST, install_snapshot_request)            \
    RAFT_RPC(INSTALL_SNAPSHOT_REPLY, install_snapshot_reply)                \
    RAFT_RPC(BECOME_LEADER, become_leader)                                  \
    RAFT_RPC(EXECUTE_COMMAND_REQUEST, execute_command_request)              \
    RAFT_RPC(EXECUTE_COMMAND_REPLY, execute_command_reply)

enum raft_rpc_type {
#define RAFT_RPC(ENUM, NAME) RAFT_RPC_##ENUM,
    RAFT_RPC_TYPES
#undef RAFT_RPC
    RAFT_N_RPC_TYPES
};

/* "append_request" etc.; "<unknown>" for an out-of-range value. */
const char *raft_rpc_type_to_string(enum raft_rpc_type);
bool raft_rpc_type_from_string(const char *, enum raft_rpc_type *);

/* Members every message carries. */
struct raft_rpc_common {
    enum raft_rpc_type type;
    struct uuid cid;      /* "cluster": all zeros if absent (a joining
                           * server does not know it yet). */
    struct uuid from;     /* "from": the sender's server ID (required). */
    struct uuid to;       /* "to": the destination's server ID; all zeros
                           * if absent (allowed only in hello_request and
                           * add_server_request). */
    char *comment;        /* "comment": free text for logs, or NULL.
                           * Owned. */
};

/* Sent on every connection a member opens to another, right after it
 * connects (unless it is joining or leaving: then add_server_request or
 * remove_server_request take its place). */
struct raft_hello_request {
    struct raft_rpc_common common;
    char *address;        /* Sender's local address ("tcp:IP:PORT").
                           * Owned, never NULL after parsing. */
};

/* One log entry in an append_request ("log" array).  An entry carries a
 * database change ('data' and 'eid'), a new configuration ('servers'), a
 * new election timer, or nothing (a leader's first entry of its term). */
struct raft_rpc_entry {
    uint64_t term;
    json_t *data;             /* Object or array, or NULL.  Owned. */
    char *data_text;          /* Or, when 'data' is NULL, the same as JSON
                               * text ('data_len' bytes), or NULL.  Owned.
                               * A leader sends its log's text this way,
                               * neither parsed nor serialized again. */
    size_t data_len;
    struct uuid eid;          /* Entry ID: present iff 'data' is. */
    json_t *servers;          /* {SID: ADDRESS, ...}, or NULL.  Owned. */
    uint64_t election_timer;  /* Milliseconds, or 0 for none. */
};

struct raft_append_request {
    struct raft_rpc_common common;
    uint64_t term;            /* Leader's term. */
    uint64_t prev_log_index;  /* Index of the entry just before 'entries'. */
    uint64_t prev_log_term;   /* That entry's term. */
    uint64_t leader_commit;   /* Leader's commit index. */
    struct raft_rpc_entry *entries;   /* entries[0] has index
                                       * prev_log_index + 1.  Owned. */
    size_t n_entries;         /* 0 for a heartbeat. */
};

enum raft_append_result {
    RAFT_APPEND_OK,             /* "OK" */
    RAFT_APPEND_INCONSISTENCY,  /* "inconsistency" */
    RAFT_APPEND_IO_ERROR,       /* "I/O error" */
};
const char *raft_append_result_to_string(enum raft_append_result);
bool raft_append_result_from_string(const char *,
                                    enum raft_append_result *);

struct raft_append_reply {
    struct raft_rpc_common common;
    uint64_t term;            /* Follower's current term. */
    uint64_t log_end;         /* Follower's log end (last index + 1). */
    uint64_t prev_log_index;  /* Copied from the request. */
    uint64_t prev_log_term;   /* Copied from the request. */
    uint64_t n_entries;       /* Copied from the request. */
    enum raft_append_result result;
};

struct raft_vote_request {
    struct raft_rpc_common common;
    uint64_t term;            /* Candidate's term. */
    uint64_t last_log_index;  /* Candidate's last entry's index... */
    uint64_t last_log_term;   /* ...and term. */
    bool leadership_transfer; /* Sent only when true: the old leader asked
                               * for this election (become_leader), so
                               * voters skip their "recently heard from a
                               * leader" check. */
    bool is_prevote;          /* Sent only when true.  Open vSwitch 3.3's
                               * pre-vote; 3.1 neither sends nor accepts
                               * it. */
};

struct raft_vote_reply {
    struct raft_rpc_common common;
    uint64_t term;            /* Voter's current term. */
    struct uuid vote;         /* Whom the voter voted for in 'term'. */
    bool is_prevote;          /* As in raft_vote_request. */
};

/* Sent by a joining server (ovsdb-tool join-cluster) to each remote
 * address until one, the leader, adds it. */
struct raft_add_server_request {
    struct raft_rpc_common common;
    char *address;            /* Joining server's local address.  Owned. */
};

struct raft_add_server_reply {
    struct raft_rpc_common common;
    bool success;
    char **remote_addresses;  /* Addresses of other members to try, in
                               * wire order; owned (array and strings). */
    size_t n_remote_addresses;
};

/* Reasons in the 'comment' of add/remove_server_reply. */
#define RAFT_SERVER_COMPLETED "completed"
#define RAFT_SERVER_NOT_LEADER "not leader"
#define RAFT_SERVER_ALREADY_PRESENT "already in cluster"
#define RAFT_SERVER_ALREADY_GONE "already not in cluster"
#define RAFT_SERVER_IN_PROGRESS "in progress"
#define RAFT_SERVER_TIMEOUT "timeout"
#define RAFT_SERVER_LOST_LEADERSHIP "lost leadership"
#define RAFT_SERVER_CANCELED "canceled"
#define RAFT_SERVER_COMMITTING "committing"
#define RAFT_SERVER_SHUTDOWN "shutdown"
#define RAFT_SERVER_EMPTY "empty"

struct raft_remove_server_request {
    struct raft_rpc_common common;
    struct uuid server_id;    /* "server_id": the server to remove. */
};

struct raft_remove_server_reply {
    struct raft_rpc_common common;
    bool success;
    struct uuid target_server;  /* "target_server": the removed server, or
                                 * all zeros (absent) when it is the
                                 * destination itself. */
};

/* The whole snapshot in one message: there is no chunking. */
struct raft_install_snapshot_request {
    struct raft_rpc_common common;
    uint64_t term;            /* Leader's term. */
    uint64_t last_index;      /* The snapshot covers entries up to here... */
    uint64_t last_term;       /* ...whose term is this. */
    struct uuid last_eid;     /* Entry ID of the last data entry. */
    json_t *last_servers;     /* Configuration {SID: ADDRESS}.  Owned. */
    uint64_t election_timer;  /* Milliseconds. */
    json_t *data;             /* [SCHEMA, DATA] as in a snapshot record.
                               * Owned. */
};

struct raft_install_snapshot_reply {
    struct raft_rpc_common common;
    uint64_t term;            /* Receiver's term. */
    uint64_t last_index;      /* Copied from the request. */
    uint64_t last_term;       /* Copied from the request. */
};

/* A leader asks the destination to start an election now (leadership
 * transfer: the leader is leaving, shutting down or snapshotting). */
struct raft_become_leader {
    struct raft_rpc_common common;
    uint64_t term;            /* Sender's (the old leader's) term. */
};

/* A follower forwards a client's write to the leader. */
struct raft_execute_command_request {
    struct raft_rpc_common common;
    json_t *data;             /* The entry data (object or array).
                               * Owned. */
    struct uuid prereq;       /* Entry ID the leader's last data entry
                               * must have, or the command fails. */
    struct uuid result;       /* Entry ID to give the new entry. */
};

enum raft_command_status {
    RAFT_CMD_INCOMPLETE,      /* "operation still in progress" */
    RAFT_CMD_SUCCESS,         /* "success" */
    RAFT_CMD_NOT_LEADER,      /* "not leader" */
    RAFT_CMD_BAD_PREREQ,      /* "prerequisite check failed" */
    RAFT_CMD_LOST_LEADERSHIP, /* "lost leadership" */
    RAFT_CMD_SHUTDOWN,        /* "server shutdown" */
    RAFT_CMD_IO_ERROR,        /* "I/O error" */
    RAFT_CMD_TIMEOUT,         /* "timeout" */
    RAFT_CMD_UNKNOWN,         /* "unknown outcome": this member's own
                               * verdict, never sent or accepted on the
                               * wire (see raft.h). */
};
const char *raft_command_status_to_string(enum raft_command_status);
bool raft_command_status_from_string(const char *,
                                     enum raft_command_status *);

struct raft_execute_command_reply {
    struct raft_rpc_common common;
    struct uuid result;       /* Copied from the request. */
    enum raft_command_status status;
    uint64_t commit_index;    /* Index of the committed entry (sent only if
                               * nonzero, that is, on success). */
};

union raft_rpc {
    enum raft_rpc_type type;
    struct raft_rpc_common common;
#define RAFT_RPC(ENUM, NAME) struct raft_##NAME NAME;
    RAFT_RPC_TYPES
#undef RAFT_RPC
};

/* Frees what 'rpc' owns (not 'rpc' itself).  NULL is fine. */
void raft_rpc_uninit(union raft_rpc *rpc);
/* Returns a deep copy; caller must free with raft_rpc_destroy(). */
union raft_rpc *raft_rpc_clone(const union raft_rpc *rpc);
/* raft_rpc_uninit() and free().  NULL is fine. */
void raft_rpc_destroy(union raft_rpc *rpc);

/* Parses 'msg' (borrowed) into '*rpc'.  On success returns NULL and
 * '*rpc' owns its contents (free with raft_rpc_uninit()); on error
 * returns a "syntax error" naming the problem ("Parsing raft
 * append_request RPC failed: Required 'term' member is missing.") and
 * leaves '*rpc' empty (raft_rpc_uninit() is still fine).  Never crashes
 * on any message. */
struct ovsdb_error *raft_rpc_from_jsonrpc(const struct jsonrpc_msg *msg,
                                          union raft_rpc *rpc)
    WARN_UNUSED_RESULT;

/* Returns 'rpc' (borrowed) as a new notification; caller must free with
 * jsonrpc_msg_destroy() (or pass it to jsonrpc_send(), which takes
 * ownership). */
struct jsonrpc_msg *raft_rpc_to_jsonrpc(const union raft_rpc *rpc);
/* True if 'rpc' is better sent by raft_rpc_serialize() (its entries carry
 * 'data_text'). */
bool raft_rpc_has_text(const union raft_rpc *rpc);
/* Appends 'rpc' to 'out' as a serialized JSON-RPC message, the same as
 * raft_rpc_to_jsonrpc() would give but copying 'data_text' as it is. */
void raft_rpc_serialize(const union raft_rpc *rpc, struct ds *out);

/* Checks that 'rpc' belongs to cluster '*cid' and is addressed to server
 * 'sid', as the reference does on receipt: a message without "cluster"
 * passes; if '*cid' is all zeros (a joining server) it learns the
 * message's cluster and '*learned' (if nonnull) is set true.  "to" must
 * be 'sid' when present.  Returns NULL or an error ("wrong cluster X
 * (expected Y)", "misrouted message (addressed to X but we're Y)"). */
struct ovsdb_error *raft_rpc_check_address(const union raft_rpc *rpc,
                                           struct uuid *cid,
                                           const struct uuid *sid,
                                           bool *learned)
    WARN_UNUSED_RESULT;

/* Appends a one-line description for logs, in the reference's style:
 *     append_request "heartbeat": term=3 prev_log_index=20 ... */
void raft_rpc_format(const union raft_rpc *rpc, struct ds *out);

/* The term 'rpc' carries, or 0 for types without one. */
uint64_t raft_rpc_get_term(const union raft_rpc *rpc);

/* The highest log index that must be durable on disk before 'rpc' may be
 * sent (0 for none): a reply promises what it reports. */
uint64_t raft_rpc_get_min_sync_index(const union raft_rpc *rpc);

/* Returns true for an append_request or append_reply whose comment is
 * "heartbeat" (sent every election_timer / 3; the reference does not log
 * them). */
bool raft_rpc_is_heartbeat(const union raft_rpc *rpc);

#endif /* ovsdb/raft/raft-rpc.h */
