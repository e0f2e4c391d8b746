/* ovsdb/engine/lock.h: the named locks of RFC 7047 section 4.1.8-4.1.10.
 *
 * A lock server holds every lock by name.  Each lock has a queue of
 * waiters; the first waiter owns the lock.  A session asks with "lock"
 * (queued at the back), "steal" (queued at the front: it owns the lock at
 * once and the previous owner, the victim, is told "stolen" and stays
 * queued right behind) and gives up with "unlock" or by disconnecting.
 *
 * Sessions are opaque to this module: an owner is any pointer the caller
 * chooses ('session').  The module never sends anything; its functions
 * return which session gained or lost a lock so that the caller can send
 * the "locked" and "stolen" notifications.
 *
 *     w = ovsdb_lock_server_lock(ls, "L", sess, OVSDB_LOCK_WAIT, &victim);
 *     if (ovsdb_lock_waiter_is_owner(w)) ... reply {"locked": true}
 *     new_owner = ovsdb_lock_waiter_remove(w);    (on "unlock")
 */
#ifndef OVSDB_LOCK_H
#define OVSDB_LOCK_H 1

#include <stdbool.h>

struct ovsdb_lock_server;           /* Opaque: all locks by name. */
struct ovsdb_lock_waiter;           /* Opaque: one session in one queue. */

enum ovsdb_lock_mode {
    OVSDB_LOCK_WAIT,                /* "lock": wait for the lock. */
    OVSDB_LOCK_STEAL                /* "steal": take it now. */
};

/* Returns a new lock server; caller must free with
 * ovsdb_lock_server_destroy(), after every waiter is removed. */
struct ovsdb_lock_server *ovsdb_lock_server_create(void);
void ovsdb_lock_server_destroy(struct ovsdb_lock_server *); /* NULL ok. */

/* Queues 'session' on lock 'name' in 'mode', creating the lock if needed.
 * Returns the new waiter (owned by the lock server; give it back with
 * ovsdb_lock_waiter_remove()).  When stealing a lock owned by another
 * session, stores that session in '*victimp', else NULL.  The caller must
 * not queue the same session twice on one lock (check with
 * ovsdb_lock_server_find_waiter() first). */
struct ovsdb_lock_waiter *ovsdb_lock_server_lock(
    struct ovsdb_lock_server *, const char *name, void *session,
    enum ovsdb_lock_mode, void **victimp);

/* Returns 'session''s waiter on lock 'name', or NULL; borrowed (valid until
 * removed). */
struct ovsdb_lock_waiter *ovsdb_lock_server_find_waiter(
    const struct ovsdb_lock_server *, const char *name, const void *session);

/* Returns true if 'session' currently owns lock 'name'. */
bool ovsdb_lock_server_is_owner(const struct ovsdb_lock_server *,
                                const char *name, const void *session);

/* Returns the number of locks that have at least one waiter. */
unsigned int ovsdb_lock_server_count(const struct ovsdb_lock_server *);

/* Removes and frees 'waiter' (NULL is fine: returns NULL).  If 'waiter'
 * owned its lock and another session now owns it, returns that session
 * (to be told "locked"), else NULL.  Frees the lock once its queue is
 * empty. */
void *ovsdb_lock_waiter_remove(struct ovsdb_lock_waiter *waiter);

/* Returns true if 'name' may name a lock: an <id> of RFC 7047 section 3.1
 * (a letter or '_', then letters, digits or '_'), as the reference checks. */
bool ovsdb_lock_name_is_valid(const char *name);

bool ovsdb_lock_waiter_is_owner(const struct ovsdb_lock_waiter *);
const char *ovsdb_lock_waiter_get_name(const struct ovsdb_lock_waiter *);

#endif /* ovsdb/engine/lock.h */
