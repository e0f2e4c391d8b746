/* lib/json-util.h: generic helpers around jansson ("jsonx_": "json_" is
 * jansson's prefix).
 *
 * Knows nothing of OVSDB.  Serialization here is deterministic: object
 * members are sorted by name and numbers are printed the way Open vSwitch
 * prints them (integers as integers, reals with "%.15g"), so output can be
 * compared byte for byte with the reference's.  Parsing reads numbers as
 * Open vSwitch does: an integral value in int64_t range is an integer
 * however it is spelled ("1.0", "1e3"), anything else is a real. */
#ifndef LIB_JSON_UTIL_H
#define LIB_JSON_UTIL_H 1

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "lib/ds.h"

/* Appends 'json' in compact form, object members sorted by name, to 'out'.
 * Strings are escaped as Open vSwitch does (only '"', '\\' and control
 * characters; non-ASCII UTF-8 is copied as is). */
void jsonx_put(struct ds *out, const json_t *json);

/* Same as jsonx_put() but reals get as many digits as they need (up to
 * 17) to read back exactly: for files, where "%.15g" would change values
 * (and turn -DBL_MAX into an unreadable -1.79769313486232e+308). */
void jsonx_put_exact(struct ds *out, const json_t *json);

/* Same as jsonx_put() but "pretty": 'indent' spaces per level (4 in
 * ovsdb-client and ovsdb-tool). */
void jsonx_put_pretty(struct ds *out, const json_t *json, int indent);

/* Returns 'json' as a compact, sorted string; caller must free with
 * free(). */
char *jsonx_to_string_sorted(const json_t *json);

/* Append one JSON string ('length' bytes of 's', escaped as jsonx_put()
 * does) or integer to 'out': for writers that serialize their own data
 * without building a json_t. */
void jsonx_put_string(struct ds *out, const char *s, size_t length);
void jsonx_put_integer(struct ds *out, long long value);

/* Appends a real number formatted as Open vSwitch does: "%.*g" with
 * DBL_DIG (15) significant digits, so 1.0 is written "1". */
void jsonx_put_real(struct ds *out, double d);

/* Parses 'length' bytes of 's' as one JSON value (any type, not only
 * objects/arrays).  Returns a new reference, or NULL and a malloc'd message
 * in '*errorp' (caller must free with free()). */
json_t *jsonx_from_buffer(const char *s, size_t length, char **errorp);

/* Drop-in replacement for jansson's json_loadb() with Open vSwitch's number
 * rules (see above).  'flags' and 'error' are json_loadb()'s.  Equal short
 * strings and equal integers in the result may be one shared value (do not
 * modify them in place): a big request then takes less memory.  The
 * common case has its own parser; jansson parses what it does not accept
 * and reports the errors. */
json_t *jsonx_loadb(const char *s, size_t length, size_t flags,
                    json_error_t *error);

/* Lazy arrays: a big array kept as its text, each element parsed only when
 * asked for, so that a consumer that handles the elements one at a time
 * (a big "transact" request's operations) never holds the whole tree.
 *
 * jsonx_loadb_lazy() parses 'length' bytes of 's' as one JSON object, as
 * jsonx_loadb() would, except that its member named 'member', if that is
 * an array, is left out of the object and returned in '*lazyp' (else
 * '*lazyp' is NULL).  The whole text is checked first, so every element
 * will parse.  Returns NULL if the text is not a valid object in the
 * common case's syntax (any error, 'member' twice, jansson-only input):
 * the caller then parses with jsonx_loadb(), which words the error. */
struct jsonx_lazy_array;
json_t *jsonx_loadb_lazy(const char *s, size_t length, const char *member,
                         struct jsonx_lazy_array **lazyp);
size_t jsonx_lazy_array_size(const struct jsonx_lazy_array *);
/* Parses element 'i' now and returns it (new reference), or NULL if 'i' is
 * out of range.  Equal short strings are shared across elements. */
json_t *jsonx_lazy_array_get(struct jsonx_lazy_array *, size_t i);
/* Parses all the elements: the array as jsonx_loadb() would have built it
 * (new reference). */
json_t *jsonx_lazy_array_to_json(struct jsonx_lazy_array *);
void jsonx_lazy_array_destroy(struct jsonx_lazy_array *); /* NULL is fine. */

/* For tests: with 'enable' false, jsonx_loadb() always leaves the parsing
 * to jansson, as a reference to compare with. */
void jsonx_set_fast_parser(bool enable);
json_t *jsonx_from_string(const char *s, char **errorp);

/* Reads the whole file 'path' and parses it as JSON.  Same conventions as
 * jsonx_from_buffer(); an I/O error gives a message naming 'path'. */
json_t *jsonx_from_file(const char *path, char **errorp);

/* Returns the name of 'json''s type as RFC 7047 and Open vSwitch spell it in
 * error messages: "null", "false", "true", "object", "array", "string",
 * "integer", "real". */
const char *jsonx_type_name(const json_t *json);

/* Convenience: true if 'json' is an array whose first element is the
 * string 'tag' and which has exactly 'n' elements. */
bool jsonx_is_tagged_array(const json_t *json, const char *tag, size_t n);

/* Returns a new reference to the array ["tag", value], stealing 'value'. */
json_t *jsonx_tagged_new(const char *tag, json_t *value);

/* Returns the member names of object 'json', sorted by strcmp(), and their
 * number in '*np'.  The names are borrowed from 'json'; caller must free
 * the array with free(). */
const char **jsonx_sorted_keys(const json_t *json, size_t *np);

/* Object member access that returns NULL for non-objects. */
json_t *jsonx_object_get(const json_t *object, const char *name);

#endif /* lib/json-util.h */
