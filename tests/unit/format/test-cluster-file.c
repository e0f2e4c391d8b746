/* tests/unit/format/test-cluster-file.c: ovsdb/format/cluster-file: create,
 * write every record kind, reopen, replay into a database, compact (snapshot),
 * group commit (with a failed write rolled back), and a torn tail, a corrupt
 * record and contradictory records on reopen. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/log.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/engine/table.h"
#include "tests/unit/check.h"

static char *dir;

static const char schema_text[] =
    "{\"name\":\"Store\",\"version\":\"1.0.0\",\"tables\":{\"Root\":"
    "{\"columns\":{\"name\":{\"type\":\"string\"},"
    "\"n\":{\"type\":\"integer\"}}}}}";

static char *
path(const char *name)
{
    return xasprintf("%s/%s", dir, name);
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

/* Returns the error's text, or "" for none; caller must free. */
static char *
error_text(struct ovsdb_error *error)
{
    return error ? ovsdb_error_to_string_free(error) : xstrdup("");
}

/* DATA of a transaction that inserts row 'uuid' named 'name'. */
static char *
insert_data(const char *uuid, const char *name, long long n)
{
    return xasprintf("[null,{\"Root\":{\"%s\":{\"n\":%lld,\"name\":\"%s\"}},"
                     "\"_date\":1}]", uuid, n, name);
}

static size_t
n_rows(const struct ovsdb *db)
{
    return ovsdb_table_n_rows(ovsdb_get_table(db, "Root"));
}

static struct cluster_file *
open_cf(const char *file)
{
    struct cluster_file *cf = NULL;
    CHECK(is_ok(cluster_file_open(file, true, &cf)));
    return cf;
}

static const char *uuids[] = {
    "11111111-2222-3333-4444-555555555501",
    "11111111-2222-3333-4444-555555555502",
    "11111111-2222-3333-4444-555555555503",
};

/* Creates 'file' as create-cluster does and writes what a new leader and
 * two commits write.  Returns the server id. */
static struct uuid
make_cluster(const char *file)
{
    char *data = xasprintf("[%s,{}]", schema_text);
    struct uuid sid, cid;
    unlink(file);
    CHECK(is_ok(cluster_file_create(file, "Store", "unix:x.sock", data,
                                    strlen(data), 0, &sid, &cid)));
    free(data);

    struct cluster_file *cf = open_cf(file);
    if (!cf) {
        return sid;
    }
    CHECK(uuid_equals(&cf->header.sid, &sid));
    CHECK(uuid_equals(&cf->header.cid, &cid));
    CHECK_INTEQ(cf->header.snap_index, 1);
    CHECK_INTEQ(cf->log_start, 2);
    CHECK_INTEQ(cf->log_end, 2);
    CHECK_INTEQ(cf->commit_index, 1);
    CHECK(raft_servers_contain(cluster_file_get_servers(cf), &sid));
    CHECK_INTEQ(cluster_file_get_election_timer(cf),
                CLUSTER_ELECTION_TIMER_DEFAULT);

    CHECK(is_ok(cluster_file_write_term(cf, NULL, 2, &sid)));
    CHECK(is_ok(cluster_file_write_leader(cf, NULL, 2, &sid)));
    uint64_t index;
    CHECK(is_ok(cluster_file_append_entry(cf, NULL, 2, NULL, 0, NULL, NULL, 0,
                                          &index)));
    CHECK_INTEQ(index, 2);
    CHECK(is_ok(cluster_file_write_commit_index(cf, NULL, 2)));
    for (int i = 0; i < 2; i++) {
        char *d = insert_data(uuids[i], i ? "b" : "a", i);
        struct uuid eid;
        uuid_generate(&eid);
        CHECK(is_ok(cluster_file_append_entry(cf, NULL, 2, d, strlen(d), &eid,
                                              NULL, 0, &index)));
        CHECK(is_ok(cluster_file_write_commit_index(cf, NULL, index)));
        free(d);
    }
    CHECK(is_ok(ovsdb_log_commit_block(cf->log)));
    CHECK_INTEQ(cf->log_end, 5);
    cluster_file_close(cf);
    return sid;
}

static void
test_write_reopen_replay(void)
{
    char *file = path("a.db");
    struct uuid sid = make_cluster(file);
    struct cluster_file *cf = open_cf(file);
    if (cf) {
        CHECK_INTEQ(cf->term, 2);
        CHECK(uuid_equals(&cf->vote, &sid));
        CHECK(uuid_equals(&cf->leader, &sid));
        CHECK_INTEQ(cf->commit_index, 4);
        CHECK_INTEQ(cf->log_end, 5);
        CHECK(cf->tail_error == NULL);
        CHECK(cluster_file_get_entry(cf, 3)->data != NULL);
        CHECK(cluster_file_get_entry(cf, 2)->data == NULL);

        struct ovsdb *db;
        struct uuid eid;
        CHECK(is_ok(cluster_file_replay(cf, cf->log_end - 1, &db, &eid)));
        if (db) {
            CHECK_INTEQ(n_rows(db), 2);
            CHECK(uuid_equals(&eid, &cluster_file_get_entry(cf, 4)->eid));
            ovsdb_destroy(db);
        }
        CHECK(is_ok(cluster_file_replay(cf, 3, &db, NULL)));
        if (db) {
            CHECK_INTEQ(n_rows(db), 1);
            ovsdb_destroy(db);
        }
        cluster_file_close(cf);
    }
    free(file);
}

static void
test_snapshot(void)
{
    char *file = path("s.db");
    struct uuid sid = make_cluster(file);
    struct cluster_file *cf = open_cf(file);
    if (!cf) {
        free(file);
        return;
    }
    struct ovsdb *db;
    CHECK(is_ok(cluster_file_replay(cf, 3, &db, NULL)));
    struct ds data = DS_EMPTY_INITIALIZER;
    cluster_file_put_db_data(&data, db, "compacting");
    ovsdb_destroy(db);
    const struct uuid eid4 = cluster_file_get_entry(cf, 4)->eid;

    /* Keep entry 4 after the snapshot at 3: it is written again. */
    CHECK(is_ok(cluster_file_save_snapshot(cf, 3, data.string,
                                           data.length)));
    CHECK_INTEQ(cf->log_start, 4);
    CHECK_INTEQ(cf->log_end, 5);
    struct ovsdb_error *e = cluster_file_save_snapshot(cf, 2, data.string,
                                                       data.length);
    char *s = error_text(e);
    CHECK(strstr(s, "not storing a duplicate snapshot") != NULL);
    free(s);
    cluster_file_close(cf);

    cf = open_cf(file);
    if (cf) {
        CHECK_INTEQ(cf->header.snap_index, 3);
        CHECK_INTEQ(cf->header.snap.term, 2);
        CHECK_INTEQ(cf->log_start, 4);
        CHECK_INTEQ(cf->log_end, 5);
        CHECK_INTEQ(cf->commit_index, 4);
        CHECK_INTEQ(cf->term, 2);
        CHECK(uuid_equals(&cf->vote, &sid));
        CHECK(uuid_equals(&cluster_file_get_entry(cf, 4)->eid, &eid4));
        /* The snapshot (one row), then entry 4 (the other). */
        CHECK(is_ok(cluster_file_replay(cf, 3, &db, NULL)));
        if (db) {
            CHECK_INTEQ(n_rows(db), 1);
            ovsdb_destroy(db);
        }
        CHECK(is_ok(cluster_file_replay(cf, 4, &db, NULL)));
        if (db) {
            CHECK_INTEQ(n_rows(db), 2);
        }
        /* Compact everything: header, term/vote record only. */
        ds_clear(&data);
        cluster_file_put_db_data(&data, db, NULL);
        ovsdb_destroy(db);
        CHECK(is_ok(cluster_file_save_snapshot(cf, 4, data.string,
                                               data.length)));
        CHECK_INTEQ(cf->n_records, 1);
        cluster_file_close(cf);
    }
    cf = open_cf(file);
    if (cf) {
        CHECK_INTEQ(cf->header.snap_index, 4);
        CHECK_INTEQ(cf->log_start, 5);
        CHECK_INTEQ(cf->commit_index, 4);
        CHECK_INTEQ(cf->n_records, 1);
        CHECK(is_ok(cluster_file_replay(cf, 4, &db, NULL)));
        if (db) {
            CHECK_INTEQ(n_rows(db), 2);
            ovsdb_destroy(db);
        }
        cluster_file_close(cf);
    }
    ds_destroy(&data);
    free(file);
}

/* Group commit: two entries and a commit index in one write; then the
 * same with the write failing, rolled back. */
static void
test_batch(void)
{
    char *file = path("g.db");
    make_cluster(file);
    struct cluster_file *cf = open_cf(file);
    if (!cf) {
        free(file);
        return;
    }
    for (int round = 0; round < 2; round++) {
        struct cluster_file_mark mark;
        cluster_file_mark(cf, &mark);
        struct ds batch = DS_EMPTY_INITIALIZER;
        uint64_t index = 0;
        for (int i = 0; i < 2; i++) {
            char uuid[UUID_LEN + 1];
            snprintf(uuid, sizeof uuid,
                     "22222222-2222-3333-4444-5555555555%d%d", round, i);
            char *d = insert_data(uuid, uuid, i);
            struct uuid eid;
            uuid_generate(&eid);
            CHECK(is_ok(cluster_file_append_entry(cf, &batch, 2, d,
                                                  strlen(d), &eid, NULL, 0,
                                                  &index)));
            free(d);
        }
        CHECK(is_ok(cluster_file_write_commit_index(cf, &batch, index)));
        CHECK_INTEQ(cf->log_end, mark.log_end + 2);
        if (round) {
            ovsdb_log_inject_fault(1, ENOSPC, false);
        }
        struct ovsdb_error *e = ovsdb_log_write_records(
            cf->log, batch.string, batch.length,
            cf->n_records - mark.n_records);
        ovsdb_log_inject_fault(0, 0, false);
        if (round) {
            CHECK(e != NULL);
            ovsdb_error_destroy(e);
            cluster_file_rollback(cf, &mark);
            CHECK_INTEQ(cf->log_end, mark.log_end);
            CHECK_INTEQ(cf->commit_index, mark.commit_index);
        } else {
            CHECK(is_ok(e));
        }
        ds_destroy(&batch);
    }
    uint64_t log_end = cf->log_end, n_records = cf->n_records;
    cluster_file_close(cf);
    cf = open_cf(file);
    if (cf) {
        CHECK_INTEQ(cf->log_end, log_end);
        CHECK_INTEQ(cf->commit_index, log_end - 1);
        CHECK_INTEQ(cf->n_records, n_records);
        CHECK(cf->tail_error == NULL);
        struct ovsdb *db;
        CHECK(is_ok(cluster_file_replay(cf, cf->log_end - 1, &db, NULL)));
        if (db) {
            CHECK_INTEQ(n_rows(db), 4);
            ovsdb_destroy(db);
        }
        cluster_file_close(cf);
    }
    free(file);
}

static off_t
file_size(const char *file)
{
    struct stat st;
    return stat(file, &st) ? -1 : st.st_size;
}

static void
test_torn_and_corrupt(void)
{
    char *file = path("t.db");
    make_cluster(file);
    off_t size = file_size(file);

    /* Torn: the last record (commit index 4) loses its last bytes. */
    CHECK(truncate(file, size - 3) == 0);
    struct cluster_file *cf = open_cf(file);
    if (cf) {
        CHECK(cf->tail_error != NULL);
        CHECK_INTEQ(cf->commit_index, 3);
        CHECK_INTEQ(cf->log_end, 5);
        /* The next write cuts the torn record off. */
        CHECK(is_ok(cluster_file_write_commit_index(cf, NULL, 4)));
        cluster_file_close(cf);
    }
    cf = open_cf(file);
    if (cf) {
        CHECK(cf->tail_error == NULL);
        CHECK_INTEQ(cf->commit_index, 4);
        cluster_file_close(cf);
    }
    CHECK_INTEQ(file_size(file), size);

    /* Corrupt: a flipped byte in the body of the fourth record from the
     * end (entry 4) ends the file there. */
    int fd = open(file, O_RDWR);
    CHECK(fd >= 0);
    char *buf = xmalloc(size);
    CHECK(read(fd, buf, size) == size);
    int nl = 0;
    off_t at = size - 1;
    while (at > 0 && nl < 6) {
        at--;
        nl += buf[at] == '\n';
    }
    /* 'at' is the newline before record "commit 3"'s header... go into the
     * body of the entry before it. */
    off_t target = at - 10;
    buf[target] ^= 0x20;
    CHECK(pwrite(fd, &buf[target], 1, target) == 1);
    close(fd);
    free(buf);
    cf = open_cf(file);
    if (cf) {
        CHECK(cf->tail_error != NULL);
        char *s = ovsdb_error_to_string(cf->tail_error);
        CHECK(strstr(s, "SHA-1") != NULL || strstr(s, "JSON") != NULL);
        free(s);
        CHECK(cf->log_end < 5);
        cluster_file_close(cf);
    }
    free(file);
}

/* Appends the raw record 'text' to clustered 'file'. */
static void
append_raw(const char *file, const char *text)
{
    struct ovsdb_log *log;
    CHECK(is_ok(ovsdb_log_open_kind(file, OVSDB_LOG_READ_WRITE,
                                    OVSDB_LOG_CLUSTERED, &log)));
    json_t *j;
    while (log && is_ok(ovsdb_log_read(log, &j)) && j) {
        json_decref(j);
    }
    CHECK(is_ok(ovsdb_log_write_text(log, text, strlen(text))));
    ovsdb_log_close(log);
}

static void
check_open_error(const char *file, const char *expected)
{
    struct cluster_file *cf;
    char *s = error_text(cluster_file_open(file, false, &cf));
    if (!strstr(s, expected)) {
        fprintf(stderr, "got \"%s\", expected \"%s\"\n", s, expected);
        check_failures++;
    }
    free(s);
}

static void
test_bad_records(void)
{
    char *file = path("b.db");
    make_cluster(file);
    append_raw(file, "{\"term\":2,\"vote\":"
               "\"00000000-0000-0000-0000-000000000001\"}");
    check_open_error(file, "error reading record 9 from Store log: record 9 "
                     "votes for ");
    make_cluster(file);
    append_raw(file, "{\"commit_index\":9}");
    check_open_error(file, "record 9 advances commit index to 9 but last "
                     "log index is 4");
    make_cluster(file);
    append_raw(file, "{\"commit_index\":3}");
    check_open_error(file, "record 9 regresses commit index from 4 to 3");
    make_cluster(file);
    append_raw(file, "{\"term\":2,\"index\":7}");
    check_open_error(file, "record 9 with index 7 skips past expected "
                     "index 5");
    make_cluster(file);
    append_raw(file, "{\"term\":2,\"index\":3}");
    check_open_error(file, "record 9 attempts to truncate log from 5 to 3 "
                     "entries, but commit index is already 4");
    make_cluster(file);
    append_raw(file, "{\"term\":1,\"index\":5}");
    check_open_error(file, "record 9 with index 5 term 1 precedes previous "
                     "entry's term 2");
    make_cluster(file);
    append_raw(file, "{\"note\":\"left\"}");
    check_open_error(file, "record 9 indicates server has left the "
                     "cluster");
    make_cluster(file);
    append_raw(file, "{\"term\":2,\"bogus\":1}");
    check_open_error(file, "Member 'bogus' is present but not allowed");

    /* A standalone file is not a clustered one. */
    char *sa = path("sa.db");
    unlink(sa);
    struct ovsdb_log *log;
    CHECK(is_ok(ovsdb_log_open(sa, OVSDB_LOG_CREATE_EXCL, &log)));
    CHECK(is_ok(ovsdb_log_write_text(log, "{}", 2)));
    ovsdb_log_close(log);
    check_open_error(sa, "cannot identify file type");
    /* And the other way round. */
    char *s = error_text(ovsdb_log_open(file, OVSDB_LOG_READ_ONLY, &log));
    CHECK(strstr(s, "cannot apply this operation to clustered database "
                 "file") != NULL);
    free(s);
    free(sa);
    free(file);
}

static void
test_create_errors(void)
{
    char *file = path("c.db");
    unlink(file);
    char *s = error_text(cluster_file_create(file, "S", "tcp:1.2.3.4", "[]",
                                             2, 0, NULL, NULL));
    CHECK_STREQ(s, "ovsdb error: tcp:1.2.3.4: syntax error in address");
    free(s);
    s = error_text(cluster_file_create(file, "S", "tcp:1.2.3.4:5", "[]", 2,
                                       99, NULL, NULL));
    CHECK_STREQ(s, "ovsdb error: election timer must be between 100 and "
                "600000, in msec.");
    free(s);
    char *remotes[] = { "tcp:1.2.3.4:6", "tcp:1.2.3.4:5" };
    s = error_text(cluster_file_create_joining(file, "S", "tcp:1.2.3.4:5",
                                               remotes, 2, NULL, NULL));
    CHECK_STREQ(s, "ovsdb error: remote addresses cannot be the same as "
                "the local address");
    free(s);
    struct uuid zero = { .parts = { 0 } };
    s = error_text(cluster_file_create_joining(file, "S", "tcp:1.2.3.4:5",
                                               remotes, 1, &zero, NULL));
    CHECK_STREQ(s, "ovsdb error: all-zero UUID is not valid cluster ID");
    free(s);
    CHECK(access(file, F_OK) != 0);

    /* A joining file opens with its header only. */
    CHECK(is_ok(cluster_file_create_joining(file, "S", "tcp:1.2.3.4:5",
                                            remotes, 1, NULL, NULL)));
    struct cluster_file *cf = open_cf(file);
    if (cf) {
        CHECK(cf->header.joining);
        CHECK_INTEQ(cf->header.n_remote_addresses, 1);
        struct ovsdb *db;
        struct ovsdb_error *e = cluster_file_replay(cf, 0, &db, NULL);
        CHECK(e != NULL);
        ovsdb_error_destroy(e);
        cluster_file_close(cf);
    }
    free(file);
}

int
main(void)
{
    char template[] = "/tmp/test-cluster-file.XXXXXX";
    const char *tmpdir = getenv("TEST_TMPDIR");
    dir = tmpdir ? xstrdup(tmpdir) : xstrdup(mkdtemp(template));
    test_write_reopen_replay();
    test_snapshot();
    test_batch();
    test_torn_and_corrupt();
    test_bad_records();
    test_create_errors();
    free(dir);
    return check_report("test-cluster-file");
}
