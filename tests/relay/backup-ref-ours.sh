#!/bin/sh
# tests/relay/backup-ref-ours.sh: active-backup with the reference server
# active and our server as backup, then failover.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
run_backup_pair ref ours
