/* ovsdb/format/cluster-file.c: see cluster-file.h. */
#include <config.h>

#include "ovsdb/format/cluster-file.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/file.h"
#include "ovsdb/format/log.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/format/record.h"
#include "ovsdb/engine/schema.h"

/* ---------------------------------------------------------------------
 * Entries. */

static void
entry_destroy(struct cluster_entry *e)
{
    free(e->data);
    json_decref(e->servers);
    memset(e, 0, sizeof *e);
}

/* Drops entries from 'new_end' on. */
static void
truncate_log(struct cluster_file *cf, uint64_t new_end)
{
    while (cf->log_end > new_end) {
        entry_destroy(&cf->entries[--cf->log_end - cf->log_start]);
    }
}

/* Adds an entry at log_end; takes ownership of 'data' and 'servers'. */
static void
add_entry(struct cluster_file *cf, uint64_t term, char *data,
          size_t data_size, const struct uuid *eid, json_t *servers,
          uint64_t election_timer)
{
    size_t n = cf->log_end - cf->log_start;
    if (n >= cf->allocated_entries) {
        cf->allocated_entries = cf->allocated_entries * 2 + 8;
        cf->entries = xrealloc(cf->entries, cf->allocated_entries
                               * sizeof *cf->entries);
    }
    struct cluster_entry *e = &cf->entries[n];
    e->term = term;
    e->data = data;
    e->data_size = data_size;
    if (eid && data) {
        e->eid = *eid;
    } else {
        uuid_zero(&e->eid);
    }
    e->servers = servers;
    e->election_timer = election_timer;
    cf->log_end++;
}

const struct cluster_entry *
cluster_file_get_entry(const struct cluster_file *cf, uint64_t index)
{
    return &cf->entries[index - cf->log_start];
}

uint64_t
cluster_file_get_term(const struct cluster_file *cf, uint64_t index)
{
    return (index < cf->log_start ? cf->header.snap.term
            : cluster_file_get_entry(cf, index)->term);
}

const struct uuid *
cluster_file_get_eid(const struct cluster_file *cf, uint64_t index)
{
    for (; index >= cf->log_start && index < cf->log_end; index--) {
        const struct cluster_entry *e = cluster_file_get_entry(cf, index);
        if (e->data) {
            return &e->eid;
        }
    }
    return &cf->header.snap.eid;
}

/* Returns the server configuration in force at 'index'. */
static const json_t *
servers_for_index(const struct cluster_file *cf, uint64_t index)
{
    const json_t *servers = cf->header.snap.servers;
    for (uint64_t i = cf->log_start; i <= index && i < cf->log_end; i++) {
        const struct cluster_entry *e = cluster_file_get_entry(cf, i);
        if (e->servers) {
            servers = e->servers;
        }
    }
    return servers;
}

const json_t *
cluster_file_get_servers(const struct cluster_file *cf)
{
    return servers_for_index(cf, cf->log_end - 1);
}

uint64_t
cluster_file_get_election_timer(const struct cluster_file *cf)
{
    uint64_t timer = (cf->header.snap.election_timer
                      ? cf->header.snap.election_timer
                      : CLUSTER_ELECTION_TIMER_DEFAULT);
    for (uint64_t i = MIN(cf->commit_index, cf->log_end - 1);
         i >= cf->log_start; i--) {
        const struct cluster_entry *e = cluster_file_get_entry(cf, i);
        if (e->election_timer) {
            return e->election_timer;
        }
    }
    return timer;
}

/* ---------------------------------------------------------------------
 * Applying records, with the reference's checks and words. */

/* Applies entry 'term'/'index' (record number 'rec_idx').  Takes ownership
 * of 'data' and 'servers', even on error. */
static struct ovsdb_error *
apply_entry(struct cluster_file *cf, unsigned long long rec_idx,
            uint64_t term, uint64_t index, char *data, size_t data_size,
            const struct uuid *eid, json_t *servers,
            uint64_t election_timer)
{
    struct ovsdb_error *error = NULL;
    if (index < cf->commit_index) {
        error = ovsdb_error(OVSDB_E_OVSDB, "record %llu attempts to "
                            "truncate log from %"PRIu64" to %"PRIu64" "
                            "entries, but commit index is already "
                            "%"PRIu64, rec_idx, cf->log_end, index,
                            cf->commit_index);
    } else if (index > cf->log_end) {
        error = ovsdb_error(OVSDB_E_OVSDB, "record %llu with index "
                            "%"PRIu64" skips past expected index "
                            "%"PRIu64, rec_idx, index, cf->log_end);
    } else {
        truncate_log(cf, index);
        uint64_t prev_term = cluster_file_get_term(cf, cf->log_end - 1);
        if (term < prev_term) {
            error = ovsdb_error(OVSDB_E_OVSDB, "record %llu with index "
                                "%"PRIu64" term %"PRIu64" precedes "
                                "previous entry's term %"PRIu64, rec_idx,
                                index, term, prev_term);
        }
    }
    if (error) {
        free(data);
        json_decref(servers);
        return error;
    }
    add_entry(cf, term, data, data_size, eid, servers, election_timer);
    return NULL;
}

/* Applies record 'r' (number 'rec_idx'), except the entry itself. */
static struct ovsdb_error *
apply_record(struct cluster_file *cf, unsigned long long rec_idx,
             const struct raft_record *r)
{
    if (r->term > cf->term) {
        cf->term = r->term;
        uuid_zero(&cf->vote);
        uuid_zero(&cf->leader);
    }
    switch (r->type) {
    case RAFT_REC_ENTRY:
    case RAFT_REC_TERM:
        return NULL;

    case RAFT_REC_VOTE:
        if (r->term < cf->term) {
            return ovsdb_error(OVSDB_E_OVSDB, "record %llu votes for term "
                               "%"PRIu64" but current term is %"PRIu64,
                               rec_idx, r->term, cf->term);
        } else if (!uuid_is_zero(&cf->vote)
                   && !uuid_equals(&cf->vote, &r->sid)) {
            /* The reference names the two votes in this order. */
            return ovsdb_error(OVSDB_E_OVSDB, "record %llu votes for "
                               RAFT_SID_FMT" in term %"PRIu64" but a "
                               "previous record for the same term voted "
                               "for "RAFT_SID_FMT, rec_idx,
                               RAFT_SID_ARGS(&cf->vote), r->term,
                               RAFT_SID_ARGS(&r->sid));
        }
        cf->vote = r->sid;
        return NULL;

    case RAFT_REC_NOTE:
        if (!strcmp(r->note, "left")) {
            return ovsdb_error(OVSDB_E_OVSDB, "record %llu indicates server "
                               "has left the cluster; it cannot be added "
                               "back (use \"ovsdb-tool join-cluster\" to add "
                               "a new server)", rec_idx);
        }
        return NULL;

    case RAFT_REC_COMMIT_INDEX:
        if (r->commit_index < cf->commit_index) {
            return ovsdb_error(OVSDB_E_OVSDB, "record %llu regresses commit "
                               "index from %"PRIu64" to %"PRIu64, rec_idx,
                               cf->commit_index, r->commit_index);
        } else if (r->commit_index >= cf->log_end) {
            return ovsdb_error(OVSDB_E_OVSDB, "record %llu advances commit "
                               "index to %"PRIu64" but last log index is "
                               "%"PRIu64, rec_idx, r->commit_index,
                               cf->log_end - 1);
        }
        cf->commit_index = r->commit_index;
        return NULL;

    case RAFT_REC_LEADER:
        if (r->term == cf->term) {
            cf->leader = r->sid;
        }
        return NULL;

    default:
        return OVSDB_BUG("unknown raft record type");
    }
}

/* Applies record 'r' (number 'rec_idx') in full. */
static struct ovsdb_error *
apply_parsed_record(struct cluster_file *cf, unsigned long long rec_idx,
                    struct raft_record *r)
{
    struct ovsdb_error *error = apply_record(cf, rec_idx, r);
    if (error || r->type != RAFT_REC_ENTRY) {
        return error;
    }
    struct raft_entry *e = &r->entry.e;
    char *data = NULL;
    size_t data_size = 0;
    if (e->data) {
        struct ds text = DS_EMPTY_INITIALIZER;
        raft_data_put_json(&text, e->data);
        data_size = text.length;
        data = ds_steal_cstr(&text);
    }
    json_t *servers = e->servers;
    e->servers = NULL;
    return apply_entry(cf, rec_idx, r->term, r->entry.index, data,
                       data_size, &e->eid, servers, e->election_timer);
}

/* ---------------------------------------------------------------------
 * Opening. */

static struct ovsdb_error *
read_header(struct cluster_file *cf)
{
    json_t *json;
    struct ovsdb_error *error = ovsdb_log_read(cf->log, &json);
    if (error) {
        return error;
    }
    if (!json) {
        return ovsdb_error(OVSDB_E_OVSDB, "%s: clustered database file "
                           "has no header", ovsdb_log_get_name(cf->log));
    }
    error = raft_header_from_json(&cf->header, json);
    json_decref(json);
    if (error) {
        return error;
    }
    cf->log_start = cf->log_end = cf->header.snap_index + 1;
    cf->commit_index = cf->header.snap_index;
    return NULL;
}

static struct ovsdb_error *
read_records(struct cluster_file *cf)
{
    for (unsigned long long i = 1;; i++) {
        json_t *json;
        struct ovsdb_error *error = ovsdb_log_read(cf->log, &json);
        if (error) {
            /* Most likely a write cut short by a crash: keep what came
             * before, as the reference does. */
            cf->tail_error = error;
            return NULL;
        } else if (!json) {
            return NULL;
        }
        struct raft_record r;
        error = raft_record_from_json(&r, json);
        json_decref(json);
        if (!error) {
            error = apply_parsed_record(cf, i, &r);
            raft_record_destroy(&r);
        }
        if (error) {
            return ovsdb_error_wrap(error, "error reading record %llu from "
                                    "%s log", i, cf->header.name);
        }
        cf->n_records++;
    }
}

struct ovsdb_error *
cluster_file_open(const char *path, bool read_write,
                  struct cluster_file **cfp)
{
    *cfp = NULL;
    struct cluster_file *cf = xzalloc(sizeof *cf);
    struct ovsdb_error *error = ovsdb_log_open_kind(
        path, read_write ? OVSDB_LOG_READ_WRITE : OVSDB_LOG_READ_ONLY,
        OVSDB_LOG_CLUSTERED, &cf->log);
    if (!error) {
        error = read_header(cf);
    }
    if (!error && !cf->header.joining) {
        error = read_records(cf);
    }
    if (error) {
        cluster_file_close(cf);
        return error;
    }
    *cfp = cf;
    return NULL;
}

void
cluster_file_close(struct cluster_file *cf)
{
    if (!cf) {
        return;
    }
    ovsdb_log_close(cf->log);
    raft_header_destroy(&cf->header);
    truncate_log(cf, cf->log_start);
    free(cf->entries);
    ovsdb_error_destroy(cf->tail_error);
    free(cf);
}

/* ---------------------------------------------------------------------
 * Creating. */

struct ovsdb_error *
cluster_file_validate_election_timer(uint64_t ms)
{
    if (ms < CLUSTER_ELECTION_TIMER_MIN || ms > CLUSTER_ELECTION_TIMER_MAX) {
        return ovsdb_error(OVSDB_E_OVSDB, "election timer must be between "
                           "%d and %d, in msec.", CLUSTER_ELECTION_TIMER_MIN,
                           CLUSTER_ELECTION_TIMER_MAX);
    }
    return NULL;
}

/* Creates 'path' and writes 'n' records of 'texts' to it, then fsyncs. */
static struct ovsdb_error *
create_file(const char *path, struct ds *texts, size_t n)
{
    struct ovsdb_log *log;
    struct ovsdb_error *error = ovsdb_log_open_kind(
        path, OVSDB_LOG_CREATE_EXCL, OVSDB_LOG_CLUSTERED, &log);
    if (error) {
        return error;
    }
    for (size_t i = 0; i < n && !error; i++) {
        error = ovsdb_log_write_text(log, texts[i].string, texts[i].length);
    }
    if (!error) {
        error = ovsdb_log_commit_block(log);
    }
    ovsdb_log_close(log);
    return error;
}

struct ovsdb_error *
cluster_file_create(const char *path, const char *name,
                    const char *local_address, const char *data,
                    size_t data_size, uint64_t election_timer,
                    struct uuid *sidp, struct uuid *cidp)
{
    struct ovsdb_error *error = raft_address_validate(local_address);
    if (!error && election_timer) {
        error = cluster_file_validate_election_timer(election_timer);
    }
    if (error) {
        return error;
    }

    char *msg = NULL;
    json_t *data_json = jsonx_from_buffer(data, data_size, &msg);
    if (!data_json) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "%s", msg);
        free(msg);
        return error;
    }
    struct raft_header h = {
        .name = (char *) name,
        .local_address = (char *) local_address,
        .snap_index = 1,
        .snap = { .term = 1, .data = data_json },
    };
    uuid_generate(&h.sid);
    uuid_generate(&h.cid);
    uuid_generate(&h.snap.eid);
    h.snap.servers = raft_servers_single(&h.sid, local_address);

    struct ds texts[2] = { DS_EMPTY_INITIALIZER, DS_EMPTY_INITIALIZER };
    raft_header_put(&texts[0], &h);
    if (election_timer) {
        raft_record_put_entry(&texts[1], 1, 2, NULL, 0, NULL, NULL,
                              election_timer);
    }
    json_decref(h.snap.servers);
    json_decref(data_json);

    error = create_file(path, texts, election_timer ? 2 : 1);
    ds_destroy(&texts[0]);
    ds_destroy(&texts[1]);
    if (!error) {
        if (sidp) {
            *sidp = h.sid;
        }
        if (cidp) {
            *cidp = h.cid;
        }
    }
    return error;
}

struct ovsdb_error *
cluster_file_create_joining(const char *path, const char *name,
                            const char *local_address, char *const *remotes,
                            size_t n_remotes, const struct uuid *cid,
                            struct uuid *sidp)
{
    struct ovsdb_error *error = raft_address_validate(local_address);
    if (error) {
        return error;
    }
    if (!n_remotes) {
        return ovsdb_error(OVSDB_E_OVSDB, "at least one remote address is "
                           "required");
    }
    /* The reference checks its set of remotes in hash order; the first
     * bad one it finds may differ from ours when several are bad. */
    for (size_t i = 0; i < n_remotes; i++) {
        error = raft_address_validate(remotes[i]);
        if (error) {
            return error;
        }
        if (!strcmp(remotes[i], local_address)) {
            return ovsdb_error(OVSDB_E_OVSDB, "remote addresses cannot be "
                               "the same as the local address");
        }
    }
    if (cid && uuid_is_zero(cid)) {
        return ovsdb_error(OVSDB_E_OVSDB, "all-zero UUID is not valid "
                           "cluster ID");
    }

    /* A set: the first copy of each address. */
    char **set = xmalloc(n_remotes * sizeof *set);
    size_t n = 0;
    for (size_t i = 0; i < n_remotes; i++) {
        bool dup = false;
        for (size_t j = 0; j < n && !dup; j++) {
            dup = !strcmp(set[j], remotes[i]);
        }
        if (!dup) {
            set[n++] = remotes[i];
        }
    }
    struct raft_header h = {
        .name = (char *) name,
        .local_address = (char *) local_address,
        .joining = true,
        .remote_addresses = set,
        .n_remote_addresses = n,
    };
    uuid_generate(&h.sid);
    if (cid) {
        h.cid = *cid;
    }
    struct ds text = DS_EMPTY_INITIALIZER;
    raft_header_put(&text, &h);
    free(set);
    error = create_file(path, &text, 1);
    ds_destroy(&text);
    if (!error && sidp) {
        *sidp = h.sid;
    }
    return error;
}

/* ---------------------------------------------------------------------
 * Writing. */

/* Writes 'text' as one record to 'cf''s log now, or appends the complete
 * record to 'batch' if it is nonnull.  Clears 'text'. */
static struct ovsdb_error *
emit(struct cluster_file *cf, struct ds *batch, struct ds *text)
{
    struct ovsdb_error *error = NULL;
    if (batch) {
        ovsdb_log_put_record_kind(batch, OVSDB_LOG_CLUSTERED, text->string,
                                  text->length);
    } else {
        error = ovsdb_log_write_text(cf->log, text->string, text->length);
    }
    ds_destroy(text);
    if (!error) {
        cf->n_records++;
    }
    return error;
}

/* Writes record 'r' (not an entry), then applies it to the state. */
static struct ovsdb_error *
write_record(struct cluster_file *cf, struct ds *batch,
             const struct raft_record *r)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    raft_record_put(&text, r);
    struct ovsdb_error *error = emit(cf, batch, &text);
    return error ? error : apply_record(cf, cf->n_records, r);
}

struct ovsdb_error *
cluster_file_write_entry(struct cluster_file *cf, struct ds *batch,
                         uint64_t term, uint64_t index, const char *data,
                         size_t data_size, const struct uuid *eid,
                         const json_t *servers, uint64_t election_timer)
{
    if (index > cf->log_end || index < cf->commit_index
        || index < cf->log_start || (batch && index < cf->log_end)) {
        return OVSDB_BUG("entry index out of range");
    }
    struct ds text = DS_EMPTY_INITIALIZER;
    raft_record_put_entry(&text, term, index, data, data_size,
                          data ? eid : NULL, servers, election_timer);
    struct ovsdb_error *error = emit(cf, batch, &text);
    if (error) {
        return error;
    }
    struct raft_record r = { .type = RAFT_REC_ENTRY, .term = term };
    error = apply_record(cf, cf->n_records, &r);
    if (!error) {
        error = apply_entry(cf, cf->n_records, term, index,
                            data ? xmemdup0(data, data_size) : NULL,
                            data_size, eid,
                            servers ? json_deep_copy(servers) : NULL,
                            election_timer);
    }
    return error;
}

struct ovsdb_error *
cluster_file_append_entry(struct cluster_file *cf, struct ds *batch,
                          uint64_t term, const char *data, size_t data_size,
                          const struct uuid *eid, const json_t *servers,
                          uint64_t election_timer, uint64_t *indexp)
{
    uint64_t index = cf->log_end;
    struct ovsdb_error *error = cluster_file_write_entry(
        cf, batch, term, index, data, data_size, eid, servers,
        election_timer);
    if (!error && indexp) {
        *indexp = index;
    }
    return error;
}

struct ovsdb_error *
cluster_file_write_term(struct cluster_file *cf, struct ds *batch,
                        uint64_t term, const struct uuid *vote)
{
    struct raft_record r = { .type = RAFT_REC_TERM, .term = term };
    if (vote && !uuid_is_zero(vote)) {
        r.type = RAFT_REC_VOTE;
        r.sid = *vote;
    }
    return write_record(cf, batch, &r);
}

struct ovsdb_error *
cluster_file_write_leader(struct cluster_file *cf, struct ds *batch,
                          uint64_t term, const struct uuid *leader)
{
    struct raft_record r = { .type = RAFT_REC_LEADER, .term = term,
                             .sid = *leader };
    return write_record(cf, batch, &r);
}

struct ovsdb_error *
cluster_file_write_commit_index(struct cluster_file *cf, struct ds *batch,
                                uint64_t commit_index)
{
    struct raft_record r = { .type = RAFT_REC_COMMIT_INDEX,
                             .commit_index = commit_index };
    return write_record(cf, batch, &r);
}

void
cluster_file_set_commit_index(struct cluster_file *cf, uint64_t commit_index)
{
    if (commit_index > cf->commit_index && commit_index < cf->log_end) {
        cf->commit_index = commit_index;
    }
}

struct ovsdb_error *
cluster_file_write_note(struct cluster_file *cf, struct ds *batch,
                        const char *note)
{
    struct raft_record r = { .type = RAFT_REC_NOTE, .note = (char *) note };
    return write_record(cf, batch, &r);
}

void
cluster_file_forget(struct cluster_file *cf, uint64_t log_end,
                    unsigned long long n_records)
{
    truncate_log(cf, MAX(log_end, cf->commit_index + 1));
    cf->n_records = n_records;
}

void
cluster_file_mark(const struct cluster_file *cf, struct cluster_file_mark *m)
{
    m->log_end = cf->log_end;
    m->commit_index = cf->commit_index;
    m->term = cf->term;
    m->vote = cf->vote;
    m->leader = cf->leader;
    m->n_records = cf->n_records;
}

void
cluster_file_rollback(struct cluster_file *cf,
                      const struct cluster_file_mark *m)
{
    truncate_log(cf, m->log_end);
    cf->commit_index = m->commit_index;
    cf->term = m->term;
    cf->vote = m->vote;
    cf->leader = m->leader;
    cf->n_records = m->n_records;
}

/* ---------------------------------------------------------------------
 * Snapshots. */

struct snapshot_writer {
    const struct cluster_file *cf;
    const struct raft_header *h;
    const char *data;
    size_t data_size;
    unsigned long long n_records;   /* Records after the header. */
};

static struct ovsdb_error *
put_text(struct ovsdb_log *log, struct ds *text)
{
    struct ovsdb_error *error = ovsdb_log_write_text(log, text->string,
                                                     text->length);
    ds_clear(text);
    return error;
}

/* Writes the header 'h' of a compacted file, with snapshot DATA 'data'
 * ('data_size' bytes), to 'new'. */
static struct ovsdb_error *
put_header(struct ovsdb_log *new, const struct raft_header *h,
           const char *data, size_t data_size)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    raft_header_put_data(&text, h, data, data_size);
    struct ovsdb_error *error = put_text(new, &text);
    ds_destroy(&text);
    return error;
}

/* Writes what follows the header of a compacted file whose snapshot ends
 * at 'new_start' - 1, as the reference: the entries after the snapshot,
 * the term (and vote), the commit index if past the snapshot.  Stores the
 * number of records written in '*n_records'. */
static struct ovsdb_error *
put_tail(struct ovsdb_log *new, const struct cluster_file *cf,
         uint64_t new_start, unsigned long long *n_records)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    struct ovsdb_error *error = NULL;
    *n_records = 0;
    for (uint64_t i = new_start; !error && i < cf->log_end; i++) {
        const struct cluster_entry *e = cluster_file_get_entry(cf, i);
        raft_record_put_entry(&text, e->term, i, e->data, e->data_size,
                              &e->eid, e->servers, e->election_timer);
        error = put_text(new, &text);
        ++*n_records;
    }
    if (!error) {
        struct raft_record r = { .type = RAFT_REC_TERM, .term = cf->term };
        if (!uuid_is_zero(&cf->vote)) {
            r.type = RAFT_REC_VOTE;
            r.sid = cf->vote;
        }
        raft_record_put(&text, &r);
        error = put_text(new, &text);
        ++*n_records;
    }
    if (!error && cf->commit_index >= new_start) {
        struct raft_record r = { .type = RAFT_REC_COMMIT_INDEX,
                                 .commit_index = cf->commit_index };
        raft_record_put(&text, &r);
        error = put_text(new, &text);
        ++*n_records;
    }
    ds_destroy(&text);
    return error;
}

/* Writes the whole compacted file. */
static struct ovsdb_error *
write_snapshot(struct ovsdb_log *new, void *w_)
{
    struct snapshot_writer *w = w_;
    struct ovsdb_error *error = put_header(new, w->h, w->data, w->data_size);
    return error ? error
                 : put_tail(new, w->cf, w->h->snap_index + 1, &w->n_records);
}

/* Checks that a snapshot after entry 'applied_index' can be stored in
 * 'cf' and stores in '*h' its header, sharing the strings of
 * 'cf->header' except 'h->snap.servers' (a new reference). */
static struct ovsdb_error *
new_snapshot_header(const struct cluster_file *cf, uint64_t applied_index,
                    struct raft_header *h)
{
    if (cf->header.joining) {
        return ovsdb_error(OVSDB_E_OVSDB, "cannot store a snapshot while "
                           "joining cluster");
    }
    uint64_t new_start = applied_index + 1;
    if (new_start <= cf->log_start) {
        return ovsdb_error(OVSDB_E_OVSDB, "not storing a duplicate "
                           "snapshot");
    } else if (new_start > cf->log_end) {
        return OVSDB_BUG("snapshot past the end of the log");
    }
    *h = cf->header;
    h->snap_index = applied_index;
    h->snap.term = cluster_file_get_term(cf, applied_index);
    h->snap.eid = *cluster_file_get_eid(cf, applied_index);
    h->snap.servers = json_deep_copy(servers_for_index(cf, applied_index));
    h->snap.election_timer = cluster_file_get_election_timer(cf);
    h->snap.data = NULL;
    return NULL;
}

/* The file now holds the snapshot of header 'h' (whose 'snap.servers' it
 * takes) and 'n_records' records after it: makes the state match. */
static void
adopt_snapshot(struct cluster_file *cf, struct raft_header *h,
               unsigned long long n_records)
{
    uint64_t new_start = h->snap_index + 1;
    uint64_t n_drop = new_start - cf->log_start;
    for (uint64_t i = 0; i < n_drop; i++) {
        entry_destroy(&cf->entries[i]);
    }
    memmove(cf->entries, &cf->entries[n_drop],
            (cf->log_end - new_start) * sizeof *cf->entries);
    json_decref(cf->header.snap.data);
    json_decref(cf->header.snap.servers);
    cf->header.snap = h->snap;
    cf->header.snap.data = NULL;
    cf->header.snap_index = h->snap_index;
    cf->log_start = new_start;
    cf->n_records = n_records;
    ovsdb_error_destroy(cf->tail_error);
    cf->tail_error = NULL;
}

struct ovsdb_error *
cluster_file_save_snapshot(struct cluster_file *cf, uint64_t applied_index,
                           const char *data, size_t data_size)
{
    struct raft_header h;
    struct ovsdb_error *error = new_snapshot_header(cf, applied_index, &h);
    if (error) {
        return error;
    }
    struct snapshot_writer w = {
        .cf = cf, .h = &h, .data = data, .data_size = data_size
    };
    error = ovsdb_log_replace(cf->log, write_snapshot, &w);
    if (error) {
        json_decref(h.snap.servers);
        return error;
    }
    adopt_snapshot(cf, &h, w.n_records);
    return NULL;
}

/* A compaction in the background (see cluster-file.h). */
struct cluster_compaction {
    struct ovsdb_log *new; /* "<name>.tmp". */
    struct raft_header h;  /* The new header (new_snapshot_header()). */
    uint64_t log_start;    /* 'cf->log_start' when it started. */
};

struct ovsdb_error *
cluster_file_compact_start(struct cluster_file *cf, uint64_t applied_index,
                           struct cluster_compaction **ccp)
{
    *ccp = NULL;
    struct cluster_compaction *cc = xzalloc(sizeof *cc);
    struct ovsdb_error *error = new_snapshot_header(cf, applied_index, &cc->h);
    if (error) {
        free(cc);
        return error;
    }
    error = ovsdb_log_replace_start(cf->log, &cc->new);
    if (error) {
        json_decref(cc->h.snap.servers);
        free(cc);
        return error;
    }
    cc->log_start = cf->log_start;
    *ccp = cc;
    return NULL;
}

struct ovsdb_error *
cluster_file_compact_write(struct cluster_compaction *cc, const char *data,
                           size_t data_size)
{
    struct ovsdb_error *error = put_header(cc->new, &cc->h, data, data_size);
    return error ? error : ovsdb_log_commit_block(cc->new);
}

struct ovsdb_error *
cluster_file_compact_finish(struct cluster_file *cf,
                            struct cluster_compaction *cc)
{
    struct ovsdb_error *error = NULL;
    if (cf->log_start != cc->log_start || cc->h.snap_index >= cf->log_end
        || cf->header.joining) {
        /* A snapshot from the leader replaced the file meanwhile. */
        error = ovsdb_error(OVSDB_E_OVSDB, "the log was replaced during "
                                           "the compaction");
    }
    if (!error) {
        error = ovsdb_log_sync_size(cc->new);
    }
    unsigned long long n_records = 0;
    if (!error) {
        error = put_tail(cc->new, cf, cc->h.snap_index + 1, &n_records);
    }
    if (error) {
        cluster_file_compact_abort(cc);
        return error;
    }
    error = ovsdb_log_replace_commit(cf->log, cc->new);
    cc->new = NULL;
    if (!error) {
        adopt_snapshot(cf, &cc->h, n_records);
        cc->h.snap.servers = NULL;
    }
    cluster_file_compact_abort(cc);
    return error;
}

void
cluster_file_compact_abort(struct cluster_compaction *cc)
{
    if (cc) {
        ovsdb_log_replace_abort(cc->new);
        json_decref(cc->h.snap.servers);
        free(cc);
    }
}

struct ovsdb_error *
cluster_file_install_snapshot(struct cluster_file *cf, const struct uuid *cid,
                              uint64_t index, uint64_t term,
                              const struct uuid *eid, const json_t *servers,
                              uint64_t election_timer, const char *data,
                              size_t data_size)
{
    if (index + 1 < cf->log_end || index < cf->commit_index) {
        return OVSDB_BUG("installed snapshot does not cover the log");
    }
    struct raft_header h = cf->header;
    h.joining = false;
    h.remote_addresses = NULL;
    h.n_remote_addresses = 0;
    if (cid) {
        h.cid = *cid;
    }
    h.snap_index = index;
    h.snap = (struct raft_entry){
        .term = term,
        .eid = eid ? *eid : (struct uuid){ { 0 } },
        .servers = (json_t *) servers,
        .election_timer = election_timer,
    };
    struct snapshot_writer w = {
        .cf = cf, .h = &h, .data = data, .data_size = data_size
    };
    struct ovsdb_error *error = ovsdb_log_replace(cf->log, write_snapshot, &w);
    if (error) {
        return error;
    }

    truncate_log(cf, cf->log_start);
    for (size_t i = 0; i < cf->header.n_remote_addresses; i++) {
        free(cf->header.remote_addresses[i]);
    }
    free(cf->header.remote_addresses);
    cf->header.remote_addresses = NULL;
    cf->header.n_remote_addresses = 0;
    cf->header.joining = false;
    cf->header.cid = h.cid;
    raft_entry_destroy(&cf->header.snap);
    cf->header.snap = h.snap;
    cf->header.snap.servers = json_deep_copy(servers);
    cf->header.snap_index = index;
    cf->log_start = cf->log_end = index + 1;
    cf->commit_index = index;
    cf->n_records = w.n_records;
    ovsdb_error_destroy(cf->tail_error);
    cf->tail_error = NULL;
    return NULL;
}

struct ovsdb_error *
cluster_file_read_snapshot_data(const char *path, json_t **datap)
{
    *datap = NULL;
    struct ovsdb_log *log;
    struct ovsdb_error *error = ovsdb_log_open_kind(path, OVSDB_LOG_READ_ONLY,
                                                    OVSDB_LOG_CLUSTERED, &log);
    if (error) {
        return error;
    }
    json_t *json;
    error = ovsdb_log_read(log, &json);
    ovsdb_log_close(log);
    if (error) {
        return error;
    } else if (!json) {
        return ovsdb_error(OVSDB_E_OVSDB,
                           "%s: clustered database file has "
                           "no header",
                           path);
    }
    struct raft_header h;
    error = raft_header_from_json(&h, json);
    json_decref(json);
    if (error) {
        return error;
    }
    *datap = h.snap.data;
    h.snap.data = NULL;
    raft_header_destroy(&h);
    return *datap ? NULL : ovsdb_error(OVSDB_E_OVSDB, "%s: no snapshot", path);
}

/* ---------------------------------------------------------------------
 * The database. */

struct ovsdb_error *
cluster_file_apply_data(struct ovsdb **dbp, const char *name,
                        const json_t *data)
{
    const json_t *schema_json, *txn;
    struct ovsdb_error *error = raft_data_split(data, &schema_json, &txn);
    if (error) {
        return error;
    }
    if (schema_json) {
        struct ovsdb_schema *schema;
        error = ovsdb_schema_from_json(schema_json, &schema);
        if (error) {
            return error;
        }
        if (name && strcmp(name, schema->name)) {
            error = ovsdb_error(OVSDB_E_OVSDB, "name %s in header does not "
                                "match name %s in schema", name,
                                schema->name);
            ovsdb_schema_destroy(schema);
            return error;
        }
        ovsdb_destroy(*dbp);
        *dbp = ovsdb_create(schema);
    }
    if (txn) {
        if (!*dbp) {
            return ovsdb_error(OVSDB_E_OVSDB, "data without schema");
        }
        error = ovsdb_record_replay(*dbp, txn);
    }
    return error;
}

struct ovsdb_error *
cluster_file_replay(const struct cluster_file *cf, uint64_t last_index,
                    struct ovsdb **dbp, struct uuid *eidp)
{
    *dbp = NULL;
    struct ovsdb *db = NULL;
    struct ovsdb_error *error = NULL;
    if (cf->header.joining) {
        return ovsdb_error(OVSDB_E_OVSDB, "%s: database has not joined its "
                           "cluster yet", cf->header.name);
    }
    if (cf->header.snap.data) {
        error = cluster_file_apply_data(&db, cf->header.name,
                                        cf->header.snap.data);
    } else if (cf->header.snap_index) {
        error = OVSDB_BUG("snapshot data not in memory");
    }
    for (uint64_t i = cf->log_start;
         !error && i <= last_index && i < cf->log_end; i++) {
        const struct cluster_entry *e = cluster_file_get_entry(cf, i);
        if (!e->data) {
            continue;
        }
        char *msg = NULL;
        json_t *data = jsonx_from_buffer(e->data, e->data_size, &msg);
        if (!data) {
            error = ovsdb_error(OVSDB_E_SYNTAX, "%s", msg);
            free(msg);
        } else {
            error = cluster_file_apply_data(&db, cf->header.name, data);
            json_decref(data);
        }
        if (error) {
            error = ovsdb_error_wrap(error, "%s: entry %"PRIu64,
                                     cf->header.name, i);
        }
    }
    if (!error && !db) {
        error = ovsdb_error(OVSDB_E_OVSDB, "%s: no schema in the clustered "
                            "database", cf->header.name);
    }
    if (error) {
        ovsdb_destroy(db);
        return error;
    }
    if (eidp) {
        *eidp = *cluster_file_get_eid(cf, MIN(last_index, cf->log_end - 1));
    }
    *dbp = db;
    return NULL;
}

void
cluster_file_put_db_data(struct ds *out, const struct ovsdb *db,
                         const char *comment)
{
    json_t *schema = ovsdb_schema_to_json(ovsdb_get_schema(db));
    ds_put_char(out, '[');
    raft_data_put_json(out, schema);
    ds_put_char(out, ',');
    ovsdb_file_put_snapshot(out, db, comment);
    ds_put_char(out, ']');
    json_decref(schema);
}
