/* ovsdb/raft/raft-state.c: what a Raft member tells its users (raft.h's
 * getters), the committed entries it hands to the storage one at a time
 * (raft_next_entry()), and the snapshots and compaction the storage asks
 * for.  See raft-private.h. */
#include <config.h>
#include "ovsdb/raft/raft.h"

#include <stdlib.h>
#include "lib/util.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/log.h"
#include "ovsdb/raft/raft-conn.h"
#include "ovsdb/raft/raft-private.h"

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
    if (uuid_is_zero(&raft->cf->header.cid) && raft->conns) {
        return raft_conns_get_cid(raft->conns);
    }
    return &raft->cf->header.cid;
}

const struct uuid *
raft_get_sid(const struct raft *raft)
{
    return raft_self(raft);
}

bool
raft_is_leader(const struct raft *raft)
{
    return raft->role == RAFT_LEADER && !raft->failed && !raft->left;
}

bool
raft_is_connected(const struct raft *raft)
{
    return (!raft->candidate_retrying && !raft->joining && !raft->leaving
            && !raft->left && !raft->failed && raft->ever_had_leader);
}

bool
raft_can_execute(const struct raft *raft)
{
    if (raft->joining || raft->leaving || raft->left || raft->failed) {
        return false;
    }
    return (raft->role == RAFT_LEADER
            || (raft->role == RAFT_FOLLOWER && !uuid_is_zero(&raft->leader)
                && raft->conns
                && raft_conns_is_connected(raft->conns, &raft->leader)));
}

bool
raft_is_joining(const struct raft *raft)
{
    return raft->joining;
}

bool
raft_is_leaving(const struct raft *raft)
{
    return raft->leaving;
}

bool
raft_left(const struct raft *raft)
{
    return raft->left;
}

bool
raft_failed(const struct raft *raft)
{
    return raft->failed;
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

uint64_t
raft_get_election_timer(const struct raft *raft)
{
    return raft->election_timer;
}

const char *
raft_next_entry(struct raft *raft, size_t *size, struct uuid *eid,
                bool *is_snapshot)
{
    const struct cluster_file *cf = raft->cf;
    *is_snapshot = false;
    if (raft->joining) {
        return NULL;
    }
    if (raft->snapshot_unread) {
        raft->snapshot_unread = false;
        raft->applied_index = cf->log_start - 1;
        raft->applied_eid = cf->header.snap.eid;
        *size = raft->snap_size;
        *eid = cf->header.snap.eid;
        *is_snapshot = true;
        return raft->snap_text;
    }
    if (raft->snap_text) {
        /* Returned last time: no longer needed. */
        free(raft->snap_text);
        raft->snap_text = NULL;
    }
    while (raft->applied_index < cf->commit_index) {
        uint64_t index = MAX(raft->applied_index + 1, cf->log_start);
        const struct cluster_entry *e = cluster_file_get_entry(cf, index);
        raft->applied_index = index;
        if (e->data) {
            raft->applied_eid = e->eid;
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
    if (raft->joining) {
        return ovsdb_error(OVSDB_E_OVSDB, "cannot store a snapshot while "
                                          "joining cluster");
    }
    struct ovsdb_error *error = cluster_file_save_snapshot(raft->cf,
                                                           raft->applied_index,
                                                           data, size);
    if (!error) {
        raft_mark_synced(raft);
    }
    return error;
}

struct ovsdb_error *
raft_compact_start(struct raft *raft, struct cluster_compaction **ccp)
{
    if (raft->failed) {
        *ccp = NULL;
        return ovsdb_error(OVSDB_E_IO,
                           "%s: this server failed to write "
                           "its log",
                           raft->file_name);
    }
    return cluster_file_compact_start(raft->cf, raft->applied_index, ccp);
}

struct ovsdb_error *
raft_compact_finish(struct raft *raft, struct cluster_compaction *cc)
{
    /* Everything written so far durable first, so that the fsync of the
     * new file promises nothing that was not promised already. */
    struct ovsdb_error *error = raft_sync(raft);
    if (error) {
        cluster_file_compact_abort(cc);
        return error;
    }
    error = cluster_file_compact_finish(raft->cf, cc);
    if (!error) {
        raft_mark_synced(raft);
    }
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
