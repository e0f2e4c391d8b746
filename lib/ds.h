/* lib/ds.h: growable strings ("dynamic strings").
 *
 *     struct ds s = DS_EMPTY_INITIALIZER;
 *     ds_put_format(&s, "%d rows", n);
 *     puts(ds_cstr(&s));
 *     ds_destroy(&s);
 */
#ifndef LIB_DS_H
#define LIB_DS_H 1

#include <stdarg.h>
#include <stddef.h>
#include "lib/util.h"

struct ds {
    char *string;       /* Null-terminated, or NULL when nothing allocated. */
    size_t length;      /* Bytes used, not counting the null. */
    size_t allocated;   /* Bytes allocated, not counting the null. */
};

#define DS_EMPTY_INITIALIZER { NULL, 0, 0 }

void ds_init(struct ds *);
void ds_clear(struct ds *);
void ds_truncate(struct ds *, size_t new_length);
void ds_reserve(struct ds *, size_t min_length);
char *ds_put_uninit(struct ds *, size_t n);
void ds_put_char(struct ds *, char);
void ds_put_char_multiple(struct ds *, char, size_t n);
void ds_put_buffer(struct ds *, const char *, size_t n);
void ds_put_cstr(struct ds *, const char *);
void ds_put_format(struct ds *, const char *, ...) PRINTF_FORMAT(2, 3);
void ds_put_format_valist(struct ds *, const char *, va_list);
void ds_chomp(struct ds *, int c);   /* Removes a trailing 'c', if any. */

/* Returns the string, never NULL; borrowed (valid until the next change). */
char *ds_cstr(struct ds *);
/* Returns the string and resets 'ds'; caller must free with free(). */
char *ds_steal_cstr(struct ds *);
void ds_destroy(struct ds *);

#endif /* lib/ds.h */
