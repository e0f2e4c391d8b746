/* lib/timeval.c: see timeval.h. */
#include <config.h>
#include "lib/timeval.h"

#include <stdlib.h>

static long long
clock_msec(clockid_t clock)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts)) {
        abort();
    }
    return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long
time_msec(void)
{
    return clock_msec(CLOCK_MONOTONIC);
}

long long
time_usec(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts)) {
        abort();
    }
    return (long long) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

time_t
time_now(void)
{
    return time_msec() / 1000;
}

long long
time_wall_msec(void)
{
    return clock_msec(CLOCK_REALTIME);
}

time_t
time_wall(void)
{
    return time_wall_msec() / 1000;
}
