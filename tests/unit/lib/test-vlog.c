/* tests/unit/lib/test-vlog.c: level specs, the vlog/list table, log line
 * formats in a real file and on the console, patterns, rate limiting and
 * reopening. */
#include <config.h>
#include "lib/vlog.h"

#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "tests/unit/check.h"

VLOG_DEFINE_THIS_MODULE(test_vlog);

static char *dir;

/* Returns the contents of 'file'; caller frees. */
static char *
slurp(const char *file)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    FILE *f = fopen(file, "r");
    if (f) {
        int c;
        while ((c = getc(f)) != EOF) {
            ds_put_char(&s, c);
        }
        fclose(f);
    }
    return ds_steal_cstr(&s);
}

/* Returns the last line of 'file' without its newline; caller frees. */
static char *
last_line(const char *file)
{
    char *text = slurp(file);
    size_t len = strlen(text);
    if (len && text[len - 1] == '\n') {
        text[--len] = '\0';
    }
    char *nl = strrchr(text, '\n');
    char *line = xstrdup(nl ? nl + 1 : text);
    free(text);
    return line;
}

static void
check_matches(const char *s, const char *re)
{
    regex_t r;
    CHECK_INTEQ(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
    if (regexec(&r, s, 0, NULL, 0)) {
        fprintf(stderr, "\"%s\" does not match /%s/\n", s, re);
        check_failures++;
    }
    regfree(&r);
}

static void
check_spec_error(const char *spec, const char *expected)
{
    char *msg = vlog_set_levels_from_string(spec);
    CHECK_STREQ(msg, expected);
    free(msg);
}

static void
check_spec(const char *spec)
{
    char *msg = vlog_set_levels_from_string(spec);
    if (msg) {
        fprintf(stderr, "spec \"%s\": %s\n", spec, msg);
        check_failures++;
    }
    free(msg);
}

static void
test_levels(void)
{
    CHECK_STREQ(vlog_get_level_name(VLL_WARN), "warn");
    CHECK_INTEQ(vlog_get_level_val("DBG"), VLL_DBG);
    CHECK_INTEQ(vlog_get_level_val("nope"), VLL_N_LEVELS);
    CHECK_STREQ(vlog_get_destination_name(VLF_FILE), "file");
    CHECK_INTEQ(vlog_get_destination_val("Console"), VLF_CONSOLE);

    struct vlog_module *m = vlog_module_from_name("test_vlog");
    CHECK(m == this_module);
    struct vlog_module *vm = vlog_module_from_name("vlog");
    CHECK(vm != NULL);

    check_spec("console:warn");
    CHECK_INTEQ(vlog_get_level(m, VLF_CONSOLE), VLL_WARN);
    CHECK_INTEQ(vlog_get_level(vm, VLF_CONSOLE), VLL_WARN);
    check_spec("test_vlog:file:dbg");
    CHECK_INTEQ(vlog_get_level(m, VLF_FILE), VLL_DBG);
    CHECK_INTEQ(vlog_get_level(vm, VLF_FILE), VLL_INFO);
    check_spec("ANY:syslog:off");
    CHECK_INTEQ(vlog_get_level(m, VLF_SYSLOG), VLL_OFF);
    check_spec("test_vlog");                     /* No level: dbg. */
    CHECK_INTEQ(vlog_get_level(m, VLF_CONSOLE), VLL_DBG);
    check_spec("test_vlog,console,emer");
    CHECK_INTEQ(vlog_get_level(m, VLF_CONSOLE), VLL_EMER);

    check_spec_error("foo", "no destination, level, or module \"foo\"");
    check_spec_error("console:warn:info", "cannot specify multiple levels");
    check_spec_error("console:file", "cannot specify multiple destinations");
    check_spec_error("vlog:test_vlog", "cannot specify multiple modules");
    /* Errors change nothing. */
    CHECK_INTEQ(vlog_get_level(m, VLF_CONSOLE), VLL_EMER);

    /* A module of Open vSwitch's library that we do not have is accepted
     * and changes nothing (not "every module", as no module would). */
    CHECK(vlog_module_from_name("timeval") == NULL);
    check_spec("timeval:off");
    check_spec("console:ovsdb_idl:dbg");
    CHECK_INTEQ(vlog_get_level(m, VLF_CONSOLE), VLL_EMER);
    CHECK_INTEQ(vlog_get_level(vm, VLF_CONSOLE), VLL_WARN);
    check_spec_error("timeval:vlog", "cannot specify multiple modules");
    check_spec_error("vlog:timeval", "cannot specify multiple modules");

    /* vlog/list table, byte for byte the reference's layout. */
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_INFO);
    check_spec("test_vlog:console:emer");
    check_spec("test_vlog:syslog:off");
    check_spec("test_vlog:file:dbg");
    char *table = vlog_get_levels();
    const char *header = "                 console    syslog    file\n"
                         "                 -------    ------    ------\n";
    CHECK(!strncmp(table, header, strlen(header)));
    CHECK(strstr(table, "\ntest_vlog         EMER        OFF        DBG\n")
          != NULL);
    CHECK(strstr(table, "\nvlog              INFO       INFO       INFO\n")
          != NULL);
    /* Sorted by name. */
    CHECK(strstr(table, "\ntest_vlog ") < strstr(table, "\nvlog "));
    free(table);

    vlog_set_verbosity(NULL);
    CHECK_INTEQ(vlog_get_level(vm, VLF_SYSLOG), VLL_DBG);
    vlog_set_verbosity("off");
    CHECK_INTEQ(vlog_get_level(vm, VLF_FILE), VLL_OFF);
    CHECK(!VLOG_IS_ERR_ENABLED());
}

static void
test_file_and_console(void)
{
    char *log = xasprintf("%s/test.log", dir);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_OFF);
    vlog_set_levels(this_module, VLF_FILE, VLL_INFO);
    vlog_set_levels(vlog_module_from_name("vlog"), VLF_FILE, VLL_INFO);

    CHECK_INTEQ(vlog_set_log_file(log), 0);
    CHECK_STREQ(vlog_get_log_file(), log);
    char *line = last_line(log);
    char *re = xasprintf("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
                         "[0-9]{2}\\.[0-9]{3}Z\\|[0-9]{5}\\|vlog\\|INFO\\|"
                         "opened log file %s$", log);
    check_matches(line, re);
    free(re);
    free(line);

    VLOG_INFO("hello %d", 42);
    line = last_line(log);
    check_matches(line, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
                  "[0-9]{2}\\.[0-9]{3}Z\\|[0-9]{5}\\|test_vlog\\|INFO\\|"
                  "hello 42$");
    /* Sequence numbers count up. */
    unsigned int seq1 = strtoul(strchr(line, '|') + 1, NULL, 10);
    free(line);
    VLOG_WARN("again");
    line = last_line(log);
    unsigned int seq2 = strtoul(strchr(line, '|') + 1, NULL, 10);
    CHECK_INTEQ(seq2, seq1 + 1);
    CHECK(strstr(line, "|test_vlog|WARN|again") != NULL);
    free(line);

    /* Below the level: not written. */
    VLOG_DBG("invisible");
    line = last_line(log);
    CHECK(strstr(line, "invisible") == NULL);
    free(line);

    /* Console: stderr, seconds only. */
    char *console = xasprintf("%s/console.txt", dir);
    int fd = open(console, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    vlog_set_levels(this_module, VLF_CONSOLE, VLL_WARN);
    VLOG_ERR("on console");
    VLOG_INFO("not on console");
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fd);
    line = slurp(console);
    check_matches(line, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
                  "[0-9]{2}Z\\|[0-9]{5}\\|test_vlog\\|ERR\\|on console\n$");
    free(line);
    free(console);
    vlog_set_levels(this_module, VLF_CONSOLE, VLL_OFF);

    /* Patterns. */
    check_spec("PATTERN:file:%c|%p|%-6m|%5N|%%");
    VLOG_WARN("ab");
    line = last_line(log);
    check_matches(line, "^test_vlog\\|WARN\\|ab    \\| +[0-9]+\\|%$");
    free(line);
    char *patterns = vlog_get_patterns();
    CHECK(strstr(patterns, "FILE     none                              "
                 "%c|%p|%-6m|%5N|%%\n") != NULL);
    CHECK(strstr(patterns, "CONSOLE  none                              "
                 "%D{%Y-%m-%dT%H:%M:%SZ}|%05N|%c%T|%p|%m\n") != NULL);
    free(patterns);
    vlog_set_pattern(VLF_FILE, "%c|%p|%m");

    /* Rate limiting: a burst of 3, then drops, then a summary. */
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(120, 3);
    for (int i = 0; i < 10; i++) {
        VLOG_WARN_RL(&rl, "burst %d", i);
    }
    char *text = slurp(log);
    CHECK(strstr(text, "burst 2\n") != NULL);
    CHECK(strstr(text, "burst 3\n") == NULL);
    free(text);
    usleep(600 * 1000);         /* 120/min = 1 per 500 ms. */
    VLOG_WARN_RL(&rl, "after pause");
    text = slurp(log);
    CHECK(strstr(text, "test_vlog|WARN|Dropped 7 log messages in last ")
          != NULL);
    CHECK(strstr(text, "due to excessive rate\ntest_vlog|WARN|after pause\n")
          != NULL);
    free(text);

    /* Reopen after rotation. */
    char *old = xasprintf("%s.1", log);
    CHECK_INTEQ(rename(log, old), 0);
    CHECK_INTEQ(vlog_reopen_log_file(), 0);
    VLOG_WARN("fresh");
    text = slurp(log);
    CHECK(strstr(text, "vlog|INFO|opened log file") != NULL);
    CHECK(strstr(text, "fresh") != NULL);
    CHECK(strstr(text, "burst") == NULL);
    free(text);

    /* A log file that cannot be opened keeps the old one. */
    CHECK(vlog_set_log_file("/nonexistent-dir/x.log") != 0);
    CHECK_STREQ(vlog_get_log_file(), log);

    vlog_close_log_file();
    CHECK(vlog_get_log_file() == NULL);
    CHECK_INTEQ(vlog_reopen_log_file(), 0);
    free(old);
    free(log);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_levels),
    CHECK_CASE(test_file_and_console),
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    char tmpl[] = "/tmp/test-vlog.XXXXXX";
    dir = mkdtemp(tmpl);
    CHECK(dir != NULL);

    int status = check_main(argc, argv, "test-vlog", cases,
                            sizeof cases / sizeof *cases);

    char *cmd = xasprintf("rm -rf %s", dir);
    CHECK_INTEQ(system(cmd), 0);
    free(cmd);
    return status;
}
