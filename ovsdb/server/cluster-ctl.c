/* ovsdb/server/cluster-ctl.c: "cluster/..." control commands.  See
 * cluster-ctl.h. */
#include <config.h>

#include "ovsdb/server/cluster-ctl.h"

#include <stdlib.h>
#include "lib/ds.h"
#include "lib/unixctl.h"
#include "lib/uuid.h"
#include "ovsdb/server/databases.h"
#include "ovsdb/raft/raft.h"

/* Returns the Raft member of the database named 'name', or NULL after
 * replying with the reference's error. */
static struct raft *
find_raft(struct unixctl_conn *conn, struct ovsdb_databases *dbs,
          const char *name)
{
    struct ovsdb_served_db *sdb = ovsdb_databases_find(dbs, name);
    struct raft *raft = sdb ? ovsdb_served_db_get_raft(sdb) : NULL;
    if (!raft) {
        unixctl_command_reply_error(conn, "unknown cluster");
    }
    return raft;
}

static void
status_cb(struct unixctl_conn *conn, int argc OVS_UNUSED, const char *argv[],
          void *dbs)
{
    struct raft *raft = find_raft(conn, dbs, argv[1]);
    if (raft) {
        struct ds s = DS_EMPTY_INITIALIZER;
        raft_put_status(raft, &s);
        unixctl_command_reply(conn, ds_cstr(&s));
        ds_destroy(&s);
    }
}

/* Replies with 'id' in full, as the reference's cluster/cid and
 * cluster/sid do. */
static void
reply_uuid(struct unixctl_conn *conn, const struct uuid *id)
{
    char s[UUID_LEN + 2];
    uuid_to_string(id, s);
    s[UUID_LEN] = '\n';
    s[UUID_LEN + 1] = '\0';
    unixctl_command_reply(conn, s);
}

static void
cid_cb(struct unixctl_conn *conn, int argc OVS_UNUSED, const char *argv[],
       void *dbs)
{
    struct raft *raft = find_raft(conn, dbs, argv[1]);
    if (raft) {
        reply_uuid(conn, raft_get_cid(raft));
    }
}

static void
sid_cb(struct unixctl_conn *conn, int argc OVS_UNUSED, const char *argv[],
       void *dbs)
{
    struct raft *raft = find_raft(conn, dbs, argv[1]);
    if (raft) {
        reply_uuid(conn, raft_get_sid(raft));
    }
}

/* Replies with 'msg' (takes ownership) as the reply or as the error. */
static void
reply_free(struct unixctl_conn *conn, bool ok, char *msg)
{
    if (ok) {
        unixctl_command_reply(conn, msg);
    } else {
        unixctl_command_reply_error(conn, msg);
    }
    free(msg);
}

static void
leave_cb(struct unixctl_conn *conn, int argc OVS_UNUSED, const char *argv[],
         void *dbs)
{
    struct raft *raft = find_raft(conn, dbs, argv[1]);
    if (raft) {
        char *msg;
        bool ok = raft_leave(raft, &msg);
        reply_free(conn, ok, msg);
    }
}

static void
kick_cb(struct unixctl_conn *conn, int argc OVS_UNUSED, const char *argv[],
        void *dbs)
{
    struct raft *raft = find_raft(conn, dbs, argv[1]);
    if (raft) {
        char *msg;
        bool ok = raft_kick(raft, argv[2], &msg);
        reply_free(conn, ok, msg);
    }
}

static void
change_election_timer_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
                         const char *argv[], void *dbs)
{
    struct raft *raft = find_raft(conn, dbs, argv[1]);
    if (raft) {
        char *msg;
        bool ok = raft_change_election_timer(raft, argv[2], &msg);
        reply_free(conn, ok, msg);
    }
}

static void
failure_test_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
                const char *argv[], void *dbs OVS_UNUSED)
{
    const char *reply;
    if (raft_set_failure_test(argv[1], &reply)) {
        unixctl_command_reply(conn, reply);
    } else {
        unixctl_command_reply_error(conn, reply);
    }
}

void
cluster_ctl_register(struct ovsdb_databases *dbs)
{
    unixctl_command_register("cluster/status", "DB", 1, 1, status_cb, dbs);
    unixctl_command_register("cluster/cid", "DB", 1, 1, cid_cb, dbs);
    unixctl_command_register("cluster/sid", "DB", 1, 1, sid_cb, dbs);
    unixctl_command_register("cluster/leave", "DB", 1, 1, leave_cb, dbs);
    unixctl_command_register("cluster/kick", "DB SERVER", 2, 2, kick_cb, dbs);
    unixctl_command_register("cluster/change-election-timer", "DB TIME", 2, 2,
                             change_election_timer_cb, dbs);
    unixctl_command_register("cluster/failure-test", "FAILURE SCENARIO", 1, 1,
                             failure_test_cb, dbs);
}
