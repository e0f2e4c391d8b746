/* tests/unit/lib/test-sha1.c: lib/sha1 against the FIPS 180 examples and
 * against itself fed in pieces, with the portable code and, where the
 * processor has them, the SHA instructions; and the two against each
 * other. */
#include <config.h>
#include "lib/sha1.h"

#include "lib/util.h"
#include "tests/unit/check.h"

static void
hex_of(const uint8_t md[SHA1_DIGEST_SIZE], char hex[2 * SHA1_DIGEST_SIZE + 1])
{
    for (int i = 0; i < SHA1_DIGEST_SIZE; i++) {
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    }
}

static void
check_digest(const void *data, size_t size, const char *expected)
{
    struct sha1_ctx ctx;
    uint8_t md[SHA1_DIGEST_SIZE];
    char hex[2 * SHA1_DIGEST_SIZE + 1];

    sha1_init(&ctx);
    sha1_update(&ctx, data, size);
    sha1_final(&ctx, md);
    hex_of(md, hex);
    CHECK_STREQ(hex, expected);
}

/* The published test vectors, including the two-block padding case. */
static void
test_vectors(void)
{
    check_digest("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    check_digest("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d");
    const char *two_blocks =
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_digest(two_blocks, strlen(two_blocks),
                 "84983e441c3bd26ebaae4aa1f95129e5e54670f1");

    static char million[1000000];
    memset(million, 'a', sizeof million);
    check_digest(million, sizeof million,
                 "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

/* Every split of a 200-byte input into two pieces, and byte by byte,
 * gives the one-piece digest; so does every length around the block and
 * padding boundaries. */
static void
test_pieces(void)
{
    uint8_t data[200];
    for (size_t i = 0; i < sizeof data; i++) {
        data[i] = i * 7 + 3;
    }
    for (size_t size = 0; size <= sizeof data; size++) {
        struct sha1_ctx ctx;
        uint8_t whole[SHA1_DIGEST_SIZE], md[SHA1_DIGEST_SIZE];

        sha1_init(&ctx);
        sha1_update(&ctx, data, size);
        sha1_final(&ctx, whole);

        for (size_t cut = 0; cut <= size; cut++) {
            sha1_init(&ctx);
            sha1_update(&ctx, data, cut);
            sha1_update(&ctx, data + cut, size - cut);
            sha1_final(&ctx, md);
            CHECK(!memcmp(md, whole, sizeof md));
        }
        sha1_init(&ctx);
        for (size_t i = 0; i < size; i++) {
            sha1_update(&ctx, data + i, 1);
        }
        sha1_final(&ctx, md);
        CHECK(!memcmp(md, whole, sizeof md));
    }
}

static void
test_portable(void)
{
    sha1_use_accelerated(false);
    CHECK(!sha1_is_accelerated());
    test_vectors();
    test_pieces();
    sha1_use_accelerated(true);
}

static void
digest_of(const uint8_t *data, size_t size, uint8_t md[SHA1_DIGEST_SIZE])
{
    struct sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, data, size);
    sha1_final(&ctx, md);
}

/* The instructions and the portable code agree on inputs of every length
 * up to 4 kB of varied bytes (a mistake in one lane of the message
 * schedule would show on most of them). */
static void
test_both_agree(void)
{
    if (!sha1_is_accelerated()) {
        printf("(no SHA instructions on this processor: only the portable "
               "code was checked)\n");
        return;
    }
    static uint8_t data[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof data; i++) {
        x = x * 1103515245 + 12345;
        data[i] = x >> 16;
    }
    for (size_t size = 0; size <= sizeof data; size += 1 + size / 64) {
        uint8_t fast[SHA1_DIGEST_SIZE], slow[SHA1_DIGEST_SIZE];
        digest_of(data, size, fast);
        sha1_use_accelerated(false);
        digest_of(data, size, slow);
        sha1_use_accelerated(true);
        CHECK(!memcmp(fast, slow, sizeof fast));
    }
}

int
main(int argc, char *argv[])
{
    static const struct check_case cases[] = {
        CHECK_CASE(test_vectors),
        CHECK_CASE(test_pieces),
        CHECK_CASE(test_portable),
        CHECK_CASE(test_both_agree),
    };
    return check_main(argc, argv, "test-sha1", cases, ARRAY_SIZE(cases));
}
