/* lib/unixctl.c: see unixctl.h. */
#include <config.h>
#include "lib/unixctl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "lib/jsonrpc.h"
#include "lib/stream.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(unixctl);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

struct unixctl_command {
    struct hmap_node node;      /* In 'commands', by hash of 'name'. */
    char *name;
    char *usage;
    int min_args, max_args;
    unixctl_cb_func *cb;
    void *aux;
};

static struct hmap commands = HMAP_INITIALIZER(&commands);
static char *version_text;

struct unixctl_conn {
    struct unixctl_conn *prev, *next;   /* In the server's list. */
    struct jsonrpc *rpc;
    json_t *request_id;         /* Request being served, or NULL. */
};

struct unixctl_server {
    struct pstream *listener;
    struct unixctl_conn *conns;         /* Doubly linked, NULL-terminated. */
    char *path;
};

static struct unixctl_command *
find_command(const char *name)
{
    struct unixctl_command *command;
    HMAP_FOR_EACH_WITH_HASH (command, node, hash_string(name, 0), &commands) {
        if (!strcmp(command->name, name)) {
            return command;
        }
    }
    return NULL;
}

void
unixctl_command_register(const char *name, const char *usage, int min_args,
                         int max_args, unixctl_cb_func *cb, void *aux)
{
    struct unixctl_command *command = find_command(name);
    if (!command) {
        command = xzalloc(sizeof *command);
        command->name = xstrdup(name);
        hmap_insert(&commands, &command->node, hash_string(name, 0));
    }
    free(command->usage);
    command->usage = xstrdup(usage ? usage : "");
    command->min_args = min_args;
    command->max_args = max_args;
    command->cb = cb;
    command->aux = aux;
}

static void
reply(struct unixctl_conn *conn, bool success, const char *body)
{
    if (!conn->request_id) {
        VLOG_WARN("second reply to one unixctl command ignored");
        return;
    }
    body = body ? body : "";
    size_t len = strlen(body);
    char *text = (len && body[len - 1] != '\n' ? xasprintf("%s\n", body)
                  : xstrdup(body));
    json_t *json = json_string(text);
    if (!json) {
        /* Not UTF-8: send something a client can still show. */
        json = json_string("(reply text is not valid UTF-8)\n");
    }
    free(text);

    VLOG_DBG("replying with %s, id=%s", success ? "success" : "error",
             json_is_string(conn->request_id)
             ? json_string_value(conn->request_id) : "(non-string)");
    jsonrpc_send(conn->rpc,
                 success ? jsonrpc_create_reply(json, conn->request_id)
                         : jsonrpc_create_error(json, conn->request_id));
    json_decref(conn->request_id);
    conn->request_id = NULL;
}

void
unixctl_command_reply(struct unixctl_conn *conn, const char *body)
{
    reply(conn, true, body);
}

void
unixctl_command_reply_error(struct unixctl_conn *conn, const char *body)
{
    reply(conn, false, body);
}

void
unixctl_set_version(const char *text)
{
    free(version_text);
    version_text = xstrdup(text);
}

static int
compare_commands(const void *a_, const void *b_)
{
    const struct unixctl_command *const *a = a_;
    const struct unixctl_command *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

static void
list_commands(struct unixctl_conn *conn, int argc OVS_UNUSED,
              const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    size_t n = hmap_count(&commands);
    const struct unixctl_command **sorted = xcalloc(n ? n : 1,
                                                    sizeof *sorted);
    const struct unixctl_command *command;
    size_t i = 0;
    HMAP_FOR_EACH (command, node, &commands) {
        sorted[i++] = command;
    }
    qsort(sorted, n, sizeof *sorted, compare_commands);

    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&s, "The available commands are:\n");
    for (i = 0; i < n; i++) {
        ds_put_format(&s, "  %-23s %s\n", sorted[i]->name, sorted[i]->usage);
    }
    free(sorted);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
version(struct unixctl_conn *conn, int argc OVS_UNUSED,
        const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    if (version_text) {
        unixctl_command_reply(conn, version_text);
    } else {
        char *text = xasprintf("%s (ovsdb) %s", program_name(),
                               PACKAGE_VERSION);
        unixctl_command_reply(conn, text);
        free(text);
    }
}

static void
register_builtins(void)
{
    static bool done;
    if (!done) {
        done = true;
        unixctl_command_register("list-commands", "", 0, 0, list_commands,
                                 NULL);
        unixctl_command_register("help", "", 0, 0, list_commands, NULL);
        unixctl_command_register("version", "", 0, 0, version, NULL);
        vlog_register_unixctl_commands();
    }
}

int
unixctl_server_create(const char *path, struct unixctl_server **serverp)
{
    *serverp = NULL;
    register_builtins();
    if (path && !strcmp(path, "none")) {
        return 0;
    }

    char *abs_path;
    if (!path) {
        abs_path = xasprintf("%s/%s.%ld.ctl", dirs_rundir(), program_name(),
                             (long) getpid());
    } else if (strchr(path, '/')) {
        abs_path = xstrdup(path);
    } else {
        abs_path = dirs_abs_file_name(dirs_rundir(), path);
    }

    char *name = xasprintf("punix:%s", abs_path);
    struct pstream *listener;
    int error = pstream_open(name, &listener);
    free(name);
    if (error) {
        ovs_error(error, "%s: could not initialize control socket", abs_path);
        free(abs_path);
        return error;
    }

    struct unixctl_server *server = xzalloc(sizeof *server);
    server->listener = listener;
    server->path = abs_path;
    *serverp = server;
    return 0;
}

static void
kill_connection(struct unixctl_server *server, struct unixctl_conn *conn)
{
    if (conn->prev) {
        conn->prev->next = conn->next;
    } else {
        server->conns = conn->next;
    }
    if (conn->next) {
        conn->next->prev = conn->prev;
    }
    jsonrpc_close(conn->rpc);
    json_decref(conn->request_id);
    free(conn);
}

static void
process_command(struct unixctl_conn *conn, struct jsonrpc_msg *request)
{
    const struct unixctl_command *command = find_command(request->method);
    size_t n = json_array_size(request->params);
    char *error = NULL;

    conn->request_id = json_incref(request->id);
    if (!command) {
        error = xasprintf("\"%s\" is not a valid command (use "
                          "\"list-commands\" to see a list of valid "
                          "commands)", request->method);
    } else if (n < command->min_args) {
        error = xasprintf("\"%s\" command requires at least %d arguments",
                          request->method, command->min_args);
    } else if (n > command->max_args) {
        error = xasprintf("\"%s\" command takes at most %d arguments",
                          request->method, command->max_args);
    } else {
        const char **argv = xcalloc(n + 2, sizeof *argv);
        argv[0] = request->method;
        for (size_t i = 0; i < n; i++) {
            json_t *arg = json_array_get(request->params, i);
            if (!json_is_string(arg)) {
                char *s = json_dumps(arg, JSON_COMPACT | JSON_ENCODE_ANY);
                error = xasprintf("\"%s\" command has non-string argument: "
                                  "%s", request->method, s ? s : "?");
                free(s);
                break;
            }
            argv[i + 1] = json_string_value(arg);
        }
        if (!error) {
            VLOG_DBG("received request %s, %zu arguments", request->method,
                     n);
            command->cb(conn, n + 1, argv, command->aux);
        }
        free(argv);
    }

    if (error) {
        unixctl_command_reply_error(conn, error);
        free(error);
    }
}

/* Returns 0, or an error if 'conn' must be closed. */
static int
run_connection(struct unixctl_conn *conn)
{
    jsonrpc_run(conn->rpc);
    int error = jsonrpc_get_status(conn->rpc);
    if (error || jsonrpc_get_backlog(conn->rpc)) {
        return error;
    }

    /* At most a few requests per run, to stay fair to other work. */
    for (int i = 0; i < 10 && !conn->request_id; i++) {
        struct jsonrpc_msg *msg;
        error = jsonrpc_recv(conn->rpc, &msg);
        if (error) {
            return error == EAGAIN ? 0 : error;
        }
        if (msg->type == JSONRPC_REQUEST) {
            process_command(conn, msg);
        } else {
            VLOG_WARN_RL(&rl, "%s: received unexpected %s message",
                         jsonrpc_get_name(conn->rpc),
                         jsonrpc_msg_type_to_string(msg->type));
            error = EINVAL;
        }
        jsonrpc_msg_destroy(msg);
        if (error) {
            return error;
        }
        jsonrpc_run(conn->rpc);
        error = jsonrpc_get_status(conn->rpc);
        if (error) {
            return error;
        }
    }
    return 0;
}

void
unixctl_server_run(struct unixctl_server *server)
{
    if (!server) {
        return;
    }
    for (int i = 0; i < 10; i++) {
        struct stream *stream;
        int error = pstream_accept(server->listener, &stream);
        if (error) {
            if (error != EAGAIN) {
                VLOG_WARN_RL(&rl, "%s: accept failed: %s",
                             pstream_get_name(server->listener),
                             ovs_strerror(error));
            }
            break;
        }
        struct unixctl_conn *conn = xzalloc(sizeof *conn);
        conn->rpc = jsonrpc_open(stream);
        conn->next = server->conns;
        if (conn->next) {
            conn->next->prev = conn;
        }
        server->conns = conn;
    }

    struct unixctl_conn *conn, *next;
    for (conn = server->conns; conn; conn = next) {
        next = conn->next;
        int error = run_connection(conn);
        if (error && error != EAGAIN) {
            kill_connection(server, conn);
        }
    }
}

void
unixctl_server_wait(struct unixctl_server *server)
{
    if (!server) {
        return;
    }
    pstream_wait(server->listener);
    for (struct unixctl_conn *conn = server->conns; conn; conn = conn->next) {
        jsonrpc_wait(conn->rpc);
        if (!jsonrpc_get_backlog(conn->rpc) && !conn->request_id) {
            jsonrpc_recv_wait(conn->rpc);
        }
    }
}

void
unixctl_server_destroy(struct unixctl_server *server)
{
    if (server) {
        while (server->conns) {
            kill_connection(server, server->conns);
        }
        pstream_close(server->listener);
        free(server->path);
        free(server);
    }
}

const char *
unixctl_server_get_path(const struct unixctl_server *server)
{
    return server->path;
}

/* Client side. */

int
unixctl_client_create(const char *path, struct jsonrpc **clientp)
{
    char *abs_path = (strchr(path, '/') ? xstrdup(path)
                      : dirs_abs_file_name(dirs_rundir(), path));
    char *name = xasprintf("unix:%s", abs_path);
    struct stream *stream;

    *clientp = NULL;
    int error = stream_open_block(stream_open(name, &stream), -1, &stream);
    free(name);
    free(abs_path);
    if (error) {
        return error;
    }
    *clientp = jsonrpc_open(stream);
    return 0;
}

int
unixctl_client_transact(struct jsonrpc *client, const char *command,
                        int argc, char *argv[], char **result, char **error)
{
    *result = *error = NULL;

    json_t *params = json_array();
    for (int i = 0; i < argc; i++) {
        json_array_append_new(params, json_string(argv[i]));
    }
    struct jsonrpc_msg *reply;
    int retval = jsonrpc_transact_block(
        client, jsonrpc_create_request(command, params, NULL), &reply);
    if (retval) {
        return retval;
    }

    json_t *body = reply->type == JSONRPC_ERROR ? reply->error : reply->result;
    if (json_is_string(body)) {
        char *text = xstrdup(json_string_value(body));
        if (reply->type == JSONRPC_ERROR) {
            *error = text;
        } else {
            *result = text;
        }
    } else {
        VLOG_WARN("%s: unexpected reply body", jsonrpc_get_name(client));
        retval = EINVAL;
    }
    jsonrpc_msg_destroy(reply);
    return retval;
}
