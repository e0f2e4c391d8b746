/* tests/unit/lib/test-reconnect.c: the reconnect state machine on a fake
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

/* Disabled: asks for nothing. */
static void
test_disabled(void)
{
    struct reconnect *r = reconnect_create(0);
    CHECK_INTEQ(reconnect_run(r, 100000), RECONNECT_NONE);
    CHECK_INTEQ(reconnect_timeout(r, 0), -1);
    reconnect_destroy(r);
}

/* Enables 'r' at 0 and fails its attempts until the back-off is at its
 * 8 s maximum; returns when the next attempt is due. */
static long long
back_off(struct reconnect *r)
{
    reconnect_enable(r, 0);
    long long t = 0;
    for (int i = 0; i < 5; i++) {
        t = fail_attempt(r, t);
    }
    return t;
}

/* First attempt at once, then 1, 2, 4, 8, 8 seconds apart. */
static void
test_backoff(void)
{
    struct reconnect *r = reconnect_create(0);
    reconnect_enable(r, 0);
    long long t = 0;
    long long expected[] = { 1000, 2000, 4000, 8000, 8000 };
    for (size_t i = 0; i < ARRAY_SIZE(expected); i++) {
        long long next = fail_attempt(r, t);
        CHECK_INTEQ(next - t, expected[i]);
        t = next;
    }
    CHECK_INTEQ(reconnect_get_last_error(r), ECONNREFUSED);
    reconnect_destroy(r);
}

/* Connect: seqno changes; probes after 5 s idle; an unanswered probe
 * disconnects, and a connection that lasted longer than the back-off
 * resets it to 1 s. */
static void
test_probes(void)
{
    struct reconnect *r = reconnect_create(0);
    long long t = back_off(r);

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
    CHECK_INTEQ(reconnect_get_backoff(r), 1000);
    t += 18500;
    CHECK_INTEQ(reconnect_timeout(r, t), 1000);
    reconnect_destroy(r);
}

/* Probes disabled: a quiet connection stays up until a forced
 * reconnect. */
static void
test_no_probes_and_force(void)
{
    struct reconnect *r = reconnect_create(0);
    long long t = back_off(r);

    reconnect_set_probe_interval(r, 0);
    CHECK_INTEQ(reconnect_run(r, t), RECONNECT_CONNECT);
    reconnect_connecting(r, t);
    reconnect_connected(r, t);
    CHECK_INTEQ(reconnect_run(r, t + 1000000), RECONNECT_NONE);

    reconnect_force_reconnect(r, t + 10);
    CHECK_INTEQ(reconnect_run(r, t + 10), RECONNECT_DISCONNECT);
    reconnect_disconnected(r, t + 10, 0);
    CHECK(!reconnect_is_connected(r));
    reconnect_destroy(r);
}

/* A connect that never completes times out. */
static void
test_connect_timeout(void)
{
    struct reconnect *r = reconnect_create(0);
    long long t = back_off(r);

    CHECK_INTEQ(reconnect_run(r, t), RECONNECT_CONNECT);
    reconnect_connecting(r, t);
    CHECK_INTEQ(reconnect_run(r, t + 999), RECONNECT_NONE);
    CHECK(reconnect_run(r, t + 100000) == RECONNECT_DISCONNECT);
    reconnect_destroy(r);
}

/* One try only: a failure exhausts and disables it. */
static void
test_max_tries(void)
{
    struct reconnect *r = reconnect_create(0);
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
}

static const struct check_case cases[] = {
    CHECK_CASE(test_disabled),        CHECK_CASE(test_backoff),
    CHECK_CASE(test_probes),          CHECK_CASE(test_no_probes_and_force),
    CHECK_CASE(test_connect_timeout), CHECK_CASE(test_max_tries),
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);
    return check_main(argc, argv, "test-reconnect", cases, ARRAY_SIZE(cases));
}
