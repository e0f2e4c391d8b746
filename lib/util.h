/* lib/util.h: small macros and helpers every module uses.
 *
 * Nothing here knows about OVSDB.  Keep it small: a helper belongs here only
 * if it has no better home. */
#ifndef LIB_UTIL_H
#define LIB_UTIL_H 1

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define ARRAY_SIZE(a) (sizeof (a) / sizeof *(a))

/* Given 'pointer' to member 'member' of a struct of type 'type', returns the
 * struct. */
#define CONTAINER_OF(pointer, type, member)                                  \
    ((type *) (void *) ((char *) (pointer) - offsetof(type, member)))

/* Like CONTAINER_OF, but takes the type from 'object' (so iteration macros
 * need no type argument).  'object' need not be initialized. */
#define OBJECT_CONTAINING(pointer, object, member)                           \
    ((__typeof__(object)) (void *) ((char *) (pointer)                       \
                                    - offsetof(__typeof__(*(object)), member)))

#define WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#define PRINTF_FORMAT(fmt, arg1) __attribute__((__format__(printf, fmt, arg1)))
#define OVS_UNUSED __attribute__((__unused__))
#define OVS_LIKELY(x) __builtin_expect(!!(x), 1)
#define OVS_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Prints "PROGRAM: message" (plus strerror(err) if 'err' is nonzero) to
 * stderr and exits with status 1. */
noreturn void ovs_fatal(int err, const char *fmt, ...) PRINTF_FORMAT(2, 3);

/* Prints "PROGRAM: message" (plus strerror(err) if 'err' is nonzero) to
 * stderr. */
void ovs_error(int err, const char *fmt, ...) PRINTF_FORMAT(2, 3);

/* Sets the program name used in messages, from argv[0]. */
void set_program_name(const char *argv0);
const char *program_name(void);

/* Returns strerror(err), with EOF spelled "End of file". */
const char *ovs_strerror(int err);

/* Returns true if 'a' and 'b' are equal strings, treating NULL as a string
 * distinct from every other. */
bool nullable_string_is_equal(const char *a, const char *b);

/* Parses 's' as a base-10 integer into '*valuep'.  Returns false if 's' is
 * not entirely a number that fits. */
bool str_to_llong(const char *s, long long *valuep);
bool str_to_int(const char *s, int *valuep);

/* Writes 'value' in base 10 at 'buf' (no terminating NUL; 20 bytes are
 * always enough) and returns the number of digits.  For text written on
 * every record or message, where a printf would cost more than the rest. */
size_t ullong_to_dec(unsigned long long value, char buf[20]);

#endif /* lib/util.h */
