/* tests/unit/raft/test-raft-rpc.c: tests for ovsdb/raft/raft-rpc.
 *
 * The corpus is every message of the reference cluster traces in
 * the .jsonl files of tests/data/raft (one {"msg": ...} per line).  Each Raft message
 * must parse and print back to the same JSON (compared with members
 * sorted), and so must its clone; every message type must occur.  Then
 * each message is broken in every way the test knows (each member removed,
 * each member given values of other types, an unknown member added, the
 * same inside the first log entry), and each result must either parse and
 * round-trip or fail with an error, never crash. */
#include <config.h>
#include "ovsdb/raft/raft-rpc.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/jsonrpc.h"
#include "ovsdb/engine/error.h"
#include "tests/unit/check.h"

static int n_types_seen[RAFT_N_RPC_TYPES];
static int n_corpus, n_mutations, n_mutation_errors;

/* Checks that raft_rpc_serialize() of 'rpc' gives 'printed' (sorted
 * JSON), also once every entry's data is turned into 'data_text', as a
 * leader sends its log, and from a clone of that. */
static void
check_serialize(const union raft_rpc *rpc, const char *printed)
{
    union raft_rpc *text = raft_rpc_clone(rpc);
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1) {
            if (text->type != RAFT_RPC_APPEND_REQUEST) {
                break;
            }
            for (size_t i = 0; i < text->append_request.n_entries; i++) {
                struct raft_rpc_entry *e = &text->append_request.entries[i];
                if (e->data) {
                    struct ds ds = DS_EMPTY_INITIALIZER;
                    jsonx_put(&ds, e->data);
                    json_decref(e->data);
                    e->data = NULL;
                    e->data_len = ds.length;
                    e->data_text = ds_steal_cstr(&ds);
                }
            }
        } else if (pass == 2) {
            union raft_rpc *copy = raft_rpc_clone(text);
            raft_rpc_destroy(text);
            text = copy;
        }
        struct ds out = DS_EMPTY_INITIALIZER;
        raft_rpc_serialize(text, &out);
        json_t *json = jsonx_from_string(ds_cstr(&out), NULL);
        CHECK(json != NULL);
        char *s = json ? jsonx_to_string_sorted(json) : NULL;
        CHECK_STREQ(s ? s : "", printed);
        free(s);
        json_decref(json);
        ds_destroy(&out);
    }
    raft_rpc_destroy(text);
}

/* Parses 'json' as a JSON-RPC message and then as a Raft message.  Returns
 * NULL and the printed form (sorted JSON, caller frees) in '*printedp', or
 * an error string (caller frees). */
static char *
parse_and_print(const json_t *json, char **printedp, union raft_rpc *out)
{
    struct jsonrpc_msg *msg;
    char *error_s = jsonrpc_msg_from_json(json, &msg);

    *printedp = NULL;
    if (error_s) {
        return error_s;
    }
    union raft_rpc rpc;
    struct ovsdb_error *error = raft_rpc_from_jsonrpc(msg, &rpc);
    jsonrpc_msg_destroy(msg);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        CHECK(s && *s);
        raft_rpc_uninit(&rpc);
        return s;
    }

    /* Logging must work on anything that parsed. */
    struct ds ds;
    ds_init(&ds);
    raft_rpc_format(&rpc, &ds);
    CHECK(!strncmp(ds_cstr(&ds), raft_rpc_type_to_string(rpc.type),
                   strlen(raft_rpc_type_to_string(rpc.type))));
    ds_destroy(&ds);

    json_t *printed = jsonrpc_msg_to_json(raft_rpc_to_jsonrpc(&rpc));
    *printedp = jsonx_to_string_sorted(printed);
    json_decref(printed);

    union raft_rpc *copy = raft_rpc_clone(&rpc);
    printed = jsonrpc_msg_to_json(raft_rpc_to_jsonrpc(copy));
    char *s = jsonx_to_string_sorted(printed);
    CHECK_STREQ(s, *printedp);
    free(s);
    json_decref(printed);
    raft_rpc_destroy(copy);

    check_serialize(&rpc, *printedp);

    if (out) {
        *out = rpc;
    } else {
        raft_rpc_uninit(&rpc);
    }
    return NULL;
}

/* A few values of every JSON type, to put where they do not belong. */
static json_t *
wrong_value(int i)
{
    switch (i) {
    case 0: return json_integer(7);
    case 1: return json_integer(-1);
    case 2: return json_real(1.5);
    case 3: return json_string("x");
    case 4: return json_string("00000000-0000-0000-0000-00000000000g");
    case 5: return json_null();
    case 6: return json_true();
    case 7: return json_false();
    case 8: return json_array();
    case 9: return json_object();
    case 10: return json_pack("[i,s]", 1, "tcp:1.2.3.4:5");
    case 11: return json_pack("{s:s}", "x", "y");
    case 12: return json_string("");
    case 13: return json_pack("[{}]");
    default: return NULL;
    }
}

static void
try_mutation(const json_t *msg)
{
    char *printed;
    char *error = parse_and_print(msg, &printed, NULL);

    n_mutations++;
    if (error) {
        n_mutation_errors++;
        free(error);
    } else {
        /* What parses must round-trip, even if it is odd. */
        char *orig = jsonx_to_string_sorted(msg);
        json_t *again = jsonx_from_string(printed, NULL);
        char *printed2;
        char *error2 = parse_and_print(again, &printed2, NULL);
        CHECK(!error2);
        if (!error2) {
            CHECK_STREQ(printed2, printed);
        }
        free(error2);
        free(printed2);
        json_decref(again);
        free(orig);
        free(printed);
    }
}

/* Mutates members of 'object', a part of 'msg' (both modified in place and
 * restored). */
static void
mutate_object(json_t *msg, json_t *object)
{
    const char **keys;
    size_t n;

    keys = jsonx_sorted_keys(object, &n);
    char **names = xmalloc((n + 1) * sizeof *names);
    for (size_t i = 0; i < n; i++) {
        names[i] = xstrdup(keys[i]);
    }
    free(keys);

    for (size_t i = 0; i < n; i++) {
        json_t *saved = json_incref(json_object_get(object, names[i]));

        json_object_del(object, names[i]);
        try_mutation(msg);

        for (int j = 0; ; j++) {
            json_t *v = wrong_value(j);
            if (!v) {
                break;
            }
            json_object_set_new(object, names[i], v);
            try_mutation(msg);
        }
        json_object_set_new(object, names[i], saved);
    }
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);

    json_object_set_new(object, "no_such_member", json_integer(1));
    try_mutation(msg);
    json_object_del(object, "no_such_member");
}

/* Optional members: removing one must still parse.  Everything else is
 * required. */
static bool
member_is_optional(const char *method, const char *member)
{
    static const char *const always[] = {
        "comment", "leadership_transfer", "is_prevote", "remote_addresses",
        "target_server", "commit_index",
    };
    for (size_t i = 0; i < ARRAY_SIZE(always); i++) {
        if (!strcmp(member, always[i])) {
            return true;
        }
    }
    if (!strcmp(member, "to")) {
        return !strcmp(method, "hello_request")
               || !strcmp(method, "add_server_request");
    }
    if (!strcmp(member, "cluster")) {
        return !strcmp(method, "add_server_request");
    }
    return false;
}

static void
test_required_members(json_t *msg)
{
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *args = json_array_get(json_object_get(msg, "params"), 0);
    const char **keys;
    size_t n;

    keys = jsonx_sorted_keys(args, &n);
    for (size_t i = 0; i < n; i++) {
        char *name = xstrdup(keys[i]);
        json_t *saved = json_incref(json_object_get(args, name));
        char *printed;

        json_object_del(args, name);
        char *error = parse_and_print(msg, &printed, NULL);
        if (member_is_optional(method, name)) {
            CHECK(!error);
            if (error) {
                fprintf(stderr, "  %s without %s: %s\n", method, name,
                        error);
            }
        } else {
            CHECK(error && strstr(error, name));
            if (!error || !strstr(error, name)) {
                fprintf(stderr, "  %s without %s: %s\n", method, name,
                        error ? error : "parsed");
            }
        }
        free(error);
        free(printed);
        json_object_set_new(args, name, saved);
        free(name);
    }
    free(keys);
}

static void
test_message(json_t *msg, const char *where)
{
    const char *method = json_string_value(json_object_get(msg, "method"));
    enum raft_rpc_type type;
    char *printed;

    if (!method || !strcmp(method, "echo")
        || !raft_rpc_type_from_string(method, &type)) {
        /* Inactivity probes and their replies are not Raft messages. */
        char *error = parse_and_print(msg, &printed, NULL);
        CHECK(error != NULL);
        free(error);
        free(printed);
        return;
    }

    n_corpus++;
    n_types_seen[type]++;
    union raft_rpc rpc;
    char *error = parse_and_print(msg, &printed, &rpc);
    CHECK(!error);
    if (error) {
        fprintf(stderr, "%s: %s\n", where, error);
        free(error);
        return;
    }
    char *orig = jsonx_to_string_sorted(msg);
    CHECK_STREQ(printed, orig);
    CHECK_INTEQ(rpc.type, type);
    free(orig);
    free(printed);
    raft_rpc_uninit(&rpc);

    test_required_members(msg);

    json_t *args = json_array_get(json_object_get(msg, "params"), 0);
    mutate_object(msg, args);
    json_t *log = json_object_get(args, "log");
    if (json_array_size(log) && json_is_object(json_array_get(log, 0))) {
        mutate_object(msg, json_array_get(log, 0));
    }
}

/* Every message of the corpus in tests/data/raft parses and prints back,
 * and survives its mutations; every message type occurs in it. */
static void
test_corpus(void)
{
    const char *srcdir = getenv("OVSDB_SRCDIR");
    char *dirname = xasprintf("%s/tests/data/raft", srcdir ? srcdir : ".");
    DIR *dir = opendir(dirname);
    int n_files = 0;

    CHECK(dir != NULL);
    if (!dir) {
        free(dirname);
        return;
    }
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 6, ".jsonl")) {
            continue;
        }
        n_files++;
        char *path = xasprintf("%s/%s", dirname, de->d_name);
        FILE *f = fopen(path, "r");
        CHECK(f != NULL);
        char *line = NULL;
        size_t cap = 0;
        int lineno = 0;
        while (f && getline(&line, &cap, f) > 0) {
            char *error = NULL;
            lineno++;
            json_t *rec = jsonx_from_string(line, &error);
            CHECK(rec != NULL);
            if (rec) {
                char *where = xasprintf("%s:%d", de->d_name, lineno);
                test_message(json_object_get(rec, "msg"), where);
                free(where);
            }
            json_decref(rec);
            free(error);
        }
        free(line);
        if (f) {
            fclose(f);
        }
        free(path);
    }
    closedir(dir);
    free(dirname);

    CHECK(n_files > 0);
    for (int i = 0; i < RAFT_N_RPC_TYPES; i++) {
        if (!n_types_seen[i]) {
            fprintf(stderr, "no %s in the corpus\n",
                    raft_rpc_type_to_string(i));
        }
        CHECK(n_types_seen[i] > 0);
    }
    printf("corpus: %d messages in %d files; %d mutations, %d rejected\n",
           n_corpus, n_files, n_mutations, n_mutation_errors);
}

/* Parses 'text' (a whole JSON-RPC message) and returns the error string,
 * or NULL if it parsed; caller frees. */
static char *
parse_error(const char *text)
{
    json_t *json = jsonx_from_string(text, NULL);
    char *printed = NULL;
    char *error;

    CHECK(json != NULL);
    if (!json) {
        return xstrdup("bad JSON in test");
    }
    error = parse_and_print(json, &printed, NULL);
    free(printed);
    json_decref(json);
    return error;
}

#define CID "\"cluster\":\"11111111-2222-3333-4444-555555555555\""
#define FROM "\"from\":\"aaaaaaaa-2222-3333-4444-555555555555\""
#define TO "\"to\":\"bbbbbbbb-2222-3333-4444-555555555555\""

static void
expect_error(const char *text, const char *substring)
{
    char *error = parse_error(text);
    CHECK(error && strstr(error, substring));
    if (!error || !strstr(error, substring)) {
        fprintf(stderr, "  input: %s\n  error: %s\n  wanted: %s\n", text,
                error ? error : "(none)", substring);
    }
    free(error);
}

/* Malformed messages fail with a useful error. */
static void
test_malformed(void)
{
    expect_error("{\"method\":\"vote_request\",\"params\":[{}],\"id\":1}",
                 "must be a notification");
    expect_error("{\"result\":{},\"error\":null,\"id\":1}",
                 "must be a notification");
    expect_error("{\"method\":\"append\",\"params\":[{}],\"id\":null}",
                 "unknown raft method \"append\"");
    expect_error("{\"method\":\"become_leader\",\"params\":[],\"id\":null}",
                 "has 0 parameters");
    expect_error("{\"method\":\"become_leader\",\"params\":[{},{}],"
                 "\"id\":null}", "has 2 parameters");
    expect_error("{\"method\":\"become_leader\",\"params\":[7],"
                 "\"id\":null}", "Object expected");
    expect_error("{\"method\":\"become_leader\",\"params\":[{" CID ","
                 FROM "," TO "}],\"id\":null}",
                 "Required 'term' member is missing");
    expect_error("{\"method\":\"become_leader\",\"params\":[{" CID ","
                 FROM "," TO ",\"term\":\"1\"}],\"id\":null}",
                 "Type mismatch for member 'term'");
    expect_error("{\"method\":\"become_leader\",\"params\":[{" CID ","
                 FROM "," TO ",\"term\":1.5}],\"id\":null}",
                 "Type mismatch for member 'term'");
    expect_error("{\"method\":\"become_leader\",\"params\":[{" CID ","
                 FROM "," TO ",\"term\":1,\"x\":2}],\"id\":null}",
                 "Member 'x' is present but not allowed here");
    expect_error("{\"method\":\"become_leader\",\"params\":[{" CID ","
                 "\"from\":\"nope\"," TO ",\"term\":1}],\"id\":null}",
                 "'from' is not a UUID");
    expect_error("{\"method\":\"become_leader\",\"params\":[{" FROM ","
                 TO ",\"term\":1}],\"id\":null}",
                 "Required 'cluster' member is missing");
    expect_error("{\"method\":\"become_leader\",\"params\":[{" CID ","
                 FROM ",\"term\":1}],\"id\":null}",
                 "Required 'to' member is missing");
    expect_error("{\"method\":\"append_reply\",\"params\":[{" CID ","
                 FROM "," TO ",\"term\":1,\"log_end\":2,"
                 "\"prev_log_index\":1,\"prev_log_term\":1,\"n_entries\":0,"
                 "\"result\":\"maybe\"}],\"id\":null}",
                 "Unknown result \"maybe\"");
    expect_error("{\"method\":\"execute_command_reply\",\"params\":[{" CID
                 "," FROM "," TO ",\"result\":"
                 "\"cccccccc-2222-3333-4444-555555555555\","
                 "\"status\":\"fine\"}],\"id\":null}",
                 "Unknown status \"fine\"");
    expect_error("{\"method\":\"append_request\",\"params\":[{" CID ","
                 FROM "," TO ",\"term\":1,\"prev_log_index\":1,"
                 "\"prev_log_term\":1,\"leader_commit\":1,"
                 "\"log\":[{\"term\":1},{\"data\":[],\"term\":1}]}],"
                 "\"id\":null}",
                 "raft log entry 1 failed: Required 'eid' member");
    expect_error("{\"method\":\"append_request\",\"params\":[{" CID ","
                 FROM "," TO ",\"term\":1,\"prev_log_index\":1,"
                 "\"prev_log_term\":1,\"leader_commit\":1,"
                 "\"log\":[{\"term\":1,\"servers\":{\"x\":\"tcp:1:2\"}}]}],"
                 "\"id\":null}", "server ID \"x\" is not a UUID");
    expect_error("{\"method\":\"append_request\",\"params\":[{" CID ","
                 FROM "," TO ",\"term\":1,\"prev_log_index\":1,"
                 "\"prev_log_term\":1,\"leader_commit\":1,"
                 "\"log\":[{\"term\":1,\"servers\":"
                 "{\"aaaaaaaa-2222-3333-4444-555555555555\":\"http:x\"}}]}],"
                 "\"id\":null}", "has no valid address");
    expect_error("{\"method\":\"add_server_reply\",\"params\":[{" CID ","
                 FROM "," TO ",\"success\":true,"
                 "\"remote_addresses\":[\"tcp:1.2.3.4:5\",5]}],"
                 "\"id\":null}", "Element 1 of 'remote_addresses'");
    expect_error("{\"method\":\"add_server_reply\",\"params\":[{" CID ","
                 FROM "," TO ",\"success\":false,"
                 "\"remote_addresses\":[]}],\"id\":null}",
                 "'remote_addresses' must not be empty");
    expect_error("{\"method\":\"hello_request\",\"params\":[{" CID ","
                 FROM "}],\"id\":null}",
                 "Required 'address' member is missing");

    /* Minimal messages that must parse. */
    char *error = parse_error("{\"method\":\"hello_request\",\"params\":[{"
                              CID "," FROM ",\"address\":\"tcp:1.2.3.4:5\""
                              "}],\"id\":null}");
    CHECK(!error);
    free(error);
    error = parse_error("{\"method\":\"add_server_request\",\"params\":[{"
                        FROM ",\"address\":\"unix:/x\"}],\"id\":null}");
    CHECK(!error);
    free(error);
}

/* uint64 values beyond INT64_MAX travel as negative integers. */
static void
test_big_numbers(void)
{
    union raft_rpc rpc;
    memset(&rpc, 0, sizeof rpc);
    rpc.type = RAFT_RPC_BECOME_LEADER;
    uuid_generate(&rpc.common.cid);
    uuid_generate(&rpc.common.from);
    uuid_generate(&rpc.common.to);
    rpc.become_leader.term = UINT64_MAX - 1;

    struct jsonrpc_msg *msg = raft_rpc_to_jsonrpc(&rpc);
    json_t *args = json_array_get(msg->params, 0);
    CHECK(json_integer_value(json_object_get(args, "term")) == -2);

    union raft_rpc back;
    struct ovsdb_error *error = raft_rpc_from_jsonrpc(msg, &back);
    CHECK(!error);
    ovsdb_error_destroy(error);
    CHECK(back.become_leader.term == UINT64_MAX - 1);
    CHECK(raft_rpc_get_term(&back) == UINT64_MAX - 1);
    CHECK(uuid_equals(&back.common.cid, &rpc.common.cid));
    raft_rpc_uninit(&back);
    jsonrpc_msg_destroy(msg);
}

/* The cluster ID is learned once; a message for another server or
 * cluster is refused; one without "cluster" and "to" passes. */
static void
test_check_address(void)
{
    struct uuid a, b, zero;
    union raft_rpc rpc;
    bool learned;

    uuid_generate(&a);
    uuid_generate(&b);
    uuid_zero(&zero);
    memset(&rpc, 0, sizeof rpc);
    rpc.type = RAFT_RPC_VOTE_REPLY;
    rpc.common.cid = a;
    rpc.common.to = b;

    /* A joining server learns the cluster ID. */
    struct uuid cid = zero;
    struct ovsdb_error *error = raft_rpc_check_address(&rpc, &cid, &b,
                                                       &learned);
    CHECK(!error && learned && uuid_equals(&cid, &a));
    ovsdb_error_destroy(error);

    /* Same cluster, right destination. */
    error = raft_rpc_check_address(&rpc, &cid, &b, &learned);
    CHECK(!error && !learned);
    ovsdb_error_destroy(error);

    /* Misrouted. */
    error = raft_rpc_check_address(&rpc, &cid, &a, NULL);
    char *s = ovsdb_error_to_string_free(error);
    CHECK(s && strstr(s, "misrouted"));
    free(s);

    /* Wrong cluster. */
    cid = b;
    error = raft_rpc_check_address(&rpc, &cid, &b, NULL);
    s = ovsdb_error_to_string_free(error);
    CHECK(s && strstr(s, "wrong cluster"));
    free(s);

    /* No "cluster", no "to": passes. */
    rpc.common.cid = zero;
    rpc.common.to = zero;
    error = raft_rpc_check_address(&rpc, &cid, &a, NULL);
    CHECK(!error);
    ovsdb_error_destroy(error);
}

/* The log form of a message, and what a heartbeat is. */
static void
test_format(void)
{
    json_t *json = jsonx_from_string(
        "{\"method\":\"append_reply\",\"id\":null,\"params\":[{" CID ","
        FROM "," TO ",\"comment\":\"heartbeat\",\"term\":3,\"log_end\":9,"
        "\"prev_log_index\":8,\"prev_log_term\":3,\"n_entries\":0,"
        "\"result\":\"OK\"}]}", NULL);
    struct jsonrpc_msg *msg;
    char *s = jsonrpc_msg_from_json(json, &msg);
    CHECK(!s);
    union raft_rpc rpc;
    struct ovsdb_error *error = raft_rpc_from_jsonrpc(msg, &rpc);
    CHECK(!error);
    struct ds ds;
    ds_init(&ds);
    raft_rpc_format(&rpc, &ds);
    CHECK_STREQ(ds_cstr(&ds), "append_reply \"heartbeat\": term=3 log_end=9 "
                "prev_log_index=8 prev_log_term=3 n_entries=0 "
                "result=\"OK\"");
    CHECK(raft_rpc_is_heartbeat(&rpc));
    CHECK(raft_rpc_get_min_sync_index(&rpc) == 8);
    ds_destroy(&ds);
    raft_rpc_uninit(&rpc);
    jsonrpc_msg_destroy(msg);
    json_decref(json);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_corpus),      CHECK_CASE(test_malformed),
    CHECK_CASE(test_big_numbers), CHECK_CASE(test_check_address),
    CHECK_CASE(test_format),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-raft-rpc", cases, ARRAY_SIZE(cases));
}
