/* lib/uuid.h: 128-bit universally unique identifiers (RFC 4122, version 4).
 *
 * Text form: "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", 36 characters. */
#ifndef LIB_UUID_H
#define LIB_UUID_H 1

#include <stdbool.h>
#include <stdint.h>
#include "lib/hash.h"

struct uuid {
    uint32_t parts[4];
};

#define UUID_LEN 36
#define UUID_FMT "%08x-%04x-%04x-%04x-%04x%08x"
#define UUID_ARGS(UUID)                                  \
    ((unsigned int) ((UUID)->parts[0])),                 \
    ((unsigned int) ((UUID)->parts[1] >> 16)),           \
    ((unsigned int) ((UUID)->parts[1] & 0xffff)),        \
    ((unsigned int) ((UUID)->parts[2] >> 16)),           \
    ((unsigned int) ((UUID)->parts[2] & 0xffff)),        \
    ((unsigned int) ((UUID)->parts[3]))

/* Fills 'uuid' with a new random (version 4) UUID.  Fast: a per-process
 * generator seeded once from the kernel, not a system call per UUID. */
void uuid_generate(struct uuid *uuid);

void uuid_zero(struct uuid *);
bool uuid_is_zero(const struct uuid *);
int uuid_compare_3way(const struct uuid *, const struct uuid *);

static inline bool
uuid_equals(const struct uuid *a, const struct uuid *b)
{
    return a->parts[0] == b->parts[0] && a->parts[1] == b->parts[1]
           && a->parts[2] == b->parts[2] && a->parts[3] == b->parts[3];
}

/* The first word is random, so it is a fine hash on its own. */
static inline uint32_t
uuid_hash(const struct uuid *uuid)
{
    return uuid->parts[0];
}

/* Parses 's' (exactly 36 characters, hex digits in either case) into
 * '*uuid'.  Returns false (and zeroes '*uuid') if 's' is not a UUID. */
bool uuid_from_string(struct uuid *uuid, const char *s);

/* Same as uuid_from_string() but for the first 'length' bytes of 's'. */
bool uuid_from_string_prefix(struct uuid *uuid, const char *s, size_t length);

/* Writes the 36-character text form of 'uuid' plus a NUL into 'buf'. */
void uuid_to_string(const struct uuid *uuid, char buf[UUID_LEN + 1]);

#endif /* lib/uuid.h */
