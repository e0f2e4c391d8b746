/* tests/unit/server/test-remotes.c: remotes and PKI file names read from the
 * database ("db:DB,TABLE,COLUMN"), following changes. */
#include <config.h>
#include "ovsdb/server/remotes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/schema.h"
#include "tests/unit/check.h"

static struct ovsdb *the_db;

static struct ovsdb *
find_db(const char *name, void *aux)
{
    CHECK_STREQ(aux, "aux");
    return !strcmp(name, "Secure") ? the_db : NULL;
}

static void
run(const char *ops)
{
    char *text = xasprintf("[\"Secure\",%s]", ops);
    json_t *params = jsonx_from_string(text, NULL);
    json_t *result = ovsdb_execute(the_db, params, false);
    char *s = jsonx_to_string_sorted(result);
    if (strstr(s, "\"error\"")) {
        fprintf(stderr, "transaction failed: %s\n", s);
        check_failures++;
    }
    free(s);
    free(text);
    json_decref(params);
    json_decref(result);
}

/* Returns the remotes of 'specs' as "target/probe/backoff/ro/role/dscp"
 * lines, sorted; caller must free. */
static char *
collect(const char *const *specs, size_t n, struct ds *errors)
{
    struct ovsdb_remotes remotes;
    ovsdb_remotes_init(&remotes);
    ovsdb_remotes_collect(&remotes, specs, n, find_db, "aux", errors);
    const struct ovsdb_remote_options **sorted = ovsdb_remotes_sort(&remotes);
    struct ds s = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < ovsdb_remotes_count(&remotes); i++) {
        const struct ovsdb_remote_options *o = sorted[i];
        ds_put_format(&s, "%s/%d/%d/%s/%s/%d\n", o->target,
                      o->probe_interval, o->max_backoff,
                      o->read_only ? "ro" : "rw", o->role ? o->role : "-",
                      o->dscp);
    }
    free(sorted);
    ovsdb_remotes_destroy(&remotes);
    return ds_steal_cstr(&s);
}

static void
check_parse_error(const char *spec, const char *expected)
{
    struct ovsdb_remotes remotes;
    ovsdb_remotes_init(&remotes);
    struct ovsdb_error *error = ovsdb_remotes_add_spec(&remotes, spec,
                                                       find_db, "aux");
    CHECK(error != NULL);
    if (error) {
        CHECK_STREQ(ovsdb_error_get_details(error), expected);
        ovsdb_error_destroy(error);
    }
    CHECK_INTEQ(ovsdb_remotes_count(&remotes), 0);
    ovsdb_remotes_destroy(&remotes);
}

static void
test_errors(void)
{
    check_parse_error("db:Secure,Global",
                      "\"db:Secure,Global\": invalid syntax");
    check_parse_error("db:Secure,Global,connections,x",
                      "\"db:Secure,Global,connections,x\": invalid syntax");
    check_parse_error("db:nodb,X,Y",
                      "\"db:nodb,X,Y\": no database named nodb");
    check_parse_error("db:Secure,Nope,x",
                      "\"db:Secure,Nope,x\": no table named Nope");
    check_parse_error("db:Secure,Global,nope",
                      "\"db:Secure,Global,nope\": table \"Global\" has no "
                      "column \"nope\"");

    /* collect() goes on past errors and reports each. */
    const char *specs[] = { "db:nodb,X,Y", "punix:/tmp/x.sock",
                            "db:Secure,Global" };
    struct ds errors = DS_EMPTY_INITIALIZER;
    char *got = collect(specs, ARRAY_SIZE(specs), &errors);
    CHECK_STREQ(got, "punix:/tmp/x.sock/5000/8000/rw/-/48\n");
    CHECK_STREQ(ds_cstr(&errors),
                "\"db:nodb,X,Y\": no database named nodb\n"
                "\"db:Secure,Global\": invalid syntax\n");
    free(got);
    ds_destroy(&errors);
}

static void
test_remotes(void)
{
    const char *specs[] = { "db:Secure,Global,connections",
                            "db:Secure,Global,manager_options",
                            "db:Secure,Global,nb_cfg",
                            "ptcp:6640" };
    char *got = collect(specs, ARRAY_SIZE(specs), NULL);
    CHECK_STREQ(got, "ptcp:6640/5000/8000/rw/-/48\n");
    free(got);

    run("{\"op\":\"insert\",\"table\":\"Connection\",\"row\":{"
        "\"target\":\"pssl:6641\",\"role\":\"ovn-controller\","
        "\"inactivity_probe\":60000,\"max_backoff\":2000},"
        "\"uuid-name\":\"c1\"},"
        "{\"op\":\"insert\",\"table\":\"Connection\",\"row\":{"
        "\"target\":\"ptcp:6642:127.0.0.1\",\"read_only\":true,"
        "\"other_config\":[\"map\",[[\"dscp\",\"10\"]]]},"
        "\"uuid-name\":\"c2\"},"
        "{\"op\":\"insert\",\"table\":\"Connection\",\"row\":{"
        "\"target\":\"\",\"other_config\":[\"map\",[[\"dscp\",\"99\"]]]},"
        "\"uuid-name\":\"c3\"},"
        "{\"op\":\"insert\",\"table\":\"Global\",\"row\":{"
        "\"connections\":[\"set\",[[\"named-uuid\",\"c1\"],"
        "[\"named-uuid\",\"c2\"],[\"named-uuid\",\"c3\"]]],"
        "\"manager_options\":[\"set\",[\"punix:/tmp/m.sock\",\"ptcp:6640\"]],"
        "\"nb_cfg\":3}}");
    got = collect(specs, ARRAY_SIZE(specs), NULL);
    CHECK_STREQ(got,
                "pssl:6641/60000/2000/rw/ovn-controller/48\n"
                "ptcp:6640/5000/8000/rw/-/48\n"
                "ptcp:6642:127.0.0.1/5000/8000/ro/-/10\n"
                "punix:/tmp/m.sock/5000/8000/rw/-/48\n");
    free(got);

    /* The set follows the database. */
    struct ovsdb_remotes before, after;
    ovsdb_remotes_init(&before);
    ovsdb_remotes_init(&after);
    ovsdb_remotes_collect(&before, specs, ARRAY_SIZE(specs), find_db, "aux",
                          NULL);
    ovsdb_remotes_collect(&after, specs, ARRAY_SIZE(specs), find_db, "aux",
                          NULL);
    CHECK(ovsdb_remotes_equal(&before, &after));

    /* Replace the connections: the old rows, unreferenced, go away. */
    run("{\"op\":\"insert\",\"table\":\"Connection\",\"row\":{"
        "\"target\":\"pssl:6641\",\"inactivity_probe\":0},"
        "\"uuid-name\":\"n1\"},"
        "{\"op\":\"update\",\"table\":\"Global\",\"where\":[],"
        "\"row\":{\"connections\":[\"named-uuid\",\"n1\"]}},"
        "{\"op\":\"mutate\",\"table\":\"Global\",\"where\":[],"
        "\"mutations\":[[\"manager_options\",\"delete\","
        "\"punix:/tmp/m.sock\"]]}");
    ovsdb_remotes_collect(&after, specs, ARRAY_SIZE(specs), find_db, "aux",
                          NULL);
    CHECK(!ovsdb_remotes_equal(&before, &after));
    CHECK_INTEQ(ovsdb_remotes_count(&after), 2);
    const struct ovsdb_remote_options *o
        = ovsdb_remotes_find(&after, "pssl:6641");
    CHECK(o && o->probe_interval == 0 && !o->role);
    CHECK(!ovsdb_remotes_find(&after, "punix:/tmp/m.sock"));
    ovsdb_remotes_swap(&before, &after);
    CHECK(ovsdb_remotes_find(&before, "pssl:6641") != NULL);
    CHECK_INTEQ(ovsdb_remotes_count(&after), 4);
    ovsdb_remotes_destroy(&before);
    ovsdb_remotes_destroy(&after);
}

static void
check_query(const char *spec, const char *expected_value,
            const char *expected_error)
{
    char *value;
    struct ovsdb_error *error = ovsdb_remotes_query_string(spec, find_db,
                                                           "aux", &value);
    if (expected_error) {
        CHECK(error && !value);
        if (error) {
            CHECK_STREQ(ovsdb_error_get_details(error), expected_error);
        }
    } else {
        CHECK(!error);
        if (expected_value) {
            CHECK_STREQ(value, expected_value);
        } else {
            CHECK(!value);
        }
    }
    ovsdb_error_destroy(error);
    free(value);
}

static void
test_query_string(void)
{
    check_query(NULL, NULL, NULL);
    check_query("/etc/key.pem", "/etc/key.pem", NULL);
    check_query("db:Secure,SSL,private_key", NULL, NULL);
    run("{\"op\":\"insert\",\"table\":\"SSL\",\"row\":{"
        "\"private_key\":\"/k.pem\",\"certificate\":\"\"},"
        "\"uuid-name\":\"s\"},"
        "{\"op\":\"update\",\"table\":\"Global\",\"where\":[],"
        "\"row\":{\"ssl\":[\"named-uuid\",\"s\"],"
        "\"manager_options\":[\"set\",[\"\",\"ptcp:1\"]]}}");
    check_query("db:Secure,SSL,private_key", "/k.pem", NULL);
    check_query("db:Secure,SSL,certificate", NULL, NULL);
    /* The first nonempty string of a set. */
    check_query("db:Secure,Global,manager_options", "ptcp:1", NULL);
    check_query("db:Secure,Global,ssl", NULL,
                "\"db:Secure,Global,ssl\": table \"Global\" column \"ssl\" "
                "is not a string or set of strings");
    check_query("db:Secure,SSL,nope", NULL,
                "\"db:Secure,SSL,nope\": table \"SSL\" has no column "
                "\"nope\"");
}

static const struct check_case cases[] = {
    CHECK_CASE(test_errors),
    CHECK_CASE(test_remotes),
    CHECK_CASE(test_query_string),
};

int
main(int argc, char *argv[])
{
    const char *srcdir = getenv("OVSDB_SRCDIR");
    char *path = xasprintf("%s/tests/data/schemas/rbac.ovsschema",
                           srcdir ? srcdir : ".");
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_file(path, &schema);
    free(path);
    if (error) {
        fprintf(stderr, "%s\n", ovsdb_error_to_string_free(error));
        return 1;
    }
    the_db = ovsdb_create(schema);

    int status = check_main(argc, argv, "test-remotes", cases,
                            sizeof cases / sizeof *cases);

    ovsdb_destroy(the_db);
    return status;
}
