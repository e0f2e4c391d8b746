/* ovsdb/server/restart-config.c: the databases and remotes a restarted
 * server takes up.  See restart-config.h. */
#include <config.h>

#include "ovsdb/server/restart-config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/util.h"
#include "lib/vlog.h"

VLOG_DEFINE_THIS_MODULE(restart_config);

struct restart_config {
    FILE *file;      /* NULL if it could not be made. */
    json_t *dbs;     /* Array of [spec, name or null]. */
    json_t *remotes; /* Array of strings. */
};

static json_t *
strings_to_json(char **strings, size_t n)
{
    json_t *array = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(array, json_string(strings[i]));
    }
    return array;
}

/* Writes the whole configuration over the file's old contents.  The file
 * is read only by a server that starts after this one died, so a failure
 * costs nothing now: it is logged, and the next change tries again. */
static void
save(const struct restart_config *rc)
{
    if (!rc->file) {
        return;
    }
    json_t *specs = json_array();
    size_t i;
    json_t *db;
    json_array_foreach (rc->dbs, i, db) {
        json_array_append(specs, json_array_get(db, 0));
    }
    json_t *obj = json_pack("{s:o, s:O}", "dbs", specs, "remotes",
                            rc->remotes);
    struct ds s = DS_EMPTY_INITIALIZER;
    jsonx_put(&s, obj);
    json_decref(obj);

    int fd = fileno(rc->file);
    if (ftruncate(fd, 0)
        || pwrite(fd, s.string, s.length, 0) != (ssize_t) s.length) {
        VLOG_WARN("cannot save the configuration for a restart (%s)",
                  ovs_strerror(errno));
    }
    ds_destroy(&s);
}

struct restart_config *
restart_config_create(char **dbs, size_t n_dbs, char **remotes,
                      size_t n_remotes)
{
    struct restart_config *rc = xzalloc(sizeof *rc);
    rc->dbs = json_array();
    for (size_t i = 0; i < n_dbs; i++) {
        json_array_append_new(rc->dbs, json_pack("[s, n]", dbs[i]));
    }
    rc->remotes = strings_to_json(remotes, n_remotes);
    rc->file = tmpfile();
    if (!rc->file) {
        VLOG_WARN("cannot create a file for the configuration of a "
                  "restarted server (%s): a server that --monitor restarts "
                  "will have the command line's databases and remotes only",
                  ovs_strerror(errno));
    }
    save(rc);
    return rc;
}

void
restart_config_destroy(struct restart_config *rc)
{
    if (rc) {
        if (rc->file) {
            fclose(rc->file);
        }
        json_decref(rc->dbs);
        json_decref(rc->remotes);
        free(rc);
    }
}

/* Whether 'json' is an array of strings. */
static bool
is_string_array(const json_t *json)
{
    if (!json_is_array(json)) {
        return false;
    }
    size_t i;
    json_t *e;
    json_array_foreach (json, i, e) {
        if (!json_is_string(e)) {
            return false;
        }
    }
    return true;
}

void
restart_config_load(struct restart_config *rc)
{
    if (!rc->file) {
        return;
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    char buf[4096];
    off_t offset = 0;
    ssize_t n;
    while ((n = pread(fileno(rc->file), buf, sizeof buf, offset)) > 0) {
        ds_put_buffer(&s, buf, n);
        offset += n;
    }
    char *msg = NULL;
    json_t *obj = jsonx_from_buffer(s.string ? s.string : "", s.length, &msg);
    ds_destroy(&s);
    json_t *dbs = json_object_get(obj, "dbs");
    json_t *remotes = json_object_get(obj, "remotes");
    if (!is_string_array(dbs) || !is_string_array(remotes)) {
        /* Only this program writes the file: keep the command line's. */
        VLOG_WARN("ignoring the saved configuration (%s)",
                  msg ? msg : "unexpected contents");
        free(msg);
        json_decref(obj);
        return;
    }
    json_array_clear(rc->dbs);
    size_t i;
    json_t *spec;
    json_array_foreach (dbs, i, spec) {
        json_array_append_new(rc->dbs, json_pack("[O, n]", spec));
    }
    json_decref(rc->remotes);
    rc->remotes = json_incref(remotes);
    json_decref(obj);
}

size_t
restart_config_n_dbs(const struct restart_config *rc)
{
    return json_array_size(rc->dbs);
}

const char *
restart_config_db(const struct restart_config *rc, size_t i)
{
    return json_string_value(json_array_get(json_array_get(rc->dbs, i), 0));
}

size_t
restart_config_n_remotes(const struct restart_config *rc)
{
    return json_array_size(rc->remotes);
}

const char *
restart_config_remote(const struct restart_config *rc, size_t i)
{
    return json_string_value(json_array_get(rc->remotes, i));
}

void
restart_config_set_db_name(struct restart_config *rc, size_t i,
                           const char *name)
{
    json_t *db = json_array_get(rc->dbs, i);
    if (db) {
        json_array_set_new(db, 1, json_string(name));
    }
}

void
restart_config_add_db(struct restart_config *rc, const char *spec,
                      const char *name)
{
    json_array_append_new(rc->dbs, json_pack("[s, s]", spec, name));
    save(rc);
}

void
restart_config_remove_db(struct restart_config *rc, const char *name)
{
    size_t i;
    json_t *db;
    json_array_foreach (rc->dbs, i, db) {
        const char *db_name = json_string_value(json_array_get(db, 1));
        if (db_name && !strcmp(db_name, name)) {
            json_array_remove(rc->dbs, i);
            save(rc);
            return;
        }
    }
}

/* Returns the index of 'remote' in 'rc', or SIZE_MAX. */
static size_t
find_remote(const struct restart_config *rc, const char *remote)
{
    size_t i;
    json_t *r;
    json_array_foreach (rc->remotes, i, r) {
        if (!strcmp(json_string_value(r), remote)) {
            return i;
        }
    }
    return SIZE_MAX;
}

void
restart_config_add_remote(struct restart_config *rc, const char *remote)
{
    if (find_remote(rc, remote) == SIZE_MAX) {
        json_array_append_new(rc->remotes, json_string(remote));
        save(rc);
    }
}

void
restart_config_remove_remote(struct restart_config *rc, const char *remote)
{
    size_t i = find_remote(rc, remote);
    if (i != SIZE_MAX) {
        json_array_remove(rc->remotes, i);
        save(rc);
    }
}
