/* lib/uuid.c: see uuid.h. */
#include <config.h>
#include "lib/uuid.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include "lib/replay.h"

/* xoshiro256** state, seeded from getrandom() on first use. */
static uint64_t rng_state[4];
static bool rng_seeded;

static uint64_t
rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t
rng_next(void)
{
    uint64_t *s = rng_state;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static void
rng_seed(void)
{
    if (getrandom(rng_state, sizeof rng_state, 0) != sizeof rng_state) {
        /* Should not happen on Linux >= 3.17; fall back to time and pid. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        rng_state[0] = ts.tv_sec ^ 0x9e3779b97f4a7c15ULL;
        rng_state[1] = ts.tv_nsec ^ ((uint64_t) getpid() << 32);
        rng_state[2] = 0xbf58476d1ce4e5b9ULL;
        rng_state[3] = 0x94d049bb133111ebULL;
    }
    /* A replay must insert rows with the UUIDs the recorded run gave. */
    replay_save_seed("uuid-seed", rng_state, sizeof rng_state);
    rng_seeded = true;
}

void
uuid_generate(struct uuid *uuid)
{
    if (!rng_seeded) {
        rng_seed();
    }
    uint64_t a = rng_next(), b = rng_next();
    uuid->parts[0] = a >> 32;
    uuid->parts[1] = a;
    uuid->parts[2] = b >> 32;
    uuid->parts[3] = b;
    /* Version 4 (random) and the RFC 4122 variant. */
    uuid->parts[1] = (uuid->parts[1] & ~0xf000u) | 0x4000u;
    uuid->parts[2] = (uuid->parts[2] & 0x3fffffffu) | 0x80000000u;
}

void
uuid_zero(struct uuid *uuid)
{
    memset(uuid, 0, sizeof *uuid);
}

bool
uuid_is_zero(const struct uuid *uuid)
{
    return !(uuid->parts[0] | uuid->parts[1] | uuid->parts[2]
             | uuid->parts[3]);
}

int
uuid_compare_3way(const struct uuid *a, const struct uuid *b)
{
    for (int i = 0; i < 4; i++) {
        if (a->parts[i] != b->parts[i]) {
            return a->parts[i] > b->parts[i] ? 1 : -1;
        }
    }
    return 0;
}

static int
hexit(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    } else if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* Reads 'n' hex digits from '*sp' into the low bits of '*value'. */
static bool
read_hex(const char **sp, int n, uint32_t *value)
{
    for (int i = 0; i < n; i++) {
        int h = hexit(*(*sp)++);
        if (h < 0) {
            return false;
        }
        *value = (*value << 4) | h;
    }
    return true;
}

bool
uuid_from_string_prefix(struct uuid *uuid, const char *s, size_t length)
{
    uuid_zero(uuid);
    if (length != UUID_LEN
        || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') {
        return false;
    }
    const char *p = s;
    bool ok = (read_hex(&p, 8, &uuid->parts[0]) && p++
               && read_hex(&p, 4, &uuid->parts[1]) && p++
               && read_hex(&p, 4, &uuid->parts[1]) && p++
               && read_hex(&p, 4, &uuid->parts[2]) && p++
               && read_hex(&p, 4, &uuid->parts[2])
               && read_hex(&p, 8, &uuid->parts[3]));
    if (!ok) {
        uuid_zero(uuid);
    }
    return ok;
}

bool
uuid_from_string(struct uuid *uuid, const char *s)
{
    return uuid_from_string_prefix(uuid, s, strlen(s));
}

/* Writes the 8 hex digits of 'x' (the low 'n' of them) to 'p'. */
static char *
put_hex(char *p, uint32_t x, int n)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = n - 1; i >= 0; i--) {
        p[i] = digits[x & 0xf];
        x >>= 4;
    }
    return p + n;
}

void
uuid_to_string(const struct uuid *uuid, char buf[UUID_LEN + 1])
{
    /* Same as UUID_FMT, without printf: UUIDs are formatted for every row
     * of every reply and record. */
    char *p = buf;
    p = put_hex(p, uuid->parts[0], 8);
    *p++ = '-';
    p = put_hex(p, uuid->parts[1] >> 16, 4);
    *p++ = '-';
    p = put_hex(p, uuid->parts[1] & 0xffff, 4);
    *p++ = '-';
    p = put_hex(p, uuid->parts[2] >> 16, 4);
    *p++ = '-';
    p = put_hex(p, uuid->parts[2] & 0xffff, 4);
    p = put_hex(p, uuid->parts[3], 8);
    *p = '\0';
}
