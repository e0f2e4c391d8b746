/* lib/sha1.c: see sha1.h. */
#include <config.h>
#include "lib/sha1.h"

#include <stdatomic.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_NI 1
#endif

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

#ifdef HAVE_SHA_NI
/* One group of four rounds with the SHA instructions: 'e' holds W[i..i+3]
 * with E added to its first word; 'prev' takes the state before the group
 * (the next group's E derives from its A).  'F' selects the round function
 * and constant and must be a constant. */
#define SHA_NI_GROUP(abcd, prev, e, F)                                        \
    do {                                                                      \
        (prev) = (abcd);                                                      \
        (abcd) = _mm_sha1rnds4_epu32((abcd), (e), (F));                       \
    } while (0)

/* The SHA-1 compression function of FIPS 180-4 with the SHA extensions.
 * The state is kept with A in the highest lane, as the instructions want;
 * message words are loaded so that W[4j] is the highest lane of M[j]. */
__attribute__((target("sha,ssse3,sse4.1"))) static void
compress_sha_ni(uint32_t h[5], const uint8_t *block)
{
    const __m128i reverse = _mm_set_epi64x(0x0001020304050607LL,
                                           0x08090a0b0c0d0e0fLL);
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *) h),
                                     0x1b);
    __m128i e0 = _mm_set_epi32((int) h[4], 0, 0, 0);
    __m128i abcd_in = abcd;
    __m128i m[4], prev, e;

    for (int j = 0; j < 4; j++) {
        m[j] = _mm_shuffle_epi8(_mm_loadu_si128(
                                    (const __m128i *) (block + 16 * j)),
                                reverse);
    }

    /* Group j (rounds 4j..4j+3) uses M[j]: the first four come from the
     * block, each later one from the four before it (W[t] = rotl(W[t-3] ^
     * W[t-8] ^ W[t-14] ^ W[t-16], 1), which msg1 and msg2 compute four
     * lanes at a time). */
    e = _mm_add_epi32(e0, m[0]);
    SHA_NI_GROUP(abcd, prev, e, 0);
    for (int j = 1; j < 20; j++) {
        __m128i mj;
        if (j < 4) {
            mj = m[j];
        } else {
            __m128i x = _mm_sha1msg1_epu32(m[j & 3], m[(j + 1) & 3]);
            mj = _mm_sha1msg2_epu32(_mm_xor_si128(x, m[(j + 2) & 3]),
                                    m[(j + 3) & 3]);
            m[j & 3] = mj;
        }
        e = _mm_sha1nexte_epu32(prev, mj);
        switch (j / 5) {
        case 0:
            SHA_NI_GROUP(abcd, prev, e, 0);
            break;
        case 1:
            SHA_NI_GROUP(abcd, prev, e, 1);
            break;
        case 2:
            SHA_NI_GROUP(abcd, prev, e, 2);
            break;
        default:
            SHA_NI_GROUP(abcd, prev, e, 3);
            break;
        }
    }

    /* E after the last group, plus the E it started from. */
    e0 = _mm_sha1nexte_epu32(prev, e0);
    abcd = _mm_add_epi32(abcd, abcd_in);
    _mm_storeu_si128((__m128i *) h, _mm_shuffle_epi32(abcd, 0x1b));
    h[4] = (uint32_t) _mm_extract_epi32(e0, 3);
}

static bool
cpu_has_sha_ni(void)
{
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_SSSE3)
        || !(ecx & bit_SSE4_1)) {
        return false;
    }
    return (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)
            && (ebx & bit_SHA));
}
#endif

/* -1: not decided yet; then false or true.  Atomic only so that two
 * threads deciding at once is not a data race: both decide the same. */
static atomic_int accelerated = -1;

bool
sha1_is_accelerated(void)
{
    int use = atomic_load_explicit(&accelerated, memory_order_relaxed);
    if (use < 0) {
#ifdef HAVE_SHA_NI
        use = cpu_has_sha_ni();
#else
        use = false;
#endif
        atomic_store_explicit(&accelerated, use, memory_order_relaxed);
    }
    return use;
}

void
sha1_use_accelerated(bool use)
{
    atomic_store_explicit(&accelerated, -1, memory_order_relaxed);
    if (!use || !sha1_is_accelerated()) {
        atomic_store_explicit(&accelerated, false, memory_order_relaxed);
    }
}

/* Mixes the 'n' 64-byte blocks at 'data' into 'h'. */
static void
compress_blocks(uint32_t h[5], const uint8_t *data, size_t n)
{
#ifdef HAVE_SHA_NI
    if (sha1_is_accelerated()) {
        for (; n; n--, data += 64) {
            compress_sha_ni(h, data);
        }
        return;
    }
#endif
    for (; n; n--, data += 64) {
        compress(h, data);
    }
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
        compress_blocks(ctx->h, ctx->block, 1);
        ctx->n = 0;
    }
    size_t n_blocks = size / sizeof ctx->block;
    compress_blocks(ctx->h, data, n_blocks);
    data += n_blocks * sizeof ctx->block;
    size -= n_blocks * sizeof ctx->block;
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
