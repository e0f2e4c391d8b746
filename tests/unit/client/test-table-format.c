/* tests/unit/client/test-table-format.c: ovsdb/client/table-format prints
 * tables the way the reference ovsdb-client does (expected texts taken from
 * the reference 3.1 on the same data). */
#include <config.h>
#include "ovsdb/client/table-format.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/json-util.h"
#include "ovsdb/engine/type.h"
#include "tests/unit/check.h"

/* Runs tabfmt_print(t, style) and returns what it wrote to stdout (caller
 * must free). */
static char *
capture(const struct tabfmt *t, struct tabfmt_style *style)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), STDOUT_FILENO);
    tabfmt_print(t, style);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);

    struct ds s = DS_EMPTY_INITIALIZER;
    char buf[4096];
    size_t n;
    rewind(tmp);
    while ((n = fread(buf, 1, sizeof buf, tmp)) > 0) {
        ds_put_buffer(&s, buf, n);
    }
    fclose(tmp);
    return ds_steal_cstr(&s);
}

static json_t *
parse(const char *s)
{
    json_t *json = jsonx_from_string(s, NULL);
    if (!json) {
        fprintf(stderr, "bad JSON in test: %s\n", s);
        abort();
    }
    return json;
}

static struct ovsdb_type int_type, string_type, sset_type, ssmap_type;
static struct ovsdb_type uuid_type;

static void
init_types(void)
{
    ovsdb_type_init_scalar(&int_type, OVSDB_TYPE_INTEGER);
    ovsdb_type_init_scalar(&string_type, OVSDB_TYPE_STRING);
    ovsdb_type_init_scalar(&uuid_type, OVSDB_TYPE_UUID);
    json_t *json = parse("{\"key\":\"string\",\"min\":0,"
                         "\"max\":\"unlimited\"}");
    CHECK(!ovsdb_type_from_json(&sset_type, json));
    json_decref(json);
    json = parse("{\"key\":\"string\",\"value\":\"string\","
                 "\"min\":0,\"max\":\"unlimited\"}");
    CHECK(!ovsdb_type_from_json(&ssmap_type, json));
    json_decref(json);
}

/* Two rows of (_uuid, i, s, sset, ssmap), added out of order. */
static struct tabfmt *
sample_table(void)
{
    struct tabfmt *t = tabfmt_create();
    tabfmt_set_caption(t, "T table");
    tabfmt_add_column(t, "_uuid");
    tabfmt_add_column(t, "i");
    tabfmt_add_column(t, "s");
    tabfmt_add_column(t, "sset");
    tabfmt_add_column(t, "ssmap");

    tabfmt_add_row(t);
    tabfmt_set_json(t, 0, parse("[\"uuid\",\"c5da2c78-4975-4a04-8f37-"
                                "970730eb6ab4\"]"), &uuid_type);
    tabfmt_set_json(t, 1, parse("5"), &int_type);
    tabfmt_set_json(t, 2, parse("\"hello world\""), &string_type);
    tabfmt_set_json(t, 3, parse("[\"set\",[\"x y\",\"z\"]]"), &sset_type);
    tabfmt_set_json(t, 4, parse("[\"map\",[[\"a\",\"b\"],"
                                "[\"c d\",\"e\\\"f\"]]]"), &ssmap_type);

    tabfmt_add_row(t);
    tabfmt_set_json(t, 0, parse("[\"uuid\",\"9dacf73c-4968-4f97-917e-"
                                "69a2bb496a3d\"]"), &uuid_type);
    tabfmt_set_json(t, 1, parse("0"), &int_type);
    tabfmt_set_json(t, 2, parse("\"\""), &string_type);
    tabfmt_set_json(t, 3, parse("[\"set\",[]]"), &sset_type);
    tabfmt_set_json(t, 4, parse("[\"map\",[]]"), &ssmap_type);
    return t;
}

static void
test_formats(void)
{
    struct tabfmt *t = sample_table();
    tabfmt_sort(t);             /* By i, s, ... first, _uuid last. */
    struct tabfmt_style style = TABFMT_STYLE_DEFAULT;
    char *out;

    out = capture(t, &style);
    CHECK_STREQ(out,
                "T table\n"
                "_uuid                                i s             "
                "sset       ssmap\n"
                "------------------------------------ - ------------- "
                "---------- -------------------\n"
                "9dacf73c-4968-4f97-917e-69a2bb496a3d 0 \"\"            "
                "[]         {}\n"
                "c5da2c78-4975-4a04-8f37-970730eb6ab4 5 \"hello world\" "
                "[\"x y\", z] {a=b, \"c d\"=\"e\\\"f\"}\n");
    free(out);

    /* A second table with the same style is preceded by a blank line. */
    out = capture(t, &style);
    CHECK(out[0] == '\n' && !strncmp(out + 1, "T table\n", 8));
    free(out);

    style = (struct tabfmt_style) TABFMT_STYLE_DEFAULT;
    style.format = TABFMT_CSV;
    out = capture(t, &style);
    CHECK_STREQ(out,
                "T table\n"
                "_uuid,i,s,sset,ssmap\n"
                "9dacf73c-4968-4f97-917e-69a2bb496a3d,0,\"\"\"\"\"\",[],{}\n"
                "c5da2c78-4975-4a04-8f37-970730eb6ab4,5,"
                "\"\"\"hello world\"\"\",\"[\"\"x y\"\", z]\","
                "\"{a=b, \"\"c d\"\"=\"\"e\\\"\"f\"\"}\"\n");
    free(out);

    style = (struct tabfmt_style) TABFMT_STYLE_DEFAULT;
    style.format = TABFMT_LIST;
    style.data = TABFMT_DATA_BARE;
    out = capture(t, &style);
    CHECK_STREQ(out,
                "T table\n"
                "_uuid               : 9dacf73c-4968-4f97-917e-69a2bb496a3d\n"
                "i                   : 0\n"
                "s                   : \n"
                "sset                : \n"
                "ssmap               : \n"
                "\n"
                "_uuid               : c5da2c78-4975-4a04-8f37-970730eb6ab4\n"
                "i                   : 5\n"
                "s                   : hello world\n"
                "sset                : x y z\n"
                "ssmap               : a=b c d=e\"f\n");
    free(out);

    style = (struct tabfmt_style) TABFMT_STYLE_DEFAULT;
    style.format = TABFMT_JSON;
    out = capture(t, &style);
    CHECK_STREQ(out,
                "{\"caption\":\"T table\",\"data\":[[[\"uuid\","
                "\"9dacf73c-4968-4f97-917e-69a2bb496a3d\"],0,\"\","
                "[\"set\",[]],[\"map\",[]]],[[\"uuid\","
                "\"c5da2c78-4975-4a04-8f37-970730eb6ab4\"],5,"
                "\"hello world\",[\"set\",[\"x y\",\"z\"]],[\"map\","
                "[[\"a\",\"b\"],[\"c d\",\"e\\\"f\"]]]]],\"headings\":"
                "[\"_uuid\",\"i\",\"s\",\"sset\",\"ssmap\"]}\n");
    free(out);

    style = (struct tabfmt_style) TABFMT_STYLE_DEFAULT;
    style.max_column_width = 4;
    style.headings = false;
    out = capture(t, &style);
    CHECK_STREQ(out,
                "T table\n"
                "9dac 0 \"\"   []   {}\n"
                "c5da 5 \"hel [\"x  {a=b\n");
    free(out);
    tabfmt_destroy(t);
}

static void
test_html(void)
{
    struct tabfmt *t = tabfmt_create();
    tabfmt_add_column(t, "_uuid");
    tabfmt_add_column(t, "ref");
    tabfmt_add_row(t);
    tabfmt_set_text(t, 0, "cb6ccc50-c125-4cb8-b022-3145949e9fb4");
    tabfmt_set_text(t, 1, "[52040e1c-2511-4ec6-ae86-b06bdef59bc2] <&>");
    struct tabfmt_style style = TABFMT_STYLE_DEFAULT;
    style.format = TABFMT_HTML;
    char *out = capture(t, &style);
    CHECK_STREQ(out,
                "<table border=1>\n"
                "  <tr>\n"
                "    <th>_uuid</th>\n"
                "    <th>ref</th>\n"
                "  </tr>\n"
                "  <tr>\n"
                "    <td><a name=\"cb6ccc50-c125-4cb8-b022-3145949e9fb4\">"
                "cb6ccc50</a></td>\n"
                "    <td>[<a href=\"#52040e1c-2511-4ec6-ae86-b06bdef59bc2\">"
                "52040e1c</a>] &lt;&amp;&gt;</td>\n"
                "  </tr>\n"
                "</table>\n");
    free(out);
    tabfmt_destroy(t);
}

static void
test_monitor_style(void)
{
    /* Empty cells: blank in text (no trailing spaces), null in JSON. */
    struct tabfmt *t = tabfmt_create();
    tabfmt_add_column(t, "row");
    tabfmt_add_column(t, "action");
    tabfmt_add_column(t, "i");
    tabfmt_add_row(t);
    tabfmt_set_text(t, 0, "u1");
    tabfmt_set_text(t, 1, "old");
    tabfmt_add_row(t);
    tabfmt_set_text(t, 0, "");
    tabfmt_set_text(t, 1, "new");
    tabfmt_set_json(t, 2, parse("17"), &int_type);
    tabfmt_set_timestamp(t, true);

    struct tabfmt_style style = TABFMT_STYLE_DEFAULT;
    char *out = capture(t, &style);
    regex_t re;
    CHECK(!regcomp(&re,
                   "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}"
                   "\\.[0-9]{3}\n"
                   "row action i\n"
                   "--- ------ --\n"
                   "u1  old\n"
                   "    new    17\n$", REG_EXTENDED));
    CHECK(!regexec(&re, out, 0, NULL, 0));
    if (regexec(&re, out, 0, NULL, 0)) {
        fprintf(stderr, "got:\n%s", out);
    }
    regfree(&re);
    free(out);

    tabfmt_set_timestamp(t, false);
    style.format = TABFMT_JSON;
    style.pretty = true;
    out = capture(t, &style);
    CHECK_STREQ(out,
                "{\n"
                "  \"data\": [\n"
                "    [\n"
                "      \"u1\",\n"
                "      \"old\",\n"
                "      null],\n"
                "    [\n"
                "      \"\",\n"
                "      \"new\",\n"
                "      17]],\n"
                "  \"headings\": [\n"
                "    \"row\",\n"
                "    \"action\",\n"
                "    \"i\"]}\n");
    free(out);
    tabfmt_destroy(t);
}

static void
test_empty(void)
{
    struct tabfmt *t = tabfmt_create();
    tabfmt_set_caption(t, "Empty table");
    tabfmt_add_column(t, "_uuid");
    tabfmt_add_column(t, "name");
    tabfmt_sort(t);
    struct tabfmt_style style = TABFMT_STYLE_DEFAULT;
    char *out = capture(t, &style);
    CHECK_STREQ(out, "Empty table\n_uuid name\n----- ----\n");
    free(out);
    style.format = TABFMT_JSON;
    out = capture(t, &style);
    CHECK_STREQ(out, "{\"caption\":\"Empty table\",\"data\":[],"
                "\"headings\":[\"_uuid\",\"name\"]}\n");
    free(out);
    tabfmt_destroy(t);
}

static void
test_parse(void)
{
    enum tabfmt_format format;
    enum tabfmt_data data;
    CHECK(tabfmt_parse_format("html", &format) && format == TABFMT_HTML);
    CHECK(tabfmt_parse_format("list", &format) && format == TABFMT_LIST);
    CHECK(!tabfmt_parse_format("xml", &format));
    CHECK(tabfmt_parse_data("bare", &data) && data == TABFMT_DATA_BARE);
    CHECK(!tabfmt_parse_data("table", &data));
}

static const struct check_case cases[] = {
    CHECK_CASE(test_formats),       CHECK_CASE(test_html),
    CHECK_CASE(test_monitor_style), CHECK_CASE(test_empty),
    CHECK_CASE(test_parse),
};

int
main(int argc, char *argv[])
{
    init_types();
    int status = check_main(argc, argv, "test-table-format", cases,
                            sizeof cases / sizeof *cases);
    return status;
}
