#!/bin/sh
# tests/relay/backup-refint-ref-ours.sh: ours as backup of the reference,
# unable to commit a replicated row (it refers to an excluded table),
# becomes active.
. "$OVSDB_SRCDIR/tests/relay/lib.sh"
run_backup_refint ref ours
