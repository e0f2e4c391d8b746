#!/usr/bin/env python3
# tests/cluster/idl-client.py: a writer through the Open vSwitch Python IDL
# (python3-openvswitch's ovs.db.idl) for the cluster tests (a helper, not
# a test).
#
#   idl-client.py SCHEMA REMOTES ACKED STOP TAG
#       Connects an IDL, leader-only as ovn-nbctl's is, to REMOTES (a
#       comma-separated list, e.g. every member of a cluster) and inserts
#       Logical_Switch rows "TAG-<i>", one transaction at a time, until the
#       file STOP exists.  Each name goes to ACKED.tried before it is sent
#       and to ACKED once its transaction succeeded.  Then it waits until
#       the IDL's own replica holds every acknowledged row, each once, and
#       prints how many it acknowledged and which remotes served them.
#       Exits 1 if a step takes more than a minute.
import sys
import time

import ovs.db.idl
import ovs.poller

STEP = 60


def step(idl, txn=None):
    """One pass of the IDL's loop: runs it, then waits (at most 100 ms)."""
    idl.run()
    poller = ovs.poller.Poller()
    idl.wait(poller)
    if txn:
        txn.wait(poller)
    poller.timer_wait(100)
    poller.block()


def run_until(idl, done, what, txn=None):
    deadline = time.time() + STEP
    while not done():
        if time.time() > deadline:
            sys.exit("idl-client: %s: no progress in %d s" % (what, STEP))
        step(idl, txn)


def run_for(idl, seconds, seqno):
    """Runs IDL for up to SECONDS, less once its contents change from
    SEQNO (what a client does before it retries after "try again")."""
    deadline = time.time() + seconds
    while idl.change_seqno == seqno and time.time() < deadline:
        step(idl)


def commit(idl, name):
    txn = ovs.db.idl.Transaction(idl)
    row = txn.insert(idl.tables["Logical_Switch"])
    row.name = name
    status = []

    def done():
        s = txn.commit()
        if s != ovs.db.idl.Transaction.INCOMPLETE:
            status.append(s)
            return True
        return False
    run_until(idl, done, name + ": a commit status", txn)
    return status[0], txn.get_error()


def main(schema, remotes, acked_path, stop, tag):
    helper = ovs.db.idl.SchemaHelper(location=schema)
    helper.register_table("Logical_Switch")
    idl = ovs.db.idl.Idl(remotes, helper, leader_only=True)
    seqno = idl.change_seqno
    run_until(idl, lambda: idl.change_seqno != seqno, "first contents")
    acked = set()
    used = {}
    failures = {}
    attempt = 0
    last_ack = time.time()
    with open(acked_path, "a") as out, open(acked_path + ".tried", "a") as tr:
        while True:
            try:
                open(stop).close()
                break
            except OSError:
                pass
            if time.time() > last_ack + STEP:
                sys.exit("idl-client: nothing acknowledged in %d s (%r)"
                         % (STEP, failures))
            name = "%s-%d" % (tag, attempt)
            attempt += 1
            seqno = idl.change_seqno
            tr.write(name + "\n")
            tr.flush()
            status, error = commit(idl, name)
            if status == ovs.db.idl.Transaction.SUCCESS:
                out.write(name + "\n")
                out.flush()
                acked.add(name)
                last_ack = time.time()
                remote = idl.session_name()
                used[remote] = used.get(remote, 0) + 1
            else:
                key = "%s %s" % (status, error or "")
                failures[key] = failures.get(key, 0) + 1
                run_for(idl, 1, seqno)

    def replica_has_all():
        names = [r.name for r in idl.tables["Logical_Switch"].rows.values()]
        return len(names) == len(set(names)) and acked <= set(names)
    run_until(idl, replica_has_all, "replica holding the acknowledged rows")
    print("idl: %d acknowledged in %d attempts; failures %r; via %d "
          "remote(s)" % (len(acked), attempt, failures, len(used)))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
