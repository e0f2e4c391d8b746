#!/bin/sh
# tests/relay/backup-ours-ref.sh: active-backup with our server
# active and the reference server as backup, then failover.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
run_backup_pair ours ref
