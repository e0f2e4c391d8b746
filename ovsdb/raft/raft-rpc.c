/* ovsdb/raft/raft-rpc.c: see raft-rpc.h.
 *
 * Every message type is described by a table of its members (name, kind,
 * offset in the struct).  One generic routine per direction walks the
 * table: parsing, printing, formatting for logs, copying and freeing all
 * follow from the same description, so a member cannot be printed under
 * one name and parsed under another. */
#include <config.h>
#include "ovsdb/raft/raft-rpc.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/parser.h"

/* How a member is represented in the struct and on the wire. */
enum field_kind {
    F_U64,          /* uint64_t, required, always sent. */
    F_U64_OPT,      /* uint64_t, optional, sent if nonzero. */
    F_UUID,         /* struct uuid, required, always sent. */
    F_UUID_OPT,     /* struct uuid, optional, sent if nonzero. */
    F_STRING,       /* char *, required. */
    F_BOOL,         /* bool, required. */
    F_BOOL_OPT,     /* bool, optional, sent only if true. */
    F_SERVERS,      /* json_t *, required {SID: ADDRESS} object. */
    F_DATA,         /* json_t *, required object or array. */
    F_ENTRIES,      /* The append_request "log" array. */
    F_ADDRESSES,    /* char ** + size_t, optional array of addresses,
                     * sent if nonempty. */
    F_APPEND_RESULT,    /* enum raft_append_result as a string. */
    F_CMD_STATUS,       /* enum raft_command_status as a string. */
};

struct field {
    const char *name;
    enum field_kind kind;
    size_t offset;      /* In the message struct (the union member). */
    bool short_id;      /* F_UUID*: a server ID, formatted as 4 digits. */
};

#define FIELD(STRUCT, MEMBER, NAME, KIND) \
    { NAME, KIND, offsetof(struct STRUCT, MEMBER), false }
#define SID_FIELD(STRUCT, MEMBER, NAME, KIND) \
    { NAME, KIND, offsetof(struct STRUCT, MEMBER), true }

static const struct field hello_request_fields[] = {
    FIELD(raft_hello_request, address, "address", F_STRING),
};
static const struct field append_request_fields[] = {
    FIELD(raft_append_request, term, "term", F_U64),
    FIELD(raft_append_request, prev_log_index, "prev_log_index", F_U64),
    FIELD(raft_append_request, prev_log_term, "prev_log_term", F_U64),
    FIELD(raft_append_request, leader_commit, "leader_commit", F_U64),
    FIELD(raft_append_request, entries, "log", F_ENTRIES),
};
static const struct field append_reply_fields[] = {
    FIELD(raft_append_reply, term, "term", F_U64),
    FIELD(raft_append_reply, log_end, "log_end", F_U64),
    FIELD(raft_append_reply, prev_log_index, "prev_log_index", F_U64),
    FIELD(raft_append_reply, prev_log_term, "prev_log_term", F_U64),
    FIELD(raft_append_reply, n_entries, "n_entries", F_U64),
    FIELD(raft_append_reply, result, "result", F_APPEND_RESULT),
};
static const struct field vote_request_fields[] = {
    FIELD(raft_vote_request, term, "term", F_U64),
    FIELD(raft_vote_request, last_log_index, "last_log_index", F_U64),
    FIELD(raft_vote_request, last_log_term, "last_log_term", F_U64),
    FIELD(raft_vote_request, leadership_transfer, "leadership_transfer",
          F_BOOL_OPT),
    FIELD(raft_vote_request, is_prevote, "is_prevote", F_BOOL_OPT),
};
static const struct field vote_reply_fields[] = {
    FIELD(raft_vote_reply, term, "term", F_U64),
    SID_FIELD(raft_vote_reply, vote, "vote", F_UUID),
    FIELD(raft_vote_reply, is_prevote, "is_prevote", F_BOOL_OPT),
};
static const struct field add_server_request_fields[] = {
    FIELD(raft_add_server_request, address, "address", F_STRING),
};
static const struct field add_server_reply_fields[] = {
    FIELD(raft_add_server_reply, success, "success", F_BOOL),
    FIELD(raft_add_server_reply, remote_addresses, "remote_addresses",
          F_ADDRESSES),
};
static const struct field remove_server_request_fields[] = {
    SID_FIELD(raft_remove_server_request, server_id, "server_id", F_UUID),
};
static const struct field remove_server_reply_fields[] = {
    FIELD(raft_remove_server_reply, success, "success", F_BOOL),
    SID_FIELD(raft_remove_server_reply, target_server, "target_server",
              F_UUID_OPT),
};
static const struct field install_snapshot_request_fields[] = {
    FIELD(raft_install_snapshot_request, term, "term", F_U64),
    FIELD(raft_install_snapshot_request, last_index, "last_index", F_U64),
    FIELD(raft_install_snapshot_request, last_term, "last_term", F_U64),
    FIELD(raft_install_snapshot_request, last_eid, "last_eid", F_UUID),
    FIELD(raft_install_snapshot_request, election_timer, "election_timer",
          F_U64),
    FIELD(raft_install_snapshot_request, last_servers, "last_servers",
          F_SERVERS),
    FIELD(raft_install_snapshot_request, data, "data", F_DATA),
};
static const struct field install_snapshot_reply_fields[] = {
    FIELD(raft_install_snapshot_reply, term, "term", F_U64),
    FIELD(raft_install_snapshot_reply, last_index, "last_index", F_U64),
    FIELD(raft_install_snapshot_reply, last_term, "last_term", F_U64),
};
static const struct field become_leader_fields[] = {
    FIELD(raft_become_leader, term, "term", F_U64),
};
static const struct field execute_command_request_fields[] = {
    FIELD(raft_execute_command_request, prereq, "prereq", F_UUID),
    FIELD(raft_execute_command_request, result, "result", F_UUID),
    FIELD(raft_execute_command_request, data, "data", F_DATA),
};
static const struct field execute_command_reply_fields[] = {
    FIELD(raft_execute_command_reply, result, "result", F_UUID),
    FIELD(raft_execute_command_reply, status, "status", F_CMD_STATUS),
    FIELD(raft_execute_command_reply, commit_index, "commit_index",
          F_U64_OPT),
};

struct rpc_class {
    const char *name;
    const struct field *fields;
    size_t n_fields;
    bool to_optional;       /* May omit "to". */
    bool cluster_optional;  /* May omit "cluster". */
};

static const struct rpc_class rpc_classes[RAFT_N_RPC_TYPES] = {
#define RAFT_RPC(ENUM, NAME)                                                \
    [RAFT_RPC_##ENUM] = { #NAME, NAME##_fields, ARRAY_SIZE(NAME##_fields),  \
                          RAFT_RPC_##ENUM == RAFT_RPC_HELLO_REQUEST         \
                          || RAFT_RPC_##ENUM == RAFT_RPC_ADD_SERVER_REQUEST, \
                          RAFT_RPC_##ENUM == RAFT_RPC_ADD_SERVER_REQUEST },
    RAFT_RPC_TYPES
#undef RAFT_RPC
};

/* Enumerations. */

const char *
raft_rpc_type_to_string(enum raft_rpc_type type)
{
    return (unsigned int) type < RAFT_N_RPC_TYPES ? rpc_classes[type].name
                                                   : "<unknown>";
}

bool
raft_rpc_type_from_string(const char *s, enum raft_rpc_type *typep)
{
    for (int i = 0; i < RAFT_N_RPC_TYPES; i++) {
        if (!strcmp(s, rpc_classes[i].name)) {
            *typep = i;
            return true;
        }
    }
    return false;
}

static const char *const append_results[] = {
    [RAFT_APPEND_OK] = "OK",
    [RAFT_APPEND_INCONSISTENCY] = "inconsistency",
    [RAFT_APPEND_IO_ERROR] = "I/O error",
};

static const char *const command_statuses[] = {
    [RAFT_CMD_INCOMPLETE] = "operation still in progress",
    [RAFT_CMD_SUCCESS] = "success",
    [RAFT_CMD_NOT_LEADER] = "not leader",
    [RAFT_CMD_BAD_PREREQ] = "prerequisite check failed",
    [RAFT_CMD_LOST_LEADERSHIP] = "lost leadership",
    [RAFT_CMD_SHUTDOWN] = "server shutdown",
    [RAFT_CMD_IO_ERROR] = "I/O error",
    [RAFT_CMD_TIMEOUT] = "timeout",
    [RAFT_CMD_UNKNOWN] = "unknown outcome",
};

static int
string_index(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(names[i], s)) {
            return i;
        }
    }
    return -1;
}

const char *
raft_append_result_to_string(enum raft_append_result result)
{
    return (unsigned int) result < ARRAY_SIZE(append_results)
           ? append_results[result] : "<unknown>";
}

bool
raft_append_result_from_string(const char *s,
                               enum raft_append_result *resultp)
{
    int i = string_index(append_results, ARRAY_SIZE(append_results), s);
    *resultp = i < 0 ? 0 : i;
    return i >= 0;
}

const char *
raft_command_status_to_string(enum raft_command_status status)
{
    return (unsigned int) status < ARRAY_SIZE(command_statuses)
           ? command_statuses[status] : "<unknown>";
}

bool
raft_command_status_from_string(const char *s,
                                enum raft_command_status *statusp)
{
    int i = string_index(command_statuses, ARRAY_SIZE(command_statuses), s);
    if (i == RAFT_CMD_UNKNOWN) {
        i = -1; /* Not a status any member sends. */
    }
    *statusp = i < 0 ? 0 : i;
    return i >= 0;
}

/* Member access by offset. */

#define AT(BASE, F, TYPE) ((TYPE *) ((char *) (BASE) + (F)->offset))
#define AT_CONST(BASE, F, TYPE) \
    ((TYPE const *) ((const char *) (BASE) + (F)->offset))

/* The append_request entries and add_server_reply addresses are an array
 * pointer followed by its count. */
static size_t *
entries_count(void *base)
{
    return &((struct raft_append_request *) base)->n_entries;
}

static size_t *
addresses_count(void *base)
{
    return &((struct raft_add_server_reply *) base)->n_remote_addresses;
}

/* Parsing helpers. */

static uint64_t
parse_u64(struct ovsdb_parser *p, const char *name, bool optional)
{
    const json_t *json = ovsdb_parser_member(
        p, name, OP_INTEGER | (optional ? OP_OPTIONAL : 0));
    return json ? (uint64_t) json_integer_value(json) : 0;
}

static struct uuid
parse_uuid(struct ovsdb_parser *p, const char *name, bool optional)
{
    struct uuid uuid;
    uuid_zero(&uuid);
    const json_t *json = ovsdb_parser_member(
        p, name, OP_STRING | (optional ? OP_OPTIONAL : 0));
    if (json && !uuid_from_string(&uuid, json_string_value(json))) {
        ovsdb_parser_raise_error(p, "Member '%s' is not a UUID (\"%s\").",
                                 name, json_string_value(json));
    }
    return uuid;
}

/* Raft addresses are "tcp:HOST:PORT", "ssl:HOST:PORT" or "unix:PATH". */
static bool
address_is_valid(const char *s)
{
    if (!strncmp(s, "unix:", 5)) {
        return s[5] != '\0';
    }
    if (strncmp(s, "tcp:", 4) && strncmp(s, "ssl:", 4)) {
        return false;
    }
    const char *colon = strrchr(s + 4, ':');
    return colon && colon > s + 4 && colon[1] != '\0';
}

static struct ovsdb_error *
check_servers(const json_t *servers)
{
    const char *key;
    json_t *value;
    struct uuid sid;

    json_object_foreach ((json_t *) servers, key, value) {
        if (!uuid_from_string(&sid, key)) {
            return ovsdb_syntax_error(servers, OVSDB_E_SYNTAX,
                                      "server ID \"%s\" is not a UUID",
                                      key);
        }
        if (!json_is_string(value)
            || !address_is_valid(json_string_value(value))) {
            return ovsdb_syntax_error(servers, OVSDB_E_SYNTAX,
                                      "server %s has no valid address",
                                      key);
        }
    }
    return NULL;
}

static void
entry_uninit(struct raft_rpc_entry *e)
{
    json_decref(e->data);
    free(e->data_text);
    json_decref(e->servers);
}

static struct ovsdb_error *
parse_entry(const json_t *json, size_t i, struct raft_rpc_entry *e)
{
    struct ovsdb_parser p;

    memset(e, 0, sizeof *e);
    ovsdb_parser_init(&p, json, "raft log entry %zu", i);
    e->term = parse_u64(&p, "term", false);
    const json_t *data = ovsdb_parser_member(
        &p, "data", OP_OBJECT | OP_ARRAY | OP_OPTIONAL);
    if (data) {
        e->data = json_incref((json_t *) data);
        e->eid = parse_uuid(&p, "eid", false);
    }
    const json_t *servers = ovsdb_parser_member(&p, "servers",
                                                OP_OBJECT | OP_OPTIONAL);
    if (servers) {
        e->servers = json_incref((json_t *) servers);
        ovsdb_parser_put_error(&p, check_servers(servers));
    }
    e->election_timer = parse_u64(&p, "election_timer", true);

    struct ovsdb_error *error = ovsdb_parser_finish(&p);
    if (error) {
        entry_uninit(e);
        memset(e, 0, sizeof *e);
    }
    return error;
}

static void
parse_entries(struct ovsdb_parser *p, const char *name, void *base,
              struct raft_rpc_entry **entriesp)
{
    const json_t *log = ovsdb_parser_member(p, name, OP_ARRAY);
    size_t n = log ? json_array_size(log) : 0;

    *entriesp = n ? xmalloc(n * sizeof **entriesp) : NULL;
    *entries_count(base) = 0;
    for (size_t i = 0; i < n; i++) {
        struct ovsdb_error *error = parse_entry(json_array_get(log, i), i,
                                                &(*entriesp)[i]);
        if (error) {
            ovsdb_parser_put_error(p, error);
            return;
        }
        (*entries_count(base))++;
    }
}

static void
parse_addresses(struct ovsdb_parser *p, const char *name, void *base,
                char ***addressesp)
{
    const json_t *array = ovsdb_parser_member(p, name,
                                              OP_ARRAY | OP_OPTIONAL);
    size_t n = array ? json_array_size(array) : 0;

    *addressesp = n ? xmalloc(n * sizeof **addressesp) : NULL;
    *addresses_count(base) = 0;
    if (array && !n) {
        /* The reference never sends an empty list and refuses one. */
        ovsdb_parser_raise_error(p, "'%s' must not be empty.", name);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(array, i);
        if (!json_is_string(s) || !address_is_valid(json_string_value(s))) {
            ovsdb_parser_raise_error(p, "Element %zu of '%s' is not a raft "
                                     "address.", i, name);
            return;
        }
        (*addressesp)[(*addresses_count(base))++]
            = xstrdup(json_string_value(s));
    }
}

static void
parse_field(struct ovsdb_parser *p, const struct field *f, void *base)
{
    const json_t *json;
    const char *s;

    switch (f->kind) {
    case F_U64:
    case F_U64_OPT:
        *AT(base, f, uint64_t) = parse_u64(p, f->name, f->kind == F_U64_OPT);
        break;
    case F_UUID:
    case F_UUID_OPT:
        *AT(base, f, struct uuid) = parse_uuid(p, f->name,
                                               f->kind == F_UUID_OPT);
        break;
    case F_STRING:
        json = ovsdb_parser_member(p, f->name, OP_STRING);
        if (json) {
            *AT(base, f, char *) = xstrdup(json_string_value(json));
        }
        break;
    case F_BOOL:
    case F_BOOL_OPT:
        json = ovsdb_parser_member(
            p, f->name, OP_BOOLEAN | (f->kind == F_BOOL_OPT ? OP_OPTIONAL : 0));
        *AT(base, f, bool) = json && json_is_true(json);
        break;
    case F_SERVERS:
        json = ovsdb_parser_member(p, f->name, OP_OBJECT);
        if (json) {
            *AT(base, f, json_t *) = json_incref((json_t *) json);
            ovsdb_parser_put_error(p, check_servers(json));
        }
        break;
    case F_DATA:
        json = ovsdb_parser_member(p, f->name, OP_OBJECT | OP_ARRAY);
        if (json) {
            *AT(base, f, json_t *) = json_incref((json_t *) json);
        }
        break;
    case F_ENTRIES:
        parse_entries(p, f->name, base, AT(base, f, struct raft_rpc_entry *));
        break;
    case F_ADDRESSES:
        parse_addresses(p, f->name, base, AT(base, f, char **));
        break;
    case F_APPEND_RESULT:
        json = ovsdb_parser_member(p, f->name, OP_STRING);
        s = json ? json_string_value(json) : NULL;
        if (s && !raft_append_result_from_string(
                s, AT(base, f, enum raft_append_result))) {
            ovsdb_parser_raise_error(p, "Unknown %s \"%s\".", f->name, s);
        }
        break;
    case F_CMD_STATUS:
        json = ovsdb_parser_member(p, f->name, OP_STRING);
        s = json ? json_string_value(json) : NULL;
        if (s && !raft_command_status_from_string(
                s, AT(base, f, enum raft_command_status))) {
            ovsdb_parser_raise_error(p, "Unknown %s \"%s\".", f->name, s);
        }
        break;
    }
}

struct ovsdb_error *
raft_rpc_from_jsonrpc(const struct jsonrpc_msg *msg, union raft_rpc *rpc)
{
    memset(rpc, 0, sizeof *rpc);
    if (msg->type != JSONRPC_NOTIFY) {
        return ovsdb_error(OVSDB_E_SYNTAX, "raft message must be a "
                           "notification but this is a %s",
                           jsonrpc_msg_type_to_string(msg->type));
    }

    enum raft_rpc_type type;
    if (!msg->method || !raft_rpc_type_from_string(msg->method, &type)) {
        return ovsdb_error(OVSDB_E_SYNTAX, "unknown raft method \"%s\"",
                           msg->method ? msg->method : "");
    }
    if (!json_is_array(msg->params) || json_array_size(msg->params) != 1) {
        return ovsdb_error(OVSDB_E_SYNTAX, "raft %s RPC has %zu parameters "
                           "(expected 1)", msg->method,
                           json_is_array(msg->params)
                           ? json_array_size(msg->params) : 0);
    }

    const struct rpc_class *class = &rpc_classes[type];
    struct ovsdb_parser p;
    ovsdb_parser_init(&p, json_array_get(msg->params, 0), "raft %s RPC",
                      class->name);
    rpc->type = type;
    rpc->common.cid = parse_uuid(&p, "cluster", class->cluster_optional);
    rpc->common.to = parse_uuid(&p, "to", class->to_optional);
    rpc->common.from = parse_uuid(&p, "from", false);
    const json_t *comment = ovsdb_parser_member(&p, "comment",
                                                OP_STRING | OP_OPTIONAL);
    if (comment) {
        rpc->common.comment = xstrdup(json_string_value(comment));
    }
    for (size_t i = 0; i < class->n_fields; i++) {
        parse_field(&p, &class->fields[i], rpc);
    }

    struct ovsdb_error *error = ovsdb_parser_finish(&p);
    if (error) {
        raft_rpc_uninit(rpc);
        memset(rpc, 0, sizeof *rpc);
    }
    return error;
}

struct ovsdb_error *
raft_rpc_check_address(const union raft_rpc *rpc, struct uuid *cid,
                       const struct uuid *sid, bool *learned)
{
    const struct uuid *msg_cid = &rpc->common.cid;

    if (learned) {
        *learned = false;
    }
    if (!uuid_is_zero(msg_cid) && !uuid_equals(msg_cid, cid)) {
        if (!uuid_is_zero(cid)) {
            return ovsdb_error(OVSDB_E_SYNTAX, "raft %s RPC: wrong cluster "
                               UUID_FMT " (expected " UUID_FMT ")",
                               raft_rpc_type_to_string(rpc->type),
                               UUID_ARGS(msg_cid), UUID_ARGS(cid));
        }
        *cid = *msg_cid;
        if (learned) {
            *learned = true;
        }
    }
    if (!uuid_is_zero(&rpc->common.to)
        && !uuid_equals(&rpc->common.to, sid)) {
        return ovsdb_error(OVSDB_E_SYNTAX, "raft %s RPC: misrouted message "
                           "(addressed to " UUID_FMT " but we're " UUID_FMT
                           ")", raft_rpc_type_to_string(rpc->type),
                           UUID_ARGS(&rpc->common.to), UUID_ARGS(sid));
    }
    return NULL;
}

/* Printing. */

static json_t *
uuid_to_json(const struct uuid *uuid)
{
    char s[UUID_LEN + 1];
    uuid_to_string(uuid, s);
    return json_string(s);
}

static json_t *
u64_to_json(uint64_t value)
{
    return json_integer((json_int_t) value);
}

static json_t *
entry_to_json(const struct raft_rpc_entry *e)
{
    json_t *json = json_object();
    json_object_set_new(json, "term", u64_to_json(e->term));
    if (e->data || e->data_text) {
        json_t *data = e->data ? json_incref(e->data)
                               : jsonx_from_buffer(e->data_text, e->data_len,
                                                   NULL);
        json_object_set_new(json, "data", data ? data : json_null());
        json_object_set_new(json, "eid", uuid_to_json(&e->eid));
    }
    if (e->servers) {
        json_object_set(json, "servers", e->servers);
    }
    if (e->election_timer) {
        json_object_set_new(json, "election_timer",
                            u64_to_json(e->election_timer));
    }
    return json;
}

static void
put_field(json_t *args, const struct field *f, const void *base)
{
    const char *name = f->name;
    json_t *array;

    switch (f->kind) {
    case F_U64_OPT:
        if (!*AT_CONST(base, f, uint64_t)) {
            break;
        }
        /* Fall through. */
    case F_U64:
        json_object_set_new(args, name, u64_to_json(*AT_CONST(base, f,
                                                              uint64_t)));
        break;
    case F_UUID_OPT:
        if (uuid_is_zero(AT_CONST(base, f, struct uuid))) {
            break;
        }
        /* Fall through. */
    case F_UUID:
        json_object_set_new(args, name,
                            uuid_to_json(AT_CONST(base, f, struct uuid)));
        break;
    case F_STRING: {
        const char *s = *AT_CONST(base, f, char *);
        json_object_set_new(args, name, json_string(s ? s : ""));
        break;
    }
    case F_BOOL_OPT:
        if (!*AT_CONST(base, f, bool)) {
            break;
        }
        /* Fall through. */
    case F_BOOL:
        json_object_set_new(args, name,
                            json_boolean(*AT_CONST(base, f, bool)));
        break;
    case F_SERVERS:
    case F_DATA: {
        json_t *json = *AT_CONST(base, f, json_t *);
        json_object_set_new(args, name,
                            json ? json_incref(json)
                                 : (f->kind == F_SERVERS ? json_object()
                                                         : json_null()));
        break;
    }
    case F_ENTRIES: {
        const struct raft_append_request *rq = base;
        array = json_array();
        for (size_t i = 0; i < rq->n_entries; i++) {
            json_array_append_new(array, entry_to_json(&rq->entries[i]));
        }
        json_object_set_new(args, name, array);
        break;
    }
    case F_ADDRESSES: {
        const struct raft_add_server_reply *rpy = base;
        if (!rpy->n_remote_addresses) {
            break;
        }
        array = json_array();
        for (size_t i = 0; i < rpy->n_remote_addresses; i++) {
            json_array_append_new(array,
                                  json_string(rpy->remote_addresses[i]));
        }
        json_object_set_new(args, name, array);
        break;
    }
    case F_APPEND_RESULT:
        json_object_set_new(args, name, json_string(
            raft_append_result_to_string(
                *AT_CONST(base, f, enum raft_append_result))));
        break;
    case F_CMD_STATUS:
        json_object_set_new(args, name, json_string(
            raft_command_status_to_string(
                *AT_CONST(base, f, enum raft_command_status))));
        break;
    }
}

struct jsonrpc_msg *
raft_rpc_to_jsonrpc(const union raft_rpc *rpc)
{
    const struct rpc_class *class = &rpc_classes[rpc->type];
    json_t *args = json_object();

    if (!uuid_is_zero(&rpc->common.cid)) {
        json_object_set_new(args, "cluster", uuid_to_json(&rpc->common.cid));
    }
    if (!uuid_is_zero(&rpc->common.to)) {
        json_object_set_new(args, "to", uuid_to_json(&rpc->common.to));
    }
    json_object_set_new(args, "from", uuid_to_json(&rpc->common.from));
    if (rpc->common.comment) {
        json_object_set_new(args, "comment",
                            json_string(rpc->common.comment));
    }
    for (size_t i = 0; i < class->n_fields; i++) {
        put_field(args, &class->fields[i], rpc);
    }

    json_t *params = json_array();
    json_array_append_new(params, args);
    return jsonrpc_create_notify(class->name, params);
}

bool
raft_rpc_has_text(const union raft_rpc *rpc)
{
    if (rpc->type != RAFT_RPC_APPEND_REQUEST) {
        return false;
    }
    for (size_t i = 0; i < rpc->append_request.n_entries; i++) {
        if (rpc->append_request.entries[i].data_text) {
            return true;
        }
    }
    return false;
}

static void
put_entry(struct ds *out, const struct raft_rpc_entry *e)
{
    /* Numbers beyond INT64_MAX travel as negative, as u64_to_json()'s. */
    ds_put_format(out, "{\"term\":%lld", (long long) e->term);
    if (e->data || e->data_text) {
        ds_put_cstr(out, ",\"data\":");
        if (e->data) {
            jsonx_put(out, e->data);
        } else {
            ds_put_buffer(out, e->data_text, e->data_len);
        }
        ds_put_format(out, ",\"eid\":\"" UUID_FMT "\"", UUID_ARGS(&e->eid));
    }
    if (e->servers) {
        ds_put_cstr(out, ",\"servers\":");
        jsonx_put(out, e->servers);
    }
    if (e->election_timer) {
        ds_put_format(out, ",\"election_timer\":%lld",
                      (long long) e->election_timer);
    }
    ds_put_char(out, '}');
}

void
raft_rpc_serialize(const union raft_rpc *rpc, struct ds *out)
{
    if (!raft_rpc_has_text(rpc)) {
        struct jsonrpc_msg *msg = raft_rpc_to_jsonrpc(rpc);
        jsonrpc_msg_serialize(msg, out);
        jsonrpc_msg_destroy(msg);
        return;
    }

    /* The other members as usual, then the entries ("log") by hand. */
    const struct raft_append_request *rq = &rpc->append_request;
    union raft_rpc head = *rpc;
    head.append_request.n_entries = 0;
    struct jsonrpc_msg *msg = raft_rpc_to_jsonrpc(&head);
    json_t *args = json_array_get(msg->params, 0);
    json_object_del(args, "log");
    ds_put_format(out, "{\"id\":null,\"method\":\"%s\",\"params\":[",
                  rpc_classes[rpc->type].name);
    size_t start = out->length;
    jsonx_put(out, args);
    jsonrpc_msg_destroy(msg);
    ds_truncate(out, out->length - 1); /* The closing brace. */
    ds_put_cstr(out, out->length > start + 1 ? ",\"log\":[" : "\"log\":[");
    for (size_t i = 0; i < rq->n_entries; i++) {
        if (i) {
            ds_put_char(out, ',');
        }
        put_entry(out, &rq->entries[i]);
    }
    ds_put_cstr(out, "]}]}");
}

/* Formatting for logs. */

static void
format_uuid(struct ds *out, const struct uuid *uuid, bool short_id)
{
    if (short_id) {
        ds_put_format(out, "%04x", (unsigned int) (uuid->parts[0] >> 16));
    } else {
        ds_put_format(out, UUID_FMT, UUID_ARGS(uuid));
    }
}

static void
format_servers(struct ds *out, const json_t *servers)
{
    const char *key;
    json_t *value;
    struct uuid sid;
    bool first = true;

    json_object_foreach ((json_t *) servers, key, value) {
        ds_put_cstr(out, first ? "" : ",");
        first = false;
        if (uuid_from_string(&sid, key)) {
            format_uuid(out, &sid, true);
        } else {
            ds_put_cstr(out, key);
        }
        ds_put_format(out, "(%s)", json_is_string(value)
                                   ? json_string_value(value) : "?");
    }
}

/* Appends 'json' serialized, cut to about 'max' bytes. */
static void
format_json_cut(struct ds *out, const json_t *json, size_t max)
{
    char *s = jsonx_to_string_sorted(json);
    size_t len = strlen(s);
    if (len > max) {
        ds_put_buffer(out, s, max);
        ds_put_format(out, "...(%zu bytes)", len);
    } else {
        ds_put_cstr(out, s);
    }
    free(s);
}

static void
format_field(struct ds *out, const struct field *f, const void *base)
{
    switch (f->kind) {
    case F_U64_OPT:
        if (!*AT_CONST(base, f, uint64_t)) {
            return;
        }
        /* Fall through. */
    case F_U64:
        ds_put_format(out, " %s=%" PRIu64, f->name,
                      *AT_CONST(base, f, uint64_t));
        break;
    case F_UUID_OPT:
        if (uuid_is_zero(AT_CONST(base, f, struct uuid))) {
            return;
        }
        /* Fall through. */
    case F_UUID:
        ds_put_format(out, " %s=", f->name);
        format_uuid(out, AT_CONST(base, f, struct uuid), f->short_id);
        break;
    case F_STRING:
        ds_put_format(out, " %s=\"%s\"", f->name,
                      *AT_CONST(base, f, char *) ? *AT_CONST(base, f, char *)
                                                 : "");
        break;
    case F_BOOL_OPT:
        if (!*AT_CONST(base, f, bool)) {
            return;
        }
        /* Fall through. */
    case F_BOOL:
        ds_put_format(out, " %s=%s", f->name,
                      *AT_CONST(base, f, bool) ? "true" : "false");
        break;
    case F_SERVERS:
        ds_put_format(out, " %s=", f->name);
        if (*AT_CONST(base, f, json_t *)) {
            format_servers(out, *AT_CONST(base, f, json_t *));
        }
        break;
    case F_DATA:
        ds_put_format(out, " %s=", f->name);
        if (*AT_CONST(base, f, json_t *)) {
            format_json_cut(out, *AT_CONST(base, f, json_t *), 80);
        }
        break;
    case F_ENTRIES:
        ds_put_format(out, " n_entries=%zu",
                      ((const struct raft_append_request *) base)->n_entries);
        break;
    case F_ADDRESSES: {
        const struct raft_add_server_reply *rpy = base;
        if (rpy->n_remote_addresses) {
            ds_put_format(out, " %s=[", f->name);
            for (size_t i = 0; i < rpy->n_remote_addresses; i++) {
                ds_put_format(out, "%s%s", i ? ", " : "",
                              rpy->remote_addresses[i]);
            }
            ds_put_char(out, ']');
        }
        break;
    }
    case F_APPEND_RESULT:
        ds_put_format(out, " %s=\"%s\"", f->name,
                      raft_append_result_to_string(
                          *AT_CONST(base, f, enum raft_append_result)));
        break;
    case F_CMD_STATUS:
        ds_put_format(out, " %s=\"%s\"", f->name,
                      raft_command_status_to_string(
                          *AT_CONST(base, f, enum raft_command_status)));
        break;
    }
}

void
raft_rpc_format(const union raft_rpc *rpc, struct ds *out)
{
    const struct rpc_class *class = &rpc_classes[rpc->type];

    ds_put_cstr(out, class->name);
    if (rpc->common.comment) {
        ds_put_format(out, " \"%s\"", rpc->common.comment);
    }
    ds_put_char(out, ':');
    for (size_t i = 0; i < class->n_fields; i++) {
        format_field(out, &class->fields[i], rpc);
    }
}

/* Copying and freeing. */

void
raft_rpc_uninit(union raft_rpc *rpc)
{
    if (!rpc || (unsigned int) rpc->type >= RAFT_N_RPC_TYPES) {
        return;
    }
    const struct rpc_class *class = &rpc_classes[rpc->type];

    free(rpc->common.comment);
    rpc->common.comment = NULL;
    for (size_t i = 0; i < class->n_fields; i++) {
        const struct field *f = &class->fields[i];
        switch (f->kind) {
        case F_STRING:
            free(*AT(rpc, f, char *));
            *AT(rpc, f, char *) = NULL;
            break;
        case F_SERVERS:
        case F_DATA:
            json_decref(*AT(rpc, f, json_t *));
            *AT(rpc, f, json_t *) = NULL;
            break;
        case F_ENTRIES: {
            struct raft_append_request *rq = &rpc->append_request;
            for (size_t j = 0; j < rq->n_entries; j++) {
                entry_uninit(&rq->entries[j]);
            }
            free(rq->entries);
            rq->entries = NULL;
            rq->n_entries = 0;
            break;
        }
        case F_ADDRESSES: {
            struct raft_add_server_reply *rpy = &rpc->add_server_reply;
            for (size_t j = 0; j < rpy->n_remote_addresses; j++) {
                free(rpy->remote_addresses[j]);
            }
            free(rpy->remote_addresses);
            rpy->remote_addresses = NULL;
            rpy->n_remote_addresses = 0;
            break;
        }
        case F_U64:
        case F_U64_OPT:
        case F_UUID:
        case F_UUID_OPT:
        case F_BOOL:
        case F_BOOL_OPT:
        case F_APPEND_RESULT:
        case F_CMD_STATUS:
            break;
        }
    }
}

void
raft_rpc_destroy(union raft_rpc *rpc)
{
    if (rpc) {
        raft_rpc_uninit(rpc);
        free(rpc);
    }
}

/* JSON values are immutable once parsed or built, so a copy may share
 * them. */
static json_t *
json_share(json_t *json)
{
    return json ? json_incref(json) : NULL;
}

union raft_rpc *
raft_rpc_clone(const union raft_rpc *src)
{
    union raft_rpc *dst = xmalloc(sizeof *dst);
    const struct rpc_class *class = &rpc_classes[src->type];

    *dst = *src;
    dst->common.comment = src->common.comment
                          ? xstrdup(src->common.comment) : NULL;
    for (size_t i = 0; i < class->n_fields; i++) {
        const struct field *f = &class->fields[i];
        switch (f->kind) {
        case F_STRING: {
            const char *s = *AT_CONST(src, f, char *);
            *AT(dst, f, char *) = s ? xstrdup(s) : NULL;
            break;
        }
        case F_SERVERS:
        case F_DATA:
            *AT(dst, f, json_t *) = json_share(*AT_CONST(src, f, json_t *));
            break;
        case F_ENTRIES: {
            const struct raft_append_request *s = &src->append_request;
            struct raft_append_request *d = &dst->append_request;
            d->entries = s->n_entries
                         ? xmalloc(s->n_entries * sizeof *d->entries) : NULL;
            for (size_t j = 0; j < s->n_entries; j++) {
                d->entries[j] = s->entries[j];
                d->entries[j].data = json_share(s->entries[j].data);
                if (s->entries[j].data_text) {
                    d->entries[j].data_text = xmemdup0(s->entries[j].data_text,
                                                       s->entries[j].data_len);
                }
                d->entries[j].servers = json_share(s->entries[j].servers);
            }
            break;
        }
        case F_ADDRESSES: {
            const struct raft_add_server_reply *s = &src->add_server_reply;
            struct raft_add_server_reply *d = &dst->add_server_reply;
            size_t n = s->n_remote_addresses;
            d->remote_addresses = n ? xmalloc(n * sizeof *d->remote_addresses)
                                    : NULL;
            for (size_t j = 0; j < n; j++) {
                d->remote_addresses[j] = xstrdup(s->remote_addresses[j]);
            }
            break;
        }
        case F_U64:
        case F_U64_OPT:
        case F_UUID:
        case F_UUID_OPT:
        case F_BOOL:
        case F_BOOL_OPT:
        case F_APPEND_RESULT:
        case F_CMD_STATUS:
            break;
        }
    }
    return dst;
}

/* Questions the state machine asks of any message. */

uint64_t
raft_rpc_get_term(const union raft_rpc *rpc)
{
    switch (rpc->type) {
    case RAFT_RPC_APPEND_REQUEST:
        return rpc->append_request.term;
    case RAFT_RPC_APPEND_REPLY:
        return rpc->append_reply.term;
    case RAFT_RPC_VOTE_REQUEST:
        return rpc->vote_request.term;
    case RAFT_RPC_VOTE_REPLY:
        return rpc->vote_reply.term;
    case RAFT_RPC_INSTALL_SNAPSHOT_REQUEST:
        return rpc->install_snapshot_request.term;
    case RAFT_RPC_INSTALL_SNAPSHOT_REPLY:
        return rpc->install_snapshot_reply.term;
    case RAFT_RPC_BECOME_LEADER:
        return rpc->become_leader.term;
    case RAFT_RPC_HELLO_REQUEST:
    case RAFT_RPC_ADD_SERVER_REQUEST:
    case RAFT_RPC_ADD_SERVER_REPLY:
    case RAFT_RPC_REMOVE_SERVER_REQUEST:
    case RAFT_RPC_REMOVE_SERVER_REPLY:
    case RAFT_RPC_EXECUTE_COMMAND_REQUEST:
    case RAFT_RPC_EXECUTE_COMMAND_REPLY:
    case RAFT_N_RPC_TYPES:
        break;
    }
    return 0;
}

uint64_t
raft_rpc_get_min_sync_index(const union raft_rpc *rpc)
{
    switch (rpc->type) {
    case RAFT_RPC_APPEND_REPLY:
        return rpc->append_reply.log_end ? rpc->append_reply.log_end - 1
                                         : 0;
    case RAFT_RPC_VOTE_REQUEST:
        return rpc->vote_request.last_log_index;
    case RAFT_RPC_INSTALL_SNAPSHOT_REQUEST:
        return rpc->install_snapshot_request.last_index;
    case RAFT_RPC_INSTALL_SNAPSHOT_REPLY:
        return rpc->install_snapshot_reply.last_index;
    case RAFT_RPC_HELLO_REQUEST:
    case RAFT_RPC_APPEND_REQUEST:
    case RAFT_RPC_VOTE_REPLY:
    case RAFT_RPC_ADD_SERVER_REQUEST:
    case RAFT_RPC_ADD_SERVER_REPLY:
    case RAFT_RPC_REMOVE_SERVER_REQUEST:
    case RAFT_RPC_REMOVE_SERVER_REPLY:
    case RAFT_RPC_BECOME_LEADER:
    case RAFT_RPC_EXECUTE_COMMAND_REQUEST:
    case RAFT_RPC_EXECUTE_COMMAND_REPLY:
    case RAFT_N_RPC_TYPES:
        break;
    }
    return 0;
}

bool
raft_rpc_is_heartbeat(const union raft_rpc *rpc)
{
    return (rpc->type == RAFT_RPC_APPEND_REQUEST
            || rpc->type == RAFT_RPC_APPEND_REPLY)
           && rpc->common.comment
           && !strcmp(rpc->common.comment, "heartbeat");
}
