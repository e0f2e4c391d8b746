/* ovsdb/engine/lock.c: the named locks of RFC 7047.  See lock.h. */
#include <config.h>

#include "ovsdb/engine/lock.h"

#include <string.h>
#include "lib/allocator.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "ovsdb/engine/parser.h"

struct ovsdb_lock_server {
    struct hmap locks;              /* Contains "struct lock"s by name. */
};

/* One named lock: its waiters form a doubly linked queue, owner first. */
struct lock {
    struct hmap_node node;          /* In ovsdb_lock_server's 'locks'. */
    struct ovsdb_lock_server *server;
    char *name;
    struct ovsdb_lock_waiter *head; /* Owner; NULL never (freed instead). */
    struct ovsdb_lock_waiter *tail;
};

struct ovsdb_lock_waiter {
    struct lock *lock;
    void *session;
    struct ovsdb_lock_waiter *prev, *next;
};

struct ovsdb_lock_server *
ovsdb_lock_server_create(void)
{
    struct ovsdb_lock_server *ls = xmalloc(sizeof *ls);
    hmap_init(&ls->locks);
    return ls;
}

void
ovsdb_lock_server_destroy(struct ovsdb_lock_server *ls)
{
    if (ls) {
        struct lock *lock;
        HMAP_FOR_EACH_POP (lock, node, &ls->locks) {
            struct ovsdb_lock_waiter *w, *next;
            for (w = lock->head; w; w = next) {
                next = w->next;
                free(w);
            }
            free(lock->name);
            free(lock);
        }
        hmap_destroy(&ls->locks);
        free(ls);
    }
}

static struct lock *
find_lock(const struct ovsdb_lock_server *ls, const char *name)
{
    struct lock *lock;
    HMAP_FOR_EACH_WITH_HASH (lock, node, hash_string(name, 0), &ls->locks) {
        if (!strcmp(lock->name, name)) {
            return lock;
        }
    }
    return NULL;
}

struct ovsdb_lock_waiter *
ovsdb_lock_server_lock(struct ovsdb_lock_server *ls, const char *name,
                       void *session, enum ovsdb_lock_mode mode,
                       void **victimp)
{
    struct lock *lock = find_lock(ls, name);
    if (!lock) {
        lock = xzalloc(sizeof *lock);
        lock->server = ls;
        lock->name = xstrdup(name);
        hmap_insert(&ls->locks, &lock->node, hash_string(name, 0));
    }

    struct ovsdb_lock_waiter *w = xzalloc(sizeof *w);
    w->lock = lock;
    w->session = session;
    *victimp = NULL;
    if (mode == OVSDB_LOCK_STEAL) {
        if (lock->head) {
            *victimp = lock->head->session;
            lock->head->prev = w;
        } else {
            lock->tail = w;
        }
        w->next = lock->head;
        lock->head = w;
    } else {
        if (lock->tail) {
            lock->tail->next = w;
        } else {
            lock->head = w;
        }
        w->prev = lock->tail;
        lock->tail = w;
    }
    return w;
}

struct ovsdb_lock_waiter *
ovsdb_lock_server_find_waiter(const struct ovsdb_lock_server *ls,
                              const char *name, const void *session)
{
    struct lock *lock = find_lock(ls, name);
    if (lock) {
        for (struct ovsdb_lock_waiter *w = lock->head; w; w = w->next) {
            if (w->session == session) {
                return w;
            }
        }
    }
    return NULL;
}

bool
ovsdb_lock_server_is_owner(const struct ovsdb_lock_server *ls,
                           const char *name, const void *session)
{
    struct lock *lock = find_lock(ls, name);
    return lock && lock->head->session == session;
}

unsigned int
ovsdb_lock_server_count(const struct ovsdb_lock_server *ls)
{
    return hmap_count(&ls->locks);
}

void *
ovsdb_lock_waiter_remove(struct ovsdb_lock_waiter *w)
{
    if (!w) {
        return NULL;
    }

    struct lock *lock = w->lock;
    bool was_owner = lock->head == w;
    if (w->prev) {
        w->prev->next = w->next;
    } else {
        lock->head = w->next;
    }
    if (w->next) {
        w->next->prev = w->prev;
    } else {
        lock->tail = w->prev;
    }
    free(w);

    if (!lock->head) {
        hmap_remove(&lock->server->locks, &lock->node);
        free(lock->name);
        free(lock);
        return NULL;
    }
    return was_owner ? lock->head->session : NULL;
}

bool
ovsdb_lock_name_is_valid(const char *name)
{
    return ovsdb_parser_is_id(name);
}

bool
ovsdb_lock_waiter_is_owner(const struct ovsdb_lock_waiter *w)
{
    return w->lock->head == w;
}

const char *
ovsdb_lock_waiter_get_name(const struct ovsdb_lock_waiter *w)
{
    return w->lock->name;
}
