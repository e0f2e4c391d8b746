#!/bin/sh
# tests/cluster/kill-mixed.sh: tests/cluster/kill-roles.sh on a cluster of
# two of our members and one of the reference's (created by ours).
KINDS="ours ref ours"
. "$OVSDB_SRCDIR/tests/cluster/kill-roles.sh"
