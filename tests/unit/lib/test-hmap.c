/* tests/unit/lib/test-hmap.c: insertion, lookup, removal, iteration. */
#include <config.h>
#include "lib/hmap.h"

#include "lib/allocator.h"
#include "lib/hash.h"
#include "tests/unit/check.h"

struct element {
    struct hmap_node node;
    int value;
};

static struct element *
find(struct hmap *map, int value)
{
    struct element *e;
    HMAP_FOR_EACH_WITH_HASH (e, node, hash_int(value, 0), map) {
        if (e->value == value) {
            return e;
        }
    }
    return NULL;
}

/* Elements per map. */
#define N 10000

/* Fills 'map' with the elements 0, step, 2 * step, ... below N. */
static void
fill(struct hmap *map, int step)
{
    for (int i = 0; i < N; i += step) {
        struct element *e = xmalloc(sizeof *e);
        e->value = i;
        hmap_insert(map, &e->node, hash_int(i, 0));
    }
}

static void
empty(struct hmap *map)
{
    struct element *e;
    HMAP_FOR_EACH_POP (e, node, map) {
        free(e);
    }
    hmap_destroy(map);
}

/* Every inserted element is found, and nothing else. */
static void
test_insert_and_find(void)
{
    struct hmap map = HMAP_INITIALIZER(&map);
    CHECK(hmap_is_empty(&map));
    fill(&map, 1);
    CHECK_INTEQ(hmap_count(&map), N);
    for (int i = 0; i < N; i++) {
        CHECK(find(&map, i) && find(&map, i)->value == i);
    }
    CHECK(!find(&map, N));
    empty(&map);
}

/* Removing the odd ones while iterating leaves exactly the even ones,
 * still found after shrinking. */
static void
test_remove_while_iterating(void)
{
    struct hmap map = HMAP_INITIALIZER(&map);
    fill(&map, 1);

    struct element *e, *next;
    long long sum = 0;
    HMAP_FOR_EACH_SAFE (e, next, node, &map) {
        if (e->value % 2) {
            hmap_remove(&map, &e->node);
            free(e);
        }
    }
    CHECK_INTEQ(hmap_count(&map), N / 2);
    HMAP_FOR_EACH (e, node, &map) {
        CHECK(e->value % 2 == 0);
        sum += e->value;
    }
    CHECK_INTEQ(sum, (long long) (N / 2) * (N / 2 - 1));
    hmap_shrink_(&map);
    CHECK(find(&map, 42) && !find(&map, 43));
    empty(&map);
}

/* Moving the map (by swap) keeps it usable, empty or not; popping every
 * element empties it. */
static void
test_swap_and_pop(void)
{
    struct hmap map = HMAP_INITIALIZER(&map);
    fill(&map, 2);

    struct hmap other = HMAP_INITIALIZER(&other);
    hmap_swap(&map, &other);
    CHECK(hmap_is_empty(&map) && hmap_count(&other) == N / 2);
    CHECK(find(&other, 4242));

    struct element *e;
    HMAP_FOR_EACH_POP (e, node, &other) {
        free(e);
    }
    CHECK(hmap_is_empty(&other));
    hmap_destroy(&other);
    hmap_destroy(&map);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_insert_and_find),
    CHECK_CASE(test_remove_while_iterating),
    CHECK_CASE(test_swap_and_pop),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-hmap", cases, ARRAY_SIZE(cases));
}
