/* tests/unit/check.h: minimal assertions and named cases for unit tests.
 *
 * A unit test is a program: it runs its checks and exits 0 if all passed,
 * 1 otherwise.  CHECK() reports the file and line of each failure and keeps
 * going, so one run shows every failure.
 *
 * Its checks are grouped in named cases, functions listed in a table and
 * run by check_main():
 *     static const struct check_case cases[] = {
 *         CHECK_CASE(test_framing),       (named "framing")
 *         CHECK_CASE(test_limits),
 *     };
 *     return check_main(argc, argv, "test-jsonrpc", cases,
 *                       ARRAY_SIZE(cases));
 * "test-jsonrpc" runs every case in order; "test-jsonrpc framing limits"
 * runs only those; "test-jsonrpc --list" prints the names.  Each case run
 * prints "NAME: ok" or "NAME: FAILED (N checks)". */
#ifndef TESTS_UNIT_CHECK_H
#define TESTS_UNIT_CHECK_H 1

#include <stdbool.h>
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

struct check_case {
    /* The function's name, shown without "test_". */
    const char *name;
    void (*function)(void);
};
/* clang-format off */
#define CHECK_CASE(FUNCTION) { #FUNCTION, FUNCTION }
/* clang-format on */

static inline const char *
check_case_name(const struct check_case *c)
{
    return !strncmp(c->name, "test_", 5) ? c->name + 5 : c->name;
}

static inline void
check_run_case(const struct check_case *c)
{
    int before = check_failures;
    c->function();
    if (check_failures == before) {
        printf("%s: ok\n", check_case_name(c));
    } else {
        printf("%s: FAILED (%d checks)\n", check_case_name(c),
               check_failures - before);
    }
    fflush(stdout);
}

/* Runs the cases named in argv[1...], or all of them if there are none;
 * returns check_report(program), or 2 for an unknown case name. */
static inline int
check_main(int argc, char *argv[], const char *program,
           const struct check_case *cases, size_t n_cases)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < n_cases; i++) {
            printf("%s\n", check_case_name(&cases[i]));
        }
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        size_t j = 0;
        while (j < n_cases && strcmp(argv[i], check_case_name(&cases[j]))) {
            j++;
        }
        if (j == n_cases) {
            fprintf(stderr, "%s: no case \"%s\" (--list lists them)\n",
                    program, argv[i]);
            return 2;
        }
    }
    for (size_t i = 0; i < n_cases; i++) {
        bool selected = argc < 2;
        for (int j = 1; j < argc && !selected; j++) {
            selected = !strcmp(argv[j], check_case_name(&cases[i]));
        }
        if (selected) {
            check_run_case(&cases[i]);
        }
    }
    return check_report(program);
}

#endif /* tests/unit/check.h */
