/* lib/allocator-tune.c: the server's built-in allocator tuning.
 *
 * A separate object file on purpose: a program links it only if it calls
 * allocator_init(), so the tuning reaches the server and not the tools or
 * the multi-threaded benchmark driver.  The numbers behind each value are
 * in DESIGN.md, "Allocators". */
#include <config.h>
#include "lib/allocator.h"

#if defined(USE_JEMALLOC)
#include <jemalloc/jemalloc.h>

/* jemalloc reads this string when it initializes, then MALLOC_CONF, so
 * that the user's MALLOC_CONF overrides each option it names. */
const char *malloc_conf = "narenas:1,background_thread:true";
#endif

void
allocator_init(void)
{
    allocator_tune();
}
