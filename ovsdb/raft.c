/* ovsdb/raft.c: this server's Raft member.  See raft.h.
 *
 * The persistent state (term, vote, log, commit index, snapshot) is the
 * clustered file's, read and written through ovsdb/cluster-file; this
 * module adds the volatile state (role, leader, what is applied) and the
 * rules of the protocol. */
#include <config.h>

#include "ovsdb/raft.h"

#include <inttypes.h>
#include <jansson.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "ovsdb/cluster-file.h"
#include "ovsdb/error.h"
#include "ovsdb/log.h"
#include "ovsdb/ovsdb.h"

VLOG_DEFINE_THIS_MODULE(raft);

enum raft_role {
    RAFT_FOLLOWER,
    RAFT_CANDIDATE,
    RAFT_LEADER,
};

struct raft {
    char *file_name;
    struct cluster_file *cf;
    enum raft_role role;
    struct uuid leader;             /* Zero if unknown. */

    /* Elections, for cluster/status. */
    long long election_start;       /* time_msec(), or 0 if none yet. */
    long long election_won;         /* time_msec(), or 0. */
    const char *election_reason;
    uint64_t leader_start_index;    /* log_end when this server won. */

    /* What the database above has applied. */
    uint64_t applied_index;
    struct uuid applied_eid;

    /* Proposals since the last raft_sync(), to undo on a failed write. */
    uint64_t sync_log_end;          /* log_end at the last sync. */
    off_t sync_offset;
    unsigned long long sync_records;
    unsigned long long sync_cf_records;

    unsigned int n_disconnections;

    /* Commands whose entries are in the local log but not committed, in
     * log order. */
    struct raft_command **commands;
    size_t n_commands, allocated_commands;
};

struct raft_command {
    int n_refs;                     /* The caller's, and raft's if listed. */
    enum raft_command_status status;
    uint64_t index;                 /* 0 if none assigned. */
    struct uuid eid;
};

static void complete_commands(struct raft *, uint64_t commit_index,
                              enum raft_command_status);
static void set_applied(struct raft *, uint64_t index,
                        const struct uuid *eid);

static const char *
role_to_string(enum raft_role role)
{
    switch (role) {
    case RAFT_FOLLOWER: return "follower";
    case RAFT_CANDIDATE: return "candidate";
    case RAFT_LEADER: return "leader";
    }
    return "<error>";
}

/* Notes where the file stands, so that raft_sync() can cut off what is
 * written after this if it fails. */
static void
mark_synced(struct raft *raft)
{
    raft->sync_log_end = raft->cf->log_end;
    raft->sync_offset = ovsdb_log_get_offset(raft->cf->log);
    raft->sync_records = ovsdb_log_get_n_records(raft->cf->log);
    raft->sync_cf_records = raft->cf->n_records;
}

/* True if this server is the only voting member of its configuration. */
static bool
is_alone(const struct raft *raft)
{
    const json_t *servers = cluster_file_get_servers(raft->cf);
    return (servers && json_object_size(servers) == 1
            && raft_servers_contain(servers, &raft->cf->header.sid));
}

/* A cluster of one wins its election at once: a new term with its own
 * vote, then (as the reference) the leader record and a no-op entry of the
 * new term, which commits everything before it. */
static struct ovsdb_error *
elect_self(struct raft *raft)
{
    struct cluster_file *cf = raft->cf;
    const struct uuid *sid = &cf->header.sid;
    uint64_t term = cf->term + 1;

    raft->election_start = time_msec();
    raft->election_reason = "timeout";
    raft->role = RAFT_CANDIDATE;
    VLOG_INFO("term %"PRIu64": starting election", term);

    struct ovsdb_error *error = cluster_file_write_term(cf, term, sid);
    if (!error) {
        error = ovsdb_log_commit_block(cf->log);
    }
    if (error) {
        return error;
    }
    raft->role = RAFT_LEADER;
    raft->leader = *sid;
    raft->election_won = time_msec();
    raft->leader_start_index = cf->log_end;
    VLOG_INFO("term %"PRIu64": elected leader by 1+ of 1 servers", term);

    uint64_t index;
    error = cluster_file_write_leader(cf, term, sid);
    if (!error) {
        error = cluster_file_append_entry(cf, term, NULL, 0, NULL, NULL, 0,
                                          &index);
    }
    if (!error) {
        error = ovsdb_log_commit_block(cf->log);
    }
    if (!error) {
        error = cluster_file_write_commit_index(cf, index);
    }
    return error;
}

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
    if (cf->header.joining) {
        cluster_file_close(cf);
        return ovsdb_error(OVSDB_E_NOT_SUPP, "%s: joining a cluster is not "
                           "supported yet: this server can serve only "
                           "clusters created by create-cluster", path);
    }

    struct raft *raft = xzalloc(sizeof *raft);
    raft->file_name = xstrdup(path);
    raft->cf = cf;
    raft->role = RAFT_FOLLOWER;
    raft->applied_index = cf->header.snap_index;
    raft->applied_eid = cf->header.snap.eid;
    VLOG_INFO("local server ID is "RAFT_SID_FMT,
              RAFT_SID_ARGS(&cf->header.sid));

    if (is_alone(raft)) {
        error = elect_self(raft);
        if (error) {
            raft_close(raft);
            return error;
        }
    } else {
        VLOG_WARN("%s: the cluster has other servers; this server cannot "
                  "talk to them yet and serves the committed data "
                  "read-only", path);
    }
    mark_synced(raft);
    *raftp = raft;
    return NULL;
}

void
raft_close(struct raft *raft)
{
    if (raft) {
        complete_commands(raft, 0, RAFT_CMD_SHUTDOWN);
        free(raft->commands);
        cluster_file_close(raft->cf);
        free(raft->file_name);
        free(raft);
    }
}

struct ovsdb_error *
raft_read_db(struct raft *raft, struct ovsdb **dbp)
{
    struct cluster_file *cf = raft->cf;
    struct uuid eid;
    struct ovsdb_error *error = cluster_file_replay(cf, cf->commit_index,
                                                    dbp, &eid);
    if (!error) {
        set_applied(raft, MAX(cf->commit_index, cf->log_start - 1), &eid);
    }
    return error;
}

void
raft_run(struct raft *raft OVS_UNUSED)
{
}

void
raft_wait(struct raft *raft OVS_UNUSED)
{
}

const char *
raft_get_name(const struct raft *raft)
{
    return raft->cf->header.name;
}

const char *
raft_get_file_name(const struct raft *raft)
{
    return raft->file_name;
}

const char *
raft_get_local_address(const struct raft *raft)
{
    return raft->cf->header.local_address;
}

const struct uuid *
raft_get_cid(const struct raft *raft)
{
    return &raft->cf->header.cid;
}

const struct uuid *
raft_get_sid(const struct raft *raft)
{
    return &raft->cf->header.sid;
}

bool
raft_is_leader(const struct raft *raft)
{
    return raft->role == RAFT_LEADER;
}

bool
raft_is_connected(const struct raft *raft)
{
    return !uuid_is_zero(&raft->leader);
}

uint64_t
raft_get_term(const struct raft *raft)
{
    return raft->cf->term;
}

uint64_t
raft_get_commit_index(const struct raft *raft)
{
    return raft->cf->commit_index;
}

uint64_t
raft_get_applied_index(const struct raft *raft)
{
    return raft->applied_index;
}

const struct uuid *
raft_get_applied_eid(const struct raft *raft)
{
    return &raft->applied_eid;
}

static struct raft_command *
command_create(enum raft_command_status status, const struct uuid *eid)
{
    struct raft_command *cmd = xzalloc(sizeof *cmd);
    cmd->n_refs = 1;
    cmd->status = status;
    cmd->eid = *eid;
    return cmd;
}

void
raft_command_unref(struct raft_command *cmd)
{
    if (cmd && --cmd->n_refs == 0) {
        free(cmd);
    }
}

enum raft_command_status
raft_command_get_status(const struct raft_command *cmd)
{
    return cmd->status;
}

uint64_t
raft_command_get_index(const struct raft_command *cmd)
{
    return cmd->index;
}

/* Ends every listed command whose entry is at or below 'commit_index'
 * with success, or (if 'commit_index' is 0) every listed command with
 * 'status'. */
static void
complete_commands(struct raft *raft, uint64_t commit_index,
                  enum raft_command_status status)
{
    size_t i;
    for (i = 0; i < raft->n_commands; i++) {
        struct raft_command *cmd = raft->commands[i];
        if (commit_index && cmd->index > commit_index) {
            break;
        }
        cmd->status = commit_index ? RAFT_CMD_SUCCESS : status;
        raft_command_unref(cmd);
    }
    memmove(raft->commands, &raft->commands[i],
            (raft->n_commands - i) * sizeof *raft->commands);
    raft->n_commands -= i;
}

struct raft_command *
raft_command_execute(struct raft *raft, const char *data, size_t size,
                     const struct uuid *prereq, const struct uuid *eid)
{
    struct cluster_file *cf = raft->cf;
    if (raft->role != RAFT_LEADER) {
        return command_create(RAFT_CMD_NOT_LEADER, eid);
    }
    if (prereq && !uuid_equals(prereq,
                               cluster_file_get_eid(cf, cf->log_end - 1))) {
        return command_create(RAFT_CMD_BAD_PREREQ, eid);
    }
    struct raft_command *cmd = command_create(RAFT_CMD_INCOMPLETE, eid);
    struct ovsdb_error *error = cluster_file_append_entry(
        cf, cf->term, data, size, eid, NULL, 0, &cmd->index);
    if (error) {
        char *msg = ovsdb_error_to_string_free(error);
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
        VLOG_WARN_RL(&rl, "%s: appending an entry failed: %s",
                     raft->file_name, msg);
        free(msg);
        cmd->status = RAFT_CMD_IO_ERROR;
        return cmd;
    }
    if (raft->n_commands >= raft->allocated_commands) {
        raft->commands = x2nrealloc(raft->commands,
                                    &raft->allocated_commands,
                                    sizeof *raft->commands);
    }
    cmd->n_refs++;
    raft->commands[raft->n_commands++] = cmd;
    return cmd;
}

struct ovsdb_error *
raft_sync(struct raft *raft)
{
    struct cluster_file *cf = raft->cf;
    if (cf->log_end == raft->sync_log_end) {
        return NULL;
    }
    struct ovsdb_error *error = ovsdb_log_commit_block_or_undo(
        cf->log, raft->sync_offset, raft->sync_records);
    if (!error && is_alone(raft)) {
        /* On disk on the only server: a majority has it.  The commit index
         * need not be durable (a restart commits the whole log again). */
        error = cluster_file_write_commit_index(cf, cf->log_end - 1);
        if (error) {
            /* The entries are safe; only the record of their commit was
             * not written.  They count as committed. */
            char *s = ovsdb_error_to_string_free(error);
            VLOG_WARN("%s: writing the commit index failed: %s",
                      raft->file_name, s);
            free(s);
            error = NULL;
            cluster_file_set_commit_index(cf, cf->log_end - 1);
        }
    }
    if (error) {
        cluster_file_forget(cf, raft->sync_log_end, raft->sync_cf_records);
        complete_commands(raft, 0, RAFT_CMD_IO_ERROR);
    } else {
        complete_commands(raft, cf->commit_index, RAFT_CMD_SUCCESS);
    }
    mark_synced(raft);
    return error;
}

/* Marks everything up to 'index' as applied. */
static void
set_applied(struct raft *raft, uint64_t index, const struct uuid *eid)
{
    raft->applied_index = index;
    if (eid && !uuid_is_zero(eid)) {
        raft->applied_eid = *eid;
    }
}

const char *
raft_next_entry(struct raft *raft, size_t *size, struct uuid *eid,
                bool *is_snapshot)
{
    const struct cluster_file *cf = raft->cf;
    *is_snapshot = false;
    while (raft->applied_index < cf->commit_index) {
        uint64_t index = raft->applied_index + 1;
        const struct cluster_entry *e = cluster_file_get_entry(cf, index);
        set_applied(raft, index, &e->eid);
        if (e->data) {
            *size = e->data_size;
            *eid = e->eid;
            return e->data;
        }
    }
    return NULL;
}

struct ovsdb_error *
raft_store_snapshot(struct raft *raft, const char *data, size_t size)
{
    struct ovsdb_error *error = cluster_file_save_snapshot(
        raft->cf, raft->applied_index, data, size);
    mark_synced(raft);
    return error;
}

uint64_t
raft_get_n_log_entries(const struct raft *raft)
{
    return raft->cf->log_end - raft->cf->log_start;
}

long long
raft_get_file_size(const struct raft *raft)
{
    return ovsdb_log_get_offset(raft->cf->log);
}

/* Appends the short and long forms of 'id': "9b40 (9b40345a-...)". */
static void
put_id(struct ds *out, const struct uuid *id)
{
    ds_put_format(out, RAFT_SID_FMT" ("UUID_FMT")", RAFT_SID_ARGS(id),
                  UUID_ARGS(id));
}

/* Appends "self", or the short form of 'sid'. */
static void
put_sid(struct ds *out, const struct raft *raft, const struct uuid *sid)
{
    if (uuid_equals(sid, raft_get_sid(raft))) {
        ds_put_cstr(out, "self");
    } else if (uuid_is_zero(sid)) {
        ds_put_cstr(out, "unknown");
    } else {
        ds_put_format(out, RAFT_SID_FMT, RAFT_SID_ARGS(sid));
    }
}

static void
put_servers(struct ds *out, const struct raft *raft)
{
    const struct cluster_file *cf = raft->cf;
    const json_t *servers = cluster_file_get_servers(cf);
    const char *sid_s;
    json_t *address;
    json_object_foreach ((json_t *) servers, sid_s, address) {
        struct uuid sid;
        if (!uuid_from_string(&sid, sid_s)) {
            continue;
        }
        ds_put_format(out, "    "RAFT_SID_FMT" ("RAFT_SID_FMT" at %s)",
                      RAFT_SID_ARGS(&sid), RAFT_SID_ARGS(&sid),
                      json_string_value(address));
        if (uuid_equals(&sid, raft_get_sid(raft))) {
            ds_put_cstr(out, " (self)");
        }
        if (raft->role == RAFT_LEADER) {
            /* Only this server's own indexes exist today. */
            ds_put_format(out, " next_index=%"PRIu64" match_index=%"PRIu64,
                          raft->leader_start_index, cf->log_end - 1);
        }
        ds_put_char(out, '\n');
    }
}

void
raft_put_status(const struct raft *raft, struct ds *out)
{
    const struct cluster_file *cf = raft->cf;
    const struct uuid *sid = raft_get_sid(raft);
    long long now = time_msec();

    ds_put_format(out, RAFT_SID_FMT"\n", RAFT_SID_ARGS(sid));
    ds_put_format(out, "Name: %s\n", raft_get_name(raft));
    ds_put_cstr(out, "Cluster ID: ");
    put_id(out, raft_get_cid(raft));
    ds_put_cstr(out, "\nServer ID: ");
    put_id(out, sid);
    ds_put_format(out, "\nAddress: %s\n", raft_get_local_address(raft));
    ds_put_cstr(out, "Status: cluster member\n");
    ds_put_format(out, "Role: %s\n", role_to_string(raft->role));
    ds_put_format(out, "Term: %"PRIu64"\n", cf->term);
    ds_put_cstr(out, "Leader: ");
    put_sid(out, raft, &raft->leader);
    ds_put_cstr(out, "\nVote: ");
    put_sid(out, raft, &cf->vote);
    ds_put_cstr(out, "\n\n");
    if (raft->election_start) {
        ds_put_format(out, "Last Election started %lld ms ago, reason: "
                      "%s\n", now - raft->election_start,
                      raft->election_reason);
    }
    if (raft->election_won) {
        ds_put_format(out, "Last Election won: %lld ms ago\n",
                      now - raft->election_won);
    }
    ds_put_format(out, "Election timer: %"PRIu64"\n",
                  cluster_file_get_election_timer(cf));
    ds_put_format(out, "Log: [%"PRIu64", %"PRIu64"]\n", cf->log_start,
                  cf->log_end);
    ds_put_format(out, "Entries not yet committed: %"PRIu64"\n",
                  cf->log_end - 1 - cf->commit_index);
    ds_put_format(out, "Entries not yet applied: %"PRIu64"\n",
                  cf->commit_index - MIN(cf->commit_index,
                                         raft->applied_index));
    ds_put_cstr(out, "Connections:\n");
    ds_put_format(out, "Disconnections: %u\n", raft->n_disconnections);
    ds_put_cstr(out, "Servers:\n");
    put_servers(out, raft);
}
