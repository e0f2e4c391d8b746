/* ovsdb/format/raft-record.c: see raft-record.h. */
#include <config.h>

#include "ovsdb/format/raft-record.h"

#include <stdlib.h>
#include <string.h>
#include "lib/allocator.h"
#include "lib/ds.h"
#include "lib/hash.h"
#include "lib/hmap.h"
#include "lib/json-util.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/engine/parser.h"

/* ---------------------------------------------------------------------
 * Writing objects in the reference's member order.
 *
 * The reference's JSON objects are hash maps keyed by member name (with
 * hash_string(name, 0)), printed in bucket order; our hmap works as its
 * does, so inserting the names in the order the reference puts them and
 * walking the map gives its order. */

#define MAX_MEMBERS 16

struct member {
    struct hmap_node node;
    const char *name;
    struct ds value;            /* JSON text. */
};

struct object_writer {
    struct member members[MAX_MEMBERS];
    size_t n;
};

/* Adds member 'name' (a string constant or one that outlives 'w') and
 * returns the buffer to append its value's text to. */
static struct ds *
add_member(struct object_writer *w, const char *name)
{
    struct member *m = &w->members[w->n++];
    m->name = name;
    ds_init(&m->value);
    return &m->value;
}

static void
add_uint64(struct object_writer *w, const char *name, uint64_t value)
{
    /* The reference keeps integers as long long: 2**63 and up wrap. */
    jsonx_put_integer(add_member(w, name), (long long) value);
}

static void
add_string(struct object_writer *w, const char *name, const char *s)
{
    jsonx_put_string(add_member(w, name), s, strlen(s));
}

static void
add_uuid(struct object_writer *w, const char *name, const struct uuid *u)
{
    char s[UUID_LEN + 1];
    uuid_to_string(u, s);
    add_string(w, name, s);
}

/* Appends the names and values of 'n' members to 'out' as an object, in
 * the order in which the reference's hash map of them lists them when
 * they are inserted in order (names[0] first). */
static void
put_in_reference_order(struct ds *out, size_t n, const char **names,
                       struct ds **values)
{
    struct hmap_node small[MAX_MEMBERS];
    struct hmap_node *nodes = n <= MAX_MEMBERS ? small
                              : xmalloc(n * sizeof *nodes);
    struct hmap map = HMAP_INITIALIZER(&map);
    for (size_t i = 0; i < n; i++) {
        hmap_insert(&map, &nodes[i], hash_string(names[i], 0));
    }
    ds_put_char(out, '{');
    bool first = true;
    struct hmap_node *node;
    for (node = hmap_first(&map); node; node = hmap_next(&map, node)) {
        size_t i = node - nodes;
        if (!first) {
            ds_put_char(out, ',');
        }
        first = false;
        jsonx_put_string(out, names[i], strlen(names[i]));
        ds_put_char(out, ':');
        ds_put_buffer(out, values[i]->string, values[i]->length);
    }
    ds_put_char(out, '}');
    hmap_destroy(&map);
    if (nodes != small) {
        free(nodes);
    }
}

static void
writer_finish(struct object_writer *w, struct ds *out)
{
    const char *names[MAX_MEMBERS];
    struct ds *values[MAX_MEMBERS];
    for (size_t i = 0; i < w->n; i++) {
        names[i] = w->members[i].name;
        values[i] = &w->members[i].value;
    }
    put_in_reference_order(out, w->n, names, values);
    for (size_t i = 0; i < w->n; i++) {
        ds_destroy(&w->members[i].value);
    }
    w->n = 0;
}

/* Appends a servers object (string members only, as validated) in the
 * reference's order for members inserted in 'servers''s order. */
static void
put_servers(struct ds *out, const json_t *servers)
{
    size_t n = json_object_size(servers);
    const char **names = xmalloc((n + 1) * sizeof *names);
    struct ds **values = xmalloc((n + 1) * sizeof *values);
    struct ds *texts = xmalloc((n + 1) * sizeof *texts);
    const char *key;
    json_t *value;
    size_t i = 0;
    json_object_foreach ((json_t *) servers, key, value) {
        names[i] = key;
        ds_init(&texts[i]);
        jsonx_put(&texts[i], value);
        values[i] = &texts[i];
        i++;
    }
    put_in_reference_order(out, n, names, values);
    for (i = 0; i < n; i++) {
        ds_destroy(&texts[i]);
    }
    free(texts);
    free(values);
    free(names);
}

void
raft_addresses_order(char *const *addresses, size_t n, int n_copies,
                     size_t *order)
{
    struct hmap_node *nodes = xmalloc((n + 1) * sizeof *nodes);
    struct hmap map = HMAP_INITIALIZER(&map);
    for (size_t i = 0; i < n; i++) {
        hmap_insert(&map, &nodes[i], hash_string(addresses[i], 0));
        order[i] = i;
    }
    for (int c = 0; c <= n_copies; c++) {
        size_t i = 0;
        for (struct hmap_node *node = hmap_first(&map); node;
             node = hmap_next(&map, node)) {
            order[i++] = node - nodes;
        }
        if (c == n_copies) {
            break;
        }
        /* A copy: a map sized for them, filled in this order. */
        hmap_destroy(&map);
        hmap_init(&map);
        hmap_reserve(&map, n);
        for (i = 0; i < n; i++) {
            hmap_insert(&map, &nodes[order[i]], nodes[order[i]].hash);
        }
    }
    hmap_destroy(&map);
    free(nodes);
}

/* Appends the array of addresses as the reference writes a joining
 * header: its set of them, built in order, then copied once. */
static void
put_addresses(struct ds *out, char **addresses, size_t n)
{
    size_t *order = xmalloc((n + 1) * sizeof *order);
    raft_addresses_order(addresses, n, 1, order);
    ds_put_char(out, '[');
    for (size_t i = 0; i < n; i++) {
        const char *s = addresses[order[i]];
        if (i) {
            ds_put_char(out, ',');
        }
        jsonx_put_string(out, s, strlen(s));
    }
    ds_put_char(out, ']');
    free(order);
}

/* The reference serializes DATA once, with sorted members. */
static void
put_data(struct ds *out, const json_t *data)
{
    jsonx_put_exact(out, data);
}

void
raft_data_put_json(struct ds *out, const json_t *data)
{
    put_data(out, data);
}

void
raft_data_put(struct ds *out, const json_t *schema, const json_t *txn)
{
    ds_put_char(out, '[');
    if (schema) {
        put_data(out, schema);
    } else {
        ds_put_cstr(out, "null");
    }
    ds_put_char(out, ',');
    if (txn) {
        put_data(out, txn);
    } else {
        ds_put_cstr(out, "null");
    }
    ds_put_char(out, ']');
}

/* ---------------------------------------------------------------------
 * Parsing helpers, with the reference's checks and wording. */

static uint64_t
parse_uint64(struct ovsdb_parser *p, const char *name, bool optional)
{
    const json_t *j = ovsdb_parser_member(
        p, name, OP_INTEGER | (optional ? OP_OPTIONAL : 0));
    return j ? (uint64_t) json_integer_value(j) : 0;
}

static const char *
parse_string(struct ovsdb_parser *p, const char *name, bool optional)
{
    const json_t *j = ovsdb_parser_member(
        p, name, OP_STRING | (optional ? OP_OPTIONAL : 0));
    return j ? json_string_value(j) : NULL;
}

/* Returns true if member 'name' is present and a valid UUID. */
static bool
parse_uuid(struct ovsdb_parser *p, const char *name, bool optional,
           struct uuid *u)
{
    const char *s = parse_string(p, name, optional);
    if (s) {
        if (uuid_from_string(u, s)) {
            return true;
        }
        ovsdb_parser_raise_error(p, "%s is not a valid UUID", name);
    }
    uuid_zero(u);
    return false;
}

static char *
nullable_xstrdup(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* Returns a new reference to 'j' (NULL for NULL): parsed records share
 * their values with the JSON they came from, which nobody modifies, so a
 * big snapshot is not copied. */
static json_t *
nullable_copy(const json_t *j)
{
    return j ? json_incref((json_t *) j) : NULL;
}

/* Checks "IP:PORT", "[IPV6]:PORT" or "NAME:PORT" (a name that does not
 * resolve is fine, as in the reference). */
static bool
is_host_port(const char *s)
{
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    const char *colon;
    if (*s == '[') {
        const char *close = strchr(s, ']');
        if (!close || close == s + 1 || close[1] != ':') {
            return false;
        }
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon || colon == s || memchr(s, ':', colon - s)) {
            return false;
        }
    }
    const char *port = colon + 1;
    if (!*port || strlen(port) > 5) {
        return false;
    }
    long value = 0;
    for (const char *c = port; *c; c++) {
        if (*c < '0' || *c > '9') {
            return false;
        }
        value = value * 10 + (*c - '0');
    }
    return value <= 65535;
}

struct ovsdb_error *
raft_address_validate(const char *address)
{
    if (!strncmp(address, "unix:", 5)) {
        return NULL;
    } else if (!strncmp(address, "ssl:", 4) || !strncmp(address, "tcp:", 4)) {
        if (!is_host_port(address + 4)) {
            return ovsdb_error(OVSDB_E_OVSDB, "%s: syntax error in address",
                               address);
        }
        return NULL;
    }
    return ovsdb_error(OVSDB_E_OVSDB, "%s: expected \"tcp\" or \"ssl\" "
                       "address", address);
}

static struct ovsdb_error *
address_validate_json(const json_t *address)
{
    if (!json_is_string(address)) {
        return ovsdb_syntax_error(address, OVSDB_E_SYNTAX,
                                  "server address is not string");
    }
    return raft_address_validate(json_string_value(address));
}

struct ovsdb_error *
raft_servers_validate(const json_t *servers)
{
    if (!json_is_object(servers)) {
        return ovsdb_syntax_error(servers, OVSDB_E_SYNTAX,
                                  "servers must be JSON object");
    } else if (!json_object_size(servers)) {
        return ovsdb_syntax_error(servers, OVSDB_E_SYNTAX,
                                  "must have at least one server");
    }
    const char *key;
    json_t *value;
    json_object_foreach ((json_t *) servers, key, value) {
        struct uuid sid;
        if (!uuid_from_string(&sid, key)) {
            return ovsdb_syntax_error(servers, OVSDB_E_SYNTAX,
                                      "%s is not a UUID", key);
        }
        struct ovsdb_error *error = address_validate_json(value);
        if (error) {
            return error;
        }
    }
    return NULL;
}

json_t *
raft_servers_single(const struct uuid *sid, const char *address)
{
    char s[UUID_LEN + 1];
    uuid_to_string(sid, s);
    json_t *servers = json_object();
    json_object_set_new(servers, s, json_string(address));
    return servers;
}

bool
raft_servers_contain(const json_t *servers, const struct uuid *sid)
{
    char s[UUID_LEN + 1];
    uuid_to_string(sid, s);
    return servers && json_object_get(servers, s) != NULL;
}

/* Parses an optional servers member into '*serversp'. */
static void
parse_servers(struct ovsdb_parser *p, const char *name, bool optional,
              json_t **serversp)
{
    const json_t *j = ovsdb_parser_member(
        p, name, OP_OBJECT | (optional ? OP_OPTIONAL : 0));
    *serversp = nullable_copy(j);
    if (j) {
        ovsdb_parser_put_error(p, raft_servers_validate(j));
    }
}

struct ovsdb_error *
raft_data_split(const json_t *data, const json_t **schemap,
                const json_t **txnp)
{
    *schemap = *txnp = NULL;
    if (!json_is_array(data) || json_array_size(data) != 2) {
        return ovsdb_error(OVSDB_E_OVSDB, "invalid commit format");
    }
    const json_t *schema = json_array_get(data, 0);
    const json_t *txn = json_array_get(data, 1);
    *schemap = json_is_null(schema) ? NULL : schema;
    *txnp = json_is_null(txn) ? NULL : txn;
    return NULL;
}

/* ---------------------------------------------------------------------
 * Entries. */

void
raft_entry_clone(struct raft_entry *dst, const struct raft_entry *src)
{
    dst->term = src->term;
    dst->data = nullable_copy(src->data);
    dst->eid = src->eid;
    dst->servers = nullable_copy(src->servers);
    dst->election_timer = src->election_timer;
}

void
raft_entry_destroy(struct raft_entry *e)
{
    if (e) {
        json_decref(e->data);
        json_decref(e->servers);
        e->data = e->servers = NULL;
    }
}

/* ---------------------------------------------------------------------
 * The header. */

void
raft_header_destroy(struct raft_header *h)
{
    if (!h) {
        return;
    }
    free(h->name);
    free(h->local_address);
    for (size_t i = 0; i < h->n_remote_addresses; i++) {
        free(h->remote_addresses[i]);
    }
    free(h->remote_addresses);
    raft_entry_destroy(&h->snap);
    memset(h, 0, sizeof *h);
}

/* Adds 's' to the set in 'h' unless it is there. */
static void
add_remote(struct raft_header *h, const char *s)
{
    for (size_t i = 0; i < h->n_remote_addresses; i++) {
        if (!strcmp(h->remote_addresses[i], s)) {
            return;
        }
    }
    h->remote_addresses = xrealloc(h->remote_addresses,
                                   (h->n_remote_addresses + 1)
                                   * sizeof *h->remote_addresses);
    h->remote_addresses[h->n_remote_addresses++] = xstrdup(s);
}

static void
parse_remotes(struct ovsdb_parser *p, struct raft_header *h,
              const json_t *array)
{
    if (!json_array_size(array)) {
        ovsdb_parser_put_error(p, ovsdb_syntax_error(
                                   array, OVSDB_E_SYNTAX, "at least one "
                                   "remote address is required"));
        return;
    }
    size_t i;
    json_t *address;
    json_array_foreach (array, i, address) {
        struct ovsdb_error *error = address_validate_json(address);
        if (error) {
            ovsdb_parser_put_error(p, error);
            return;
        }
        if (strcmp(json_string_value(address), h->local_address
                   ? h->local_address : "")) {
            add_remote(h, json_string_value(address));
        }
    }
    if (!h->n_remote_addresses) {
        ovsdb_parser_raise_error(p, "at least one remote address (other "
                                 "than the local address) is required");
    }
}

static void
parse_header(struct ovsdb_parser *p, struct raft_header *h)
{
    parse_uuid(p, "server_id", false, &h->sid);
    h->name = nullable_xstrdup(parse_string(p, "name", false));
    h->local_address = nullable_xstrdup(parse_string(p, "local_address",
                                                     false));

    const json_t *remotes = ovsdb_parser_member(p, "remote_addresses",
                                                OP_ARRAY | OP_OPTIONAL);
    h->joining = remotes != NULL;
    if (h->joining) {
        parse_remotes(p, h, remotes);
    } else {
        parse_servers(p, "prev_servers", false, &h->snap.servers);
        h->snap_index = parse_uint64(p, "prev_index", true);
        if (h->snap_index) {
            h->snap.data = nullable_copy(ovsdb_parser_member(p, "prev_data",
                                                             OP_ANY));
            parse_uuid(p, "prev_eid", false, &h->snap.eid);
            h->snap.term = parse_uint64(p, "prev_term", false);
            h->snap.election_timer = parse_uint64(p, "prev_election_timer",
                                                  true);
        }
    }
    parse_uuid(p, "cluster_id", h->joining, &h->cid);
}

struct ovsdb_error *
raft_header_from_json(struct raft_header *h, const json_t *json)
{
    memset(h, 0, sizeof *h);
    struct ovsdb_parser p;
    ovsdb_parser_init(&p, json, "raft header");
    if (!ovsdb_parser_has_error(&p)) {
        parse_header(&p, h);
    }
    struct ovsdb_error *error = ovsdb_parser_finish(&p);
    if (error) {
        raft_header_destroy(h);
    }
    return error;
}

void
raft_header_put(struct ds *out, const struct raft_header *h)
{
    raft_header_put_data(out, h, NULL, 0);
}

void
raft_header_put_data(struct ds *out, const struct raft_header *h,
                     const char *data, size_t data_size)
{
    struct object_writer w = { .n = 0 };
    add_uuid(&w, "server_id", &h->sid);
    if (!uuid_is_zero(&h->cid)) {
        add_uuid(&w, "cluster_id", &h->cid);
    }
    add_string(&w, "local_address", h->local_address);
    add_string(&w, "name", h->name);
    if (h->n_remote_addresses) {
        put_addresses(add_member(&w, "remote_addresses"),
                      h->remote_addresses, h->n_remote_addresses);
    }
    if (h->snap.servers) {
        put_servers(add_member(&w, "prev_servers"), h->snap.servers);
    }
    if (h->snap_index) {
        add_uint64(&w, "prev_index", h->snap_index);
        add_uint64(&w, "prev_term", h->snap.term);
        if (data) {
            ds_put_buffer(add_member(&w, "prev_data"), data, data_size);
        } else if (h->snap.data) {
            put_data(add_member(&w, "prev_data"), h->snap.data);
        }
        add_uuid(&w, "prev_eid", &h->snap.eid);
        if (h->snap.election_timer) {
            add_uint64(&w, "prev_election_timer", h->snap.election_timer);
        }
    }
    writer_finish(&w, out);
}

static json_t *
text_to_json(const struct ds *text)
{
    char *msg;
    json_t *json = jsonx_from_buffer(text->string, text->length, &msg);
    if (!json) {
        /* Our own output always parses. */
        abort();
    }
    return json;
}

json_t *
raft_header_to_json(const struct raft_header *h)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    raft_header_put(&text, h);
    json_t *json = text_to_json(&text);
    ds_destroy(&text);
    return json;
}

/* ---------------------------------------------------------------------
 * Other records. */

void
raft_record_destroy(struct raft_record *r)
{
    if (!r) {
        return;
    }
    free(r->comment);
    r->comment = NULL;
    switch (r->type) {
    case RAFT_REC_ENTRY:
        raft_entry_destroy(&r->entry.e);
        break;
    case RAFT_REC_NOTE:
        free(r->note);
        r->note = NULL;
        break;
    case RAFT_REC_TERM:
    case RAFT_REC_VOTE:
    case RAFT_REC_COMMIT_INDEX:
    case RAFT_REC_LEADER:
    default:
        break;
    }
}

/* Parses in the reference's order, which decides both the record's type
 * and which members are allowed ("Member 'X' is present but not allowed
 * here" for the others). */
static void
parse_record(struct ovsdb_parser *p, struct raft_record *r)
{
    r->comment = nullable_xstrdup(parse_string(p, "comment", true));

    const char *note = parse_string(p, "note", true);
    if (note) {
        r->type = RAFT_REC_NOTE;
        r->note = xstrdup(note);
        return;
    }

    r->commit_index = parse_uint64(p, "commit_index", true);
    if (r->commit_index) {
        r->type = RAFT_REC_COMMIT_INDEX;
        return;
    }

    r->term = parse_uint64(p, "term", false);

    if (parse_uuid(p, "leader", true, &r->sid)) {
        r->type = RAFT_REC_LEADER;
        if (uuid_is_zero(&r->sid)) {
            ovsdb_parser_raise_error(p, "record says leader is all-zeros "
                                     "SID");
        }
        return;
    }
    if (parse_uuid(p, "vote", true, &r->sid)) {
        r->type = RAFT_REC_VOTE;
        if (uuid_is_zero(&r->sid)) {
            ovsdb_parser_raise_error(p, "record votes for all-zeros SID");
        }
        return;
    }

    uint64_t index = parse_uint64(p, "index", true);
    if (!index) {
        r->type = RAFT_REC_TERM;
        return;
    }
    r->type = RAFT_REC_ENTRY;
    memset(&r->entry, 0, sizeof r->entry);
    r->entry.index = index;
    struct raft_entry *e = &r->entry.e;
    e->term = r->term;
    parse_servers(p, "servers", true, &e->servers);
    e->election_timer = parse_uint64(p, "election_timer", true);
    e->data = nullable_copy(ovsdb_parser_member(
                                p, "data", OP_OBJECT | OP_ARRAY
                                | OP_OPTIONAL));
    if (e->data) {
        parse_uuid(p, "eid", false, &e->eid);
    }
}

struct ovsdb_error *
raft_record_from_json(struct raft_record *r, const json_t *json)
{
    memset(r, 0, sizeof *r);
    r->type = RAFT_REC_TERM;
    struct ovsdb_parser p;
    ovsdb_parser_init(&p, json, "raft log record");
    if (!ovsdb_parser_has_error(&p)) {
        parse_record(&p, r);
    }
    struct ovsdb_error *error = ovsdb_parser_finish(&p);
    if (error) {
        raft_record_destroy(r);
        memset(r, 0, sizeof *r);
    }
    return error;
}

/* Adds the members of an entry record to 'w'. */
static void
add_entry(struct object_writer *w, uint64_t term, uint64_t index,
          const char *data, size_t data_size, const struct uuid *eid,
          const json_t *servers, uint64_t election_timer)
{
    add_uint64(w, "term", term);
    add_uint64(w, "index", index);
    if (data) {
        ds_put_buffer(add_member(w, "data"), data, data_size);
    }
    if (servers) {
        put_servers(add_member(w, "servers"), servers);
    }
    if (election_timer) {
        add_uint64(w, "election_timer", election_timer);
    }
    if (eid && !uuid_is_zero(eid)) {
        add_uuid(w, "eid", eid);
    }
}

void
raft_record_put_entry(struct ds *out, uint64_t term, uint64_t index,
                      const char *data, size_t data_size,
                      const struct uuid *eid, const json_t *servers,
                      uint64_t election_timer)
{
    struct object_writer w = { .n = 0 };
    add_entry(&w, term, index, data, data_size, eid, servers,
              election_timer);
    writer_finish(&w, out);
}

void
raft_record_put(struct ds *out, const struct raft_record *r)
{
    struct object_writer w = { .n = 0 };
    if (r->comment && *r->comment) {
        add_string(&w, "comment", r->comment);
    }
    switch (r->type) {
    case RAFT_REC_ENTRY: {
        const struct raft_entry *e = &r->entry.e;
        struct ds data = DS_EMPTY_INITIALIZER;
        if (e->data) {
            put_data(&data, e->data);
        }
        add_entry(&w, r->term, r->entry.index,
                  e->data ? data.string : NULL, data.length, &e->eid,
                  e->servers, e->election_timer);
        ds_destroy(&data);
        break;
    }
    case RAFT_REC_TERM:
        add_uint64(&w, "term", r->term);
        break;
    case RAFT_REC_VOTE:
        add_uint64(&w, "term", r->term);
        add_uuid(&w, "vote", &r->sid);
        break;
    case RAFT_REC_NOTE:
        add_string(&w, "note", r->note);
        break;
    case RAFT_REC_COMMIT_INDEX:
        add_uint64(&w, "commit_index", r->commit_index);
        break;
    case RAFT_REC_LEADER:
        add_uint64(&w, "term", r->term);
        add_uuid(&w, "leader", &r->sid);
        break;
    default:
        abort();
    }
    writer_finish(&w, out);
}

json_t *
raft_record_to_json(const struct raft_record *r)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    raft_record_put(&text, r);
    json_t *json = text_to_json(&text);
    ds_destroy(&text);
    return json;
}
