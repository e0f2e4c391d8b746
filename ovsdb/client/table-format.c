/* ovsdb/client/table-format.c: see table-format.h. */
#include <config.h>
#include "ovsdb/client/table-format.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "lib/timeval.h"
#include "ovsdb/engine/datum.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/type.h"

struct cell {
    char *text;                     /* Plain text, or NULL. */
    json_t *json;                   /* JSON, or NULL. */
    const struct ovsdb_type *type;  /* Type of 'json', or NULL. */
    struct ovsdb_datum datum;       /* 'json' parsed, if 'has_datum'. */
    bool has_datum;
};

struct tabfmt {
    char *caption;
    bool timestamp;
    char **headings;
    size_t n_columns;
    struct cell **rows;             /* Each an array of 'n_columns'. */
    size_t n_rows, allocated_rows;
};

bool
tabfmt_parse_format(const char *s, enum tabfmt_format *formatp)
{
    static const char *const names[] = {
        [TABFMT_TABLE] = "table", [TABFMT_LIST] = "list",
        [TABFMT_HTML] = "html",   [TABFMT_CSV] = "csv",
        [TABFMT_JSON] = "json",
    };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (!strcmp(s, names[i])) {
            *formatp = i;
            return true;
        }
    }
    return false;
}

bool
tabfmt_parse_data(const char *s, enum tabfmt_data *datap)
{
    static const char *const names[] = {
        [TABFMT_DATA_STRING] = "string",
        [TABFMT_DATA_BARE] = "bare",
        [TABFMT_DATA_JSON] = "json",
    };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (!strcmp(s, names[i])) {
            *datap = i;
            return true;
        }
    }
    return false;
}

struct tabfmt *
tabfmt_create(void)
{
    return xzalloc(sizeof(struct tabfmt));
}

static void
cell_clear(struct cell *cell)
{
    free(cell->text);
    json_decref(cell->json);
    if (cell->has_datum) {
        ovsdb_datum_destroy(&cell->datum, cell->type);
    }
    memset(cell, 0, sizeof *cell);
}

void
tabfmt_destroy(struct tabfmt *t)
{
    if (!t) {
        return;
    }
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_columns; c++) {
            cell_clear(&t->rows[r][c]);
        }
        free(t->rows[r]);
    }
    free(t->rows);
    for (size_t c = 0; c < t->n_columns; c++) {
        free(t->headings[c]);
    }
    free(t->headings);
    free(t->caption);
    free(t);
}

void
tabfmt_set_caption(struct tabfmt *t, const char *caption)
{
    free(t->caption);
    t->caption = caption ? xstrdup(caption) : NULL;
}

void
tabfmt_set_timestamp(struct tabfmt *t, bool timestamp)
{
    t->timestamp = timestamp;
}

void
tabfmt_add_column(struct tabfmt *t, const char *heading)
{
    t->headings = xrealloc(t->headings,
                           (t->n_columns + 1) * sizeof *t->headings);
    t->headings[t->n_columns++] = xstrdup(heading);
}

size_t
tabfmt_n_columns(const struct tabfmt *t)
{
    return t->n_columns;
}

size_t
tabfmt_n_rows(const struct tabfmt *t)
{
    return t->n_rows;
}

void
tabfmt_add_row(struct tabfmt *t)
{
    if (t->n_rows >= t->allocated_rows) {
        t->rows = x2nrealloc(t->rows, &t->allocated_rows, sizeof *t->rows);
    }
    t->rows[t->n_rows++] = xcalloc(t->n_columns ? t->n_columns : 1,
                                   sizeof(struct cell));
}

static struct cell *
last_row_cell(struct tabfmt *t, size_t column)
{
    if (!t->n_rows || column >= t->n_columns) {
        abort();
    }
    return &t->rows[t->n_rows - 1][column];
}

void
tabfmt_set_text(struct tabfmt *t, size_t column, const char *text)
{
    struct cell *cell = last_row_cell(t, column);
    cell_clear(cell);
    cell->text = xstrdup(text);
}

void
tabfmt_set_json(struct tabfmt *t, size_t column, json_t *json,
                const struct ovsdb_type *type)
{
    struct cell *cell = last_row_cell(t, column);
    cell_clear(cell);
    cell->json = json;
    cell->type = type;
    if (type) {
        struct ovsdb_error *error
            = ovsdb_datum_from_json_unbounded(&cell->datum, type, json, NULL);
        if (error) {
            ovsdb_error_destroy(error);
        } else {
            cell->has_datum = true;
        }
    }
}

/* Appends 'atom' with no quoting. */
static void
put_bare_atom(struct ds *out, const union ovsdb_atom *atom,
              enum ovsdb_atomic_type type)
{
    if (type == OVSDB_TYPE_STRING) {
        ds_put_buffer(out, ovsdb_atom_string(atom),
                      ovsdb_atom_string_length(atom));
    } else {
        ovsdb_atom_to_string(atom, type, out);
    }
}

static void
put_bare_datum(struct ds *out, const struct ovsdb_datum *datum,
               const struct ovsdb_type *type)
{
    for (unsigned int i = 0; i < datum->n; i++) {
        if (i) {
            ds_put_char(out, ' ');
        }
        put_bare_atom(out, &datum->keys[i], type->key.type);
        if (ovsdb_type_is_map(type)) {
            ds_put_char(out, '=');
            put_bare_atom(out, &ovsdb_datum_values(datum)[i],
                          type->value.type);
        }
    }
}

/* Appends 'cell' as text in 'data' format. */
static void
put_cell_text(struct ds *out, const struct cell *cell, enum tabfmt_data data)
{
    if (cell->text) {
        ds_put_cstr(out, cell->text);
    } else if (!cell->json) {
        /* Empty. */
    } else if (cell->has_datum && data == TABFMT_DATA_STRING) {
        ovsdb_datum_to_string(&cell->datum, cell->type, out);
    } else if (cell->has_datum && data == TABFMT_DATA_BARE) {
        put_bare_datum(out, &cell->datum, cell->type);
    } else {
        jsonx_put(out, cell->json);
    }
}

static char *
cell_to_text(const struct cell *cell, enum tabfmt_data data)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    put_cell_text(&s, cell, data);
    return ds_steal_cstr(&s);
}

/* Returns a new reference: 'cell' as JSON. */
static json_t *
cell_to_json(const struct cell *cell)
{
    if (cell->text) {
        return json_string(cell->text);
    } else if (cell->json) {
        return json_incref(cell->json);
    } else {
        return json_null();
    }
}

static int
compare_cells(const struct cell *a, const struct cell *b)
{
    if (a->has_datum && b->has_datum && a->type == b->type) {
        return ovsdb_datum_compare_3way(&a->datum, &b->datum, a->type);
    }
    char *as = cell_to_text(a, TABFMT_DATA_JSON);
    char *bs = cell_to_text(b, TABFMT_DATA_JSON);
    int cmp = strcmp(as, bs);
    free(as);
    free(bs);
    return cmp;
}

/* For compare_rows(), since qsort() passes no auxiliary data: the column
 * indexes in the order they are compared. */
static size_t *sort_order;
static size_t sort_n_columns;

static int
compare_rows(const void *a_, const void *b_)
{
    const struct cell *const *a = a_;
    const struct cell *const *b = b_;
    for (size_t i = 0; i < sort_n_columns; i++) {
        size_t c = sort_order[i];
        int cmp = compare_cells(&(*a)[c], &(*b)[c]);
        if (cmp) {
            return cmp;
        }
    }
    return 0;
}

void
tabfmt_sort(struct tabfmt *t)
{
    if (t->n_rows < 2) {
        return;                 /* Also: qsort() must not see NULL rows. */
    }
    size_t n = 0;
    sort_order = xmalloc((t->n_columns + 1) * sizeof *sort_order);
    for (int uuid_pass = 0; uuid_pass < 2; uuid_pass++) {
        for (size_t c = 0; c < t->n_columns; c++) {
            if ((strcmp(t->headings[c], "_uuid") == 0) == uuid_pass) {
                sort_order[n++] = c;
            }
        }
    }
    sort_n_columns = n;
    qsort(t->rows, t->n_rows, sizeof *t->rows, compare_rows);
    free(sort_order);
    sort_order = NULL;
}

static void
put_padded(struct ds *line, const char *s, size_t width)
{
    size_t n = strlen(s);
    ds_put_cstr(line, s);
    if (n < width) {
        ds_put_char_multiple(line, ' ', width - n);
    }
}

static void
print_line(struct ds *line)
{
    size_t length = line->length;
    while (length && line->string[length - 1] == ' ') {
        length--;
    }
    ds_truncate(line, length);
    puts(ds_cstr(line));
    ds_clear(line);
}

static void
put_timestamp(struct ds *out)
{
    long long msec = time_wall_msec();
    time_t secs = msec / 1000;
    struct tm tm;
    char buf[64];
    gmtime_r(&secs, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    ds_put_format(out, "%s.%03lld", buf, msec % 1000);
}

static void
print_timestamp(const struct tabfmt *t)
{
    if (t->timestamp) {
        struct ds s = DS_EMPTY_INITIALIZER;
        put_timestamp(&s);
        puts(ds_cstr(&s));
        ds_destroy(&s);
    }
}

static void
print_table(const struct tabfmt *t, const struct tabfmt_style *style)
{
    size_t nc = t->n_columns;
    char ***texts = xmalloc(t->n_rows * sizeof *texts);
    size_t *widths = xcalloc(nc ? nc : 1, sizeof *widths);
    size_t max = style->max_column_width > 0 ? style->max_column_width
                                             : INT_MAX;

    for (size_t r = 0; r < t->n_rows; r++) {
        texts[r] = xmalloc((nc ? nc : 1) * sizeof **texts);
        for (size_t c = 0; c < nc; c++) {
            struct ds s = DS_EMPTY_INITIALIZER;
            put_cell_text(&s, &t->rows[r][c], style->data);
            if (s.length > max) {
                ds_truncate(&s, max);
            }
            texts[r][c] = ds_steal_cstr(&s);
            widths[c] = MAX(widths[c], strlen(texts[r][c]));
        }
    }
    if (style->headings) {
        for (size_t c = 0; c < nc; c++) {
            widths[c] = MAX(widths[c], strlen(t->headings[c]));
        }
    }

    print_timestamp(t);
    if (t->caption) {
        puts(t->caption);
    }

    struct ds line = DS_EMPTY_INITIALIZER;
    if (style->headings) {
        for (size_t c = 0; c < nc; c++) {
            if (c) {
                ds_put_char(&line, ' ');
            }
            put_padded(&line, t->headings[c], widths[c]);
        }
        print_line(&line);
        for (size_t c = 0; c < nc; c++) {
            if (c) {
                ds_put_char(&line, ' ');
            }
            ds_put_char_multiple(&line, '-', widths[c]);
        }
        print_line(&line);
    }
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < nc; c++) {
            if (c) {
                ds_put_char(&line, ' ');
            }
            put_padded(&line, texts[r][c], widths[c]);
            free(texts[r][c]);
        }
        print_line(&line);
        free(texts[r]);
    }
    ds_destroy(&line);
    free(texts);
    free(widths);
}

static void
print_list(const struct tabfmt *t, const struct tabfmt_style *style)
{
    print_timestamp(t);
    if (t->caption) {
        puts(t->caption);
    }
    for (size_t r = 0; r < t->n_rows; r++) {
        if (r) {
            putchar('\n');
        }
        for (size_t c = 0; c < t->n_columns; c++) {
            char *text = cell_to_text(&t->rows[r][c], style->data);
            if (style->headings) {
                printf("%-20s: ", t->headings[c]);
            }
            puts(text);
            free(text);
        }
    }
}

static void
put_html_escaped(struct ds *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&':
            ds_put_cstr(out, "&amp;");
            break;
        case '<':
            ds_put_cstr(out, "&lt;");
            break;
        case '>':
            ds_put_cstr(out, "&gt;");
            break;
        case '"':
            ds_put_cstr(out, "&quot;");
            break;
        default:
            ds_put_char(out, s[i]);
            break;
        }
    }
}

/* True if 's' starts with a UUID in its 36-character text form. */
static bool
starts_with_uuid(const char *s)
{
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !isxdigit((unsigned char) s[i])) {
            return false;
        }
    }
    return true;
}

static void
put_html_cell(struct ds *out, const char *heading, const char *text)
{
    if (!strcmp(heading, "_uuid")) {
        ds_put_cstr(out, "<a name=\"");
        put_html_escaped(out, text, strlen(text));
        ds_put_cstr(out, "\">");
        put_html_escaped(out, text, MIN(strlen(text), 8));
        ds_put_cstr(out, "</a>");
        return;
    }
    const char *start = text;
    for (const char *p = text; *p;) {
        if (starts_with_uuid(p)) {
            put_html_escaped(out, start, p - start);
            ds_put_format(out, "<a href=\"#%.36s\">%.8s</a>", p, p);
            p += 36;
            start = p;
        } else {
            p++;
        }
    }
    put_html_escaped(out, start, strlen(start));
}

static void
print_html(const struct tabfmt *t, const struct tabfmt_style *style)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    print_timestamp(t);
    puts("<table border=1>");
    if (t->caption) {
        ds_put_cstr(&s, "    <caption>");
        put_html_escaped(&s, t->caption, strlen(t->caption));
        ds_put_cstr(&s, "</caption>");
        puts(ds_cstr(&s));
        ds_clear(&s);
    }
    if (style->headings) {
        puts("  <tr>");
        for (size_t c = 0; c < t->n_columns; c++) {
            ds_put_cstr(&s, "    <th>");
            put_html_escaped(&s, t->headings[c], strlen(t->headings[c]));
            ds_put_cstr(&s, "</th>");
            puts(ds_cstr(&s));
            ds_clear(&s);
        }
        puts("  </tr>");
    }
    for (size_t r = 0; r < t->n_rows; r++) {
        puts("  <tr>");
        for (size_t c = 0; c < t->n_columns; c++) {
            char *text = cell_to_text(&t->rows[r][c], style->data);
            ds_put_cstr(&s, "    <td>");
            put_html_cell(&s, t->headings[c], text);
            ds_put_cstr(&s, "</td>");
            puts(ds_cstr(&s));
            ds_clear(&s);
            free(text);
        }
        puts("  </tr>");
    }
    puts("</table>");
    ds_destroy(&s);
}

static void
put_csv_field(struct ds *out, const char *s)
{
    if (!strpbrk(s, "\n\r\",")) {
        ds_put_cstr(out, s);
        return;
    }
    ds_put_char(out, '"');
    for (; *s; s++) {
        if (*s == '"') {
            ds_put_char(out, '"');
        }
        ds_put_char(out, *s);
    }
    ds_put_char(out, '"');
}

static void
print_csv(const struct tabfmt *t, const struct tabfmt_style *style)
{
    struct ds line = DS_EMPTY_INITIALIZER;

    print_timestamp(t);
    if (t->caption) {
        puts(t->caption);
    }
    if (style->headings) {
        for (size_t c = 0; c < t->n_columns; c++) {
            if (c) {
                ds_put_char(&line, ',');
            }
            put_csv_field(&line, t->headings[c]);
        }
        puts(ds_cstr(&line));
        ds_clear(&line);
    }
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_columns; c++) {
            char *text = cell_to_text(&t->rows[r][c], style->data);
            if (c) {
                ds_put_char(&line, ',');
            }
            put_csv_field(&line, text);
            free(text);
        }
        puts(ds_cstr(&line));
        ds_clear(&line);
    }
    ds_destroy(&line);
}

static void
print_json(const struct tabfmt *t, const struct tabfmt_style *style)
{
    json_t *obj = json_object();

    if (t->caption) {
        json_object_set_new(obj, "caption", json_string(t->caption));
    }
    if (t->timestamp) {
        struct ds s = DS_EMPTY_INITIALIZER;
        put_timestamp(&s);
        json_object_set_new(obj, "time", json_string(ds_cstr(&s)));
        ds_destroy(&s);
    }
    json_t *headings = json_array();
    for (size_t c = 0; c < t->n_columns; c++) {
        json_array_append_new(headings, json_string(t->headings[c]));
    }
    json_object_set_new(obj, "headings", headings);
    json_t *data = json_array();
    for (size_t r = 0; r < t->n_rows; r++) {
        json_t *row = json_array();
        for (size_t c = 0; c < t->n_columns; c++) {
            json_array_append_new(row, cell_to_json(&t->rows[r][c]));
        }
        json_array_append_new(data, row);
    }
    json_object_set_new(obj, "data", data);

    struct ds s = DS_EMPTY_INITIALIZER;
    tabfmt_put_json(&s, obj, style->pretty);
    puts(ds_cstr(&s));
    ds_destroy(&s);
    json_decref(obj);
}

void
tabfmt_print(const struct tabfmt *t, struct tabfmt_style *style)
{
    if (style->n_printed++ && style->format != TABFMT_HTML
        && style->format != TABFMT_JSON) {
        putchar('\n');
    }
    switch (style->format) {
    case TABFMT_TABLE:
        print_table(t, style);
        break;
    case TABFMT_LIST:
        print_list(t, style);
        break;
    case TABFMT_HTML:
        print_html(t, style);
        break;
    case TABFMT_CSV:
        print_csv(t, style);
        break;
    case TABFMT_JSON:
        print_json(t, style);
        break;
    }
    fflush(stdout);
}

static void put_json(struct ds *out, const json_t *json, bool pretty,
                     int level);

static void
put_newline(struct ds *out, bool pretty, int level)
{
    if (pretty) {
        ds_put_char(out, '\n');
        ds_put_char_multiple(out, ' ', (size_t) level * 2);
    }
}

static int
compare_strings(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;
    return strcmp(*a, *b);
}

static void
put_object(struct ds *out, const json_t *json, bool pretty, int level)
{
    size_t n = json_object_size(json);
    if (!n) {
        ds_put_cstr(out, "{}");
        return;
    }
    const char **keys = xmalloc(n * sizeof *keys);
    const char *key;
    json_t *value;
    size_t i = 0;
    json_object_foreach ((json_t *) json, key, value) {
        keys[i++] = key;
    }
    qsort(keys, n, sizeof *keys, compare_strings);

    ds_put_char(out, '{');
    for (i = 0; i < n; i++) {
        if (i) {
            ds_put_char(out, ',');
        }
        put_newline(out, pretty, level + 1);
        json_t *name = json_string(keys[i]);
        jsonx_put(out, name);
        json_decref(name);
        ds_put_cstr(out, pretty ? ": " : ":");
        put_json(out, json_object_get(json, keys[i]), pretty, level + 1);
    }
    ds_put_char(out, '}');
    free(keys);
}

static void
put_json(struct ds *out, const json_t *json, bool pretty, int level)
{
    if (json_is_object(json)) {
        put_object(out, json, pretty, level);
    } else if (json_is_array(json) && json_array_size(json)) {
        ds_put_char(out, '[');
        for (size_t i = 0; i < json_array_size(json); i++) {
            if (i) {
                ds_put_char(out, ',');
            }
            put_newline(out, pretty, level + 1);
            put_json(out, json_array_get(json, i), pretty, level + 1);
        }
        ds_put_char(out, ']');
    } else {
        jsonx_put(out, json);
    }
}

void
tabfmt_put_json(struct ds *out, const json_t *json, bool pretty)
{
    put_json(out, json, pretty, 0);
}
