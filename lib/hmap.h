/* lib/hmap.h: intrusive hash map with chaining.
 *
 * Embed a 'struct hmap_node' in each element; the caller computes hashes and
 * compares keys.  The map never allocates elements, only its bucket array,
 * which doubles or halves as the map grows or shrinks.
 *
 *     struct row { struct hmap_node node; struct uuid uuid; ... };
 *     hmap_insert(&map, &row->node, uuid_hash(&row->uuid));
 *     HMAP_FOR_EACH_WITH_HASH (row, node, uuid_hash(&u), &map) { ... }
 */
#ifndef LIB_HMAP_H
#define LIB_HMAP_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/util.h"

struct hmap_node {
    uint32_t hash;              /* Hash value. */
    struct hmap_node *next;     /* Next in the same bucket. */
};

struct hmap {
    struct hmap_node **buckets; /* Always valid: 'one' for an empty map. */
    struct hmap_node *one;
    size_t mask;                /* Number of buckets minus 1. */
    size_t n;                   /* Number of nodes. */
};

#define HMAP_INITIALIZER(HMAP) { (struct hmap_node **) &(HMAP)->one, NULL, 0, 0 }

void hmap_init(struct hmap *);
void hmap_destroy(struct hmap *);     /* Frees buckets, not the nodes. */
void hmap_clear(struct hmap *);       /* Forgets all nodes, keeps buckets. */
void hmap_swap(struct hmap *, struct hmap *);
void hmap_moved(struct hmap *);       /* After memcpy of a 'struct hmap'. */

static inline size_t hmap_count(const struct hmap *hmap) { return hmap->n; }
static inline bool hmap_is_empty(const struct hmap *hmap) { return !hmap->n; }

void hmap_expand_(struct hmap *);
void hmap_shrink_(struct hmap *);
void hmap_reserve(struct hmap *, size_t capacity);

/* Inserts 'node' with 'hash'.  Duplicates are allowed. */
static inline void
hmap_insert_fast(struct hmap *hmap, struct hmap_node *node, uint32_t hash)
{
    struct hmap_node **bucket = &hmap->buckets[hash & hmap->mask];
    node->hash = hash;
    node->next = *bucket;
    *bucket = node;
    hmap->n++;
}

static inline void
hmap_insert(struct hmap *hmap, struct hmap_node *node, uint32_t hash)
{
    hmap_insert_fast(hmap, node, hash);
    if (hmap->n / 2 > hmap->mask) {
        hmap_expand_(hmap);
    }
}

/* Removes 'node', which must be in 'hmap'. */
static inline void
hmap_remove(struct hmap *hmap, struct hmap_node *node)
{
    struct hmap_node **bucket = &hmap->buckets[node->hash & hmap->mask];
    while (*bucket != node) {
        bucket = &(*bucket)->next;
    }
    *bucket = node->next;
    hmap->n--;
}

/* Replaces 'old' by 'new', which has the same hash, in place. */
static inline void
hmap_replace(struct hmap *hmap, const struct hmap_node *old,
             struct hmap_node *new)
{
    struct hmap_node **bucket = &hmap->buckets[old->hash & hmap->mask];
    while (*bucket != old) {
        bucket = &(*bucket)->next;
    }
    *bucket = new;
    new->hash = old->hash;
    new->next = old->next;
}

static inline struct hmap_node *
hmap_first_with_hash(const struct hmap *hmap, uint32_t hash)
{
    struct hmap_node *node = hmap->buckets[hash & hmap->mask];
    while (node && node->hash != hash) {
        node = node->next;
    }
    return node;
}

static inline struct hmap_node *
hmap_next_with_hash(const struct hmap_node *node)
{
    uint32_t hash = node->hash;
    for (node = node->next; node && node->hash != hash; node = node->next) {
        continue;
    }
    return (struct hmap_node *) node;
}

struct hmap_node *hmap_first(const struct hmap *);
struct hmap_node *hmap_next(const struct hmap *, const struct hmap_node *);

/* Position-based iteration that survives removal of the current node. */
struct hmap_position {
    size_t bucket;
    size_t offset;
};
struct hmap_node *hmap_at_position(const struct hmap *,
                                   struct hmap_position *);

#define HMAP_NODE_TO(NODE, OBJECT, MEMBER)                                   \
    ((NODE) ? OBJECT_CONTAINING(NODE, OBJECT, MEMBER) : NULL)

#define HMAP_FOR_EACH_WITH_HASH(OBJECT, MEMBER, HASH, HMAP)                  \
    for ((OBJECT) = HMAP_NODE_TO(hmap_first_with_hash(HMAP, HASH), OBJECT,   \
                                 MEMBER);                                    \
         (OBJECT);                                                           \
         (OBJECT) = HMAP_NODE_TO(hmap_next_with_hash(&(OBJECT)->MEMBER),     \
                                 OBJECT, MEMBER))

#define HMAP_FOR_EACH(OBJECT, MEMBER, HMAP)                                  \
    for ((OBJECT) = HMAP_NODE_TO(hmap_first(HMAP), OBJECT, MEMBER);          \
         (OBJECT);                                                           \
         (OBJECT) = HMAP_NODE_TO(hmap_next(HMAP, &(OBJECT)->MEMBER),         \
                                 OBJECT, MEMBER))

/* Safe against removal (and freeing) of OBJECT in the loop body.  NEXT is a
 * second variable of the same type. */
#define HMAP_FOR_EACH_SAFE(OBJECT, NEXT, MEMBER, HMAP)                       \
    for ((OBJECT) = HMAP_NODE_TO(hmap_first(HMAP), OBJECT, MEMBER);          \
         ((OBJECT)                                                           \
          ? ((NEXT) = HMAP_NODE_TO(hmap_next(HMAP, &(OBJECT)->MEMBER),       \
                                   OBJECT, MEMBER), 1)                       \
          : 0);                                                              \
         (OBJECT) = (NEXT))

/* Removes each node in turn; the body must free or reinsert OBJECT. */
#define HMAP_FOR_EACH_POP(OBJECT, MEMBER, HMAP)                              \
    while (((OBJECT) = HMAP_NODE_TO(hmap_first(HMAP), OBJECT, MEMBER))       \
           ? (hmap_remove(HMAP, &(OBJECT)->MEMBER), 1) : 0)

#endif /* lib/hmap.h */
