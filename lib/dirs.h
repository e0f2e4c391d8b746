/* lib/dirs.h: the directories the reference uses by default.
 *
 * Each can be overridden by an environment variable, exactly as the
 * reference Open vSwitch does, so tests can run unprivileged:
 *
 *     dirs_rundir()   $OVS_RUNDIR  or /var/run/openvswitch (pidfiles, .ctl)
 *     dirs_logdir()   $OVS_LOGDIR  or /var/log/openvswitch
 *     dirs_dbdir()    $OVS_DBDIR   or $OVS_SYSCONFDIR/openvswitch
 *                                  or /etc/openvswitch       (conf.db)
 *     dirs_pkgdatadir() $OVS_PKGDATADIR or /usr/share/openvswitch (schemas)
 *
 * The strings are static: valid for the life of the process.  Also: paths
 * relative to a directory, and where a symbolic link leads. */
#ifndef LIB_DIRS_H
#define LIB_DIRS_H 1

const char *dirs_rundir(void);
const char *dirs_logdir(void);
const char *dirs_dbdir(void);
const char *dirs_pkgdatadir(void);

/* Returns 'name' if it is absolute, else "DIR/name"; caller must free with
 * free(). */
char *dirs_abs_file_name(const char *dir, const char *name);

/* Returns the file that 'name' leads to: 'name' itself unless it is a
 * symbolic link, else what the link (and any link it leads to, up to 10)
 * points to, relative targets taken from the link's directory.  The file
 * need not exist.  A link that works but whose text names no file (the
 * kernel's /proc/self/fd/N to a pipe) is returned itself.  Caller must free
 * with free(). */
char *dirs_follow_symlinks(const char *name);

#endif /* lib/dirs.h */
