/* lib/refbuf.h: immutable bytes shared by reference count.
 *
 * One serialized text (a monitor's initial contents, say) queued on many
 * connections at once without a copy per connection:
 *
 *     struct refbuf *b = refbuf_from_ds(&text);   (takes the string)
 *     jsonrpc_send_shared(rpc, head, 1, b, tail, 1);   (adds a reference)
 *     refbuf_unref(b);
 *
 * A holder that wants to reuse the buffer while someone else still has it,
 * but not keep it alive itself, registers a weak pointer: it is set to NULL
 * when the last reference goes. */
#ifndef LIB_REFBUF_H
#define LIB_REFBUF_H 1

#include <stddef.h>

struct ds;

struct refbuf {
    const char *data; /* 'size' bytes, then a NUL. */
    size_t size;
    /* Private. */
    unsigned int n_refs;
    struct refbuf **weak; /* Cleared with the last reference. */
};

/* Returns a buffer with one reference that takes over the string of
 * 'text' (which is left empty). */
struct refbuf *refbuf_from_ds(struct ds *text);
struct refbuf *refbuf_ref(struct refbuf *);
void refbuf_unref(struct refbuf *); /* NULL is fine. */

/* Makes '*weak' (which must point to 'b') NULL when 'b' is freed; NULL
 * 'weak' forgets a registration.  One weak pointer per buffer. */
void refbuf_set_weak(struct refbuf *b, struct refbuf **weak);

#endif /* lib/refbuf.h */
