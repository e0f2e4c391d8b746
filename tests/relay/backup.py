"""tests/relay/backup.py: checks an active-backup pair.

    python3 backup.py phase1 ACTIVE BACKUP
    python3 backup.py phase2 BACKUP
    python3 backup.py refint ACTIVE BACKUP

ACTIVE and BACKUP are "unix:PATH" remotes serving the Example schema;
BACKUP replicates ACTIVE with Example:Interface excluded (a table these
checks leave empty: a replicated row referring to an excluded table would
fail the backup's referential integrity check).
phase1: writes on the active reach the backup, the backup refuses writes.
phase2 (after the active was killed and the backup promoted): the backup
is writable and kept every replicated row.  refint: see refint().
"""
import sys

import rpc
from relay import check, dump, ok, transact, wait_until


def names(c):
    return sorted(r["name"] for r in dump(c)["Host"].values())


def phase1(active_remote, backup_remote):
    active = rpc.Client(active_remote)
    backup = rpc.Client(backup_remote)
    for i in range(20):
        ok(transact(active, {"op": "insert", "table": "Host",
                             "row": {"name": "a%d" % i,
                                     "address": ["set", ["x%d" % i]]}}),
           "insert on active")
    ok(transact(active, {"op": "update", "table": "Host",
                         "where": [["name", "==", "a0"]],
                         "row": {"external_ids": ["map", [["k", "v"]]]}},
                {"op": "delete", "table": "Host",
                 "where": [["name", "==", "a1"]]}), "update on active")
    want = names(active)
    wait_until(lambda: names(backup) == want, "backup to replicate")
    hosts = dump(active)["Host"]
    bhosts = dump(backup)["Host"]
    for uuid, row in hosts.items():
        check(bhosts.get(uuid) == row, "row %s differs: %r vs %r"
              % (uuid, bhosts.get(uuid), row))
    r = transact(backup, {"op": "insert", "table": "Host",
                          "row": {"name": "refused"}})
    check(r["result"][0].get("error") == "not allowed",
          "backup accepted a write: %r" % r)
    print("phase1: ok")


def phase2(backup_remote):
    backup = rpc.Client(backup_remote)
    before = names(backup)
    check(len(before) == 19, "replicated rows lost: %r" % before)
    ok(transact(backup, {"op": "insert", "table": "Host",
                         "row": {"name": "after"}}), "write after promotion")
    check(names(backup) == sorted(before + ["after"]), "promoted contents")
    print("phase2: ok")


def refint(active_remote, backup_remote):
    """A replicated row referring to the excluded table cannot be committed
    on the backup: as the reference's, the backup stops replicating and
    becomes active (writable) without it."""
    active = rpc.Client(active_remote)
    backup = rpc.Client(backup_remote)
    ok(transact(active, {"op": "insert", "table": "Host",
                         "row": {"name": "first"}}), "insert first")
    wait_until(lambda: names(backup) == ["first"], "backup to replicate")
    ok(transact(active, {"op": "insert", "table": "Interface",
                         "uuid-name": "i", "row": {"name": "eth0"}},
                {"op": "insert", "table": "Host",
                 "row": {"name": "withif",
                         "interfaces": ["named-uuid", "i"]}}),
       "insert referring to the excluded table")

    def writable():
        r = transact(backup, {"op": "insert", "table": "Host",
                              "row": {"name": "mine"}})
        return "error" not in r["result"][0]
    wait_until(writable, "backup to become active")
    check(names(backup) == ["first", "mine"], "backup: %r" % names(backup))
    print("refint: ok")


if __name__ == "__main__":
    if sys.argv[1] == "phase1":
        phase1(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "refint":
        refint(sys.argv[2], sys.argv[3])
    else:
        phase2(sys.argv[2])
