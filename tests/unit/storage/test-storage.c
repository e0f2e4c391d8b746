/* tests/unit/storage/test-storage.c: ovsdb/storage with real files: commits
 * reach the file, an injected write error fails the commit and leaves the file
 * without it, the storage rewrites itself once the disk is good again,
 * background (forked) compaction keeps commits made while it runs, the size
 * policy starts compaction by itself, and a torn tail is dropped. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "lib/util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/execution.h"
#include "ovsdb/format/file.h"
#include "ovsdb/format/log.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/storage/storage.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"
#include "tests/unit/check.h"

static char *dir;
static char *schema_file;

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

static char *
make_db(const char *name)
{
    char *path = xasprintf("%s/%s", dir, name);
    unlink(path);
    struct ovsdb_schema *schema;
    CHECK(is_ok(ovsdb_schema_from_file(schema_file, &schema)));
    CHECK(is_ok(ovsdb_file_create(path, schema, NULL, NULL, NULL)));
    ovsdb_schema_destroy(schema);
    return path;
}

/* Executes the "transact" 'params' (takes ownership) on 'db'; returns the
 * transaction to commit (NULL and a report if there is none) and stores
 * whether it asked for a durable commit in '*durable'. */
static struct ovsdb_txn *
compose(struct ovsdb *db, json_t *params, bool *durable)
{
    long long timeout;
    json_t *result;
    struct ovsdb_txn *txn = ovsdb_execute_compose(db, params, false, NULL,
                                                  NULL, 0, &timeout,
                                                  durable, &result);
    json_decref(params);
    CHECK(txn != NULL);
    if (!txn) {
        char *r = result ? jsonx_to_string_sorted(result) : NULL;
        fprintf(stderr, "transaction failed: %s\n", r ? r : "(null)");
        free(r);
    }
    json_decref(result);
    return txn;
}

/* Inserts a Root row named 'name' through 's'.  Returns the commit's
 * error (the transaction is aborted then). */
static struct ovsdb_error *
insert(struct ovsdb_storage *s, struct ovsdb *db, const char *name)
{
    json_t *params = json_pack("[s, {s:s, s:s, s:{s:s, s:[s, [s, s]]}}]",
                               "Store", "op", "insert", "table", "Root",
                               "row", "name", name, "tags", "set", "x", name);
    bool durable;
    struct ovsdb_txn *txn = compose(db, params, &durable);
    if (!txn) {
        return NULL;
    }
    struct ovsdb_error *error = ovsdb_txn_precommit(txn);
    CHECK(is_ok(error));
    error = ovsdb_storage_commit_txn(s, txn, true);
    if (error) {
        ovsdb_txn_abort(txn);
    } else {
        ovsdb_txn_commit_finish(txn);
    }
    return error;
}

static size_t
root_rows(const struct ovsdb *db)
{
    return ovsdb_table_n_rows(ovsdb_get_table(db, "Root"));
}

/* Opens 'path' afresh (as ovsdb-tool would) and returns its Root count, or
 * -1 if it does not open cleanly. */
static long
count_in_file(const char *path)
{
    struct ovsdb *db;
    if (!is_ok(ovsdb_file_open(path, &db, NULL, NULL))) {
        return -1;
    }
    long n = root_rows(db);
    ovsdb_destroy(db);
    return n;
}

static long long
file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : st.st_size;
}

static void
test_commit_and_faults(void)
{
    char *path = make_db("commit.db");
    struct ovsdb_storage *s;
    struct ovsdb *db;
    CHECK(is_ok(ovsdb_storage_open(path, &s, &db)));
    CHECK(is_ok(insert(s, db, "a")));
    CHECK(is_ok(insert(s, db, "b")));
    CHECK_INTEQ(count_in_file(path), 2);

    /* A failed write: the commit fails, the row is not in memory or on
     * disk. */
    ovsdb_log_inject_fault(1, ENOSPC, false);
    struct ovsdb_error *error = insert(s, db, "c");
    CHECK(error && ovsdb_error_get_tag(error) == OVSDB_E_IO);
    ovsdb_error_destroy(error);
    CHECK_INTEQ(root_rows(db), 2);
    CHECK_INTEQ(count_in_file(path), 2);
    /* The very next commit works. */
    CHECK(is_ok(insert(s, db, "c")));
    CHECK_INTEQ(count_in_file(path), 3);

    /* A failed fsync breaks the log: commits fail until the disk is good
     * and ovsdb_storage_run() has rewritten the file. */
    ovsdb_log_inject_fault(2, EIO, true);   /* Write ok, fsync fails. */
    error = insert(s, db, "d");
    CHECK(error != NULL);
    ovsdb_error_destroy(error);
    error = insert(s, db, "e");
    CHECK(error != NULL);
    ovsdb_error_destroy(error);
    ovsdb_storage_run(s);                   /* Rewrite fails too. */
    ovsdb_log_inject_fault(0, 0, false);
    error = insert(s, db, "e");
    CHECK(error != NULL);                   /* Not rewritten yet. */
    ovsdb_error_destroy(error);
    for (int i = 0; i < 40 && (error = insert(s, db, "e")); i++) {
        ovsdb_error_destroy(error);
        usleep(50 * 1000);
        ovsdb_storage_run(s);
    }
    CHECK(error == NULL);
    CHECK_INTEQ(root_rows(db), 4);
    ovsdb_storage_close(s);
    ovsdb_destroy(db);
    CHECK_INTEQ(count_in_file(path), 4);    /* a b c e, never d. */
    free(path);
}

/* Runs 'ops' (JSON text of operations on "Store", comma-separated) as one
 * transaction deferred into 's''s batch.  Returns true if it joined it. */
static bool
defer_txn(struct ovsdb_storage *s, struct ovsdb *db, const char *ops)
{
    char *text = xasprintf("[\"Store\",%s]", ops);
    json_t *params = json_loads(text, 0, NULL);
    free(text);
    bool durable;
    struct ovsdb_txn *txn = compose(db, params, &durable);
    if (!txn || !is_ok(ovsdb_txn_precommit(txn))) {
        ovsdb_txn_abort(txn);
        return false;
    }
    struct ovsdb_error *error = ovsdb_storage_commit_defer(s, txn, durable);
    if (error) {
        ovsdb_error_destroy(error);
        ovsdb_txn_abort(txn);
        return false;
    }
    return true;
}

/* The counter row's "n", or -1. */
static long long
counter_value(const struct ovsdb *db)
{
    const struct ovsdb_table *t = ovsdb_get_table(db, "Root");
    const struct ovsdb_column *c = ovsdb_table_schema_find_column(t->schema,
                                                                 "n");
    const struct ovsdb_column *name = ovsdb_table_schema_find_column(
        t->schema, "name");
    const struct ovsdb_row *row;
    HMAP_FOR_EACH (row, hmap_node, &t->rows) {
        const struct ovsdb_datum *d = ovsdb_row_get_datum(row, name);
        if (d->n == 1 && !strcmp(ovsdb_atom_string(&d->keys[0]), "counter")) {
            return ovsdb_row_get_datum(row, c)->keys[0].integer;
        }
    }
    return -1;
}

/* Group commit: three transactions, each changing the row the one before
 * changed (and adding a strongly referenced Child), share one write; when
 * it fails, all three are undone in reverse order; when the fsync fails,
 * the file is cut back to where it was and the log stays writable. */
static void
test_group_commit(void)
{
    static const char bump[] =
        "{\"op\":\"insert\",\"table\":\"Child\",\"row\":{\"value\":1},"
        "\"uuid-name\":\"c\"},"
        "{\"op\":\"mutate\",\"table\":\"Root\",\"where\":[[\"name\",\"==\","
        "\"counter\"]],\"mutations\":[[\"n\",\"+=\",1],[\"kids\",\"insert\","
        "[\"set\",[[\"named-uuid\",\"c\"]]]]]},"
        "{\"op\":\"commit\",\"durable\":true}";
    char *path = make_db("group.db");
    struct ovsdb_storage *s;
    struct ovsdb *db;
    CHECK(is_ok(ovsdb_storage_open(path, &s, &db)));
    CHECK(defer_txn(s, db, "{\"op\":\"insert\",\"table\":\"Root\","
                    "\"row\":{\"name\":\"counter\"}}"));
    CHECK(is_ok(ovsdb_storage_flush(s)));
    CHECK(!ovsdb_storage_has_pending(s));
    long long size = file_size(path);
    const struct ovsdb_table *child = ovsdb_get_table(db, "Child");

    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 3; i++) {
            CHECK(defer_txn(s, db, bump));
        }
        CHECK(ovsdb_storage_has_pending(s));
        CHECK_INTEQ(counter_value(db), 3);
        CHECK_INTEQ(ovsdb_table_n_rows(child), 3);
        if (round == 0) {
            ovsdb_log_inject_fault(1, ENOSPC, false);    /* The write. */
        } else if (round == 1) {
            ovsdb_log_inject_fault(2, EIO, false);       /* The fsync. */
        }
        struct ovsdb_error *error = ovsdb_storage_flush(s);
        ovsdb_log_inject_fault(0, 0, false);
        CHECK((error != NULL) == (round < 2));
        ovsdb_error_destroy(error);
        if (round < 2) {
            /* Undone in memory, cut off in the file, log still usable. */
            CHECK_INTEQ(counter_value(db), 0);
            CHECK_INTEQ(ovsdb_table_n_rows(child), 0);
            CHECK_INTEQ(file_size(path), size);
            CHECK_INTEQ(count_in_file(path), 1);
        }
    }
    CHECK_INTEQ(counter_value(db), 3);
    CHECK_INTEQ(ovsdb_table_n_rows(child), 3);
    /* The undone rows left reference counts right: deleting the counter
     * collects every Child. */
    CHECK(defer_txn(s, db, "{\"op\":\"delete\",\"table\":\"Root\","
                    "\"where\":[]}"));
    CHECK(is_ok(ovsdb_storage_flush(s)));
    CHECK_INTEQ(ovsdb_table_n_rows(child), 0);
    ovsdb_storage_close(s);
    ovsdb_destroy(db);
    CHECK_INTEQ(count_in_file(path), 0);
    free(path);
}

/* Runs 's' until 'n' compactions are done (at most ~10 s). */
static void
run_until_compacted(struct ovsdb_storage *s, unsigned long long n)
{
    for (int i = 0; i < 1000 && ovsdb_storage_n_compactions(s) < n; i++) {
        ovsdb_storage_run(s);
        usleep(10 * 1000);
    }
    CHECK(ovsdb_storage_n_compactions(s) >= n);
}

static void
test_background_compaction(void)
{
    char *path = make_db("compact.db");
    struct ovsdb_storage *s;
    struct ovsdb *db;
    CHECK(is_ok(ovsdb_storage_open(path, &s, &db)));
    ovsdb_storage_set_memory_trim(s, true);
    for (int i = 0; i < 200; i++) {
        char name[32];
        snprintf(name, sizeof name, "row%d", i);
        CHECK(is_ok(insert(s, db, name)));
    }
    long long big = file_size(path);

    CHECK(is_ok(ovsdb_storage_compact(s)));
    CHECK(ovsdb_storage_is_compacting(s));
    /* Commits while the child writes the snapshot. */
    CHECK(is_ok(insert(s, db, "during1")));
    CHECK(is_ok(insert(s, db, "during2")));
    run_until_compacted(s, 1);
    CHECK(!ovsdb_storage_is_compacting(s));
    CHECK(ovsdb_storage_last_compact_error(s) == NULL);
    CHECK(is_ok(insert(s, db, "after")));
    ovsdb_storage_close(s);
    ovsdb_destroy(db);

    CHECK_INTEQ(count_in_file(path), 203);
    CHECK(file_size(path) < big);
    /* Schema, snapshot, 2 records kept during compaction, 1 after. */
    struct ovsdb_log *log;
    CHECK(is_ok(ovsdb_log_open(path, OVSDB_LOG_READ_ONLY, &log)));
    int n = 0;
    json_t *j;
    while (is_ok(ovsdb_log_read(log, &j)) && j) {
        if (n == 1) {
            CHECK_STREQ(json_string_value(json_object_get(j, "_comment")),
                        "compacting database online");
        }
        json_decref(j);
        n++;
    }
    ovsdb_log_close(log);
    CHECK_INTEQ(n, 5);
    char *tmp = xasprintf("%s.tmp", path);
    CHECK(access(tmp, F_OK) != 0);
    free(tmp);

    /* A compaction child that fails leaves the database as it was. */
    CHECK(is_ok(ovsdb_storage_open(path, &s, &db)));
    ovsdb_log_inject_fault(3, ENOSPC, true);   /* In the child too. */
    CHECK(is_ok(ovsdb_storage_compact(s)));
    ovsdb_log_inject_fault(0, 0, false);
    run_until_compacted(s, 1);
    CHECK(ovsdb_storage_last_compact_error(s) != NULL);
    CHECK(is_ok(insert(s, db, "after-failed")));
    ovsdb_storage_close(s);
    ovsdb_destroy(db);
    CHECK_INTEQ(count_in_file(path), 204);
    free(path);
}

/* With small limits, the size policy compacts by itself. */
static void
test_policy(void)
{
    char *path = make_db("policy.db");
    setenv("OVSDB_COMPACT_MIN_MSEC", "0", 1);
    setenv("OVSDB_COMPACT_MIN_BYTES", "20000", 1);
    struct ovsdb_storage *s;
    struct ovsdb *db;
    CHECK(is_ok(ovsdb_storage_open(path, &s, &db)));
    unsetenv("OVSDB_COMPACT_MIN_MSEC");
    unsetenv("OVSDB_COMPACT_MIN_BYTES");
    int i;
    for (i = 0; i < 2000 && !ovsdb_storage_n_compactions(s); i++) {
        char name[32];
        snprintf(name, sizeof name, "p%d", i);
        CHECK(is_ok(insert(s, db, name)));
        ovsdb_storage_run(s);
    }
    CHECK(ovsdb_storage_is_compacting(s)
          || ovsdb_storage_n_compactions(s) > 0);
    run_until_compacted(s, 1);
    CHECK(file_size(path) >= 0);
    ovsdb_storage_close(s);
    ovsdb_destroy(db);
    CHECK_INTEQ(count_in_file(path), i);
    free(path);
}

static void
test_torn_tail(void)
{
    char *path = make_db("torn.db");
    struct ovsdb_storage *s;
    struct ovsdb *db;
    CHECK(is_ok(ovsdb_storage_open(path, &s, &db)));
    CHECK(is_ok(insert(s, db, "a")));
    CHECK(is_ok(insert(s, db, "b")));
    ovsdb_storage_close(s);
    ovsdb_destroy(db);
    CHECK(truncate(path, file_size(path) - 3) == 0);
    CHECK_INTEQ(count_in_file(path), -1);   /* ovsdb-tool refuses it. */

    CHECK(is_ok(ovsdb_storage_open(path, &s, &db)));
    CHECK_INTEQ(root_rows(db), 1);
    CHECK(is_ok(insert(s, db, "c")));
    ovsdb_storage_close(s);
    ovsdb_destroy(db);
    CHECK_INTEQ(count_in_file(path), 2);
    free(path);
}

/* Replacing the database by a converted one: the file then holds the new
 * schema and rows, and later commits and compactions use the new one. */
static void
test_replace_db(void)
{
    char *path = make_db("replace.db");
    struct ovsdb_storage *s;
    struct ovsdb *db;
    CHECK(is_ok(ovsdb_storage_open(path, &s, &db)));
    CHECK(is_ok(insert(s, db, "a")));
    CHECK(is_ok(insert(s, db, "b")));

    char *file2 = xasprintf("%s/tests/storage/test2.ovsschema",
                            getenv("OVSDB_SRCDIR") ? getenv("OVSDB_SRCDIR")
                                                   : ".");
    struct ovsdb_schema *schema2;
    CHECK(is_ok(ovsdb_schema_from_file(file2, &schema2)));
    struct ovsdb *db2;
    CHECK(is_ok(ovsdb_file_convert(db, schema2, &db2)));
    ovsdb_schema_destroy(schema2);
    free(file2);

    CHECK(is_ok(ovsdb_storage_replace_db(s, db2, "converted")));
    ovsdb_destroy(db);
    CHECK(is_ok(insert(s, db2, "c")));
    CHECK(is_ok(ovsdb_storage_compact_sync(s)));
    ovsdb_storage_close(s);
    ovsdb_destroy(db2);

    struct ovsdb_schema *on_disk;
    CHECK(is_ok(ovsdb_file_read_schema(path, &on_disk)));
    CHECK_STREQ(on_disk->version, "1.3.0");
    ovsdb_schema_destroy(on_disk);
    CHECK_INTEQ(count_in_file(path), 3);
    free(path);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_commit_and_faults),
    CHECK_CASE(test_group_commit),
    CHECK_CASE(test_torn_tail),
    CHECK_CASE(test_background_compaction),
    CHECK_CASE(test_policy),
    CHECK_CASE(test_replace_db),
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    const char *srcdir = getenv("OVSDB_SRCDIR");
    schema_file = xasprintf("%s/tests/storage/test.ovsschema",
                            srcdir ? srcdir : ".");
    char template[] = "/tmp/test-storage.XXXXXX";
    const char *tmpdir = getenv("TEST_TMPDIR");
    dir = tmpdir ? xstrdup(tmpdir) : xstrdup(mkdtemp(template));

    int status = check_main(argc, argv, "test-storage", cases,
                            sizeof cases / sizeof *cases);

    free(dir);
    free(schema_file);
    return status;
}
