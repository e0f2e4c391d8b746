/* ovsdb/format/file.c: standalone database files.  See file.h. */
#include <config.h>

#include "ovsdb/format/file.h"

#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/progress.h"
#include "lib/timeval.h"
#include "lib/uuid.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/log.h"
#include "ovsdb/engine/ovsdb.h"
#include "ovsdb/format/record.h"
#include "ovsdb/engine/row.h"
#include "ovsdb/engine/schema.h"
#include "ovsdb/engine/table.h"
#include "ovsdb/engine/txn.h"

/* Reads the schema record from 'log'. */
static struct ovsdb_error *
read_schema(struct ovsdb_log *log, struct ovsdb_schema **schemap)
{
    *schemap = NULL;
    json_t *json;
    struct ovsdb_error *error = ovsdb_log_read(log, &json);
    if (error) {
        return error;
    }
    if (!json) {
        return ovsdb_error(OVSDB_E_IO, "%s: database file contains no "
                           "schema", ovsdb_log_get_name(log));
    }
    error = ovsdb_schema_from_json(json, schemap);
    json_decref(json);
    return ovsdb_error_wrap(error, "failed to parse \"%s\" as ovsdb schema",
                            ovsdb_log_get_name(log));
}

struct ovsdb_error *
ovsdb_file_read_schema(const char *path, struct ovsdb_schema **schemap)
{
    struct ovsdb_log *log;
    struct ovsdb_error *error = ovsdb_log_open(path, OVSDB_LOG_READ_ONLY,
                                               &log);
    if (error) {
        *schemap = NULL;
        return error;
    }
    error = read_schema(log, schemap);
    ovsdb_log_close(log);
    return error;
}

/* Whether a good record follows the one just read from 'log'. */
static bool
more_records_follow(struct ovsdb_log *log)
{
    json_t *json;
    struct ovsdb_error *error = ovsdb_log_read(log, &json);
    ovsdb_error_destroy(error);
    bool more = json != NULL;
    json_decref(json);
    return more;
}

struct ovsdb_error *
ovsdb_file_open(const char *path, struct ovsdb **dbp,
                struct ovsdb_log **logp, struct ovsdb_error **tail_errorp)
{
    *dbp = NULL;
    if (logp) {
        *logp = NULL;
    }
    if (tail_errorp) {
        *tail_errorp = NULL;
    }

    struct ovsdb_log *log;
    struct ovsdb_error *error = ovsdb_log_open(
        path, logp ? OVSDB_LOG_READ_WRITE : OVSDB_LOG_READ_ONLY, &log);
    if (error) {
        return error;
    }
    struct ovsdb_schema *schema;
    error = read_schema(log, &schema);
    if (error) {
        ovsdb_log_close(log);
        return error;
    }

    struct ovsdb *db = ovsdb_create(schema);
    for (;;) {
        off_t start = ovsdb_log_get_offset(log);
        unsigned long long n_before = ovsdb_log_get_n_records(log);
        json_t *json;
        error = ovsdb_log_read(log, &json);
        if (error || !json) {
            break;
        }
        error = ovsdb_record_replay(db, json);
        json_decref(json);
        if (error && logp && tail_errorp && !more_records_follow(log)) {
            /* A last record that does not apply is treated like a torn one,
             * as the reference does: the database is what came before it,
             * and the next write cuts it off.  Nothing after it is lost. */
            error = ovsdb_error_append(error,
                                       " (%s: transaction %llu, at "
                                       "offset %lld, dropped)",
                                       path, n_before, (long long) start);
            ovsdb_log_forget_tail(log, start, n_before,
                                  ovsdb_error_clone(error));
            break;
        } else if (error) {
            /* A record that does not apply, with good records after it, is
             * not a torn tail: refuse the file rather than drop data. */
            error = ovsdb_error_wrap(error, "%s: transaction %llu", path,
                                     n_before);
            ovsdb_destroy(db);
            ovsdb_log_close(log);
            return error;
        }
    }
    if (error) {
        if (tail_errorp) {
            *tail_errorp = error;
        } else {
            ovsdb_destroy(db);
            ovsdb_log_close(log);
            return error;
        }
    }

    *dbp = db;
    if (logp) {
        *logp = log;
    } else {
        ovsdb_log_close(log);
    }
    return NULL;
}

/* Returns the persistent non-default columns of 'row'; new reference. */
static json_t *
row_to_json(const struct ovsdb_row *row)
{
    const struct ovsdb_table_schema *ts = row->table->schema;
    json_t *obj = json_object();
    for (size_t i = OVSDB_N_STD_COLUMNS; i < ts->n_columns; i++) {
        const struct ovsdb_column *c = ts->columns[i];
        const struct ovsdb_datum *d = ovsdb_row_get_datum(row, c);
        if (c->is_persistent && !ovsdb_datum_is_default(d, &c->type)) {
            json_object_set_new(obj, c->name, ovsdb_datum_to_json(d,
                                                                  &c->type));
        }
    }
    return obj;
}

json_t *
ovsdb_file_snapshot(const struct ovsdb *db, const char *comment)
{
    json_t *rec = json_object();
    for (size_t i = 0; i < ovsdb_n_tables(db); i++) {
        const struct ovsdb_table *t = ovsdb_get_table_by_index(db, i);
        if (!ovsdb_table_n_rows(t)) {
            continue;
        }
        json_t *rows = json_object();
        const struct ovsdb_row *row;
        OVSDB_TABLE_FOR_EACH_ROW (row, t) {
            char uuid[UUID_LEN + 1];
            uuid_to_string(ovsdb_row_get_uuid(row), uuid);
            json_object_set_new(rows, uuid, row_to_json(row));
        }
        json_object_set_new(rec, t->schema->name, rows);
    }
    json_object_set_new(rec, "_date", json_integer(time_wall_msec()));
    if (comment) {
        json_object_set_new(rec, "_comment", json_string(comment));
    }
    return rec;
}

/* Appends 's' as a JSON string to 'out'. */
static void
put_string(struct ds *out, const char *s)
{
    json_t *j = json_string(s);
    jsonx_put(out, j);
    json_decref(j);
}

void
ovsdb_file_put_snapshot(struct ds *out, const struct ovsdb *db,
                        const char *comment)
{
    /* Streamed row by row: a json_t of the whole database would cost
     * several times its serialized size in memory. */
    ds_put_char(out, '{');
    uint64_t n_done = 0;
    progress_begin("writing", ovsdb_n_rows(db), PROGRESS_ROWS);
    for (size_t i = 0; i < ovsdb_n_tables(db); i++) {
        const struct ovsdb_table *t = ovsdb_get_table_by_index(db, i);
        if (!ovsdb_table_n_rows(t)) {
            continue;
        }
        put_string(out, t->schema->name);
        ds_put_cstr(out, ":{");
        const struct ovsdb_row *row;
        bool first = true;
        OVSDB_TABLE_FOR_EACH_ROW (row, t) {
            char uuid[UUID_LEN + 1];
            uuid_to_string(ovsdb_row_get_uuid(row), uuid);
            ds_put_format(out, "%s\"%s\":", first ? "" : ",", uuid);
            json_t *cols = row_to_json(row);
            jsonx_put(out, cols);
            json_decref(cols);
            first = false;
            progress_update(++n_done);
        }
        ds_put_cstr(out, "},");
    }
    progress_end();
    if (comment) {
        ds_put_cstr(out, "\"_comment\":");
        put_string(out, comment);
        ds_put_char(out, ',');
    }
    ds_put_format(out, "\"_date\":%lld}", time_wall_msec());
}

struct ovsdb_error *
ovsdb_file_write_snapshot(struct ovsdb_log *log, const struct ovsdb *db,
                          const char *comment)
{
    json_t *schema = ovsdb_schema_to_json(ovsdb_get_schema(db));
    struct ovsdb_error *error = ovsdb_log_write(log, schema);
    json_decref(schema);
    if (!error) {
        struct ds snap = DS_EMPTY_INITIALIZER;
        ovsdb_file_put_snapshot(&snap, db, comment);
        error = ovsdb_log_write_text(log, snap.string, snap.length);
        ds_destroy(&snap);
    }
    return error;
}

struct ovsdb_error *
ovsdb_file_create(const char *path, const struct ovsdb_schema *schema,
                  const struct ovsdb *db, const char *comment,
                  struct ovsdb_log **logp)
{
    if (logp) {
        *logp = NULL;
    }
    struct ovsdb_log *log;
    struct ovsdb_error *error = ovsdb_log_open(path, OVSDB_LOG_CREATE_EXCL,
                                               &log);
    if (error) {
        return error;
    }
    if (db) {
        error = ovsdb_file_write_snapshot(log, db, comment);
    } else {
        json_t *json = ovsdb_schema_to_json(schema);
        error = ovsdb_log_write(log, json);
        json_decref(json);
    }
    if (!error) {
        error = ovsdb_log_commit_block(log);
    }
    if (error) {
        ovsdb_log_close(log);
        unlink(path);
        return error;
    }
    if (logp) {
        *logp = log;
    } else {
        ovsdb_log_close(log);
    }
    return NULL;
}

/* Copies the columns of 'src' that 'dst''s table also has into 'dst'. */
static struct ovsdb_error *
convert_row(const struct ovsdb_row *src, struct ovsdb_row *dst)
{
    const struct ovsdb_table_schema *sts = src->table->schema;
    const struct ovsdb_table_schema *dts = dst->table->schema;
    for (size_t i = OVSDB_N_STD_COLUMNS; i < dts->n_columns; i++) {
        const struct ovsdb_column *dc = dts->columns[i];
        const struct ovsdb_column *sc
            = ovsdb_table_schema_find_column(sts, dc->name);
        if (!sc) {
            continue;
        }
        const struct ovsdb_datum *sd = ovsdb_row_get_datum(src, sc);
        struct ovsdb_datum *dd = ovsdb_row_datum_rw(dst, dc->index);
        struct ovsdb_datum tmp;
        if (ovsdb_datum_is_default(sd, &sc->type)) {
            /* A default value stays the default of the new type (the
             * reference never writes defaults, so it does the same). */
            continue;
        } else if (ovsdb_type_equals(&sc->type, &dc->type)) {
            ovsdb_datum_clone(&tmp, sd, &dc->type);
        } else {
            json_t *json = ovsdb_datum_to_json(sd, &sc->type);
            struct ovsdb_error *error = ovsdb_datum_from_json(
                &tmp, &dc->type, json, NULL);
            json_decref(json);
            if (error) {
                char uuid[UUID_LEN + 1];
                uuid_to_string(ovsdb_row_get_uuid(src), uuid);
                return ovsdb_error_wrap(error, "table %s column %s row %s",
                                        dts->name, dc->name, uuid);
            }
        }
        ovsdb_datum_destroy(dd, &dc->type);
        *dd = tmp;
    }
    return NULL;
}

struct ovsdb_error *
ovsdb_file_convert(const struct ovsdb *src, const struct ovsdb_schema *schema,
                   struct ovsdb **dstp)
{
    struct ovsdb *dst = ovsdb_create(ovsdb_schema_clone(schema));
    uint64_t n_done = 0;
    progress_begin("converting", ovsdb_n_rows(src), PROGRESS_ROWS);
    for (size_t i = 0; i < ovsdb_n_tables(dst); i++) {
        struct ovsdb_table *dt = ovsdb_get_table_by_index(dst, i);
        const struct ovsdb_table *st = ovsdb_get_table(src, dt->schema->name);
        if (!st) {
            continue;
        }
        const struct ovsdb_row *row;
        OVSDB_TABLE_FOR_EACH_ROW (row, st) {
            struct ovsdb_row *new = ovsdb_row_create(dt);
            ovsdb_row_set_uuid(new, ovsdb_row_get_uuid(row));
            ovsdb_row_set_version(new, ovsdb_row_get_version(row));
            struct ovsdb_error *error = convert_row(row, new);
            if (error) {
                ovsdb_row_destroy(new);
                ovsdb_destroy(dst);
                *dstp = NULL;
                progress_end();
                return error;
            }
            ovsdb_table_put_row(dt, new);
            progress_update(++n_done);
        }
    }
    progress_end();
    *dstp = dst;
    return NULL;
}
