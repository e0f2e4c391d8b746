/* ovsdb/raft/raft.h: this server's member of a Raft cluster (OVS's Raft, as
 * ovsdb(7) describes it), on its clustered file (ovsdb/format/cluster-file.h).
 *
 *     error = raft_open("nb.db", &raft);     (elects itself if alone)
 *     error = raft_read_db(raft, &db);       (the snapshot)
 *     while ((data = raft_next_entry(...))) { apply } (committed entries)
 *     ...
 *     cmd = raft_command_execute(raft, data, size, &prereq, &eid);
 *     ...more proposals...
 *     error = raft_sync(raft);               (the leader's entries durable)
 *     loop: raft_run(raft); raft_wait(raft); poll_block();
 *           while ((data = raft_next_entry(raft, ...))) apply it;
 *           raft_command_get_status(cmd): committed, failed, or not yet
 *
 * The database layer above (ovsdb/storage) proposes each transaction as an
 * entry whose DATA is [null, TRANSACTION-RECORD] and learns the outcome by
 * polling its command; every committed entry (its own included) comes
 * back, in log order, through raft_next_entry().
 *
 * The member takes part in its cluster as Open vSwitch 3.1's does, on the
 * same protocol (tests/data/raft/README.md): elections, log replication
 * and commit by majority, forwarding of a follower's proposals to the
 * leader, snapshots for servers that are behind, joining (a file made by
 * join-cluster), leaving, removing another server, leadership transfer.
 * A cluster of one elects itself when it opens its file and commits an
 * entry as soon as it is on disk.  All network and timer work happens in
 * raft_run(); nothing blocks but the fsyncs Raft requires. */
#ifndef OVSDB_RAFT_H
#define OVSDB_RAFT_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/util.h"
#include "lib/uuid.h"
#include "ovsdb/raft/raft-rpc.h"

struct ds;
struct ovsdb;
struct ovsdb_error;

struct raft;

/* Opens the clustered file 'path' read-write (locked) and takes part in its
 * cluster.  On success stores the member in '*raftp' (caller must free
 * with raft_close()).  A bad tail record is logged and dropped (the next
 * write truncates it).  A file made by join-cluster starts joining its
 * cluster (raft_is_joining()). */
struct ovsdb_error *raft_open(const char *path, struct raft **raftp)
    WARN_UNUSED_RESULT;
void raft_close(struct raft *);         /* NULL is fine. */

/* Builds the database of the snapshot.  The committed entries after it
 * come next from raft_next_entry().  On success stores it in '*dbp'
 * (caller must free with ovsdb_destroy()).  While joining, that is a
 * database without tables, which the leader's snapshot replaces
 * (raft_next_entry()). */
struct ovsdb_error *raft_read_db(struct raft *, struct ovsdb **dbp)
    WARN_UNUSED_RESULT;

void raft_run(struct raft *);
void raft_wait(struct raft *);

/* Identity and state. */
const char *raft_get_name(const struct raft *);          /* Database. */
const char *raft_get_file_name(const struct raft *);
const char *raft_get_local_address(const struct raft *);
const struct uuid *raft_get_cid(const struct raft *);
const struct uuid *raft_get_sid(const struct raft *);
bool raft_is_leader(const struct raft *);
/* True if this server is the only member of its configuration. */
bool raft_is_alone(const struct raft *);
/* True if this server is part of a cluster that has a leader it knows. */
bool raft_is_connected(const struct raft *);
/* True if a command executed now would reach a leader: this server is the
 * leader, or a follower connected to the leader it knows. */
bool raft_can_execute(const struct raft *);
bool raft_is_joining(const struct raft *);
bool raft_is_leaving(const struct raft *);
/* True once this server has left its cluster (cluster/leave, or removed by
 * cluster/kick): it takes no part any more and serves only what it has. */
bool raft_left(const struct raft *);
/* True after a write that Raft needs failed: only a restart recovers. */
bool raft_failed(const struct raft *);
uint64_t raft_get_term(const struct raft *);
/* "leader", "candidate" or "follower" (static). */
const char *raft_get_role(const struct raft *);
/* How many times this member learned of a new leader. */
unsigned long long raft_get_n_leader_changes(const struct raft *);
uint64_t raft_get_election_timer(const struct raft *);
uint64_t raft_get_commit_index(const struct raft *);
/* The index of the last entry the database has applied (the "index" of
 * _Server.Database). */
uint64_t raft_get_applied_index(const struct raft *);
/* The eid of the last entry with data applied (or of the snapshot): what a
 * monitor_cond_since client knows as the last transaction id. */
const struct uuid *raft_get_applied_eid(const struct raft *);

/* Proposals.
 *
 * raft_command_execute() proposes an entry with DATA 'data' ('size' bytes
 * of JSON text, borrowed: [SCHEMA or null, TRANSACTION or null]) and entry
 * id 'eid' (the caller's choice, e.g. uuid_generate()).  With 'prereq'
 * nonnull, the entry is added only if the leader's last entry with data
 * has that eid (else RAFT_CMD_BAD_PREREQ): the proposer built the
 * transaction on exactly that state.  On the leader the entry is appended
 * to the local log at once (durable at the next raft_sync()); on a
 * follower it goes to the leader (execute_command_request).  Poll the
 * returned command (caller must free with raft_command_unref()): its
 * status is RAFT_CMD_INCOMPLETE until the entry is committed
 * (RAFT_CMD_SUCCESS) or the command failed (any other status).
 *
 * A failure is definite (the entry never commits) except
 * RAFT_CMD_UNKNOWN: an entry proposed, whose fate this member could not
 * learn in time.  A leader that steps down keeps its commands: each
 * completes when the log it then follows commits the entry (found by
 * eid) or overwrites it (RAFT_CMD_LOST_LEADERSHIP); a forwarded command,
 * once its entry reaches the local log, the same way.  It ends as
 * RAFT_CMD_UNKNOWN after 10 election timers without a leader (an entry in
 * the local log) or without news from the leader (a forwarded one), when
 * an installed snapshot replaces the log, when the member leaves, fails
 * or closes.  The entry of an unknown command may still commit later and
 * come back from raft_next_entry() like any other member's. */
struct raft_command;
struct raft_command *raft_command_execute(struct raft *, const char *data,
                                          size_t size,
                                          const struct uuid *prereq,
                                          const struct uuid *eid);
enum raft_command_status raft_command_get_status(const struct raft_command *);
/* The entry's log index, or 0 while the leader has not assigned one. */
uint64_t raft_command_get_index(const struct raft_command *);
void raft_command_unref(struct raft_command *);     /* NULL is fine. */

/* Makes every entry appended to the local log so far durable (one fsync)
 * and, in a cluster of one, commits them (and records the commit index).
 * On error the entries appended since the last raft_sync() are cut off
 * the log again, their commands fail with RAFT_CMD_IO_ERROR, and the error
 * is returned. */
struct ovsdb_error *raft_sync(struct raft *) WARN_UNUSED_RESULT;

/* Committed entries, to apply.  Returns the DATA text of the next
 * committed entry with data that has not been returned yet (borrowed,
 * valid until the next call of a raft function), with its eid in '*eid';
 * NULL if there is none.  If '*is_snapshot', the DATA is a whole database
 * (a snapshot installed from the leader): replace the database with it.
 * Entries this server proposed come back too (compare eids).  The entry
 * counts as applied once returned (raft_get_applied_index()). */
const char *raft_next_entry(struct raft *, size_t *size, struct uuid *eid,
                            bool *is_snapshot);

/* Replaces the log up to the applied index by a snapshot whose DATA is
 * 'data' ('size' bytes of JSON text, borrowed), atomically, as the
 * reference compacts. */
struct ovsdb_error *raft_store_snapshot(struct raft *, const char *data,
                                        size_t size) WARN_UNUSED_RESULT;

/* The same, in the background (cluster_file_compact_start()): the snapshot
 * after the applied index, whose DATA another process may write with
 * cluster_file_compact_write() while this member goes on;
 * raft_compact_finish(), once that is done, makes everything durable and
 * installs the new file with the entries added meanwhile (it always frees
 * 'cc'). */
struct cluster_compaction;
struct ovsdb_error *raft_compact_start(struct raft *,
                                       struct cluster_compaction **)
    WARN_UNUSED_RESULT;
struct ovsdb_error *raft_compact_finish(struct raft *,
                                        struct cluster_compaction *)
    WARN_UNUSED_RESULT;

/* Number of entries in the log (after the snapshot), and the file size. */
uint64_t raft_get_n_log_entries(const struct raft *);
long long raft_get_file_size(const struct raft *);

/* Control commands, with the reference's words.  Each stores in '*replyp'
 * a message (caller must free with free()): the reply if it returns true,
 * the error otherwise.
 *
 * raft_leave() starts leaving the cluster (cluster/leave: leadership
 * goes to another server first); raft_kick() removes the server that 'id'
 * names (its address or a prefix of its id; cluster/kick), through the
 * leader; raft_change_election_timer() proposes a new election timer
 * 'ms' (text) on the leader. */
bool raft_leave(struct raft *, char **replyp);
bool raft_kick(struct raft *, const char *id, char **replyp);
bool raft_change_election_timer(struct raft *, const char *ms, char **replyp);

/* cluster/failure-test SCENARIO: engages one of the faults that Open
 * vSwitch's cluster tests inject at fixed points of the protocol (a crash,
 * as ovs_fatal(), just before or after a given message is sent or
 * received; a slower election timer; no vote requests; no Raft traffic at
 * all; a leadership transfer), or "clear" to end it.  One is ours:
 * "stop-raft-rpc-after-sending-append-request", a leader that sends its
 * new entries and then hears nothing, so that it steps down without
 * learning that they committed.   Process-wide, as
 * the reference's: it applies to every clustered database of the server.
 * Returns false for an unknown scenario; stores the reply text (static) in
 * '*replyp' either way. */
bool raft_set_failure_test(const char *scenario, const char **replyp);

/* The other members of the configuration, for metrics: fills in '*peer'
 * for the 'i'th and returns true, or returns false if there are not that
 * many.  'address' is valid until the configuration changes (not before
 * the loop's next pass). */
struct raft_peer {
    struct uuid sid;
    const char *address;  /* Borrowed. */
    bool connected;       /* A connection to it is up. */
    uint64_t match_index; /* Highest index known on it (leader only,
                             * else 0). */
};
bool raft_get_peer(const struct raft *, size_t i, struct raft_peer *peer);

/* Appends the "cluster/status" report, in the reference's layout. */
void raft_put_status(const struct raft *, struct ds *out);

#endif /* ovsdb/raft/raft.h */
