#!/bin/sh
# tests/relay/backup-ours-ours.sh: active-backup with our server
# active and our server as backup, then failover.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
run_backup_pair ours ours
