"""tests/interop/ovsdbapp_nb.py: ovsdbapp's OVN northbound API (the library
OpenStack Neutron uses) against a server at unix:SOCKET.

Usage: ovsdbapp_nb.py SOCKET SCHEMA_NAME
Prints what it read back; exits non-zero on any failure.
"""
import sys

from ovsdbapp.backend.ovs_idl import connection
from ovsdbapp.schema.ovn_northbound import impl_idl


def main():
    sock = sys.argv[1]
    remote = "unix:" + sock
    idl = connection.OvsdbIdl.from_server(remote, "OVN_Northbound")
    conn = connection.Connection(idl=idl, timeout=10)
    api = impl_idl.OvnNbApiIdlImpl(conn)

    with api.transaction(check_error=True) as txn:
        txn.add(api.ls_add("app-sw", may_exist=True))
        txn.add(api.lr_add("app-lr"))
    api.lsp_add("app-sw", "app-p1").execute(check_error=True)
    api.lsp_set_addresses(
        "app-p1", ["00:00:00:00:aa:01 192.168.0.10"]).execute(check_error=True)
    api.lrp_add("app-lr", "app-lrp", "00:00:00:00:aa:ff",
                ["192.168.0.1/24"]).execute(check_error=True)
    api.acl_add("app-sw", "to-lport", 1001, "ip4.src == 10.0.0.0/8",
                "drop").execute(check_error=True)
    api.lb_add("app-lb", "192.168.0.100:80",
               ["192.168.0.10:8080"], protocol="tcp").execute(check_error=True)
    api.ls_lb_add("app-sw", "app-lb").execute(check_error=True)

    switches = sorted(s.name for s in api.ls_list().execute(check_error=True))
    ports = sorted(p.name for p in
                   api.lsp_list("app-sw").execute(check_error=True))
    addrs = api.lsp_get_addresses("app-p1").execute(check_error=True)
    acls = api.acl_list("app-sw").execute(check_error=True)
    lbs = api.ls_lb_list("app-sw").execute(check_error=True)
    print("switches", switches)
    print("ports", ports)
    print("addresses", addrs)
    print("acls", [(a.direction, a.priority, a.match, a.action) for a in acls])
    print("lbs", [lb.name for lb in lbs])
    assert "app-sw" in switches, switches
    assert ports == ["app-p1"], ports
    assert addrs == ["00:00:00:00:aa:01 192.168.0.10"], addrs
    assert len(acls) == 1 and acls[0].priority == 1001
    assert [lb.name for lb in lbs] == ["app-lb"]

    # An error from the server side surfaces as an exception: a second
    # address set with the same name breaks the table's unique index, which
    # only the server checks.
    api.db_create("Address_Set", name="as1").execute(check_error=True)
    try:
        api.db_create("Address_Set", name="as1").execute(check_error=True)
    except RuntimeError as e:
        print("duplicate address set name refused:", e)
        assert "constraint violation" in str(e), e
    else:
        raise SystemExit("duplicate address set name did not fail")

    api.ls_del("app-sw").execute(check_error=True)
    switches = sorted(s.name for s in api.ls_list().execute(check_error=True))
    assert "app-sw" not in switches, switches
    print("after delete", switches)
    conn.stop()


main()
