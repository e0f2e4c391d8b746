/* tests/unit/lib/test-unixctl.c: the control socket over a real unix socket.
 *
 * Without arguments: forks a server process and checks every kind of
 * exchange with unixctl_client_transact().
 *
 * "test-unixctl serve [--unixctl=PATH] [daemon and logging options]" is a
 * tiny daemon for tests/e2e/unixctl-appctl.sh: it serves commands "echo"
 * (replies with its arguments joined by spaces), "fail" (replies with an
 * error), "later" (replies on the next loop iteration) and "exit". */
#include <config.h>
#include "lib/unixctl.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/daemon.h"
#include "lib/ds.h"
#include "lib/fatal-signal.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/stream.h"
#include "lib/timeval.h"
#include "lib/vlog.h"
#include "tests/unit/check.h"

VLOG_DEFINE_THIS_MODULE(test_unixctl);

static bool exiting;
static struct unixctl_conn *deferred;

static void
echo_cb(struct unixctl_conn *conn, int argc, const char *argv[],
        void *aux OVS_UNUSED)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    for (int i = 1; i < argc; i++) {
        ds_put_format(&s, "%s%s", i > 1 ? " " : "", argv[i]);
    }
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
fail_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
        const char *argv[] OVS_UNUSED, void *aux)
{
    unixctl_command_reply_error(conn, aux);
}

static void
later_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
         const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    deferred = conn;
}

static void
exit_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
        const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    exiting = true;
    unixctl_command_reply(conn, NULL);
}

static void
register_commands(void)
{
    unixctl_command_register("echo", "[ARG...]", 0, INT_MAX, echo_cb, NULL);
    unixctl_command_register("fail", "", 0, 0, fail_cb, "it failed");
    unixctl_command_register("later", "", 0, 0, later_cb, NULL);
    unixctl_command_register("exit", "", 0, 0, exit_cb, NULL);
    unixctl_set_version("test-unixctl (ovsdb) 9.9.9");
}

/* Runs the server loop until "exit".  Returns the exit status. */
static int
serve(const char *path)
{
    struct unixctl_server *server;
    register_commands();
    int error = unixctl_server_create(path, &server);
    if (error) {
        return 1;
    }
    daemonize_complete();
    VLOG_INFO("serving on %s", unixctl_server_get_path(server));
    while (!exiting) {
        if (deferred) {
            unixctl_command_reply(deferred, "deferred reply");
            deferred = NULL;
        }
        unixctl_server_run(server);
        unixctl_server_wait(server);
        if (deferred || exiting) {
            poll_immediate_wake();
        }
        poll_block();
    }
    /* Let the reply to "exit" go out. */
    unixctl_server_run(server);
    unixctl_server_destroy(server);
    return 0;
}

static int
serve_main(int argc, char *argv[])
{
    enum { OPT_UNIXCTL = UCHAR_MAX + 1, DAEMON_OPTION_ENUMS,
           VLOG_OPTION_ENUMS };
    static const struct option long_options[] = {
        {"unixctl", required_argument, NULL, OPT_UNIXCTL},
        DAEMON_LONG_OPTIONS,
        VLOG_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *path = NULL;

    for (;;) {
        int c = getopt_long(argc, argv, "v::", long_options, NULL);
        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_UNIXCTL:
            path = optarg;
            break;
        DAEMON_OPTION_HANDLERS
        VLOG_OPTION_HANDLERS
        default:
            return 2;
        }
    }
    daemonize_start();
    return serve(path);
}

/* Runs 'command' with the given arguments on a fresh connection to
 * 'path'; returns "R:result" or "E:error" or "X:errno", caller frees. */
static char *
transact(const char *path, const char *command, int argc, char *argv[])
{
    struct jsonrpc *client;
    int error = unixctl_client_create(path, &client);
    if (error) {
        return xasprintf("X:%s", ovs_strerror(error));
    }
    char *result, *err;
    error = unixctl_client_transact(client, command, argc, argv, &result,
                                    &err);
    jsonrpc_close(client);
    char *s = (error ? xasprintf("X:%s", ovs_strerror(error))
               : result ? xasprintf("R:%s", result)
               : xasprintf("E:%s", err));
    free(result);
    free(err);
    return s;
}

#define CHECK_TRANSACT(PATH, EXPECTED, COMMAND, ...)                         \
    do {                                                                     \
        char *args_[] = { __VA_ARGS__ };                                     \
        char *got_ = transact(PATH, COMMAND, ARRAY_SIZE(args_) - 1, args_);  \
        CHECK_STREQ(got_, EXPECTED);                                         \
        free(got_);                                                          \
    } while (0)

/* The server process the cases talk to, started by server_path(). */
static char *dir;
static char *path;
static pid_t server_pid;

/* Returns the server's socket path, starting the server first if it is not
 * running, and waiting for its socket to appear. */
static const char *
server_path(void)
{
    if (!server_pid) {
        server_pid = fork();
        if (!server_pid) {
            _exit(serve(path));
        }
        struct stat st;
        for (int i = 0; i < 500 && stat(path, &st); i++) {
            usleep(10000);
        }
    }
    return path;
}

/* The socket is a socket that only its owner may use. */
static void
test_socket(void)
{
    struct stat st;
    CHECK(!stat(server_path(), &st));
    CHECK(S_ISSOCK(st.st_mode));
    CHECK_INTEQ(st.st_mode & 0777, 0700);
}

/* Replies, errors, deferred replies, built-in commands, bad commands and
 * argument counts. */
static void
test_commands(void)
{
    const char *path = server_path();
    CHECK_TRANSACT(path, "R:a b c\n", "echo", "a", "b c", NULL);
    CHECK_TRANSACT(path, "R:", "echo", NULL);
    CHECK_TRANSACT(path, "E:it failed\n", "fail", NULL);
    CHECK_TRANSACT(path, "R:deferred reply\n", "later", NULL);
    CHECK_TRANSACT(path, "R:test-unixctl (ovsdb) 9.9.9\n", "version", NULL);
    CHECK_TRANSACT(path,
                   "E:\"nope\" is not a valid command (use \"list-commands\" "
                   "to see a list of valid commands)\n",
                   "nope", NULL);
    CHECK_TRANSACT(path, "E:\"fail\" command takes at most 0 arguments\n",
                   "fail", "x", NULL);
}

/* list-commands: sorted, usage column at 26. */
static void
test_list_commands(void)
{
    char *got = transact(server_path(), "list-commands", 0, NULL);
    CHECK(!strncmp(got, "R:The available commands are:\n", 30));
    CHECK(strstr(got, "\n  echo                    [ARG...]\n") != NULL);
    CHECK(strstr(got, "\n  vlog/list               \n") != NULL);
    CHECK(strstr(got, "  exit") < strstr(got, "  vlog/list"));
    free(got);
}

/* vlog/set refuses a bad word; vlog/list reflects a good one. */
static void
test_vlog(void)
{
    const char *path = server_path();
    CHECK_TRANSACT(path, "E:no destination, level, or module \"bogus\"\n",
                   "vlog/set", "bogus", NULL);
    CHECK_TRANSACT(path, "R:", "vlog/set", "unixctl:file:dbg", NULL);
    char *got = transact(path, "vlog/list", 0, NULL);
    CHECK(strstr(got, "\nunixctl            OFF       INFO        DBG\n")
          != NULL);
    free(got);
}

/* Several requests on one connection. */
static void
test_one_connection(void)
{
    struct jsonrpc *client;
    CHECK_INTEQ(unixctl_client_create(server_path(), &client), 0);
    for (int i = 0; i < 3; i++) {
        char *result, *err;
        char *args[] = { "x" };
        CHECK_INTEQ(unixctl_client_transact(client, "echo", 1, args, &result,
                                            &err), 0);
        CHECK_STREQ(result, "x\n");
        CHECK(err == NULL);
        free(result);
        free(err);
    }
    jsonrpc_close(client);
}

/* A non-string argument is an error, not a crash. */
static void
test_non_string_argument(void)
{
    struct jsonrpc *client;
    CHECK_INTEQ(unixctl_client_create(server_path(), &client), 0);
    json_t *params = json_pack("[i]", 5);
    struct jsonrpc_msg *reply;
    CHECK_INTEQ(jsonrpc_transact_block(
                    client, jsonrpc_create_request("echo", params, NULL),
                    &reply), 0);
    CHECK(reply && reply->type == JSONRPC_ERROR);
    CHECK_STREQ(json_string_value(reply->error),
                "\"echo\" command has non-string argument: 5\n");
    jsonrpc_msg_destroy(reply);
    jsonrpc_close(client);
}

/* Garbage, a notification and a reply each close only their own
 * connection; the server keeps serving. */
static void
test_junk(void)
{
    const char *path = server_path();
    static const char *const junk[] = {
        "{\"id\":1,,}",
        "{\"id\":null,\"method\":\"echo\",\"params\":[]}",
        "{\"id\":1,\"result\":\"x\",\"error\":null}",
    };
    for (size_t i = 0; i < ARRAY_SIZE(junk); i++) {
        struct stream *raw;
        char *name = xasprintf("unix:%s", path);
        CHECK_INTEQ(stream_open_block(stream_open(name, &raw), 5000, &raw),
                    0);
        free(name);
        CHECK_INTEQ(stream_send(raw, junk[i], strlen(junk[i])),
                    strlen(junk[i]));
        char buf[64];
        ssize_t n;
        long long deadline = time_msec() + 5000;
        while ((n = stream_recv(raw, buf, sizeof buf)) == -EAGAIN
               && time_msec() < deadline) {
            stream_recv_wait(raw);
            poll_timer_wait_until(deadline);
            poll_block();
        }
        CHECK(n == 0 || n == -ECONNRESET);
        stream_close(raw);
        CHECK_TRANSACT(path, "R:still here\n", "echo", "still here", NULL);
    }
}

/* "exit" ends the server, which removes its socket. */
static void
test_exit(void)
{
    struct stat st;
    CHECK_TRANSACT(server_path(), "R:", "exit", NULL);
    int status;
    CHECK(waitpid(server_pid, &status, 0) == server_pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    server_pid = 0;

    CHECK(stat(path, &st) < 0 && errno == ENOENT);
    char *got = transact(path, "echo", 0, NULL);
    CHECK(!strncmp(got, "X:", 2));
    free(got);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_socket),         CHECK_CASE(test_commands),
    CHECK_CASE(test_list_commands),  CHECK_CASE(test_vlog),
    CHECK_CASE(test_one_connection), CHECK_CASE(test_non_string_argument),
    CHECK_CASE(test_junk),           CHECK_CASE(test_exit),
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc > 1 && !strcmp(argv[1], "serve")) {
        return serve_main(argc - 1, argv + 1);
    }

    char template[] = "/tmp/test-unixctl.XXXXXX";
    dir = mkdtemp(template);
    CHECK(dir != NULL);
    path = xasprintf("%s/test.ctl", dir);
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);
    fatal_signal_init();

    int status = check_main(argc, argv, "test-unixctl", cases,
                            ARRAY_SIZE(cases));

    /* A selection without "exit" leaves the server running. */
    if (server_pid) {
        kill(server_pid, SIGTERM);
        waitpid(server_pid, NULL, 0);
        unlink(path);
    }
    rmdir(dir);
    free(path);
    return status;
}
