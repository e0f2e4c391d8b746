"""tests/workloads/ovnbench.py: the OVN-shaped workloads' table for bench.

bench runs ovn-fanout, ovn-storm and ovn-churn like the seed's workloads
(fresh server, driver in --sync mode, server CPU and peak RSS between the
sync points); this module adds the measures only they have, from the
driver's result line: server CPU per delivered row-update, update or reply
latency, the liveness probe's worst round trip, bytes the server sent
(what the clients received in the timed phase), and for the storm the time
until every client had its reply and how many were catch-ups.
"""

import statistics

WORKLOADS = ["ovn-fanout", "ovn-storm", "ovn-churn"]
LABELS = {"ovn-fanout": "OVN fan-out", "ovn-storm": "OVN reconnect storm",
          "ovn-churn": "OVN condition churn"}


def _get(rec, path):
    v = rec
    for k in path:
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


def _cpu_per_update_us(rec):
    n = _get(rec, ("result", "row_updates"))
    cpu = rec.get("server_cpu_s")
    return cpu / n * 1e6 if n and cpu is not None else None


def _cpu_per_change_ms(rec):
    n = _get(rec, ("result", "changes"))
    cpu = rec.get("server_cpu_s")
    return cpu / n * 1e3 if n and cpu is not None else None


def _mb_received(rec):
    v = _get(rec, ("result", "bytes_received"))
    return v / 1e6 if v is not None else None


# (title, function of a record, digits, workloads it applies to)
MEASURES = [
    ("Duration (s)", lambda r: r.get("wall_s"), 2, WORKLOADS),
    ("Server CPU (s)", lambda r: r.get("server_cpu_s"), 2, WORKLOADS),
    ("Server peak RSS (MB)", lambda r: r.get("peak_rss_mb"), 1, WORKLOADS),
    ("Bytes sent by the server (MB)", _mb_received, 2, WORKLOADS),
    ("Server CPU per delivered row-update (us)", _cpu_per_update_us, 1,
     ["ovn-fanout"]),
    ("Server CPU per condition change (ms)", _cpu_per_change_ms, 2,
     ["ovn-churn"]),
    ("Update latency p50 (ms)", lambda r: _get(r, ("result", "latency_ms",
                                                   "p50")), 1,
     ["ovn-fanout"]),
    ("Update latency p99 (ms)", lambda r: _get(r, ("result", "latency_ms",
                                                   "p99")), 1,
     ["ovn-fanout"]),
    ("Reply latency p50 (ms)", lambda r: _get(r, ("result", "latency_ms",
                                                  "p50")), 1,
     ["ovn-storm", "ovn-churn"]),
    ("Reply latency max (ms)", lambda r: _get(r, ("result", "latency_ms",
                                                  "max")), 1,
     ["ovn-storm", "ovn-churn"]),
    ("Time until all caught up (s)", lambda r: _get(r, ("result",
                                                        "catchup_seconds")),
     2, ["ovn-storm"]),
    ("Catch-up replies (found=true)", lambda r: _get(r, ("result", "found")),
     0, ["ovn-storm"]),
    ("Probe round trip max (ms)", lambda r: _get(r, ("result", "probe_ms",
                                                     "max")), 1, WORKLOADS),
]


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _fmt(v, digits):
    return "-" if v is None else "%.*f" % (digits, v)


def _ratio(x, y):
    if x is None or not y:
        return "-"
    r = x / y
    return "%.2g" % r if r < 0.1 else "%.2f" % r


def tables(records, subjects, allocators, repeat):
    """Markdown: one table per allocator, a row per measure and workload,
    a column per subject (and ours/theirs with two subjects)."""
    runs = {}
    for r in records:
        if r.get("ok") and r["workload"] in WORKLOADS:
            runs.setdefault((r["subject"], r["allocator"], r["workload"]),
                            []).append(r)
    if not runs:
        return ""
    out = []
    for a in allocators:
        head = ["%s" % a] + list(subjects)
        if len(subjects) == 2:
            head.append("%s/%s" % tuple(subjects))
        out.append("| %s |" % " | ".join(head))
        out.append("|---" * len(head) + "|")
        for w in WORKLOADS:
            for title, f, digits, applies in MEASURES:
                if w not in applies:
                    continue
                vals = [_median([f(r) for r in runs.get((s, a, w), [])])
                        for s in subjects]
                if all(v is None for v in vals):
                    continue
                cells = [_fmt(v, digits) for v in vals]
                if len(subjects) == 2:
                    cells.append(_ratio(vals[0], vals[1]))
                out.append("| %s: %s | %s |" % (LABELS[w], title,
                                                 " | ".join(cells)))
        clients = sorted({_get(r, ("result", "clients"))
                          for rs in runs.values() for r in rs} - {None})
        rows = sorted({_get(r, ("result", "rows"))
                       for rs in runs.values() for r in rs} - {None})
        out.append("| OVN workloads, %s clients, %s rows, median of %d |"
                   % ("/".join(map(str, clients)), "/".join(map(str, rows)),
                      repeat))
        out.append("")
    return "\n".join(out)
