/* lib/dirs.c: see dirs.h. */
#include <config.h>
#include "lib/dirs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/allocator.h"

static const char *
env_or(const char *var, const char *dflt)
{
    const char *value = getenv(var);
    return value && value[0] ? value : dflt;
}

const char *
dirs_rundir(void)
{
    return env_or("OVS_RUNDIR", "/var/run/openvswitch");
}

const char *
dirs_logdir(void)
{
    return env_or("OVS_LOGDIR", "/var/log/openvswitch");
}

const char *
dirs_dbdir(void)
{
    static char *dbdir;
    const char *value = getenv("OVS_DBDIR");
    if (value && value[0]) {
        return value;
    }
    if (!dbdir) {
        const char *sysconfdir = getenv("OVS_SYSCONFDIR");
        dbdir = (sysconfdir && sysconfdir[0]
                 ? xasprintf("%s/openvswitch", sysconfdir)
                 : xstrdup("/etc/openvswitch"));
    }
    return dbdir;
}

const char *
dirs_pkgdatadir(void)
{
    return env_or("OVS_PKGDATADIR", "/usr/share/openvswitch");
}

char *
dirs_abs_file_name(const char *dir, const char *name)
{
    return (name[0] == '/' || !dir ? xstrdup(name)
            : xasprintf("%s/%s", dir, name));
}

char *
dirs_follow_symlinks(const char *name)
{
    char *file = xstrdup(name);
    for (int i = 0; i < 10; i++) {
        struct stat st;
        if (lstat(file, &st) || !S_ISLNK(st.st_mode)) {
            break;
        }
        /* st_size is only a hint (the kernel's /proc links say 64 for any
         * length): a target that fills the buffer may be cut, so grow it
         * and read again. */
        size_t size = st.st_size > 0 ? st.st_size + 1 : PATH_MAX;
        char *target = NULL;
        ssize_t n;
        for (;;) {
            target = xrealloc(target, size + 1);
            n = readlink(file, target, size);
            if (n < 0 || (size_t) n < size || size >= 64 * PATH_MAX) {
                break;
            }
            size *= 2;
        }
        if (n < 0 || (size_t) n >= size) {
            free(target);
            break;
        }
        target[n] = '\0';
        const char *slash = strrchr(file, '/');
        char *next;
        if (target[0] == '/' || !slash) {
            next = target;
        } else {
            next = xasprintf("%.*s/%s", (int) (slash - file), file, target);
            free(target);
        }
        if (!stat(file, &st) && lstat(next, &st)) {
            /* The link leads somewhere that its text does not name, as
             * /proc/self/fd/0 to a pipe ("pipe:[123]"): keep the link. */
            free(next);
            break;
        }
        free(file);
        file = next;
    }
    return file;
}
