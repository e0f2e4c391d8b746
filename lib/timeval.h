/* lib/timeval.h: clocks in milliseconds.
 *
 * time_msec() is monotonic: use it for timeouts, back-off and probes.
 * time_wall_msec() is the wall clock: use it only for what humans read
 * (log timestamps).  Both are cheap (vDSO clock_gettime()), so they are
 * read afresh on every call; nothing is cached. */
#ifndef LIB_TIMEVAL_H
#define LIB_TIMEVAL_H 1

#include <time.h>

/* Milliseconds on the monotonic clock, from an arbitrary origin. */
long long time_msec(void);

/* Microseconds on the monotonic clock: for durations shorter than a
 * millisecond tells (a commit's fsync, say). */
long long time_usec(void);

/* Seconds on the monotonic clock. */
time_t time_now(void);

/* Milliseconds since the Unix epoch (wall clock, may jump). */
long long time_wall_msec(void);

/* Seconds since the Unix epoch (wall clock). */
time_t time_wall(void);

#endif /* lib/timeval.h */
