/* ovsdb/tool/tool-check-cluster.c: see tool-check-cluster.h.
 *
 * Each server's log is read whole, with the reference's checks on its own
 * records as they are read (Leader Append-Only, votes, commit index never
 * going back); what each server said of each term (its leader, its commit
 * index) is kept.  Then the properties across servers: Election Safety,
 * Leader Completeness, Log Matching, and each server in its own
 * configuration.  The first violation is fatal, in the reference's
 * words. */
#include <config.h>
#include "ovsdb/tool/tool-check-cluster.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "lib/json-util.h"
#include "lib/util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/log.h"
#include "ovsdb/format/raft-record.h"

/* Exits with "ovsdb-tool: ERROR" if 'error' is nonnull. */
static void
check(struct ovsdb_error *error)
{
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        ovs_fatal(0, "%s", s);
    }
}

struct check_server {
    const char *filename;
    struct raft_header header;
    struct raft_entry *entries; /* Index log_start + i. */
    size_t allocated;
    uint64_t log_start, log_end;
};

/* What 'server' said of 'term': its leader (and its log end then, if the
 * server was the leader), or its highest commit index. */
struct term_report {
    struct hmap_node node; /* By term. */
    uint64_t term;
    struct check_server *server;
    struct uuid leader;
    uint64_t value; /* Leader's log end, or commit index. */
};

struct check_cluster {
    struct check_server *servers;
    size_t n_servers;
    struct hmap leaders; /* "struct term_report"s. */
    struct hmap commits; /* "struct term_report"s. */
};

static const char *
server_name(const struct check_cluster *c, const struct uuid *sid, char buf[8])
{
    for (size_t i = 0; i < c->n_servers; i++) {
        if (uuid_equals(&c->servers[i].header.sid, sid)) {
            return c->servers[i].filename;
        }
    }
    snprintf(buf, 8, RAFT_SID_FMT, RAFT_SID_ARGS(sid));
    return buf;
}

static struct term_report *
find_report(const struct hmap *map, uint64_t term)
{
    struct term_report *r;
    HMAP_FOR_EACH_WITH_HASH (r, node, hash_uint64(term, 0), map) {
        if (r->term == term) {
            return r;
        }
    }
    return NULL;
}

static struct term_report *
add_report(struct hmap *map, uint64_t term, struct check_server *s)
{
    struct term_report *r = xzalloc(sizeof *r);
    r->term = term;
    r->server = s;
    hmap_insert(map, &r->node, hash_uint64(term, 0));
    return r;
}

/* Election Safety: at most one leader per term. */
static void
record_leader(struct check_cluster *c, uint64_t term, struct check_server *s,
              const struct uuid *leader)
{
    bool is_leader = uuid_equals(&s->header.sid, leader);
    struct term_report *p = find_report(&c->leaders, term);
    if (!p) {
        p = add_report(&c->leaders, term, s);
        p->leader = *leader;
        p->value = is_leader ? s->log_end : 0;
        return;
    }
    if (!uuid_equals(&p->leader, leader)) {
        char b1[8], b2[8];
        ovs_fatal(0,
                  "term %" PRIu64 " has two different leaders: %s says "
                  "that the leader is %s and %s says that the leader is %s",
                  term, p->server->filename, server_name(c, &p->leader, b1),
                  s->filename, server_name(c, leader, b2));
    }
    if (is_leader && s->log_end > p->value) {
        p->value = s->log_end;
    }
}

static void
record_commit(struct check_cluster *c, uint64_t term, struct check_server *s,
              uint64_t index)
{
    struct term_report *p = find_report(&c->commits, term);
    if (!p) {
        p = add_report(&c->commits, term, s);
        p->value = index;
    } else if (index > p->value) {
        p->server = s;
        p->value = index;
    }
}

/* Reads the records of 's' (after its header) with the reference's
 * checks, widening [*min_term, *max_term]. */
static void
check_server_log(struct check_cluster *c, struct check_server *s,
                 struct ovsdb_log *log, uint64_t *min_term, uint64_t *max_term)
{
    s->log_start = s->log_end = s->header.snap_index + 1;
    uint64_t term = 0, leader_rec_idx = 0;
    struct uuid vote = { .parts = { 0 } }, leader = vote;
    uint64_t commit_index = s->header.snap_index;
    for (unsigned long long rec_idx = 1;; rec_idx++) {
        json_t *json;
        check(ovsdb_log_read(log, &json));
        if (!json) {
            break;
        }
        struct raft_record r;
        check(raft_record_from_json(&r, json));
        json_decref(json);

        if (r.term > term) {
            term = r.term;
            uuid_zero(&vote);
            uuid_zero(&leader);
            leader_rec_idx = 0;
        }
        *min_term = MIN(*min_term, term);
        *max_term = MAX(*max_term, term);

        switch (r.type) {
        case RAFT_REC_ENTRY: {
            uint64_t index = r.entry.index;
            if (index < commit_index) {
                ovs_fatal(0,
                          "%s: record %llu attempts to truncate log from "
                          "%" PRIu64 " to %" PRIu64
                          " entries, but commit index "
                          "is already %" PRIu64,
                          s->filename, rec_idx, s->log_end, index,
                          commit_index);
            } else if (index > s->log_end) {
                ovs_fatal(0,
                          "%s: record %llu with index %" PRIu64 " skips "
                          "past expected index %" PRIu64,
                          s->filename, rec_idx, index, s->log_end);
            }
            if (index < s->log_end) {
                if (uuid_equals(&s->header.sid, &leader)) {
                    /* Leader Append-Only. */
                    ovs_fatal(0,
                              "%s: record %llu truncates log from "
                              "%" PRIu64 " to %" PRIu64
                              " entries while server "
                              "is leader",
                              s->filename, rec_idx, s->log_end, index);
                }
                printf("%s: record %llu truncates log from %" PRIu64 " to "
                       "%" PRIu64 " entries\n",
                       s->filename, rec_idx, s->log_end, index);
                while (s->log_end > index) {
                    raft_entry_destroy(
                        &s->entries[--s->log_end - s->log_start]);
                }
            }
            uint64_t prev_term =
                (s->log_end > s->log_start
                     ? s->entries[s->log_end - s->log_start - 1].term
                     : s->header.snap.term);
            if (r.term < prev_term) {
                ovs_fatal(0,
                          "%s: record %llu with index %" PRIu64 " term "
                          "%" PRIu64 " precedes previous entry's term "
                          "%" PRIu64,
                          s->filename, rec_idx, index, r.term, prev_term);
            }
            size_t i = s->log_end++ - s->log_start;
            if (i >= s->allocated) {
                s->allocated = 2 * s->allocated + 8;
                s->entries = xrealloc(s->entries,
                                      s->allocated * sizeof *s->entries);
            }
            s->entries[i] = r.entry.e;
            s->entries[i].term = r.term;
            memset(&r.entry.e, 0, sizeof r.entry.e);
            break;
        }
        case RAFT_REC_TERM:
            break;
        case RAFT_REC_VOTE:
            if (r.term < term) {
                ovs_fatal(0,
                          "%s: record %llu votes for term %" PRIu64 " but "
                          "current term is %" PRIu64,
                          s->filename, rec_idx, r.term, term);
            } else if (!uuid_is_zero(&vote) && !uuid_equals(&vote, &r.sid)) {
                char b1[8], b2[8];
                ovs_fatal(0,
                          "%s: record %llu votes for %s in term "
                          "%" PRIu64 " but a previous record for the same "
                          "term voted for %s",
                          s->filename, rec_idx, server_name(c, &vote, b1),
                          r.term, server_name(c, &r.sid, b2));
            }
            vote = r.sid;
            break;
        case RAFT_REC_NOTE:
            if (!strcmp(r.note, "left")) {
                printf("%s: record %llu shows that the server left the "
                       "cluster\n",
                       s->filename, rec_idx);
            }
            break;
        case RAFT_REC_COMMIT_INDEX:
            if (r.commit_index < commit_index) {
                ovs_fatal(0,
                          "%s: record %llu regresses commit index from "
                          "%" PRIu64 " to %" PRIu64,
                          s->filename, rec_idx, commit_index, r.commit_index);
            } else if (r.commit_index >= s->log_end) {
                ovs_fatal(0,
                          "%s: record %llu advances commit index to "
                          "%" PRIu64 " but last log index is %" PRIu64,
                          s->filename, rec_idx, r.commit_index,
                          s->log_end - 1);
            }
            commit_index = r.commit_index;
            record_commit(c, term, s, r.commit_index);
            break;
        case RAFT_REC_LEADER:
            if (!uuid_equals(&r.sid, &leader)) {
                if (uuid_is_zero(&leader)) {
                    leader = r.sid;
                    leader_rec_idx = rec_idx;
                } else {
                    char b1[8], b2[8];
                    ovs_fatal(0,
                              "%s: record %llu reports leader %s for "
                              "term %" PRIu64 " but record %" PRIu64 " "
                              "previously reported the leader as %s in "
                              "that term",
                              s->filename, rec_idx, server_name(c, &r.sid, b1),
                              term, leader_rec_idx,
                              server_name(c, &leader, b2));
                }
            }
            record_leader(c, term, s, &r.sid);
            break;
        default:
            break;
        }
        raft_record_destroy(&r);
    }
}

static bool
entries_equal(const struct raft_entry *a, const struct raft_entry *b)
{
    return (a->term == b->term && uuid_equals(&a->eid, &b->eid)
            && (a->servers ? b->servers && json_equal(a->servers, b->servers)
                           : !b->servers)
            && (a->data ? b->data && json_equal(a->data, b->data) : !b->data));
}

/* Returns the entry as the reference prints it (sorted JSON); caller must
 * free with free(). */
static char *
entry_to_string(const struct raft_entry *e)
{
    json_t *json = json_object();
    json_object_set_new(json, "term", json_integer((long long) e->term));
    if (e->data) {
        char eid[UUID_LEN + 1];
        uuid_to_string(&e->eid, eid);
        json_object_set(json, "data", e->data);
        json_object_set_new(json, "eid", json_string(eid));
    }
    if (e->servers) {
        json_object_set(json, "servers", e->servers);
    }
    char *s = jsonx_to_string_sorted(json);
    json_decref(json);
    return s;
}

static void
check_cluster_properties(struct check_cluster *c, uint64_t min_term,
                         uint64_t max_term)
{
    /* Leader Completeness: an entry committed in a term is in the logs of
     * the leaders of all later terms. */
    if (min_term == UINT64_MAX || max_term == 0) {
        ovs_fatal(0, "all logs are empty");
    }
    const struct term_report *commit = NULL;
    for (uint64_t term = min_term; term <= max_term; term++) {
        const struct term_report *leader = find_report(&c->leaders, term);
        if (leader && leader->value && commit
            && commit->value >= leader->value) {
            ovs_fatal(0,
                      "leader %s for term %" PRIu64 " has log entries only "
                      "up to index %" PRIu64 ", but index %" PRIu64 " was "
                      "committed in a previous term (e.g. by %s)",
                      leader->server->filename, term, leader->value - 1,
                      commit->value, commit->server->filename);
        }
        const struct term_report *next = find_report(&c->commits, term);
        if (next && (!commit || next->value > commit->value)) {
            commit = next;
        }
        if (term == UINT64_MAX) {
            break;
        }
    }

    /* Log Matching: entries with the same index and term are the same, and
     * so are all the entries before them. */
    for (size_t i = 0; i < c->n_servers; i++) {
        for (size_t j = 0; j < c->n_servers; j++) {
            struct check_server *a = &c->servers[i], *b = &c->servers[j];
            if (a == b) {
                continue;
            }
            bool must_equal = false;
            uint64_t lo = MAX(a->log_start, b->log_start);
            for (uint64_t idx = MIN(a->log_end, b->log_end) - 1;
                 idx >= lo && idx != UINT64_MAX; idx--) {
                const struct raft_entry *ae = &a->entries[idx - a->log_start];
                const struct raft_entry *be = &b->entries[idx - b->log_start];
                if (ae->term == be->term) {
                    must_equal = true;
                }
                if (!must_equal || entries_equal(ae, be)) {
                    continue;
                }
                ovs_fatal(0,
                          "log entries with index %" PRIu64 " differ:\n"
                          "%s has %s\n%s has %s",
                          idx, a->filename, entry_to_string(ae), b->filename,
                          entry_to_string(be));
            }
        }
    }

    /* Each server is in its own configuration. */
    for (size_t i = 0; i < c->n_servers; i++) {
        const struct check_server *s = &c->servers[i];
        char sid[9];
        snprintf(sid, sizeof sid, "%04x", RAFT_SID_ARGS(&s->header.sid));
        bool found = false;
        for (uint64_t k = 0; !found && k <= s->log_end - s->log_start; k++) {
            const json_t *servers = (!k ? s->header.snap.servers
                                        : s->entries[k - 1].servers);
            const char *key;
            json_t *value;
            json_object_foreach ((json_t *) servers, key, value) {
                if (!strncmp(sid, key, 4)) {
                    found = true;
                }
            }
        }
        if (!found) {
            ovs_fatal(0, "%s: server %s not found in server list", s->filename,
                      sid);
        }
    }
}

void
tool_check_cluster(int argc, char *argv[])
{
    struct check_cluster c = {
        .servers = xzalloc(argc * sizeof *c.servers),
        .leaders = HMAP_INITIALIZER(&c.leaders),
        .commits = HMAP_INITIALIZER(&c.commits),
    };
    struct ovsdb_log **logs = xzalloc(argc * sizeof *logs);
    for (int i = 1; i < argc; i++) {
        struct check_server *s = &c.servers[c.n_servers];
        s->filename = argv[i];
        struct ovsdb_log *log;
        check(ovsdb_log_open_kind(s->filename, OVSDB_LOG_READ_ONLY,
                                  OVSDB_LOG_CLUSTERED, &log));
        json_t *header;
        check(ovsdb_log_read(log, &header));
        check(raft_header_from_json(&s->header, header));
        json_decref(header);
        if (s->header.joining) {
            printf("%s has not joined the cluster, omitting\n", s->filename);
            ovsdb_log_close(log);
            raft_header_destroy(&s->header);
            continue;
        }
        for (size_t j = 0; j < c.n_servers; j++) {
            if (uuid_equals(&s->header.sid, &c.servers[j].header.sid)) {
                ovs_fatal(0,
                          "Duplicate server ID " RAFT_SID_FMT " in %s and "
                          "%s.",
                          RAFT_SID_ARGS(&s->header.sid), s->filename,
                          c.servers[j].filename);
            }
        }
        if (c.n_servers > 0) {
            const struct check_server *s0 = &c.servers[0];
            if (!uuid_equals(&s0->header.cid, &s->header.cid)) {
                ovs_fatal(0,
                          "%s has cluster ID " RAFT_SID_FMT " but %s has "
                          "cluster ID " RAFT_SID_FMT,
                          s0->filename, RAFT_SID_ARGS(&s0->header.cid),
                          s->filename, RAFT_SID_ARGS(&s->header.cid));
            }
            if (strcmp(s0->header.name, s->header.name)) {
                ovs_fatal(0, "%s is named \"%s\" but %s is named \"%s\"",
                          s0->filename, s0->header.name, s->filename,
                          s->header.name);
            }
        }
        logs[c.n_servers++] = log;
    }

    uint64_t min_term = UINT64_MAX, max_term = 0;
    for (size_t i = 0; i < c.n_servers; i++) {
        check_server_log(&c, &c.servers[i], logs[i], &min_term, &max_term);
        ovsdb_log_close(logs[i]);
    }
    check_cluster_properties(&c, min_term, max_term);

    for (size_t i = 0; i < c.n_servers; i++) {
        struct check_server *s = &c.servers[i];
        for (uint64_t k = 0; k < s->log_end - s->log_start; k++) {
            raft_entry_destroy(&s->entries[k]);
        }
        free(s->entries);
        raft_header_destroy(&s->header);
    }
    struct term_report *r, *next;
    HMAP_FOR_EACH_SAFE (r, next, node, &c.leaders) {
        free(r);
    }
    HMAP_FOR_EACH_SAFE (r, next, node, &c.commits) {
        free(r);
    }
    hmap_destroy(&c.leaders);
    hmap_destroy(&c.commits);
    free(c.servers);
    free(logs);
}
