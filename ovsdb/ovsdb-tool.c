/* ovsdb/ovsdb-tool.c: placeholder main until the tool issue lands. */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include "lib/util.h"
#include "ovsdb/version.h"

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            ovsdb_print_version();
            return 0;
        }
    }
    ovs_fatal(0, "not implemented yet (only --version works)");
}
