/* ovsdb/raft/raft-commands.c: proposals of this Raft member (raft.h's
 * raft_command_*): on the leader, entries appended to the log and
 * completed when they commit; on a follower, execute_command_request to
 * the leader, completed by its execute_command_reply or by the commit of
 * the entry; the leader's side of forwarded commands.  See raft-private.h.
 */
#include <config.h>

#include "ovsdb/raft/raft.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/raft/raft-conn.h"
#include "ovsdb/raft/raft-private.h"
#include "ovsdb/format/raft-record.h"

VLOG_DEFINE_THIS_MODULE(raft_commands);

static struct raft_command *
command_create(enum raft_command_status status, const struct uuid *eid)
{
    struct raft_command *cmd = xzalloc(sizeof *cmd);
    cmd->n_refs = 1;
    cmd->status = status;
    if (eid) {
        cmd->eid = *eid;
    }
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

static void
list_command(struct raft *raft, struct raft_command *cmd)
{
    if (raft->n_commands >= raft->allocated_commands) {
        raft->commands = x2nrealloc(raft->commands, &raft->allocated_commands,
                                    sizeof *raft->commands);
    }
    cmd->n_refs++;
    raft->commands[raft->n_commands++] = cmd;
}

void
raft_send_execute_command_reply(struct raft *raft, const struct uuid *to,
                                const struct uuid *eid,
                                enum raft_command_status status,
                                uint64_t commit_index)
{
    /* (The "still under way" replies are not what the tests mean.) */
    bool final = status != RAFT_CMD_INCOMPLETE;
    if (final) {
        raft_failure_test_crash(RAFT_FT_CRASH_BEFORE_SEND_EXEC_REP,
                                "crash before sending execute_command_reply");
    }
    union raft_rpc
        rpc = { .execute_command_reply = {
                    .common = { .type = RAFT_RPC_EXECUTE_COMMAND_REPLY,
                                .to = *to },
                    .result = *eid,
                    .status = status,
                    .commit_index = commit_index,
                } };
    raft_send_rpc(raft, &rpc);
    if (final) {
        raft_failure_test_crash(RAFT_FT_CRASH_AFTER_SEND_EXEC_REP,
                                "crash after sending execute_command_reply.");
    }
}

/* Ends listed command number 'i' with 'status'. */
void
raft_complete_command(struct raft *raft, size_t i,
                      enum raft_command_status status)
{
    struct raft_command *cmd = raft->commands[i];
    if (!uuid_is_zero(&cmd->sid) && status != RAFT_CMD_UNKNOWN) {
        /* (A follower that hears nothing decides for itself.) */
        raft_send_execute_command_reply(raft, &cmd->sid, &cmd->eid, status,
                                        status == RAFT_CMD_SUCCESS ? cmd->index
                                                                   : 0);
    }
    cmd->status = status;
    memmove(&raft->commands[i], &raft->commands[i + 1],
            (raft->n_commands - i - 1) * sizeof *raft->commands);
    raft->n_commands--;
    raft_command_unref(cmd);
}

void
raft_complete_all_commands(struct raft *raft, enum raft_command_status status)
{
    while (raft->n_commands) {
        raft_complete_command(raft, raft->n_commands - 1, status);
    }
}

void
raft_complete_truncated(struct raft *raft, uint64_t from,
                        enum raft_command_status status)
{
    for (size_t i = 0; i < raft->n_commands;) {
        struct raft_command *cmd = raft->commands[i];
        if (cmd->index && cmd->index >= from) {
            raft_complete_command(raft, i, status);
        } else {
            i++;
        }
    }
}

ssize_t
raft_find_command(const struct raft *raft, const struct uuid *eid)
{
    for (size_t i = 0; i < raft->n_commands; i++) {
        if (uuid_equals(&raft->commands[i]->eid, eid)) {
            return i;
        }
    }
    return -1;
}

void
raft_note_command_entry(struct raft *raft, uint64_t index,
                        const struct uuid *eid)
{
    ssize_t i = raft_find_command(raft, eid);
    if (i >= 0 && !raft->commands[i]->index) {
        /* A command this member forwarded: from now on the log tells its
         * fate (commit, or truncation by a leader that lacks it). */
        raft->commands[i]->index = index;
        raft->commands[i]->timestamp = time_msec();
    }
}

void
raft_complete_forwarded_before(struct raft *raft, uint64_t commit_term)
{
    /* The leader of 'forward_term' appends the command in that term or
     * not at all: it reads its connections in order and must spend an
     * election timeout as a follower before it can lead again, so the
     * request is read long before.  Terms only grow along a log, so once
     * an entry of a later term is committed, no entry of 'forward_term'
     * can commit after it; and one before it reached the local log, where
     * raft_note_command_entry() would have given the command its index. */
    for (size_t i = 0; i < raft->n_commands;) {
        struct raft_command *cmd = raft->commands[i];
        if (!cmd->index && cmd->forward_term
            && cmd->forward_term < commit_term) {
            raft_complete_command(raft, i, RAFT_CMD_LOST_LEADERSHIP);
        } else {
            i++;
        }
    }
}

/* Leader: appends an entry of the current term to the local log (sent to
 * the others by flush_appends(), durable at the next fsync).  Returns a
 * listed command for an entry with data, else NULL. */
struct raft_command *
raft_initiate(struct raft *raft, const char *data, size_t size,
              const struct uuid *eid, const json_t *servers,
              uint64_t election_timer, enum raft_command_status *statusp)
{
    struct cluster_file *cf = raft->cf;
    uint64_t index = cf->log_end;
    struct ovsdb_error *error = raft_write_entry(raft, cf->term, index, data,
                                                 size, eid, servers,
                                                 election_timer);
    if (error) {
        if (raft_is_alone(raft)) {
            char *s = ovsdb_error_to_string_free(error);
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
            VLOG_WARN_RL(&rl, "%s: appending an entry failed: %s",
                         raft->file_name, s);
            free(s);
        } else {
            raft_fail(raft, error);
        }
        *statusp = RAFT_CMD_IO_ERROR;
        return NULL;
    }
    *statusp = RAFT_CMD_INCOMPLETE;
    if (!data) {
        return NULL;
    }
    struct raft_command *cmd = command_create(RAFT_CMD_INCOMPLETE, eid);
    cmd->index = index;
    cmd->timestamp = time_msec();
    list_command(raft, cmd);
    raft_command_unref(cmd); /* Only the list's reference is left. */
    return cmd;
}

static const struct uuid *
current_eid(const struct raft *raft)
{
    return cluster_file_get_eid(raft->cf, raft->cf->log_end - 1);
}

struct raft_command *
raft_command_execute(struct raft *raft, const char *data, size_t size,
                     const struct uuid *prereq, const struct uuid *eid)
{
    if (raft->joining || raft->leaving || raft->left || raft->failed) {
        return command_create(RAFT_CMD_SHUTDOWN, eid);
    }
    if (raft->role != RAFT_LEADER) {
        /* Forward it to the leader, if there is one to reach. */
        if (raft->role != RAFT_FOLLOWER || uuid_is_zero(&raft->leader)
            || !prereq || !data
            || !raft_conns_is_connected(raft->conns, &raft->leader)) {
            return command_create(RAFT_CMD_NOT_LEADER, eid);
        }
        char *msg = NULL;
        json_t *json = jsonx_from_buffer(data, size, &msg);
        if (!json) {
            VLOG_WARN("%s: cannot forward a command: %s", raft->file_name,
                      msg);
            free(msg);
            return command_create(RAFT_CMD_IO_ERROR, eid);
        }
        union raft_rpc
            rpc = { .execute_command_request = {
                        .common = { .type = RAFT_RPC_EXECUTE_COMMAND_REQUEST,
                                    .to = raft->leader },
                        .data = json,
                        .prereq = *prereq,
                        .result = *eid,
                    } };
        raft_failure_test_crash(RAFT_FT_CRASH_BEFORE_SEND_EXEC_REQ,
                                "crash before sending "
                                "execute_command_request");
        raft_send_rpc(raft, &rpc);
        raft_failure_test_crash(RAFT_FT_CRASH_AFTER_SEND_EXEC_REQ,
                                "crash after sending "
                                "execute_command_request");
        json_decref(json);
        struct raft_command *cmd = command_create(RAFT_CMD_INCOMPLETE, eid);
        cmd->timestamp = time_msec();
        cmd->forward_term = raft->cf->term;
        list_command(raft, cmd);
        return cmd;
    }
    if (prereq && !uuid_equals(prereq, current_eid(raft))) {
        return command_create(RAFT_CMD_BAD_PREREQ, eid);
    }
    enum raft_command_status status;
    struct raft_command *cmd = raft_initiate(raft, data, size, eid, NULL, 0,
                                             &status);
    if (!cmd) {
        return command_create(status, eid);
    }
    cmd->n_refs++; /* The caller's. */
    return cmd;
}

void
raft_handle_execute_command_request(
    struct raft *raft, const struct raft_execute_command_request *rq)
{
    enum raft_command_status status = RAFT_CMD_NOT_LEADER;
    if (raft->role == RAFT_LEADER) {
        const struct uuid *eid = current_eid(raft);
        if (!uuid_equals(&rq->prereq, eid)) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
            VLOG_INFO_RL(&rl,
                         "current entry eid " UUID_FMT " does not match "
                         "prerequisite " UUID_FMT
                         " in execute_command_request",
                         UUID_ARGS(eid), UUID_ARGS(&rq->prereq));
            status = RAFT_CMD_BAD_PREREQ;
        } else {
            struct ds text = DS_EMPTY_INITIALIZER;
            raft_data_put_json(&text, rq->data);
            struct raft_command *cmd = raft_initiate(raft, text.string,
                                                     text.length, &rq->result,
                                                     NULL, 0, &status);
            ds_destroy(&text);
            if (cmd) {
                cmd->sid = rq->common.from;
                return;
            }
        }
    }
    raft_send_execute_command_reply(raft, &rq->common.from, &rq->result,
                                    status, 0);
}

void
raft_handle_execute_command_reply(struct raft *raft,
                                  const struct raft_execute_command_reply *rpy)
{
    ssize_t i = raft_find_command(raft, &rpy->result);
    if (i < 0) {
        return;
    }
    struct raft_command *cmd = raft->commands[i];
    switch (rpy->status) {
    case RAFT_CMD_INCOMPLETE:
        /* The leader has it under way. */
        cmd->timestamp = time_msec();
        break;
    case RAFT_CMD_LOST_LEADERSHIP:
    case RAFT_CMD_TIMEOUT:
    case RAFT_CMD_SHUTDOWN:
    case RAFT_CMD_UNKNOWN:
        /* The leader gave up waiting, but the entry it appended may still
         * commit under the next one (the reference's leader says "timeout"
         * after two election timeouts, even while it leads): this member
         * keeps waiting to see its fate in the log (run_timers()). */
        break;
    case RAFT_CMD_SUCCESS:
    case RAFT_CMD_NOT_LEADER:
    case RAFT_CMD_BAD_PREREQ:
    case RAFT_CMD_IO_ERROR:
    default:
        /* Committed, or never appended. */
        cmd->index = rpy->commit_index;
        raft_complete_command(raft, i, rpy->status);
        break;
    }
}
