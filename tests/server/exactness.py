"""tests/server/exactness.py: exchanges where our server must answer
exactly as the reference 3.1 does (issue 20).

usage: exactness.py CASE REMOTE

Runs the exchange CASE against a server serving the Example schema
(ovsdb/schemas/example.ovsschema) and prints a transcript: for each
request, the notifications that arrived before its reply (sorted, since
the order among monitors is not specified), then the reply.  So an update
sent after a reply instead of before it shows in the wrong place.  UUIDs
returned by inserts are named row0, row1, ... in op order, other UUIDs
are masked.  tests/server/exactness.sh diffs our transcript with the
reference's.
"""
import json
import re
import sys

from rpc import Client, UUID_RE

DB = "Example"


def insert(name, **cols):
    row = {"name": name}
    row.update(cols)
    return {"op": "insert", "table": "Host", "row": row}


def transact(*ops):
    return ("transact", [DB] + list(ops))


CLEAR = transact({"op": "delete", "table": "Host", "where": []},
                 {"op": "delete", "table": "Interface", "where": []})

CASES = {
    # "lock", "steal" and "unlock" take an <id> (RFC 7047 section 3.1).
    "lock-names": [
        ("lock", [""]), ("lock", ["a b"]), ("lock", ["1abc"]),
        ("steal", ["1abc"]), ("unlock", ["1abc"]), ("lock", ["_ok-x"]),
        ("lock", ["ok.x"]), ("unlock", [""]), ("lock", [1]),
        ("lock", ["\u00e9"]), ("lock", ["_ok"]), ("steal", ["a_1Z"]),
        ("unlock", ["_ok"]), ("lock", ["a", "b"]), ("unlock", ["zz"]),
    ],
    # One column in two requests for one table is an error; disjoint
    # columns each keep their own "select".
    "monitor-columns": [
        transact(insert("h1", address=["set", ["a"]])),
        ("monitor", [DB, "m1", {"Host": [{"columns": ["name"]},
                                         {"columns": ["name", "address"]}]}]),
        ("monitor", [DB, "m1", {"Host": [{"columns": ["name"]}, {}]}]),
        ("monitor", [DB, "m1", {"Host": [{}, {"columns": ["name"]}]}]),
        ("monitor", [DB, "m1", {"Host": [{"columns": ["name", "name"]}]}]),
        ("monitor_cond", [DB, "m1", {"Host": [{"columns": ["name"]},
                                              {"columns": ["name"]}]}]),
        ("monitor", [DB, "m2", {"Host": [{"columns": ["name"]},
                                         {"columns": ["address"]}]}]),
        ("monitor_cond", [DB, "m3", {"Host": [
            {"columns": ["name"], "select": {"initial": False}},
            {"columns": ["address"]}]}]),
        ("monitor", [DB, "m4", {"Host": [
            {"columns": ["name"],
             "select": {"initial": False, "modify": False}},
            {"columns": ["address"], "select": {"insert": False}}]}]),
        ("monitor", [DB, "m5", {"Host": [
            {"columns": ["name"], "select": {"delete": False}},
            {"columns": ["address"], "select": {"initial": False}}]}]),
        ("monitor_cond", [DB, "m6", {"Host": [
            {"columns": ["name"], "where": [["address", "includes", "a"]]}]}]),
        ("monitor", [DB, "m7", {"Host": [{"columns": []}]}]),
        transact({"op": "update", "table": "Host", "where": [],
                  "row": {"name": "h2"}}),
        transact({"op": "update", "table": "Host", "where": [],
                  "row": {"address": ["set", ["a", "b"]]}}),
        transact(insert("h3")),
        transact({"op": "delete", "table": "Host", "where": []}),
    ],
    # The updates a condition change causes come before its reply; "select"
    # applies to them; a "monitor" (v1) has no condition to change.
    "cond-change": [
        transact(insert("h1"), insert("h2")),
        ("monitor_cond", [DB, "m1", {"Host": [
            {"columns": ["name"], "where": [["name", "==", "h1"]]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": [
            {"where": [["name", "==", "h2"]]}]}]),
        ("monitor_cond_change", ["m1", "m2", {"Host": [
            {"where": [False]}]}]),
        ("monitor_cond_since", [DB, "m3", {"Host": [
            {"columns": ["name"], "where": [["name", "==", "h1"]]}]},
            "00000000-0000-0000-0000-000000000000"]),
        ("monitor_cond_change", ["m3", "m3", {"Host": [{"where": [True]}]}]),
        ("monitor", [DB, "m4", {"Host": [
            {"columns": ["name"], "select": {"insert": False}}]}]),
        ("monitor_cond_change", ["m4", "m4", {"Host": [
            {"where": [["name", "==", "h2"]]}]}]),
        ("monitor_cond", [DB, "m5", {"Host": [
            {"columns": ["name"], "select": {"insert": False},
             "where": [False]}]}]),
        ("monitor_cond_change", ["m5", "m5", {"Host": [{"where": [True]}]}]),
        ("monitor_cond", [DB, "m6", {"Host": [
            {"columns": ["name"], "select": {"delete": False}}]}]),
        ("monitor_cond_change", ["m6", "m6", {"Host": [{"where": [False]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": [
            {"where": [["name", "==", "h3"]]}]}]),
        ("monitor_cond_change", ["m9", "m1", {}]),
        ("monitor_cond_change", ["m2", "m2", {"Host": [
            {"columns": ["name"]}]}]),
        ("monitor_cond_change", ["m2", "m2", {"Host": [
            {"where": [["nope", "==", 1]]}]}]),
        transact(insert("h3")),
        transact({"op": "delete", "table": "Host", "where": []}),
    ],
    # The errors of monitor_cond_change, word for word.  (Not sent: a
    # request without "where", which the reference 3.1 crashes on.)
    "cond-change-errors": [
        ("monitor_cond", [DB, "m1", {"Host": [
            {"columns": ["name"], "where": [["name", "==", "h1"]]}]}]),
        ("monitor", [DB, "v1", {"Host": [{"columns": ["name"]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Nope": [{"where": [True]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Interface": [
            {"where": [True]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": {"where": [True]}}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": [
            {"columns": ["name"]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": [
            {"where": [["nope", "==", 1]]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": [{"bogus": 1}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": [{"where": 1}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": [7]}]),
        ("monitor_cond_change", ["m1", "m1", []]),
        ("monitor_cond_change", ["m9", "m1", {}]),
        ("monitor_cond_change", ["m1"]),
        ("monitor_cond_change", ["m1", "v1", {}]),
        ("monitor_cond_change", ["v1", "v1", {"Host": [
            {"where": [["nope", "==", 1]]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": [
            {"where": [True]}, {"where": [False]}]}]),
        ("monitor_cond_change", ["m1", "m1", {"Host": []}]),
        transact(insert("h4")),
    ],
    # monitor_cond_since checks the duplicate id, then the requests, then
    # <last-txn-id>, with the reference's words; a refused request leaves
    # no monitor behind.
    "since-errors": [
        ("monitor_cond_since", [DB, "s1", {"Nope": []}, None]),
        ("monitor_cond_since", [DB, "s1", {"Host": [
            {"columns": ["name"]}]}, None]),
        ("monitor_cond_since", [DB, "s1", {"Host": [
            {"columns": ["name"]}]}, 5]),
        ("monitor_cond_since", [DB, "s1", {"Host": [
            {"columns": ["name"]}]}, "abc"]),
        ("monitor_cond_since", [DB, "s1", {"Host": [
            {"columns": ["name"]}]}, "00000000-0000-0000-0000-000000000000"]),
        ("monitor_cond_since", [DB, "s1", {"Nope": []}, None]),
        transact(insert("h5")),
    ],
}


def big_hosts(prefix, n, **extra):
    """'n' Host inserts of about 300 bytes each: 250 make a request of more
    than 64 kB, which our server parses one operation at a time."""
    return [insert("%s%d" % (prefix, i),
                   external_ids=["map", [["k%d" % j,
                                          "%s-%d-%d-value" % (prefix, i, j)]
                                         for j in range(8)]], **extra)
            for i in range(n)]


def big_transact(*ops, db=DB):
    params = [db] + list(ops)
    assert len(json.dumps(params)) >= 64 * 1024
    return ("transact", params)


WAIT_NONE = {"op": "wait", "table": "Host", "where": [["name", "==", "b0"]],
             "columns": ["name"], "until": "==", "rows": []}

CASES["big-transact"] = [
    # Inserts with uuid-names that later operations refer to, a comment,
    # a mutation of 3,000 map elements.
    big_transact(*([{"op": "insert", "table": "Interface",
                     "uuid-name": "i%d" % i, "row": {"name": "i%d" % i}}
                    for i in range(200)]
                   + big_hosts("b", 300, interfaces=["named-uuid", "i7"])
                   + [{"op": "comment", "comment": "x" * 1000}])),
    big_transact({"op": "mutate", "table": "Host",
                  "where": [["name", "==", "b1"]],
                  "mutations": [["external_ids", "insert",
                                 ["map", [["m%d" % j, "v" * 20]
                                          for j in range(3000)]]]]}),
    transact({"op": "select", "table": "Host",
              "where": [["name", "==", "b1"]], "columns": ["external_ids"]}),
    # Failures in the middle: an unknown column, an operation that is not
    # an object, an unknown operation, an abort, a failed constraint.
    big_transact(*(big_hosts("c", 250) + [insert("c-x", nope=1)]
                   + big_hosts("d", 200))),
    big_transact(*(big_hosts("e", 250) + [5] + big_hosts("f", 200))),
    big_transact(*(big_hosts("g", 250) + [{"op": "frobnicate"}]
                   + big_hosts("h", 200))),
    big_transact(*(big_hosts("j", 250) + [{"op": "abort"}])),
    # (Not sent: a row that duplicates an index, whose two rows the
    # reference 3.1 names in an order its hash map decides; ours names them
    # as later releases do, by their columns in name order.)
    big_transact(*(big_hosts("k", 250)
                   + [{"op": "insert", "table": "Interface",
                       "row": {"name": "bad", "mtu": 5}}])),
    # A failure at commit: one row refers to a row that does not exist.
    big_transact(*(big_hosts("p", 250)
                   + [insert("p-x", interfaces=[
                       "uuid", "12345678-1234-1234-1234-123456789abc"])])),
    # The database: unknown, not a string, the wrong one.
    big_transact(*big_hosts("l", 300), db="Nope"),
    big_transact(*big_hosts("l", 300), db=1),
    big_transact(*big_hosts("l", 300), db="_Server"),
    # "wait": satisfied, unsatisfied at once, unsatisfied until it times
    # out (it waits, then runs again from the whole request).
    big_transact(*([dict(WAIT_NONE, rows=[{"name": "b0"}])]
                   + big_hosts("m", 300))),
    big_transact(*(big_hosts("n", 300) + [dict(WAIT_NONE, timeout=0)])),
    big_transact(*(big_hosts("o", 300) + [dict(WAIT_NONE, timeout=30)])),
    transact(*[{"op": "select", "table": "Host",
                "where": [["name", "==", name]], "columns": ["name"]}
               for name in ["b299", "m5", "c5", "e5", "g5", "j5", "k5", "l5",
                            "n5", "o5"]]),
]


class Transcript:
    def __init__(self):
        self.names = {}

    def learn(self, reply):
        for res in reply.get("result") or []:
            if isinstance(res, dict) and isinstance(res.get("uuid"), list):
                self.names.setdefault(res["uuid"][1], "row%d" % len(self.names))

    def text(self, obj):
        # Mask first, then sort: row uuids are object keys, and sorting by
        # the random uuids would order the rows differently in each run.
        masked = UUID_RE.sub(lambda m: self.names.get(m.group(0), "<uuid>"),
                             json.dumps(obj))
        # How long a "wait" waited depends on the machine.
        masked = re.sub(r"timed out after \d+ ms", "timed out after N ms",
                        masked)
        return json.dumps(json.loads(masked), sort_keys=True)


def run(case, remote):
    c = Client(remote)
    t = Transcript()
    steps = [CLEAR] + CASES[case] + [("echo", ["barrier"])]
    for i, (method, params) in enumerate(steps):
        rid = c.request(method, params)
        notes = []
        while True:
            msg = c.recv()
            if msg.get("id") == rid and "method" not in msg:
                break
            notes.append(msg)
        if method == "transact":
            t.learn(msg)
        if i == 0:
            continue
        for text in sorted(t.text(n) for n in notes):
            print("  note: " + text)
        print("%s: %s" % (method, t.text(msg)))


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2])
