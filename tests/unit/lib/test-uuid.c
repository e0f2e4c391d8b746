/* tests/unit/lib/test-uuid.c: generation, parsing, formatting. */
#include <config.h>
#include "lib/uuid.h"

#include "tests/unit/check.h"

/* Two random UUIDs differ and are version 4, RFC 4122 variant. */
static void
test_generate(void)
{
    struct uuid a, b;
    uuid_generate(&a);
    uuid_generate(&b);
    CHECK(!uuid_equals(&a, &b));
    CHECK(!uuid_is_zero(&a));
    CHECK(((a.parts[1] >> 12) & 0xf) == 4);  /* Version 4. */
    CHECK((a.parts[2] >> 30) == 2);          /* RFC 4122 variant. */
}

/* A formatted UUID parses back to itself; parsing ignores case. */
static void
test_round_trip(void)
{
    struct uuid a, parsed;
    char s[UUID_LEN + 1];

    uuid_generate(&a);
    uuid_to_string(&a, s);
    CHECK(strlen(s) == UUID_LEN);
    CHECK(uuid_from_string(&parsed, s));
    CHECK(uuid_equals(&parsed, &a));

    CHECK(uuid_from_string(&parsed, "550E8400-e29b-41d4-a716-446655440000"));
    uuid_to_string(&parsed, s);
    CHECK_STREQ(s, "550e8400-e29b-41d4-a716-446655440000");
    CHECK(parsed.parts[0] == 0x550e8400 && parsed.parts[3] == 0x55440000);
}

/* Too short, too long, a bad separator or digit: refused, result zero. */
static void
test_bad_strings(void)
{
    struct uuid parsed;
    CHECK(!uuid_from_string(&parsed, "550e8400-e29b-41d4-a716-44665544000"));
    CHECK(!uuid_from_string(&parsed, "550e8400-e29b-41d4-a716-4466554400000"));
    CHECK(!uuid_from_string(&parsed, "550e8400xe29b-41d4-a716-446655440000"));
    CHECK(!uuid_from_string(&parsed, "550e8400-e29b-41d4-a716-44665544000g"));
    CHECK(uuid_is_zero(&parsed));
}

static void
test_compare(void)
{
    struct uuid a, b;
    uuid_generate(&a);
    uuid_generate(&b);
    CHECK(uuid_compare_3way(&a, &a) == 0);
    CHECK(uuid_compare_3way(&a, &b) == -uuid_compare_3way(&b, &a));
}

static const struct check_case cases[] = {
    CHECK_CASE(test_generate),
    CHECK_CASE(test_round_trip),
    CHECK_CASE(test_bad_strings),
    CHECK_CASE(test_compare),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-uuid", cases,
                      sizeof cases / sizeof *cases);
}
