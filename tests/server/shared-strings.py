#!/usr/bin/env python3
"""tests/server/shared-strings.py STEP SOCKET CTL: one step of
tests/server/shared-strings.sh against the server on unix SOCKET (control
socket CTL), checked against the model in model.json (the current
directory), which each step updates.

Steps: "load" inserts 512 Binding rows whose options share 256 keys and 64
values and whose chassis names repeat, and prints memory/show's allocated
bytes per atom; "update" changes, adds and removes map entries and chassis
in some rows; "delete" deletes every third row; "check" only compares.
Every step ends by comparing every row with the model."""
import json
import re
import sys

import rpc

DB = "Workload"
N_ROWS, N_KEYS, N_VALUES = 512, 256, 64


def options_of(i):
    return {"key-%03d" % k: "shared value %d" % ((i + k) % N_VALUES)
            for k in range(N_KEYS)}


def row_json(row):
    return {"run": "shared", "chassis": row["chassis"],
            "logical_port": row["port"], "tunnel_key": row["key"],
            "options": ["map", sorted(row["options"].items())],
            "external_ids": ["map", [["owner", "compute:nova"]]]}


def transact(c, ops):
    """Runs 'ops'; exits unless the transaction and each operation
    succeeded."""
    reply = c.transact(DB, ops)
    results = reply.get("result") or []
    if reply.get("error") is not None or any(
            isinstance(r, dict) and "error" in r for r in results):
        sys.exit("transaction failed: %s" % str(reply)[:500])
    return results


def check(c, model):
    rows = transact(c, [{"op": "select", "table": "Binding",
                         "where": [["run", "==", "shared"]],
                         "columns": ["chassis", "logical_port", "tunnel_key",
                                     "options"]}])[0]["rows"]
    got = {r["logical_port"]: {"chassis": r["chassis"],
                               "port": r["logical_port"],
                               "key": r["tunnel_key"],
                               "options": dict(r["options"][1])}
           for r in rows}
    want = {r["port"]: r for r in model}
    if got != want:
        missing = sorted(set(want) - set(got))[:5]
        extra = sorted(set(got) - set(want))[:5]
        wrong = [p for p in sorted(set(got) & set(want))
                 if got[p] != want[p]][:5]
        sys.exit("rows differ from the model: missing %s, unexpected %s, "
                 "different %s" % (missing, extra, wrong))
    print("%d rows as the model" % len(rows))


def main():
    step, sock, ctl = sys.argv[1:4]
    c = rpc.Client("unix:" + sock)
    if step == "load":
        model = [{"chassis": "chassis-%d" % (i % 8), "port": "lp-%d" % i,
                  "key": i + 1, "options": options_of(i)}
                 for i in range(N_ROWS)]
        for first in range(0, N_ROWS, 64):
            transact(c, [{"op": "insert", "table": "Binding",
                          "row": row_json(r)}
                         for r in model[first:first + 64]])
        text = rpc.unixctl(ctl, "memory/show")
        atoms = int(re.search(r"atoms:(\d+)", text).group(1))
        alloc = int(re.search(r"\ballocated:(\d+) bytes", text).group(1))
        print("%d atoms, %.1f allocated bytes per atom (the whole server)"
              % (atoms, alloc / atoms))
    else:
        with open("model.json") as f:
            model = json.load(f)
    if step == "update":
        ops = []
        for i, r in enumerate(model):
            if i % 4 == 0:
                r["options"]["key-007"] = "changed %d" % (i % 3)
                ops.append({"op": "mutate", "table": "Binding",
                            "where": [["logical_port", "==", r["port"]]],
                            "mutations": [
                                ["options", "delete", ["set", ["key-007"]]],
                                ["options", "insert",
                                 ["map", [["key-007",
                                           r["options"]["key-007"]]]]]]})
            if i % 5 == 0:
                r["options"].pop("key-100", None)
                r["options"]["new key"] = "shared value 1"
                r["chassis"] = "chassis-moved"
                ops.append({"op": "update", "table": "Binding",
                            "where": [["logical_port", "==", r["port"]]],
                            "row": row_json(r)})
        transact(c, ops)
    elif step == "delete":
        gone = [r["port"] for i, r in enumerate(model) if i % 3 == 0]
        model = [r for i, r in enumerate(model) if i % 3]
        transact(c, [{"op": "delete", "table": "Binding",
                      "where": [["logical_port", "==", p]]} for p in gone])
    check(c, model)
    with open("model.json", "w") as f:
        json.dump(model, f)


if __name__ == "__main__":
    main()
