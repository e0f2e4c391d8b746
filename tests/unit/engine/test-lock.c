/* tests/unit/engine/test-lock.c: the lock queue of ovsdb/engine/lock. */
#include <config.h>

#include "ovsdb/engine/lock.h"
#include "lib/util.h"
#include "tests/unit/check.h"

static int a, b, c;                     /* Their addresses are sessions. */

/* First locker owns; second waits; a waiter that leaves changes no
 * owner. */
static void
test_wait(void)
{
    struct ovsdb_lock_server *ls = ovsdb_lock_server_create();
    void *victim;

    struct ovsdb_lock_waiter *wa = ovsdb_lock_server_lock(
        ls, "L", &a, OVSDB_LOCK_WAIT, &victim);
    CHECK(victim == NULL);
    CHECK(ovsdb_lock_waiter_is_owner(wa));
    struct ovsdb_lock_waiter *wb = ovsdb_lock_server_lock(
        ls, "L", &b, OVSDB_LOCK_WAIT, &victim);
    CHECK(!ovsdb_lock_waiter_is_owner(wb));
    CHECK(ovsdb_lock_server_is_owner(ls, "L", &a));
    CHECK(!ovsdb_lock_server_is_owner(ls, "L", &b));
    CHECK(ovsdb_lock_server_find_waiter(ls, "L", &b) == wb);
    CHECK(ovsdb_lock_server_find_waiter(ls, "L", &c) == NULL);
    CHECK(ovsdb_lock_server_find_waiter(ls, "M", &a) == NULL);
    CHECK_STREQ(ovsdb_lock_waiter_get_name(wb), "L");
    CHECK_INTEQ(ovsdb_lock_server_count(ls), 1);

    CHECK(ovsdb_lock_waiter_remove(wb) == NULL);
    CHECK(ovsdb_lock_server_is_owner(ls, "L", &a));

    CHECK(ovsdb_lock_waiter_remove(wa) == NULL);
    CHECK_INTEQ(ovsdb_lock_server_count(ls), 0);
    ovsdb_lock_server_destroy(ls);
}

/* Steal: the thief owns at once, the victim is next in line, and each
 * owner that leaves passes the lock on in order. */
static void
test_steal(void)
{
    struct ovsdb_lock_server *ls = ovsdb_lock_server_create();
    void *victim;

    struct ovsdb_lock_waiter *wa = ovsdb_lock_server_lock(ls, "L", &a,
                                                          OVSDB_LOCK_WAIT,
                                                          &victim);
    struct ovsdb_lock_waiter *wb = ovsdb_lock_server_lock(ls, "L", &b,
                                                          OVSDB_LOCK_WAIT,
                                                          &victim);
    struct ovsdb_lock_waiter *wc = ovsdb_lock_server_lock(
        ls, "L", &c, OVSDB_LOCK_STEAL, &victim);
    CHECK(victim == &a);
    CHECK(ovsdb_lock_waiter_is_owner(wc));
    CHECK(!ovsdb_lock_waiter_is_owner(wa));
    CHECK(ovsdb_lock_waiter_remove(wc) == &a);
    CHECK(ovsdb_lock_waiter_is_owner(wa));
    CHECK(ovsdb_lock_waiter_remove(wa) == &b);
    CHECK(ovsdb_lock_server_is_owner(ls, "L", &b));
    CHECK(ovsdb_lock_waiter_remove(wb) == NULL);
    ovsdb_lock_server_destroy(ls);
}

/* Stealing a free lock has no victim; the last one out frees it. */
static void
test_steal_free_lock(void)
{
    struct ovsdb_lock_server *ls = ovsdb_lock_server_create();
    void *victim;

    struct ovsdb_lock_waiter *wb = ovsdb_lock_server_lock(ls, "L", &b,
                                                          OVSDB_LOCK_WAIT,
                                                          &victim);
    struct ovsdb_lock_waiter *wa = ovsdb_lock_server_lock(ls, "M", &a,
                                                          OVSDB_LOCK_STEAL,
                                                          &victim);
    CHECK(victim == NULL);
    CHECK_INTEQ(ovsdb_lock_server_count(ls), 2);
    CHECK(ovsdb_lock_waiter_remove(wa) == NULL);
    CHECK(ovsdb_lock_waiter_remove(wb) == NULL);
    CHECK_INTEQ(ovsdb_lock_server_count(ls), 0);
    CHECK(ovsdb_lock_waiter_remove(NULL) == NULL);
    ovsdb_lock_server_destroy(ls);
}

/* Destroy with waiters still queued frees them (valgrind checks). */
static void
test_destroy_with_waiters(void)
{
    struct ovsdb_lock_server *ls = ovsdb_lock_server_create();
    void *victim;

    ovsdb_lock_server_lock(ls, "N", &a, OVSDB_LOCK_WAIT, &victim);
    ovsdb_lock_server_lock(ls, "N", &b, OVSDB_LOCK_WAIT, &victim);
    ovsdb_lock_server_destroy(ls);
    ovsdb_lock_server_destroy(NULL);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_wait),
    CHECK_CASE(test_steal),
    CHECK_CASE(test_steal_free_lock),
    CHECK_CASE(test_destroy_with_waiters),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-lock", cases, ARRAY_SIZE(cases));
}
