"""tests/server/scenarios.py: JSON-RPC exchanges with an OVSDB server.

usage: scenarios.py SCENARIO REMOTE

Each scenario talks to a server that serves the Example schema
(ovsdb/schemas/example.ovsschema), checks what it must (exits 1 with a
message on failure), and prints a transcript, one "label: json" line per
reply or notification, with UUIDs replaced by names.  tests/server/lib.sh
runs a scenario against our server and the reference and diffs the
transcripts.  TARGET=ref in the environment marks the reference, for the
few checks where we deliberately differ (documented at each).
"""
import json
import os
import sys
import time

from rpc import Client, Closed, UUID_RE

REF = os.environ.get("TARGET") == "ref"
DB = "Example"
ZERO = "00000000-0000-0000-0000-000000000000"


class Transcript:
    def __init__(self):
        self.names = {}

    def name(self, uuid, name):
        self.names[uuid] = name

    def mask(self, obj):
        text = json.dumps(obj, sort_keys=True)
        text = UUID_RE.sub(lambda m: self.names.get(m.group(0), "<uuid>"),
                           text)
        return json.loads(text)

    def show(self, label, obj):
        # Rows of a select come in hash order: sort them.
        if isinstance(obj, dict) and isinstance(obj.get("result"), list):
            for res in obj["result"]:
                if isinstance(res, dict) and isinstance(res.get("rows"), list):
                    res["rows"].sort(key=lambda r: json.dumps(r,
                                                              sort_keys=True))
        print("%s: %s" % (label, json.dumps(self.mask(obj), sort_keys=True)))


T = Transcript()


def check(cond, msg):
    if not cond:
        print("CHECK FAILED: " + msg)
        sys.exit(1)


def ok(reply):
    check(reply.get("error") is None, "unexpected error %r" % (reply,))
    return reply["result"]


def txn(c, *ops):
    return c.call("transact", [DB] + list(ops))


def insert_host(c, name, label, **cols):
    row = {"name": name}
    row.update(cols)
    r = ok(txn(c, {"op": "insert", "table": "Host", "row": row}))
    check("uuid" in r[0], "insert failed: %r" % (r,))
    T.name(r[0]["uuid"][1], label)
    return r[0]["uuid"][1]


def scenario_basic(remote):
    c = Client(remote)
    T.show("list_dbs", c.call("list_dbs", []))
    check(ok(c.call("list_dbs", [])) == ["Example", "_Server"], "list_dbs")
    schema = ok(c.call("get_schema", [DB]))
    check(sorted(schema["tables"]) == ["Host", "Interface"], "get_schema")
    T.show("get_schema", schema)
    sid = ok(c.call("get_server_id", []))
    check(UUID_RE.fullmatch(sid) is not None, "server id %r" % sid)
    check(ok(c.call("get_server_id", [])) == sid, "server id stable")
    T.show("echo", c.call("echo", ["a", 1, {"b": [2]}]))
    T.show("unknown method", c.call("frobnicate", []))
    T.show("get_schema unknown", c.call("get_schema", ["Nope"]))
    # Open vSwitch 3.1's Python IDL sends ["_Server", <uuid>]: only the
    # first parameter counts.
    extra = c.call("get_schema", ["_Server", ZERO])
    check(extra.get("error") is None, "get_schema with an extra parameter")
    T.show("get_schema extra", extra)
    T.show("get_schema none", c.call("get_schema", []))
    T.show("get_schema number", c.call("get_schema", [5]))
    T.show("transact unknown db", c.call("transact",
                                         ["Nope", {"op": "comment",
                                                   "comment": "x"}]))
    T.show("transact no db", c.call("transact", []))
    T.show("transact empty", c.call("transact", [DB]))
    T.show("transact not object", c.call("transact", [DB, 5]))
    T.show("set_db_change_aware", c.call("set_db_change_aware", [True]))

    a = insert_host(c, "a", "host-a",
                    address=["set", ["10.0.0.1", "10.0.0.2"]],
                    external_ids=["map", [["k", "v"]]])
    T.show("select", txn(c, {"op": "select", "table": "Host", "where": [],
                             "columns": ["name", "address", "external_ids"]}))
    T.show("update", txn(c, {"op": "update", "table": "Host",
                             "where": [["_uuid", "==", ["uuid", a]]],
                             "row": {"name": "a2"}}))
    T.show("mutate", txn(c, {"op": "mutate", "table": "Host",
                             "where": [["name", "==", "a2"]],
                             "mutations": [["address", "insert",
                                            ["set", ["10.0.0.3"]]]]}))
    # (Only the error tag: the engine names the two rows in another order.)
    r = txn(c, {"op": "insert", "table": "Host", "row": {"name": "a2"}})
    T.show("index violation", r["result"][-1]["error"])
    T.show("constraint", txn(c, {"op": "insert", "table": "Interface",
                                 "row": {"name": "i", "mtu": 1}}))
    T.show("refint", txn(c, {"op": "update", "table": "Host", "where": [],
                             "row": {"interfaces":
                                     ["uuid", ZERO]}}))
    T.show("abort", txn(c, {"op": "insert", "table": "Host",
                            "row": {"name": "zz"}}, {"op": "abort"}))
    T.show("comment", txn(c, {"op": "comment", "comment": "hello"}))
    T.show("assert unowned", txn(c, {"op": "assert", "lock": "nolock"}))
    T.show("select after", txn(c, {"op": "select", "table": "Host",
                                   "where": [], "columns": ["name",
                                                            "address"]}))
    # Open vSwitch's "sort" member of select: rows in the order of the
    # listed columns (checked here, since show() sorts rows).
    for name, addr in (("h3", "10.0.0.5"), ("h1", "10.0.0.9"),
                       ("h2", "10.0.0.5")):
        insert_host(c, name, name, address=addr)
    others = [["name", "!=", "a2"]]
    r = txn(c, {"op": "select", "table": "Host", "where": others,
                "columns": ["name"], "sort": ["address", "name"]})
    names = [row["name"] for row in r["result"][0]["rows"]]
    check(names == ["h2", "h3", "h1"], "select sorted by address, name: %r"
          % names)
    r = txn(c, {"op": "select", "table": "Host", "where": others,
                "columns": ["address"], "sort": ["address"]})
    check(r["result"][0]["rows"] == [{"address": "10.0.0.5"},
                                     {"address": "10.0.0.9"}],
          "select distinct, sorted: %r" % r["result"][0]["rows"])
    T.show("sort unknown column",
           txn(c, {"op": "select", "table": "Host", "where": [],
                   "sort": ["nope"]}))
    T.show("sort not array",
           txn(c, {"op": "select", "table": "Host", "where": [],
                   "sort": "name"}))
    T.show("delete", txn(c, {"op": "delete", "table": "Host", "where": []}))
    T.show("_Server select", c.call("transact", ["_Server", {
        "op": "select", "table": "Database", "where": [],
        "columns": ["name", "model", "connected", "leader", "cid", "sid",
                    "index"]}]))

    # Pipelined requests are answered in order.
    ids = [c.request("echo", [i]) for i in range(20)]
    for i, rid in enumerate(ids):
        r = c.wait_reply(rid)
        check(r["result"] == [i], "pipelined echo %d" % i)


def scenario_monitor(remote):
    c = Client(remote)       # Does the transactions.
    m = Client(remote)       # Monitors.
    a = insert_host(c, "a", "host-a", address=["set", ["x", "y"]])

    T.show("monitor v1", m.call("monitor", [DB, "v1", {
        "Host": {"columns": ["name", "address"]}}]))
    T.show("monitor v2", m.call("monitor_cond", [DB, "v2", {
        "Host": [{"columns": ["name", "address", "external_ids"],
                  "where": [["name", "==", "b"]]}]}]))
    T.show("monitor v2 all", m.call("monitor_cond", [DB, "all", {
        "Host": [{"columns": ["name", "address", "external_ids"]}],
        "Interface": [{}]}]))
    T.show("monitor v2 noinitial", m.call("monitor_cond", [DB, "ni", {
        "Host": [{"columns": ["name"],
                  "select": {"initial": False, "modify": False}}]}]))
    T.show("monitor v3", m.call("monitor_cond_since", [DB, "v3", {
        "Host": [{"columns": ["name"]}]}, ZERO])["result"][2])
    T.show("duplicate id", m.call("monitor", [DB, "v1", {"Host": {}}]))
    T.show("unknown table", m.call("monitor", [DB, "x", {"Nope": {}}]))
    T.show("unknown column", m.call("monitor_cond", [DB, "x", {
        "Host": [{"columns": ["zz"]}]}]))
    T.show("dup column", m.call("monitor_cond", [DB, "x", {
        "Host": [{"columns": ["name", "name"]}]}]))
    T.show("bad where", m.call("monitor_cond", [DB, "x", {
        "Host": [{"where": [["zz", "==", 1]]}]}]))
    T.show("where in v1", m.call("monitor", [DB, "x", {
        "Host": {"where": []}}]))
    T.show("bad select", m.call("monitor", [DB, "x", {
        "Host": {"select": {"initial": 1}}}]))
    T.show("requests not object", m.call("monitor", [DB, "x", []]))

    def step(label, *ops, name=None):
        # The monitors are on another connection: collect their updates
        # after the reply.
        r = txn(c, *ops)
        if name:
            T.name(r["result"][0]["uuid"][1], name)
        T.show(label, r)
        notes = m.no_notify(0.5)
        notes.sort(key=lambda n: (n["method"], json.dumps(n["params"][0])))
        for n in notes:
            T.show("  " + n["method"], n["params"] if n["method"] != "update3"
                   else [n["params"][0], n["params"][2]])
        return notes

    notes = step("insert b", {"op": "insert", "table": "Host",
                              "row": {"name": "b", "address": "z",
                                      "external_ids": ["map",
                                                       [["k", "v"]]]}},
                 name="host-b")
    b_uuid = [u for u, n in T.names.items() if n == "host-b"][0]
    check(len(notes) == 5, "5 monitors see the insert, got %d" % len(notes))
    for n in notes:
        check(b_uuid in n["params"][-1]["Host"], "b in %r" % (n,))
    step("modify b", {"op": "update", "table": "Host",
                      "where": [["name", "==", "b"]],
                      "row": {"address": ["set", ["z", "w"]],
                              "external_ids": ["map", [["k", "v2"],
                                                       ["k2", "q"]]]}})
    step("modify unmonitored column", {"op": "update", "table": "Host",
                                       "where": [["name", "==", "b"]],
                                       "row": {"interfaces": ["set", []]}})
    step("rename b out of v2 condition",
         {"op": "update", "table": "Host", "where": [["name", "==", "b"]],
          "row": {"name": "c"}})
    step("rename back into condition",
         {"op": "update", "table": "Host", "where": [["name", "==", "c"]],
          "row": {"name": "b"}})

    T.show("cond change", m.call("monitor_cond_change", ["v2", "v2b", {
        "Host": [{"where": [["name", "==", "a"]]}]}]))
    for n in m.no_notify(0.5):
        T.show("  " + n["method"], n["params"])
    T.show("cond change columns", m.call("monitor_cond_change", [
        "v2b", "v2b", {"Host": [{"columns": ["name"], "where": []}]}]))
    T.show("cond change unknown", m.call("monitor_cond_change", [
        "nope", "nope", {}]))
    T.show("cond change true", m.call("monitor_cond_change", ["v2b", "v2b", {
        "Host": [{"where": [True]}]}]))
    notes = m.no_notify(0.5)
    for n in notes:
        T.show("  " + n["method"], n["params"])
    check(len(notes) == 1 and b_uuid in notes[0]["params"][1]["Host"],
          "cond change to true inserts b")

    T.show("cancel", m.call("monitor_cancel", ["v1"]))
    T.show("cancel unknown", m.call("monitor_cancel", ["v1"]))
    step("delete all", {"op": "delete", "table": "Host", "where": []})

    # The requesting client's own monitor update comes before its reply.
    ok(c.call("monitor_cond", [DB, "self", {"Host": [{"columns": ["name"]}]}]))
    rid = c.request("transact", [DB, {"op": "insert", "table": "Host",
                                      "row": {"name": "self"}}])
    first = c.recv()
    check(first.get("method") == "update2",
          "update2 before the reply, got %r" % (first,))
    second = c.recv()
    check(second.get("id") == rid, "reply after the update")


def scenario_includes(remote):
    # [column, "includes", one element] conditions, which our server
    # answers through an index by elements for a set column (address) and
    # through the value index for a single-valued one (name): initial
    # contents, commits that add or remove the element, condition changes.
    c = Client(remote)
    m = Client(remote)          # One monitor per connection: no order
    n = Client(remote)          # between two monitors' updates to compare.
    for name, addr in [("a", ["x"]), ("b", ["x", "y"]), ("c", []),
                       ("d", ["y", "z"]), ("e", ["z"])]:
        insert_host(c, name, "host-" + name, address=["set", addr])
    cols = ["name", "address"]
    T.show("monitor includes x", m.call("monitor_cond", [DB, "m", {
        "Host": [{"columns": cols, "where": [["address", "includes", "x"]]}]}]))
    T.show("monitor includes y or name e", n.call("monitor_cond", [DB, "n", {
        "Host": [{"columns": cols,
                  "where": [["address", "includes", ["set", ["y"]]],
                            ["name", "includes", "e"]]}]}]))

    def step(label, *ops):
        T.show(label, txn(c, *ops))
        for mon in (m, n):
            for note in mon.no_notify(0.3):
                T.show("  " + note["method"], note["params"])

    def set_address(name, addr):
        step("address of %s := %s" % (name, addr),
             {"op": "update", "table": "Host", "where": [["name", "==", name]],
              "row": {"address": ["set", addr]}})

    set_address("c", ["x"])
    set_address("b", ["y"])
    set_address("a", ["x", "w"])
    set_address("d", ["z"])
    step("delete c", {"op": "delete", "table": "Host",
                      "where": [["name", "==", "c"]]})
    step("insert f", {"op": "insert", "table": "Host",
                      "row": {"name": "f", "address": ["set", ["y", "x"]]}})
    for mon, mid, where in [
            (m, "m", [["address", "includes", "y"]]),
            (m, "m", [["address", "includes", "z"],
                      ["address", "includes", "x"]]),
            (n, "n", [["name", "includes", "a"]]),
            (n, "n", [["address", "includes", ["set", []]]])]:
        T.show("change %s to %s" % (mid, json.dumps(where)),
               mon.call("monitor_cond_change", [mid, mid, {
                   "Host": [{"where": where}]}]))
        for note in mon.no_notify(0.3):
            T.show("  " + note["method"], note["params"])
    set_address("d", ["z", "x"])
    set_address("e", [])


def scenario_since(remote):
    """monitor_cond_since catch-up (ours keeps a history of transactions
    for every database; the reference only for clustered ones)."""
    c = Client(remote)
    m = Client(remote)
    insert_host(c, "a", "host-a")
    # As the reference's, the history holds at most as many atoms as the
    # database: a row of many atoms makes room for the changes below.
    insert_host(c, "filler", "host-filler", external_ids=[
        "map", [["k%d" % i, "v"] for i in range(100)]])
    req = {"Host": [{"columns": ["name", "address"]}]}
    found, last, init = ok(m.call("monitor_cond_since", [DB, "s", req, ZERO]))
    check(found is False, "zero id not found")
    check(len(init.get("Host", {})) == 2, "initial has a and filler")
    insert_host(c, "b", "host-b")
    n = m.wait_notify("update3")
    last = n["params"][1]
    check(UUID_RE.fullmatch(last) is not None, "update3 carries a txn id")
    m.close()

    # Three transactions while the client is away.
    c_uuid = insert_host(c, "c", "host-c")
    ok(txn(c, {"op": "update", "table": "Host", "where": [["name", "==", "a"]],
               "row": {"address": ["set", ["q"]]}}))
    ok(txn(c, {"op": "delete", "table": "Host",
               "where": [["name", "==", "b"]]}))

    m = Client(remote)
    r = ok(m.call("monitor_cond_since", [DB, "s", req, last]))
    if REF:
        return
    check(r[0] is True, "known id found")
    check(r[1] != last, "last id advanced")
    ups = r[2]["Host"]
    check(len(ups) == 3, "3 changed rows, got %r" % ups)
    check(ups[c_uuid] == {"insert": {"name": "c"}}, "c inserted")
    check(sorted(v and list(v)[0] for v in ups.values())
          == ["delete", "insert", "modify"], "kinds %r" % ups)

    m2 = Client(remote)
    r2 = ok(m2.call("monitor_cond_since", [DB, "s", req, r[1]]))
    check(r2[0] is True and r2[2] == {}, "up to date: nothing to send")
    r3 = ok(m2.call("monitor_cond_since", [DB, "t", req,
                                           "11111111-2222-3333-4444-555555555555"]))
    check(r3[0] is False and len(r3[2]["Host"]) == 3,
          "unknown id: full initial")


def scenario_locks(remote):
    a = Client(remote)
    b = Client(remote)
    d = Client(remote)
    T.show("a lock", a.call("lock", ["L"]))
    T.show("b lock", b.call("lock", ["L"]))
    T.show("a assert", txn(a, {"op": "assert", "lock": "L"}))
    T.show("b assert", txn(b, {"op": "assert", "lock": "L"}))
    T.show("b lock again", b.call("lock", ["L"]))
    T.show("b steal while waiting", b.call("steal", ["L"]))
    T.show("d steal", d.call("steal", ["L"]))
    T.show("a notes", a.no_notify())
    T.show("b notes", b.no_notify())
    T.show("a assert stolen", txn(a, {"op": "assert", "lock": "L"}))
    T.show("d unlock", d.call("unlock", ["L"]))
    T.show("a notes", a.no_notify())
    T.show("b notes", b.no_notify())
    T.show("unlock unknown", d.call("unlock", ["L"]))
    T.show("lock bad params", d.call("lock", []))
    T.show("lock two params", d.call("lock", ["A", "B"]))
    a.close()
    T.show("b notes after a closed", b.no_notify())
    T.show("b assert", txn(b, {"op": "assert", "lock": "L"}))


def scenario_wait(remote):
    c = Client(remote)
    w = Client(remote)
    insert_host(c, "a", "host-a")
    wait = {"op": "wait", "table": "Host", "where": [], "columns": ["name"],
            "until": "==", "rows": [{"name": "b"}]}
    t0 = time.time()
    r = txn(w, dict(wait, timeout=200))
    dt = time.time() - t0
    check(0.15 < dt < 3, "wait timed out after %.3f s" % dt)
    r["result"][0]["details"] = "<masked>"
    T.show("timed out", r)
    T.show("immediate", txn(w, dict(wait, timeout=0)))
    T.show("not equal", txn(w, dict(wait, until="!=", timeout=0)))

    # A waiting transaction completes when another client's commit makes
    # its condition true; meanwhile the connection keeps serving.
    rid = w.request("transact", [DB, dict(wait, timeout=10000),
                                 {"op": "insert", "table": "Host",
                                  "row": {"name": "after-wait"}}])
    T.show("echo while waiting", w.call("echo", ["x"]))
    T.show("update", txn(c, {"op": "update", "table": "Host", "where": [],
                             "row": {"name": "b"}}))
    r = w.wait_reply(rid)
    check("uuid" in r["result"][1], "insert after wait committed: %r" % r)
    T.show("wait done", r["result"][0])

    # "cancel" (RFC 7047 4.1.4): we answer the canceled request with the
    # "canceled" error as the RFC says; the reference 3.1 drops it without
    # a reply.
    never = dict(wait, rows=[{"name": "never"}], timeout=5000)
    rid = w.request("transact", [DB, never])
    w.send({"method": "cancel", "params": [rid], "id": None})
    if not REF:
        r = w.wait_reply(rid)
        check(r.get("error") == "canceled", "canceled: %r" % r)
    T.show("after cancel", w.call("echo", ["y"]))


def scenario_serverdb(remote):
    c = Client(remote)
    r = ok(c.call("monitor_cond", ["_Server", ["s"], {"Database": [{
        "columns": ["name", "model", "connected", "leader", "schema",
                    "cid", "sid", "index"]}]}]))
    for u, row in r["Database"].items():
        T.name(u, "db-" + row["initial"]["name"])
    rows = sorted(r["Database"].values(), key=lambda v: v["initial"]["name"])
    for row in rows:
        init = row["initial"]
        init["schema"] = json.loads(init["schema"])
        T.show("_Server row", row)
    check([v["initial"]["name"] for v in rows] == ["Example", "_Server"],
          "_Server rows")
    T.show("_Server v1", c.call("monitor", ["_Server", "v1", {
        "Database": {"columns": ["name", "cid", "sid", "index", "model"]}}]))
    T.show("_Server insert", c.call("transact", ["_Server", {
        "op": "insert", "table": "Database",
        "row": {"name": "x", "model": "standalone"}}])["result"][0]["error"])


def scenario_convert(remote):
    c = Client(remote)
    insert_host(c, "a", "host-a", address=["set", ["x"]])
    schema = ok(c.call("get_schema", [DB]))
    new = json.loads(json.dumps(schema))
    new["version"] = "1.1.0"
    new["tables"]["Host"]["columns"]["extra"] = {"type": "integer"}
    del new["tables"]["Host"]["columns"]["address"]

    aware = Client(remote)
    ok(aware.call("set_db_change_aware", [True]))
    ok(aware.call("monitor_cond", [DB, "m", {"Host": [{"columns": ["name"]}]}]))
    watcher = Client(remote)
    ok(watcher.call("set_db_change_aware", [True]))
    init = ok(watcher.call("monitor_cond", ["_Server", "s", {
        "Database": [{"columns": ["name", "schema"]}]}]))
    for u, row in init["Database"].items():
        T.name(u, "db-" + row["initial"]["name"])

    T.show("convert", c.call("convert", [DB, new]))
    T.show("aware notes", aware.no_notify())
    # We tell _Server monitors about the new schema; the reference 3.1
    # leaves the old schema in _Server for standalone databases.
    n = (watcher.wait_notify("update2", timeout=5) if not REF else
         {"params": [None, {"Database": {"x": {"modify": {"schema": json.dumps(new)}}}}]})
    rows = n["params"][1]["Database"]
    # A modify of the optional "schema" column is a set diff: old and new.
    texts = [r[k]["schema"] for r in rows.values()
             for k in r if k in ("insert", "modify")]
    texts = [t for v in texts
             for t in (v[1] if isinstance(v, list) else [v])]
    schemas = [json.loads(t) for t in texts]
    check(any(sc["version"] == "1.1.0" for sc in schemas),
          "_Server shows the new schema: %r" % n)

    c = Client(remote)
    T.show("new schema version", ok(c.call("get_schema", [DB]))["version"])
    T.show("rows kept", txn(c, {"op": "select", "table": "Host", "where": [],
                                "columns": ["name", "extra"]}))
    T.show("dropped column", txn(c, {"op": "select", "table": "Host",
                                     "where": [], "columns": ["address"]}))
    bad = dict(new, name="Other")
    T.show("name mismatch", c.call("convert", [DB, bad]))
    T.show("unknown db", c.call("convert", ["Nope", new])["error"]["error"])
    T.show("bad schema", c.call("convert", [DB, {"bad": 1}])["error"]["error"])
    T.show("convert _Server", c.call("convert", ["_Server", new]))


def scenario_no_monitor_cond(remote):
    """ovsdb-server/disable-monitor-cond: clients are disconnected, and
    monitor_cond and monitor_cond_since are unknown methods from then on;
    "monitor" still works."""
    from rpc import unixctl
    ctl = remote[len("unix:"):].rsplit(".", 1)[0] + ".ctl"
    req = {"Host": [{"columns": ["name"]}]}
    c = Client(remote)
    ok(c.call("monitor_cond", [DB, "m", req]))
    unixctl(ctl, "ovsdb-server/disable-monitor-cond")
    try:
        while True:
            c.recv()
    except Closed:
        pass
    c = Client(remote)
    T.show("monitor_cond", c.call("monitor_cond", [DB, "m", req]))
    T.show("monitor_cond_since",
           c.call("monitor_cond_since", [DB, "m", req, ZERO]))
    T.show("monitor", c.call("monitor", [DB, "m", req]))
    T.show("monitor_cond_change",
           c.call("monitor_cond_change", ["m", "m", {}]))


SCENARIOS = {name[len("scenario_"):]: fn
             for name, fn in globals().items() if name.startswith("scenario_")}

if __name__ == "__main__":
    SCENARIOS[sys.argv[1]](sys.argv[2])
