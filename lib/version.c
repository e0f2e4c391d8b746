/* lib/version.c: see version.h. */
#include <config.h>
#include "lib/version.h"

#include <stdio.h>
#include "lib/allocator.h"
#include "lib/util.h"

void
version_print(void)
{
    printf("%s (ovsdb) %s\n", program_name(), PACKAGE_VERSION);
    printf("allocator: %s\n", allocator_name());
}
