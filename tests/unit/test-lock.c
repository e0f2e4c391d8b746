/* tests/unit/test-lock.c: the lock queue of ovsdb/lock. */
#include <config.h>

#include "ovsdb/lock.h"
#include "tests/unit/check.h"

static int a, b, c;                     /* Their addresses are sessions. */

int
main(void)
{
    struct ovsdb_lock_server *ls = ovsdb_lock_server_create();
    void *victim;

    /* First locker owns; second waits. */
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

    /* A waiter that leaves changes no owner. */
    CHECK(ovsdb_lock_waiter_remove(wb) == NULL);
    CHECK(ovsdb_lock_server_is_owner(ls, "L", &a));

    /* Steal: the thief owns at once, the victim is next in line. */
    wb = ovsdb_lock_server_lock(ls, "L", &b, OVSDB_LOCK_WAIT, &victim);
    struct ovsdb_lock_waiter *wc = ovsdb_lock_server_lock(
        ls, "L", &c, OVSDB_LOCK_STEAL, &victim);
    CHECK(victim == &a);
    CHECK(ovsdb_lock_waiter_is_owner(wc));
    CHECK(!ovsdb_lock_waiter_is_owner(wa));
    CHECK(ovsdb_lock_waiter_remove(wc) == &a);
    CHECK(ovsdb_lock_waiter_is_owner(wa));
    CHECK(ovsdb_lock_waiter_remove(wa) == &b);
    CHECK(ovsdb_lock_server_is_owner(ls, "L", &b));

    /* Stealing a free lock has no victim; the last one out frees it. */
    wa = ovsdb_lock_server_lock(ls, "M", &a, OVSDB_LOCK_STEAL, &victim);
    CHECK(victim == NULL);
    CHECK_INTEQ(ovsdb_lock_server_count(ls), 2);
    CHECK(ovsdb_lock_waiter_remove(wa) == NULL);
    CHECK(ovsdb_lock_waiter_remove(wb) == NULL);
    CHECK_INTEQ(ovsdb_lock_server_count(ls), 0);
    CHECK(ovsdb_lock_waiter_remove(NULL) == NULL);

    /* Destroy with waiters still queued frees them (valgrind checks). */
    ovsdb_lock_server_lock(ls, "N", &a, OVSDB_LOCK_WAIT, &victim);
    ovsdb_lock_server_lock(ls, "N", &b, OVSDB_LOCK_WAIT, &victim);
    ovsdb_lock_server_destroy(ls);
    ovsdb_lock_server_destroy(NULL);
    return check_report("test-lock");
}
