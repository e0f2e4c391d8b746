#!/bin/sh
# tests/relay/backup-refint-ours-ref.sh: the reference as backup of ours,
# unable to commit a replicated row (it refers to an excluded table),
# becomes active.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
run_backup_refint ours ref
