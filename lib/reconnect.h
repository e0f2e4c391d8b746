/* lib/reconnect.h: the connection state machine behind jsonrpc_session.
 *
 * It performs no I/O.  The owner tells it what happened
 * (reconnect_connecting(), _connected(), _connect_failed(),
 * _disconnected(), _activity()) and asks it what to do next with
 * reconnect_run(), which returns an action: connect now, drop the
 * connection, or send an inactivity probe.  Times are time_msec() values
 * passed in by the caller, so tests can drive it with a fake clock.
 *
 * Back-off: after a failure it waits 'min_backoff' msec, doubling on each
 * further failure up to 'max_backoff'; a connection that stays up for a
 * while resets it.  Probe: with 'probe_interval' > 0, after that long
 * without activity it asks for a probe; after as long again, a
 * disconnect. */
#ifndef LIB_RECONNECT_H
#define LIB_RECONNECT_H 1

#include <stdbool.h>

#define RECONNECT_DEFAULT_MIN_BACKOFF 1000
#define RECONNECT_DEFAULT_MAX_BACKOFF 8000
#define RECONNECT_DEFAULT_PROBE_INTERVAL 5000

struct reconnect;

/* Returns a new machine, disabled (it asks for nothing until
 * reconnect_enable()); caller must free with reconnect_destroy(). */
struct reconnect *reconnect_create(long long now);
void reconnect_destroy(struct reconnect *);   /* NULL is fine. */

void reconnect_set_name(struct reconnect *, const char *name);  /* Logs. */
void reconnect_set_backoff(struct reconnect *, int min_backoff,
                           int max_backoff);
void reconnect_set_probe_interval(struct reconnect *, int probe_interval);
int reconnect_get_probe_interval(const struct reconnect *);
/* Limits connection attempts ('max_tries' 0: none left; UINT_MAX:
 * unlimited, the default). */
void reconnect_set_max_tries(struct reconnect *, unsigned int max_tries);
/* Passive machines listen instead of connecting. */
void reconnect_set_passive(struct reconnect *, bool passive, long long now);

void reconnect_enable(struct reconnect *, long long now);
void reconnect_disable(struct reconnect *, long long now);
/* Drops a live connection (or waits out back-off) and then reconnects. */
void reconnect_force_reconnect(struct reconnect *, long long now);

/* Events. */
void reconnect_connecting(struct reconnect *, long long now);
void reconnect_connected(struct reconnect *, long long now);
void reconnect_connect_failed(struct reconnect *, long long now, int error);
void reconnect_disconnected(struct reconnect *, long long now, int error);
/* Something was received: resets the probe timer. */
void reconnect_activity(struct reconnect *, long long now);

enum reconnect_action {
    RECONNECT_NONE,
    RECONNECT_CONNECT,      /* Start connecting (or listening). */
    RECONNECT_DISCONNECT,   /* Drop the connection (probe unanswered or
                             * connect timed out). */
    RECONNECT_PROBE         /* Send a probe ("echo"). */
};

enum reconnect_action reconnect_run(struct reconnect *, long long now);
/* Wakes poll_block() when reconnect_run() will have something to do. */
void reconnect_wait(struct reconnect *, long long now);
/* Msec until reconnect_run() has something to do, or -1 (never). */
int reconnect_timeout(const struct reconnect *, long long now);

bool reconnect_is_enabled(const struct reconnect *);
bool reconnect_is_connected(const struct reconnect *);
/* True once max tries are used up and not connected. */
bool reconnect_is_exhausted(const struct reconnect *);
int reconnect_get_last_error(const struct reconnect *);
/* Changes each time the machine connects or disconnects. */
unsigned int reconnect_get_seqno(const struct reconnect *);
/* Current back-off in msec (0 before the first failure). */
int reconnect_get_backoff(const struct reconnect *);

/* What a server reports of a connection (Open vSwitch's names). */
struct reconnect_stats {
    const char *state;                  /* "ACTIVE", "BACKOFF", ... */
    unsigned int msec_since_connect;    /* UINT_MAX: never connected. */
    unsigned int msec_since_disconnect; /* UINT_MAX: never disconnected. */
};
void reconnect_get_stats(const struct reconnect *, long long now,
                         struct reconnect_stats *);

#endif /* lib/reconnect.h */
