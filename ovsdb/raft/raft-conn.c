/* ovsdb/raft/raft-conn.c: see raft-conn.h.
 *
 * Connections live in one array, in the order they were made; sending to
 * a peer picks the first connected one, as the reference does.  Clusters
 * have a handful of members, so lookups are linear scans. */
#include <config.h>
#include "ovsdb/raft/raft-conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/stream.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/raft/raft-rpc.h"

VLOG_MODULE(raft_conn);

/* How many messages raft_conns_recv() takes from one connection before it
 * looks at the next, so one busy peer cannot starve the others. */
#define MAX_RECV_BURST 50

/* The largest message accepted from a peer: in effect none. */
#define RAFT_CONN_MAX_MSG_SIZE ((size_t) 1 << 40)

struct conn {
    struct jsonrpc_session *js;
    struct uuid sid;            /* Peer's server ID, or zeros if unknown. */
    char *address;              /* Outgoing: the address dialled.  Owned. */
    char *nickname;             /* For logs and cluster/status.  Owned. */
    bool incoming;
    unsigned int seqno;         /* Of 'js', to notice (re)connections. */
};

/* Messages waiting for a connection to one peer. */
struct peer_queue {
    struct uuid sid;
    struct jsonrpc_msg *msgs[RAFT_CONN_MAX_QUEUE];  /* Ring, owned. */
    size_t head, n;
};

struct raft_conns {
    struct uuid sid;
    struct uuid cid;
    char *local_address;
    char *passive_address;
    enum raft_conn_greeting greeting;
    int probe_interval;         /* Msec. */

    struct pstream *listener;
    long long int listen_retry; /* When to try listening again. */

    struct conn **conns;
    size_t n_conns, allocated_conns;
    size_t recv_next;           /* Round-robin position for recv. */
    size_t recv_burst;          /* Messages taken from 'recv_next'. */
    unsigned int n_disconnections; /* Sessions closed. */

    struct peer_queue **queues;
    size_t n_queues, allocated_queues;
};

/* "tcp:IP:PORT" -> "ptcp:PORT:IP", "unix:PATH" -> "punix:PATH". */
static char *
make_passive(const char *address)
{
    if (!strncmp(address, "unix:", 5)) {
        return xasprintf("p%s", address);
    }
    const char *colon = strrchr(address + 4, ':');
    if (strlen(address) < 4 || address[3] != ':' || !colon) {
        return xstrdup(address);
    }
    int host_len = colon - (address + 4);
    return xasprintf("p%.3s:%s:%.*s", address, colon + 1, host_len,
                     address + 4);
}

char *
raft_conns_nickname(const char *address, const struct uuid *sid)
{
    if (address && !strncmp(address, "unix:", 5)) {
        const char *p = strrchr(address + 5, '/');
        p = p ? p + 1 : address + 5;
        size_t len = strcspn(p, ".");
        if (len) {
            return xasprintf("%.*s", (int) len, p);
        }
    }
    return xasprintf("%04x", (unsigned int) (sid->parts[0] >> 16));
}

struct raft_conns *
raft_conns_create(const struct uuid *sid, const struct uuid *cid,
                  const char *local_address)
{
    struct raft_conns *rc = xzalloc(sizeof *rc);
    rc->sid = *sid;
    if (cid) {
        rc->cid = *cid;
    }
    rc->local_address = xstrdup(local_address);
    rc->passive_address = make_passive(local_address);
    rc->greeting = RAFT_CONN_HELLO;
    rc->probe_interval = 2000;
    return rc;
}

static void
conn_destroy(struct conn *c)
{
    if (c) {
        jsonrpc_session_close(c->js);
        free(c->address);
        free(c->nickname);
        free(c);
    }
}

static void
queue_destroy(struct peer_queue *q)
{
    if (q) {
        for (size_t i = 0; i < q->n; i++) {
            jsonrpc_msg_destroy(q->msgs[(q->head + i) % RAFT_CONN_MAX_QUEUE]);
        }
        free(q);
    }
}

void
raft_conns_destroy(struct raft_conns *rc)
{
    if (!rc) {
        return;
    }
    for (size_t i = 0; i < rc->n_conns; i++) {
        conn_destroy(rc->conns[i]);
    }
    free(rc->conns);
    for (size_t i = 0; i < rc->n_queues; i++) {
        queue_destroy(rc->queues[i]);
    }
    free(rc->queues);
    pstream_close(rc->listener);
    free(rc->local_address);
    free(rc->passive_address);
    free(rc);
}

const struct uuid *
raft_conns_get_cid(const struct raft_conns *rc)
{
    return &rc->cid;
}

void
raft_conns_set_greeting(struct raft_conns *rc,
                        enum raft_conn_greeting greeting)
{
    rc->greeting = greeting;
}

void
raft_conns_set_election_timer(struct raft_conns *rc,
                              uint64_t election_timer)
{
    rc->probe_interval = election_timer + 1000;
    for (size_t i = 0; i < rc->n_conns; i++) {
        jsonrpc_session_set_probe_interval(rc->conns[i]->js,
                                           rc->probe_interval);
    }
}

static struct conn *
add_conn(struct raft_conns *rc, struct jsonrpc_session *js,
         const char *address, const struct uuid *sid, bool incoming)
{
    struct conn *c = xzalloc(sizeof *c);
    c->js = js;
    if (sid) {
        c->sid = *sid;
    }
    c->address = address ? xstrdup(address) : NULL;
    c->nickname = raft_conns_nickname(address ? address
                                              : jsonrpc_session_get_name(js),
                                      &c->sid);
    c->incoming = incoming;
    c->seqno = jsonrpc_session_get_seqno(js);
    jsonrpc_session_set_probe_interval(js, rc->probe_interval);
    /* A snapshot travels in one message, as big as the database: the
     * reference sets no limit between members, nor do we. */
    jsonrpc_session_set_limits(js, RAFT_CONN_MAX_MSG_SIZE,
                               JSONRPC_DEFAULT_MAX_DEPTH);
    if (rc->n_conns >= rc->allocated_conns) {
        rc->conns = x2nrealloc(rc->conns, &rc->allocated_conns,
                               sizeof *rc->conns);
    }
    rc->conns[rc->n_conns++] = c;
    return c;
}

static void
remove_conn(struct raft_conns *rc, size_t i)
{
    VLOG_DBG("closing connection %s%s (%s)", rc->conns[i]->incoming
             ? "<-" : "->", rc->conns[i]->nickname,
             jsonrpc_session_get_name(rc->conns[i]->js));
    conn_destroy(rc->conns[i]);
    rc->n_disconnections++;
    memmove(&rc->conns[i], &rc->conns[i + 1],
            (rc->n_conns - i - 1) * sizeof *rc->conns);
    rc->n_conns--;
    if (rc->recv_next > i) {
        rc->recv_next--;
    }
}

static struct conn *
find_outgoing(const struct raft_conns *rc, const char *address, size_t *ip)
{
    for (size_t i = 0; i < rc->n_conns; i++) {
        struct conn *c = rc->conns[i];
        if (!c->incoming && !strcmp(c->address, address)) {
            if (ip) {
                *ip = i;
            }
            return c;
        }
    }
    return NULL;
}

void
raft_conns_connect(struct raft_conns *rc, const char *address,
                   const struct uuid *sid)
{
    if (!strcmp(address, rc->local_address)
        || find_outgoing(rc, address, NULL)) {
        return;
    }
    struct uuid zero;
    uuid_zero(&zero);
    add_conn(rc, jsonrpc_session_open(address, true), address,
             sid ? sid : &zero, false);
}

void
raft_conns_disconnect(struct raft_conns *rc, const char *address)
{
    size_t i;
    if (find_outgoing(rc, address, &i)) {
        remove_conn(rc, i);
    }
}

void
raft_conns_retain(struct raft_conns *rc, const struct uuid *keep, size_t n)
{
    for (size_t i = 0; i < rc->n_conns;) {
        struct conn *c = rc->conns[i];
        bool wanted = c->incoming || uuid_is_zero(&c->sid);
        for (size_t j = 0; !wanted && j < n; j++) {
            wanted = uuid_equals(&c->sid, &keep[j]);
        }
        if (wanted) {
            i++;
        } else {
            remove_conn(rc, i);
        }
    }
}

/* Queues per peer. */

static struct peer_queue *
find_queue(const struct raft_conns *rc, const struct uuid *sid, size_t *ip)
{
    for (size_t i = 0; i < rc->n_queues; i++) {
        if (uuid_equals(&rc->queues[i]->sid, sid)) {
            if (ip) {
                *ip = i;
            }
            return rc->queues[i];
        }
    }
    return NULL;
}

static void
enqueue(struct raft_conns *rc, const struct uuid *sid,
        struct jsonrpc_msg *msg)
{
    struct peer_queue *q = find_queue(rc, sid, NULL);
    if (!q) {
        q = xzalloc(sizeof *q);
        q->sid = *sid;
        if (rc->n_queues >= rc->allocated_queues) {
            rc->queues = x2nrealloc(rc->queues, &rc->allocated_queues,
                                    sizeof *rc->queues);
        }
        rc->queues[rc->n_queues++] = q;
    }
    if (q->n == RAFT_CONN_MAX_QUEUE) {
        jsonrpc_msg_destroy(q->msgs[q->head]);
        q->head = (q->head + 1) % RAFT_CONN_MAX_QUEUE;
        q->n--;
    }
    q->msgs[(q->head + q->n) % RAFT_CONN_MAX_QUEUE] = msg;
    q->n++;
}

/* Sends what waits for 'c''s peer, now that 'c' is up. */
static void
flush_queue(struct raft_conns *rc, struct conn *c)
{
    size_t i;
    struct peer_queue *q = find_queue(rc, &c->sid, &i);
    if (!q) {
        return;
    }
    while (q->n) {
        struct jsonrpc_msg *msg = q->msgs[q->head];
        q->head = (q->head + 1) % RAFT_CONN_MAX_QUEUE;
        q->n--;
        jsonrpc_session_send(c->js, msg);
    }
    queue_destroy(q);
    rc->queues[i] = rc->queues[--rc->n_queues];
}

/* Sending. */

static struct conn *
find_connected(const struct raft_conns *rc, const struct uuid *sid)
{
    for (size_t i = 0; i < rc->n_conns; i++) {
        struct conn *c = rc->conns[i];
        if (uuid_equals(&c->sid, sid) && jsonrpc_session_is_connected(c->js)) {
            return c;
        }
    }
    return NULL;
}

static struct jsonrpc_msg *
to_jsonrpc(const struct raft_conns *rc, const union raft_rpc *rpc)
{
    union raft_rpc copy = *rpc;     /* Shallow: only 'common' changes. */
    copy.common.cid = rc->cid;
    copy.common.from = rc->sid;
    return raft_rpc_to_jsonrpc(&copy);
}

static void
log_rpc(const char *dir, const struct conn *c, const union raft_rpc *rpc)
{
    if (vlog_is_enabled(this_module, VLL_DBG)
        && !raft_rpc_is_heartbeat(rpc)) {
        struct ds s;
        ds_init(&s);
        raft_rpc_format(rpc, &s);
        VLOG_DBG("%s%s %s", dir, c ? c->nickname : "(queued)", ds_cstr(&s));
        ds_destroy(&s);
    }
}

bool
raft_conns_send(struct raft_conns *rc, const union raft_rpc *rpc)
{
    const struct uuid *to = &rpc->common.to;
    if (uuid_is_zero(to) || uuid_equals(to, &rc->sid)) {
        VLOG_WARN("not sending %s to %s", raft_rpc_type_to_string(rpc->type),
                  uuid_is_zero(to) ? "nobody" : "ourselves");
        return false;
    }
    struct conn *c = find_connected(rc, to);
    log_rpc("-->", c, rpc);
    if (c && raft_rpc_has_text(rpc)) {
        /* Log entries as the log holds them: no parsing, no building. */
        union raft_rpc copy = *rpc;
        copy.common.cid = rc->cid;
        copy.common.from = rc->sid;
        struct ds text = DS_EMPTY_INITIALIZER;
        raft_rpc_serialize(&copy, &text);
        struct iovec iov = { .iov_base = text.string, .iov_len = text.length };
        jsonrpc_session_send_raw(c->js, &iov, 1);
        ds_destroy(&text);
        return true;
    }
    if (c) {
        jsonrpc_session_send(c->js, to_jsonrpc(rc, rpc));
        return true;
    }
    enqueue(rc, to, to_jsonrpc(rc, rpc));
    return false;
}

/* The first message of a new outgoing connection. */
static void
send_greeting(struct raft_conns *rc, struct conn *c)
{
    union raft_rpc rpc;

    memset(&rpc, 0, sizeof rpc);
    switch (rc->greeting) {
    case RAFT_CONN_HELLO:
        rpc.type = RAFT_RPC_HELLO_REQUEST;
        rpc.common.to = c->sid;
        rpc.hello_request.address = rc->local_address;
        break;
    case RAFT_CONN_JOINING:
        rpc.type = RAFT_RPC_ADD_SERVER_REQUEST;
        rpc.add_server_request.address = rc->local_address;
        break;
    case RAFT_CONN_LEAVING:
        if (uuid_is_zero(&c->sid)) {
            return;             /* The reference needs "to" here. */
        }
        rpc.type = RAFT_RPC_REMOVE_SERVER_REQUEST;
        rpc.common.to = c->sid;
        rpc.remove_server_request.server_id = rc->sid;
        break;
    }
    log_rpc("-->", c, &rpc);
    jsonrpc_session_send(c->js, to_jsonrpc(rc, &rpc));
}

/* Running. */

static void
run_listener(struct raft_conns *rc)
{
    if (!rc->listener && time_msec() >= rc->listen_retry) {
        int error = pstream_open(rc->passive_address, &rc->listener);
        if (error) {
            VLOG_WARN("%s: listen failed (%s)", rc->passive_address,
                      strerror(error));
            rc->listen_retry = time_msec() + 1000;
        }
    }
    for (int i = 0; rc->listener && i < 10; i++) {
        struct stream *stream;
        int error = pstream_accept(rc->listener, &stream);
        if (error) {
            if (error != EAGAIN) {
                VLOG_WARN("%s: accept failed (%s)",
                          pstream_get_name(rc->listener), strerror(error));
            }
            break;
        }
        add_conn(rc, jsonrpc_session_open_unreliably(jsonrpc_open(stream)),
                 NULL, NULL, true);
    }
}

void
raft_conns_run(struct raft_conns *rc)
{
    run_listener(rc);
    for (size_t i = 0; i < rc->n_conns;) {
        struct conn *c = rc->conns[i];
        jsonrpc_session_run(c->js);
        if (!jsonrpc_session_is_alive(c->js)) {
            remove_conn(rc, i);
            continue;
        }
        unsigned int seqno = jsonrpc_session_get_seqno(c->js);
        if (seqno != c->seqno) {
            c->seqno = seqno;
            if (jsonrpc_session_is_connected(c->js)) {
                if (!c->incoming) {
                    send_greeting(rc, c);
                }
                if (!uuid_is_zero(&c->sid)) {
                    flush_queue(rc, c);
                }
            }
        }
        i++;
    }
}

void
raft_conns_wait(struct raft_conns *rc)
{
    if (rc->listener) {
        pstream_wait(rc->listener);
    } else {
        poll_timer_wait_until(rc->listen_retry);
    }
    for (size_t i = 0; i < rc->n_conns; i++) {
        jsonrpc_session_wait(rc->conns[i]->js);
        jsonrpc_session_recv_wait(rc->conns[i]->js);
    }
}

/* Receiving. */

/* Checks 'rpc', which arrived on 'c', and learns what it teaches.  Returns
 * false (after logging why) if it must be dropped. */
static bool
accept_rpc(struct raft_conns *rc, struct conn *c, const union raft_rpc *rpc)
{
    bool learned;
    struct ovsdb_error *error = raft_rpc_check_address(rpc, &rc->cid,
                                                       &rc->sid, &learned);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        VLOG_INFO("%s: %s", jsonrpc_session_get_name(c->js), s);
        free(s);
        return false;
    }
    if (learned) {
        VLOG_INFO("learned cluster ID " UUID_FMT, UUID_ARGS(&rc->cid));
    }

    if (uuid_is_zero(&c->sid)) {
        c->sid = rpc->common.from;
        VLOG_INFO("%s: learned server ID " UUID_FMT,
                  jsonrpc_session_get_name(c->js), UUID_ARGS(&c->sid));
        free(c->nickname);
        c->nickname = raft_conns_nickname(c->address, &c->sid);
        flush_queue(rc, c);
    } else if (!uuid_equals(&c->sid, &rpc->common.from)) {
        VLOG_WARN("%s: ignoring message with unexpected server ID " UUID_FMT
                  " (expected " UUID_FMT ")",
                  jsonrpc_session_get_name(c->js),
                  UUID_ARGS(&rpc->common.from), UUID_ARGS(&c->sid));
        return false;
    }

    const char *address = (rpc->type == RAFT_RPC_HELLO_REQUEST
                           ? rpc->hello_request.address
                           : rpc->type == RAFT_RPC_ADD_SERVER_REQUEST
                           ? rpc->add_server_request.address : NULL);
    if (address && c->incoming) {
        char *nickname = raft_conns_nickname(address, &c->sid);
        if (strcmp(nickname, c->nickname)) {
            VLOG_INFO("%s: learned remote address %s",
                      jsonrpc_session_get_name(c->js), address);
            free(c->nickname);
            c->nickname = nickname;
        } else {
            free(nickname);
        }
    }
    return true;
}

bool
raft_conns_recv(struct raft_conns *rc, union raft_rpc *rpc)
{
    for (size_t tries = 0; tries < rc->n_conns;) {
        if (rc->recv_next >= rc->n_conns) {
            rc->recv_next = 0;
        }
        struct conn *c = rc->conns[rc->recv_next];
        struct jsonrpc_msg *msg = (rc->recv_burst < MAX_RECV_BURST
                                   ? jsonrpc_session_recv(c->js) : NULL);
        if (!msg) {
            rc->recv_next++;
            rc->recv_burst = 0;
            tries++;
            continue;
        }
        rc->recv_burst++;

        struct ovsdb_error *error = raft_rpc_from_jsonrpc(msg, rpc);
        if (error) {
            char *s = ovsdb_error_to_string_free(error);
            VLOG_INFO("%s: %s", jsonrpc_session_get_name(c->js), s);
            free(s);
        } else if (accept_rpc(rc, c, rpc)) {
            log_rpc("<--", c, rpc);
            jsonrpc_msg_destroy(msg);
            return true;
        } else {
            raft_rpc_uninit(rpc);
        }
        jsonrpc_msg_destroy(msg);
    }
    rc->recv_burst = 0;
    return false;
}

void
raft_conns_regreet(struct raft_conns *rc)
{
    for (size_t i = 0; i < rc->n_conns; i++) {
        struct conn *c = rc->conns[i];
        if (jsonrpc_session_is_connected(c->js)) {
            send_greeting(rc, c);
        }
    }
}

unsigned int
raft_conns_get_n_disconnections(const struct raft_conns *rc)
{
    return rc->n_disconnections;
}

bool
raft_conns_is_connected(const struct raft_conns *rc, const struct uuid *sid)
{
    return find_connected(rc, sid) != NULL;
}

size_t
raft_conns_count(const struct raft_conns *rc)
{
    return rc->n_conns;
}

void
raft_conns_format(const struct raft_conns *rc, struct ds *out)
{
    for (size_t i = 0; i < rc->n_conns; i++) {
        const struct conn *c = rc->conns[i];
        bool up = jsonrpc_session_is_connected(c->js);
        ds_put_format(out, " %s%s%s%s", up ? "" : "(",
                      c->incoming ? "<-" : "->", c->nickname, up ? "" : ")");
    }
}
