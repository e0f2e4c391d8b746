/* ovsdb/client/client-rpc.c: see client-rpc.h. */
#include <config.h>
#include "ovsdb/client/client-rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/daemon.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/stream.h"
#include "lib/util.h"
#include "lib/vlog.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/schema.h"

VLOG_DEFINE_THIS_MODULE(client_rpc);

/* Waits for the first connection on passive 'server'. */
static struct stream *
accept_one(const char *server)
{
    struct pstream *listener;
    int error = pstream_open(server, &listener);
    if (error) {
        ovs_fatal(error, "failed to listen on \"%s\"", server);
    }
    struct stream *stream;
    for (;;) {
        error = pstream_accept(listener, &stream);
        if (error != EAGAIN) {
            break;
        }
        pstream_wait(listener);
        poll_block();
    }
    pstream_close(listener);
    if (error) {
        ovs_fatal(error, "failed to accept connection on \"%s\"", server);
    }
    return stream;
}

/* Tries each of the comma-separated active remotes in 'servers' in turn,
 * as the reference does for a cluster, and returns the first that
 * connects. */
static struct stream *
connect_any(const char *servers)
{
    char *copy = xstrdup(servers);
    char *save = NULL;
    struct stream *stream = NULL;
    for (char *name = strtok_r(copy, ",", &save); name && !stream;
         name = strtok_r(NULL, ",", &save)) {
        int error = stream_open_block(stream_open(name, &stream), -1,
                                      &stream);
        if (error) {
            VLOG_INFO("%s: connection attempt failed (%s)", name,
                      ovs_strerror(error));
        }
    }
    free(copy);
    if (!stream) {
        ovs_fatal(0, "no servers were available");
    }
    return stream;
}

struct jsonrpc *
client_rpc_open(const char *server)
{
    struct stream *stream;
    if (!pstream_verify_name(server)) {
        stream = accept_one(server);
    } else if (strchr(server, ',')) {
        stream = connect_any(server);
    } else {
        int error = stream_verify_name(server);
        if (error) {
            ovs_fatal(error, "failed to connect or listen to \"%s\"", server);
        }
        error = stream_open_block(stream_open(server, &stream), -1, &stream);
        if (error) {
            ovs_fatal(error, "failed to connect to \"%s\"", server);
        }
    }
    return jsonrpc_open(stream);
}

json_t *
client_rpc_call(struct jsonrpc *rpc, const char *method, json_t *params,
                const char *what)
{
    struct jsonrpc_msg *request = jsonrpc_create_request(method, params,
                                                         NULL);
    struct jsonrpc_msg *reply;
    char *label = what ? xstrdup(what) : xasprintf("%s request", method);
    int error = jsonrpc_transact_block(rpc, request, &reply);
    if (error) {
        ovs_fatal(error, "%s failed", label);
    }
    if (reply->type == JSONRPC_ERROR) {
        char *s = jsonx_to_string_sorted(reply->error);
        ovs_fatal(0, "%s returned error: %s", label, s);
    }
    free(label);
    json_t *result = json_incref(reply->result);
    jsonrpc_msg_destroy(reply);
    return result;
}

json_t *
client_rpc_list_dbs(struct jsonrpc *rpc)
{
    json_t *dbs = client_rpc_call(rpc, "list_dbs", json_array(), NULL);
    if (!json_is_array(dbs)) {
        ovs_fatal(0, "list_dbs response is not array");
    }
    for (size_t i = 0; i < json_array_size(dbs); i++) {
        if (!json_is_string(json_array_get(dbs, i))) {
            ovs_fatal(0, "list_dbs response %zu is not string", i);
        }
    }
    return dbs;
}

bool
client_rpc_dbs_contain(const json_t *dbs, const char *name)
{
    for (size_t i = 0; i < json_array_size(dbs); i++) {
        if (!strcmp(json_string_value(json_array_get(dbs, i)), name)) {
            return true;
        }
    }
    return false;
}

struct ovsdb_schema *
client_rpc_get_schema(struct jsonrpc *rpc, const char *database)
{
    json_t *params = json_array();
    json_array_append_new(params, json_string(database));
    json_t *json = client_rpc_call(rpc, "get_schema", params, NULL);

    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(json, &schema);
    if (error) {
        ovs_fatal(0, "%s", ovsdb_error_to_string_free(error));
    }
    json_decref(json);
    return schema;
}

json_t *
client_parse_json(const char *s)
{
    char *error;
    json_t *json = jsonx_from_string(s, &error);
    if (!json) {
        ovs_fatal(0, "\"%s\": %s", s, error);
    }
    return json;
}

void
client_daemonize_complete(bool keep_stderr)
{
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(STDOUT_FILENO);
    int saved_err = keep_stderr ? dup(STDERR_FILENO) : -1;
    daemonize_complete();
    if (saved_out >= 0) {
        dup2(saved_out, STDOUT_FILENO);
        close(saved_out);
    }
    if (saved_err >= 0) {
        dup2(saved_err, STDERR_FILENO);
        close(saved_err);
    }
}

void
client_rpc_set_db_change_aware(struct jsonrpc *rpc, bool required)
{
    struct jsonrpc_msg *request = jsonrpc_create_request("set_db_change_aware",
                                                         json_pack("[b]", 1),
                                                         NULL);
    struct jsonrpc_msg *reply;
    int error = jsonrpc_transact_block(rpc, request, &reply);
    if (error) {
        ovs_fatal(error, "%s: error setting db_change_aware",
                  jsonrpc_get_name(rpc));
    }
    if (reply->type == JSONRPC_ERROR && required) {
        char *s = jsonx_to_string_sorted(reply->error);
        ovs_fatal(0, "%s: set_db_change_aware failed (%s)",
                  jsonrpc_get_name(rpc), s);
    }
    jsonrpc_msg_destroy(reply);
}
