/* tests/unit/test-reconnect.c: the reconnect state machine on a fake
 * clock: back-off doubling and reset, probes, forced reconnects, tries. */
#include <config.h>
#include "lib/reconnect.h"

#include <errno.h>
#include <stdio.h>
#include "lib/util.h"
#include "lib/vlog.h"
#include "tests/unit/check.h"

/* Fails the connection attempt that is due at 'now': returns when the next
 * attempt is due. */
static long long
fail_attempt(struct reconnect *r, long long now)
{
    CHECK_INTEQ(reconnect_run(r, now - 1), RECONNECT_NONE);
    CHECK_INTEQ(reconnect_run(r, now), RECONNECT_CONNECT);
    reconnect_connecting(r, now);
    reconnect_connect_failed(r, now, ECONNREFUSED);
    CHECK(!reconnect_is_connected(r));
    return now + reconnect_timeout(r, now);
}

int
main(int argc OVS_UNUSED, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);

    /* Disabled: asks for nothing. */
    struct reconnect *r = reconnect_create(0);
    CHECK_INTEQ(reconnect_run(r, 100000), RECONNECT_NONE);
    CHECK_INTEQ(reconnect_timeout(r, 0), -1);

    /* First attempt at once, then 1, 2, 4, 8, 8 seconds apart. */
    reconnect_enable(r, 0);
    long long t = 0;
    long long expected[] = { 1000, 2000, 4000, 8000, 8000 };
    for (size_t i = 0; i < ARRAY_SIZE(expected); i++) {
        long long next = fail_attempt(r, t);
        CHECK_INTEQ(next - t, expected[i]);
        t = next;
    }
    CHECK_INTEQ(reconnect_get_last_error(r), ECONNREFUSED);

    /* Connect: seqno changes; probes after 5 s idle. */
    unsigned int seqno = reconnect_get_seqno(r);
    CHECK_INTEQ(reconnect_run(r, t), RECONNECT_CONNECT);
    reconnect_connecting(r, t);
    reconnect_connected(r, t);
    CHECK(reconnect_is_connected(r));
    CHECK(reconnect_get_seqno(r) != seqno);
    seqno = reconnect_get_seqno(r);

    CHECK_INTEQ(reconnect_run(r, t + 4999), RECONNECT_NONE);
    reconnect_activity(r, t + 3000);
    CHECK_INTEQ(reconnect_run(r, t + 7999), RECONNECT_NONE);
    CHECK_INTEQ(reconnect_run(r, t + 8000), RECONNECT_PROBE);
    /* Probe answered: idle timer restarts. */
    reconnect_activity(r, t + 8500);
    CHECK_INTEQ(reconnect_run(r, t + 13499), RECONNECT_NONE);
    CHECK_INTEQ(reconnect_run(r, t + 13500), RECONNECT_PROBE);
    /* Probe unanswered: disconnect 5 s later. */
    CHECK_INTEQ(reconnect_run(r, t + 18499), RECONNECT_NONE);
    CHECK_INTEQ(reconnect_run(r, t + 18500), RECONNECT_DISCONNECT);
    reconnect_disconnected(r, t + 18500, 0);
    CHECK(reconnect_get_seqno(r) != seqno);
    /* The connection lasted longer than the back-off: reset to 1 s. */
    CHECK_INTEQ(reconnect_get_backoff(r), 1000);
    t += 18500;
    CHECK_INTEQ(reconnect_timeout(r, t), 1000);

    /* Probes disabled: a quiet connection stays up. */
    reconnect_set_probe_interval(r, 0);
    t += 1000;
    CHECK_INTEQ(reconnect_run(r, t), RECONNECT_CONNECT);
    reconnect_connecting(r, t);
    reconnect_connected(r, t);
    CHECK_INTEQ(reconnect_run(r, t + 1000000), RECONNECT_NONE);

    /* Forced reconnect. */
    reconnect_force_reconnect(r, t + 10);
    CHECK_INTEQ(reconnect_run(r, t + 10), RECONNECT_DISCONNECT);
    reconnect_disconnected(r, t + 10, 0);
    CHECK(!reconnect_is_connected(r));

    /* A connect that never completes times out. */
    t += 100000;
    CHECK_INTEQ(reconnect_run(r, t), RECONNECT_CONNECT);
    reconnect_connecting(r, t);
    CHECK_INTEQ(reconnect_run(r, t + 999), RECONNECT_NONE);
    CHECK(reconnect_run(r, t + 100000) == RECONNECT_DISCONNECT);
    reconnect_destroy(r);

    /* One try only. */
    r = reconnect_create(0);
    reconnect_set_max_tries(r, 1);
    reconnect_enable(r, 0);
    CHECK_INTEQ(reconnect_run(r, 0), RECONNECT_CONNECT);
    reconnect_connecting(r, 0);
    reconnect_connect_failed(r, 0, ENOENT);
    CHECK(reconnect_is_exhausted(r));
    CHECK(!reconnect_is_enabled(r));
    CHECK_INTEQ(reconnect_run(r, 100000), RECONNECT_NONE);
    reconnect_destroy(r);
    reconnect_destroy(NULL);

    return check_report("test-reconnect");
}
