/* tests/unit/engine/test-datum.c: atoms and datums: JSON, order, constraints,
 * set operations and diffs. */
#include <config.h>
#include "ovsdb/engine/datum.h"

#include <stdlib.h>
#include "lib/ds.h"
#include "lib/allocator.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "tests/unit/check.h"

static struct ovsdb_type
parse_type(const char *s)
{
    struct ovsdb_type type;
    json_t *json = jsonx_from_string(s, NULL);
    struct ovsdb_error *error = ovsdb_type_from_json(&type, json);
    if (error) {
        fprintf(stderr, "bad type %s\n", s);
        abort();
    }
    json_decref(json);
    return type;
}

/* The types the cases use, as JSON, named as their variables. */
static const char i_json[] = "\"integer\"";
static const char r_json[] = "\"real\"";
static const char b_json[] = "\"boolean\"";
static const char u_json[] = "\"uuid\"";
static const char ic_json[] = "{\"key\":{\"type\":\"integer\","
                              "\"minInteger\":0,\"maxInteger\":10}}";
static const char imin_json[] = "{\"key\":{\"type\":\"integer\","
                                "\"minInteger\":5}}";
static const char rmax_json[] = "{\"key\":{\"type\":\"real\","
                                "\"maxReal\":0.25}}";
static const char e_json[] = "{\"key\":{\"type\":\"string\",\"enum\":"
                             "[\"set\",[\"a\",\"b\"]]},\"min\":0,"
                             "\"max\":2}";
static const char l_json[] = "{\"key\":{\"type\":\"string\","
                             "\"minLength\":2,\"maxLength\":3}}";
static const char s12_json[] = "{\"key\":\"integer\",\"min\":1,\"max\":2}";
static const char ss_json[] = "{\"key\":\"string\",\"min\":0,"
                              "\"max\":\"unlimited\"}";
static const char m_json[] = "{\"key\":\"string\",\"value\":\"integer\","
                             "\"min\":0,\"max\":\"unlimited\"}";
static const char opt_json[] = "{\"key\":\"integer\",\"min\":0,\"max\":1}";

/* Parses 'value' as 'type', returns its JSON form (or "TAG: details"). */
static char *
roundtrip(const struct ovsdb_type *type, const char *value)
{
    json_t *json = jsonx_from_string(value, NULL);
    struct ovsdb_datum d;
    struct ovsdb_symbol_table *symtab = ovsdb_symbol_table_create();
    struct ovsdb_error *error = ovsdb_datum_from_json(&d, type, json, symtab);
    ovsdb_symbol_table_destroy(symtab);
    json_decref(json);
    if (error) {
        char *s = xasprintf("%s: %s",
                            ovsdb_error_tag_string(ovsdb_error_get_tag(error)),
                            ovsdb_error_get_details(error));
        ovsdb_error_destroy(error);
        return s;
    }
    json_t *out = ovsdb_datum_to_json(&d, type);
    char *s = jsonx_to_string_sorted(out);
    json_decref(out);

    /* The text serializer writes the same bytes as the tree. */
    struct ds text = DS_EMPTY_INITIALIZER;
    ovsdb_datum_put_json(&text, &d, type);
    CHECK_STREQ(ds_cstr(&text), s);
    ds_destroy(&text);

    ovsdb_datum_destroy(&d, type);
    return s;
}

#define RT(TYPE, IN, OUT)                                                    \
    do {                                                                     \
        char *s_ = roundtrip(TYPE, IN);                                      \
        CHECK_STREQ(s_, OUT);                                                \
        free(s_);                                                            \
    } while (0)

static struct ovsdb_datum
parse_datum(const struct ovsdb_type *type, const char *s)
{
    struct ovsdb_datum d;
    json_t *json = jsonx_from_string(s, NULL);
    struct ovsdb_error *error = ovsdb_datum_from_json_unbounded(&d, type,
                                                                json, NULL);
    if (error) {
        fprintf(stderr, "bad datum %s\n", s);
        abort();
    }
    json_decref(json);
    return d;
}

static char *
datum_string(const struct ovsdb_datum *d, const struct ovsdb_type *type)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    ovsdb_datum_to_string(d, type, &s);
    return ds_steal_cstr(&s);
}

/* Checks diff(old, new) and apply_diff(old, diff) == new. */
static void
check_diff(const struct ovsdb_type *type, const char *old_s,
           const char *new_s, const char *diff_expected)
{
    struct ovsdb_datum old = parse_datum(type, old_s);
    struct ovsdb_datum new = parse_datum(type, new_s);
    struct ovsdb_datum diff, applied;
    ovsdb_datum_diff(&diff, &old, &new, type);
    char *s = datum_string(&diff, type);
    CHECK_STREQ(s, diff_expected);
    free(s);

    struct ovsdb_type unbounded = *type;
    unbounded.n_min = 0;
    unbounded.n_max = UINT_MAX;
    struct ovsdb_error *error = ovsdb_datum_apply_diff(&applied, &old, &diff,
                                                       &unbounded);
    CHECK(!error);
    if (!error) {
        CHECK(ovsdb_datum_equals(&applied, &new, type));
        ovsdb_datum_destroy(&applied, type);
    }
    ovsdb_datum_destroy(&old, type);
    ovsdb_datum_destroy(&new, type);
    ovsdb_datum_destroy(&diff, type);
}

/* Atoms of each type: JSON forms accepted and refused. */
static void
test_atoms(void)
{
    struct ovsdb_type i = parse_type(i_json);
    struct ovsdb_type r = parse_type(r_json);
    struct ovsdb_type b = parse_type(b_json);
    struct ovsdb_type u = parse_type(u_json);

    RT(&i, "5", "5");
    RT(&i, "1.0", "1");
    RT(&i, "1.5", "syntax error: expected integer");
    RT(&i, "\"x\"", "syntax error: expected integer");
    RT(&i, "null", "syntax error: expected integer");
    RT(&r, "1", "1");
    RT(&r, "2.5", "2.5");
    RT(&r, "\"x\"", "syntax error: expected real");
    RT(&b, "true", "true");
    RT(&b, "1", "syntax error: expected boolean");
    RT(&u, "[\"uuid\",\"550E8400-e29b-41d4-a716-446655440000\"]",
       "[\"uuid\",\"550e8400-e29b-41d4-a716-446655440000\"]");
    RT(&u, "[\"uuid\",\"xyz\"]", "syntax error: \"xyz\" is not a valid UUID");
    RT(&u, "\"550e8400-e29b-41d4-a716-446655440000\"",
       "syntax error: expected [\"uuid\", <string>]");
    RT(&u, "[\"named-uuid\",1]",
       "syntax error: expected [\"uuid\", <string>]");

    ovsdb_type_destroy(&i);
    ovsdb_type_destroy(&r);
    ovsdb_type_destroy(&b);
    ovsdb_type_destroy(&u);
}

/* Range, enum and length constraints, worded as the reference's. */
static void
test_constraints(void)
{
    struct ovsdb_type ic = parse_type(ic_json);
    struct ovsdb_type imin = parse_type(imin_json);
    struct ovsdb_type rmax = parse_type(rmax_json);
    struct ovsdb_type e = parse_type(e_json);
    struct ovsdb_type l = parse_type(l_json);

    RT(&ic, "11", "constraint violation: 11 is not in the valid range 0 to "
       "10 (inclusive)");
    RT(&imin, "1", "constraint violation: 1 is less than minimum allowed "
       "value 5");
    RT(&rmax, "0.3", "constraint violation: 0.3 is greater than maximum "
       "allowed value 0.25");
    RT(&e, "\"c\"", "constraint violation: c is not one of the allowed "
       "values ([a, b])");
    RT(&e, "\"c d\"", "constraint violation: \"c d\" is not one of the "
       "allowed values ([a, b])");
    RT(&e, "\"true\"", "constraint violation: \"true\" is not one of the "
       "allowed values ([a, b])");
    RT(&l, "\"a\"", "constraint violation: \"a\" length 1 is less than "
       "minimum allowed length 2");
    RT(&l, "\"\xc3\xa9\"", "constraint violation: \"\xc3\xa9\" length 1 is "
       "less than minimum allowed length 2");
    RT(&l, "\"abcd\"", "constraint violation: \"abcd\" length 4 is greater "
       "than maximum allowed length 3");
    RT(&l, "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"");

    ovsdb_type_destroy(&ic);
    ovsdb_type_destroy(&imin);
    ovsdb_type_destroy(&rmax);
    ovsdb_type_destroy(&e);
    ovsdb_type_destroy(&l);
}

/* Sets and maps: order, sizes, duplicates, 1-element sets as atoms. */
static void
test_sets_and_maps(void)
{
    struct ovsdb_type e = parse_type(e_json);
    struct ovsdb_type s12 = parse_type(s12_json);
    struct ovsdb_type i = parse_type(i_json);
    struct ovsdb_type opt = parse_type(opt_json);
    struct ovsdb_type m = parse_type(m_json);

    RT(&e, "[\"set\",[\"b\",\"a\"]]", "[\"set\",[\"a\",\"b\"]]");
    RT(&e, "[\"set\",[\"a\"]]", "\"a\"");
    RT(&e, "[\"set\",[]]", "[\"set\",[]]");
    RT(&e, "[\"set\",[\"a\",\"a\"]]", "ovsdb error: set contains duplicate");
    RT(&e, "[\"set\",[\"a\",\"b\",\"a\"]]", "syntax error: set must have 0 "
       "to 2 members but 3 are present");
    RT(&e, "[\"set\",[\"a\",1]]", "syntax error: expected string");
    RT(&e, "[\"set\",\"a\"]", "syntax error: expected [\"set\", <array>]");
    RT(&s12, "[\"set\",[]]", "syntax error: set must have 1 to 2 members "
       "but 0 are present");
    RT(&i, "[\"set\",[1,2]]", "syntax error: set must have exactly one "
       "member but 2 are present");
    RT(&i, "[\"set\",[7]]", "7");
    RT(&opt, "[\"set\",[]]", "[\"set\",[]]");
    RT(&m, "[\"map\",[[\"b\",1],[\"a\",2]]]",
       "[\"map\",[[\"a\",2],[\"b\",1]]]");
    RT(&m, "[\"map\",[[\"a\",1],[\"a\",1]]]",
       "ovsdb error: map contains duplicate key");
    RT(&m, "[\"set\",[]]", "syntax error: expected [\"map\", <array>]");
    RT(&m, "[\"map\",[[\"a\"]]]", "syntax error: expected 2-element array");
    RT(&m, "[\"map\",[[\"a\",\"x\"]]]", "syntax error: expected integer");

    ovsdb_type_destroy(&e);
    ovsdb_type_destroy(&s12);
    ovsdb_type_destroy(&i);
    ovsdb_type_destroy(&opt);
    ovsdb_type_destroy(&m);
}

/* Values the text serializer must spell as jsonx_put() does. */
static void
test_serializer(void)
{
    struct ovsdb_type i = parse_type(i_json);
    struct ovsdb_type r = parse_type(r_json);
    struct ovsdb_type b = parse_type(b_json);

    struct ovsdb_type any_s = parse_type("\"string\"");
    struct ovsdb_type su = parse_type("{\"key\":\"uuid\",\"min\":0,"
                                      "\"max\":\"unlimited\"}");
    struct ovsdb_type mr = parse_type("{\"key\":\"real\",\"value\":"
                                      "\"boolean\",\"min\":0,"
                                      "\"max\":\"unlimited\"}");
    RT(&any_s, "\"q\\\"b\\\\n\\n\\t\\u0001\xc3\xa9\"",
       "\"q\\\"b\\\\n\\n\\t\\u0001\xc3\xa9\"");
    RT(&i, "-9223372036854775808", "-9223372036854775808");
    RT(&r, "-0.1", "-0.1");
    RT(&b, "false", "false");
    RT(&su, "[\"set\",[[\"uuid\",\"00000000-0000-0000-0000-000000000002\"],"
       "[\"uuid\",\"00000000-0000-0000-0000-000000000001\"]]]",
       "[\"set\",[[\"uuid\",\"00000000-0000-0000-0000-000000000001\"],"
       "[\"uuid\",\"00000000-0000-0000-0000-000000000002\"]]]");
    RT(&mr, "[\"map\",[[2.5,true],[1e300,false]]]",
       "[\"map\",[[2.5,true],[1e+300,false]]]");

    ovsdb_type_destroy(&i);
    ovsdb_type_destroy(&r);
    ovsdb_type_destroy(&b);
}

/* named-uuid resolves through the symbol table, and only with one. */
static void
test_named_uuid(void)
{
    struct ovsdb_type u = parse_type(u_json);

    struct ovsdb_symbol_table *symtab = ovsdb_symbol_table_create();
    struct ovsdb_symbol *sym = ovsdb_symbol_table_insert(symtab, "x");
    CHECK(sym == ovsdb_symbol_table_insert(symtab, "x"));
    CHECK(!sym->created);
    json_t *nu = jsonx_from_string("[\"named-uuid\",\"x\"]", NULL);
    struct ovsdb_datum d;
    CHECK(!ovsdb_datum_from_json(&d, &u, nu, symtab));
    CHECK(uuid_equals(&d.keys[0].uuid, &sym->uuid));
    ovsdb_datum_destroy(&d, &u);
    struct ovsdb_error *error = ovsdb_datum_from_json(&d, &u, nu, NULL);
    CHECK(error && ovsdb_error_get_tag(error) == OVSDB_E_SYNTAX);
    ovsdb_error_destroy(error);
    json_decref(nu);
    CHECK(!ovsdb_symbol_table_get(symtab, "y"));
    ovsdb_symbol_table_destroy(symtab);

    ovsdb_type_destroy(&u);
}

static void
test_defaults(void)
{
    struct ovsdb_type i = parse_type(i_json);
    struct ovsdb_type ss = parse_type(ss_json);

    struct ovsdb_datum d;
    ovsdb_datum_init_default(&d, &i);
    CHECK(d.n == 1 && d.keys[0].integer == 0);
    CHECK(ovsdb_datum_is_default(&d, &i));
    ovsdb_datum_destroy(&d, &i);
    ovsdb_datum_init_default(&d, &ss);
    CHECK(d.n == 0 && ovsdb_datum_is_default(&d, &ss));
    ovsdb_datum_destroy(&d, &ss);

    ovsdb_type_destroy(&i);
    ovsdb_type_destroy(&ss);
}

/* Union, subtraction and inclusion on sets; on maps, by pairs or by keys;
 * put, find and remove. */
static void
test_set_operations(void)
{
    struct ovsdb_type ss = parse_type(ss_json);
    struct ovsdb_type m = parse_type(m_json);

    struct ovsdb_datum a = parse_datum(&ss, "[\"set\",[\"a\",\"c\",\"e\"]]");
    struct ovsdb_datum bb = parse_datum(&ss, "[\"set\",[\"b\",\"c\",\"f\"]]");
    ovsdb_datum_union(&a, &bb, &ss);
    char *str = datum_string(&a, &ss);
    CHECK_STREQ(str, "[a, b, c, e, f]");
    free(str);
    CHECK(ovsdb_datum_includes_all(&bb, &a, &ss));
    CHECK(!ovsdb_datum_includes_all(&a, &bb, &ss));
    ovsdb_datum_subtract(&a, &ss, &bb, &ss);
    str = datum_string(&a, &ss);
    CHECK_STREQ(str, "[a, e]");
    free(str);
    CHECK(ovsdb_datum_excludes_all(&bb, &a, &ss));
    ovsdb_datum_destroy(&a, &ss);
    ovsdb_datum_destroy(&bb, &ss);

    struct ovsdb_datum mm = parse_datum(&m, "[\"map\",[[\"a\",1],[\"b\",2]]]");
    struct ovsdb_datum mk = parse_datum(&m, "[\"map\",[[\"a\",9],[\"c\",3]]]");
    ovsdb_datum_union(&mm, &mk, &m);     /* Existing keys keep values. */
    str = datum_string(&mm, &m);
    CHECK_STREQ(str, "{a=1, b=2, c=3}");
    free(str);
    ovsdb_datum_subtract(&mm, &m, &mk, &m);   /* Only matching pairs. */
    str = datum_string(&mm, &m);
    CHECK_STREQ(str, "{a=1, b=2}");
    free(str);
    struct ovsdb_type keys = m;
    keys.value.type = OVSDB_TYPE_VOID;
    struct ovsdb_datum ks = parse_datum(&keys, "[\"set\",[\"a\"]]");
    ovsdb_datum_subtract(&mm, &m, &ks, &keys);     /* By key. */
    str = datum_string(&mm, &m);
    CHECK_STREQ(str, "{b=2}");
    free(str);
    union ovsdb_atom k, v;
    ovsdb_atom_init_string(&k, "a", 1);
    v.integer = 7;
    ovsdb_datum_put(&mm, &k, &v, &m);
    v.integer = 8;
    ovsdb_datum_put(&mm, &k, &v, &m);
    str = datum_string(&mm, &m);
    CHECK_STREQ(str, "{a=8, b=2}");
    free(str);
    CHECK(ovsdb_datum_find_key(&mm, &k, OVSDB_TYPE_STRING) == 0);
    ovsdb_datum_remove(&mm, 0, &m);
    CHECK(ovsdb_datum_find_key(&mm, &k, OVSDB_TYPE_STRING) == UINT_MAX);
    ovsdb_atom_destroy(&k, OVSDB_TYPE_STRING);
    ovsdb_datum_destroy(&mm, &m);
    ovsdb_datum_destroy(&mk, &m);
    ovsdb_datum_destroy(&ks, &keys);

    ovsdb_type_destroy(&ss);
    ovsdb_type_destroy(&m);
}

/* Diffs: sets are symmetric differences; maps carry removed keys with
 * old values and added/changed keys with new values. */
static void
test_diffs(void)
{
    struct ovsdb_type ss = parse_type(ss_json);
    struct ovsdb_type m = parse_type(m_json);

    check_diff(&ss, "[\"set\",[\"a\",\"b\"]]", "[\"set\",[\"b\",\"c\"]]",
               "[a, c]");
    check_diff(&ss, "[\"set\",[]]", "[\"set\",[\"x\"]]", "[x]");
    check_diff(&ss, "[\"set\",[\"x\"]]", "[\"set\",[\"x\"]]", "[]");
    check_diff(&m, "[\"map\",[[\"k\",1]]]",
               "[\"map\",[[\"k\",2],[\"j\",3]]]", "{j=3, k=2}");
    check_diff(&m, "[\"map\",[[\"k\",1],[\"z\",5]]]",
               "[\"map\",[[\"k\",1]]]", "{z=5}");

    ovsdb_type_destroy(&ss);
    ovsdb_type_destroy(&m);
}

/* Randomized diff round trips. */
static void
test_random_diffs(void)
{
    struct ovsdb_type m = parse_type(m_json);

    srand(1);
    for (int iter = 0; iter < 200; iter++) {
        struct ovsdb_datum x = OVSDB_DATUM_EMPTY_INITIALIZER;
        struct ovsdb_datum y = OVSDB_DATUM_EMPTY_INITIALIZER;
        struct ovsdb_type mi = m;
        mi.key.type = OVSDB_TYPE_INTEGER;
        for (int j = 0; j < 20; j++) {
            union ovsdb_atom key = { .integer = rand() % 30 };
            union ovsdb_atom value = { .integer = rand() % 3 };
            ovsdb_datum_put(rand() % 2 ? &x : &y, &key, &value, &mi);
        }
        struct ovsdb_datum diff, back;
        ovsdb_datum_diff(&diff, &x, &y, &mi);
        CHECK(!ovsdb_datum_apply_diff(&back, &x, &diff, &mi));
        CHECK(ovsdb_datum_equals(&back, &y, &mi));
        ovsdb_datum_destroy(&back, &mi);
        ovsdb_datum_destroy(&diff, &mi);
        ovsdb_datum_destroy(&x, &mi);
        ovsdb_datum_destroy(&y, &mi);
    }

    ovsdb_type_destroy(&m);
}

/* Size check after a mutation-like change. */
static void
test_check_size(void)
{
    struct ovsdb_type s12 = parse_type(s12_json);

    struct ovsdb_datum empty = OVSDB_DATUM_EMPTY_INITIALIZER;
    struct ovsdb_error *error = ovsdb_datum_check_size(&empty, &s12);
    CHECK(error && ovsdb_error_get_tag(error) == OVSDB_E_CONSTRAINT);
    ovsdb_error_destroy(error);

    ovsdb_type_destroy(&s12);
}

static void
test_text_forms(void)
{
    struct ovsdb_type ss = parse_type(ss_json);

    struct ovsdb_datum t = parse_datum(&ss,
                                       "[\"set\",[\"\",\"1\",\"a_b-c.d\"]]");
    char *str = datum_string(&t, &ss);
    CHECK_STREQ(str, "[\"\", \"1\", a_b-c.d]");
    free(str);
    ovsdb_datum_destroy(&t, &ss);

    ovsdb_type_destroy(&ss);
}

/* Datums whose one key lives in caller storage (as rows do). */
static void
test_inline_key(void)
{
    struct ovsdb_type ss = parse_type(ss_json);

    union ovsdb_atom slot;
    struct ovsdb_datum one = parse_datum(&ss, "\"one\"");
    struct ovsdb_datum in;
    ovsdb_datum_clone_inline(&in, &one, &slot, &ss);
    CHECK(in.keys == &slot && in.keys_inline);
    struct ovsdb_datum two = parse_datum(&ss, "[\"set\",[\"a\",\"b\"]]");
    ovsdb_datum_replace(&in, &two, &ss);          /* Needs the heap. */
    CHECK(in.keys != &slot && !in.keys_inline && in.n == 2);
    ovsdb_datum_destroy(&in, &ss);
    ovsdb_datum_clone_inline(&in, &one, &slot, &ss);
    struct ovsdb_datum tmp = parse_datum(&ss, "\"x\"");
    ovsdb_datum_move(&in, &tmp, &ss);             /* Reuses the slot. */
    CHECK(in.keys == &slot && tmp.n == 0);
    char *str = datum_string(&in, &ss);
    CHECK_STREQ(str, "[x]");
    free(str);
    union ovsdb_atom key;
    ovsdb_atom_init_string(&key, "y", 1);
    ovsdb_datum_put(&in, &key, NULL, &ss);        /* Grows to the heap. */
    CHECK(!in.keys_inline && in.n == 2);
    ovsdb_atom_destroy(&key, OVSDB_TYPE_STRING);
    ovsdb_datum_destroy(&in, &ss);
    ovsdb_datum_clone_inline(&in, &one, &slot, &ss);
    ovsdb_datum_remove(&in, 0, &ss);              /* Empties the slot. */
    CHECK(in.n == 0 && !in.keys && !in.keys_inline);
    ovsdb_datum_clone_inline(&in, &one, &slot, &ss);
    ovsdb_datum_union(&in, &two, &ss);
    CHECK(!in.keys_inline && in.n == 3);
    ovsdb_datum_destroy(&in, &ss);
    ovsdb_datum_destroy(&one, &ss);
    ovsdb_datum_destroy(&two, &ss);

    ovsdb_type_destroy(&ss);
}

/* A map keeps its values right after its keys (one array): random puts and
 * removes against a plain array, and an unsorted map sorted on parsing,
 * check that the values move with their keys. */
static void
test_map_layout(void)
{
    struct ovsdb_type m = parse_type(m_json);
    struct ovsdb_type mi = m;
    mi.key.type = OVSDB_TYPE_INTEGER;

    if (sizeof(void *) == 8) {
        CHECK(sizeof(struct ovsdb_datum) == 16);
    }

    struct ovsdb_datum d = OVSDB_DATUM_EMPTY_INITIALIZER;
    /* ref[i] is the value of key i, or -1. */
    int ref[16];
    for (size_t i = 0; i < ARRAY_SIZE(ref); i++) {
        ref[i] = -1;
    }
    srand(2);
    for (int iter = 0; iter < 2000; iter++) {
        union ovsdb_atom key = { .integer = rand() % ARRAY_SIZE(ref) };
        union ovsdb_atom value = { .integer = rand() % 1000 };
        unsigned int idx = ovsdb_datum_find_key(&d, &key, OVSDB_TYPE_INTEGER);
        if (rand() % 3 || idx == UINT_MAX) {
            ovsdb_datum_put(&d, &key, &value, &mi);
            ref[key.integer] = value.integer;
        } else {
            ovsdb_datum_remove(&d, idx, &mi);
            ref[key.integer] = -1;
        }
        const union ovsdb_atom *values = ovsdb_datum_values(&d);
        unsigned int n = 0;
        for (size_t i = 0; i < ARRAY_SIZE(ref); i++) {
            if (ref[i] >= 0) {
                CHECK(n < d.n && d.keys[n].integer == (int64_t) i);
                CHECK(values == d.keys + d.n && values[n].integer == ref[i]);
                n++;
            }
        }
        CHECK(n == d.n);
    }
    ovsdb_datum_destroy(&d, &mi);

    d = parse_datum(&m, "[\"map\",[[\"c\",3],[\"a\",1],[\"d\",4],"
                        "[\"b\",2]]]");
    char *str = datum_string(&d, &m);
    CHECK_STREQ(str, "{a=1, b=2, c=3, d=4}");
    free(str);
    ovsdb_datum_destroy(&d, &m);

    ovsdb_type_destroy(&m);
}

/* Strings of up to OVSDB_INLINE_STRING_MAX bytes live in the atom, longer
 * ones on the heap: both kinds read, compare, hash, sort and serialize
 * alike, and a set mixing them stays sorted. */
static void
test_inline_strings(void)
{
    static const char *const strs[] = {
        "",
        "a",
        "0123456789abc",
        "0123456789abcd",
        "0123456789abcde",
        "a string well over sixteen bytes long",
        "tab\there",
        "z",
    };
    struct ovsdb_type s = parse_type("{\"key\":\"string\",\"min\":0,"
                                     "\"max\":\"unlimited\"}");
    union ovsdb_atom atoms[ARRAY_SIZE(strs)];
    for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
        ovsdb_atom_init_string(&atoms[i], strs[i], strlen(strs[i]));
        size_t len = strlen(strs[i]);
        CHECK(ovsdb_atom_string_is_inline(&atoms[i])
              == (OVSDB_INLINE_STRING_MAX && len <= OVSDB_INLINE_STRING_MAX));
        CHECK_STREQ(ovsdb_atom_string(&atoms[i]), strs[i]);
        CHECK(ovsdb_atom_string_length(&atoms[i]) == len);

        /* A copy equals, hashes and sorts as the original; a string one
         * byte longer sorts after it whichever kind each is. */
        union ovsdb_atom copy;
        ovsdb_atom_clone(&copy, &atoms[i], OVSDB_TYPE_STRING);
        CHECK(ovsdb_atom_equals(&copy, &atoms[i], OVSDB_TYPE_STRING));
        CHECK(ovsdb_atom_hash(&copy, OVSDB_TYPE_STRING, 7)
              == ovsdb_atom_hash(&atoms[i], OVSDB_TYPE_STRING, 7));
        char *longer = xasprintf("%sx", strs[i]);
        union ovsdb_atom l;
        ovsdb_atom_init_string(&l, longer, strlen(longer));
        CHECK(ovsdb_atom_compare_3way(&atoms[i], &l, OVSDB_TYPE_STRING) < 0);
        CHECK(ovsdb_atom_compare_3way(&l, &atoms[i], OVSDB_TYPE_STRING) > 0);
        ovsdb_atom_destroy(&l, OVSDB_TYPE_STRING);
        free(longer);
        ovsdb_atom_destroy(&copy, OVSDB_TYPE_STRING);
        ovsdb_atom_destroy(&atoms[i], OVSDB_TYPE_STRING);
    }

    /* Through JSON: 14 bytes fit, 15 do not, an escape is decoded, and
     * the text comes back the same. */
    const char *json = "[\"set\",[\"0123456789abcde\",\"\",\"x\\ty\","
                       "\"0123456789abcd\",\"a string well over sixteen "
                       "bytes long\"]]";
    struct ovsdb_datum d = parse_datum(&s, json);
    CHECK(d.n == 5);
    CHECK(ovsdb_atom_string_length(&d.keys[0]) == 0);
    CHECK(ovsdb_atom_string_length(&d.keys[1]) == 14);
    CHECK(ovsdb_atom_string_length(&d.keys[2]) == 15);
    CHECK(!ovsdb_atom_string_is_inline(&d.keys[2]));
    CHECK_STREQ(ovsdb_atom_string(&d.keys[4]), "x\ty");
    for (unsigned int i = 1; i < d.n; i++) {
        CHECK(ovsdb_atom_compare_3way(&d.keys[i - 1], &d.keys[i],
                                      OVSDB_TYPE_STRING)
              < 0);
    }
    struct ovsdb_datum c;
    ovsdb_datum_clone(&c, &d, &s);
    CHECK(ovsdb_datum_equals(&c, &d, &s));
    json_t *back = ovsdb_datum_to_json(&c, &s);
    struct ovsdb_datum e;
    struct ovsdb_error *error = ovsdb_datum_from_json(&e, &s, back, NULL);
    CHECK(!error);
    CHECK(ovsdb_datum_equals(&e, &d, &s));
    json_decref(back);
    ovsdb_datum_destroy(&e, &s);
    ovsdb_datum_destroy(&c, &s);
    ovsdb_datum_destroy(&d, &s);
    ovsdb_type_destroy(&s);
}

static const struct check_case cases[] = {
    CHECK_CASE(test_atoms),          CHECK_CASE(test_constraints),
    CHECK_CASE(test_sets_and_maps),  CHECK_CASE(test_serializer),
    CHECK_CASE(test_named_uuid),     CHECK_CASE(test_defaults),
    CHECK_CASE(test_set_operations), CHECK_CASE(test_diffs),
    CHECK_CASE(test_random_diffs),   CHECK_CASE(test_check_size),
    CHECK_CASE(test_text_forms),     CHECK_CASE(test_inline_key),
    CHECK_CASE(test_map_layout),     CHECK_CASE(test_inline_strings),
};

int
main(int argc, char *argv[])
{
    return check_main(argc, argv, "test-datum", cases, ARRAY_SIZE(cases));
}
