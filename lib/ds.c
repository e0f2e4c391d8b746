/* lib/ds.c: see ds.h. */
#include <config.h>
#include "lib/ds.h"

#include <stdio.h>
#include <string.h>
#include "lib/allocator.h"

void
ds_init(struct ds *ds)
{
    ds->string = NULL;
    ds->length = 0;
    ds->allocated = 0;
}

void
ds_clear(struct ds *ds)
{
    ds->length = 0;
    if (ds->string) {
        ds->string[0] = '\0';
    }
}

void
ds_truncate(struct ds *ds, size_t new_length)
{
    if (ds->length > new_length) {
        ds->length = new_length;
        ds->string[new_length] = '\0';
    }
}

void
ds_reserve(struct ds *ds, size_t min_length)
{
    if (min_length > ds->allocated || !ds->string) {
        ds->allocated += MAX(min_length, ds->allocated);
        ds->allocated = MAX(8, ds->allocated);
        ds->string = xrealloc(ds->string, ds->allocated + 1);
    }
}

char *
ds_put_uninit(struct ds *ds, size_t n)
{
    ds_reserve(ds, ds->length + n);
    ds->length += n;
    ds->string[ds->length] = '\0';
    return &ds->string[ds->length - n];
}

void
ds_put_char(struct ds *ds, char c)
{
    *ds_put_uninit(ds, 1) = c;
}

void
ds_put_char_multiple(struct ds *ds, char c, size_t n)
{
    memset(ds_put_uninit(ds, n), c, n);
}

void
ds_put_buffer(struct ds *ds, const char *s, size_t n)
{
    memcpy(ds_put_uninit(ds, n), s, n);
}

void
ds_put_cstr(struct ds *ds, const char *s)
{
    ds_put_buffer(ds, s, strlen(s));
}

void
ds_put_format_valist(struct ds *ds, const char *fmt, va_list args_)
{
    va_list args;
    va_copy(args, args_);
    size_t available = ds->string ? ds->allocated - ds->length + 1 : 0;
    int needed = vsnprintf(ds->string ? &ds->string[ds->length] : NULL,
                           available, fmt, args);
    va_end(args);
    if (needed < 0) {
        return;
    }
    if ((size_t) needed < available) {
        ds->length += needed;
    } else {
        ds_reserve(ds, ds->length + needed);
        va_copy(args, args_);
        vsnprintf(&ds->string[ds->length], needed + 1, fmt, args);
        va_end(args);
        ds->length += needed;
    }
}

void
ds_put_format(struct ds *ds, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    ds_put_format_valist(ds, fmt, args);
    va_end(args);
}

void
ds_chomp(struct ds *ds, int c)
{
    if (ds->length > 0 && ds->string[ds->length - 1] == (char) c) {
        ds->string[--ds->length] = '\0';
    }
}

char *
ds_cstr(struct ds *ds)
{
    if (!ds->string) {
        ds_reserve(ds, 0);
        ds->string[0] = '\0';
    }
    return ds->string;
}

char *
ds_steal_cstr(struct ds *ds)
{
    char *s = ds_cstr(ds);
    ds_init(ds);
    return s;
}

void
ds_destroy(struct ds *ds)
{
    if (ds) {
        free(ds->string);
    }
}
