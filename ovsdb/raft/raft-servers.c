/* ovsdb/raft/raft-servers.c: the servers of this Raft member's cluster: the
 * configuration (from the log) and the connections it needs, the leader's
 * membership changes (adding a server after it caught up, removing one,
 * one configuration entry at a time), joining and leaving, and the control
 * commands and cluster/status report about them.  See raft.h and
 * raft-private.h. */
#include <config.h>

#include "ovsdb/raft/raft.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/log.h"
#include "ovsdb/raft/raft-conn.h"
#include "ovsdb/raft/raft-private.h"

VLOG_DEFINE_THIS_MODULE(raft_servers);

static const char *
phase_to_string(enum server_phase phase)
{
    switch (phase) {
    case PHASE_STABLE:
        return "stable";
    case PHASE_CATCHUP:
        return "adding: catchup";
    case PHASE_CAUGHT_UP:
        return "adding: caught up";
    case PHASE_COMMITTING:
        return "adding: committing";
    case PHASE_REMOVE:
        return "removing";
    }
    return "<error>";
}

static struct server *
server_create(const struct uuid *sid, const char *address)
{
    struct server *s = xzalloc(sizeof *s);
    s->sid = *sid;
    s->address = xstrdup(address);
    s->nickname = raft_conns_nickname(address, sid);
    return s;
}

void
raft_server_destroy(struct server *s)
{
    if (s) {
        free(s->address);
        free(s->nickname);
        free(s);
    }
}

struct server *
raft_set_find(const struct server_set *set, const struct uuid *sid)
{
    for (size_t i = 0; i < set->n; i++) {
        if (uuid_equals(&set->s[i]->sid, sid)) {
            return set->s[i];
        }
    }
    return NULL;
}

static void
set_add(struct server_set *set, struct server *s)
{
    if (set->n >= set->allocated) {
        set->s = x2nrealloc(set->s, &set->allocated, sizeof *set->s);
    }
    set->s[set->n++] = s;
}

void
raft_set_remove(struct server_set *set, const struct server *s)
{
    for (size_t i = 0; i < set->n; i++) {
        if (set->s[i] == s) {
            memmove(&set->s[i], &set->s[i + 1],
                    (set->n - i - 1) * sizeof *set->s);
            set->n--;
            return;
        }
    }
}

void
raft_set_clear(struct server_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        raft_server_destroy(set->s[i]);
    }
    set->n = 0;
}

/* Returns 'set' as a servers object {SID: ADDRESS}; new reference. */
static json_t *
set_to_json(const struct server_set *set)
{
    json_t *json = json_object();
    for (size_t i = 0; i < set->n; i++) {
        char sid[UUID_LEN + 1];
        uuid_to_string(&set->s[i]->sid, sid);
        json_object_set_new(json, sid, json_string(set->s[i]->address));
    }
    return json;
}

/* A server of the configuration other than this one. */
struct server *
raft_find_peer(const struct raft *raft, const struct uuid *sid)
{
    struct server *s = raft_set_find(&raft->servers, sid);
    return s && !raft_is_self(raft, sid) ? s : NULL;
}

/* The short name of 'sid' for logs and cluster/status.  Borrowed, valid
 * until the fourth next call (so that one message may name several). */
const char *
raft_nickname(const struct raft *raft, const struct uuid *sid)
{
    static char bufs[4][8];
    static unsigned int next;
    char *buf = bufs[next++ % ARRAY_SIZE(bufs)];
    if (raft_is_self(raft, sid)) {
        return raft->local_nickname;
    }
    const struct server *s = raft_set_find(&raft->servers, sid);
    if (!s) {
        s = raft_set_find(&raft->add_servers, sid);
    }
    if (s) {
        return s->nickname;
    }
    snprintf(buf, sizeof bufs[0], RAFT_SID_FMT, RAFT_SID_ARGS(sid));
    return buf;
}

/* The leader's view of a server, when this server is elected or the
 * server is first seen. */
void
raft_init_leader_view(struct raft *raft, struct server *s)
{
    s->next_index = raft->cf->log_end;
    s->match_index = 0;
    s->phase = PHASE_STABLE;
    s->replied = false;
    s->snapshot_in_flight = false;
}

/* Dials every other server of the configuration (and, joining, the
 * remote addresses); closes the sessions to servers that left it. */
static void
update_conns(struct raft *raft)
{
    if (!raft->conns) {
        return;
    }
    struct uuid *keep = xmalloc((raft->servers.n + 1) * sizeof *keep);
    size_t n = 0;
    bool in_config = false;
    for (size_t i = 0; i < raft->servers.n; i++) {
        const struct server *s = raft->servers.s[i];
        keep[n++] = s->sid;
        if (raft_is_self(raft, &s->sid)) {
            in_config = true;
        } else {
            raft_conns_connect(raft->conns, s->address, &s->sid);
        }
    }
    if (raft->joining) {
        for (size_t i = 0; i < raft->n_remotes; i++) {
            raft_conns_connect(raft->conns, raft->remotes[i], NULL);
        }
    } else if (in_config) {
        raft_conns_retain(raft->conns, keep, n);
    }
    free(keep);
}

/* Makes 'raft->servers' the configuration of the newest servers entry of
 * the log (or the snapshot's), keeping what is known of each server. */
void
raft_reload_servers(struct raft *raft)
{
    const json_t *config = cluster_file_get_servers(raft->cf);
    struct server_set new = { NULL, 0, 0 };
    const char *sid_s;
    json_t *address;
    json_object_foreach((json_t *) config, sid_s, address)
    {
        struct uuid sid;
        if (!uuid_from_string(&sid, sid_s) || !json_is_string(address)) {
            continue;
        }
        struct server *s = raft_set_find(&raft->servers, &sid);
        if (s) {
            raft_set_remove(&raft->servers, s);
        } else if ((s = raft_set_find(&raft->add_servers, &sid)) != NULL) {
            raft_set_remove(&raft->add_servers, s);
        } else {
            s = server_create(&sid, json_string_value(address));
            if (raft->role == RAFT_LEADER) {
                raft_init_leader_view(raft, s);
            }
        }
        if (strcmp(s->address, json_string_value(address))) {
            free(s->address);
            s->address = xstrdup(json_string_value(address));
        }
        set_add(&new, s);
    }
    raft_set_clear(&raft->servers);
    free(raft->servers.s);
    raft->servers = new;
    update_conns(raft);
}

/* True if this server is the only member of its configuration. */
bool
raft_is_alone(const struct raft *raft)
{
    return (raft->servers.n == 1
            && raft_is_self(raft, &raft->servers.s[0]->sid)
            && !raft->add_servers.n);
}

/* Asks a caught-up peer to start an election now. */
void
raft_transfer_leadership(struct raft *raft, const char *reason)
{
    if (raft->role != RAFT_LEADER) {
        return;
    }
    for (size_t i = 0; i < raft->servers.n; i++) {
        struct server *s = raft->servers.s[i];
        if (raft_is_self(raft, &s->sid) || s->phase != PHASE_STABLE
            || !raft_conns_is_connected(raft->conns, &s->sid)) {
            continue;
        }
        union raft_rpc rpc = { .become_leader = {
                                   .common = { .type = RAFT_RPC_BECOME_LEADER,
                                               .to = s->sid,
                                               .comment = (char *) reason },
                                   .term = raft->cf->term,
                               } };
        raft_conns_send(raft->conns, &rpc);
        VLOG_INFO("transferring leadership to %s because %s", s->nickname,
                  reason);
        raft_ignore_error(raft,
                          cluster_file_write_note(raft->cf, NULL,
                                                  "transfer leadership"));
        return;
    }
}

static bool
has_uncommitted_configuration(const struct raft *raft)
{
    const struct cluster_file *cf = raft->cf;
    for (uint64_t i = MAX(cf->commit_index + 1, cf->log_start);
         i < cf->log_end; i++) {
        if (cluster_file_get_entry(cf, i)->servers) {
            return true;
        }
    }
    return false;
}

static void
log_reconfiguration(struct raft *raft)
{
    json_t *servers = set_to_json(&raft->servers);
    enum raft_command_status status;
    raft_initiate(raft, NULL, 0, NULL, servers, 0, &status);
    json_decref(servers);
}

/* Moves membership changes forward, one configuration entry at a time. */
void
raft_run_reconfigure(struct raft *raft)
{
    if (raft->role != RAFT_LEADER || has_uncommitted_configuration(raft)) {
        return;
    }
    for (size_t i = 0; i < raft->servers.n; i++) {
        struct server *s = raft->servers.s[i];
        if (s->phase == PHASE_COMMITTING) {
            raft_send_add_server_reply(raft, &s->sid, s->address, true,
                                       RAFT_SERVER_COMPLETED);
            s->phase = PHASE_STABLE;
        }
    }
    if (raft->remove_server) {
        struct server *rs = raft->remove_server;
        raft->remove_server = NULL;
        raft_send_remove_server_reply(raft, &rs->sid, &rs->requester, NULL,
                                      true, RAFT_SERVER_COMPLETED);
        raft_server_destroy(rs);
        if (raft->left) {
            return;
        }
    }
    for (size_t i = 0; i < raft->add_servers.n; i++) {
        struct server *s = raft->add_servers.s[i];
        if (s->phase == PHASE_CAUGHT_UP) {
            raft_set_remove(&raft->add_servers, s);
            set_add(&raft->servers, s);
            s->phase = PHASE_COMMITTING;
            log_reconfiguration(raft);
            return;
        }
    }
    for (size_t i = 0; i < raft->servers.n; i++) {
        struct server *s = raft->servers.s[i];
        if (s->phase == PHASE_REMOVE) {
            raft_set_remove(&raft->servers, s);
            raft->remove_server = s;
            log_reconfiguration(raft);
            return;
        }
    }
}

void
raft_send_add_server_reply(struct raft *raft, const struct uuid *sid,
                           const char *address, bool success,
                           const char *comment)
{
    VLOG_INFO("adding %s (" RAFT_SID_FMT " at %s) to cluster " RAFT_SID_FMT
              " %s (%s)",
              raft_nickname(raft, sid), RAFT_SID_ARGS(sid), address,
              RAFT_SID_ARGS(&raft->cf->header.cid),
              success ? "succeeded" : "failed", comment);
    char **addresses = xmalloc((raft->servers.n + 1) * sizeof *addresses);
    size_t n = 0;
    if (!raft->joining) {
        for (size_t i = 0; i < raft->servers.n; i++) {
            const struct server *s = raft->servers.s[i];
            if (!raft_is_self(raft, &s->sid)) {
                addresses[n++] = s->address;
            }
        }
    }
    union raft_rpc rpc = { .add_server_reply = {
                               .common = { .type = RAFT_RPC_ADD_SERVER_REPLY,
                                           .to = *sid,
                                           .comment = (char *) comment },
                               .success = success,
                               .remote_addresses = addresses,
                               .n_remote_addresses = n,
                           } };
    raft_send_rpc(raft, &rpc);
    free(addresses);
}

static void
send_remove_server_reply_rpc(struct raft *raft, const struct uuid *dst,
                             const struct uuid *target, bool success,
                             const char *comment)
{
    if (raft_is_self(raft, dst)) {
        if (success && raft_is_self(raft, target)) {
            raft_finished_leaving(raft);
        }
        return;
    }
    union raft_rpc
        rpc = { .remove_server_reply = {
                    .common = { .type = RAFT_RPC_REMOVE_SERVER_REPLY,
                                .to = *dst,
                                .comment = (char *) comment },
                    .success = success,
                } };
    if (!uuid_equals(dst, target)) {
        rpc.remove_server_reply.target_server = *target;
    }
    raft_send_rpc(raft, &rpc);
}

/* Reports the outcome of removing 'target' to the server that asked
 * ('requester', or zero), to 'target' itself, and (if nonnull) appends
 * the report for a cluster/kick caller to 'unixctl'. */
void
raft_send_remove_server_reply(struct raft *raft, const struct uuid *target,
                              const struct uuid *requester, struct ds *unixctl,
                              bool success, const char *comment)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&s, "request ");
    if (!uuid_is_zero(requester)) {
        ds_put_format(&s, "by %s", raft_nickname(raft, requester));
    } else {
        ds_put_cstr(&s, "via unixctl");
    }
    ds_put_cstr(&s, " to remove ");
    if (!unixctl && uuid_equals(target, requester)) {
        ds_put_cstr(&s, "itself");
    } else {
        ds_put_cstr(&s, raft_nickname(raft, target));
        if (raft_is_self(raft, target)) {
            ds_put_cstr(&s, " (ourselves)");
        }
    }
    ds_put_format(&s, " from cluster " RAFT_SID_FMT " %s",
                  RAFT_SID_ARGS(&raft->cf->header.cid),
                  success ? "succeeded" : "failed");
    if (comment) {
        ds_put_format(&s, " (%s)", comment);
    }
    VLOG_INFO("%s", ds_cstr(&s));

    if (!uuid_is_zero(requester)) {
        send_remove_server_reply_rpc(raft, requester, target, success,
                                     comment);
    }
    if (!uuid_equals(requester, target)) {
        send_remove_server_reply_rpc(raft, target, target, success, comment);
    }
    if (unixctl) {
        ds_put_cstr(unixctl, ds_cstr(&s));
    }
    ds_destroy(&s);
}

/* Starts removing 'target' at the request of 'requester' (zero for a
 * cluster/kick on this server, whose report goes to 'unixctl').  Returns
 * false if it failed at once. */
static bool
remove_server(struct raft *raft, const struct uuid *target,
              const struct uuid *requester, struct ds *unixctl)
{
    if (raft->role != RAFT_LEADER) {
        raft_send_remove_server_reply(raft, target, requester, unixctl, false,
                                      RAFT_SERVER_NOT_LEADER);
        return false;
    }
    struct server *s = raft_set_find(&raft->add_servers, target);
    if (s) {
        raft_send_add_server_reply(raft, &s->sid, s->address, false,
                                   RAFT_SERVER_CANCELED);
        raft_set_remove(&raft->add_servers, s);
        raft_server_destroy(s);
        if (unixctl) {
            ds_put_cstr(unixctl, "started removal");
        }
        return true;
    }
    s = raft_set_find(&raft->servers, target);
    if (!s) {
        raft_send_remove_server_reply(raft, target, requester, unixctl, true,
                                      RAFT_SERVER_ALREADY_GONE);
        return true;
    } else if (s->phase == PHASE_COMMITTING) {
        raft_send_remove_server_reply(raft, target, requester, unixctl, false,
                                      RAFT_SERVER_COMMITTING);
        return false;
    } else if (s->phase == PHASE_REMOVE) {
        raft_send_remove_server_reply(raft, target, requester, unixctl, false,
                                      RAFT_SERVER_IN_PROGRESS);
        return false;
    }
    size_t n_left = 0;
    for (size_t i = 0; i < raft->servers.n; i++) {
        const struct server *t = raft->servers.s[i];
        n_left += t != s && t->phase != PHASE_REMOVE;
    }
    if (!n_left) {
        raft_send_remove_server_reply(raft, target, requester, unixctl, false,
                                      RAFT_SERVER_EMPTY);
        return false;
    }
    s->phase = PHASE_REMOVE;
    s->requester = *requester;
    if (unixctl) {
        ds_put_cstr(unixctl, "started removal");
    }
    raft_run_reconfigure(raft);
    return true;
}

void
raft_finished_leaving(struct raft *raft)
{
    VLOG_INFO(RAFT_SID_FMT ": finished leaving cluster " RAFT_SID_FMT,
              RAFT_SID_ARGS(raft_self(raft)),
              RAFT_SID_ARGS(&raft->cf->header.cid));
    struct ovsdb_error *error = cluster_file_write_note(raft->cf, NULL,
                                                        "left");
    if (!error) {
        error = ovsdb_log_commit_block(raft->cf->log);
    }
    raft_ignore_error(raft, error);
    raft->leaving = false;
    raft->left = true;
}

void
raft_send_remove_server_requests(struct raft *raft)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
    VLOG_INFO_RL(&rl, "sending remove request (joining=%s, leaving=%s)",
                 raft->joining ? "true" : "false",
                 raft->leaving ? "true" : "false");
    for (size_t i = 0; i < raft->servers.n; i++) {
        const struct server *s = raft->servers.s[i];
        if (!raft_is_self(raft, &s->sid)) {
            union raft_rpc
                rpc = { .remove_server_request = {
                            .common = { .type = RAFT_RPC_REMOVE_SERVER_REQUEST,
                                        .to = s->sid },
                            .server_id = *raft_self(raft),
                        } };
            raft_send_rpc(raft, &rpc);
        }
    }
    raft->leave_timeout = time_msec() + raft->election_timer;
}

struct server *
raft_find_peer_or_new(const struct raft *raft, const struct uuid *sid)
{
    struct server *s = raft_find_peer(raft, sid);
    return s ? s : raft_set_find(&raft->add_servers, sid);
}

void
raft_handle_add_server_request(struct raft *raft,
                               const struct raft_add_server_request *rq)
{
    const struct uuid *sid = &rq->common.from;
    if (raft->role != RAFT_LEADER) {
        raft_send_add_server_reply(raft, sid, rq->address, false,
                                   RAFT_SERVER_NOT_LEADER);
        return;
    }
    struct server *s = raft_set_find(&raft->servers, sid);
    if (s) {
        if (s->phase == PHASE_REMOVE) {
            s->phase = PHASE_STABLE;
            raft_send_add_server_reply(raft, sid, rq->address, false,
                                       RAFT_SERVER_CANCELED);
        } else if (s->phase != PHASE_STABLE) {
            raft_send_add_server_reply(raft, sid, rq->address, false,
                                       RAFT_SERVER_IN_PROGRESS);
        } else {
            raft_send_add_server_reply(raft, sid, rq->address, true,
                                       RAFT_SERVER_ALREADY_PRESENT);
        }
        return;
    }
    if (raft->remove_server && uuid_equals(sid, &raft->remove_server->sid)) {
        raft_send_add_server_reply(raft, sid, rq->address, false,
                                   RAFT_SERVER_COMMITTING);
        return;
    }
    if (raft_set_find(&raft->add_servers, sid)) {
        raft_send_add_server_reply(raft, sid, rq->address, false,
                                   RAFT_SERVER_IN_PROGRESS);
        return;
    }
    s = server_create(sid, rq->address);
    raft_init_leader_view(raft, s);
    s->phase = PHASE_CATCHUP;
    s->requester = *sid;
    s->last_msg = time_msec();
    set_add(&raft->add_servers, s);
    VLOG_INFO("starting to add server %s (" RAFT_SID_FMT
              " at %s) to cluster " RAFT_SID_FMT,
              s->nickname, RAFT_SID_ARGS(sid), rq->address,
              RAFT_SID_ARGS(&raft->cf->header.cid));
    raft_send_append_request(raft, s, 0, "initialize new server");
}

void
raft_handle_add_server_reply(struct raft *raft,
                             const struct raft_add_server_reply *rpy)
{
    if (!raft->joining) {
        return;
    }
    if (rpy->success) {
        VLOG_INFO("%s: joined cluster " RAFT_SID_FMT, raft->file_name,
                  RAFT_SID_ARGS(&raft->cf->header.cid));
        raft->joining = false;
        raft_conns_set_greeting(raft->conns, RAFT_CONN_HELLO);
        raft_reset_election_timer(raft);
        update_conns(raft);
        return;
    }
    for (size_t i = 0; i < rpy->n_remote_addresses; i++) {
        const char *address = rpy->remote_addresses[i];
        bool known = !strcmp(address, raft->cf->header.local_address);
        for (size_t j = 0; j < raft->n_remotes && !known; j++) {
            known = !strcmp(raft->remotes[j], address);
        }
        if (!known) {
            VLOG_INFO("%s: learned new server address for joining cluster",
                      address);
            raft->remotes = xrealloc(raft->remotes,
                                     (raft->n_remotes + 1)
                                         * sizeof *raft->remotes);
            raft->remotes[raft->n_remotes++] = xstrdup(address);
        }
    }
    update_conns(raft);
}

void
raft_handle_remove_server_request(struct raft *raft,
                                  const struct raft_remove_server_request *rq)
{
    remove_server(raft, &rq->server_id, &rq->common.from, NULL);
}

void
raft_handle_remove_server_reply(struct raft *raft,
                                const struct raft_remove_server_reply *rpy)
{
    if (rpy->success
        && (uuid_is_zero(&rpy->target_server)
            || raft_is_self(raft, &rpy->target_server))) {
        raft_finished_leaving(raft);
    }
}

bool
raft_leave(struct raft *raft, char **errorp)
{
    *errorp = NULL;
    if (raft->leaving) {
        *errorp = xstrdup("already in progress leaving cluster");
    } else if (raft->joining) {
        *errorp = xstrdup("can't leave while join in progress");
    } else if (raft->failed) {
        *errorp = xstrdup("can't leave after failure");
    } else if (raft->left) {
        *errorp = xstrdup("already left cluster");
    }
    if (*errorp) {
        return false;
    }
    VLOG_INFO(RAFT_SID_FMT ": starting to leave cluster " RAFT_SID_FMT,
              RAFT_SID_ARGS(raft_self(raft)),
              RAFT_SID_ARGS(&raft->cf->header.cid));
    raft->leaving = true;
    raft_transfer_leadership(raft, "this server is leaving the cluster");
    raft_become_follower(raft);
    raft_conns_set_greeting(raft->conns, RAFT_CONN_LEAVING);
    raft_send_remove_server_requests(raft);
    return true;
}

/* The member that 'id' names: its address, or a prefix of its server id
 * (the longest match wins; a tie names none). */
static struct server *
find_server_by_name(const struct raft *raft, const char *id)
{
    struct server *best = NULL;
    size_t best_score = 0, n_best = 0;
    for (size_t i = 0; i < raft->servers.n; i++) {
        struct server *s = raft->servers.s[i];
        char sid[UUID_LEN + 1];
        uuid_to_string(&s->sid, sid);
        size_t len = strlen(id);
        size_t score = (!strcmp(id, s->address) ? SIZE_MAX
                        : len >= 4 && len <= UUID_LEN
                                && !strncasecmp(sid, id, len)
                            ? len
                            : 0);
        if (!score) {
            continue;
        }
        if (score > best_score) {
            best = s;
            best_score = score;
            n_best = 1;
        } else if (score == best_score) {
            n_best++;
        }
    }
    return n_best == 1 ? best : NULL;
}

bool
raft_kick(struct raft *raft, const char *id, char **replyp)
{
    *replyp = NULL;
    struct server *s = find_server_by_name(raft, id);
    if (!s) {
        *replyp = xstrdup("unknown server");
        return false;
    }
    if (raft_is_self(raft, &s->sid)) {
        if (!raft_leave(raft, replyp)) {
            return false;
        }
        return true;
    }
    if (raft->role == RAFT_LEADER) {
        struct ds reply = DS_EMPTY_INITIALIZER;
        struct uuid zero;
        uuid_zero(&zero);
        bool ok = remove_server(raft, &s->sid, &zero, &reply);
        *replyp = ds_steal_cstr(&reply);
        return ok;
    }
    if (uuid_is_zero(&raft->leader) || !raft->conns
        || !raft_conns_is_connected(raft->conns, &raft->leader)) {
        *replyp = xstrdup("failed to send removal request");
        return false;
    }
    union raft_rpc
        rpc = { .remove_server_request = {
                    .common = { .type = RAFT_RPC_REMOVE_SERVER_REQUEST,
                                .to = raft->leader,
                                .comment = "via unixctl" },
                    .server_id = s->sid,
                } };
    raft_send_rpc(raft, &rpc);
    *replyp = xstrdup("sent removal request to leader");
    return true;
}

bool
raft_change_election_timer(struct raft *raft, const char *ms_s, char **replyp)
{
    if (raft->role != RAFT_LEADER) {
        *replyp = xstrdup("election timer must be changed through leader.");
        return false;
    }
    if (raft->election_timer_new) {
        *replyp = xstrdup("election timer change pending.");
        return false;
    }
    uint64_t ms = strtoull(ms_s, NULL, 10);
    if (ms == raft->election_timer) {
        *replyp = xstrdup("change election timer to current value.");
        return true;
    }
    if (ms < CLUSTER_ELECTION_TIMER_MIN || ms > CLUSTER_ELECTION_TIMER_MAX) {
        *replyp = xasprintf("election timer must be between %d and %d, in "
                            "msec.",
                            CLUSTER_ELECTION_TIMER_MIN,
                            CLUSTER_ELECTION_TIMER_MAX);
        return false;
    }
    if (ms > raft->election_timer * 2) {
        *replyp = xstrdup("election timer increase should not exceed the "
                          "current value x 2.");
        return false;
    }
    raft->election_timer_new = ms;
    enum raft_command_status status;
    raft_initiate(raft, NULL, 0, NULL, NULL, ms, &status);
    *replyp = xstrdup("change of election timer initiated.");
    return true;
}

static void
put_id(struct ds *out, const struct uuid *id)
{
    ds_put_format(out, RAFT_SID_FMT " (" UUID_FMT ")", RAFT_SID_ARGS(id),
                  UUID_ARGS(id));
}

static void
put_sid(struct ds *out, const char *title, const struct raft *raft,
        const struct uuid *sid)
{
    ds_put_format(out, "%s: ", title);
    if (raft_is_self(raft, sid)) {
        ds_put_cstr(out, "self");
    } else if (uuid_is_zero(sid)) {
        ds_put_cstr(out, "unknown");
    } else {
        ds_put_cstr(out, raft_nickname(raft, sid));
    }
    ds_put_char(out, '\n');
}

void
raft_put_status(const struct raft *raft, struct ds *out)
{
    const struct cluster_file *cf = raft->cf;
    long long now = time_msec();
    const struct uuid *cid = raft_get_cid(raft);

    ds_put_format(out, "%s\n", raft->local_nickname);
    ds_put_format(out, "Name: %s\n", raft_get_name(raft));
    ds_put_cstr(out, "Cluster ID: ");
    if (uuid_is_zero(cid)) {
        ds_put_cstr(out, "not yet known");
    } else {
        put_id(out, cid);
    }
    ds_put_cstr(out, "\nServer ID: ");
    put_id(out, raft_self(raft));
    ds_put_format(out, "\nAddress: %s\n", raft_get_local_address(raft));
    ds_put_format(out, "Status: %s\n",
                  raft->joining   ? "joining cluster"
                  : raft->leaving ? "leaving cluster"
                  : raft->left    ? "left cluster"
                  : raft->failed  ? "failed"
                  : raft->candidate_retrying
                      ? "disconnected from the cluster (election timeout)"
                      : "cluster member");
    if (raft->joining) {
        ds_put_cstr(out, "Remotes for joining:");
        for (size_t i = 0; i < raft->n_remotes; i++) {
            ds_put_format(out, " %s", raft->remotes[i]);
        }
        ds_put_char(out, '\n');
    }
    if (raft->role == RAFT_LEADER) {
        for (size_t i = 0; i < raft->add_servers.n; i++) {
            const struct server *s = raft->add_servers.s[i];
            ds_put_format(out,
                          "Adding server %s (" RAFT_SID_FMT " at %s) "
                          "(%s)\n",
                          s->nickname, RAFT_SID_ARGS(&s->sid), s->address,
                          phase_to_string(s->phase));
        }
        const struct server *rs = raft->remove_server;
        if (rs) {
            ds_put_format(out,
                          "Removing server %s (" RAFT_SID_FMT " at %s) "
                          "(%s)\n",
                          rs->nickname, RAFT_SID_ARGS(&rs->sid), rs->address,
                          phase_to_string(rs->phase));
        }
    }
    ds_put_format(out, "Role: %s\n", raft_role_to_string(raft->role));
    ds_put_format(out, "Term: %" PRIu64 "\n", cf->term);
    put_sid(out, "Leader", raft, &raft->leader);
    put_sid(out, "Vote", raft, &cf->vote);
    ds_put_char(out, '\n');
    if (raft->election_start) {
        ds_put_format(out,
                      "Last Election started %lld ms ago, reason: "
                      "%s\n",
                      now - raft->election_start,
                      raft->leadership_transfer ? "leadership_transfer"
                                                : "timeout");
    }
    if (raft->election_won) {
        ds_put_format(out, "Last Election won: %lld ms ago\n",
                      now - raft->election_won);
    }
    ds_put_format(out, "Election timer: %" PRIu64, raft->election_timer);
    if (raft->role == RAFT_LEADER && raft->election_timer_new) {
        ds_put_format(out, " (changing to %" PRIu64 ")",
                      raft->election_timer_new);
    }
    ds_put_char(out, '\n');
    ds_put_format(out, "Log: [%" PRIu64 ", %" PRIu64 "]\n", cf->log_start,
                  cf->log_end);
    ds_put_format(out, "Entries not yet committed: %" PRIu64 "\n",
                  cf->log_end - cf->commit_index - 1);
    ds_put_format(out, "Entries not yet applied: %" PRIu64 "\n",
                  cf->log_end - MIN(cf->log_end - 1, raft->applied_index) - 1);
    ds_put_cstr(out, "Connections:");
    if (raft->conns) {
        raft_conns_format(raft->conns, out);
    }
    ds_put_char(out, '\n');
    ds_put_format(out, "Disconnections: %u\n",
                  raft->n_disconnections
                      + (raft->conns
                             ? raft_conns_get_n_disconnections(raft->conns)
                             : 0));
    ds_put_cstr(out, "Servers:\n");
    for (size_t i = 0; i < raft->servers.n; i++) {
        const struct server *s = raft->servers.s[i];
        ds_put_format(out, "    %s (" RAFT_SID_FMT " at %s)", s->nickname,
                      RAFT_SID_ARGS(&s->sid), s->address);
        if (raft_is_self(raft, &s->sid)) {
            ds_put_cstr(out, " (self)");
        }
        if (s->phase != PHASE_STABLE) {
            ds_put_format(out, " (%s)", phase_to_string(s->phase));
        }
        if (raft->role == RAFT_CANDIDATE) {
            if (!uuid_is_zero(&s->vote)) {
                ds_put_format(out, " (voted for %s)",
                              raft_nickname(raft, &s->vote));
            }
        } else if (raft->role == RAFT_LEADER) {
            ds_put_format(out, " next_index=%" PRIu64 " match_index=%" PRIu64,
                          s->next_index, s->match_index);
        }
        if (s->last_msg) {
            ds_put_format(out, " last msg %lld ms ago", now - s->last_msg);
        }
        ds_put_char(out, '\n');
    }
}

/* Metrics. */

/* Returns the 'i'th server of 'raft''s configuration other than itself,
 * or NULL if there are not that many. */
static const struct server *
peer_at(const struct raft *raft, size_t i)
{
    for (size_t j = 0; j < raft->servers.n; j++) {
        const struct server *s = raft->servers.s[j];
        if (!raft_is_self(raft, &s->sid) && !i--) {
            return s;
        }
    }
    return NULL;
}

bool
raft_get_peer(const struct raft *raft, size_t i, struct raft_peer *peer)
{
    const struct server *s = peer_at(raft, i);
    if (!s) {
        return false;
    }
    peer->sid = s->sid;
    peer->address = s->address;
    peer->connected = (raft->conns
                       && raft_conns_is_connected(raft->conns, &s->sid));
    peer->match_index = raft->role == RAFT_LEADER ? s->match_index : 0;
    return true;
}
