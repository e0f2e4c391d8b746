/* lib/sha1.c: see sha1.h. */
#include <config.h>
#include "lib/sha1.h"

#include <string.h>

static uint32_t
rotl(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

static uint32_t
load_be32(const uint8_t *p)
{
    return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16)
           | ((uint32_t) p[2] << 8) | p[3];
}

/* Mixes one 64-byte block into 'h'. */
static void
compress(uint32_t h[5], const uint8_t *block)
{
    uint32_t w[80];
    for (int t = 0; t < 16; t++) {
        w[t] = load_be32(block + 4 * t);
    }
    for (int t = 16; t < 80; t++) {
        w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    }

    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999;
        } else if (t < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        uint32_t tmp = rotl(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rotl(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void
sha1_init(struct sha1_ctx *ctx)
{
    static const uint32_t iv[5] = {
        0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0,
    };
    memcpy(ctx->h, iv, sizeof iv);
    ctx->size = 0;
    ctx->n = 0;
}

void
sha1_update(struct sha1_ctx *ctx, const void *data_, size_t size)
{
    const uint8_t *data = data_;
    ctx->size += size;
    if (ctx->n) {
        size_t chunk = sizeof ctx->block - ctx->n;
        if (chunk > size) {
            chunk = size;
        }
        memcpy(ctx->block + ctx->n, data, chunk);
        ctx->n += chunk;
        data += chunk;
        size -= chunk;
        if (ctx->n < sizeof ctx->block) {
            return;
        }
        compress(ctx->h, ctx->block);
        ctx->n = 0;
    }
    for (; size >= sizeof ctx->block; data += 64, size -= 64) {
        compress(ctx->h, data);
    }
    memcpy(ctx->block, data, size);
    ctx->n = size;
}

void
sha1_final(struct sha1_ctx *ctx, uint8_t digest[SHA1_DIGEST_SIZE])
{
    uint64_t bits = ctx->size * 8;
    uint8_t pad[72] = { 0x80 };
    /* Pad to 56 bytes past a block boundary, then the length in bits. */
    size_t pad_size = (ctx->n < 56 ? 56 : 120) - ctx->n;
    for (int i = 0; i < 8; i++) {
        pad[pad_size + i] = bits >> (56 - 8 * i);
    }
    sha1_update(ctx, pad, pad_size + 8);
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = ctx->h[i] >> 24;
        digest[4 * i + 1] = ctx->h[i] >> 16;
        digest[4 * i + 2] = ctx->h[i] >> 8;
        digest[4 * i + 3] = ctx->h[i];
    }
}
