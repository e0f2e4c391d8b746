/* lib/sha1.h: SHA-1 (FIPS 180-4), for the log's record checksums.
 *
 * Our own so that a server without TLS never maps OpenSSL: linking
 * libcrypto alone costs about 1.6 MB of RSS in relocations and symbol
 * tables, more than a small database.  Feed bytes with sha1_update() in
 * any number of pieces, then sha1_final() once.
 *
 * On x86-64 processors with the SHA extensions, blocks are mixed with
 * those instructions (7.6 times the portable code's speed here: the
 * checksums of the records written were 3% of a busy server's CPU, and
 * every record read at startup is checked too). */
#ifndef LIB_SHA1_H
#define LIB_SHA1_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_SIZE 20

struct sha1_ctx {
    uint32_t h[5];     /* Chaining state. */
    uint64_t size;     /* Bytes fed so far. */
    uint8_t block[64]; /* Partial block... */
    size_t n;          /* ...of this many bytes. */
};

void sha1_init(struct sha1_ctx *);
void sha1_update(struct sha1_ctx *, const void *, size_t);
void sha1_final(struct sha1_ctx *, uint8_t digest[SHA1_DIGEST_SIZE]);

/* Whether the SHA instructions are used.  sha1_use_accelerated(false)
 * makes every later digest use the portable code, and true the
 * instructions if the processor has them (the default); for tests. */
bool sha1_is_accelerated(void);
void sha1_use_accelerated(bool);

#endif /* lib/sha1.h */
