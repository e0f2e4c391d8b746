/* tests/unit/format/test-log.c: ovsdb/format/log: records, locking, torn tails
 * at every byte, bit flips, injected ENOSPC/EIO at the N-th I/O call, atomic
 * replacement. */
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
#include "lib/util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/log.h"
#include "tests/unit/check.h"

static char *dir;

static char *
path(const char *name)
{
    return xasprintf("%s/%s", dir, name);
}

static json_t *
record(int i)
{
    /* Not integral reals: jsonx_put() may print 1.0 as 1. */
    return json_pack("{s:i, s:s, s:[i, f, b], s:n}", "n", i, "s",
                     "caf\xc3\xa9 \"q\"\n", "a", i * 7, 0.25 * i + 0.125,
                     i & 1, "z");
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

/* Writes records 0..n-1 to a new file 'name'. */
static void
make_file(const char *name, int n)
{
    struct ovsdb_log *log;
    unlink(name);
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_CREATE_EXCL, &log)));
    for (int i = 0; i < n; i++) {
        json_t *j = record(i);
        CHECK(is_ok(ovsdb_log_write(log, j)));
        json_decref(j);
    }
    CHECK(is_ok(ovsdb_log_commit_block(log)));
    ovsdb_log_close(log);
}

/* Reads all of 'name'.  Returns the number of good records, checks each
 * equals record(i), and stores whether reading ended in an error. */
static int
read_all(const char *name, bool *had_error, int *last_n)
{
    struct ovsdb_log *log;
    *had_error = false;
    if (last_n) {
        *last_n = -1;
    }
    if (!is_ok(ovsdb_log_open(name, OVSDB_LOG_READ_ONLY, &log))) {
        *had_error = true;
        return 0;
    }
    int n = 0;
    for (;;) {
        json_t *j;
        struct ovsdb_error *error = ovsdb_log_read(log, &j);
        if (error) {
            ovsdb_error_destroy(error);
            *had_error = true;
            break;
        }
        if (!j) {
            break;
        }
        int k = json_integer_value(json_object_get(j, "n"));
        json_t *want = record(k);
        CHECK(json_equal(j, want));
        json_decref(want);
        if (last_n) {
            *last_n = k;
        }
        json_decref(j);
        n++;
    }
    ovsdb_log_close(log);
    return n;
}

static off_t
file_size(const char *name)
{
    struct stat st;
    return stat(name, &st) ? -1 : st.st_size;
}

static void
test_format(void)
{
    json_t *j = json_pack("{s:i}", "a", 1);
    size_t size;
    char *rec = ovsdb_log_format_record(j, &size);
    /* sha1sum of '{"a":1}\n'. */
    /* The SHA-1 is sha1sum's of the 8 bytes '{"a":1}\n'. */
    CHECK_STREQ(rec, "OVSDB JSON 8 8a3d961f7fe8ef7b41d461059884a9461be85059"
                     "\n{\"a\":1}\n");
    CHECK(size == strlen(rec));

    /* ovsdb_log_write_text() writes the same bytes. */
    char *name = path("text.db");
    struct ovsdb_log *log;
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_CREATE_EXCL, &log)));
    CHECK(is_ok(ovsdb_log_write_text(log, "{\"a\":1}", 7)));
    ovsdb_log_close(log);
    FILE *f = fopen(name, "rb");
    char buf[128] = "";
    CHECK(fread(buf, 1, sizeof buf - 1, f) == size);
    fclose(f);
    CHECK_STREQ(buf, rec);
    free(name);
    free(rec);
    json_decref(j);
}

/* A record far bigger than a pipe or page (a snapshot's size) is written
 * from the caller's text, behind its header, and reads back whole, followed
 * by the next record. */
static void
test_big_record(void)
{
    enum { BIG = 3 * 1024 * 1024 + 17 };
    char *text = xmalloc(BIG + 16);
    memcpy(text, "{\"a\":\"", 6);
    for (size_t i = 6; i < BIG - 2; i++) {
        text[i] = 'a' + i % 26;
    }
    memcpy(text + BIG - 2, "\"}", 3);

    char *name = path("big.db");
    struct ovsdb_log *log;
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_CREATE_EXCL, &log)));
    CHECK(is_ok(ovsdb_log_write_text(log, text, BIG)));
    CHECK(is_ok(ovsdb_log_write_text(log, "{\"b\":2}", 7)));
    ovsdb_log_close(log);

    json_t *want = json_loadb(text, BIG, 0, NULL), *j = NULL;
    CHECK(want != NULL);
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_READ_ONLY, &log)));
    CHECK(is_ok(ovsdb_log_read(log, &j)));
    CHECK(j && json_equal(j, want));
    json_decref(j);
    j = NULL;
    CHECK(is_ok(ovsdb_log_read(log, &j)));
    CHECK(j && json_integer_value(json_object_get(j, "b")) == 2);
    json_decref(j);
    ovsdb_log_close(log);
    json_decref(want);
    free(name);
    free(text);
}

static void
test_roundtrip(void)
{
    char *name = path("rt.db");
    make_file(name, 5);
    bool err;
    int last;
    CHECK_INTEQ(read_all(name, &err, &last), 5);
    CHECK(!err);
    CHECK_INTEQ(last, 4);

    /* Append through a read-write open, after reading. */
    struct ovsdb_log *log;
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_READ_WRITE, &log)));
    json_t *j;
    int n = 0;
    while (is_ok(ovsdb_log_read(log, &j)) && j) {
        json_decref(j);
        n++;
    }
    CHECK_INTEQ(n, 5);
    CHECK_INTEQ(ovsdb_log_get_n_records(log), 5);
    CHECK_INTEQ(ovsdb_log_get_offset(log), file_size(name));
    j = record(5);
    CHECK(is_ok(ovsdb_log_write(log, j)));
    json_decref(j);
    CHECK(is_ok(ovsdb_log_commit_block(log)));
    ovsdb_log_close(log);
    CHECK_INTEQ(read_all(name, &err, &last), 6);
    CHECK(!err);
    CHECK_INTEQ(last, 5);
    free(name);
}

static void
test_open_errors(void)
{
    char *name = path("oe.db");
    make_file(name, 1);
    struct ovsdb_log *a, *b;
    struct ovsdb_error *error;

    /* Create-excl on an existing file fails. */
    error = ovsdb_log_open(name, OVSDB_LOG_CREATE_EXCL, &b);
    CHECK(error && !b);
    CHECK(error && ovsdb_error_get_tag(error) == OVSDB_E_IO);
    ovsdb_error_destroy(error);

    /* A second writer is refused, even in the same process; a reader is
     * not. */
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_READ_WRITE, &a)));
    error = ovsdb_log_open(name, OVSDB_LOG_READ_WRITE, &b);
    CHECK(error != NULL);
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        CHECK(strstr(s, "failed to lock lockfile") != NULL);
        free(s);
    }
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_READ_ONLY, &b)));
    ovsdb_log_close(b);
    ovsdb_log_close(a);
    char *lock = path(".oe.db.~lock~");
    CHECK(access(lock, F_OK) == 0);
    free(lock);
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_READ_WRITE, &b)));
    ovsdb_log_close(b);

    /* Missing, empty, clustered, garbage. */
    char *missing = path("missing.db");
    error = ovsdb_log_open(missing, OVSDB_LOG_READ_ONLY, &b);
    CHECK(error && ovsdb_error_get_tag(error) == OVSDB_E_IO);
    ovsdb_error_destroy(error);
    free(missing);

    const char *bad[] = { "", "OVSDB CLUSTER 12 abc\n{}\n", "hello\n",
                          "OVSDB JSON" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        FILE *f = fopen(name, "w");
        fputs(bad[i], f);
        fclose(f);
        error = ovsdb_log_open(name, OVSDB_LOG_READ_ONLY, &b);
        if (!error) {
            json_t *j;
            error = ovsdb_log_read(b, &j);
            CHECK(!j);
            ovsdb_log_close(b);
        }
        CHECK(error != NULL);
        ovsdb_error_destroy(error);
    }
    free(name);
}

/* Cuts the file at every byte offset inside the last record: reading stops
 * with an error (or cleanly when the cut falls on the record boundary), never
 * returns the torn record, and the next write truncates the tail. */
static void
test_torn_tail(void)
{
    char *name = path("torn.db");
    char *copy = path("torn-copy.db");
    make_file(name, 2);
    off_t boundary = file_size(name);
    make_file(name, 3);
    off_t end = file_size(name);
    CHECK(end > boundary);

    int errors = 0;
    for (off_t cut = boundary; cut < end; cut++) {
        char *cmd = xasprintf("cp %s %s", name, copy);
        CHECK(system(cmd) == 0);
        free(cmd);
        CHECK(truncate(copy, cut) == 0);

        bool err;
        CHECK_INTEQ(read_all(copy, &err, NULL), 2);
        CHECK(err == (cut > boundary));
        errors += err;

        struct ovsdb_log *log;
        CHECK(is_ok(ovsdb_log_open(copy, OVSDB_LOG_READ_WRITE, &log)));
        json_t *j;
        struct ovsdb_error *error;
        int n = 0;
        while (!(error = ovsdb_log_read(log, &j)) && j) {
            json_decref(j);
            n++;
        }
        CHECK_INTEQ(n, 2);
        if (error) {
            /* Reading again gives the same error. */
            struct ovsdb_error *again = ovsdb_log_read(log, &j);
            CHECK(again && !j);
            char *a = ovsdb_error_to_string(error);
            char *b = ovsdb_error_to_string_free(again);
            CHECK_STREQ(a, b);
            CHECK(strstr(a, "offset") != NULL);
            free(a);
            free(b);
            ovsdb_error_destroy(error);
        }
        j = record(7);
        CHECK(is_ok(ovsdb_log_write(log, j)));
        json_decref(j);
        CHECK(is_ok(ovsdb_log_commit_block(log)));
        ovsdb_log_close(log);

        int last;
        CHECK_INTEQ(read_all(copy, &err, &last), 3);
        CHECK(!err);
        CHECK_INTEQ(last, 7);
    }
    CHECK_INTEQ(errors, end - boundary - 1);
    free(name);
    free(copy);
}

/* Flips each bit of the last record: never returned as data. */
static void
test_bit_flips(void)
{
    char *name = path("flip.db");
    make_file(name, 2);
    off_t boundary = file_size(name);
    make_file(name, 3);
    off_t end = file_size(name);

    FILE *f = fopen(name, "rb");
    char *orig = xmalloc(end);
    CHECK(fread(orig, 1, end, f) == (size_t) end);
    fclose(f);

    char *flipped = path("flipped.db");
    int n_flips = 0;
    for (off_t i = boundary; i < end; i++) {
        for (int bit = 0; bit < 8; bit++) {
            orig[i] ^= 1 << bit;
            f = fopen(flipped, "wb");
            fwrite(orig, 1, end, f);
            fclose(f);
            orig[i] ^= 1 << bit;

            bool err;
            int n = read_all(flipped, &err, NULL);
            if (n != 2 || !err) {
                fprintf(stderr, "flip of bit %d at offset %lld: %d records, "
                        "error %d\n", bit, (long long) i, n, err);
            }
            CHECK(n == 2 && err);
            n_flips++;
        }
    }
    CHECK(n_flips == (end - boundary) * 8);
    free(orig);
    free(flipped);
    free(name);
}

/* Runs a fixed sequence of log operations with the 'nth' I/O call failing
 * with 'error'.  Afterwards the file must read back without error, contain
 * every acknowledged record and none whose write was undone. */
static void
fault_run(const char *name, unsigned long long nth, int error, bool sticky,
          bool *fired)
{
    make_file(name, 2);
    struct ovsdb_log *log;
    ovsdb_log_inject_fault(nth, error, sticky);
    unsigned long long start = ovsdb_log_io_count();
    struct ovsdb_error *e = ovsdb_log_open(name, OVSDB_LOG_READ_WRITE, &log);
    bool broken = false;
    bool acked[6] = { true, true, false, false, false, false };
    bool written[6] = { true, true, false, false, false, false };
    if (!e) {
        json_t *j;
        while (!(e = ovsdb_log_read(log, &j)) && j) {
            json_decref(j);
        }
        ovsdb_error_destroy(e);   /* An injected read error is allowed. */
        e = NULL;
        for (int i = 2; i < 6; i++) {
            j = record(i);
            e = ovsdb_log_write(log, j);
            json_decref(j);
            broken = ovsdb_log_is_broken(log);
            if (e) {
                CHECK(ovsdb_error_get_tag(e) == OVSDB_E_IO);
                ovsdb_error_destroy(e);
                written[i] = broken;   /* Undone unless broken. */
                break;
            }
            written[i] = true;
            e = ovsdb_log_commit_block(log);
            if (e) {
                broken = true;
                CHECK(ovsdb_log_is_broken(log));
                ovsdb_error_destroy(e);
                break;
            }
            acked[i] = true;
        }
        ovsdb_log_close(log);
    } else {
        ovsdb_error_destroy(e);
    }
    *fired = ovsdb_log_io_count() - start >= nth;
    ovsdb_log_inject_fault(0, 0, false);

    bool err;
    int last;
    int n = read_all(name, &err, &last);
    /* Only a broken log (whose undo failed) may leave a torn tail. */
    CHECK(!err || broken);
    int n_acked = 0, n_written = 0;
    for (int i = 0; i < 6; i++) {
        n_acked += acked[i];
        n_written += written[i];
    }
    if (n < n_acked || n > n_written) {
        fprintf(stderr, "fault at call %llu (%s%s): %d records, %d acked, "
                "%d written\n", nth, ovs_strerror(error),
                sticky ? ", sticky" : "", n, n_acked, n_written);
    }
    CHECK(n >= n_acked && n <= n_written);
}

static void
test_faults(void)
{
    char *name = path("fault.db");
    const int errors[] = { ENOSPC, EIO };
    for (size_t e = 0; e < ARRAY_SIZE(errors); e++) {
        for (int sticky = 0; sticky < 2; sticky++) {
            int runs = 0;
            for (unsigned long long nth = 1; nth < 100; nth++) {
                bool fired;
                fault_run(name, nth, errors[e], sticky, &fired);
                if (!fired) {
                    break;
                }
                runs++;
            }
            CHECK(runs > 5);
        }
    }
    free(name);
}

/* A broken log refuses writes until replaced; replacement recovers it. */
static void
test_broken_then_replace(void)
{
    char *name = path("rep.db");
    make_file(name, 3);
    struct ovsdb_log *log, *new;
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_READ_WRITE, &log)));
    json_t *j;
    while (is_ok(ovsdb_log_read(log, &j)) && j) {
        json_decref(j);
    }
    j = record(3);
    CHECK(is_ok(ovsdb_log_write(log, j)));
    /* Every call fails: the write fails and so does its undo. */
    ovsdb_log_inject_fault(1, EIO, true);
    struct ovsdb_error *e = ovsdb_log_write(log, j);
    CHECK(e != NULL);
    ovsdb_error_destroy(e);
    CHECK(ovsdb_log_is_broken(log));
    /* Replacement fails while the disk is bad... */
    e = ovsdb_log_replace_start(log, &new);
    CHECK(e != NULL && !new);
    ovsdb_error_destroy(e);
    ovsdb_log_inject_fault(0, 0, false);
    /* ...and the log stays broken even when it is good again. */
    e = ovsdb_log_write(log, j);
    CHECK(e != NULL);
    ovsdb_error_destroy(e);
    json_decref(j);

    /* Replace with records 10..12, then append 13. */
    CHECK(is_ok(ovsdb_log_replace_start(log, &new)));
    char *tmp = path("rep.db.tmp");
    CHECK(access(tmp, F_OK) == 0);
    for (int i = 10; i < 13; i++) {
        j = record(i);
        CHECK(is_ok(ovsdb_log_write(new, j)));
        json_decref(j);
    }
    CHECK(is_ok(ovsdb_log_replace_commit(log, new)));
    CHECK(access(tmp, F_OK) != 0);
    CHECK(!ovsdb_log_is_broken(log));
    j = record(13);
    CHECK(is_ok(ovsdb_log_write(log, j)));
    json_decref(j);
    CHECK(is_ok(ovsdb_log_commit_block(log)));

    /* An aborted replacement changes nothing and leaves no file. */
    CHECK(is_ok(ovsdb_log_replace_start(log, &new)));
    j = record(20);
    CHECK(is_ok(ovsdb_log_write(new, j)));
    json_decref(j);
    ovsdb_log_replace_abort(new);
    CHECK(access(tmp, F_OK) != 0);
    ovsdb_log_close(log);

    bool err;
    int last;
    CHECK_INTEQ(read_all(name, &err, &last), 4);
    CHECK(!err);
    CHECK_INTEQ(last, 13);

    /* Replacement where the rename fails leaves the old file intact. */
    CHECK(is_ok(ovsdb_log_open(name, OVSDB_LOG_READ_WRITE, &log)));
    while (is_ok(ovsdb_log_read(log, &j)) && j) {
        json_decref(j);
    }
    CHECK(is_ok(ovsdb_log_replace_start(log, &new)));
    j = record(30);
    CHECK(is_ok(ovsdb_log_write(new, j)));
    json_decref(j);
    ovsdb_log_inject_fault(2, ENOSPC, false);   /* fsync ok, rename fails. */
    e = ovsdb_log_replace_commit(log, new);
    CHECK(e != NULL);
    ovsdb_error_destroy(e);
    ovsdb_log_inject_fault(0, 0, false);
    CHECK(access(tmp, F_OK) != 0);
    j = record(14);
    CHECK(is_ok(ovsdb_log_write(log, j)));
    json_decref(j);
    ovsdb_log_close(log);
    CHECK_INTEQ(read_all(name, &err, &last), 5);
    CHECK(!err);
    CHECK_INTEQ(last, 14);

    free(tmp);
    free(name);
}

/* A record finished in place has the bytes of one appended whole. */
static void
test_finish_record(void)
{
    struct ds whole = DS_EMPTY_INITIALIZER;
    struct ds in_place = DS_EMPTY_INITIALIZER;
    static const char text[] = "{\"T\":{\"u\":null},\"_date\":1}";
    ds_put_cstr(&whole, "before\n");
    ovsdb_log_put_record(&whole, text, strlen(text));
    ds_put_cstr(&in_place, "before\n");
    ds_put_cstr(&in_place, text);
    ovsdb_log_finish_record(&in_place, strlen("before\n"));
    CHECK_STREQ(ds_cstr(&in_place), ds_cstr(&whole));
    ds_destroy(&whole);
    ds_destroy(&in_place);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_finish_record),       CHECK_CASE(test_format),
    CHECK_CASE(test_big_record),          CHECK_CASE(test_roundtrip),
    CHECK_CASE(test_open_errors),         CHECK_CASE(test_torn_tail),
    CHECK_CASE(test_bit_flips),           CHECK_CASE(test_faults),
    CHECK_CASE(test_broken_then_replace),
};

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    char template[] = "/tmp/test-log.XXXXXX";
    const char *tmpdir = getenv("TEST_TMPDIR");
    dir = tmpdir ? xstrdup(tmpdir) : xstrdup(mkdtemp(template));

    int status = check_main(argc, argv, "test-log", cases,
                            sizeof cases / sizeof *cases);

    free(dir);
    return status;
}
