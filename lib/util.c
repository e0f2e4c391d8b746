/* lib/util.c: see util.h. */
#include <config.h>
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *the_program_name = "ovsdb";

void
set_program_name(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    the_program_name = slash ? slash + 1 : argv0;
    if (!strncmp(the_program_name, "lt-", 3)) {
        the_program_name += 3;
    }
}

const char *
program_name(void)
{
    return the_program_name;
}

const char *
ovs_strerror(int err)
{
    return err == EOF ? "End of file" : strerror(err);
}

static void
verror(int err, const char *fmt, va_list args)
{
    fprintf(stderr, "%s: ", the_program_name);
    vfprintf(stderr, fmt, args);
    if (err) {
        fprintf(stderr, " (%s)", ovs_strerror(err));
    }
    fputc('\n', stderr);
}

void
ovs_fatal(int err, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    verror(err, fmt, args);
    va_end(args);
    exit(EXIT_FAILURE);
}

void
ovs_error(int err, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    verror(err, fmt, args);
    va_end(args);
}

bool
nullable_string_is_equal(const char *a, const char *b)
{
    return a ? b && !strcmp(a, b) : !b;
}

size_t
ullong_to_dec(unsigned long long value, char buf[20])
{
    char rev[20];
    size_t n = 0;
    do {
        rev[n++] = '0' + value % 10;
        value /= 10;
    } while (value);
    for (size_t i = 0; i < n; i++) {
        buf[i] = rev[n - 1 - i];
    }
    return n;
}

bool
str_to_llong(const char *s, long long *valuep)
{
    char *end;
    errno = 0;
    long long value = strtoll(s, &end, 10);
    if (errno || end == s || *end) {
        return false;
    }
    *valuep = value;
    return true;
}

bool
str_to_int(const char *s, int *valuep)
{
    long long value;
    if (!str_to_llong(s, &value) || value < INT_MIN || value > INT_MAX) {
        return false;
    }
    *valuep = value;
    return true;
}
