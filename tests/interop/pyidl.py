"""tests/interop/pyidl.py: the Python ovs.db.idl.Idl (python3-openvswitch)
against a server: initial contents, another client's change, a commit with
verify(), and catching up after the server restarts.

Usage: pyidl.py PHASE SOCKET SCHEMA
  PHASE "live": connect, check the initial contents (switch sw0 made by
  ovn-nbctl before), wait for sw1 (made by ovn-nbctl while we watch, via
  the file named by $TRIGGER), commit our own switch with verify(), and a
  conflicting commit that must come back TRY_AGAIN.
  PHASE "restart": connect, then wait for the server to be restarted by
  the caller (signalled through files) and check the IDL reconnects and
  sees a change made after the restart.
Exits non-zero with a message on any failure.
"""
import os
import sys
import time

import ovs.db.idl
import ovs.poller
import ovs.vlog

ovs.vlog.Vlog.init(None)


def die(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run_until(idl, cond, what, timeout=15.0):
    deadline = time.time() + timeout
    while True:
        idl.run()
        if cond():
            return
        if time.time() > deadline:
            die("timed out waiting for " + what)
        poller = ovs.poller.Poller()
        idl.wait(poller)
        poller.timer_wait(100)
        poller.block()


def commit(idl, fill):
    """Builds a transaction with fill(txn) and commits it, blocking."""
    while True:
        txn = ovs.db.idl.Transaction(idl)
        fill(txn)
        status = txn.commit_block()
        if status != ovs.db.idl.Transaction.TRY_AGAIN:
            return status, txn
        run_until(idl, lambda: True, "resync")


def names(idl):
    return sorted(r.name for r in idl.tables["Logical_Switch"].rows.values())


def main():
    phase, sock, schema = sys.argv[1:4]
    helper = ovs.db.idl.SchemaHelper(schema)
    helper.register_all()
    idl = ovs.db.idl.Idl("unix:" + sock, helper, leader_only=False)
    run_until(idl, lambda: idl.has_ever_connected() and "sw0" in names(idl),
              "initial contents with sw0")
    print("initial:", names(idl))

    if phase == "live":
        # Another client's change shows up.
        open(os.environ["TRIGGER"], "w").close()
        run_until(idl, lambda: "sw1" in names(idl), "sw1 from ovn-nbctl")
        print("saw other client's change:", names(idl))

        # Our own transaction, with verify() on the row we read.
        def add_port(txn):
            sw0 = [r for r in idl.tables["Logical_Switch"].rows.values()
                   if r.name == "sw0"][0]
            sw0.verify("ports")
            lsp = txn.insert(idl.tables["Logical_Switch_Port"])
            lsp.name = "py-port"
            sw0.addvalue("ports", lsp.uuid)
            sw2 = txn.insert(idl.tables["Logical_Switch"])
            sw2.name = "sw-py"
        status, _ = commit(idl, add_port)
        if status != ovs.db.idl.Transaction.SUCCESS:
            die("commit returned %s" % status)
        run_until(idl, lambda: "sw-py" in names(idl), "our own insert")
        sw0 = [r for r in idl.tables["Logical_Switch"].rows.values()
               if r.name == "sw0"][0]
        if [p.name for p in sw0.ports] != ["py-port"]:
            die("sw0 ports %s" % [p.name for p in sw0.ports])
        print("committed with verify:", names(idl))

        # A verify() that another client invalidates must fail with
        # TRY_AGAIN, not commit blindly.
        txn = ovs.db.idl.Transaction(idl)
        sw0.verify("other_config")
        sw0.setkey("other_config", "k", "mine")
        open(os.environ["TRIGGER2"], "w").close()
        deadline = time.time() + 10
        while not os.path.exists(os.environ["TRIGGER2"] + ".done"):
            if time.time() > deadline:
                die("second client did not run")
            time.sleep(0.05)
        status = txn.commit_block()
        if status != ovs.db.idl.Transaction.TRY_AGAIN:
            die("conflicting commit returned %s, expected try again" % status)
        print("conflicting verify: try again")
    else:
        # Tell the caller to restart the server, then wait for the change
        # made after the restart.
        open(os.environ["TRIGGER"], "w").close()
        run_until(idl, lambda: "after-restart" in names(idl),
                  "catch-up after the server restarted", timeout=30)
        print("caught up after restart:", names(idl))
    idl.close()


main()
