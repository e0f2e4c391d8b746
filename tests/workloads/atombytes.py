#!/usr/bin/env python3
"""tests/workloads/atombytes.py: memory per stored atom on fixed databases.

    atombytes.py [--scale S] [--shapes ovn-sb,vswitch,seed] [--vs SERVER]
                 SERVER

For each shape, a database is filled through SERVER (an ovsdb-server of
ours) with rows generated from a fixed seed and measured ("live_"), then
the server is started again on the file and measured again, with only the
rows at rest (no ephemeral columns: vswitch's statistics and states are
not in the file) and nothing the transactions left behind:

  ovn-sb   the real OVN Southbound schema (/usr/share/ovn/ovn-sb.ovsschema):
           Chassis with Encaps, Datapath_Binding, Port_Binding with
           Neutron's external_ids, Logical_Flow with northd's;
  vswitch  the real Open vSwitch schema (/usr/share/openvswitch/
           vswitch.ovsschema): one bridge, its ports and interfaces as on a
           hypervisor (iface-id, attached-mac, statistics...);
  seed     the bundled workload schema's Item rows, as the Insert workload
           writes them.

Atoms are counted as memory/show counts them (every key and value of every
column, _uuid and _version included).  Printed per shape, one JSON line:
alloc_bytes_per_atom is what the allocator reports allocated
(memory/show's "allocated") with the rows, less the same server on the
empty database, over the atoms; rss_bytes_per_atom the same with the
resident set (VmRSS), which --vs also gives for another server (the
reference's ovsdb-server has no allocator figure).  Nothing is asserted.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import rpc as jsonrpc  # noqa: E402  (tests/rpc.py)
SCHEMAS = {
    "ovn-sb": "/usr/share/ovn/ovn-sb.ovsschema",
    "vswitch": "/usr/share/openvswitch/vswitch.ovsschema",
    "seed": os.path.join(HERE, "workload.ovsschema"),
}
BATCH = 500     # rows per transaction


def transact(rpc, db, ops):
    """Runs 'ops' on 'db'; returns the operations' results, raising
    RuntimeError unless all succeeded."""
    result = rpc.result("transact", [db] + ops)
    for r in result:
        if isinstance(r, dict) and "error" in r:
            raise RuntimeError("transact: %s" % str(result)[:500])
    return result


def uid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def fill_ovn_sb(rpc, scale, rng):
    """Chassis and Encaps, datapaths, ports and logical flows."""
    db = "OVN_Southbound"
    n_chassis = max(2, int(200 * scale))
    n_dp = max(2, int(100 * scale))
    ports_per_dp, flows_per_dp = 50, 200
    ops = []
    for c in range(n_chassis):
        name = uid(rng)
        ip = "192.168.%d.%d" % (c // 250, c % 250 + 1)
        ops.append({"op": "insert", "table": "Encap", "uuid-name": "e%d" % c,
                    "row": {"type": "geneve", "ip": ip, "chassis_name": name,
                            "options": ["map", [["csum", "true"]]]}})
        ops.append({"op": "insert", "table": "Chassis", "row": {
            "name": name, "hostname": "compute-%d.example.org" % c,
            "encaps": ["named-uuid", "e%d" % c],
            "external_ids": ["map", [
                ["datapath-type", "system"],
                ["iface-types", "erspan,geneve,gre,internal,ip6erspan,"
                 "ip6gre,lisp,patch,stt,system,tap,vxlan"],
                ["is-interconn", "false"],
                ["ovn-bridge-mappings", "physnet1:br-ex"],
                ["ovn-chassis-mac-mappings", ""],
                ["ovn-cms-options", ""]]],
            "other_config": ["map", [
                ["ct-no-masked-label", "true"],
                ["datapath-type", "system"],
                ["mac-binding-timestamp", "true"],
                ["ovn-bridge-mappings", "physnet1:br-ex"]]]}})
    chassis = [r["uuid"][1] for r in transact(rpc, db, ops)[1::2]]

    ops = []
    nets = []
    for d in range(n_dp):
        net = uid(rng)
        nets.append(net)
        ops.append({"op": "insert", "table": "Datapath_Binding", "row": {
            "tunnel_key": d + 1,
            "external_ids": ["map", [
                ["logical-switch", uid(rng)],
                ["name", "neutron-" + net],
                ["name2", "network-%d" % d]]]}})
    dps = [r["uuid"][1] for r in transact(rpc, db, ops)]

    project = "%032x" % rng.getrandbits(128)
    stages = ["ls_in_port_sec_l2", "ls_in_port_sec_ip", "ls_in_lookup_fdb",
              "ls_in_pre_acl", "ls_in_pre_lb", "ls_in_acl", "ls_in_l2_lkup",
              "ls_out_pre_acl", "ls_out_acl", "ls_out_port_sec_l2"]
    ops = []
    for d, dp in enumerate(dps):
        for p in range(ports_per_dp):
            mac = "fa:16:3e:%02x:%02x:%02x" % (d, p, rng.getrandbits(8))
            ip = "10.%d.%d.%d" % (d // 250, d % 250, p + 2)
            ops.append({"op": "insert", "table": "Port_Binding", "row": {
                "logical_port": uid(rng), "type": "",
                "datapath": ["uuid", dp], "tunnel_key": p + 1,
                "chassis": ["uuid", chassis[(d * ports_per_dp + p)
                                            % n_chassis]],
                "mac": mac + " " + ip, "up": True,
                "options": ["map", [["mcast_flood_reports", "true"],
                                    ["requested-chassis",
                                     "compute-%d.example.org"
                                     % ((d * ports_per_dp + p)
                                        % n_chassis)]]],
                "external_ids": ["map", [
                    ["neutron:cidrs", ip + "/24"],
                    ["neutron:device_id", uid(rng)],
                    ["neutron:device_owner", "compute:nova"],
                    ["neutron:network_name", "neutron-" + nets[d]],
                    ["neutron:port_name", ""],
                    ["neutron:project_id", project],
                    ["neutron:revision_number", "4"],
                    ["neutron:security_group_ids", uid(rng)]]]}})
            if len(ops) == BATCH:
                transact(rpc, db, ops)
                ops = []
        for f in range(flows_per_dp):
            stage = stages[f % len(stages)]
            ops.append({"op": "insert", "table": "Logical_Flow", "row": {
                "logical_datapath": ["uuid", dp],
                "pipeline": "ingress" if "_in_" in stage else "egress",
                "table_id": f % len(stages), "priority": 50 + f % 7 * 10,
                "match": "inport == \"%s\" && eth.src == {fa:16:3e:%02x:%02x:"
                         "%02x}" % (uid(rng), d, f % 256, rng.getrandbits(8)),
                "actions": "next;" if f % 3 else "outport = \"%s\"; output;"
                           % uid(rng),
                "external_ids": ["map", [
                    ["source", "northd.c:%d" % (5000 + f % len(stages) * 37)],
                    ["stage-hint", "%08x" % rng.getrandbits(32)],
                    ["stage-name", stage]]]}})
            if len(ops) == BATCH:
                transact(rpc, db, ops)
                ops = []
    if ops:
        transact(rpc, db, ops)


def fill_vswitch(rpc, scale, rng):
    """One integration bridge with its ports and interfaces."""
    db = "Open_vSwitch"
    n_ports = max(2, int(2000 * scale))
    stats = ["collisions", "rx_bytes", "rx_crc_err", "rx_dropped",
             "rx_errors", "rx_frame_err", "rx_missed_errors", "rx_over_err",
             "rx_packets", "tx_bytes", "tx_dropped", "tx_errors",
             "tx_packets"]
    transact(rpc, db, [{"op": "insert", "table": "Open_vSwitch",
                       "row": {"bridges": ["named-uuid", "br"]}},
                      {"op": "insert", "table": "Bridge", "uuid-name": "br",
                       "row": {"name": "br-int", "fail_mode": "secure",
                               "datapath_type": "system",
                               "other_config": ["map", [
                                   ["disable-in-band", "true"],
                                   ["hwaddr", "fa:16:3e:00:00:01"]]]}}])
    for first in range(0, n_ports, BATCH):
        ops = []
        names = []
        for p in range(first, min(n_ports, first + BATCH)):
            name = "tap%s" % uid(rng)[:11]
            names.append(name)
            ops.append({"op": "insert", "table": "Interface",
                        "uuid-name": "i%d" % p, "row": {
                            "name": name, "type": "", "ofport": p + 1,
                            "admin_state": "up", "link_state": "up",
                            "mtu": 1450, "mac_in_use": "fe:16:3e:%02x:%02x:%02x"
                            % (p >> 16 & 255, p >> 8 & 255, p & 255),
                            "external_ids": ["map", [
                                ["attached-mac", "fa:16:3e:%02x:%02x:%02x"
                                 % (p >> 16 & 255, p >> 8 & 255, p & 255)],
                                ["iface-id", uid(rng)],
                                ["iface-status", "active"],
                                ["vm-uuid", uid(rng)]]],
                            "statistics": ["map", [[k, rng.randrange(10**9)]
                                                   for k in stats]],
                            "status": ["map", [["driver_name", "tun"],
                                               ["driver_version", "1.6"]]]}})
            ops.append({"op": "insert", "table": "Port",
                        "uuid-name": "p%d" % p, "row": {
                            "name": name, "tag": p % 4000 + 1,
                            "interfaces": ["named-uuid", "i%d" % p],
                            "other_config": ["map", [
                                ["net_uuid", uid(rng)],
                                ["network_type", "vxlan"],
                                ["physical_network", "None"],
                                ["segmentation_id", str(p % 4000 + 1)],
                                ["tag", str(p % 4000 + 1)]]]}})
        ops.append({"op": "mutate", "table": "Bridge", "where": [],
                    "mutations": [["ports", "insert",
                                   ["set", [["named-uuid", "p%d" % p]
                                            for p in range(
                                                first, first + len(names))]]]
                                  ]})
        transact(rpc, db, ops)


def fill_seed(rpc, scale, rng):
    """Item rows as the Insert workload writes them."""
    db = "Workload"
    n = max(2, int(50000 * scale))
    for first in range(0, n, BATCH):
        transact(rpc, db, [{"op": "insert", "table": "Item", "row": {
            "run": "insert", "worker": i % 10, "n": i,
            "value": rng.randrange(10**6), "name": "item-%d" % i}}
            for i in range(first, min(n, first + BATCH))])


FILL = {"ovn-sb": fill_ovn_sb, "vswitch": fill_vswitch, "seed": fill_seed}


class Server:
    def __init__(self, program, db, d, name):
        self.sock = os.path.join(d, name + ".sock")
        self.ctl = os.path.join(d, name + ".ctl")
        self.proc = subprocess.Popen(
            [program, "--remote=punix:" + self.sock, "--unixctl=" + self.ctl,
             "--log-file=" + os.path.join(d, name + ".log"), "--no-chdir",
             db], stderr=subprocess.DEVNULL)
        for _ in range(600):
            if os.path.exists(self.sock):
                try:
                    self.rpc = jsonrpc.Client("unix:" + self.sock)
                    self.rpc.result("list_dbs", [])
                    return
                except OSError:
                    pass
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited" % program)
            time.sleep(0.05)
        raise RuntimeError("%s did not listen" % program)

    def memory(self):
        """memory/show's atoms and allocated bytes (None if it has no
        allocator figure), and VmRSS in bytes."""
        text = subprocess.run([APPCTL, "-t", self.ctl, "memory/show"],
                              check=True, capture_output=True,
                              text=True).stdout
        atoms = re.search(r"atoms:(\d+)", text)
        alloc = re.search(r"\ballocated:(\d+) bytes", text)
        with open("/proc/%d/status" % self.proc.pid) as f:
            rss = int(re.search(r"VmRSS:\s*(\d+) kB", f.read()).group(1))
        return (int(atoms.group(1)) if atoms else 0,
                int(alloc.group(1)) if alloc else None, rss * 1024)

    def stop(self):
        self.rpc.close()
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


APPCTL = None   # The control client: set by main().


def tool_for(server):
    tool = os.path.join(os.path.dirname(os.path.abspath(server)),
                        "ovsdb-tool")
    if not os.path.exists(tool):
        tool = os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(server))), "ovsdb", "ovsdb-tool")
    return tool if os.path.exists(tool) else shutil.which("ovsdb-tool")


def measure(program, shape, args, d):
    """Fills a database of 'shape' with 'program' and measures it."""
    tool = tool_for(program)
    db = os.path.join(d, "%s.db" % shape)
    empty = os.path.join(d, "%s-empty.db" % shape)
    for f in (db, empty):
        if os.path.exists(f):
            os.unlink(f)
        subprocess.run([tool, "create", f, SCHEMAS[shape]], check=True)
    s = Server(program, empty, d, "empty")
    _, alloc0, rss0 = s.memory()
    s.stop()
    s = Server(program, db, d, "fill")
    FILL[shape](s.rpc, args.scale, random.Random(7))
    live_atoms, live_alloc, live_rss = s.memory()
    s.stop()
    s = Server(program, db, d, "full")
    atoms, alloc1, rss1 = s.memory()
    s.stop()
    rec = {"server": program, "shape": shape, "scale": args.scale,
           "atoms": atoms, "db_file_bytes": os.path.getsize(db),
           "rss_bytes_per_atom": round((rss1 - rss0) / atoms, 1),
           "live_atoms": live_atoms,
           "live_rss_bytes_per_atom": round((live_rss - rss0) / live_atoms,
                                            1)}
    if alloc0 is not None and alloc1 is not None:
        rec["alloc_bytes_per_atom"] = round((alloc1 - alloc0) / atoms, 1)
        rec["live_alloc_bytes_per_atom"] = round(
            (live_alloc - alloc0) / live_atoms, 1)
    return rec


def main():
    global APPCTL
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--shapes", default="ovn-sb,vswitch,seed")
    p.add_argument("--vs", action="append", default=[],
                   help="another server to measure the same way")
    p.add_argument("--appctl", help="the control client (default: "
                   "ovsdb-appctl beside SERVER's build, else ovs-appctl)")
    p.add_argument("server")
    args = p.parse_args()
    build = os.path.dirname(os.path.dirname(os.path.abspath(args.server)))
    APPCTL = args.appctl or next(
        (c for c in (os.path.join(build, "utilities", "ovsdb-appctl"),
                     shutil.which("ovsdb-appctl"), shutil.which("ovs-appctl"))
         if c and os.path.exists(c)), None)
    if not APPCTL:
        sys.exit("atombytes.py: no ovsdb-appctl or ovs-appctl found")
    with tempfile.TemporaryDirectory() as d:
        for shape in args.shapes.split(","):
            if not os.path.exists(SCHEMAS[shape]):
                print(json.dumps({"shape": shape, "skipped":
                                  SCHEMAS[shape] + " is not installed"}))
                continue
            for program in [args.server] + args.vs:
                print(json.dumps(measure(program, shape, args, d)),
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
