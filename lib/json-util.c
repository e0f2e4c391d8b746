/* lib/json-util.c: see json-util.h. */
#include <config.h>
#include "lib/json-util.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/hash.h"
#include "lib/util.h"

/* Output options. */
struct put_options {
    int indent;                 /* Spaces per level, 0 for compact. */
    bool exact_reals;           /* Reals with enough digits to read back. */
};

static void put_json(struct ds *out, const json_t *json,
                     const struct put_options *, int level);

void
jsonx_put_string(struct ds *out, const char *s, size_t length)
{
    ds_put_char(out, '"');
    size_t start = 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            continue;
        }
        ds_put_buffer(out, s + start, i - start);
        start = i + 1;
        switch (c) {
        case '"':
            ds_put_cstr(out, "\\\"");
            break;
        case '\\':
            ds_put_cstr(out, "\\\\");
            break;
        case '\b':
            ds_put_cstr(out, "\\b");
            break;
        case '\f':
            ds_put_cstr(out, "\\f");
            break;
        case '\n':
            ds_put_cstr(out, "\\n");
            break;
        case '\r':
            ds_put_cstr(out, "\\r");
            break;
        case '\t':
            ds_put_cstr(out, "\\t");
            break;
        default:
            ds_put_format(out, "\\u%04x", c);
            break;
        }
    }
    ds_put_buffer(out, s + start, length - start);
    ds_put_char(out, '"');
}

void
jsonx_put_integer(struct ds *out, long long value)
{
    char buf[21];
    size_t n = 0;
    if (value < 0) {
        buf[n++] = '-';
    }
    unsigned long long u = value < 0 ? 0ULL - (unsigned long long) value
                                     : (unsigned long long) value;
    n += ullong_to_dec(u, buf + n);
    ds_put_buffer(out, buf, n);
}

void
jsonx_put_real(struct ds *out, double d)
{
    ds_put_format(out, "%.*g", DBL_DIG, d);
}

static int
compare_keys(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;
    return strcmp(*a, *b);
}

static void
put_exact_real(struct ds *out, double d)
{
    char buf[32];
    for (int precision = DBL_DIG; precision <= 17; precision++) {
        snprintf(buf, sizeof buf, "%.*g", precision, d);
        if (strtod(buf, NULL) == d) {
            break;
        }
    }
    ds_put_cstr(out, buf);
}

static void
put_newline(struct ds *out, int indent, int level)
{
    if (indent) {
        ds_put_char(out, '\n');
        ds_put_char_multiple(out, ' ', (size_t) indent * level);
    }
}

const char **
jsonx_sorted_keys(const json_t *json, size_t *np)
{
    size_t n = json_object_size(json);
    const char **keys = xmalloc((n ? n : 1) * sizeof *keys);
    const char *key;
    json_t *value;
    size_t i = 0;
    json_object_foreach ((json_t *) json, key, value) {
        keys[i++] = key;
    }
    qsort(keys, n, sizeof *keys, compare_keys);
    *np = n;
    return keys;
}

struct member {
    const char *key;
    const json_t *value;
};

static int
compare_members(const void *a_, const void *b_)
{
    const struct member *a = a_, *b = b_;
    return strcmp(a->key, b->key);
}

static void
put_object(struct ds *out, const json_t *json,
           const struct put_options *opt, int level)
{
    size_t n = json_object_size(json);
    if (!n) {
        ds_put_cstr(out, "{}");
        return;
    }

    /* Small objects (rows, errors, operations) sort on the stack. */
    struct member small[16];
    struct member *members = n <= ARRAY_SIZE(small)
                             ? small : xmalloc(n * sizeof *members);
    const char *key;
    json_t *value;
    size_t i = 0;
    json_object_foreach ((json_t *) json, key, value) {
        members[i].key = key;
        members[i].value = value;
        i++;
    }
    if (members == small) {
        for (i = 1; i < n; i++) {
            struct member m = members[i];
            size_t j = i;
            while (j > 0 && strcmp(members[j - 1].key, m.key) > 0) {
                members[j] = members[j - 1];
                j--;
            }
            members[j] = m;
        }
    } else {
        qsort(members, n, sizeof *members, compare_members);
    }

    ds_put_char(out, '{');
    for (i = 0; i < n; i++) {
        if (i) {
            ds_put_char(out, ',');
        }
        put_newline(out, opt->indent, level + 1);
        jsonx_put_string(out, members[i].key, strlen(members[i].key));
        ds_put_char(out, ':');
        if (opt->indent) {
            ds_put_char(out, ' ');
        }
        put_json(out, members[i].value, opt, level + 1);
    }
    put_newline(out, opt->indent, level);
    ds_put_char(out, '}');
    if (members != small) {
        free(members);
    }
}

static void
put_array(struct ds *out, const json_t *json,
          const struct put_options *opt, int level)
{
    size_t n = json_array_size(json);
    if (!n) {
        ds_put_cstr(out, "[]");
        return;
    }
    ds_put_char(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) {
            ds_put_char(out, ',');
        }
        put_newline(out, opt->indent, level + 1);
        put_json(out, json_array_get(json, i), opt, level + 1);
    }
    put_newline(out, opt->indent, level);
    ds_put_char(out, ']');
}

static void
put_json(struct ds *out, const json_t *json, const struct put_options *opt,
         int level)
{
    switch (json_typeof(json)) {
    case JSON_OBJECT:
        put_object(out, json, opt, level);
        break;
    case JSON_ARRAY:
        put_array(out, json, opt, level);
        break;
    case JSON_STRING:
        jsonx_put_string(out, json_string_value(json),
                         json_string_length(json));
        break;
    case JSON_INTEGER:
        jsonx_put_integer(out, json_integer_value(json));
        break;
    case JSON_REAL:
        if (opt->exact_reals) {
            put_exact_real(out, json_real_value(json));
        } else {
            jsonx_put_real(out, json_real_value(json));
        }
        break;
    case JSON_TRUE:
        ds_put_cstr(out, "true");
        break;
    case JSON_FALSE:
        ds_put_cstr(out, "false");
        break;
    case JSON_NULL:
    default:
        ds_put_cstr(out, "null");
        break;
    }
}

void
jsonx_put(struct ds *out, const json_t *json)
{
    static const struct put_options opt = { 0, false };
    put_json(out, json, &opt, 0);
}

void
jsonx_put_exact(struct ds *out, const json_t *json)
{
    static const struct put_options opt = { 0, true };
    put_json(out, json, &opt, 0);
}

void
jsonx_put_pretty(struct ds *out, const json_t *json, int indent)
{
    const struct put_options opt = { indent, false };
    put_json(out, json, &opt, 0);
}

char *
jsonx_to_string_sorted(const json_t *json)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    jsonx_put(&s, json);
    return ds_steal_cstr(&s);
}

/* Numbers as Open vSwitch reads them: a number that is an integer in
 * int64_t range is an integer, even if written "1.0" or "1e3"; any other
 * number is a real, even if written as an integer ("9223372036854775808").
 * jansson decides by spelling instead, and fails on too-big integers, so
 * such numbers are respelled before parsing. */

/* Returns the length of the JSON number at 's' (at most 'n' bytes). */
static size_t
number_length(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-') {
        i++;
    }
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'
                     || s[i] == 'e' || s[i] == 'E'
                     || ((s[i] == '+' || s[i] == '-')
                         && (s[i - 1] == 'e' || s[i - 1] == 'E')))) {
        i++;
    }
    return i;
}

/* If the number 'tok' ('len' bytes) must be respelled, appends the new
 * spelling to 'out' and returns true. */
static bool
respell_number(const char *tok, size_t len, struct ds *out)
{
    bool negative = tok[0] == '-';
    size_t i = negative;
    char digits[64];
    size_t n_digits = 0, n_frac = 0;
    bool has_frac = false, has_exp = false, overflow = false;
    long long exp = 0;

    for (; i < len && tok[i] != 'e' && tok[i] != 'E'; i++) {
        if (tok[i] == '.') {
            has_frac = true;
        } else if (n_digits || tok[i] != '0') {
            if (n_digits < sizeof digits) {
                digits[n_digits++] = tok[i];
            } else {
                overflow = true;
            }
            n_frac += has_frac;
        } else if (has_frac) {
            n_frac++;           /* Leading zero after the point. */
        }
    }
    if (i < len) {
        has_exp = true;
        long long e;
        char buf[32];
        size_t elen = len - i - 1;
        if (elen >= sizeof buf) {
            return false;
        }
        memcpy(buf, tok + i + 1, elen);
        buf[elen] = '\0';
        if (!str_to_llong(buf[0] == '+' ? buf + 1 : buf, &e)
            || e > 1000 || e < -1000) {
            return false;
        }
        exp = e;
    }
    if (overflow) {
        return false;
    }

    /* The value is 0.DIGITS... no: DIGITS * 10^(exp - n_frac). */
    long long scale = exp - (long long) n_frac;
    while (n_digits && scale < 0 && digits[n_digits - 1] == '0') {
        n_digits--;
        scale++;
    }
    if (!n_digits) {
        /* Zero, however spelled. */
        if (has_frac || has_exp || negative) {
            ds_put_char(out, '0');
            return true;
        }
        return false;
    }
    bool integral = scale >= 0;
    size_t int_len = integral ? n_digits + scale : 0;
    bool fits = false;
    if (integral && int_len <= 19) {
        char text[20];
        memcpy(text, digits, n_digits);
        memset(text + n_digits, '0', scale);
        text[int_len] = '\0';
        const char *limit = negative ? "9223372036854775808"
                                     : "9223372036854775807";
        fits = int_len < 19 || strcmp(text, limit) <= 0;
        if (fits && (has_frac || has_exp)) {
            if (negative) {
                ds_put_char(out, '-');
            }
            ds_put_cstr(out, text);
            return true;
        }
    }
    if (!has_frac && !has_exp && !fits) {
        ds_put_buffer(out, tok, len);
        ds_put_cstr(out, ".0");
        return true;
    }
    return false;
}

/* Returns 's' with numbers respelled as needed, or NULL if none needs it.
 * Caller must free with free(). */
static char *
respell_numbers(const char *s, size_t length, size_t *new_length)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    struct ds number = DS_EMPTY_INITIALIZER;
    bool changed = false;
    size_t copied = 0;
    for (size_t i = 0; i < length; ) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < length && s[i] != '"'; i++) {
                if (s[i] == '\\') {
                    i++;
                }
            }
            i++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t len = number_length(s + i, length - i);
            ds_clear(&number);
            if (len && respell_number(s + i, len, &number)) {
                ds_put_buffer(&out, s + copied, i - copied);
                ds_put_buffer(&out, number.string, number.length);
                changed = true;
                copied = i + len;
            }
            i += len ? len : 1;
        } else {
            i++;
        }
    }
    ds_destroy(&number);
    if (!changed) {
        ds_destroy(&out);
        return NULL;
    }
    ds_put_buffer(&out, s + copied, length - copied);
    *new_length = out.length;
    return ds_steal_cstr(&out);
}

/* The parser for the common case.
 *
 * It accepts a subset of what jansson accepts and builds the same tree, with
 * the number rules above, except that equal short strings and equal
 * integers become one shared value (jansson values are immutable here), so
 * a big request whose rows repeat the same keys, tags and small numbers
 * costs less memory.  Whatever it does not accept (errors, escapes it does
 * not decode, huge numbers, very deep nesting) returns NULL, and
 * jsonx_loadb() then leaves the whole text to jansson, which gives the
 * result or the error message as before. */

#define FAST_MAX_DEPTH 1000         /* jansson's own limit is 2048. */
#define FAST_MAX_STRINGS 1024       /* Cached strings (a power of 2)... */
#define FAST_MAX_CACHED_LENGTH 32   /* ...of at most this many bytes. */
#define FAST_MAX_INTEGERS 256       /* Cached integers (a power of 2). */
#define FAST_MIN_SLOTS 8            /* Either cache's least size. */

/* The caches grow with the input, one string slot for every 16 bytes (a
 * short string and its separators), up to the maxima: a one-row request
 * of 200 bytes then zeroes and frees 24 slots instead of 1,280 (10 kB),
 * which was most of the cost of parsing it. */
struct fast_parser {
    const char *p, *end;
    int depth;
    /* Build nothing: fast_value() returns json_null() for every value it
     * accepts (the checking pass of lazy arrays). */
    bool check_only;
    struct ds scratch;                  /* Strings with escapes. */
    size_t n_strings, n_integers;       /* Powers of 2. */
    /* 'n_strings' strings, then 'n_integers' integers, each holding one
     * reference. */
    json_t *slots[];
};

static json_t *fast_value(struct fast_parser *);

static void
fast_skip_space(struct fast_parser *fp)
{
    while (fp->p < fp->end && (*fp->p == ' ' || *fp->p == '\n'
                               || *fp->p == '\r' || *fp->p == '\t')) {
        fp->p++;
    }
}

static bool
fast_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Returns a string value of 'length' bytes at 's' (ASCII without control
 * characters), shared with an equal one parsed before if there is one. */
static json_t *
fast_cached_string(struct fast_parser *fp, const char *s, size_t length)
{
    if (length > FAST_MAX_CACHED_LENGTH) {
        return json_stringn_nocheck(s, length);
    }
    size_t i = hash_bytes(s, length, 0) & (fp->n_strings - 1);
    json_t **slot = &fp->slots[i];
    if (*slot && json_string_length(*slot) == length
        && !memcmp(json_string_value(*slot), s, length)) {
        return json_incref(*slot);
    }
    json_decref(*slot);
    *slot = json_stringn_nocheck(s, length);
    return json_incref(*slot);
}

static json_t *
fast_cached_integer(struct fast_parser *fp, long long value)
{
    uint32_t hash = hash_int((uint32_t) value ^ (uint32_t) (value >> 32), 0);
    json_t **slot = &fp->slots[fp->n_strings + (hash & (fp->n_integers - 1))];
    if (*slot && json_integer_value(*slot) == value) {
        return json_incref(*slot);
    }
    json_decref(*slot);
    *slot = json_integer(value);
    return json_incref(*slot);
}

/* Reads 4 hex digits at 'p' into '*value'. */
static bool
fast_hex4(const char *p, const char *end, unsigned int *value)
{
    if (end - p < 4) {
        return false;
    }
    *value = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int digit = (c >= '0' && c <= '9' ? c - '0'
                     : c >= 'a' && c <= 'f' ? c - 'a' + 10
                     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1);
        if (digit < 0) {
            return false;
        }
        *value = *value * 16 + digit;
    }
    return true;
}

static void
fast_put_utf8(struct ds *out, unsigned int c)
{
    if (c < 0x80) {
        ds_put_char(out, c);
    } else if (c < 0x800) {
        ds_put_char(out, 0xc0 | (c >> 6));
        ds_put_char(out, 0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        ds_put_char(out, 0xe0 | (c >> 12));
        ds_put_char(out, 0x80 | ((c >> 6) & 0x3f));
        ds_put_char(out, 0x80 | (c & 0x3f));
    } else {
        ds_put_char(out, 0xf0 | (c >> 18));
        ds_put_char(out, 0x80 | ((c >> 12) & 0x3f));
        ds_put_char(out, 0x80 | ((c >> 6) & 0x3f));
        ds_put_char(out, 0x80 | (c & 0x3f));
    }
}

/* Parses the rest of a string whose opening quote was just consumed.  On
 * success stores its bytes in '*sp' and '*lengthp' (in the input, or in
 * 'fp->scratch' until the next string) and sets '*simplep' if they are
 * ASCII without escapes (else the caller must check the UTF-8). */
static bool
fast_string(struct fast_parser *fp, const char **sp, size_t *lengthp,
            bool *simplep)
{
    const char *start = fp->p, *q = start;
    while (q < fp->end) {
        unsigned char c = *q;
        if (c == '"') {
            *sp = start;
            *lengthp = q - start;
            *simplep = true;
            fp->p = q + 1;
            return true;
        } else if (c < 0x20) {
            return false;
        } else if (c == '\\' || c >= 0x80) {
            break;
        }
        q++;
    }

    struct ds *out = &fp->scratch;
    ds_clear(out);
    ds_put_buffer(out, start, q - start);
    while (q < fp->end) {
        unsigned char c = *q++;
        if (c == '"') {
            *sp = ds_cstr(out);
            *lengthp = out->length;
            *simplep = false;
            fp->p = q;
            return true;
        } else if (c < 0x20) {
            return false;
        } else if (c != '\\') {
            ds_put_char(out, c);
            continue;
        }
        if (q >= fp->end) {
            return false;
        }
        unsigned int cp;
        switch (*q++) {
        case '"': ds_put_char(out, '"'); break;
        case '\\': ds_put_char(out, '\\'); break;
        case '/': ds_put_char(out, '/'); break;
        case 'b': ds_put_char(out, '\b'); break;
        case 'f': ds_put_char(out, '\f'); break;
        case 'n': ds_put_char(out, '\n'); break;
        case 'r': ds_put_char(out, '\r'); break;
        case 't': ds_put_char(out, '\t'); break;
        case 'u':
            if (!fast_hex4(q, fp->end, &cp)) {
                return false;
            }
            q += 4;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned int lo;
                if (fp->end - q < 6 || q[0] != '\\' || q[1] != 'u'
                    || !fast_hex4(q + 2, fp->end, &lo)
                    || lo < 0xdc00 || lo > 0xdfff) {
                    return false;
                }
                q += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else if ((cp >= 0xdc00 && cp <= 0xdfff) || !cp) {
                return false;
            }
            fast_put_utf8(out, cp);
            break;
        default:
            return false;
        }
    }
    return false;
}

/* True if 'length' bytes at 's' are UTF-8 as jansson accepts it: asked of
 * jansson itself, so that checking accepts exactly what building does
 * (only for strings with escapes or non-ASCII bytes, which are rare). */
static bool
fast_is_utf8(const char *s, size_t length)
{
    json_t *json = json_stringn(s, length);
    json_decref(json);
    return json != NULL;
}

static json_t *
fast_number(struct fast_parser *fp)
{
    const char *s = fp->p, *q = s, *end = fp->end;
    bool integral = true;
    if (q < end && *q == '-') {
        q++;
    }
    if (q >= end || !fast_is_digit(*q)) {
        return NULL;
    }
    if (*q == '0') {
        q++;
    } else {
        while (q < end && fast_is_digit(*q)) {
            q++;
        }
    }
    if (q < end && *q == '.') {
        integral = false;
        if (++q >= end || !fast_is_digit(*q)) {
            return NULL;
        }
        while (q < end && fast_is_digit(*q)) {
            q++;
        }
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        integral = false;
        if (++q < end && (*q == '+' || *q == '-')) {
            q++;
        }
        if (q >= end || !fast_is_digit(*q)) {
            return NULL;
        }
        while (q < end && fast_is_digit(*q)) {
            q++;
        }
    }
    size_t length = q - s;
    fp->p = q;

    if (integral && length <= 18) {
        /* Fits in 63 bits, so no respelling. */
        if (fp->check_only) {
            return json_null();
        }
        long long value = 0;
        for (const char *d = s + (*s == '-'); d < q; d++) {
            value = value * 10 + (*d - '0');
        }
        return fast_cached_integer(fp, *s == '-' ? -value : value);
    }

    struct ds text = DS_EMPTY_INITIALIZER;
    if (!respell_number(s, length, &text)) {
        ds_put_buffer(&text, s, length);
    }
    const char *t = ds_cstr(&text);
    json_t *json = NULL;
    errno = 0;
    if (strpbrk(t, ".eE")) {
        double d = strtod(t, NULL);
        if (!isinf(d)) {
            json = json_real(d);
        }
    } else {
        long long value = strtoll(t, NULL, 10);
        if (!errno) {
            json = fast_cached_integer(fp, value);
        }
    }
    ds_destroy(&text);
    if (json && fp->check_only) {
        json_decref(json);
        json = json_null();
    }
    return json;
}

static bool
fast_literal(struct fast_parser *fp, const char *word, size_t length)
{
    if (fp->end - fp->p >= length && !memcmp(fp->p, word, length)) {
        fp->p += length;
        return true;
    }
    return false;
}

/* At the start of a container that ends with 'close': returns true, with
 * the end consumed, if it is empty. */
static bool
fast_is_empty(struct fast_parser *fp, char close)
{
    fast_skip_space(fp);
    if (fp->p < fp->end && *fp->p == close) {
        fp->p++;
        return true;
    }
    return false;
}

/* After an element of a container that ends with 'close': returns 1 if
 * another element follows, 0 if the container ended (either consumed), -1
 * on anything else. */
static int
fast_next(struct fast_parser *fp, char close)
{
    fast_skip_space(fp);
    if (fp->p < fp->end && (*fp->p == ',' || *fp->p == close)) {
        return *fp->p++ == ',';
    }
    return -1;
}

static json_t *
fast_array(struct fast_parser *fp)
{
    json_t *array = fp->check_only ? json_null() : json_array();
    int more = !fast_is_empty(fp, ']');
    while (more > 0) {
        json_t *value = fast_value(fp);
        if (!value
            || (!fp->check_only && json_array_append_new(array, value))) {
            more = -1;
        } else {
            more = fast_next(fp, ']');
        }
    }
    if (more < 0) {
        json_decref(array);
        return NULL;
    }
    return array;
}

/* Parses one "key": value member into 'object'. */
static bool
fast_member(struct fast_parser *fp, json_t *object)
{
    const char *key;
    size_t length;
    bool simple;
    fast_skip_space(fp);
    if (fp->p >= fp->end || *fp->p != '"') {
        return false;
    }
    fp->p++;
    if (!fast_string(fp, &key, &length, &simple)) {
        return false;
    }
    if (fp->check_only) {
        fast_skip_space(fp);
        if (!simple && !fast_is_utf8(key, length)) {
            return false;
        }
        if (fp->p >= fp->end || *fp->p != ':') {
            return false;
        }
        fp->p++;
        return fast_value(fp) != NULL;
    }
    /* 'key' may be in 'scratch', which the value may overwrite. */
    char *key_copy = simple ? NULL : xmemdup0(key, length);
    fast_skip_space(fp);
    json_t *value = NULL;
    if (fp->p < fp->end && *fp->p == ':') {
        fp->p++;
        value = fast_value(fp);
    }
    int error = (!value ? -1
                 : simple ? json_object_setn_new_nocheck(object, key, length,
                                                         value)
                 : json_object_setn_new(object, key_copy, length, value));
    free(key_copy);
    return !error;
}

static json_t *
fast_object(struct fast_parser *fp)
{
    json_t *object = fp->check_only ? json_null() : json_object();
    int more = !fast_is_empty(fp, '}');
    while (more > 0) {
        more = fast_member(fp, object) ? fast_next(fp, '}') : -1;
    }
    if (more < 0) {
        json_decref(object);
        return NULL;
    }
    return object;
}

static json_t *
fast_value(struct fast_parser *fp)
{
    fast_skip_space(fp);
    if (fp->p >= fp->end) {
        return NULL;
    }
    char c = *fp->p;
    if (c == '"') {
        const char *s;
        size_t length;
        bool simple;
        fp->p++;
        if (!fast_string(fp, &s, &length, &simple)) {
            return NULL;
        }
        if (fp->check_only) {
            return simple || fast_is_utf8(s, length) ? json_null() : NULL;
        }
        return simple ? fast_cached_string(fp, s, length)
                      : json_stringn(s, length);   /* Checks UTF-8. */
    } else if (c == '-' || fast_is_digit(c)) {
        return fast_number(fp);
    } else if (c == '[' || c == '{') {
        if (fp->depth >= FAST_MAX_DEPTH) {
            return NULL;
        }
        fp->p++;
        fp->depth++;
        json_t *json = c == '[' ? fast_array(fp) : fast_object(fp);
        fp->depth--;
        return json;
    } else if (fast_literal(fp, "true", 4)) {
        return json_true();
    } else if (fast_literal(fp, "false", 5)) {
        return json_false();
    } else if (fast_literal(fp, "null", 4)) {
        return json_null();
    }
    return NULL;
}

/* The power of 2 from FAST_MIN_SLOTS to 'max' nearest above 'wanted'. */
static size_t
fast_cache_size(size_t wanted, size_t max)
{
    size_t n = FAST_MIN_SLOTS;
    while (n < wanted && n < max) {
        n *= 2;
    }
    return n;
}

static struct fast_parser *
fast_parser_create(const char *s, size_t length)
{
    size_t n_strings = fast_cache_size(length / 16, FAST_MAX_STRINGS);
    size_t n_integers = fast_cache_size(n_strings / 4, FAST_MAX_INTEGERS);
    struct fast_parser *fp = xzalloc(
        sizeof *fp + (n_strings + n_integers) * sizeof *fp->slots);
    fp->p = s;
    fp->end = s + length;
    ds_init(&fp->scratch);
    fp->n_strings = n_strings;
    fp->n_integers = n_integers;
    return fp;
}

static void
fast_parser_destroy(struct fast_parser *fp)
{
    if (fp) {
        for (size_t i = 0; i < fp->n_strings + fp->n_integers; i++) {
            json_decref(fp->slots[i]);
        }
        ds_destroy(&fp->scratch);
        free(fp);
    }
}

static bool fast_parser_enabled = true;

/* Parses 's' as jsonx_loadb() would, or returns NULL if jansson must. */
static json_t *
fast_loadb(const char *s, size_t length, size_t flags)
{
    struct fast_parser *fp = fast_parser_create(s, length);

    /* Without the end-of-input check, only an array or an object ends
     * where jansson would stop reading. */
    fast_skip_space(fp);
    json_t *json = NULL;
    if (fp->p < fp->end
        && (*fp->p == '[' || *fp->p == '{'
            || (flags & (JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK))
               == JSON_DECODE_ANY)) {
        json = fast_value(fp);
    }
    if (json && !(flags & JSON_DISABLE_EOF_CHECK)) {
        fast_skip_space(fp);
        if (fp->p != fp->end) {
            json_decref(json);
            json = NULL;
        }
    }
    fast_parser_destroy(fp);
    return json;
}

/* Lazy arrays. */

/* Element i is bytes [starts[i], ends[i]) of 'text' (the array's, owned);
 * 'fp' parses them, its caches shared by all. */
struct jsonx_lazy_array {
    char *text;
    size_t n;
    size_t *starts, *ends;
    struct fast_parser *fp;
};

/* Checks the array at 'fp->p' (its '[' not consumed yet) without building
 * it and records its elements' spans, relative to the array's start, in a
 * new lazy array (its text not set yet).  Returns NULL if the fast parser
 * does not accept it. */
static struct jsonx_lazy_array *
scan_lazy_array(struct fast_parser *fp)
{
    const char *base = fp->p;
    struct jsonx_lazy_array *lazy = xzalloc(sizeof *lazy);
    size_t allocated = 0;
    fp->check_only = true;
    fp->p++;
    int more = !fast_is_empty(fp, ']');
    while (more > 0) {
        fast_skip_space(fp);
        size_t start = fp->p - base;
        fp->depth++;
        bool ok = fast_value(fp) != NULL;
        fp->depth--;
        if (!ok) {
            more = -1;
            break;
        }
        if (lazy->n >= allocated) {
            lazy->starts = x2nrealloc(lazy->starts, &allocated,
                                      sizeof *lazy->starts);
            lazy->ends = xrealloc(lazy->ends, allocated * sizeof *lazy->ends);
        }
        lazy->starts[lazy->n] = start;
        lazy->ends[lazy->n++] = fp->p - base;
        more = fast_next(fp, ']');
    }
    fp->check_only = false;
    if (more < 0) {
        jsonx_lazy_array_destroy(lazy);
        return NULL;
    }
    return lazy;
}

json_t *
jsonx_loadb_lazy(const char *s, size_t length, const char *member,
                 struct jsonx_lazy_array **lazyp)
{
    *lazyp = NULL;
    if (!fast_parser_enabled) {
        return NULL;
    }
    struct fast_parser *fp = fast_parser_create(s, length);
    struct jsonx_lazy_array *lazy = NULL;
    const char *lazy_start = NULL;
    json_t *object = NULL;

    fast_skip_space(fp);
    if (fp->p >= fp->end || *fp->p != '{') {
        goto fail;
    }
    fp->p++;
    fp->depth = 1;
    object = json_object();
    int more = !fast_is_empty(fp, '}');
    while (more > 0) {
        /* 'member' itself, once, if it is an array; any other member as
         * fast_object() parses it. */
        const char *save = fp->p;
        const char *key;
        size_t key_length;
        bool simple;
        fast_skip_space(fp);
        bool is_lazy = false;
        if (!lazy && fp->p < fp->end && *fp->p == '"') {
            fp->p++;
            if (fast_string(fp, &key, &key_length, &simple) && simple
                && key_length == strlen(member)
                && !memcmp(key, member, key_length)) {
                fast_skip_space(fp);
                if (fp->p < fp->end && *fp->p == ':') {
                    fp->p++;
                    fast_skip_space(fp);
                    is_lazy = fp->p < fp->end && *fp->p == '[';
                }
            }
        }
        if (is_lazy) {
            lazy_start = fp->p;
            lazy = scan_lazy_array(fp);
            more = lazy ? fast_next(fp, '}') : -1;
        } else {
            fp->p = save;
            more = fast_member(fp, object) ? fast_next(fp, '}') : -1;
        }
    }
    fast_skip_space(fp);
    if (more < 0 || fp->p != fp->end
        || (lazy && json_object_get(object, member))) {
        /* An error for jsonx_loadb() to report, or 'member' twice. */
        goto fail;
    }

    if (lazy) {
        lazy->text = xmemdup(lazy_start, fp->p - lazy_start);
        lazy->fp = fp;
        fp = NULL;
    }
    fast_parser_destroy(fp);
    *lazyp = lazy;
    return object;

fail:
    jsonx_lazy_array_destroy(lazy);
    json_decref(object);
    fast_parser_destroy(fp);
    return NULL;
}

size_t
jsonx_lazy_array_size(const struct jsonx_lazy_array *lazy)
{
    return lazy->n;
}

json_t *
jsonx_lazy_array_get(struct jsonx_lazy_array *lazy, size_t i)
{
    if (i >= lazy->n) {
        return NULL;
    }
    struct fast_parser *fp = lazy->fp;
    fp->p = lazy->text + lazy->starts[i];
    fp->end = lazy->text + lazy->ends[i];
    fp->depth = 0;
    return fast_value(fp);
}

json_t *
jsonx_lazy_array_to_json(struct jsonx_lazy_array *lazy)
{
    json_t *array = json_array();
    for (size_t i = 0; i < lazy->n; i++) {
        json_t *element = jsonx_lazy_array_get(lazy, i);
        json_array_append_new(array, element ? element : json_null());
    }
    return array;
}

void
jsonx_lazy_array_destroy(struct jsonx_lazy_array *lazy)
{
    if (lazy) {
        free(lazy->text);
        free(lazy->starts);
        free(lazy->ends);
        fast_parser_destroy(lazy->fp);
        free(lazy);
    }
}

void
jsonx_set_fast_parser(bool enable)
{
    fast_parser_enabled = enable;
}

json_t *
jsonx_loadb(const char *s, size_t length, size_t flags, json_error_t *error)
{
    json_t *fast = fast_parser_enabled ? fast_loadb(s, length, flags) : NULL;
    if (fast) {
        return fast;
    }

    size_t new_length;
    char *respelled = respell_numbers(s, length, &new_length);
    json_t *json = (respelled
                    ? json_loadb(respelled, new_length, flags, error)
                    : json_loadb(s, length, flags, error));
    free(respelled);
    return json;
}

json_t *
jsonx_from_buffer(const char *s, size_t length, char **errorp)
{
    json_error_t error;
    json_t *json = jsonx_loadb(s, length, JSON_DECODE_ANY, &error);
    if (!json) {
        if (errorp) {
            *errorp = xasprintf("line %d, column %d: %s", error.line,
                                error.column, error.text);
        }
        return NULL;
    }
    if (errorp) {
        *errorp = NULL;
    }
    return json;
}

json_t *
jsonx_from_string(const char *s, char **errorp)
{
    return jsonx_from_buffer(s, strlen(s), errorp);
}

json_t *
jsonx_from_file(const char *path, char **errorp)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        if (errorp) {
            *errorp = xasprintf("%s: open failed (%s)", path,
                                ovs_strerror(errno));
        }
        return NULL;
    }

    struct ds buf = DS_EMPTY_INITIALIZER;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0) {
        ds_put_buffer(&buf, chunk, n);
    }
    bool failed = ferror(file);
    fclose(file);
    if (failed) {
        if (errorp) {
            *errorp = xasprintf("%s: read failed", path);
        }
        ds_destroy(&buf);
        return NULL;
    }

    char *error = NULL;
    json_t *json = jsonx_from_buffer(buf.string ? buf.string : "",
                                     buf.length, &error);
    ds_destroy(&buf);
    if (!json) {
        if (errorp) {
            *errorp = xasprintf("%s: %s", path, error);
        }
        free(error);
    } else if (errorp) {
        *errorp = NULL;
    }
    return json;
}

const char *
jsonx_type_name(const json_t *json)
{
    switch (json_typeof(json)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "real";
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    case JSON_NULL:
    default:
        return "null";
    }
}

bool
jsonx_is_tagged_array(const json_t *json, const char *tag, size_t n)
{
    if (!json_is_array(json) || json_array_size(json) != n || !n) {
        return false;
    }
    const json_t *first = json_array_get(json, 0);
    return json_is_string(first) && !strcmp(json_string_value(first), tag);
}

json_t *
jsonx_tagged_new(const char *tag, json_t *value)
{
    json_t *array = json_array();
    json_array_append_new(array, json_string_nocheck(tag));
    json_array_append_new(array, value);
    return array;
}

json_t *
jsonx_object_get(const json_t *object, const char *name)
{
    return json_is_object(object) ? json_object_get(object, name) : NULL;
}
