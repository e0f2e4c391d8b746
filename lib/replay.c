/* lib/replay.c: see replay.h. */
#include <config.h>
#include "lib/replay.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/dirs.h"
#include "lib/ds.h"
#include "lib/util.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(replay);

/* First bytes of every file: a recording of another format or of another
 * program is refused rather than misread. */
static const char magic[] = "ovsdb-replay 1\n";

#define UNORDERED UINT32_MAX

static enum replay_mode mode;
static char *dir; /* Absolute, or NULL for the run directory. */

/* The clock that orders events across files: the number of the next
 * ordered event to record, or to hand out on replay. */
static uint32_t clock_now;

/* How many files each sanitized name has had. */
struct name_count {
    char *name;
    unsigned int n;
};
static struct name_count *counts;
static size_t n_counts;

struct replay_file {
    FILE *stream;
    char *path; /* For messages. */
    /* Replay: the next record, read ahead ('has_next' false at the end). */
    bool has_next;
    uint32_t next_event;
    int32_t next_kind;
    int32_t next_value;
};

void
replay_set_mode(enum replay_mode new_mode, const char *new_dir)
{
    mode = new_mode;
    free(dir);
    dir = NULL;
    if (new_dir && new_dir[0]) {
        /* Absolute now: a daemon may change directories later. */
        dir = dirs_abs_file_name(NULL, new_dir);
    }
}

enum replay_mode
replay_get_mode(void)
{
    return mode;
}

/* Returns the path of the next file for stream 'name' (new string). */
static char *
next_path(const char *name)
{
    struct ds clean = DS_EMPTY_INITIALIZER;
    bool in_run = false;
    for (const char *p = name; *p; p++) {
        if (isalpha((unsigned char) *p)) {
            ds_put_char(&clean, *p);
            in_run = false;
        } else if (!in_run) {
            ds_put_char(&clean, '_');
            in_run = true;
        }
    }
    const char *key = ds_cstr(&clean);

    unsigned int k = 0;
    for (size_t i = 0; i < n_counts; i++) {
        if (!strcmp(counts[i].name, key)) {
            k = ++counts[i].n;
            break;
        }
    }
    if (!k) {
        counts = xrealloc(counts, (n_counts + 1) * sizeof *counts);
        counts[n_counts].name = xstrdup(key);
        counts[n_counts++].n = k = 1;
    }

    char *base = xasprintf("replay_%s_%u", key, k);
    char *path = dirs_abs_file_name(dir ? dir : dirs_rundir(), base);
    free(base);
    ds_destroy(&clean);
    return path;
}

static struct replay_file *
file_open(const char *path, const char *how)
{
    FILE *stream = fopen(path, how);
    if (!stream) {
        return NULL;
    }
    struct replay_file *f = xzalloc(sizeof *f);
    f->stream = stream;
    f->path = xstrdup(path);
    return f;
}

void
replay_close(struct replay_file *f)
{
    if (f) {
        fclose(f->stream);
        free(f->path);
        free(f);
    }
}

/* Recording. */

static void
write_record(struct replay_file *f, uint32_t event, enum replay_kind kind,
             int value, const void *data, size_t size)
{
    int32_t head[3] = { (int32_t) event, kind, value };
    if (fwrite(head, sizeof head, 1, f->stream) != 1
        || (size && fwrite(data, size, 1, f->stream) != 1)
        || fflush(f->stream)) {
        VLOG_ERR("%s: write failed (%s): the recording is incomplete", f->path,
                 ovs_strerror(errno));
    }
}

struct replay_file *
replay_record_start(const char *name, enum replay_kind kind, int value,
                    const void *data, size_t size)
{
    char *path = next_path(name);
    struct replay_file *f = file_open(path, "wb");
    if (!f) {
        VLOG_ERR("%s: cannot create (%s): %s is not recorded", path,
                 ovs_strerror(errno), name);
        free(path);
        return NULL;
    }
    free(path);
    if (fwrite(magic, strlen(magic), 1, f->stream) != 1) {
        VLOG_ERR("%s: write failed (%s)", f->path, ovs_strerror(errno));
    }
    write_record(f, UNORDERED, kind, value, data, size);
    if (value < 0) {
        replay_close(f);
        return NULL;
    }
    return f;
}

void
replay_record(struct replay_file *f, enum replay_kind kind, int value,
              const void *data, size_t size)
{
    if (f) {
        write_record(f, clock_now++, kind, value, data, size);
    }
}

/* Replaying. */

/* Reads the head of the next record of 'f' into its 'next_*' members. */
static void
read_ahead(struct replay_file *f)
{
    int32_t head[3];
    f->has_next = fread(head, sizeof head, 1, f->stream) == 1;
    if (f->has_next) {
        f->next_event = (uint32_t) head[0];
        f->next_kind = head[1];
        f->next_value = head[2];
    }
}

/* The number of bytes that follow the head of a record. */
static size_t
body_size(enum replay_kind kind, int value)
{
    return ((kind == REPLAY_RECV || kind == REPLAY_ACCEPT) && value > 0 ? value
                                                                        : 0);
}

/* Takes the record whose head was read ahead: copies up to 'size' bytes
 * of its body into 'data' and skips the rest. */
static void
take(struct replay_file *f, void *data, size_t size)
{
    size_t body = body_size(f->next_kind, f->next_value);
    size_t n = MIN(body, data ? size : 0);
    if (n && fread(data, n, 1, f->stream) != 1) {
        VLOG_ERR("%s: recording cut short", f->path);
    }
    if (body > n) {
        if (data) {
            VLOG_ERR("%s: a record of %zu bytes replayed into %zu", f->path,
                     body, size);
        }
        fseek(f->stream, body - n, SEEK_CUR);
    }
    if (f->next_event != UNORDERED) {
        clock_now++;
    }
    read_ahead(f);
}

struct replay_file *
replay_play_start(const char *name, enum replay_kind kind, int *value,
                  void *data, size_t size)
{
    char *path = next_path(name);
    struct replay_file *f = file_open(path, "rb");
    if (!f) {
        *value = -errno;
        VLOG_ERR("%s: cannot open (%s): %s was not recorded", path,
                 ovs_strerror(errno), name);
        free(path);
        return NULL;
    }
    free(path);

    char buf[sizeof magic - 1];
    if (fread(buf, sizeof buf, 1, f->stream) != 1
        || memcmp(buf, magic, sizeof buf)) {
        VLOG_ERR("%s: not a recording", f->path);
        replay_close(f);
        *value = -EPROTO;
        return NULL;
    }
    read_ahead(f);
    if (!f->has_next || f->next_kind != kind) {
        VLOG_ERR("%s: does not start with the expected record", f->path);
        replay_close(f);
        *value = -EPROTO;
        return NULL;
    }
    *value = f->next_value;
    take(f, data, size);
    if (*value < 0) {
        replay_close(f);
        return NULL;
    }
    return f;
}

bool
replay_play_take(struct replay_file *f, enum replay_kind kind, int *value,
                 void *data, size_t size)
{
    if (!f || !f->has_next || f->next_kind != (int32_t) kind
        || f->next_event != clock_now) {
        return false;
    }
    *value = f->next_value;
    take(f, data, size);
    return true;
}

bool
replay_play_pending(const struct replay_file *f)
{
    return f && f->has_next;
}

/* Seeds. */

void
replay_save_seed(const char *name, void *seed, size_t size)
{
    /* A seed's file is one record: RECV of the seed's bytes. */
    if (mode == REPLAY_RECORD) {
        replay_close(replay_record_start(name, REPLAY_RECV, size, seed, size));
    } else if (mode == REPLAY_PLAY) {
        int value;
        struct replay_file *f = replay_play_start(name, REPLAY_RECV, &value,
                                                  seed, size);
        if (!f || value != (int) size) {
            ovs_fatal(0, "%s: no random seed in the recording", name);
        }
        replay_close(f);
    }
}

void
replay_usage(void)
{
    printf("\nReplay options:\n"
           "  --record[=DIR]          record every stream's traffic in DIR\n"
           "  --replay[=DIR]          run from the traffic recorded in DIR\n");
}
