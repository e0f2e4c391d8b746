/* lib/reconnect.c: see reconnect.h. */
#include <config.h>
#include "lib/reconnect.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "lib/allocator.h"
#include "lib/poll-loop.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(reconnect);

enum reconnect_state {
    S_VOID,         /* Disabled, or no tries left. */
    S_BACKOFF,      /* Waiting 'backoff' msec before connecting. */
    S_CONNECTING,   /* Connect in progress. */
    S_ACTIVE,       /* Connected, traffic seen recently. */
    S_IDLE,         /* Connected, probe sent, waiting for traffic. */
    S_RECONNECT,    /* Forced reconnect: disconnect at once. */
    S_LISTENING     /* Passive, listening for a connection. */
};

struct reconnect {
    char *name;
    int min_backoff, max_backoff;
    int probe_interval;
    bool passive;
    unsigned int max_tries;     /* UINT_MAX: unlimited. */

    enum reconnect_state state;
    long long state_entered;
    int backoff;
    long long last_activity;
    long long last_connected;
    long long last_disconnected; /* LLONG_MIN: never. */
    int last_error;
    unsigned int seqno;
};

struct reconnect *
reconnect_create(long long now)
{
    struct reconnect *r = xzalloc(sizeof *r);
    r->name = xstrdup("void");
    r->min_backoff = RECONNECT_DEFAULT_MIN_BACKOFF;
    r->max_backoff = RECONNECT_DEFAULT_MAX_BACKOFF;
    r->probe_interval = RECONNECT_DEFAULT_PROBE_INTERVAL;
    r->max_tries = UINT_MAX;
    r->state = S_VOID;
    r->state_entered = now;
    r->last_activity = now;
    r->last_disconnected = LLONG_MIN;
    return r;
}

void
reconnect_destroy(struct reconnect *r)
{
    if (r) {
        free(r->name);
        free(r);
    }
}

void
reconnect_set_name(struct reconnect *r, const char *name)
{
    free(r->name);
    r->name = xstrdup(name ? name : "void");
}

void
reconnect_set_backoff(struct reconnect *r, int min_backoff, int max_backoff)
{
    r->min_backoff = MAX(min_backoff, 1000);
    r->max_backoff = MAX(max_backoff, r->min_backoff);
    if (r->state == S_BACKOFF && r->backoff > r->max_backoff) {
        r->backoff = r->max_backoff;
    }
}

void
reconnect_set_probe_interval(struct reconnect *r, int probe_interval)
{
    r->probe_interval = probe_interval > 0 ? MAX(1000, probe_interval) : 0;
}

int
reconnect_get_probe_interval(const struct reconnect *r)
{
    return r->probe_interval;
}

void
reconnect_set_max_tries(struct reconnect *r, unsigned int max_tries)
{
    r->max_tries = max_tries;
}

static void
transition(struct reconnect *r, long long now, enum reconnect_state state)
{
    if (state == S_ACTIVE && r->state != S_ACTIVE && r->state != S_IDLE) {
        r->seqno++;
        r->last_connected = now;
    } else if ((r->state == S_ACTIVE || r->state == S_IDLE)
               && state != S_ACTIVE && state != S_IDLE) {
        r->seqno++;
        r->last_disconnected = now;
    }
    r->state = state;
    r->state_entered = now;
}

static const char *
state_name(enum reconnect_state state)
{
    switch (state) {
    case S_VOID:
        return "VOID";
    case S_BACKOFF:
        return "BACKOFF";
    case S_CONNECTING:
        return "CONNECTING";
    case S_ACTIVE:
        return "ACTIVE";
    case S_IDLE:
        return "IDLE";
    case S_RECONNECT:
        return "RECONNECT";
    case S_LISTENING:
        return "LISTENING";
    }
    return "UNKNOWN";
}

/* Msec from 'then' to 'now', or UINT_MAX if 'then' is LLONG_MIN. */
static unsigned int
msec_since(long long then, long long now)
{
    return (then == LLONG_MIN        ? UINT_MAX
            : now - then >= UINT_MAX ? UINT_MAX - 1
                                     : (unsigned int) (now - then));
}

void
reconnect_get_stats(const struct reconnect *r, long long now,
                    struct reconnect_stats *stats)
{
    stats->state = state_name(r->state);
    stats->msec_since_connect = (r->seqno ? msec_since(r->last_connected, now)
                                          : UINT_MAX);
    stats->msec_since_disconnect = msec_since(r->last_disconnected, now);
}

void
reconnect_set_passive(struct reconnect *r, bool passive, long long now)
{
    if (r->passive != passive) {
        r->passive = passive;
        if (passive ? r->state == S_CONNECTING : r->state == S_LISTENING) {
            transition(r, now, S_BACKOFF);
            r->backoff = 0;
        }
    }
}

void
reconnect_enable(struct reconnect *r, long long now)
{
    if (r->state == S_VOID && r->max_tries > 0) {
        r->backoff = 0;
        transition(r, now, S_BACKOFF);
    }
}

void
reconnect_disable(struct reconnect *r, long long now)
{
    if (r->state != S_VOID) {
        transition(r, now, S_VOID);
    }
}

void
reconnect_force_reconnect(struct reconnect *r, long long now)
{
    if (r->state == S_CONNECTING || r->state == S_ACTIVE
        || r->state == S_IDLE) {
        transition(r, now, S_RECONNECT);
    }
}

void
reconnect_connecting(struct reconnect *r, long long now)
{
    if (r->max_tries != UINT_MAX && r->max_tries > 0) {
        r->max_tries--;
    }
    VLOG_DBG("%s: %s...", r->name,
             r->passive ? "listening" : "connecting");
    transition(r, now, r->passive ? S_LISTENING : S_CONNECTING);
}

void
reconnect_connected(struct reconnect *r, long long now)
{
    if (r->state != S_ACTIVE && r->state != S_IDLE) {
        VLOG_DBG("%s: connected", r->name);
        r->last_activity = now;
        transition(r, now, S_ACTIVE);
    }
}

void
reconnect_connect_failed(struct reconnect *r, long long now, int error)
{
    VLOG_DBG("%s: connection attempt failed (%s)", r->name,
             ovs_strerror(error));
    reconnect_disconnected(r, now, error);
}

void
reconnect_disconnected(struct reconnect *r, long long now, int error)
{
    if (r->state == S_VOID || (r->state == S_BACKOFF && !error)) {
        return;
    }
    r->last_error = error;

    bool was_connected = r->state == S_ACTIVE || r->state == S_IDLE;
    if (was_connected
        && (now - r->last_connected >= r->backoff || r->passive)) {
        /* The connection stayed up long enough: start over. */
        r->backoff = r->passive ? 0 : r->min_backoff;
    } else if (r->backoff < r->min_backoff) {
        r->backoff = r->min_backoff;
    } else if (r->backoff < r->max_backoff / 2) {
        r->backoff *= 2;
    } else {
        r->backoff = r->max_backoff;
    }

    if (was_connected) {
        if (error > 0) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(60, 60);
            VLOG_WARN_RL(&rl, "%s: connection dropped (%s)", r->name,
                         ovs_strerror(error));
        } else {
            VLOG_DBG("%s: connection closed%s", r->name,
                     error == EOF ? " by peer" : "");
        }
    }
    transition(r, now, r->max_tries ? S_BACKOFF : S_VOID);
}

void
reconnect_activity(struct reconnect *r, long long now)
{
    if (r->state == S_IDLE) {
        transition(r, now, S_ACTIVE);
    }
    r->last_activity = now;
}

/* Returns when the current state's timer expires, or LLONG_MAX. */
static long long
deadline(const struct reconnect *r)
{
    switch (r->state) {
    case S_BACKOFF:
        return r->state_entered + r->backoff;
    case S_CONNECTING:
        return r->state_entered + MAX(1000, r->backoff);
    case S_ACTIVE:
        if (r->probe_interval) {
            return MAX(r->last_activity, r->state_entered)
                   + r->probe_interval;
        }
        return LLONG_MAX;
    case S_IDLE:
        return r->probe_interval ? r->state_entered + r->probe_interval
                                 : LLONG_MAX;
    case S_RECONNECT:
        return r->state_entered;
    case S_VOID:
    case S_LISTENING:
    default:
        return LLONG_MAX;
    }
}

enum reconnect_action
reconnect_run(struct reconnect *r, long long now)
{
    if (now < deadline(r)) {
        return RECONNECT_NONE;
    }
    switch (r->state) {
    case S_BACKOFF:
        return RECONNECT_CONNECT;
    case S_CONNECTING:
        return RECONNECT_DISCONNECT;
    case S_ACTIVE:
        VLOG_DBG("%s: idle %lld ms, sending inactivity probe", r->name,
                 now - r->last_activity);
        transition(r, now, S_IDLE);
        return RECONNECT_PROBE;
    case S_IDLE:
        VLOG_ERR("%s: no response to inactivity probe after %.3g seconds, "
                 "disconnecting", r->name, r->probe_interval / 1000.0);
        return RECONNECT_DISCONNECT;
    case S_RECONNECT:
        return RECONNECT_DISCONNECT;
    case S_VOID:
    case S_LISTENING:
    default:
        return RECONNECT_NONE;
    }
}

void
reconnect_wait(struct reconnect *r, long long now OVS_UNUSED)
{
    long long when = deadline(r);
    if (when != LLONG_MAX) {
        poll_timer_wait_until(when);
    }
}

int
reconnect_timeout(const struct reconnect *r, long long now)
{
    long long when = deadline(r);
    if (when == LLONG_MAX) {
        return -1;
    }
    long long msec = when - now;
    return msec <= 0 ? 0 : msec > INT_MAX ? INT_MAX : (int) msec;
}

bool
reconnect_is_enabled(const struct reconnect *r)
{
    return r->state != S_VOID;
}

bool
reconnect_is_connected(const struct reconnect *r)
{
    return r->state == S_ACTIVE || r->state == S_IDLE;
}

bool
reconnect_is_exhausted(const struct reconnect *r)
{
    return r->state == S_VOID && !r->max_tries;
}

int
reconnect_get_last_error(const struct reconnect *r)
{
    return r->last_error;
}

unsigned int
reconnect_get_seqno(const struct reconnect *r)
{
    return r->seqno;
}

int
reconnect_get_backoff(const struct reconnect *r)
{
    return r->backoff;
}
