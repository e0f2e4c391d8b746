/* ovsdb/client/table-format.h: tables of cells printed as ovsdb-client prints
 * them.
 *
 * A 'struct tabfmt' is a caption, a list of column headings and rows of
 * cells.  A cell holds either plain text, or JSON, optionally with the OVSDB
 * column type that JSON is a value of.  tabfmt_print() writes the table to
 * stdout in one of the reference's formats:
 *
 *     table   aligned columns, a heading line and a line of dashes
 *     list    one "heading : value" line per cell, rows separated by blanks
 *     html    a <table>, UUIDs turned into anchors and links
 *     csv     RFC 4180
 *     json    {"caption": ..., "headings": [...], "data": [[...], ...]}
 *
 * A typed JSON cell is rendered according to the style's data format:
 * "string" (ovs-vsctl's syntax, as ovsdb_datum_to_string()), "bare" (no
 * brackets, no quotes, elements separated by spaces) or "json" (compact RFC
 * 7047 JSON).  The json table format always emits cells as JSON.
 *
 * Tables printed one after another with the same style are separated by a
 * blank line, as the reference separates them; the style counts them. */
#ifndef OVSDB_TABLE_FORMAT_H
#define OVSDB_TABLE_FORMAT_H 1

#include <limits.h>
#include <stdbool.h>
#include <jansson.h>
#include "lib/util.h"

struct ds;
struct ovsdb_type;

enum tabfmt_format {
    TABFMT_TABLE,
    TABFMT_LIST,
    TABFMT_HTML,
    TABFMT_CSV,
    TABFMT_JSON
};

enum tabfmt_data {
    TABFMT_DATA_STRING,
    TABFMT_DATA_BARE,
    TABFMT_DATA_JSON
};

struct tabfmt_style {
    enum tabfmt_format format;
    enum tabfmt_data data;
    bool headings;              /* Print the heading row. */
    bool pretty;                /* Pretty-print JSON output (json format). */
    int max_column_width;       /* Table format: INT_MAX for no limit. */
    unsigned int n_printed;     /* Tables printed so far with this style. */
};

#define TABFMT_STYLE_DEFAULT                                                 \
    { TABFMT_TABLE, TABFMT_DATA_STRING, true, false, INT_MAX, 0 }

/* Parses "table", "list", "html", "csv", "json" ('--format') and "string",
 * "bare", "json" ('--data').  Return false if 's' is not one of them. */
bool tabfmt_parse_format(const char *s, enum tabfmt_format *formatp);
bool tabfmt_parse_data(const char *s, enum tabfmt_data *datap);

struct tabfmt;

/* Returns a new, empty table; caller must free with tabfmt_destroy(). */
struct tabfmt *tabfmt_create(void);
void tabfmt_destroy(struct tabfmt *);   /* NULL is fine. */

/* Sets the caption (copied); NULL for none. */
void tabfmt_set_caption(struct tabfmt *, const char *caption);

/* Prints the current wall-clock time above the table (text formats) or as
 * the "time" member (json format). */
void tabfmt_set_timestamp(struct tabfmt *, bool timestamp);

/* Adds a column with heading 'heading' (copied).  Add all columns before the
 * first row. */
void tabfmt_add_column(struct tabfmt *, const char *heading);
size_t tabfmt_n_columns(const struct tabfmt *);
size_t tabfmt_n_rows(const struct tabfmt *);

/* Starts a new row, with every cell empty. */
void tabfmt_add_row(struct tabfmt *);

/* Fill cell 'column' of the last row.  An empty cell prints as "" (or null
 * in JSON).
 *
 * tabfmt_set_text() copies 'text'.  tabfmt_set_json() steals 'json'; 'type'
 * (may be NULL for untyped JSON, printed compactly) is borrowed and must
 * stay valid until the table is printed. */
void tabfmt_set_text(struct tabfmt *, size_t column, const char *text);
void tabfmt_set_json(struct tabfmt *, size_t column, json_t *json,
                     const struct ovsdb_type *type);

/* Sorts the rows by their cells, left to right, except that a column
 * headed "_uuid" comes last, as the reference's "dump" sorts rows (typed
 * cells compare as OVSDB data, others as text). */
void tabfmt_sort(struct tabfmt *);

/* Prints the table on stdout in 'style' and flushes stdout. */
void tabfmt_print(const struct tabfmt *, struct tabfmt_style *style);

/* Appends JSON 'json' to 'out' as the reference prints it: compact, or with
 * 'pretty' one member or element per line, indented by two spaces, with
 * closing brackets kept on the last line of their content. */
void tabfmt_put_json(struct ds *out, const json_t *json, bool pretty);

#endif /* ovsdb/client/table-format.h */
