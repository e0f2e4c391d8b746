/* ovsdb/version.h: the --version text shared by the programs. */
#ifndef OVSDB_VERSION_H
#define OVSDB_VERSION_H 1

/* Prints "PROGRAM (ovsdb) VERSION" and the linked allocator to stdout. */
void ovsdb_print_version(void);

#endif /* ovsdb/version.h */
