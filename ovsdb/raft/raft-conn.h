/* ovsdb/raft/raft-conn.h: the connections of one Raft server to its peers.
 *
 * A 'struct raft_conns' belongs to the local server (its server ID and
 * local address).  It listens on the local address, keeps one reconnecting
 * outgoing session per remote address it is told to connect to, accepts
 * incoming ones, and speaks the first message on each new outgoing
 * connection as Open vSwitch 3.1 does (hello_request, or
 * add_server_request while joining, or remove_server_request while
 * leaving).  Every received message is parsed (ovsdb/raft/raft-rpc), checked
 * against the cluster ID and our server ID, and handed to the caller with
 * the peer it came from; a connection learns its peer's server ID from the
 * first message on it.  Messages are sent to a server ID over whichever
 * connection to it is up (the reference also sends both ways on either
 * connection); while none is, up to RAFT_CONN_MAX_QUEUE messages wait per
 * peer and go out when one comes up.
 *
 * It knows nothing of terms, votes or logs: that is the state machine's
 * (ovsdb/raft/raft.c), which calls raft_conns_run(), _wait(), _recv() and
 * _send() from its main loop, and tells this module whom to connect to.
 * See tests/data/raft/README.md for the protocol. */
#ifndef OVSDB_RAFT_CONN_H
#define OVSDB_RAFT_CONN_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/uuid.h"

struct ds;
union raft_rpc;

/* Messages kept per peer while no connection to it is up; the oldest is
 * dropped first. */
#define RAFT_CONN_MAX_QUEUE 64

/* What the local server says first on each new outgoing connection. */
enum raft_conn_greeting {
    RAFT_CONN_HELLO,        /* hello_request (a member). */
    RAFT_CONN_JOINING,      /* add_server_request (joining a cluster). */
    RAFT_CONN_LEAVING,      /* remove_server_request for ourselves. */
};

struct raft_conns;

/* Creates the connections of server 'sid' at 'local_address'
 * ("tcp:IP:PORT", "ssl:IP:PORT" or "unix:PATH"; copied), in cluster 'cid'
 * (all zeros while joining: the first message that names a cluster sets
 * it).  Nothing happens until raft_conns_run().  Caller must free with
 * raft_conns_destroy(). */
struct raft_conns *raft_conns_create(const struct uuid *sid,
                                     const struct uuid *cid,
                                     const char *local_address);
void raft_conns_destroy(struct raft_conns *);   /* NULL is fine. */

/* The cluster ID (learned or given).  Borrowed. */
const struct uuid *raft_conns_get_cid(const struct raft_conns *);

void raft_conns_set_greeting(struct raft_conns *, enum raft_conn_greeting);

/* Sets the inactivity probe of every connection to 'election_timer' +
 * 1000 ms, as the reference does.  Default: 1000 + 1000. */
void raft_conns_set_election_timer(struct raft_conns *,
                                   uint64_t election_timer);

/* Makes sure an outgoing session to 'address' exists (reconnecting with
 * back-off).  'sid' is the peer's server ID if known (it is sent as "to"
 * in the greeting), else NULL or all zeros.  Does nothing for our own
 * address or one already connected to. */
void raft_conns_connect(struct raft_conns *, const char *address,
                        const struct uuid *sid);
/* Closes the outgoing session to 'address', if any. */
void raft_conns_disconnect(struct raft_conns *, const char *address);
/* Closes every outgoing session whose peer is not one of the 'n' server
 * IDs in 'keep' (a configuration change).  Sessions whose peer is not
 * known yet stay. */
void raft_conns_retain(struct raft_conns *, const struct uuid *keep,
                       size_t n);

/* Listens (retrying every second on failure), accepts, connects, sends
 * greetings and queued messages.  Never blocks. */
void raft_conns_run(struct raft_conns *);
void raft_conns_wait(struct raft_conns *);

/* Returns the next valid message from any peer: true and '*rpc' (caller
 * must free with raft_rpc_uninit()), or false if none is waiting.  Bad
 * messages (unparseable, wrong cluster, misrouted, or from a server other
 * than the one the connection belongs to) are logged and skipped. */
bool raft_conns_recv(struct raft_conns *, union raft_rpc *rpc);

/* Sends 'rpc' (borrowed) to server 'rpc->common.to', with our cluster ID
 * and server ID filled in.  Returns true if it went to a connection, false
 * if it was queued for later (or 'to' is zero or ourselves: dropped). */
bool raft_conns_send(struct raft_conns *, const union raft_rpc *rpc);

/* Sends the greeting again on every connected session, incoming ones
 * too (a joining server repeats its add_server_request so). */
void raft_conns_regreet(struct raft_conns *);

/* Number of sessions closed so far (for cluster/status). */
unsigned int raft_conns_get_n_disconnections(const struct raft_conns *);

/* True if some connection to server 'sid' is up. */
bool raft_conns_is_connected(const struct raft_conns *,
                             const struct uuid *sid);

/* The reference's short name for a server at 'address' (may be NULL)
 * with id 'sid': a unix socket's file name up to the first '.', else the
 * first 4 hex digits of its server ID.  Caller must free with free(). */
char *raft_conns_nickname(const char *address, const struct uuid *sid);

/* Number of sessions (outgoing and incoming). */
size_t raft_conns_count(const struct raft_conns *);

/* Appends the connections as cluster/status shows them: "->1c12 <-bb2e"
 * ("->" outgoing, "<-" incoming; a peer not known yet is shown as
 * "(->ADDRESS)" or "(<-NAME)").  Appends nothing for none. */
void raft_conns_format(const struct raft_conns *, struct ds *);

#endif /* ovsdb/raft/raft-conn.h */
