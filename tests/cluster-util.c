/* tests/cluster-util.c: drives ovsdb/format/cluster-file from the shell tests.
 *
 * Usage: cluster-util replay CLUSTERED STANDALONE
 *            Reads CLUSTERED with cluster_file_open(), replays every entry
 *            into a database and writes it as the new standalone file
 *            STANDALONE (to compare with cluster-to-standalone's).  Prints
 *            "tail: ERROR" first if a bad record ended the file.
 *        cluster-util compact CLUSTERED
 *            Replays the whole log and compacts the file at its last entry
 *            (cluster_file_save_snapshot()), as a server would.
 *        cluster-util state CLUSTERED
 *            Prints "term T vote V commit C log START..END timer MS", with
 *            V the vote's 4-digit short form or "none". */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/ds.h"
#include "lib/util.h"
#include "ovsdb/format/cluster-file.h"
#include "ovsdb/engine/error.h"
#include "ovsdb/format/file.h"
#include "ovsdb/engine/ovsdb.h"

static void
check(struct ovsdb_error *error)
{
    if (error) {
        char *s = ovsdb_error_to_string_free(error);
        ovs_fatal(0, "%s", s);
    }
}

static struct cluster_file *
open_file(const char *path, bool rw)
{
    struct cluster_file *cf;
    check(cluster_file_open(path, rw, &cf));
    if (cf->tail_error) {
        char *s = ovsdb_error_to_string(cf->tail_error);
        printf("tail: %s\n", s);
        free(s);
    }
    return cf;
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc == 4 && !strcmp(argv[1], "replay")) {
        struct cluster_file *cf = open_file(argv[2], false);
        struct ovsdb *db;
        check(cluster_file_replay(cf, cf->log_end - 1, &db, NULL));
        check(ovsdb_file_create(argv[3], ovsdb_get_schema(db), db, NULL,
                                NULL));
        ovsdb_destroy(db);
        cluster_file_close(cf);
    } else if (argc == 3 && !strcmp(argv[1], "compact")) {
        struct cluster_file *cf = open_file(argv[2], true);
        struct ovsdb *db;
        uint64_t last = cf->log_end - 1;
        check(cluster_file_replay(cf, last, &db, NULL));
        struct ds data = DS_EMPTY_INITIALIZER;
        cluster_file_put_db_data(&data, db, "compacting database online");
        check(cluster_file_save_snapshot(cf, last, data.string,
                                         data.length));
        ds_destroy(&data);
        ovsdb_destroy(db);
        cluster_file_close(cf);
    } else if (argc == 3 && !strcmp(argv[1], "state")) {
        struct cluster_file *cf = open_file(argv[2], false);
        char vote[8] = "none";
        if (!uuid_is_zero(&cf->vote)) {
            snprintf(vote, sizeof vote, RAFT_SID_FMT,
                     RAFT_SID_ARGS(&cf->vote));
        }
        printf("term %"PRIu64" vote %s commit %"PRIu64" log %"PRIu64"..%"
               PRIu64" timer %"PRIu64"\n", cf->term, vote, cf->commit_index,
               cf->log_start, cf->log_end, cluster_file_get_election_timer(cf));
        cluster_file_close(cf);
    } else {
        ovs_fatal(0, "usage: cluster-util replay|compact|state FILE...");
    }
    return 0;
}
