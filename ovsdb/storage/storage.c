/* ovsdb/storage/storage.c: commits, compaction policy, background compaction.
 * See storage.h for the rules and the hand-off points with the compaction
 * child. */
#include <config.h>

#include "ovsdb/storage/storage.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/poll-loop.h"
#include "lib/progress.h"
#include "lib/prom.h"
#include "lib/timeval.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/format/file.h"
#include "ovsdb/format/log.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/raft/raft.h"
#include "ovsdb/format/record.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/txn.h"

VLOG_DEFINE_THIS_MODULE(ovsdb_storage);

#define COMPACT_MIN_MSEC (10LL * 60 * 1000)      /* 10 minutes. */
#define COMPACT_MAX_MSEC (24LL * 60 * 60 * 1000) /* 24 hours. */
#define COMPACT_MIN_BYTES (10LL * 1024 * 1024)   /* 10 MB. */
#define COMPACT_FACTOR 4
#define COMPACT_MAX_RECORDS 100
#define RECOVER_MSEC 1000                        /* Retry a broken log. */

/* Clustered: what one pass of the loop applies of the committed log, at
 * most (and at least one entry), so that a member with much to apply (one
 * that joined or restarted behind the others) keeps answering its clients
 * and its cluster between slices. */
#define APPLY_MAX_BYTES (1024 * 1024)
#define APPLY_MAX_ENTRIES 1000
#define APPLY_MAX_MSEC 50

struct ovsdb_storage {
    char *name;
    struct ovsdb *db;               /* Borrowed: the caller owns it. */
    struct ovsdb_log *log;          /* A standalone file, or NULL. */
    struct raft *raft;              /* A clustered file, or NULL. */

    /* Policy. */
    long long min_msec, min_bytes;
    long long last_compact;         /* time_msec() of open/last compaction. */
    off_t base_size;                /* File size after that. */
    unsigned long long base_records;
    long long next_recover;         /* time_msec() of next rewrite try. */
    bool trim;

    /* Compaction in progress (child_pid > 0). */
    pid_t child_pid;
    pid_t parent_pid;               /* getpid() when it forked. */
    int child_fd;                   /* Read end of the child's pipe. */
    struct ds child_msg;            /* What the child wrote there. */
    struct ovsdb_log *new_log;      /* DB.tmp, shared with the child. */
    struct cluster_compaction *raft_job; /* Clustered: the same. */
    struct ds pending;              /* Records committed since the fork. */
    unsigned long long n_pending;   /* Number of records in 'pending'. */

    /* Group commit: what was committed since the last flush. */
    struct ds batch;                /* Formatted records, not written
                                     * (standalone), or scratch space for
                                     * one entry's DATA (clustered). */
    unsigned long long batch_records;   /* Number of records in 'batch'. */
    bool batch_durable;             /* Some transaction asked for fsync. */
    struct pending_txn *txns;       /* Undecided, in commit order. */
    size_t n_txns, allocated_txns;
    size_t n_submitted;             /* Clustered: txns[0..this) are
                                     * proposed and synced, the rest
                                     * since the last flush. */
    uint64_t last_ticket;           /* Of the newest transaction. */
    struct outcome *outcomes;       /* Decided, not yet popped. */
    size_t n_outcomes, allocated_outcomes;
    struct uuid state_eid;          /* Clustered: the eid of the last entry
                                     * whose changes the database shows. */
    struct ovsdb *new_db;           /* Clustered: a database that replaced
                                     * 's->db' (a schema change or a
                                     * snapshot from the leader). */
    bool rewrite_soon;              /* A failed fsync was undone. */

    /* Clustered: what this pass of the loop applied so far (reset by
     * ovsdb_storage_run()), and whether it stopped with entries left. */
    size_t slice_bytes;
    unsigned int slice_entries;
    long long slice_msec;
    /* No slices: ovsdb_storage_apply_committed() applies everything. */
    bool whole_slice;
    bool apply_more;

    /* Statistics. */
    unsigned long long n_batches, n_batch_failures;
    size_t max_batch;
    struct prom_histogram commit_seconds; /* Clustered: entries' time from
                                           * proposed to known committed. */

    unsigned long long n_compactions;
    struct ovsdb_error *compact_error;
};

/* A transaction committed in memory whose outcome is not known yet, or
 * (clustered) a conversion proposed to the cluster. */
struct pending_txn {
    struct ovsdb_txn *txn;    /* NULL for a conversion. */
    struct ovsdb *convert_db; /* A conversion's new database (owned). */
    uint64_t ticket;
    struct raft_command *cmd;   /* Clustered: its entry's, or NULL if it
                                 * changed nothing persistent. */
    struct uuid eid;            /* Clustered: its entry's eid. */
    long long proposed_usec;    /* Clustered: time_usec() when its entry
                                 * was proposed. */
};

/* Every transaction with a ticket up to 'ticket' is decided: committed if
 * 'error' is NULL, else undone with 'error'. */
struct outcome {
    uint64_t ticket;
    struct ovsdb_error *error;
};

static long long
env_llong(const char *name, long long dflt)
{
    const char *s = getenv(name);
    long long v;
    return s && str_to_llong(s, &v) && v >= 0 ? v : dflt;
}

static off_t
file_size(const struct ovsdb_storage *s)
{
    return s->raft ? raft_get_file_size(s->raft) : ovsdb_log_get_offset(s->log);
}

static unsigned long long
n_records(const struct ovsdb_storage *s)
{
    return (s->raft ? raft_get_n_log_entries(s->raft)
            : ovsdb_log_get_n_records(s->log));
}

static bool
log_is_broken(const struct ovsdb_storage *s)
{
    return s->log && ovsdb_log_is_broken(s->log);
}

static void
mark_base(struct ovsdb_storage *s)
{
    s->last_compact = time_msec();
    s->base_size = file_size(s);
    s->base_records = n_records(s);
}

/* Stores in '*kindp' whether 'path' is a standalone or a clustered
 * file. */
static struct ovsdb_error *
read_kind(const char *path, enum ovsdb_log_kind *kindp)
{
    struct ovsdb_log *log;
    struct ovsdb_error *error = ovsdb_log_open_kind(
        path, OVSDB_LOG_READ_ONLY, OVSDB_LOG_ANY, &log);
    if (!error) {
        *kindp = ovsdb_log_get_kind(log);
        ovsdb_log_close(log);
    }
    return error;
}

/* Opens the clustered file 'path' as this server's Raft member. */
static struct ovsdb_error *
open_clustered(const char *path, struct raft **raftp, struct ovsdb **dbp)
{
    struct ovsdb_error *error = raft_open(path, raftp);
    if (!error) {
        error = raft_read_db(*raftp, dbp);
        if (error) {
            raft_close(*raftp);
            *raftp = NULL;
        }
    }
    return error;
}

static struct ovsdb_error *open__(const char *path, const char *name,
                                  struct ovsdb_storage **,
                                  struct ovsdb **);

/* Returns 'path' made absolute (caller must free with free()), so that
 * compaction, which creates files next to it, still finds its directory
 * after the server detached and changed to "/".  A file that cannot be
 * found keeps its name as given, so that the error names it that way. */
static char *
absolute_path(const char *path)
{
    struct stat st;
    char cwd[PATH_MAX];
    if (path[0] == '/' || stat(path, &st) || !getcwd(cwd, sizeof cwd)) {
        return xstrdup(path);
    }
    return dirs_abs_file_name(cwd, path);
}

struct ovsdb_error *
ovsdb_storage_open(const char *path, struct ovsdb_storage **storagep,
                   struct ovsdb **dbp)
{
    char *abs_path = absolute_path(path);
    struct ovsdb_error *error = open__(abs_path, path, storagep, dbp);
    free(abs_path);
    return error;
}

/* Does the work of ovsdb_storage_open(): 'path' is the file's absolute
 * name, 'name' the name the caller gave.  A standalone file is opened by
 * 'name' (the log makes its own path absolute and names the file in its
 * messages as given, as the reference does); a clustered one by 'path'. */
static struct ovsdb_error *
open__(const char *path, const char *name, struct ovsdb_storage **storagep,
       struct ovsdb **dbp)
{
    *storagep = NULL;
    *dbp = NULL;
    struct ovsdb_log *log = NULL;
    struct raft *raft = NULL;
    struct ovsdb_error *tail_error = NULL;
    enum ovsdb_log_kind kind;
    struct ovsdb_error *error = read_kind(path, &kind);
    if (!error) {
        error = (kind == OVSDB_LOG_CLUSTERED
                     ? open_clustered(path, &raft, dbp)
                     : ovsdb_file_open(name, dbp, &log, &tail_error));
    }
    if (error) {
        return error;
    }
    if (tail_error) {
        char *s = ovsdb_error_to_string_free(tail_error);
        VLOG_ERR("%s", s);
        free(s);
    }
    /* Replay freed the whole file's JSON: give that memory back now.  Left
     * in glibc's free lists, it also made the first malloc() after a
     * compaction fork consolidate them, turning every page it touched into
     * a copy-on-write fault (measured: a 3 s stall of the parent after
     * opening a 200k-row file). */
    allocator_release_free_memory();

    struct ovsdb_storage *s = xzalloc(sizeof *s);
    s->name = xstrdup(name);
    s->db = *dbp;
    s->log = log;
    s->raft = raft;
    if (raft) {
        s->state_eid = *raft_get_applied_eid(raft);
        s->slice_msec = time_msec();
        static const double commit_bounds[] = {
            0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
            0.1,    0.25,  0.5,    1,     2.5,  5,     10,
        };
        prom_histogram_init(&s->commit_seconds, commit_bounds,
                            ARRAY_SIZE(commit_bounds));
    }
    s->min_msec = env_llong("OVSDB_COMPACT_MIN_MSEC", COMPACT_MIN_MSEC);
    s->min_bytes = env_llong("OVSDB_COMPACT_MIN_BYTES", COMPACT_MIN_BYTES);
    s->child_fd = -1;
    ds_init(&s->child_msg);
    ds_init(&s->pending);
    ds_init(&s->batch);
    mark_base(s);
    *storagep = s;
    return NULL;
}

static void
cancel_compaction(struct ovsdb_storage *s)
{
    if (s->child_pid > 0) {
        kill(s->child_pid, SIGKILL);
        waitpid(s->child_pid, NULL, 0);
        s->child_pid = 0;
    }
    if (s->child_fd >= 0) {
        poll_fd_forget(s->child_fd);
        close(s->child_fd);
        s->child_fd = -1;
    }
    ovsdb_log_replace_abort(s->new_log);
    s->new_log = NULL;
    cluster_file_compact_abort(s->raft_job);
    s->raft_job = NULL;
    ds_clear(&s->pending);
    s->n_pending = 0;
    ds_clear(&s->child_msg);
}

void
ovsdb_storage_close(struct ovsdb_storage *s)
{
    if (s) {
        ovsdb_error_destroy(ovsdb_storage_flush(s));
        cancel_compaction(s);
        ovsdb_log_close(s->log);
        raft_close(s->raft);
        ovsdb_error_destroy(s->compact_error);
        ds_destroy(&s->child_msg);
        ds_destroy(&s->pending);
        ds_destroy(&s->batch);
        for (size_t i = 0; i < s->n_txns; i++) {
            ovsdb_destroy(s->txns[i].convert_db);
        }
        free(s->txns);
        for (size_t i = 0; i < s->n_outcomes; i++) {
            ovsdb_error_destroy(s->outcomes[i].error);
        }
        free(s->outcomes);
        ovsdb_destroy(s->new_db);
        free(s->name);
        free(s);
    }
}

const char *
ovsdb_storage_get_name(const struct ovsdb_storage *s)
{
    return s->name;
}

struct raft *
ovsdb_storage_get_raft(const struct ovsdb_storage *s)
{
    return s->raft;
}

void
ovsdb_storage_set_memory_trim(struct ovsdb_storage *s, bool trim)
{
    s->trim = trim;
}

bool
ovsdb_storage_is_compacting(const struct ovsdb_storage *s)
{
    return s->child_pid > 0;
}

unsigned long long
ovsdb_storage_n_compactions(const struct ovsdb_storage *s)
{
    return s->n_compactions;
}

const struct ovsdb_error *
ovsdb_storage_last_compact_error(const struct ovsdb_storage *s)
{
    return s->compact_error;
}

long long
ovsdb_storage_get_file_size(const struct ovsdb_storage *s)
{
    return file_size(s);
}

unsigned long long
ovsdb_storage_get_n_records(const struct ovsdb_storage *s)
{
    return n_records(s);
}

const struct prom_histogram *
ovsdb_storage_get_commit_latency(const struct ovsdb_storage *s)
{
    return s->raft ? &s->commit_seconds : NULL;
}

void
ovsdb_storage_put_stats(const struct ovsdb_storage *s, struct ds *out)
{
    ds_put_format(out, "%s:%llu size:%lld compactions:%llu "
                  "batches:%llu max-batch:%zu failed-batches:%llu%s%s",
                  s->raft ? "raft-log" : "records", n_records(s),
                  (long long) file_size(s),
                  s->n_compactions, s->n_batches, s->max_batch,
                  s->n_batch_failures,
                  s->child_pid > 0 ? " compacting" : "",
                  log_is_broken(s) ? " broken" : "");
}

/* ---------------------------------------------------------------------
 * Commits. */

#define BIG_BATCH_BYTES (1024 * 1024)

/* Adds the record of 'txn' (borrowed), if it changed anything persistent,
 * to the batch. */
static void
batch_append(struct ovsdb_storage *s, const struct ovsdb_txn *txn,
             bool durable)
{
    /* Serialized straight from the transaction into the batch: a json_t
     * of a big transaction, or a second copy of its text, would cost
     * several times the text. */
    size_t start = s->batch.length;
    if (ovsdb_record_put_txn(&s->batch, txn)) {
        ovsdb_log_finish_record(&s->batch, start);
        s->batch_records++;
        s->batch_durable = s->batch_durable || durable;
    }
}

bool
ovsdb_storage_has_pending(const struct ovsdb_storage *s)
{
    return s->n_txns || s->batch.length;
}

uint64_t
ovsdb_storage_get_last_ticket(const struct ovsdb_storage *s)
{
    return s->last_ticket;
}

/* Records that every transaction up to 'ticket' is decided, with 'error'
 * (takes ownership; NULL for success). */
static void
push_outcome(struct ovsdb_storage *s, uint64_t ticket,
             struct ovsdb_error *error)
{
    if (!error && s->n_outcomes && !s->outcomes[s->n_outcomes - 1].error) {
        s->outcomes[s->n_outcomes - 1].ticket = ticket;
        return;
    }
    if (s->n_outcomes >= s->allocated_outcomes) {
        s->outcomes = x2nrealloc(s->outcomes, &s->allocated_outcomes,
                                 sizeof *s->outcomes);
    }
    s->outcomes[s->n_outcomes++] = (struct outcome) { ticket, error };
}

bool
ovsdb_storage_pop_outcome(struct ovsdb_storage *s, uint64_t *ticket,
                          struct ovsdb_error **errorp)
{
    if (!s->n_outcomes) {
        return false;
    }
    *ticket = s->outcomes[0].ticket;
    *errorp = s->outcomes[0].error;
    s->n_outcomes--;
    memmove(s->outcomes, &s->outcomes[1], s->n_outcomes * sizeof *s->outcomes);
    return true;
}

/* Finishes the oldest 'n' undecided transactions (they are committed).  A
 * conversion among them makes its database the one to serve. */
static void
finish_txns(struct ovsdb_storage *s, size_t n)
{
    if (!n) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        struct pending_txn *pt = &s->txns[i];
        if (pt->txn) {
            ovsdb_txn_deferred_finish(pt->txn);
        } else {
            ovsdb_destroy(s->new_db);
            s->new_db = s->db = pt->convert_db;
        }
        if (pt->cmd) {
            prom_histogram_observe(&s->commit_seconds,
                                   (time_usec() - pt->proposed_usec) / 1e6);
        }
        raft_command_unref(pt->cmd);
    }
    push_outcome(s, s->txns[n - 1].ticket, NULL);
    s->n_txns -= n;
    s->n_submitted -= MIN(s->n_submitted, n);
    memmove(s->txns, &s->txns[n], s->n_txns * sizeof *s->txns);
}

/* Undoes every undecided transaction, newest first, and decides them with
 * 'error' (takes ownership). */
static void
undo_txns(struct ovsdb_storage *s, struct ovsdb_error *error)
{
    if (!s->n_txns) {
        ovsdb_error_destroy(error);
        return;
    }
    for (size_t i = s->n_txns; i-- > 0;) {
        if (s->txns[i].txn) {
            ovsdb_txn_deferred_undo(s->txns[i].txn);
        }
        ovsdb_destroy(s->txns[i].convert_db);
        raft_command_unref(s->txns[i].cmd);
    }
    push_outcome(s, s->txns[s->n_txns - 1].ticket, error);
    s->n_txns = s->n_submitted = 0;
    s->n_batch_failures++;
}

/* Clustered: an "unknown outcome": the transaction's entry went to the
 * cluster, and this member could not learn whether it committed ('why'). */
static struct ovsdb_error *
unknown_outcome(const char *why)
{
    return ovsdb_error(OVSDB_E_UNKNOWN_OUTCOME,
                       "%s: the transaction may or may not have been "
                       "committed; read the database to find out",
                       why);
}

/* Clustered: the error for a Raft command that failed with 'status'.  A
 * write error is one; RAFT_CMD_UNKNOWN is an "unknown outcome"; anything
 * else (no leader, a leader change that overwrote the entry, another
 * member's entry first) is a "cluster error": the transaction did not
 * happen and may be tried again, as the reference does. */
static struct ovsdb_error *
command_error(enum raft_command_status status)
{
    if (status == RAFT_CMD_UNKNOWN) {
        return unknown_outcome("the cluster did not tell its fate in time");
    }
    return ovsdb_error(status == RAFT_CMD_IO_ERROR ? OVSDB_E_IO
                                                   : OVSDB_E_CLUSTER,
                       "%s", raft_command_status_to_string(status));
}

/* Clustered: proposes the record of 'txn' (borrowed), if it changed
 * anything persistent, as a Raft entry [null, RECORD] built on the state
 * the database shows, and stores the command and eid in 'pt'. */
static struct ovsdb_error *
propose_txn(struct ovsdb_storage *s, const struct ovsdb_txn *txn,
            struct pending_txn *pt)
{
    pt->cmd = NULL;
    uuid_zero(&pt->eid);
    ds_clear(&s->batch);
    ds_put_cstr(&s->batch, "[null,");
    if (!ovsdb_record_put_txn(&s->batch, txn)) {
        ds_clear(&s->batch);
        return NULL;
    }
    ds_put_char(&s->batch, ']');
    uuid_generate(&pt->eid);
    struct raft_command *cmd = raft_command_execute(
        s->raft, s->batch.string, s->batch.length, &s->state_eid, &pt->eid);
    if (s->batch.allocated >= BIG_BATCH_BYTES) {
        ds_destroy(&s->batch);
        ds_init(&s->batch);
    }
    ds_clear(&s->batch);

    enum raft_command_status status = raft_command_get_status(cmd);
    if (status != RAFT_CMD_INCOMPLETE && status != RAFT_CMD_SUCCESS) {
        raft_command_unref(cmd);
        return command_error(status);
    }
    pt->cmd = cmd;
    pt->proposed_usec = time_usec();
    s->state_eid = pt->eid;
    return NULL;
}

/* Clustered: applies the committed entry with DATA 'data' ('size' bytes)
 * that no undecided transaction of ours stands for. */
static void
apply_entry(struct ovsdb_storage *s, const char *data, size_t size,
            const struct uuid *eid, bool is_snapshot)
{
    char *msg = NULL;
    json_t *json = jsonx_from_buffer(data, size, &msg);
    struct ovsdb_error *error = NULL;
    if (!json) {
        error = ovsdb_error(OVSDB_E_SYNTAX, "%s", msg);
        free(msg);
    } else {
        const json_t *schema, *txn;
        error = raft_data_split(json, &schema, &txn);
        if (!error && (schema || is_snapshot)) {
            /* A new database: the caller switches to it. */
            struct ovsdb *db = NULL;
            error = cluster_file_apply_data(&db, raft_get_name(s->raft),
                                            json);
            if (!error) {
                ovsdb_destroy(s->new_db);
                s->new_db = s->db = db;
            }
        } else if (!error && txn) {
            error = ovsdb_record_replay_id(s->db, txn, eid);
        }
        json_decref(json);
    }
    if (error) {
        /* The cluster committed it: every member must apply it.  Not being
         * able to is a bug or a corrupt entry; say so loudly. */
        char *s_err = ovsdb_error_to_string_free(error);
        VLOG_ERR("%s: cannot apply committed entry "UUID_FMT": %s",
                 s->name, UUID_ARGS(eid), s_err);
        free(s_err);
    }
    s->state_eid = *eid;
}

/* Clustered: starts a new slice of the committed log to apply. */
static void
start_slice(struct ovsdb_storage *s)
{
    s->slice_bytes = 0;
    s->slice_entries = 0;
    s->slice_msec = time_msec();
}

/* Clustered: true if this pass applied all it may. */
static bool
slice_is_full(const struct ovsdb_storage *s)
{
    return (!s->whole_slice && s->slice_entries
            && (s->slice_bytes >= APPLY_MAX_BYTES
                || s->slice_entries >= APPLY_MAX_ENTRIES
                || time_msec() - s->slice_msec >= APPLY_MAX_MSEC));
}

/* Clustered: decides what the Raft member's news allow: transactions whose
 * entries were committed are finished; if a command failed, or an entry
 * that is not ours was committed first, every undecided transaction is
 * undone, and entries of others are applied, a slice per pass of the
 * loop. */
static void
raft_decide(struct ovsdb_storage *s)
{
    for (;;) {
        /* Transactions that changed nothing persistent need no entry. */
        size_t n = 0;
        while (n < s->n_submitted && !s->txns[n].cmd) {
            n++;
        }
        finish_txns(s, n);

        if (s->n_submitted) {
            enum raft_command_status status
                = raft_command_get_status(s->txns[0].cmd);
            if (status != RAFT_CMD_INCOMPLETE && status != RAFT_CMD_SUCCESS) {
                undo_txns(s, command_error(status));
                s->state_eid = *raft_get_applied_eid(s->raft);
            }
        }

        if (slice_is_full(s)) {
            /* The rest in the next passes (ovsdb_storage_wait()). */
            s->apply_more = true;
            return;
        }
        size_t size;
        struct uuid eid;
        bool is_snapshot;
        const char *data = raft_next_entry(s->raft, &size, &eid,
                                           &is_snapshot);
        if (!data) {
            s->apply_more = false;
            return;
        }
        s->slice_bytes += size;
        s->slice_entries++;
        if (s->n_submitted && !is_snapshot
            && uuid_equals(&eid, &s->txns[0].eid)) {
            finish_txns(s, 1);
        } else {
            /* (Only if there is something to undo: a follower applying
             * the leader's entries usually has nothing of its own, and
             * building an error for every entry would be waste.)  A
             * snapshot may hold our entries or not; any other entry means
             * they were built on the state before it, and no leader
             * appends them after it (see propose_txn()). */
            if (s->n_txns) {
                undo_txns(s, (is_snapshot
                                  ? unknown_outcome("a snapshot from the "
                                                    "leader replaced the log")
                                  : command_error(RAFT_CMD_LOST_LEADERSHIP)));
            }
            apply_entry(s, data, size, &eid, is_snapshot);
        }
    }
}

void
ovsdb_storage_abandon(struct ovsdb_storage *s)
{
    if (s->raft) {
        undo_txns(s, unknown_outcome("the database was closed"));
        s->state_eid = *raft_get_applied_eid(s->raft);
    }
}

void
ovsdb_storage_apply_committed(struct ovsdb_storage *s)
{
    if (s->raft) {
        s->whole_slice = true;
        raft_decide(s);
        s->whole_slice = false;
        start_slice(s);
    }
}

/* Clustered: makes the batch's entries durable, then decides what can be
 * decided. */
static void
raft_flush(struct ovsdb_storage *s)
{
    struct ovsdb_error *error = raft_sync(s->raft);
    if (error) {
        char *msg = ovsdb_error_to_string(error);
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
        VLOG_ERR_RL(&rl, "%s: commit failed (%zu transaction(s) in the "
                    "batch): %s", s->name, MAX(s->n_txns, (size_t) 1), msg);
        free(msg);
        if (raft_failed(s->raft)) {
            /* In a real cluster the entries went out before the fsync. */
            ovsdb_error_destroy(error);
            error = unknown_outcome("writing the log failed");
        }
        undo_txns(s, error);
        s->state_eid = *raft_get_applied_eid(s->raft);
    } else {
        s->n_submitted = s->n_txns;
    }
    raft_decide(s);
}

/* Writes the batch with one write (and one fsync if any of it is durable).
 * Returns NULL or the error. */
static struct ovsdb_error *
batch_write(struct ovsdb_storage *s)
{
    off_t start = ovsdb_log_get_offset(s->log);
    unsigned long long start_records = ovsdb_log_get_n_records(s->log);
    struct ovsdb_error *error = ovsdb_log_write_records(
        s->log, s->batch.string, s->batch.length, s->batch_records);
    if (!error && s->batch_durable) {
        error = ovsdb_log_commit_block_or_undo(s->log, start,
                                               start_records);
        if (error && !ovsdb_log_is_broken(s->log)) {
            /* The batch is cut off again, but pages of earlier
             * non-durable commits may be lost: rewrite the file from
             * memory soon. */
            s->rewrite_soon = true;
        }
    }
    if (error) {
        if (ovsdb_log_is_broken(s->log) && s->next_recover == 0) {
            s->next_recover = time_msec();
        }
        char *msg = ovsdb_error_to_string(error);
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
        VLOG_ERR_RL(&rl, "%s: commit failed (%zu transaction(s) in the "
                    "batch): %s", s->name, MAX(s->n_txns, (size_t) 1), msg);
        free(msg);
    } else if (s->child_pid > 0) {
        ds_put_buffer(&s->pending, s->batch.string, s->batch.length);
        s->n_pending += s->batch_records;
    }
    return error;
}

struct ovsdb_error *
ovsdb_storage_flush(struct ovsdb_storage *s)
{
    if (!ovsdb_storage_has_pending(s)) {
        return NULL;
    }
    size_t n_txns = s->n_txns;
    struct ovsdb_error *error = NULL;
    if (s->raft) {
        uint64_t failures = s->n_batch_failures;
        raft_flush(s);
        if (s->n_batch_failures != failures && s->n_outcomes) {
            error = ovsdb_error_clone(s->outcomes[s->n_outcomes - 1].error);
        }
    } else {
        error = batch_write(s);
        if (error) {
            undo_txns(s, ovsdb_error_clone(error));
        } else {
            finish_txns(s, s->n_txns);
        }
    }
    s->n_batches++;
    s->max_batch = MAX(s->max_batch, n_txns);
    if (s->batch.length >= BIG_BATCH_BYTES) {
        /* After a big transaction: do not keep a buffer that big for
         * one-row commits, and let the allocator give back what the
         * transaction freed. */
        ds_destroy(&s->batch);
        ds_init(&s->batch);
        allocator_release_after_burst();
    }
    ds_clear(&s->batch);
    s->batch_records = 0;
    s->batch_durable = false;
    return error;
}

struct ovsdb_error *
ovsdb_storage_commit_defer(struct ovsdb_storage *s, struct ovsdb_txn *txn,
                           bool durable)
{
    struct pending_txn pt = { .txn = txn, .cmd = NULL };
    struct ovsdb_error *error;
    if (s->raft) {
        /* Every clustered commit is durable: Raft counts only entries on
         * disk.  A follower forwards the entry to the leader
         * (raft_command_execute()). */
        error = propose_txn(s, txn, &pt);
        if (error) {
            return error;
        }
        if (pt.cmd) {
            /* Monitors know it by its entry id on every member. */
            ovsdb_txn_set_id(txn, &pt.eid);
        }
    } else {
        /* A log that refuses writes fails the commit now, as it always
         * did. */
        error = ovsdb_log_write_records(s->log, NULL, 0, 0);
        if (error) {
            return error;
        }
        batch_append(s, txn, durable);
    }
    ovsdb_txn_commit_defer(txn);
    if (s->n_txns >= s->allocated_txns) {
        s->txns = x2nrealloc(s->txns, &s->allocated_txns, sizeof *s->txns);
    }
    pt.ticket = ++s->last_ticket;
    s->txns[s->n_txns++] = pt;
    return NULL;
}

struct ovsdb_error *
ovsdb_storage_commit_txn(struct ovsdb_storage *s, const struct ovsdb_txn *txn,
                         bool durable)
{
    if (s->raft) {
        /* Replicated changes (active-backup) onto a clustered database are
         * not supported: a backup's databases are standalone. */
        return ovsdb_error(OVSDB_E_NOT_SUPP, "%s: cannot replicate into a "
                           "clustered database", s->name);
    }
    batch_append(s, txn, durable);
    return ovsdb_storage_flush(s);
}

struct ovsdb *
ovsdb_storage_take_new_db(struct ovsdb_storage *s)
{
    struct ovsdb *db = s->new_db;
    s->new_db = NULL;
    return db;
}

/* ---------------------------------------------------------------------
 * Compaction. */

#define COMPACT_COMMENT "compacting database online"

static void
compaction_done(struct ovsdb_storage *s, struct ovsdb_error *error)
{
    s->n_compactions++;
    ovsdb_error_destroy(s->compact_error);
    s->compact_error = error;
    if (error) {
        char *msg = ovsdb_error_to_string(error);
        VLOG_WARN("%s: compaction failed: %s", s->name, msg);
        free(msg);
        s->last_compact = time_msec();      /* Retry after min_msec. */
    } else {
        mark_base(s);
        s->next_recover = 0;
        VLOG_INFO("%s: compacted to %lld bytes", s->name,
                  (long long) s->base_size);
        if (s->trim) {
            allocator_release_free_memory();
        }
    }
}

/* Clustered: replaces the log up to the last applied entry by a snapshot
 * of the database, in this process (as the reference does; the server
 * compacts in a child instead, see ovsdb_storage_compact()). */
static struct ovsdb_error *
raft_compact(struct ovsdb_storage *s)
{
    if (s->n_txns) {
        /* The database shows them, the applied index does not. */
        return ovsdb_error(OVSDB_E_NOT_ALLOWED,
                           "%s: cannot compact in this "
                           "process while transactions are undecided",
                           s->name);
    }
    struct ds data = DS_EMPTY_INITIALIZER;
    cluster_file_put_db_data(&data, s->db, COMPACT_COMMENT);
    struct ovsdb_error *error = raft_store_snapshot(s->raft, data.string,
                                                    data.length);
    ds_destroy(&data);
    return error;
}

struct ovsdb_error *
ovsdb_storage_compact_sync(struct ovsdb_storage *s)
{
    cancel_compaction(s);
    if (s->raft) {
        struct ovsdb_error *error = raft_compact(s);
        compaction_done(s, error ? ovsdb_error_clone(error) : NULL);
        return error;
    }
    struct ovsdb_log *new;
    struct ovsdb_error *error = ovsdb_log_replace_start(s->log, &new);
    if (!error) {
        error = ovsdb_file_write_snapshot(new, s->db, COMPACT_COMMENT);
        if (error) {
            ovsdb_log_replace_abort(new);
        } else {
            error = ovsdb_log_replace_commit(s->log, new);
        }
    }
    compaction_done(s, error ? ovsdb_error_clone(error) : NULL);
    return error;
}

/* Clustered: the reference's members cannot apply a schema change with an
 * ephemeral column (they log "... clustered databases do not support
 * ephemeral columns" and keep the old schema), so such a conversion is
 * refused, with their words, before it is proposed. */
static struct ovsdb_error *
check_no_ephemeral(const struct ovsdb_schema *schema)
{
    for (size_t i = 0; i < schema->n_tables; i++) {
        const struct ovsdb_table_schema *ts = schema->tables[i];
        for (size_t j = OVSDB_N_STD_COLUMNS; j < ts->n_columns; j++) {
            if (!ts->columns[j]->is_persistent) {
                return ovsdb_error(OVSDB_E_SYNTAX,
                                   "Table %s column %s is ephemeral but "
                                   "clustered databases do not support "
                                   "ephemeral columns.",
                                   ts->name, ts->columns[j]->name);
            }
        }
    }
    return NULL;
}

struct ovsdb_error *
ovsdb_storage_propose_db(struct ovsdb_storage *s, struct ovsdb *db,
                         const char *comment)
{
    struct ovsdb_error *error = check_no_ephemeral(ovsdb_get_schema(db));
    if (error) {
        ovsdb_destroy(db);
        return error;
    }
    struct pending_txn pt = { .convert_db = db };
    uuid_generate(&pt.eid);
    struct ds data = DS_EMPTY_INITIALIZER;
    cluster_file_put_db_data(&data, db, comment);
    pt.cmd = raft_command_execute(s->raft, data.string, data.length,
                                  &s->state_eid, &pt.eid);
    ds_destroy(&data);
    enum raft_command_status status = raft_command_get_status(pt.cmd);
    if (status != RAFT_CMD_INCOMPLETE && status != RAFT_CMD_SUCCESS) {
        /* No leader to take it, say: the caller may try again. */
        raft_command_unref(pt.cmd);
        ovsdb_destroy(db);
        return command_error(status);
    }
    s->state_eid = pt.eid;
    if (s->n_txns >= s->allocated_txns) {
        s->txns = x2nrealloc(s->txns, &s->allocated_txns, sizeof *s->txns);
    }
    pt.ticket = ++s->last_ticket;
    s->txns[s->n_txns++] = pt;
    return NULL;
}

struct ovsdb_error *
ovsdb_storage_replace_db(struct ovsdb_storage *s, struct ovsdb *db,
                         const char *comment)
{
    if (s->raft) {
        return ovsdb_error(OVSDB_E_NOT_SUPP,
                           "%s: a clustered database is converted through "
                           "ovsdb_storage_propose_db()",
                           s->name);
    }
    cancel_compaction(s);
    struct ovsdb_log *new;
    struct ovsdb_error *error = ovsdb_log_replace_start(s->log, &new);
    if (error) {
        return error;
    }
    error = ovsdb_file_write_snapshot(new, db, comment);
    if (error) {
        ovsdb_log_replace_abort(new);
        return error;
    }
    error = ovsdb_log_replace_commit(s->log, new);
    if (!error) {
        s->db = db;
        mark_base(s);
        s->next_recover = 0;
    }
    return error;
}

/* The compaction child: writes the snapshot to 'new' and exits.  Runs in
 * the forked process only. */
static void
compact_child(struct ovsdb_storage *s, int fd)
{
    /* The parent's terminal is not the child's to draw on. */
    progress_disable();
    /* The parent's signal handlers would wake the parent (through a pipe
     * the child shares) instead of ending the child: restore the default
     * actions, so a signal just kills the child, which the parent then
     * reports as a failed compaction. */
    static const int signals[] = { SIGTERM, SIGINT, SIGHUP, SIGALRM };
    for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
        signal(signals[i], SIG_DFL);
    }
#ifdef __linux__
    /* Its work is of no use once the parent is gone, and it shares the
     * parent's lock on the file: end with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != s->parent_pid) {
        _exit(1);
    }
#endif
    /* For tests: a compaction that lasts at least this long. */
    long long delay = env_llong("OVSDB_COMPACT_CHILD_DELAY_MSEC", 0);
    long long until = time_msec() + delay;

    struct ovsdb_error *error;
    if (s->raft) {
        /* The snapshot is of the applied state: take back, in this copy,
         * the transactions the cluster has not decided yet. */
        for (size_t i = s->n_txns; i-- > 0;) {
            if (s->txns[i].txn) {
                ovsdb_txn_deferred_undo(s->txns[i].txn);
            }
        }
        struct ds data = DS_EMPTY_INITIALIZER;
        cluster_file_put_db_data(&data, s->db, COMPACT_COMMENT);
        error = cluster_file_compact_write(s->raft_job, data.string,
                                           data.length);
    } else {
        error = ovsdb_file_write_snapshot(s->new_log, s->db, COMPACT_COMMENT);
        if (!error) {
            error = ovsdb_log_commit_block(s->new_log);
        }
    }
    while (!error && time_msec() < until) {
        usleep(10000);
    }
    int status = 0;
    if (error) {
        char *msg = ovsdb_error_to_string_free(error);
        ssize_t n OVS_UNUSED = write(fd, msg, strlen(msg));
        status = 1;
    }
    _exit(status);
}

struct ovsdb_error *
ovsdb_storage_compact(struct ovsdb_storage *s)
{
    if (s->child_pid > 0) {
        return NULL;
    }
    struct ovsdb_error *error = (s->raft
                                     ? raft_compact_start(s->raft,
                                                          &s->raft_job)
                                     : ovsdb_log_replace_start(s->log,
                                                               &s->new_log));
    if (error) {
        compaction_done(s, ovsdb_error_clone(error));
        return error;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) {
        error = ovsdb_error(OVSDB_E_IO, "%s: pipe failed (%s)", s->name,
                            ovs_strerror(errno));
        goto fail;
    }
    long long fork_start = time_msec();
    if (s->raft) {
        /* Big entries applied or proposed since the last compaction left
         * their memory in the allocator's free lists; consolidated by the
         * first malloc() after the fork, it would turn every page touched
         * into a copy-on-write fault in the parent (see open__()). */
        allocator_release_free_memory();
    }
    s->parent_pid = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        error = ovsdb_error(OVSDB_E_IO, "%s: fork failed (%s)", s->name,
                            ovs_strerror(errno));
        close(fds[0]);
        close(fds[1]);
        goto fail;
    }
    if (!pid) {
        close(fds[0]);
        compact_child(s, fds[1]);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    s->child_pid = pid;
    s->child_fd = fds[0];
    ds_clear(&s->pending);
    s->n_pending = 0;
    ds_clear(&s->child_msg);
    VLOG_INFO("%s: compacting in child process %ld (in %lld ms)", s->name,
              (long) pid, time_msec() - fork_start);
    return NULL;

fail:
    ovsdb_log_replace_abort(s->new_log);
    s->new_log = NULL;
    cluster_file_compact_abort(s->raft_job);
    s->raft_job = NULL;
    compaction_done(s, ovsdb_error_clone(error));
    return error;
}

/* Finishes the compaction once the child has exited. */
static void
finish_compaction(struct ovsdb_storage *s, int status)
{
    struct ovsdb_error *error = NULL;
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        error = ovsdb_error(OVSDB_E_IO, "%s: compaction child failed: %s",
                            s->name, (s->child_msg.length
                                      ? ds_cstr(&s->child_msg)
                                      : "killed"));
    }
    if (s->raft_job) {
        /* The entries committed meanwhile come from the Raft log. */
        long long start = time_msec();
        if (error) {
            cluster_file_compact_abort(s->raft_job);
        } else {
            error = raft_compact_finish(s->raft, s->raft_job);
        }
        s->raft_job = NULL;
        VLOG_INFO("%s: installing the compacted log took %lld ms", s->name,
                  time_msec() - start);
        compaction_done(s, error);
        return;
    }
    if (!error) {
        error = ovsdb_log_sync_size(s->new_log);
    }
    if (!error) {
        error = ovsdb_log_write_records(s->new_log, s->pending.string,
                                        s->pending.length, s->n_pending);
    }
    if (!error) {
        error = ovsdb_log_replace_commit(s->log, s->new_log);
    } else {
        ovsdb_log_replace_abort(s->new_log);
    }
    s->new_log = NULL;
    ds_clear(&s->pending);
    s->n_pending = 0;
    compaction_done(s, error);
}

static void
poll_child(struct ovsdb_storage *s)
{
    for (;;) {
        char buf[512];
        ssize_t n = read(s->child_fd, buf, sizeof buf);
        if (n > 0) {
            ds_put_buffer(&s->child_msg, buf, n);
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            return;
        }
        break;                  /* End of file: the child is exiting. */
    }
    int status = 0;
    pid_t pid;
    do {
        pid = waitpid(s->child_pid, &status, 0);
    } while (pid < 0 && errno == EINTR);
    poll_fd_forget(s->child_fd);
    close(s->child_fd);
    s->child_fd = -1;
    s->child_pid = 0;
    finish_compaction(s, pid < 0 ? -1 : status);
}

static bool
should_compact(const struct ovsdb_storage *s, long long now)
{
    if (now < s->last_compact + s->min_msec) {
        return false;
    }
    off_t size = file_size(s);
    if (size >= s->min_bytes && size >= COMPACT_FACTOR * s->base_size) {
        return true;
    }
    return (now >= s->last_compact + COMPACT_MAX_MSEC
            && (n_records(s) - s->base_records
                >= COMPACT_MAX_RECORDS));
}

void
ovsdb_storage_run(struct ovsdb_storage *s)
{
    if (s->child_pid > 0) {
        poll_child(s);
    }
    if (s->raft) {
        /* Also while a child compacts: the member must go on. */
        raft_run(s->raft);
        start_slice(s);
        raft_decide(s);
    }
    if (s->child_pid > 0) {
        return;
    }
    long long now = time_msec();
    if (log_is_broken(s)) {
        if (now >= s->next_recover) {
            struct ovsdb_error *error = ovsdb_storage_compact_sync(s);
            if (error) {
                s->next_recover = now + RECOVER_MSEC;
                ovsdb_error_destroy(error);
            } else {
                VLOG_INFO("%s: rewrote database file after write error",
                          s->name);
            }
        }
        return;
    }
    if (s->rewrite_soon) {
        s->rewrite_soon = false;
        VLOG_INFO("%s: rewriting database file after a failed fsync",
                  s->name);
        ovsdb_error_destroy(ovsdb_storage_compact(s));
    } else if (should_compact(s, now)) {
        ovsdb_error_destroy(ovsdb_storage_compact(s));
    }
}

void
ovsdb_storage_wait(struct ovsdb_storage *s)
{
    if (s->raft) {
        raft_wait(s->raft);
        if (s->apply_more) {
            poll_immediate_wake();
        }
    }
    if (s->child_pid > 0) {
        poll_fd_wait(s->child_fd, POLLIN);
    } else if (log_is_broken(s)) {
        poll_timer_wait_until(s->next_recover);
    } else if (s->rewrite_soon || s->batch.length
               || s->n_txns > s->n_submitted) {
        /* Something to write.  (Clustered transactions already written
         * wait for Raft, whose raft_wait() wakes the loop.) */
        poll_immediate_wake();
    } else {
        /* The size only grows with commits, which wake the loop anyway, so
         * only the time limits need timers. */
        long long now = time_msec();
        long long when = s->last_compact + s->min_msec;
        poll_timer_wait_until(when > now ? when
                              : s->last_compact + COMPACT_MAX_MSEC);
    }
}
