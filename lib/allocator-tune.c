/* lib/allocator-tune.c: the server's built-in allocator tuning.
 *
 * A separate object file on purpose: a program links it only if it calls
 * allocator_init(), so the tuning reaches the server and not the tools or
 * the multi-threaded benchmark driver.  The numbers behind each value are
 * in DESIGN.md, "Allocators"; tcmalloc's and glibc's values are applied at
 * run time by allocator_tune() in allocator.c. */
#include <config.h>
#include "lib/allocator.h"

/* jemalloc's options, by the name jemalloc looks for in the program.  It
 * reads this string when it initializes, then MALLOC_CONF, so the user's
 * MALLOC_CONF overrides each option it names.  The other allocators never
 * read it. */
const char
    *malloc_conf = "narenas:1,background_thread:true,dirty_decay_ms:3000";

void
allocator_init(void)
{
    allocator_tune();
}
