/* tests/security/ssl-tool.c: a tiny JSON-RPC peer for the TLS tests.
 *
 *     ssl-tool [OPTIONS] serve PASSIVE
 *         Listens on PASSIVE (e.g. "pssl:0:127.0.0.1"), prints the bound
 *         port on stdout, and answers every connection: "echo" returns its
 *         params, "list_dbs" returns ["ssl_tool"], "whoami" returns
 *         [PEER-ID] (the CN of the client's certificate, or null),
 *         "nodelay" returns [true] if Nagle's algorithm is off on every
 *         connection it accepted (TCP_NODELAY), else [false].  Runs until
 *         killed.
 *     ssl-tool [OPTIONS] call ACTIVE METHOD [PARAMS]
 *         Connects to ACTIVE, sends one request (PARAMS: a JSON array,
 *         default []), prints the result as JSON and exits 0, or prints
 *         the error and exits 1.
 *
 * OPTIONS are the TLS options of lib/stream-ssl.h, the logging options of
 * lib/vlog.h, and --timeout=MSEC for "call" (default 10000).  The tool
 * exists to test lib/stream-ssl through the same option macros that the
 * real mains use. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "lib/allocator.h"
#include "lib/jsonrpc.h"
#include "lib/poll-loop.h"
#include "lib/stream-ssl.h"
#include "lib/stream.h"
#include "lib/util.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(ssl_tool);

#define MAX_CONNS 64

static long long timeout_msec = 10000;

static void
parse_options(int argc, char *argv[])
{
    enum {
        VLOG_OPTION_ENUMS,
        STREAM_SSL_OPTION_ENUMS,
        OPT_TIMEOUT = UCHAR_MAX + 4000
    };
    static const struct option long_options[] = {
        VLOG_LONG_OPTIONS,
        STREAM_SSL_LONG_OPTIONS,
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {NULL, 0, NULL, 0},
    };
    for (;;) {
        int c = getopt_long(argc, argv, "+v::" STREAM_SSL_SHORT_OPTIONS,
                            long_options, NULL);
        if (c == -1) {
            break;
        }
        switch (c) {
        VLOG_OPTION_HANDLERS
        STREAM_SSL_OPTION_HANDLERS
        case OPT_TIMEOUT:
            if (!str_to_llong(optarg, &timeout_msec)) {
                ovs_fatal(0, "bad --timeout %s", optarg);
            }
            break;
        default:
            exit(2);
        }
    }
}

static uint16_t served_port;

/* True if every accepted TCP connection of this process (a socket whose
 * local port is the listener's and that has a peer) has TCP_NODELAY. */
static bool
all_nodelay(void)
{
    int n_found = 0;
    for (int fd = 0; fd < 1024; fd++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        if (getsockname(fd, (struct sockaddr *) &ss, &len)
            || (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)) {
            continue;
        }
        uint16_t port = (ss.ss_family == AF_INET
                             ? ((struct sockaddr_in *) &ss)->sin_port
                             : ((struct sockaddr_in6 *) &ss)->sin6_port);
        struct sockaddr_storage peer;
        len = sizeof peer;
        if (ntohs(port) != served_port
            || getpeername(fd, (struct sockaddr *) &peer, &len)) {
            continue;
        }
        int on = 0;
        len = sizeof on;
        if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &len) || !on) {
            return false;
        }
        n_found++;
    }
    return n_found > 0;
}

static void
serve_one(struct jsonrpc *rpc)
{
    struct jsonrpc_msg *msg;
    while (!jsonrpc_recv(rpc, &msg) && msg) {
        if (msg->type == JSONRPC_REQUEST) {
            json_t *result;
            if (!strcmp(msg->method, "echo")) {
                result = json_incref(msg->params);
            } else if (!strcmp(msg->method, "list_dbs")) {
                result = json_pack("[s]", "ssl_tool");
            } else if (!strcmp(msg->method, "whoami")) {
                char *id = stream_ssl_get_peer_id(jsonrpc_get_stream(rpc));
                result = json_pack("[o]", id ? json_string(id) : json_null());
                free(id);
            } else if (!strcmp(msg->method, "nodelay")) {
                result = json_pack("[b]", all_nodelay());
            } else {
                jsonrpc_send(rpc, jsonrpc_create_error(
                                      json_string("unknown method"), msg->id));
                jsonrpc_msg_destroy(msg);
                continue;
            }
            jsonrpc_send(rpc, jsonrpc_create_reply(result, msg->id));
        }
        jsonrpc_msg_destroy(msg);
    }
}

static int
do_serve(const char *name)
{
    struct pstream *listener;
    int error = pstream_open(name, &listener);
    if (error) {
        ovs_fatal(error, "%s: listen failed", name);
    }
    served_port = pstream_get_bound_port(listener);
    printf("%u\n", served_port);
    fflush(stdout);

    struct jsonrpc *conns[MAX_CONNS];
    size_t n_conns = 0;
    for (;;) {
        struct stream *stream;
        while (n_conns < MAX_CONNS
               && (error = pstream_accept(listener, &stream)) != EAGAIN) {
            if (!error) {
                conns[n_conns++] = jsonrpc_open(stream);
            }
        }
        for (size_t i = 0; i < n_conns;) {
            jsonrpc_run(conns[i]);
            serve_one(conns[i]);
            int status = jsonrpc_get_status(conns[i]);
            if (status) {
                VLOG_INFO("%s: connection closed (%s)",
                          jsonrpc_get_name(conns[i]), ovs_strerror(status));
                jsonrpc_close(conns[i]);
                conns[i] = conns[--n_conns];
            } else {
                i++;
            }
        }
        pstream_wait(listener);
        for (size_t i = 0; i < n_conns; i++) {
            jsonrpc_wait(conns[i]);
            jsonrpc_recv_wait(conns[i]);
        }
        poll_block();
    }
}

static int
do_call(const char *name, const char *method, const char *params_s)
{
    json_error_t jerr;
    json_t *params = json_loads(params_s ? params_s : "[]", 0, &jerr);
    if (!params || !json_is_array(params)) {
        ovs_fatal(0, "PARAMS must be a JSON array");
    }

    struct stream *stream;
    int error = stream_open_block(stream_open(name, &stream), timeout_msec,
                                  &stream);
    if (error) {
        json_decref(params);
        fprintf(stderr, "%s: connection failed (%s)\n", name,
                ovs_strerror(error));
        return 1;
    }
    struct jsonrpc *rpc = jsonrpc_open(stream);
    struct jsonrpc_msg *reply;
    error = jsonrpc_transact_block(
        rpc, jsonrpc_create_request(method, params, NULL), &reply);
    if (error) {
        fprintf(stderr, "%s: transaction failed (%s)\n", name,
                ovs_strerror(error));
        jsonrpc_close(rpc);
        return 1;
    }
    int status = reply->type == JSONRPC_REPLY ? 0 : 1;
    char *s = json_dumps(status ? reply->error : reply->result,
                         JSON_COMPACT | JSON_ENCODE_ANY);
    puts(s);
    free(s);
    jsonrpc_msg_destroy(reply);
    jsonrpc_close(rpc);
    return status;
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    parse_options(argc, argv);
    argc -= optind;
    argv += optind;
    if (argc == 2 && !strcmp(argv[0], "serve")) {
        return do_serve(argv[1]);
    } else if ((argc == 3 || argc == 4) && !strcmp(argv[0], "call")) {
        return do_call(argv[1], argv[2], argc == 4 ? argv[3] : NULL);
    }
    ovs_fatal(0, "usage: ssl-tool [OPTIONS] serve PASSIVE | "
              "call ACTIVE METHOD [PARAMS]");
}
