#!/usr/bin/env python3
"""tests/engine/fuzz.py: differential fuzz of the engine against the
reference ovsdb-tool.

Usage: fuzz.py OURS-EXEC REF-TOOL SEED N

Generates N random transactions (fixed SEED) over two built-in schemas,
one with every atomic type and constraints, one with strong and weak
references, garbage collection, an index and maxRows; runs each through the
reference ("ovsdb-tool transact", one process per transaction, on a file)
and through ours ("ovsdb-exec --db", likewise); compares the replies with
UUIDs masked, rows sorted and "details" ignored.  Exits 1 on any
difference.  Columns that are sets with a minimum of 1 are left out: the
reference reads back its own diff records for them differently from what
it had in memory (see DESIGN.md)."""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

TYPES = {"name": "m", "tables": {"T": {"columns": {
    "i": {"type": "integer"}, "r": {"type": "real"},
    "b": {"type": "boolean"}, "s": {"type": "string"},
    "u": {"type": "uuid"},
    "ic": {"type": {"key": {"type": "integer", "minInteger": 0,
                            "maxInteger": 100}}},
    "e": {"type": {"key": {"type": "string", "enum": ["set", ["a", "b"]]},
                   "min": 0, "max": 2}},
    "is": {"type": {"key": "integer", "min": 0, "max": 3}},
    "ss": {"type": {"key": "string", "min": 0, "max": "unlimited"}},
    "sm": {"type": {"key": "string", "value": "integer", "min": 0,
                    "max": 2}},
    "imm": {"type": "integer", "mutable": False}}, "isRoot": True}}}

REFS = {"name": "r", "tables": {
    "Root": {"columns": {
        "name": {"type": "string"},
        "kids": {"type": {"key": {"type": "uuid", "refTable": "Kid"},
                          "min": 0, "max": "unlimited"}},
        "weak": {"type": {"key": {"type": "uuid", "refTable": "Kid",
                                  "refType": "weak"},
                          "min": 0, "max": "unlimited"}}},
             "isRoot": True, "indexes": [["name"]]},
    "Kid": {"columns": {
        "n": {"type": "integer"},
        "next": {"type": {"key": {"type": "uuid", "refTable": "Kid"},
                          "min": 0, "max": 1}}},
            "maxRows": 6}}}

KINDS = {"i": "int", "r": "real", "b": "bool", "s": "str", "u": "uuid",
         "ic": "int", "e": "enum", "is": "iset", "ss": "sset", "sm": "smap",
         "imm": "int"}
VALUES = {
    "int": [0, 1, -1, 5, 100, 101, 2**62, -2**63, 2**63 - 1, 1.5, "x",
            True, ["set", [1, 2]], ["set", []]],
    "real": [0, 1.5, -2.25, 1e300, "x", ["set", []], 3],
    "bool": [True, False, 1, "true", ["set", [True]]],
    "str": ["", "a", "abc", "\u00e9", 1, ["set", ["a", "b"]]],
    "uuid": [["uuid", "12345678-1234-1234-1234-123456789012"],
             ["named-uuid", "x"], "x", ["uuid", "bad"]],
    "enum": ["a", "c", ["set", ["a", "b"]], ["set", ["a", "a"]],
             ["set", []]],
    "iset": [1, ["set", []], ["set", [1, 2]], ["set", [1, 2, 3, 4]],
             ["set", [3, 1]], ["set", [1, 1]], "x"],
    "sset": ["a", ["set", []], ["set", ["a", "b", "c"]],
             ["set", ["b", "b"]], 5],
    "smap": [["map", []], ["map", [["a", 1]]],
             ["map", [["a", 1], ["b", 2], ["c", 3]]],
             ["map", [["a", 1], ["a", 2]]], ["set", ["a"]],
             ["map", [["a", "x"]]]],
}


def types_txn(rnd):
    cols = sorted(KINDS)

    def val(c):
        return rnd.choice(VALUES[KINDS[c]])

    def cond():
        c = rnd.choice(cols)
        return [c, rnd.choice(["==", "!=", "<", "<=", ">", ">=", "includes",
                               "excludes"]), val(c)]

    ops = []
    for _ in range(rnd.randint(1, 3)):
        t = rnd.choice(["insert", "insert", "select", "update", "mutate",
                        "delete"])
        if t == "insert":
            row = {c: val(c) for c in rnd.sample(cols, rnd.randint(0, 3))}
            ops.append({"op": "insert", "table": "T", "row": row})
        elif t == "select":
            ops.append({"op": "select", "table": "T",
                        "where": [cond() for _ in range(rnd.randint(0, 2))],
                        "columns": ["i", "is", "sm", "ss", "e"]})
        elif t == "update":
            row = {c: val(c) for c in rnd.sample(cols, rnd.randint(1, 2))}
            ops.append({"op": "update", "table": "T",
                        "where": [cond() for _ in range(rnd.randint(0, 1))],
                        "row": row})
        elif t == "mutate":
            muts = [[c, rnd.choice(["+=", "-=", "*=", "/=", "%=", "insert",
                                    "delete"]), val(c)]
                    for c in rnd.sample(cols, rnd.randint(1, 2))]
            ops.append({"op": "mutate", "table": "T",
                        "where": [cond() for _ in range(rnd.randint(0, 1))],
                        "mutations": muts})
        else:
            ops.append({"op": "delete", "table": "T", "where": [cond()]})
    return ["m"] + ops


def refs_txn(rnd):
    names = ["a", "b", "c", "d"]

    def kid():
        return rnd.choice([["named-uuid", "k1"], ["named-uuid", "k2"],
                           ["uuid", "12345678-1234-1234-1234-123456789012"]])

    ops = []
    defined = set()
    for _ in range(rnd.randint(1, 4)):
        t = rnd.choice(["ik", "ir", "ur", "dk", "dr", "mr", "uk"])
        if t == "ik":
            name = rnd.choice(["k1", "k2"])
            if name in defined:
                continue
            defined.add(name)
            row = {"n": rnd.randint(0, 5)}
            if rnd.random() < 0.4:
                row["next"] = kid()
            ops.append({"op": "insert", "table": "Kid", "row": row,
                        "uuid-name": name})
        elif t == "ir":
            row = {"name": rnd.choice(names)}
            for c, p in (("kids", 0.6), ("weak", 0.5)):
                if rnd.random() < p:
                    row[c] = ["set", [kid() for _ in range(rnd.randint(0, 2))]]
            ops.append({"op": "insert", "table": "Root", "row": row})
        elif t == "ur":
            ops.append({"op": "update", "table": "Root",
                        "where": [["name", "==", rnd.choice(names)]],
                        "row": {rnd.choice(["kids", "weak"]):
                                ["set", [kid() for _ in
                                         range(rnd.randint(0, 1))]]}})
        elif t == "dk":
            ops.append({"op": "delete", "table": "Kid",
                        "where": [["n", "==", rnd.randint(0, 5)]]})
        elif t == "dr":
            ops.append({"op": "delete", "table": "Root",
                        "where": [["name", "==", rnd.choice(names)]]})
        elif t == "mr":
            ops.append({"op": "mutate", "table": "Root", "where": [],
                        "mutations": [[rnd.choice(["kids", "weak"]),
                                       rnd.choice(["insert", "delete"]),
                                       ["set", [kid()]]]]})
        else:
            ops.append({"op": "update", "table": "Kid",
                        "where": [["n", "==", rnd.randint(0, 5)]],
                        "row": {"next": ["set", []]}})
    ops.append({"op": "select", "table": "Kid", "where": [],
                "columns": ["n"]})
    return ["r"] + ops


UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                  r'[0-9a-f]{12}')


def normalize(text):
    text = UUID.sub("U", text)
    try:
        value = json.loads(text)
    except ValueError:
        return text

    def walk(x):
        if isinstance(x, dict):
            x = {k: walk(v) for k, v in x.items() if k != "details"}
            if isinstance(x.get("rows"), list):
                x["rows"] = sorted(x["rows"],
                                   key=lambda r: json.dumps(r, sort_keys=True))
            return x
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x
    return json.dumps(walk(value), sort_keys=True)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return (p.stdout + p.stderr).strip()


def main():
    ours, ref, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    rnd = random.Random(seed)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for schema, gen in ((TYPES, types_txn), (REFS, refs_txn)):
            path = os.path.join(tmp, schema["name"] + ".ovsschema")
            with open(path, "w") as f:
                json.dump(schema, f)
            ref_db = os.path.join(tmp, schema["name"] + ".ref")
            our_db = os.path.join(tmp, schema["name"] + ".ours")
            subprocess.run([ref, "create", ref_db, path], check=True)
            open(our_db, "w").close()
            for i in range(n):
                txn = json.dumps(gen(rnd))
                expected = run([ref, "transact", ref_db, txn])
                got = run([ours, "--db", our_db, path, txn])
                if normalize(expected) != normalize(got):
                    failures += 1
                    print("MISMATCH %s #%d: %s\n  reference: %s\n  ours:      %s"
                          % (schema["name"], i, txn, expected, got))
            print("%s: %d transactions" % (schema["name"], n))
    print("%d mismatches" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
