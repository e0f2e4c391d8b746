/* lib/version.h: the --version text shared by the programs. */
#ifndef VERSION_H
#define VERSION_H 1

/* Prints "PROGRAM (ovsdb) VERSION" and the linked allocator to stdout. */
void version_print(void);

#endif /* lib/version.h */
