/* lib/jsonrpc.c: see jsonrpc.h.
 *
 * Input: bytes accumulate in 'input'.  A scanner walks them once, tracking
 * nesting depth and whether it is inside a string (and after a backslash),
 * until the depth returns to zero: that byte ends a message, which jansson
 * then parses in place with jsonx_loadb().  Scanning state survives between
 * reads, so a message split across any number of reads is scanned once.
 *
 * Output: messages are serialized straight into one buffer ('output'),
 * envelope by hand and values by json_dump_callback(), and written with one
 * send() for everything queued: by the next jsonrpc_recv() (so a reply
 * leaves as soon as its request is handled), by jsonrpc_run(), or at once
 * when a lot is queued.  A shared buffer (jsonrpc_send_shared()) is queued
 * by reference: what was queued before it moves to a segment of its own,
 * the buffer becomes the next segment, and what follows goes to 'output'
 * again; segments leave first, in order. */
#include <config.h>
#include "lib/jsonrpc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "lib/ds.h"
#include "lib/poll-loop.h"
#include "lib/progress.h"
#include "lib/reconnect.h"
#include "lib/replay.h"
#include "lib/refbuf.h"
#include "lib/stream.h"
#include "lib/timeval.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(jsonrpc);

/* How jansson serializes values: compact, any value at top level, reals
 * with 15 significant digits as the reference prints them. */
#define DUMP_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15))

/* Queued output beyond this is written at once instead of waiting for the
 * next jsonrpc_run(). */
#define EAGER_SEND_BYTES (64 * 1024)

/* Room the input buffer has for a read, at least: it starts this big and
 * doubles as a big message needs.  Small, because every connection keeps
 * one: 300 idle OVN clients held 20 MB of 64 kB buffers (DESIGN.md,
 * "Memory with monitoring clients"). */
#define MIN_READ_ROOM 4096

/* Bytes one jsonrpc_recv() call reads at most, so that a peer sending one
 * huge message is read over several passes of its owner's loop instead of
 * stalling everyone else's requests until it is complete. */
#define MAX_READ_PER_RECV (1024 * 1024)

/* Idle input and output buffers bigger than this are freed, so one big
 * message does not pin its memory for the life of the connection: with
 * hundreds of clients, each one's initial monitor reply would (DESIGN.md,
 * "Memory with monitoring clients"). */
#define KEEP_BUFFER_BYTES (8 * 1024)

/* An empty input buffer is freed once nothing has arrived for this long. */
#define IDLE_INPUT_MSEC 1000

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Messages. */

static struct jsonrpc_msg *
msg_create(enum jsonrpc_msg_type type, const char *method, json_t *params,
           json_t *result, json_t *error, json_t *id)
{
    struct jsonrpc_msg *msg = xmalloc(sizeof *msg);
    msg->type = type;
    msg->method = method ? xstrdup(method) : NULL;
    msg->params = params;
    msg->result = result;
    msg->error = error;
    msg->id = id;
    msg->lazy_params = NULL;
    return msg;
}

struct jsonrpc_msg *
jsonrpc_create_request(const char *method, json_t *params, json_t **idp)
{
    static unsigned long long next_id;
    json_t *id = json_integer(next_id++);
    if (idp) {
        *idp = json_incref(id);
    }
    return msg_create(JSONRPC_REQUEST, method, params, NULL, NULL, id);
}

struct jsonrpc_msg *
jsonrpc_create_notify(const char *method, json_t *params)
{
    return msg_create(JSONRPC_NOTIFY, method, params, NULL, NULL, NULL);
}

struct jsonrpc_msg *
jsonrpc_create_reply(json_t *result, const json_t *id)
{
    return msg_create(JSONRPC_REPLY, NULL, NULL, result, NULL,
                      json_incref((json_t *) id));
}

struct jsonrpc_msg *
jsonrpc_create_error(json_t *error, const json_t *id)
{
    return msg_create(JSONRPC_ERROR, NULL, NULL, NULL, error,
                      json_incref((json_t *) id));
}

void
jsonrpc_msg_destroy(struct jsonrpc_msg *msg)
{
    if (msg) {
        free(msg->method);
        json_decref(msg->params);
        json_decref(msg->result);
        json_decref(msg->error);
        json_decref(msg->id);
        jsonx_lazy_array_destroy(msg->lazy_params);
        free(msg);
    }
}

void
jsonrpc_msg_parse_params(struct jsonrpc_msg *msg)
{
    if (msg->lazy_params) {
        msg->params = jsonx_lazy_array_to_json(msg->lazy_params);
        jsonx_lazy_array_destroy(msg->lazy_params);
        msg->lazy_params = NULL;
    }
}

const char *
jsonrpc_msg_type_to_string(enum jsonrpc_msg_type type)
{
    switch (type) {
    case JSONRPC_REQUEST:
        return "request";
    case JSONRPC_NOTIFY:
        return "notification";
    case JSONRPC_REPLY:
        return "reply";
    case JSONRPC_ERROR:
        return "error";
    }
    return "(unknown)";
}

char *
jsonrpc_msg_is_valid(const struct jsonrpc_msg *m)
{
    /* Bits: method, params, result, error, id; 1 = required, else
     * forbidden. */
    static const struct {
        const char *member;
        bool req[4];            /* Indexed by type. */
    } rules[] = {
        { "method", { true, true, false, false } },
        { "params", { true, true, false, false } },
        { "result", { false, false, true, false } },
        { "error", { false, false, false, true } },
        { "id", { true, false, true, true } },
    };
    bool present[] = { m->method != NULL, m->params != NULL,
                       m->result != NULL, m->error != NULL, m->id != NULL };

    if (m->params && !json_is_array(m->params)) {
        return xstrdup("\"params\" must be JSON array");
    }
    for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
        bool required = rules[i].req[m->type];
        if (required != present[i]) {
            return xasprintf("%s must%s have \"%s\"",
                             jsonrpc_msg_type_to_string(m->type),
                             required ? "" : " not", rules[i].member);
        }
    }
    return NULL;
}

/* Returns a new reference to 'json' unless it is absent or JSON null. */
static json_t *
non_null(json_t *json)
{
    return json && !json_is_null(json) ? json_incref(json) : NULL;
}

char *
jsonrpc_msg_from_json(const json_t *json, struct jsonrpc_msg **msgp)
{
    *msgp = NULL;
    if (!json_is_object(json)) {
        return xstrdup("message is not a JSON object");
    }

    const char *key;
    json_t *value;
    json_object_foreach ((json_t *) json, key, value) {
        if (strcmp(key, "method") && strcmp(key, "params")
            && strcmp(key, "result") && strcmp(key, "error")
            && strcmp(key, "id")) {
            return xasprintf("message has unexpected member \"%s\"", key);
        }
    }

    json_t *method = json_object_get(json, "method");
    if (method && !json_is_string(method)) {
        return xstrdup("method is not a JSON string");
    }

    json_t *result = non_null(json_object_get(json, "result"));
    json_t *error = non_null(json_object_get(json, "error"));
    json_t *id = non_null(json_object_get(json, "id"));
    enum jsonrpc_msg_type type = (result ? JSONRPC_REPLY
                                  : error ? JSONRPC_ERROR
                                  : id ? JSONRPC_REQUEST
                                  : JSONRPC_NOTIFY);
    struct jsonrpc_msg *msg = msg_create(
        type, method ? json_string_value(method) : NULL,
        json_incref(json_object_get(json, "params")), result, error, id);

    char *problem = jsonrpc_msg_is_valid(msg);
    if (problem) {
        jsonrpc_msg_destroy(msg);
        return problem;
    }
    *msgp = msg;
    return NULL;
}

json_t *
jsonrpc_msg_to_json(struct jsonrpc_msg *m)
{
    jsonrpc_msg_parse_params(m);
    json_t *json = json_object();
    json_object_set_new(json, "id", m->id ? m->id : json_null());
    m->id = NULL;
    if (m->method) {
        json_object_set_new(json, "method", json_string(m->method));
    }
    if (m->params) {
        json_object_set_new(json, "params", m->params);
        m->params = NULL;
    }
    if (m->type == JSONRPC_REPLY) {
        json_object_set_new(json, "result", m->result);
        json_object_set_new(json, "error", json_null());
        m->result = NULL;
    } else if (m->type == JSONRPC_ERROR) {
        json_object_set_new(json, "error", m->error);
        m->error = NULL;
    }
    jsonrpc_msg_destroy(m);
    return json;
}

static int
dump_to_ds(const char *buffer, size_t size, void *ds_)
{
    ds_put_buffer(ds_, buffer, size);
    return 0;
}

static void
put_json(struct ds *out, const json_t *json)
{
    if (json_dump_callback(json, dump_to_ds, out, DUMP_FLAGS)) {
        /* Only invalid UTF-8 in a string gets here. */
        ds_put_cstr(out, "null");
    }
}

void
jsonrpc_msg_serialize(const struct jsonrpc_msg *m, struct ds *out)
{
    /* Parsing lazy params changes their form, not the message. */
    jsonrpc_msg_parse_params((struct jsonrpc_msg *) m);
    ds_put_cstr(out, "{\"id\":");
    if (m->id) {
        put_json(out, m->id);
    } else {
        ds_put_cstr(out, "null");
    }
    if (m->method) {
        json_t *method = json_string(m->method);
        ds_put_cstr(out, ",\"method\":");
        put_json(out, method);
        json_decref(method);
    }
    if (m->params) {
        ds_put_cstr(out, ",\"params\":");
        put_json(out, m->params);
    }
    if (m->type == JSONRPC_REPLY) {
        ds_put_cstr(out, ",\"result\":");
        put_json(out, m->result);
        ds_put_cstr(out, ",\"error\":null");
    } else if (m->type == JSONRPC_ERROR) {
        ds_put_cstr(out, ",\"error\":");
        put_json(out, m->error);
    }
    ds_put_char(out, '}');
}

char *
jsonrpc_msg_to_string(const struct jsonrpc_msg *m)
{
    jsonrpc_msg_parse_params((struct jsonrpc_msg *) m); /* As above. */
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "%s", jsonrpc_msg_type_to_string(m->type));
    if (m->method) {
        ds_put_format(&s, ", method=\"%s\"", m->method);
    }
    if (m->params) {
        ds_put_cstr(&s, ", params=");
        put_json(&s, m->params);
    }
    if (m->result) {
        ds_put_cstr(&s, ", result=");
        put_json(&s, m->result);
    }
    if (m->error) {
        ds_put_cstr(&s, ", error=");
        put_json(&s, m->error);
    }
    if (m->id) {
        ds_put_cstr(&s, ", id=");
        put_json(&s, m->id);
    }
    return ds_steal_cstr(&s);
}

/* Connections. */

struct jsonrpc {
    struct stream *stream;
    char *name;
    int status;                 /* 0, or the sticky error. */
    char *error_detail;

    /* Input.  Bytes [start, len) of 'input' are unconsumed; the scanner has
     * looked at [start, scan).  'depth' 0 at 'start' means no message has
     * begun yet. */
    char *input;
    size_t start, scan, len, allocated;
    int depth;
    bool in_string, escaped;
    size_t max_msg_size;
    int max_depth;
    const char *lazy_method; /* See jsonrpc_set_lazy_params(). */
    size_t lazy_min_size;
    unsigned long long received_bytes;
    enum jsonrpc_transport transport; /* Of 'name', for the totals. */
    long long last_input_msec;  /* time_msec() of the last bytes read. */
    bool read_more;             /* jsonrpc_recv() stopped at its read
                                 * budget, not at EAGAIN. */

    /* Output: the segments, then bytes [sent, output.length). */
    struct out_seg *segs; /* [seg_head, n_segs) are queued. */
    size_t seg_head, n_segs, allocated_segs;
    size_t seg_sent;  /* Bytes of segs[seg_head] sent. */
    size_t seg_bytes; /* Unsent bytes in the segments. */
    struct ds output;
    size_t sent;
};

/* Queued output that is not in 'output': bytes of a shared buffer, or
 * bytes that were queued before one ('own' then holds them). */
struct out_seg {
    struct refbuf *shared; /* Or NULL. */
    char *own;             /* Freed when sent, if nonnull. */
    const char *data;
    size_t size;
};

static void
seg_free(struct out_seg *seg)
{
    refbuf_unref(seg->shared);
    free(seg->own);
}

static void
free_segs(struct jsonrpc *rpc)
{
    for (size_t i = rpc->seg_head; i < rpc->n_segs; i++) {
        seg_free(&rpc->segs[i]);
    }
    free(rpc->segs);
    rpc->segs = NULL;
    rpc->seg_head = rpc->n_segs = rpc->allocated_segs = 0;
    rpc->seg_sent = rpc->seg_bytes = 0;
}

struct jsonrpc *
jsonrpc_open(struct stream *stream)
{
    struct jsonrpc *rpc = xzalloc(sizeof *rpc);
    rpc->stream = stream;
    rpc->name = xstrdup(stream_get_name(stream));
    rpc->transport = jsonrpc_transport_of(rpc->name);
    rpc->max_msg_size = JSONRPC_DEFAULT_MAX_MSG_SIZE;
    rpc->max_depth = JSONRPC_DEFAULT_MAX_DEPTH;
    rpc->last_input_msec = time_msec();
    ds_init(&rpc->output);
    return rpc;
}

void
jsonrpc_close(struct jsonrpc *rpc)
{
    if (rpc) {
        stream_close(rpc->stream);
        free(rpc->name);
        free(rpc->error_detail);
        free(rpc->input);
        free_segs(rpc);
        ds_destroy(&rpc->output);
        free(rpc);
    }
}

void
jsonrpc_set_limits(struct jsonrpc *rpc, size_t max_msg_size, int max_depth)
{
    rpc->max_msg_size = max_msg_size;
    rpc->max_depth = max_depth;
}

void
jsonrpc_set_lazy_params(struct jsonrpc *rpc, const char *method,
                        size_t min_size)
{
    rpc->lazy_method = method;
    rpc->lazy_min_size = min_size;
}

/* Makes 'error' (and 'detail', taken) sticky, if nothing is yet. */
static void
jsonrpc_error(struct jsonrpc *rpc, int error, char *detail)
{
    if (!rpc->status) {
        rpc->status = error;
        free(rpc->error_detail);
        rpc->error_detail = detail;
        detail = NULL;
        free_segs(rpc);
        ds_clear(&rpc->output);
        rpc->sent = 0;
    }
    free(detail);
}

size_t
jsonrpc_get_backlog(const struct jsonrpc *rpc)
{
    return rpc->seg_bytes + rpc->output.length - rpc->sent;
}

/* Sends what it can of the segments.  Returns true if none is left. */
/* For jsonrpc_get_totals(), by transport. */
static unsigned long long total_received[JSONRPC_N_TRANSPORTS];
static unsigned long long total_sent[JSONRPC_N_TRANSPORTS];

enum jsonrpc_transport
jsonrpc_transport_of(const char *stream_name)
{
    /* Accepted streams are named "unix#N" or "tcp:IP:PORT". */
    size_t len = strcspn(stream_name, ":#");
    for (enum jsonrpc_transport t = 0; t < JSONRPC_OTHER; t++) {
        const char *word = jsonrpc_transport_to_string(t);
        if (strlen(word) == len && !strncmp(stream_name, word, len)) {
            return t;
        }
    }
    return JSONRPC_OTHER;
}

const char *
jsonrpc_transport_to_string(enum jsonrpc_transport t)
{
    static const char *const names[JSONRPC_N_TRANSPORTS] = {
        [JSONRPC_UNIX] = "unix",
        [JSONRPC_TCP] = "tcp",
        [JSONRPC_SSL] = "ssl",
        [JSONRPC_OTHER] = "other",
    };
    return t < JSONRPC_N_TRANSPORTS ? names[t] : "other";
}

void
jsonrpc_get_totals(enum jsonrpc_transport t, unsigned long long *received,
                   unsigned long long *sent)
{
    *received = total_received[t];
    *sent = total_sent[t];
}

static bool
flush_segs(struct jsonrpc *rpc)
{
    while (!rpc->status && rpc->seg_head < rpc->n_segs) {
        struct out_seg *seg = &rpc->segs[rpc->seg_head];
        size_t left = seg->size - rpc->seg_sent;
        ssize_t n = left ? stream_send(rpc->stream, seg->data + rpc->seg_sent,
                                       left)
                         : 0;
        if (n > 0 || !left) {
            total_sent[rpc->transport] += n;
            rpc->seg_sent += n;
            rpc->seg_bytes -= n;
            if (rpc->seg_sent == seg->size) {
                seg_free(seg);
                rpc->seg_head++;
                rpc->seg_sent = 0;
            }
        } else if (n == -EAGAIN) {
            return false;
        } else {
            int error = n ? -n : EPROTO;
            VLOG_WARN_RL(&rl, "%s: send error: %s", rpc->name,
                         ovs_strerror(error));
            jsonrpc_error(rpc, error, NULL);
        }
    }
    if (rpc->segs) {
        free_segs(rpc);
    }
    return true;
}

static void
flush_output(struct jsonrpc *rpc)
{
    if (rpc->segs && !flush_segs(rpc)) {
        return;
    }
    while (!rpc->status && jsonrpc_get_backlog(rpc)) {
        ssize_t n = stream_send(rpc->stream, rpc->output.string + rpc->sent,
                                jsonrpc_get_backlog(rpc));
        if (n > 0) {
            total_sent[rpc->transport] += n;
            rpc->sent += n;
        } else if (n == -EAGAIN) {
            break;
        } else {
            int error = n ? -n : EPROTO;
            VLOG_WARN_RL(&rl, "%s: send error: %s", rpc->name,
                         ovs_strerror(error));
            jsonrpc_error(rpc, error, NULL);
        }
    }
    if (!rpc->output.length) {
        /* Nothing was queued: the buffer is not touched (every session is
         * flushed on every pass of a server's loop). */
    } else if (rpc->sent == rpc->output.length) {
        if (rpc->output.allocated > KEEP_BUFFER_BYTES) {
            /* A big reply went out: give the memory back. */
            ds_destroy(&rpc->output);
            ds_init(&rpc->output);
        } else {
            ds_clear(&rpc->output);
        }
        rpc->sent = 0;
    } else if (rpc->sent > rpc->output.length / 2) {
        /* Keep the buffer from creeping: move the tail to the front. */
        size_t backlog = jsonrpc_get_backlog(rpc);
        memmove(rpc->output.string, rpc->output.string + rpc->sent, backlog);
        ds_truncate(&rpc->output, backlog);
        rpc->sent = 0;
    }
}

void
jsonrpc_run(struct jsonrpc *rpc)
{
    if (rpc->status) {
        return;
    }
    stream_run(rpc->stream);
    flush_output(rpc);
}

void
jsonrpc_wait(struct jsonrpc *rpc)
{
    if (!rpc->status) {
        stream_run_wait(rpc->stream);
        if (jsonrpc_get_backlog(rpc)) {
            stream_send_wait(rpc->stream);
        }
    }
}

int
jsonrpc_get_status(const struct jsonrpc *rpc)
{
    return rpc->status;
}

const char *
jsonrpc_get_error_detail(const struct jsonrpc *rpc)
{
    return rpc->error_detail;
}

unsigned long long
jsonrpc_get_received_bytes(const struct jsonrpc *rpc)
{
    return rpc->received_bytes;
}

const char *
jsonrpc_get_name(const struct jsonrpc *rpc)
{
    return rpc->name;
}

struct stream *
jsonrpc_get_stream(const struct jsonrpc *rpc)
{
    return rpc->stream;
}

static void
after_queue(struct jsonrpc *rpc)
{
    if (jsonrpc_get_backlog(rpc) >= EAGER_SEND_BYTES) {
        flush_output(rpc);
    }
}

int
jsonrpc_send(struct jsonrpc *rpc, struct jsonrpc_msg *msg)
{
    if (rpc->status) {
        jsonrpc_msg_destroy(msg);
        return rpc->status;
    }
    if (VLOG_IS_DBG_ENABLED()) {
        char *s = jsonrpc_msg_to_string(msg);
        VLOG_DBG("%s: send %s", rpc->name, s);
        free(s);
    }
    jsonrpc_msg_serialize(msg, &rpc->output);
    jsonrpc_msg_destroy(msg);
    after_queue(rpc);
    return rpc->status;
}

static struct out_seg *
push_seg(struct jsonrpc *rpc)
{
    if (rpc->n_segs >= rpc->allocated_segs) {
        rpc->segs = x2nrealloc(rpc->segs, &rpc->allocated_segs,
                               sizeof *rpc->segs);
    }
    return &rpc->segs[rpc->n_segs++];
}

int
jsonrpc_send_shared(struct jsonrpc *rpc, const struct iovec *head, int n_head,
                    struct refbuf *body, const struct iovec *tail, int n_tail)
{
    if (rpc->status) {
        return rpc->status;
    }
    for (int i = 0; i < n_head; i++) {
        ds_put_buffer(&rpc->output, head[i].iov_base, head[i].iov_len);
    }
    if (jsonrpc_get_backlog(rpc) > rpc->seg_bytes) {
        /* The bytes queued so far go first, as a segment. */
        struct out_seg *seg = push_seg(rpc);
        seg->shared = NULL;
        seg->data = rpc->output.string + rpc->sent;
        seg->size = rpc->output.length - rpc->sent;
        seg->own = ds_steal_cstr(&rpc->output);
        rpc->seg_bytes += seg->size;
        rpc->sent = 0;
    }
    struct out_seg *seg = push_seg(rpc);
    seg->shared = refbuf_ref(body);
    seg->own = NULL;
    seg->data = body->data;
    seg->size = body->size;
    rpc->seg_bytes += seg->size;
    for (int i = 0; i < n_tail; i++) {
        ds_put_buffer(&rpc->output, tail[i].iov_base, tail[i].iov_len);
    }
    after_queue(rpc);
    return rpc->status;
}

int
jsonrpc_send_raw(struct jsonrpc *rpc, const struct iovec *iov, int n_iov)
{
    if (rpc->status) {
        return rpc->status;
    }
    for (int i = 0; i < n_iov; i++) {
        ds_put_buffer(&rpc->output, iov[i].iov_base, iov[i].iov_len);
    }
    after_queue(rpc);
    return rpc->status;
}

/* Byte classes for scan_input(): what the scanner must stop at, outside
 * strings (quotes and brackets) and inside them (quotes and backslashes).
 * Everything else is skipped in a tight loop. */
enum { SC_QUOTE = 1, SC_BACKSLASH, SC_OPEN, SC_CLOSE };
static const unsigned char outside_class[256] = {
    ['"'] = SC_QUOTE, ['{'] = SC_OPEN, ['['] = SC_OPEN,
    ['}'] = SC_CLOSE, [']'] = SC_CLOSE,
};
static const unsigned char string_class[256] = {
    ['"'] = SC_QUOTE, ['\\'] = SC_BACKSLASH,
};

/* Returns the first index from 'i' (or 'limit') of a byte of 'p' that
 * 'class' marks. */
static size_t
skip_plain(const unsigned char *p, size_t i, size_t limit,
           const unsigned char class[256])
{
    while (i < limit && !class[p[i]]) {
        i++;
    }
    return i;
}

/* Scans input from 'scan' for the end of the current message.  Returns 0
 * and sets '*endp' just past it, EAGAIN if more input is needed, or a
 * sticky error. */
static int
scan_input(struct jsonrpc *rpc, size_t *endp)
{
    const unsigned char *p = (const unsigned char *) rpc->input;
    size_t i = rpc->scan;
    size_t limit = rpc->len;

    /* Skip white space between messages. */
    if (!rpc->depth) {
        while (i < limit && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r'
                             || p[i] == '\t')) {
            i++;
        }
        rpc->start = i;
        if (i < limit && p[i] != '{' && p[i] != '[') {
            char *detail = xasprintf(
                "syntax error: message does not begin with '{' or '[' "
                "(found '%c')", p[i]);
            rpc->scan = i;
            jsonrpc_error(rpc, EPROTO, detail);
            return EPROTO;
        }
    }
    if (limit - rpc->start > rpc->max_msg_size) {
        limit = rpc->start + rpc->max_msg_size;
    }

    while (i < limit) {
        if (rpc->in_string) {
            if (rpc->escaped) {
                rpc->escaped = false;
                i++;
                continue;
            }
            i = skip_plain(p, i, limit, string_class);
            if (i >= limit) {
                break;
            }
            if (p[i] == '\\') {
                rpc->escaped = true;
            } else {
                rpc->in_string = false;
            }
            i++;
            continue;
        }

        i = skip_plain(p, i, limit, outside_class);
        if (i >= limit) {
            break;
        }
        switch (outside_class[p[i]]) {
        case SC_QUOTE:
            rpc->in_string = true;
            break;
        case SC_OPEN:
            if (++rpc->depth > rpc->max_depth) {
                rpc->scan = i;
                jsonrpc_error(rpc, EPROTO,
                              xasprintf("syntax error: nesting deeper than "
                                        "%d levels", rpc->max_depth));
                return EPROTO;
            }
            break;
        case SC_CLOSE:
            if (--rpc->depth == 0) {
                rpc->scan = i + 1;
                *endp = i + 1;
                return 0;
            }
            break;
        }
        i++;
    }
    rpc->scan = i;
    if (i - rpc->start >= rpc->max_msg_size) {
        jsonrpc_error(rpc, EMSGSIZE,
                      xasprintf("message exceeds maximum size %zu bytes",
                                rpc->max_msg_size));
        return EMSGSIZE;
    }
    return EAGAIN;
}

/* Parses 'length' bytes at 's', a request for the lazy method, into
 * '*msgp' with lazy params.  Returns false if the message is anything else
 * or the fast parser declines it: the caller then parses it whole. */
static bool
parse_lazy_request(struct jsonrpc *rpc, const char *s, size_t length,
                   struct jsonrpc_msg **msgp)
{
    struct jsonx_lazy_array *lazy;
    json_t *json = jsonx_loadb_lazy(s, length, "params", &lazy);
    json_t *method = json_object_get(json, "method");
    bool ok = false;
    if (lazy && json_is_string(method)
        && !strcmp(json_string_value(method), rpc->lazy_method)) {
        /* Validated with a stand-in for the params. */
        json_object_set_new(json, "params", json_array());
        char *problem = jsonrpc_msg_from_json(json, msgp);
        if (!problem && (*msgp)->type == JSONRPC_REQUEST) {
            json_decref((*msgp)->params);
            (*msgp)->params = NULL;
            (*msgp)->lazy_params = lazy;
            lazy = NULL;
            ok = true;
        } else {
            /* Its error is worded from the whole message. */
            jsonrpc_msg_destroy(*msgp);
            *msgp = NULL;
        }
        free(problem);
    }
    jsonx_lazy_array_destroy(lazy);
    json_decref(json);
    return ok;
}

/* Parses the message in input bytes [start, end). */
static int
parse_message(struct jsonrpc *rpc, size_t end, struct jsonrpc_msg **msgp)
{
    const char *text = rpc->input + rpc->start;
    size_t length = end - rpc->start;
    bool lazy = (rpc->lazy_method && length >= rpc->lazy_min_size
                 && !VLOG_IS_DBG_ENABLED()
                 && parse_lazy_request(rpc, text, length, msgp));
    json_error_t jerr;
    json_t *json = (lazy ? NULL
                         : jsonx_loadb(text, length, JSON_DISABLE_EOF_CHECK,
                                       &jerr));
    rpc->start = rpc->scan = end;
    if (rpc->start == rpc->len) {
        rpc->start = rpc->scan = rpc->len = 0;
        if (rpc->allocated > KEEP_BUFFER_BYTES) {
            /* A big request was parsed: give the memory back. */
            free(rpc->input);
            rpc->input = NULL;
            rpc->allocated = 0;
        }
    }
    if (lazy) {
        return 0;
    }

    if (!json) {
        char *detail = xasprintf("syntax error at line %d, column %d: %s",
                                 jerr.line, jerr.column, jerr.text);
        VLOG_WARN_RL(&rl, "%s: error parsing stream: %s", rpc->name, detail);
        jsonrpc_error(rpc, EPROTO, detail);
        return EPROTO;
    }

    char *problem = jsonrpc_msg_from_json(json, msgp);
    json_decref(json);
    if (problem) {
        VLOG_WARN_RL(&rl, "%s: received bad JSON-RPC message: %s", rpc->name,
                     problem);
        jsonrpc_error(rpc, EPROTO,
                      xasprintf("received bad JSON-RPC message: %s",
                                problem));
        free(problem);
        return EPROTO;
    }
    if (VLOG_IS_DBG_ENABLED()) {
        char *s = jsonrpc_msg_to_string(*msgp);
        VLOG_DBG("%s: received %s", rpc->name, s);
        free(s);
    }
    return 0;
}

/* A read into an idle connection's stack buffer: if its 'n' bytes at
 * 'bytes' are exactly one message, parses it from there and returns true,
 * so the connection allocates no input buffer for it.  Small requests of
 * many clients at once (an OVN condition change from each of 1,000) then
 * cost no 4 kB buffer each.  Otherwise returns false; the caller copies
 * the bytes to a buffer of the connection's own and scans them there. */
static bool
parse_whole_read(struct jsonrpc *rpc, char *bytes, size_t n,
                 struct jsonrpc_msg **msgp)
{
    size_t end;
    rpc->input = bytes;
    rpc->len = n;
    int error = scan_input(rpc, &end);
    bool whole = !error && end == n;
    if (whole) {
        parse_message(rpc, end, msgp);
    } else if (error && error != EAGAIN) {
        VLOG_WARN_RL(&rl, "%s: %s", rpc->name, rpc->error_detail);
        whole = true;
    }
    rpc->input = NULL;
    rpc->start = rpc->scan = rpc->len = 0;
    if (!whole) {
        /* The caller scans again from the start in its own buffer.  The
         * connection was idle, so no message had begun before 'bytes'. */
        rpc->depth = 0;
        rpc->in_string = rpc->escaped = false;
    }
    return whole;
}

int
jsonrpc_recv(struct jsonrpc *rpc, struct jsonrpc_msg **msgp)
{
    *msgp = NULL;
    if (jsonrpc_get_backlog(rpc)) {
        /* Whatever handling the previous message queued leaves now, in one
         * write, before we look at the next one. */
        flush_output(rpc);
    }
    rpc->read_more = false;
    size_t n_read = 0;
    while (!rpc->status) {
        size_t end;
        int error = scan_input(rpc, &end);
        if (!error) {
            return parse_message(rpc, end, msgp);
        } else if (error != EAGAIN) {
            VLOG_WARN_RL(&rl, "%s: %s", rpc->name, rpc->error_detail);
            break;
        }

        if (n_read >= MAX_READ_PER_RECV) {
            /* The rest waits for the next call; the stream may hold more
             * than poll() can see (TLS), so jsonrpc_recv_wait() wakes at
             * once. */
            rpc->read_more = true;
            return EAGAIN;
        }

        ssize_t n;
        if (!rpc->input) {
            /* An idle connection has no buffer (below).  A server tries
             * every connection on every pass of its loop, so it reads a
             * little on the stack first: allocating 4 kB to find nothing
             * and freeing it again was a tenth of the main thread's time
             * with 1,000 idle TLS clients.  A small request read whole is
             * parsed from there (parse_whole_read()).  A per-thread shared
             * 16 kB buffer instead was tried and withdrawn: with it, Open
             * vSwitch 3.1's Python IDL failed a test (DESIGN.md). */
            char first[512];
            n = stream_recv(rpc->stream, first, sizeof first);
            if (n > 0) {
                rpc->received_bytes += n;
                total_received[rpc->transport] += n;
                rpc->last_input_msec = time_msec();
                if (parse_whole_read(rpc, first, n, msgp)) {
                    return rpc->status;
                }
                rpc->allocated = MIN_READ_ROOM;
                rpc->input = xmalloc(rpc->allocated);
                memcpy(rpc->input, first, n);
                rpc->len = n;
                n_read += n;
                continue;
            }
        } else {
            /* Need more input: make room, then read. */
            if (rpc->start > 0 && rpc->allocated - rpc->len < MIN_READ_ROOM) {
                memmove(rpc->input, rpc->input + rpc->start,
                        rpc->len - rpc->start);
                rpc->len -= rpc->start;
                rpc->scan -= rpc->start;
                rpc->start = 0;
            }
            if (rpc->allocated - rpc->len < MIN_READ_ROOM) {
                rpc->allocated = MAX(rpc->allocated * 2,
                                     rpc->len + MIN_READ_ROOM);
                rpc->input = xrealloc(rpc->input, rpc->allocated);
            }
            n = stream_recv(rpc->stream, rpc->input + rpc->len,
                            rpc->allocated - rpc->len);
        }
        if (n > 0) {
            rpc->len += n;
            rpc->received_bytes += n;
            total_received[rpc->transport] += n;
            rpc->last_input_msec = time_msec();
            n_read += n;
        } else if (n == -EAGAIN) {
            if (!rpc->len && rpc->input
                && time_msec() - rpc->last_input_msec >= IDLE_INPUT_MSEC) {
                /* Nothing buffered, nothing read for a while: an idle
                 * connection keeps no input buffer (1,000 idle clients
                 * kept 4 MB).  Not at once: freed and allocated again
                 * between the requests of busy clients, the buffers
                 * fragmented glibc's heap (Insert: 14 MB more at peak). */
                free(rpc->input);
                rpc->input = NULL;
                rpc->allocated = 0;
            }
            return EAGAIN;
        } else if (!n) {
            if (rpc->len > rpc->start) {
                VLOG_WARN_RL(&rl, "%s: connection closed mid-message",
                             rpc->name);
            }
            jsonrpc_error(rpc, EOF, NULL);
        } else {
            VLOG_WARN_RL(&rl, "%s: receive error: %s", rpc->name,
                         ovs_strerror(-n));
            jsonrpc_error(rpc, -n, NULL);
        }
    }
    return rpc->status;
}

void
jsonrpc_recv_wait(struct jsonrpc *rpc)
{
    if (rpc->status || rpc->scan < rpc->len || rpc->read_more) {
        /* An error to report, unscanned input that may hold a message, or
         * a read budget spent with input left. */
        poll_immediate_wake();
    } else {
        stream_recv_wait(rpc->stream);
        if (rpc->input && !rpc->len) {
            /* Time to free the empty buffer (jsonrpc_recv()): an owner
             * that runs only what its wait asked for must be woken. */
            poll_timer_wait_until(rpc->last_input_msec + IDLE_INPUT_MSEC);
        }
    }
}

int
jsonrpc_send_block(struct jsonrpc *rpc, struct jsonrpc_msg *msg)
{
    int error = jsonrpc_send(rpc, msg);
    size_t total = jsonrpc_get_backlog(rpc);
    progress_begin("sending", total, PROGRESS_BYTES);
    while (!error) {
        jsonrpc_run(rpc);
        error = jsonrpc_get_status(rpc);
        if (error || !jsonrpc_get_backlog(rpc)) {
            break;
        }
        progress_update(total - jsonrpc_get_backlog(rpc));
        jsonrpc_wait(rpc);
        poll_block();
    }
    progress_end();
    return error;
}

int
jsonrpc_recv_block(struct jsonrpc *rpc, struct jsonrpc_msg **msgp)
{
    progress_begin("receiving", 0, PROGRESS_BYTES);
    for (;;) {
        int error = jsonrpc_recv(rpc, msgp);
        if (error != EAGAIN) {
            progress_end();
            return error;
        }
        /* The part of the next message received so far. */
        progress_update(rpc->len - rpc->start);
        jsonrpc_run(rpc);
        jsonrpc_wait(rpc);
        jsonrpc_recv_wait(rpc);
        poll_block();
    }
}

static bool
is_echo_request(const struct jsonrpc_msg *msg)
{
    return msg->type == JSONRPC_REQUEST && !strcmp(msg->method, "echo");
}

int
jsonrpc_transact_block(struct jsonrpc *rpc, struct jsonrpc_msg *request,
                       struct jsonrpc_msg **replyp)
{
    json_t *id = json_incref(request->id);
    struct jsonrpc_msg *reply = NULL;
    int error = jsonrpc_send_block(rpc, request);

    while (!error) {
        struct jsonrpc_msg *msg;
        error = jsonrpc_recv_block(rpc, &msg);
        if (error) {
            break;
        }
        if ((msg->type == JSONRPC_REPLY || msg->type == JSONRPC_ERROR)
            && json_equal(msg->id, id)) {
            reply = msg;
            break;
        }
        if (is_echo_request(msg)) {
            error = jsonrpc_send_block(
                rpc, jsonrpc_create_reply(json_incref(msg->params), msg->id));
        }
        jsonrpc_msg_destroy(msg);
    }
    json_decref(id);
    *replyp = reply;
    return error;
}

/* Sessions. */

struct jsonrpc_session {
    struct reconnect *reconnect;
    char *name;                 /* Remote, e.g. "tcp:1.2.3.4:5". */
    struct jsonrpc *rpc;
    struct stream *stream;      /* Connecting. */
    struct pstream *pstream;    /* Listening, for passive names. */
    unsigned int seqno;
    unsigned long long last_received; /* 'rpc''s received bytes. */
    size_t max_msg_size;
    int max_depth;
    const char *lazy_method;
    size_t lazy_min_size;
};

static struct jsonrpc_session *
session_create(const char *name)
{
    struct jsonrpc_session *s = xzalloc(sizeof *s);
    s->name = xstrdup(name);
    s->reconnect = reconnect_create(time_msec());
    reconnect_set_name(s->reconnect, name);
    s->max_msg_size = JSONRPC_DEFAULT_MAX_MSG_SIZE;
    s->max_depth = JSONRPC_DEFAULT_MAX_DEPTH;
    return s;
}

struct jsonrpc_session *
jsonrpc_session_open(const char *name, bool retry)
{
    struct jsonrpc_session *s = session_create(name);
    long long now = time_msec();
    bool passive = !pstream_verify_name(name);

    reconnect_set_passive(s->reconnect, passive, now);
    reconnect_enable(s->reconnect, now);
    if (!retry) {
        reconnect_set_max_tries(s->reconnect, 1);
    }
    int probe = (stream_name_needs_probes(name)
                     ? RECONNECT_DEFAULT_PROBE_INTERVAL
                     : 0);
    jsonrpc_session_set_probe_interval(s, probe);
    return s;
}

struct jsonrpc_session *
jsonrpc_session_open_unreliably(struct jsonrpc *rpc)
{
    struct jsonrpc_session *s = session_create(jsonrpc_get_name(rpc));
    long long now = time_msec();

    reconnect_set_max_tries(s->reconnect, 0);
    int probe = (stream_needs_probes(jsonrpc_get_stream(rpc))
                     ? RECONNECT_DEFAULT_PROBE_INTERVAL
                     : 0);
    jsonrpc_session_set_probe_interval(s, probe);
    reconnect_connected(s->reconnect, now);
    s->rpc = rpc;
    return s;
}

static void
session_disconnect(struct jsonrpc_session *s)
{
    if (s->rpc) {
        jsonrpc_close(s->rpc);
        s->rpc = NULL;
    } else if (s->stream) {
        stream_close(s->stream);
        s->stream = NULL;
    }
}

void
jsonrpc_session_close(struct jsonrpc_session *s)
{
    if (s) {
        session_disconnect(s);
        pstream_close(s->pstream);
        reconnect_destroy(s->reconnect);
        free(s->name);
        free(s);
    }
}

static void
session_connected(struct jsonrpc_session *s, struct stream *stream)
{
    s->rpc = jsonrpc_open(stream);
    jsonrpc_set_limits(s->rpc, s->max_msg_size, s->max_depth);
    jsonrpc_set_lazy_params(s->rpc, s->lazy_method, s->lazy_min_size);
    s->last_received = 0;
    reconnect_connected(s->reconnect, time_msec());
}

/* The peer took some of our queued output: it is alive even if we are not
 * reading what it sends (its owner may have stopped reading until the
 * backlog drains), so the inactivity probe must not drop it. */
static void
note_output_progress(struct jsonrpc_session *s)
{
    reconnect_activity(s->reconnect, time_msec());
}

static void
session_connect(struct jsonrpc_session *s)
{
    long long now = time_msec();
    int error;

    session_disconnect(s);
    if (!pstream_verify_name(s->name)) {
        error = s->pstream ? 0 : pstream_open(s->name, &s->pstream);
        if (!error) {
            reconnect_connecting(s->reconnect, now);
            return;
        }
    } else {
        error = stream_open(s->name, &s->stream);
        if (!error) {
            reconnect_connecting(s->reconnect, now);
            return;
        }
    }
    reconnect_connecting(s->reconnect, now);
    reconnect_connect_failed(s->reconnect, now, error);
}

void
jsonrpc_session_run(struct jsonrpc_session *s)
{
    long long now = time_msec();

    if (s->pstream) {
        struct stream *stream;
        int error = pstream_accept(s->pstream, &stream);
        if (!error) {
            if (s->rpc || s->stream) {
                VLOG_INFO("%s: new connection replacing active connection",
                          s->name);
                reconnect_disconnected(s->reconnect, now, 0);
                session_disconnect(s);
            }
            session_connected(s, stream);
        } else if (error != EAGAIN) {
            reconnect_connect_failed(s->reconnect, now, error);
            pstream_close(s->pstream);
            s->pstream = NULL;
        }
    }

    if (s->rpc) {
        size_t backlog = jsonrpc_get_backlog(s->rpc);
        jsonrpc_run(s->rpc);
        int error = jsonrpc_get_status(s->rpc);
        if (error) {
            reconnect_disconnected(s->reconnect, now, error);
            session_disconnect(s);
        } else if (jsonrpc_get_backlog(s->rpc) < backlog) {
            note_output_progress(s);
        }
    } else if (s->stream) {
        stream_run(s->stream);
        int error = stream_connect(s->stream);
        if (!error) {
            struct stream *stream = s->stream;
            s->stream = NULL;
            session_connected(s, stream);
        } else if (error != EAGAIN) {
            reconnect_connect_failed(s->reconnect, now, error);
            stream_close(s->stream);
            s->stream = NULL;
        }
    }

    switch (reconnect_run(s->reconnect, now)) {
    case RECONNECT_CONNECT:
        session_connect(s);
        break;
    case RECONNECT_DISCONNECT:
        reconnect_disconnected(s->reconnect, now, 0);
        session_disconnect(s);
        break;
    case RECONNECT_PROBE:
        if (s->rpc) {
            struct jsonrpc_msg *probe = jsonrpc_create_request(
                "echo", json_array(), NULL);
            json_decref(probe->id);
            probe->id = json_string("echo");
            jsonrpc_send(s->rpc, probe);
        }
        break;
    case RECONNECT_NONE:
        break;
    }
}

void
jsonrpc_session_flush(struct jsonrpc_session *s)
{
    size_t backlog = s->rpc && !s->rpc->status
                     ? jsonrpc_get_backlog(s->rpc) : 0;
    if (backlog) {
        flush_output(s->rpc);
        if (jsonrpc_get_backlog(s->rpc) < backlog) {
            note_output_progress(s);
        }
    }
}

void
jsonrpc_session_wait(struct jsonrpc_session *s)
{
    if (s->rpc) {
        jsonrpc_wait(s->rpc);
    } else if (s->stream) {
        stream_run_wait(s->stream);
        stream_connect_wait(s->stream);
    }
    if (s->pstream) {
        pstream_wait(s->pstream);
    }
    reconnect_wait(s->reconnect, time_msec());
}

struct jsonrpc_msg *
jsonrpc_session_recv(struct jsonrpc_session *s)
{
    if (!s->rpc) {
        return NULL;
    }

    /* One message per call, even one handled here: a peer that floods us
     * with "echo" requests must not keep its owner busy for as long as it
     * keeps sending, nor grow the replies it does not read past whatever
     * backlog limit the owner checks between calls. */
    struct jsonrpc_msg *msg;
    jsonrpc_recv(s->rpc, &msg);
    unsigned long long received = jsonrpc_get_received_bytes(s->rpc);
    if (received != s->last_received) {
        s->last_received = received;
        reconnect_activity(s->reconnect, time_msec());
    }
    if (msg && is_echo_request(msg)) {
        jsonrpc_session_send(s, jsonrpc_create_reply(
                                    json_incref(msg->params), msg->id));
    } else if (msg && msg->type == JSONRPC_REPLY && json_is_string(msg->id)
               && !strcmp(json_string_value(msg->id), "echo")) {
        /* Reply to our inactivity probe: activity noted above. */
    } else {
        return msg;
    }
    jsonrpc_msg_destroy(msg);
    return NULL;
}

void
jsonrpc_session_recv_wait(struct jsonrpc_session *s)
{
    if (s->rpc) {
        jsonrpc_recv_wait(s->rpc);
    }
}

int
jsonrpc_session_send(struct jsonrpc_session *s, struct jsonrpc_msg *msg)
{
    if (!s->rpc) {
        jsonrpc_msg_destroy(msg);
        return ENOTCONN;
    }
    return jsonrpc_send(s->rpc, msg);
}

int
jsonrpc_session_send_raw(struct jsonrpc_session *s, const struct iovec *iov,
                         int n_iov)
{
    return s->rpc ? jsonrpc_send_raw(s->rpc, iov, n_iov) : ENOTCONN;
}

int
jsonrpc_session_send_shared(struct jsonrpc_session *s,
                            const struct iovec *head, int n_head,
                            struct refbuf *body, const struct iovec *tail,
                            int n_tail)
{
    return s->rpc
               ? jsonrpc_send_shared(s->rpc, head, n_head, body, tail, n_tail)
               : ENOTCONN;
}

struct jsonrpc *
jsonrpc_session_get_rpc(const struct jsonrpc_session *s)
{
    return s->rpc;
}

size_t
jsonrpc_session_get_backlog(const struct jsonrpc_session *s)
{
    return s->rpc ? jsonrpc_get_backlog(s->rpc) : 0;
}

const char *
jsonrpc_session_get_name(const struct jsonrpc_session *s)
{
    return s->name;
}

bool
jsonrpc_session_is_alive(const struct jsonrpc_session *s)
{
    return (s->rpc || s->stream || s->pstream
            || !reconnect_is_exhausted(s->reconnect));
}

bool
jsonrpc_session_is_connected(const struct jsonrpc_session *s)
{
    return s->rpc != NULL;
}

bool
jsonrpc_session_is_handshaking(const struct jsonrpc_session *s)
{
    if (s->stream) {
        return true;
    }
    return s->rpc && stream_is_connecting(jsonrpc_get_stream(s->rpc));
}

unsigned int
jsonrpc_session_get_seqno(const struct jsonrpc_session *s)
{
    return reconnect_get_seqno(s->reconnect);
}

int
jsonrpc_session_get_last_error(const struct jsonrpc_session *s)
{
    return reconnect_get_last_error(s->reconnect);
}

void
jsonrpc_session_get_reconnect_stats(const struct jsonrpc_session *s,
                                    struct reconnect_stats *stats)
{
    reconnect_get_stats(s->reconnect, time_msec(), stats);
}

void
jsonrpc_session_force_reconnect(struct jsonrpc_session *s)
{
    reconnect_force_reconnect(s->reconnect, time_msec());
}

void
jsonrpc_session_set_backoff(struct jsonrpc_session *s, int min_backoff,
                            int max_backoff)
{
    reconnect_set_backoff(s->reconnect, min_backoff, max_backoff);
}

void
jsonrpc_session_set_probe_interval(struct jsonrpc_session *s,
                                   int probe_interval)
{
    if (replay_is_active()) {
        /* Every probe interval comes through here.  Probes go by the
         * clock, which a replay does not reproduce (lib/replay.h). */
        probe_interval = 0;
    }
    reconnect_set_probe_interval(s->reconnect, probe_interval);
}

void
jsonrpc_session_set_limits(struct jsonrpc_session *s, size_t max_msg_size,
                           int max_depth)
{
    s->max_msg_size = max_msg_size;
    s->max_depth = max_depth;
    if (s->rpc) {
        jsonrpc_set_limits(s->rpc, max_msg_size, max_depth);
    }
}

void
jsonrpc_session_set_lazy_params(struct jsonrpc_session *s, const char *method,
                                size_t min_size)
{
    s->lazy_method = method;
    s->lazy_min_size = min_size;
    if (s->rpc) {
        jsonrpc_set_lazy_params(s->rpc, method, min_size);
    }
}
