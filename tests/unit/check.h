/* tests/unit/check.h: minimal assertions for unit tests.
 *
 * A unit test is a program: it runs its checks and exits 0 if all passed,
 * 1 otherwise.  CHECK() reports the file and line of each failure and keeps
 * going, so one run shows every failure. */
#ifndef TESTS_UNIT_CHECK_H
#define TESTS_UNIT_CHECK_H 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(COND)                                                          \
    do {                                                                     \
        if (!(COND)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #COND);                                                  \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

#define CHECK_STREQ(A, B)                                                    \
    do {                                                                     \
        const char *a_ = (A), *b_ = (B);                                     \
        if (!a_ || !b_ || strcmp(a_, b_)) {                                  \
            fprintf(stderr, "%s:%d: check failed: %s == %s\n"                \
                    "    got:      %s\n    expected: %s\n",                  \
                    __FILE__, __LINE__, #A, #B, a_ ? a_ : "(null)",          \
                    b_ ? b_ : "(null)");                                     \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

#define CHECK_INTEQ(A, B)                                                    \
    do {                                                                     \
        long long a_ = (A), b_ = (B);                                        \
        if (a_ != b_) {                                                      \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n",\
                    __FILE__, __LINE__, #A, #B, a_, b_);                     \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

/* Ends main(): prints a summary and returns the exit status. */
static inline int
check_report(const char *name)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

#endif /* tests/unit/check.h */
