/* ovsdb/server/metrics.c: the server's Prometheus metrics.  See
 * metrics.h; each metric is documented in ovsdb-server(1). */
#include <config.h>

#include "ovsdb/server/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/http-server.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/prom.h"
#include "lib/timeval.h"
#include "lib/util.h"
#include "lib/uuid.h"
#include "lib/vlog.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/monitor/monitor.h"
#include "ovsdb/raft/raft.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/server/server.h"
#include "ovsdb/server/session.h"
#include "ovsdb/storage/storage.h"

VLOG_DEFINE_THIS_MODULE(metrics);

struct ovsdb_metrics {
    struct ovsdb_server *srv;
    struct http_server *http; /* NULL when not served. */
    char *remote;             /* As given; NULL when not served. */
    double start_time;        /* Wall clock, seconds since 1970. */
    struct prom_histogram pass_seconds;
};

static void
observe_pass(long long msec, void *m_)
{
    struct ovsdb_metrics *m = m_;
    prom_histogram_observe(&m->pass_seconds, msec / 1000.0);
}

struct ovsdb_metrics *
ovsdb_metrics_create(struct ovsdb_server *srv)
{
    /* Passes are measured in milliseconds: 1 ms is the finest bound. */
    static const double pass_bounds[] = {
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    };
    struct ovsdb_metrics *m = xzalloc(sizeof *m);
    m->srv = srv;
    m->start_time = time_wall_msec() / 1000.0;
    prom_histogram_init(&m->pass_seconds, pass_bounds,
                        ARRAY_SIZE(pass_bounds));
    poll_loop_set_pass_observer(observe_pass, m);
    return m;
}

void
ovsdb_metrics_destroy(struct ovsdb_metrics *m)
{
    if (!m) {
        return;
    }
    poll_loop_set_pass_observer(NULL, NULL);
    http_server_close(m->http);
    free(m->remote);
    free(m);
}

static bool
get_cb(const char *path, struct ds *body, const char **content_type, void *m_)
{
    const struct ovsdb_metrics *m = m_;
    if (strcmp(path, "/metrics")) {
        return false;
    }
    ovsdb_metrics_put(m, body);
    *content_type = PROM_CONTENT_TYPE;
    return true;
}

int
ovsdb_metrics_set_remote(struct ovsdb_metrics *m, const char *remote)
{
    struct http_server *http = NULL;
    if (remote && m->remote && !strcmp(remote, m->remote)) {
        return 0; /* Reopening would find the port in use. */
    }
    if (remote && remote[0]) {
        /* Plain TCP only: a scrape carries nothing secret, and Prometheus
         * scrapes over HTTP or HTTPS, which "pssl:" (no HTTP over TLS
         * here) would not be. */
        if (strncmp(remote, "ptcp:", 5)) {
            return EINVAL;
        }
        int error = http_server_open(remote, get_cb, m, &http);
        if (error) {
            VLOG_ERR("%s: metrics listener failed: %s", remote,
                     ovs_strerror(error));
            return error;
        }
    }
    http_server_close(m->http);
    free(m->remote);
    m->http = http;
    m->remote = http ? xstrdup(remote) : NULL;
    return 0;
}

void
ovsdb_metrics_put_remote(const struct ovsdb_metrics *m, struct ds *out)
{
    if (m->http) {
        /* With the port bound, so that "ptcp:0" tells where it went. */
        const char *ip = strchr(m->remote + 5, ':');
        ds_put_format(out, "ptcp:%u%s",
                      (unsigned) http_server_get_bound_port(m->http),
                      ip ? ip : "");
    }
    ds_put_char(out, '\n');
}

void
ovsdb_metrics_run(struct ovsdb_metrics *m)
{
    if (m->http) {
        http_server_run(m->http);
    }
}

void
ovsdb_metrics_wait(struct ovsdb_metrics *m)
{
    if (m->http) {
        http_server_wait(m->http);
    }
}

/* Process-wide metrics. */

static void
put_gauge(struct ds *out, const char *name, const char *help,
          unsigned long long value)
{
    prom_put_header(out, name, "gauge", help);
    prom_put_uint(out, name, NULL, value);
}

static void
put_counter(struct ds *out, const char *name, const char *help,
            unsigned long long value)
{
    prom_put_header(out, name, "counter", help);
    prom_put_uint(out, name, NULL, value);
}

/* Sessions and bytes, by transport. */

static size_t
transport_of(const struct ovsdb_session *s)
{
    return jsonrpc_transport_of(ovsdb_session_get_name(s));
}

static void
put_by_transport(struct ds *out, const char *name, const char *type,
                 const char *help, const unsigned long long values[])
{
    prom_put_header(out, name, type, help);
    for (size_t i = 0; i < JSONRPC_N_TRANSPORTS; i++) {
        struct ds labels = DS_EMPTY_INITIALIZER;
        prom_put_label(&labels, "transport", jsonrpc_transport_to_string(i));
        prom_put_uint(out, name, ds_cstr(&labels), values[i]);
        ds_destroy(&labels);
    }
}

static void
put_bytes_by_transport(struct ds *out)
{
    unsigned long long received[JSONRPC_N_TRANSPORTS];
    unsigned long long sent[JSONRPC_N_TRANSPORTS];
    for (size_t i = 0; i < JSONRPC_N_TRANSPORTS; i++) {
        jsonrpc_get_totals(i, &received[i], &sent[i]);
    }
    put_by_transport(out, "ovsdb_received_bytes_total", "counter",
                     "Bytes received from JSON-RPC peers.", received);
    put_by_transport(out, "ovsdb_sent_bytes_total", "counter",
                     "Bytes sent to JSON-RPC peers.", sent);
}

static void
put_process(const struct ovsdb_metrics *m, struct ds *out)
{
    struct ds labels = DS_EMPTY_INITIALIZER;
    prom_put_label(&labels, "version", PACKAGE_VERSION);
    prom_put_label(&labels, "allocator", allocator_name());
    prom_put_header(out, "ovsdb_build_info", "gauge",
                    "Always 1; the labels say which build runs.");
    prom_put_uint(out, "ovsdb_build_info", ds_cstr(&labels), 1);
    ds_destroy(&labels);

    prom_put_header(out, "ovsdb_start_time_seconds", "gauge",
                    "When the server started, in seconds since 1970.");
    prom_put_double(out, "ovsdb_start_time_seconds", NULL, m->start_time);

    prom_put_header(out, "ovsdb_loop_pass_duration_seconds", "histogram",
                    "Passes of the main loop: the time in which no other "
                    "client is served.");
    prom_put_histogram(out, "ovsdb_loop_pass_duration_seconds", NULL,
                       &m->pass_seconds);

    put_bytes_by_transport(out);

    struct allocator_stats st;
    allocator_get_stats(&st);
    put_gauge(out, "ovsdb_process_resident_memory_bytes",
              "Resident set size of the process.", st.rss);
    put_gauge(out, "ovsdb_allocator_allocated_bytes",
              "Bytes the allocator handed out to the program.", st.allocated);
    put_gauge(out, "ovsdb_allocator_active_bytes",
              "Bytes in allocator pages that hold allocated objects.",
              st.active);
    put_gauge(out, "ovsdb_allocator_resident_bytes",
              "Bytes the allocator holds in physical memory.", st.resident);
    put_gauge(out, "ovsdb_allocator_mapped_bytes",
              "Bytes the allocator has mapped.", st.mapped);
    prom_put_header(out, "ovsdb_allocator_fragmentation_ratio", "gauge",
                    "Resident set size divided by allocated bytes.");
    prom_put_double(out, "ovsdb_allocator_fragmentation_ratio", NULL,
                    st.fragmentation);
}

static void
put_sessions(const struct ovsdb_metrics *m, struct ds *out)
{
    unsigned long long sessions[JSONRPC_N_TRANSPORTS] = { 0 };
    unsigned long long monitors[JSONRPC_N_TRANSPORTS] = { 0 };
    unsigned long long backlog = 0, paused = 0, pending = 0, waiting = 0;
    for (size_t i = 0; i < ovsdb_server_n_sessions(m->srv); i++) {
        const struct ovsdb_session *s = ovsdb_server_session_at(m->srv, i);
        struct ovsdb_session_stats st;
        ovsdb_session_get_stats(s, &st);
        size_t t = transport_of(s);
        sessions[t]++;
        monitors[t] += st.n_monitors;
        backlog += st.backlog;
        paused += st.paused;
        pending += st.n_pending_rows;
        waiting += st.n_waiting_txns;
    }
    put_by_transport(out, "ovsdb_sessions", "gauge",
                     "Client sessions open now.", sessions);
    put_by_transport(out, "ovsdb_monitors", "gauge",
                     "Monitors the clients have set up now.", monitors);
    put_gauge(out, "ovsdb_output_backlog_bytes",
              "Bytes queued for clients and not sent yet.", backlog);
    put_gauge(out, "ovsdb_sessions_paused",
              "Sessions not read: their backlog is over the limit.", paused);
    put_gauge(out, "ovsdb_pending_update_rows",
              "Rows with monitor changes held back for slow clients.",
              pending);
    put_gauge(out, "ovsdb_waiting_transactions",
              "Transactions waiting (for a condition, a leader, a reply "
              "from upstream).",
              waiting);
    int n_io_threads;
    size_t n_handshakes;
    ovsdb_server_get_io_threads(m->srv, &n_io_threads, &n_handshakes);
    put_gauge(out, "ovsdb_io_threads",
              "Threads that run TLS handshakes (--n-io-threads).",
              n_io_threads);
    put_gauge(out, "ovsdb_tls_handshakes_in_flight",
              "TLS handshakes under way on the I/O threads.", n_handshakes);

    struct ovsdb_session_flow_stats flow;
    ovsdb_session_get_flow_stats(&flow);
    put_gauge(out, "ovsdb_backlog_limit_bytes",
              "Backlog over which monitor updates are coalesced.",
              flow.backlog_limit);
    put_counter(out, "ovsdb_backlog_pauses_total",
                "Times a session stopped being read for its backlog.",
                flow.n_pauses);
    put_counter(out, "ovsdb_updates_coalesced_total",
                "Monitor updates kept pending, not queued, for a slow "
                "client.",
                flow.n_coalesced);
    put_counter(out, "ovsdb_backlog_drops_total",
                "Sessions dropped at the backlog hard cap.", flow.n_drops);
}

/* Per database.  Each family is one loop over the databases, as the
 * format wants a family's samples together; the tables below say what
 * each family reads. */

enum db_kind {
    DB_ANY,       /* Every database, "_Server" and relays included. */
    DB_STORED,    /* Databases with a file. */
    DB_CLUSTERED, /* Clustered databases. */
};

static bool
db_is_kind(const struct ovsdb_served_db *sdb, enum db_kind kind)
{
    switch (kind) {
    case DB_ANY:
        return true;
    case DB_STORED:
        return ovsdb_served_db_get_storage(sdb) != NULL;
    case DB_CLUSTERED:
        return ovsdb_served_db_get_raft(sdb) != NULL;
    }
    return false;
}

enum db_value {
    DBV_ROWS,
    DBV_ATOMS,
    DBV_MONITORS,
    DBV_HISTORY,
    DBV_BATCH_FAILURES,
    DBV_FILE_SIZE,
    DBV_RECORDS,
    DBV_RAFT_TERM,
    DBV_RAFT_COMMIT_INDEX,
    DBV_RAFT_APPLIED_INDEX,
    DBV_RAFT_LOG_ENTRIES,
    DBV_RAFT_LEADER_CHANGES,
    DBV_RAFT_CONNECTED,
};

static unsigned long long
count_rows(const struct ovsdb *db)
{
    unsigned long long n = 0;
    for (size_t i = 0; i < ovsdb_n_tables(db); i++) {
        n += ovsdb_table_n_rows(ovsdb_get_table_by_index(db, i));
    }
    return n;
}

/* Returns value 'v' of 'sdb', which must be of the kind the value's family
 * asks for (the storage ones need storage, the Raft ones Raft). */
static unsigned long long
db_value(const struct ovsdb_served_db *sdb, enum db_value v)
{
    const struct ovsdb_monitor_hub *hub = ovsdb_served_db_get_hub(sdb);
    const struct ovsdb_storage *storage = ovsdb_served_db_get_storage(sdb);
    const struct raft *raft = ovsdb_served_db_get_raft(sdb);
    switch (v) {
    case DBV_ROWS:
        return count_rows(ovsdb_served_db_get_ovsdb(sdb));
    case DBV_ATOMS:
        return ovsdb_monitor_hub_n_db_atoms(hub);
    case DBV_MONITORS:
        return ovsdb_monitor_hub_n_monitors(hub);
    case DBV_HISTORY:
        return ovsdb_monitor_hub_n_history(hub);
    case DBV_BATCH_FAILURES:
        return ovsdb_served_db_get_stats(sdb)->n_batch_failures;
    case DBV_FILE_SIZE:
        return ovsdb_storage_get_file_size(storage);
    case DBV_RECORDS:
        return ovsdb_storage_get_n_records(storage);
    case DBV_RAFT_TERM:
        return raft_get_term(raft);
    case DBV_RAFT_COMMIT_INDEX:
        return raft_get_commit_index(raft);
    case DBV_RAFT_APPLIED_INDEX:
        return raft_get_applied_index(raft);
    case DBV_RAFT_LOG_ENTRIES:
        return raft_get_n_log_entries(raft);
    case DBV_RAFT_LEADER_CHANGES:
        return raft_get_n_leader_changes(raft);
    case DBV_RAFT_CONNECTED:
        return raft_is_connected(raft);
    }
    return 0;
}

struct db_family {
    const char *name;
    const char *type;
    enum db_kind kind;
    enum db_value value;
    const char *help;
};

static const struct db_family db_families[] = {
    { "ovsdb_database_rows", "gauge", DB_ANY, DBV_ROWS,
      "Rows in the database." },
    { "ovsdb_database_atoms", "gauge", DB_ANY, DBV_ATOMS,
      "Atoms (keys and values) in the database's committed rows." },
    { "ovsdb_database_monitors", "gauge", DB_ANY, DBV_MONITORS,
      "Distinct monitors (shared by clients that ask the same) on the "
      "database." },
    { "ovsdb_database_txn_history", "gauge", DB_ANY, DBV_HISTORY,
      "Transactions kept for monitor_cond_since." },
    { "ovsdb_database_batch_failures_total", "counter", DB_STORED,
      DBV_BATCH_FAILURES, "Commit batches the storage failed to write." },
    { "ovsdb_database_file_size_bytes", "gauge", DB_STORED, DBV_FILE_SIZE,
      "Size of the database file." },
    { "ovsdb_database_file_records", "gauge", DB_STORED, DBV_RECORDS,
      "Records in the database file (clustered: log entries after the "
      "snapshot)." },
    { "ovsdb_raft_term", "gauge", DB_CLUSTERED, DBV_RAFT_TERM,
      "Current Raft term." },
    { "ovsdb_raft_commit_index", "gauge", DB_CLUSTERED, DBV_RAFT_COMMIT_INDEX,
      "Index of the newest Raft log entry known committed." },
    { "ovsdb_raft_applied_index", "gauge", DB_CLUSTERED,
      DBV_RAFT_APPLIED_INDEX,
      "Index of the newest Raft log entry applied to the database." },
    { "ovsdb_raft_log_entries", "gauge", DB_CLUSTERED, DBV_RAFT_LOG_ENTRIES,
      "Raft log entries after the snapshot." },
    { "ovsdb_raft_leader_changes_total", "counter", DB_CLUSTERED,
      DBV_RAFT_LEADER_CHANGES, "Times this member learned of a new leader." },
    { "ovsdb_raft_connected", "gauge", DB_CLUSTERED, DBV_RAFT_CONNECTED,
      "1 if this member is connected to the cluster (has a leader, or is "
      "it), else 0." },
};

/* Returns the label set 'db="NAME"' of 'sdb'; caller must free with
 * ds_destroy(). */
static struct ds
db_labels(const struct ovsdb_served_db *sdb)
{
    struct ds labels = DS_EMPTY_INITIALIZER;
    prom_put_label(&labels, "db", ovsdb_served_db_get_name(sdb));
    return labels;
}

static void
put_db_family(const struct ovsdb_databases *dbs, const struct db_family *f,
              struct ds *out)
{
    bool header = false;
    for (size_t i = 0; i < ovsdb_databases_count(dbs); i++) {
        const struct ovsdb_served_db *sdb = ovsdb_databases_at(dbs, i);
        if (!db_is_kind(sdb, f->kind)) {
            continue;
        }
        if (!header) {
            prom_put_header(out, f->name, f->type, f->help);
            header = true;
        }
        struct ds labels = db_labels(sdb);
        prom_put_uint(out, f->name, ds_cstr(&labels), db_value(sdb, f->value));
        ds_destroy(&labels);
    }
}

static void
put_transactions(const struct ovsdb_databases *dbs, struct ds *out)
{
    const char *name = "ovsdb_transactions_total";
    prom_put_header(out, name, "counter",
                    "Transactions run to the end, by result: committed (in "
                    "memory; see ovsdb_database_batch_failures_total), "
                    "aborted (refused at commit), no_commit (nothing to "
                    "commit: read-only, or an operation failed).");
    for (size_t i = 0; i < ovsdb_databases_count(dbs); i++) {
        const struct ovsdb_served_db *sdb = ovsdb_databases_at(dbs, i);
        const struct ovsdb_served_db_stats *st = ovsdb_served_db_get_stats(
            sdb);
        const struct {
            const char *result;
            unsigned long long n;
        } results[] = {
            { "committed", st->n_txn_committed },
            { "aborted", st->n_txn_aborted },
            { "no_commit", st->n_txn_no_commit },
        };
        for (size_t j = 0; j < ARRAY_SIZE(results); j++) {
            struct ds labels = db_labels(sdb);
            prom_put_label(&labels, "result", results[j].result);
            prom_put_uint(out, name, ds_cstr(&labels), results[j].n);
            ds_destroy(&labels);
        }
    }

    name = "ovsdb_commit_batch_duration_seconds";
    prom_put_header(out, name, "histogram",
                    "Time to write one batch of commits (group commit: "
                    "write and fsync; clustered: append and propose).");
    for (size_t i = 0; i < ovsdb_databases_count(dbs); i++) {
        const struct ovsdb_served_db *sdb = ovsdb_databases_at(dbs, i);
        if (!db_is_kind(sdb, DB_STORED)) {
            continue; /* Commits at once, never in a batch. */
        }
        struct ds labels = db_labels(sdb);
        prom_put_histogram(out, name, ds_cstr(&labels),
                           &ovsdb_served_db_get_stats(sdb)->batch_seconds);
        ds_destroy(&labels);
    }

    name = "ovsdb_raft_commit_duration_seconds";
    bool header = false;
    for (size_t i = 0; i < ovsdb_databases_count(dbs); i++) {
        const struct ovsdb_served_db *sdb = ovsdb_databases_at(dbs, i);
        const struct ovsdb_storage *storage = ovsdb_served_db_get_storage(sdb);
        const struct prom_histogram
            *h = storage ? ovsdb_storage_get_commit_latency(storage) : NULL;
        if (!h) {
            continue;
        }
        if (!header) {
            prom_put_header(out, name, "histogram",
                            "Time from proposing a transaction's Raft entry "
                            "to knowing it committed.");
            header = true;
        }
        struct ds labels = db_labels(sdb);
        prom_put_histogram(out, name, ds_cstr(&labels), h);
        ds_destroy(&labels);
    }
}

static void
put_raft_roles(const struct ovsdb_databases *dbs, struct ds *out)
{
    static const char *const roles[] = { "leader", "candidate", "follower" };
    const char *name = "ovsdb_raft_role";
    bool header = false;
    for (size_t i = 0; i < ovsdb_databases_count(dbs); i++) {
        const struct ovsdb_served_db *sdb = ovsdb_databases_at(dbs, i);
        const struct raft *raft = ovsdb_served_db_get_raft(sdb);
        if (!raft) {
            continue;
        }
        if (!header) {
            prom_put_header(out, name, "gauge",
                            "1 for this member's Raft role now, 0 for the "
                            "others.");
            header = true;
        }
        const char *role = raft_get_role(raft);
        for (size_t j = 0; j < ARRAY_SIZE(roles); j++) {
            struct ds labels = db_labels(sdb);
            prom_put_label(&labels, "role", roles[j]);
            prom_put_uint(out, name, ds_cstr(&labels),
                          !strcmp(role, roles[j]));
            ds_destroy(&labels);
        }
    }
}

/* Appends family 'name' of 'type', one sample per peer of each clustered
 * database, labelled with its server id and address: 'match' chooses the
 * match index, else whether it is connected. */
static void
put_raft_peers(const struct ovsdb_databases *dbs, const char *name,
               const char *help, bool match, struct ds *out)
{
    bool header = false;
    for (size_t i = 0; i < ovsdb_databases_count(dbs); i++) {
        const struct ovsdb_served_db *sdb = ovsdb_databases_at(dbs, i);
        const struct raft *raft = ovsdb_served_db_get_raft(sdb);
        struct raft_peer peer;
        for (size_t j = 0; raft && raft_get_peer(raft, j, &peer); j++) {
            if (!header) {
                prom_put_header(out, name, "gauge", help);
                header = true;
            }
            char sid[UUID_LEN + 1];
            uuid_to_string(&peer.sid, sid);
            struct ds labels = db_labels(sdb);
            prom_put_label(&labels, "peer", sid);
            prom_put_label(&labels, "address", peer.address);
            prom_put_uint(out, name, ds_cstr(&labels),
                          match ? peer.match_index : peer.connected);
            ds_destroy(&labels);
        }
    }
}

void
ovsdb_metrics_put(const struct ovsdb_metrics *m, struct ds *out)
{
    put_process(m, out);
    put_sessions(m, out);
    const struct ovsdb_databases *dbs = ovsdb_server_get_databases(m->srv);
    put_transactions(dbs, out);
    for (size_t i = 0; i < ARRAY_SIZE(db_families); i++) {
        put_db_family(dbs, &db_families[i], out);
    }
    put_raft_roles(dbs, out);
    put_raft_peers(dbs, "ovsdb_raft_peer_connected",
                   "1 if this member has a connection up to the peer, "
                   "else 0.",
                   false, out);
    put_raft_peers(dbs, "ovsdb_raft_peer_match_index",
                   "On the leader, the highest log index known to be on "
                   "the peer; 0 on other members.",
                   true, out);
}
