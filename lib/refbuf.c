/* lib/refbuf.c: see refbuf.h. */
#include <config.h>

#include "lib/refbuf.h"

#include <stdlib.h>
#include "lib/allocator.h"
#include "lib/ds.h"

struct refbuf *
refbuf_from_ds(struct ds *text)
{
    struct refbuf *b = xmalloc(sizeof *b);
    b->size = text->length;
    b->data = ds_steal_cstr(text);
    b->n_refs = 1;
    b->weak = NULL;
    return b;
}

struct refbuf *
refbuf_ref(struct refbuf *b)
{
    b->n_refs++;
    return b;
}

void
refbuf_unref(struct refbuf *b)
{
    if (b && !--b->n_refs) {
        if (b->weak) {
            *b->weak = NULL;
        }
        free((char *) b->data);
        free(b);
    }
}

void
refbuf_set_weak(struct refbuf *b, struct refbuf **weak)
{
    b->weak = weak;
}
