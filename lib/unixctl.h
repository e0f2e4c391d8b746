/* lib/unixctl.h: the control socket that "ovs-appctl -t SOCKET" talks to.
 *
 * The protocol is JSON-RPC over a unix socket, as the reference:
 *     -> {"id":0,"method":"vlog/set","params":["console:dbg"]}
 *     <- {"id":0,"result":"","error":null}
 *     <- {"id":0,"error":"no destination, level, or module \"x\"\n"}
 * A command's name is the method and its arguments are string params.  The
 * reply body is plain text; by convention it ends with a newline.
 *
 * Register commands (any time, usually before creating the server), create
 * the server, and run/wait it in the main loop:
 *
 *     unixctl_command_register("exit", "", 0, 0, exit_cb, &exiting);
 *     error = unixctl_server_create(path, &ctl);
 *     for (;;) { unixctl_server_run(ctl); unixctl_server_wait(ctl);
 *                poll_block(); }
 *
 * Built-in commands: "list-commands", "help" (the same list), "version",
 * and lib/vlog's "vlog/..." commands. */
#ifndef LIB_UNIXCTL_H
#define LIB_UNIXCTL_H 1

#include "lib/util.h"

struct jsonrpc;
struct unixctl_conn;
struct unixctl_server;

/* A command callback.  argv[0] is the command name and argv[1..argc-1] its
 * arguments; both are borrowed (valid during the call).  The callback must
 * reply exactly once, with unixctl_command_reply() or
 * unixctl_command_reply_error(), now or later (keep 'conn' until then: it
 * stays valid until replied to or the server is destroyed). */
typedef void unixctl_cb_func(struct unixctl_conn *conn, int argc,
                             const char *argv[], void *aux);

/* Registers command 'name' ('usage' describes the arguments, shown by
 * "list-commands"), accepting 'min_args' to 'max_args' arguments (INT_MAX:
 * unlimited).  'aux' is passed to 'cb'.  Registering a name again replaces
 * it. */
void unixctl_command_register(const char *name, const char *usage,
                              int min_args, int max_args,
                              unixctl_cb_func *cb, void *aux);

/* Replies to the command on 'conn' with success and text 'body' (NULL:
 * empty).  'body' is borrowed.  A nonempty body without a final newline
 * gets one, as the reference does. */
void unixctl_command_reply(struct unixctl_conn *conn, const char *body);

/* Replies to the command on 'conn' with an error, text 'body' (newline
 * added likewise). */
void unixctl_command_reply_error(struct unixctl_conn *conn,
                                 const char *body);

/* Sets the text "version" replies with (default
 * "PROGRAM (Open vSwitch) 3.1.0"-style: "PROGRAM (ovsdb) VERSION").
 * 'text' is copied. */
void unixctl_set_version(const char *text);

/* Creates a control server.  'path':
 *   NULL:           "<rundir>/<program>.<pid>.ctl" (lib/dirs.h)
 *   "none":         no server: returns 0 with '*serverp' NULL
 *   relative path:  relative to the rundir if it has no '/', else to cwd
 *   absolute path:  itself.
 * Returns 0 and '*serverp' (caller must free with unixctl_server_destroy())
 * or an errno.  The socket file is removed when the server is destroyed
 * or the process exits. */
int unixctl_server_create(const char *path, struct unixctl_server **serverp);

void unixctl_server_run(struct unixctl_server *);      /* NULL is fine. */
void unixctl_server_wait(struct unixctl_server *);     /* NULL is fine. */
void unixctl_server_destroy(struct unixctl_server *);  /* NULL is fine. */

/* Returns the socket's path; borrowed (valid until destroyed). */
const char *unixctl_server_get_path(const struct unixctl_server *);

/* Client side, for tools and tests. */

/* Connects to the control socket at 'path' (blocking).  Returns 0 and
 * '*clientp' (caller must free with jsonrpc_close()), or an errno. */
int unixctl_client_create(const char *path, struct jsonrpc **clientp);

/* Runs 'command' with 'argc' arguments 'argv' on 'client' and waits for
 * the answer.  Returns 0 if a well-formed reply came back: then exactly one
 * of '*result' (success) and '*error' (command failed) is nonnull; caller
 * must free both with free().  Otherwise returns an errno with both NULL. */
int unixctl_client_transact(struct jsonrpc *client, const char *command,
                            int argc, char *argv[], char **result,
                            char **error);

#endif /* lib/unixctl.h */
