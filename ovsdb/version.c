/* ovsdb/version.c: see version.h. */
#include <config.h>
#include "ovsdb/version.h"

#include <stdio.h>
#include "lib/allocator.h"
#include "lib/util.h"

void
ovsdb_print_version(void)
{
    printf("%s (ovsdb) %s\n", program_name(), PACKAGE_VERSION);
    printf("allocator: %s\n", allocator_name());
}
