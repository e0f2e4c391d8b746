#!/usr/bin/env python3
"""tests/cluster/raft-trim.py: cuts a raft-capture trace into small files.

Usage: raft-trim.py CAPTURE-DIR OUTDIR

Reads CAPTURE-DIR/trace.jsonl and steps.jsonl (written by raft-capture)
and writes OUTDIR/NN-STEP.jsonl, one file per step of the scenario, with
at most KEEP messages of each kind (method, comment, with or without log
entries) per step, in their original order.  Each line is
    {"t": SECONDS-SINCE-START, "src": "s2", "dst": "s1",
     "via": "s1#3 c2s", "msg": {...}}
where "src"/"dst" name the members (found from the server IDs and the
addresses they announce), and "via" is the proxy (the member whose
listening socket was connected to), its connection number and direction.
The capture directory's path is replaced by "/raft" everywhere.
"""

import json
import os
import re
import sys

KEEP = 2


def main():
    cap, outdir = sys.argv[1], sys.argv[2]
    cap = os.path.abspath(cap)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(cap, "trace.jsonl")) as f:
        text = f.read().replace(cap + "/", "/raft/")
    records = [json.loads(line) for line in text.splitlines()]
    with open(os.path.join(cap, "steps.jsonl")) as f:
        steps = [json.loads(line) for line in f]
    t0 = steps[0]["t"]

    names = {}
    for r in records:
        params = r.get("msg", {}).get("params") or [{}]
        p = params[0] if isinstance(params[0], dict) else {}
        m = re.search(r"/raft/(s\d+)\.sock$", p.get("address", ""))
        if m and "from" in p:
            names[p["from"]] = m.group(1)
        for key in ("last_servers",):
            for sid, addr in (p.get(key) or {}).items():
                m = re.search(r"/raft/(s\d+)\.sock$", addr)
                if m:
                    names[sid] = m.group(1)

    # Which member each connection's connector is, from the first message
    # that carries "from" in the c2s direction.
    connector = {}
    for r in records:
        params = r.get("msg", {}).get("params") or [{}]
        p = params[0] if isinstance(params[0], dict) else {}
        key = (r["proxy"], r["conn"])
        if r["dir"] == "c2s" and "from" in p and key not in connector:
            connector[key] = names.get(p["from"], p["from"][:4])

    for i, step in enumerate(steps[:-1]):
        start, end = step["t"], steps[i + 1]["t"]
        seen = {}
        lines = []
        for r in records:
            if not (start <= r["t"] < end) or "msg" not in r:
                continue
            msg = r["msg"]
            params = msg.get("params") or [{}]
            p = params[0] if isinstance(params[0], dict) else {}
            kind = (msg.get("method") or "reply", p.get("comment"),
                    bool(p.get("log")))
            seen[kind] = seen.get(kind, 0) + 1
            if seen[kind] > KEEP:
                continue
            listener = r["proxy"]
            other = connector.get((r["proxy"], r["conn"]), "?")
            src, dst = ((other, listener) if r["dir"] == "c2s"
                        else (listener, other))
            lines.append({"t": round(r["t"] - t0, 3), "src": src,
                          "dst": dst,
                          "via": "%s#%d %s" % (r["proxy"], r["conn"],
                                                r["dir"]),
                          "msg": msg})
        slug = re.sub(r"[^a-z0-9]+", "-", step["step"].lower()).strip("-")
        path = os.path.join(outdir, "%02d-%s.jsonl" % (i + 1, slug))
        with open(path, "w") as f:
            for line in lines:
                f.write(json.dumps(line, sort_keys=True,
                                   separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
