/* lib/hash.h: fast non-cryptographic hashing (murmur3-style mixing) for hash
 * tables.  Not stable across versions: never store a hash on disk. */
#ifndef LIB_HASH_H
#define LIB_HASH_H 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t
hash_rot(uint32_t x, int k)
{
    return (x << k) | (x >> (32 - k));
}

/* Mixes 'data' into 'hash'. */
static inline uint32_t
hash_add(uint32_t hash, uint32_t data)
{
    data *= 0xcc9e2d51;
    data = hash_rot(data, 15);
    data *= 0x1b873593;
    hash ^= data;
    hash = hash_rot(hash, 13);
    return hash * 5 + 0xe6546b64;
}

static inline uint32_t
hash_add64(uint32_t hash, uint64_t data)
{
    return hash_add(hash_add(hash, data), data >> 32);
}

/* Final avalanche of 'hash', having mixed in 'n_bytes' of data. */
static inline uint32_t
hash_finish(uint32_t hash, uint32_t n_bytes)
{
    hash ^= n_bytes;
    hash ^= hash >> 16;
    hash *= 0x85ebca6b;
    hash ^= hash >> 13;
    hash *= 0xc2b2ae35;
    hash ^= hash >> 16;
    return hash;
}

uint32_t hash_bytes(const void *, size_t n_bytes, uint32_t basis);

static inline uint32_t
hash_string(const char *s, uint32_t basis)
{
    return hash_bytes(s, strlen(s), basis);
}

static inline uint32_t
hash_int(uint32_t x, uint32_t basis)
{
    return hash_finish(hash_add(basis, x), 4);
}

static inline uint32_t
hash_uint64(uint64_t x, uint32_t basis)
{
    return hash_finish(hash_add64(basis, x), 8);
}

static inline uint32_t
hash_pointer(const void *p, uint32_t basis)
{
    return hash_uint64((uintptr_t) p, basis);
}

#endif /* lib/hash.h */
