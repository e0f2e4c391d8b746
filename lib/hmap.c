/* lib/hmap.c: see hmap.h. */
#include <config.h>
#include "lib/hmap.h"

#include <string.h>
#include "lib/allocator.h"

void
hmap_init(struct hmap *hmap)
{
    hmap->buckets = &hmap->one;
    hmap->one = NULL;
    hmap->mask = 0;
    hmap->n = 0;
}

void
hmap_destroy(struct hmap *hmap)
{
    if (hmap && hmap->buckets != &hmap->one) {
        free(hmap->buckets);
    }
}

void
hmap_clear(struct hmap *hmap)
{
    if (hmap->n) {
        hmap->n = 0;
        memset(hmap->buckets, 0, (hmap->mask + 1) * sizeof *hmap->buckets);
    }
}

void
hmap_moved(struct hmap *hmap)
{
    if (!hmap->mask) {
        hmap->buckets = &hmap->one;
    }
}

void
hmap_swap(struct hmap *a, struct hmap *b)
{
    struct hmap tmp = *a;
    *a = *b;
    *b = tmp;
    hmap_moved(a);
    hmap_moved(b);
}

static void
resize(struct hmap *hmap, size_t new_mask)
{
    struct hmap tmp;
    tmp.mask = new_mask;
    tmp.n = 0;
    tmp.one = NULL;
    tmp.buckets = new_mask ? xcalloc(new_mask + 1, sizeof *tmp.buckets)
                           : &tmp.one;
    for (size_t i = 0; i <= hmap->mask; i++) {
        struct hmap_node *node, *next;
        for (node = hmap->buckets[i]; node; node = next) {
            next = node->next;
            hmap_insert_fast(&tmp, node, node->hash);
        }
    }
    hmap_swap(hmap, &tmp);
    hmap_destroy(&tmp);
}

/* Returns the smallest mask (2**k - 1) with room for 'capacity' nodes at a
 * load factor of at most 2. */
static size_t
calc_mask(size_t capacity)
{
    size_t mask = capacity / 2;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
#if SIZE_MAX > UINT32_MAX
    mask |= mask >> 32;
#endif
    /* Don't bother with tiny tables. */
    if (mask && mask < 3) {
        mask = 3;
    }
    return mask;
}

void
hmap_expand_(struct hmap *hmap)
{
    size_t new_mask = calc_mask(hmap->n);
    if (new_mask > hmap->mask) {
        resize(hmap, new_mask);
    }
}

void
hmap_shrink_(struct hmap *hmap)
{
    size_t new_mask = calc_mask(hmap->n);
    if (new_mask < hmap->mask) {
        resize(hmap, new_mask);
    }
}

void
hmap_reserve(struct hmap *hmap, size_t n)
{
    size_t new_mask = calc_mask(n);
    if (new_mask > hmap->mask) {
        resize(hmap, new_mask);
    }
}

static struct hmap_node *
first_from_bucket(const struct hmap *hmap, size_t start)
{
    for (size_t i = start; i <= hmap->mask; i++) {
        if (hmap->buckets[i]) {
            return hmap->buckets[i];
        }
    }
    return NULL;
}

struct hmap_node *
hmap_first(const struct hmap *hmap)
{
    return first_from_bucket(hmap, 0);
}

struct hmap_node *
hmap_next(const struct hmap *hmap, const struct hmap_node *node)
{
    return node->next ? node->next
                      : first_from_bucket(hmap, (node->hash & hmap->mask) + 1);
}

struct hmap_node *
hmap_at_position(const struct hmap *hmap, struct hmap_position *pos)
{
    for (size_t b = pos->bucket; b <= hmap->mask; b++) {
        size_t offset = b == pos->bucket ? pos->offset : 0;
        struct hmap_node *node = hmap->buckets[b];
        for (size_t i = 0; node && i < offset; i++) {
            node = node->next;
        }
        if (node) {
            pos->bucket = b;
            pos->offset = offset + 1;
            return node;
        }
    }
    pos->bucket = hmap->mask + 1;
    pos->offset = 0;
    return NULL;
}
