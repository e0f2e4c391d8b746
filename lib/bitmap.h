/* lib/bitmap.h: fixed-size bit arrays of 'unsigned long' words.
 *
 *     unsigned long *b = bitmap_allocate(n);   (all zero)
 *     bitmap_set1(b, 3);  if (bitmap_is_set(b, 3)) ...;  free(b);
 */
#ifndef LIB_BITMAP_H
#define LIB_BITMAP_H 1

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "lib/allocator.h"

#define BITMAP_ULONG_BITS (sizeof(unsigned long) * CHAR_BIT)
#define BITMAP_N_LONGS(N_BITS) \
    (((N_BITS) + BITMAP_ULONG_BITS - 1) / BITMAP_ULONG_BITS)

/* Returns a zeroed bitmap of 'n_bits'; caller must free with free(). */
static inline unsigned long *
bitmap_allocate(size_t n_bits)
{
    return xzalloc(BITMAP_N_LONGS(n_bits ? n_bits : 1) * sizeof(unsigned long));
}

static inline bool
bitmap_is_set(const unsigned long *b, size_t i)
{
    return (b[i / BITMAP_ULONG_BITS] >> (i % BITMAP_ULONG_BITS)) & 1;
}

static inline void
bitmap_set1(unsigned long *b, size_t i)
{
    b[i / BITMAP_ULONG_BITS] |= 1UL << (i % BITMAP_ULONG_BITS);
}

static inline void
bitmap_set0(unsigned long *b, size_t i)
{
    b[i / BITMAP_ULONG_BITS] &= ~(1UL << (i % BITMAP_ULONG_BITS));
}

static inline bool
bitmap_is_all_zeros(const unsigned long *b, size_t n_bits)
{
    for (size_t i = 0; i < n_bits; i++) {
        if (bitmap_is_set(b, i)) {
            return false;
        }
    }
    return true;
}

#endif /* lib/bitmap.h */
