/* tests/unit/format/test-raft-record.c: ovsdb/format/raft-record: records the
 * reference 3.1 wrote (create-cluster, join-cluster, a server's log) parse and
 * print back byte for byte; every record kind round-trips; numbers from 2**63;
 * the reference's errors for bad records. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/raft-record.h"
#include "tests/unit/check.h"

/* Headers and records copied from files that the reference wrote. */
static const char *ref_headers[] = {
    /* create-cluster, tcp address. */
    "{\"prev_eid\":\"26a92683-8ab4-4f9a-ac70-ec89d0741c3b\",\"cluster_id\":"
    "\"0ac52ee5-4dda-4759-8562-1f06c6b0cc44\",\"name\":\"Store\","
    "\"prev_term\":1,\"prev_data\":[{\"name\":\"Store\",\"tables\":{},"
    "\"version\":\"1.2.3\"},{}],\"prev_servers\":{\"a0646581-25cc-433b-"
    "831d-4788bb197f59\":\"tcp:127.0.0.1:6641\"},\"server_id\":\"a0646581-"
    "25cc-433b-831d-4788bb197f59\",\"prev_index\":1,\"local_address\":"
    "\"tcp:127.0.0.1:6641\"}",
    /* join-cluster with five remotes (and the local address among them,
     * which is dropped). */
    "{\"name\":\"Store\",\"remote_addresses\":[\"tcp:10.0.0.3:6643\","
    "\"tcp:127.0.0.1:6642\",\"ssl:[::1]:6644\",\"tcp:127.0.0.1:6645\","
    "\"unix:foo\"],\"server_id\":\"6cd20492-2f51-48ee-8cbc-7b790fe22726\","
    "\"local_address\":\"tcp:127.0.0.1:6641\"}",
};

static const char *ref_records[] = {
    "{\"vote\":\"f76e2c67-5c2c-4b41-a21a-b686ca6bbba0\",\"term\":1}",
    "{\"leader\":\"f76e2c67-5c2c-4b41-a21a-b686ca6bbba0\",\"term\":1}",
    "{\"term\":1,\"index\":2}",
    "{\"commit_index\":2}",
    "{\"eid\":\"aefc0db6-2b8f-4b1e-b452-d29c5b1bd44c\",\"data\":[null,"
    "{\"Root\":{\"19da8019-2108-4e4f-b744-5ff71619f574\":{\"n\":1,\"name\":"
    "\"r1\",\"opts\":[\"map\",[[\"k\",\"v\"]]],\"tags\":[\"set\",[\"a\","
    "\"b\"]]}},\"_date\":1796162267264,\"_is_diff\":true}],\"term\":1,"
    "\"index\":3}",
};

static json_t *
parse(const char *s)
{
    char *msg = NULL;
    json_t *j = jsonx_from_string(s, &msg);
    if (!j) {
        fprintf(stderr, "bad test JSON: %s\n", msg);
        abort();
    }
    return j;
}

static bool
is_ok(struct ovsdb_error *error)
{
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        fprintf(stderr, "unexpected error: %s\n", s);
        free(s);
        return false;
    }
    return true;
}

/* Parses 'json' as a header (if 'header') or a record; returns the
 * error, if any. */
static struct ovsdb_error *
parse_as(const json_t *json, bool header)
{
    struct ovsdb_error *error;
    if (header) {
        struct raft_header h;
        error = raft_header_from_json(&h, json);
        if (!error) {
            raft_header_destroy(&h);
        }
    } else {
        struct raft_record r;
        error = raft_record_from_json(&r, json);
        if (!error) {
            raft_record_destroy(&r);
        }
    }
    return error;
}

/* Checks that parsing 'text' as a header (if 'header') or a record fails
 * with a message containing 'expected'. */
static void
check_error(bool header, const char *text, const char *expected)
{
    json_t *j = parse(text);
    struct ovsdb_error *error = parse_as(j, header);
    CHECK(error != NULL);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        if (!strstr(s, expected)) {
            fprintf(stderr, "%s: got \"%s\", expected \"%s\"\n", text, s,
                    expected);
            check_failures++;
        }
        free(s);
    }
    json_decref(j);
}

static void
check_record_error(const char *text, const char *expected)
{
    check_error(false, text, expected);
}

static void
check_header_error(const char *text, const char *expected)
{
    check_error(true, text, expected);
}

/* The reference's headers and records print back byte for byte. */
static void
test_reference_bytes(void)
{
    /* join-cluster DB Store tcp:127.0.0.1:6641 followed by these. */
    static const char *remotes[] = {
        "tcp:127.0.0.1:6642", "tcp:10.0.0.3:6643", "ssl:[::1]:6644",
        "tcp:127.0.0.1:6645", "unix:foo",
    };
    struct raft_header jh = {
        .name = "Store",
        .local_address = "tcp:127.0.0.1:6641",
        .joining = true,
        .remote_addresses = (char **) remotes,
        .n_remote_addresses = ARRAY_SIZE(remotes),
    };
    CHECK(uuid_from_string(&jh.sid, "6cd20492-2f51-48ee-8cbc-7b790fe22726"));
    struct ds jout = DS_EMPTY_INITIALIZER;
    raft_header_put(&jout, &jh);
    CHECK_STREQ(ds_cstr(&jout), ref_headers[1]);
    ds_destroy(&jout);

    for (size_t i = 0; i < 1; i++) {
        json_t *j = parse(ref_headers[i]);
        struct raft_header h;
        CHECK(is_ok(raft_header_from_json(&h, j)));
        struct ds out = DS_EMPTY_INITIALIZER;
        raft_header_put(&out, &h);
        CHECK_STREQ(ds_cstr(&out), ref_headers[i]);
        ds_destroy(&out);
        raft_header_destroy(&h);
        json_decref(j);
    }
    for (size_t i = 0; i < ARRAY_SIZE(ref_records); i++) {
        json_t *j = parse(ref_records[i]);
        struct raft_record r;
        CHECK(is_ok(raft_record_from_json(&r, j)));
        struct ds out = DS_EMPTY_INITIALIZER;
        raft_record_put(&out, &r);
        CHECK_STREQ(ds_cstr(&out), ref_records[i]);
        ds_destroy(&out);
        raft_record_destroy(&r);
        json_decref(j);
    }
}

/* The fields parsed from the reference's headers and records. */
static void
test_parsed_fields(void)
{
    json_t *j = parse(ref_headers[1]);
    struct raft_header h;
    CHECK(is_ok(raft_header_from_json(&h, j)));
    CHECK(h.joining);
    CHECK(uuid_is_zero(&h.cid));
    CHECK_INTEQ(h.n_remote_addresses, 5);
    CHECK_STREQ(h.name, "Store");
    CHECK_STREQ(h.local_address, "tcp:127.0.0.1:6641");
    raft_header_destroy(&h);
    json_decref(j);

    j = parse(ref_headers[0]);
    CHECK(is_ok(raft_header_from_json(&h, j)));
    CHECK(!h.joining);
    CHECK_INTEQ(h.snap_index, 1);
    CHECK_INTEQ(h.snap.term, 1);
    CHECK(h.snap.data && json_is_array(h.snap.data));
    struct uuid sid;
    CHECK(uuid_from_string(&sid, "a0646581-25cc-433b-831d-4788bb197f59"));
    CHECK(uuid_equals(&sid, &h.sid));
    CHECK(raft_servers_contain(h.snap.servers, &sid));
    const json_t *schema, *txn;
    CHECK(is_ok(raft_data_split(h.snap.data, &schema, &txn)));
    CHECK(schema && json_is_object(schema));
    CHECK(txn && json_is_object(txn));
    raft_header_destroy(&h);
    json_decref(j);

    j = parse(ref_records[4]);
    struct raft_record r;
    CHECK(is_ok(raft_record_from_json(&r, j)));
    CHECK(r.type == RAFT_REC_ENTRY);
    CHECK_INTEQ(r.term, 1);
    CHECK_INTEQ(r.entry.index, 3);
    CHECK(!uuid_is_zero(&r.entry.e.eid));
    CHECK(is_ok(raft_data_split(r.entry.e.data, &schema, &txn)));
    CHECK(!schema && txn);
    raft_record_destroy(&r);
    json_decref(j);
}

/* Round trip of every kind, with comments and numbers past 2**63. */
static void
test_round_trip(void)
{
    static const char *texts[] = {
        "{\"term\":18446744073709551615}",
        "{\"commit_index\":9223372036854775808}",
        "{\"note\":\"left\",\"comment\":\"bye\"}",
        "{\"term\":3,\"index\":7,\"election_timer\":2000,"
        "\"servers\":{\"a0646581-25cc-433b-831d-4788bb197f59\":"
        "\"tcp:1.2.3.4:5\"}}",
        "{\"term\":3,\"index\":8,\"data\":[{\"x\":1},null],"
        "\"eid\":\"26a92683-8ab4-4f9a-ac70-ec89d0741c3b\"}",
    };
    /* Over int64: a real, as in OVS, so not a valid term. */
    json_t *j = parse(texts[0]);
    CHECK(json_is_real(json_object_get(j, "term")));
    json_decref(j);
    check_record_error(texts[0], "Type mismatch for member 'term'");

    struct raft_record r;
    memset(&r, 0, sizeof r);
    r.type = RAFT_REC_TERM;
    r.term = UINT64_MAX;
    struct ds out = DS_EMPTY_INITIALIZER;
    raft_record_put(&out, &r);
    CHECK_STREQ(ds_cstr(&out), "{\"term\":-1}");
    j = parse(ds_cstr(&out));
    struct raft_record back;
    CHECK(is_ok(raft_record_from_json(&back, j)));
    CHECK(back.type == RAFT_REC_TERM && back.term == UINT64_MAX);
    raft_record_destroy(&back);
    json_decref(j);
    ds_clear(&out);

    r.type = RAFT_REC_COMMIT_INDEX;
    r.term = 0;
    r.commit_index = (uint64_t) 1 << 63;
    raft_record_put(&out, &r);
    CHECK_STREQ(ds_cstr(&out), "{\"commit_index\":-9223372036854775808}");
    j = parse(ds_cstr(&out));
    CHECK(is_ok(raft_record_from_json(&back, j)));
    CHECK(back.type == RAFT_REC_COMMIT_INDEX
          && back.commit_index == (uint64_t) 1 << 63);
    raft_record_destroy(&back);
    json_decref(j);
    ds_destroy(&out);

    for (size_t i = 2; i < ARRAY_SIZE(texts); i++) {
        j = parse(texts[i]);
        CHECK(is_ok(raft_record_from_json(&r, j)));
        json_t *again = raft_record_to_json(&r);
        CHECK(json_equal(again, j));
        json_decref(again);
        raft_record_destroy(&r);
        json_decref(j);
    }

    /* The fast entry writer gives the same bytes. */
    j = parse(texts[4]);
    CHECK(is_ok(raft_record_from_json(&r, j)));
    struct ds a = DS_EMPTY_INITIALIZER, b = DS_EMPTY_INITIALIZER;
    raft_record_put(&a, &r);
    struct ds data = DS_EMPTY_INITIALIZER;
    raft_data_put(&data, json_array_get(r.entry.e.data, 0), NULL);
    raft_record_put_entry(&b, r.term, r.entry.index, data.string,
                          data.length, &r.entry.e.eid, NULL, 0);
    CHECK_STREQ(ds_cstr(&a), ds_cstr(&b));
    ds_destroy(&a);
    ds_destroy(&b);
    ds_destroy(&data);
    raft_record_destroy(&r);
    json_decref(j);
}

/* Bad records, each with the reference's wording. */
static void
test_record_errors(void)
{
    check_record_error("[1]", "Object expected");
    check_record_error("{}", "Required 'term' member is missing");
    check_record_error("{\"term\":1,\"leader\":"
                       "\"00000000-0000-0000-0000-000000000000\"}",
                       "record says leader is all-zeros SID");
    check_record_error("{\"term\":1,\"vote\":"
                       "\"00000000-0000-0000-0000-000000000000\"}",
                       "record votes for all-zeros SID");
    check_record_error("{\"term\":1,\"vote\":\"x\"}",
                       "vote is not a valid UUID");
    check_record_error("{\"term\":1,\"index\":2,\"data\":[null,null]}",
                       "Required 'eid' member is missing");
    check_record_error("{\"note\":\"x\",\"term\":1}",
                       "Member 'term' is present but not allowed here");
    check_record_error("{\"term\":1,\"index\":2,\"servers\":{}}",
                       "must have at least one server");
    check_record_error("{\"term\":1,\"index\":2,\"servers\":"
                       "{\"x\":\"tcp:1.2.3.4:5\"}}", "x is not a UUID");
    check_record_error("{\"term\":1,\"index\":2,\"servers\":"
                       "{\"a0646581-25cc-433b-831d-4788bb197f59\":"
                       "\"udp:1\"}}", "expected \"tcp\" or \"ssl\" address");
    check_record_error("{\"term\":\"1\"}",
                       "Type mismatch for member 'term'");
}

/* Bad headers, each with the reference's wording. */
static void
test_header_errors(void)
{
    check_header_error("{}", "Required 'server_id' member is missing");
    check_header_error("{\"server_id\":\"a0646581-25cc-433b-831d-"
                       "4788bb197f59\",\"name\":\"S\",\"local_address\":"
                       "\"tcp:1.2.3.4:5\",\"cluster_id\":\"a0646581-25cc-"
                       "433b-831d-4788bb197f59\"}",
                       "Required 'prev_servers' member is missing");
    check_header_error("{\"server_id\":\"a0646581-25cc-433b-831d-"
                       "4788bb197f59\",\"name\":\"S\",\"local_address\":"
                       "\"tcp:1.2.3.4:5\",\"remote_addresses\":"
                       "[\"tcp:1.2.3.4:5\"]}", "at least one remote address "
                       "(other than the local address) is required");
    check_header_error("{\"server_id\":\"a0646581-25cc-433b-831d-"
                       "4788bb197f59\",\"name\":\"S\",\"local_address\":"
                       "\"tcp:1.2.3.4:5\",\"remote_addresses\":[]}",
                       "at least one remote address is required");
}

/* An address needs a port; a host name need not resolve. */
static void
test_address_validate(void)
{
    struct ovsdb_error *e = raft_address_validate("tcp:127.0.0.1");
    CHECK(e != NULL);
    ovsdb_error_destroy(e);
    e = raft_address_validate("tcp:[::1]:6641");
    CHECK(e == NULL);
    ovsdb_error_destroy(e);
    e = raft_address_validate("tcp:no.such.host.invalid:6641");
    CHECK(e == NULL);
    ovsdb_error_destroy(e);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_reference_bytes), CHECK_CASE(test_parsed_fields),
    CHECK_CASE(test_round_trip),      CHECK_CASE(test_record_errors),
    CHECK_CASE(test_header_errors),   CHECK_CASE(test_address_validate),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-raft-record", cases,
                      ARRAY_SIZE(cases));
}
