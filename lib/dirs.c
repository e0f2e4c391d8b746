/* lib/dirs.c: see dirs.h. */
#include <config.h>
#include "lib/dirs.h"

#include <stdlib.h>
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
