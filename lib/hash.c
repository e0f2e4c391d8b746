/* lib/hash.c: see hash.h. */
#include <config.h>
#include "lib/hash.h"

uint32_t
hash_bytes(const void *p_, size_t n, uint32_t basis)
{
    const uint8_t *p = p_;
    size_t orig_n = n;
    uint32_t hash = basis;
    uint32_t word;

    while (n >= 4) {
        memcpy(&word, p, 4);
        hash = hash_add(hash, word);
        p += 4;
        n -= 4;
    }
    if (n) {
        word = 0;
        memcpy(&word, p, n);
        hash = hash_add(hash, word);
    }
    return hash_finish(hash, orig_n);
}
