/* ovsdb/format/raft-record.h: the records of a clustered database file
 * (ovsdb(5), "Clustered Format"), parsed and printed here and nowhere else.
 *
 * A clustered file is a log (ovsdb/format/log.h) whose records have the magic
 * "OVSDB CLUSTER".  The first record is the header:
 *
 *     {"server_id": SID, "local_address": ADDR, "name": NAME,
 *      "cluster_id": CID,                        (optional when joining)
 *      "remote_addresses": [ADDR, ...],          (only when joining)
 *      "prev_servers": {SID: ADDR, ...},         (the others only when
 *      "prev_index": N, "prev_term": N,           joined; prev_* describe
 *      "prev_data": DATA, "prev_eid": UUID,       the snapshot, the entry
 *      "prev_election_timer": MS}                 at index prev_index)
 *
 * and every later record is one of (each may also have "comment"):
 *
 *     entry         {"term": N, "index": N, "data": DATA, "eid": UUID,
 *                    "servers": {SID: ADDR, ...}, "election_timer": MS}
 *                   ("data" and "eid" together or neither; "servers" and
 *                    "election_timer" optional)
 *     term          {"term": N}
 *     vote          {"term": N, "vote": SID}
 *     leader        {"term": N, "leader": SID}
 *     commit index  {"commit_index": N}
 *     note          {"note": TEXT}
 *
 * DATA is the array [SCHEMA or null, TRANSACTION or null]: an ovsdb(5) schema
 * (a schema change, or the snapshot's schema) and an ovsdb(5) transaction
 * record (ovsdb/format/record.h) or, in a snapshot, the whole contents.
 *
 * Numbers are unsigned 64-bit.  As the reference, values from 2**63 up are
 * written as the negative integers with the same 64 bits, and read back.
 * A zero number is the same as an absent member (an "index" of 0 makes a
 * term record), as in the reference.
 *
 * Output is byte-for-byte the reference's: members come in the order the
 * reference's JSON objects (hash maps) put them, and DATA is serialized
 * with sorted members.  (A "servers" object with several members may list
 * them in another order than the reference would: the reference's order
 * then depends on its history of copies.) */
#ifndef OVSDB_RAFT_RECORD_H
#define OVSDB_RAFT_RECORD_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "lib/util.h"
#include "lib/uuid.h"

struct ds;
struct ovsdb_error;

/* A log entry, or the snapshot (the state after the entry at its index). */
struct raft_entry {
    uint64_t term;
    json_t *data;               /* DATA, or NULL (no data); owned. */
    struct uuid eid;            /* Entry id; zero iff 'data' is NULL. */
    json_t *servers;            /* Object SID: ADDR, or NULL; owned. */
    uint64_t election_timer;    /* Milliseconds, or 0 for no change. */
};

/* Makes 'dst' share the values of 'src' (new references). */
void raft_entry_clone(struct raft_entry *dst, const struct raft_entry *src);
void raft_entry_destroy(struct raft_entry *);   /* Frees members only. */

/* The header (first record). */
struct raft_header {
    struct uuid sid;            /* This server's id. */
    struct uuid cid;            /* Cluster id; may be zero if 'joining'. */
    char *name;                 /* Database (schema) name. */
    char *local_address;        /* "tcp:IP:PORT", "ssl:IP:PORT" or "unix:". */

    bool joining;               /* Made by join-cluster, not joined yet. */
    char **remote_addresses;    /* If 'joining': the servers to ask. */
    size_t n_remote_addresses;

    uint64_t snap_index;        /* If !joining: the snapshot's index, or 0
                                 * if there is no snapshot. */
    struct raft_entry snap;     /* If !joining: 'snap.servers' always;
                                 * the rest if 'snap_index'. */
};

/* Parses 'json' (borrowed) into '*h'.  On error returns it, with '*h'
 * zeroed; otherwise the caller must free '*h' with raft_header_destroy().
 * The json_t members of '*h' (and of a parsed record below) are new
 * references to values inside 'json', not copies: neither may be modified
 * while the other is in use. */
struct ovsdb_error *raft_header_from_json(struct raft_header *h,
                                          const json_t *json)
    WARN_UNUSED_RESULT;
json_t *raft_header_to_json(const struct raft_header *);   /* New ref. */
/* Appends the header's JSON text, as the reference writes it, to 'out'. */
void raft_header_put(struct ds *out, const struct raft_header *);
/* Same, with 'data' ('data_size' bytes of JSON text, borrowed) as the
 * snapshot's DATA in place of 'h->snap.data' (for a snapshot too big to
 * hold as a json_t). */
void raft_header_put_data(struct ds *out, const struct raft_header *h,
                          const char *data, size_t data_size);
void raft_header_destroy(struct raft_header *); /* Frees members only. */

enum raft_record_type {
    RAFT_REC_ENTRY,
    RAFT_REC_TERM,
    RAFT_REC_VOTE,
    RAFT_REC_NOTE,
    RAFT_REC_COMMIT_INDEX,
    RAFT_REC_LEADER,
};

/* Any record after the header. */
struct raft_record {
    enum raft_record_type type;
    char *comment;              /* NULL if none; owned. */
    uint64_t term;              /* ENTRY, TERM, VOTE, LEADER; else 0. */
    union {
        char *note;             /* NOTE; owned. */
        uint64_t commit_index;  /* COMMIT_INDEX. */
        struct uuid sid;        /* VOTE, LEADER. */
        struct {                /* ENTRY.  'entry.term' is unused: the
                                 * record's 'term' is the entry's. */
            uint64_t index;
            struct raft_entry e;
        } entry;
    };
};

/* Parses 'json' (borrowed) into '*r'.  On error returns it; otherwise the
 * caller must free '*r' with raft_record_destroy(). */
struct ovsdb_error *raft_record_from_json(struct raft_record *r,
                                          const json_t *json)
    WARN_UNUSED_RESULT;
json_t *raft_record_to_json(const struct raft_record *);   /* New ref. */
/* Appends the record's JSON text, as the reference writes it, to 'out'. */
void raft_record_put(struct ds *out, const struct raft_record *);
void raft_record_destroy(struct raft_record *); /* Frees members only. */

/* Appends the text of an entry record to 'out' without building a
 * json_t: 'data' is the JSON text of DATA ('data_size' bytes, borrowed;
 * NULL for none), 'eid' may be NULL for none, 'servers' (borrowed) may be
 * NULL, 'election_timer' 0 for none.  The same bytes as raft_record_put()
 * gives for that entry. */
void raft_record_put_entry(struct ds *out, uint64_t term, uint64_t index,
                           const char *data, size_t data_size,
                           const struct uuid *eid, const json_t *servers,
                           uint64_t election_timer);

/* Appends DATA's text, [SCHEMA, TXN] with null for a NULL one (both
 * borrowed), serialized as the reference serializes it. */
void raft_data_put(struct ds *out, const json_t *schema, const json_t *txn);

/* Appends any DATA (borrowed) as the reference serializes it. */
void raft_data_put_json(struct ds *out, const json_t *data);

/* Checks that 'data' (borrowed) is [SCHEMA or null, TXN or null].  Stores
 * the members (borrowed; NULL for null) in '*schemap' and '*txnp'. */
struct ovsdb_error *raft_data_split(const json_t *data,
                                    const json_t **schemap,
                                    const json_t **txnp) WARN_UNUSED_RESULT;

/* Stores in 'order' ('n' elements) the positions of the 'n' distinct
 * 'addresses' in the order the reference's set of strings lists them when
 * built from 'addresses' in order and then copied 'n_copies' times: 0 for
 * a header it read (show-log prints them so), 1 for one it writes. */
void raft_addresses_order(char *const *addresses, size_t n, int n_copies,
                          size_t *order);

/* Checks a server address: "unix:...", or "tcp:"/"ssl:" followed by
 * IP:PORT (IPv6 in brackets) or a host name, as the reference. */
struct ovsdb_error *raft_address_validate(const char *address)
    WARN_UNUSED_RESULT;

/* Checks that 'servers' (borrowed) is an object of at least one SID:
 * ADDR member, as the reference. */
struct ovsdb_error *raft_servers_validate(const json_t *servers)
    WARN_UNUSED_RESULT;

/* Returns a new servers object with one member, 'sid': 'address'. */
json_t *raft_servers_single(const struct uuid *sid, const char *address);

/* Returns true if 'servers' (borrowed, may be NULL) has a member whose
 * name is 'sid'. */
bool raft_servers_contain(const json_t *servers, const struct uuid *sid);

/* The reference's 4-hex-digit short form of a server or cluster id, as
 * show-log and the logs print it ("%04x" of the first 16 bits). */
#define RAFT_SID_FMT "%04x"
#define RAFT_SID_ARGS(UUID) ((unsigned int) ((UUID)->parts[0] >> 16))

#endif /* ovsdb/format/raft-record.h */
