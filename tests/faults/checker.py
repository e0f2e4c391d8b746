#!/usr/bin/env python3
"""tests/faults/checker.py: the checkers of the fault-injection suite.

Usage:
    checker.py [--exact] HISTORY DUMP...     checks one run; exit 1 if a
                                             check fails
    checker.py --self-test                   checks the checkers

HISTORY is the clients' history (JSON lines, written by faults.py): for
every operation one "invoke" line and, unless the client died first, one
completion line, both with the operation's "id":
    {"type": "invoke", "id": 7, "client": 2, "member": "s1", "t": 12.5,
     "f": "insert", "table": "Item", "key": "c2-7"}
    {"type": "ok" | "fail" | "unknown", "id": 7, "t": 12.51,
     "error": "...", "read": 5}
"f" is "insert" (table, key), "read", "write" (reg, value) or "cas" (reg,
old, new).  "ok" took effect, "fail" is a definite error (it did not take
effect), "unknown" may have taken effect at any time after its invocation
(a timeout, a disconnection, "cluster error"...).  Each DUMP is one
member's final contents: {"Item": [rows], "Bag": [rows], "Reg": [rows]}.

The checks:
  1. loss         every acknowledged insert is in every member's dump;
  2. duplicates   no key twice in a table, no key that no client inserted;
  3. divergence   all members' dumps are identical;
  4. linearizable each register's reads, writes and compare-and-sets, with
                  the final value as one last read, have a linearization
                  (see linearizable());
  5. exact        an operation took effect as answered, once: no key whose
                  insert failed is in the final database, no Bag key
                  twice (one insert applied twice), and a register whose
                  history is linearizable only if some failed
                  compare-and-set took effect, or some write took effect
                  twice, is reported here rather than under 4.
5 is reported whatever --exact says; --exact makes it fail the check.
"""
import json
import sys


def read_history(path):
    """The operations of the history file at PATH, as dicts: the invoke
    line's fields plus "result" ("ok", "fail" or "unknown"), "t0", "t1"
    (None when unknown), "error" and "read"."""
    ops = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            e = json.loads(line)
            if e["type"] == "invoke":
                op = dict(e)
                op.update(t0=e["t"], t1=None, result="unknown", error=None)
                ops[e["id"]] = op
            else:
                op = ops[e["id"]]
                op["result"] = e["type"]
                op["error"] = e.get("error")
                if e["type"] != "unknown":
                    op["t1"] = e["t"]
                if "read" in e:
                    op["read"] = e["read"]
    return [ops[i] for i in sorted(ops)]


# Linearizability of one register: the Wing & Gong search with Lowe's
# memoization (WGL).  An operation is (call, ret, kind, a, b) with ret None
# for an operation of unknown outcome, which may take effect at any time
# after its call, or never.  kind: "r" (read: returned a), "w" (wrote a),
# "c" (if the value was a, it became b).
class _Entry:
    __slots__ = ("op", "is_call", "match", "prev", "next", "index")


def linearizable(ops, initial, budget=2000000):
    """Returns True, False, or None if BUDGET search steps did not
    decide."""
    ops = _prune(ops)
    events = []
    for i, (call, ret, kind, a, b) in enumerate(ops):
        events.append((call, 0, i))
        if ret is not None:
            events.append((ret, 1, i))
    # Calls before returns at equal times: concurrent, not ordered.
    events.sort(key=lambda e: (e[0], e[1]))
    head = _Entry()
    head.prev = head.next = None
    prev = head
    calls = {}
    n_returns = 0
    for t, is_ret, i in events:
        e = _Entry()
        e.op, e.is_call, e.match, e.index = ops[i], not is_ret, None, i
        e.prev, e.next = prev, None
        prev.next = e
        prev = e
        if is_ret:
            calls[i].match = e
            n_returns += 1
        else:
            calls[i] = e

    def lift(e):
        e.prev.next = e.next
        if e.next:
            e.next.prev = e.prev
        m = e.match
        if m:
            m.prev.next = m.next
            if m.next:
                m.next.prev = m.prev

    def unlift(e):
        m = e.match
        if m:
            m.prev.next = m
            if m.next:
                m.next.prev = m
        e.prev.next = e
        if e.next:
            e.next.prev = e

    state, linearized, left = initial, 0, n_returns
    cache = set()
    stack = []
    entry = head.next
    steps = 0
    while left:
        steps += 1
        if steps > budget:
            return None
        if entry is None:
            # Only calls of unknown outcome are left ahead: go back.
            if not stack:
                return False
            entry, state, linearized, left = _pop(stack, unlift)
            entry = entry.next
        elif entry.is_call:
            _, _, kind, a, b = entry.op
            if kind == "r":
                ok, new = state == a, state
            elif kind == "w":
                ok, new = True, a
            else:
                ok, new = state == a, b
            if ok:
                lin = linearized | (1 << entry.index)
                if (lin, new) not in cache:
                    cache.add((lin, new))
                    stack.append((entry, state, linearized, left))
                    state, linearized = new, lin
                    if entry.match:
                        left -= 1
                    lift(entry)
                    entry = head.next
                    continue
            entry = entry.next
        else:
            # A return whose call is not linearized yet: go back.
            if not stack:
                return False
            entry, state, linearized, left = _pop(stack, unlift)
            entry = entry.next
    return True


def _pop(stack, unlift):
    entry, state, linearized, left = stack.pop()
    unlift(entry)
    return entry, state, linearized, left


def _prune(ops):
    """Leaves out the operations of unknown outcome that cannot matter: a
    write or compare-and-set whose value nobody read (values are unique,
    so a linearization with it is one without it too, the value it wrote
    having been overwritten before anyone looked), and reads of unknown
    outcome (they constrain nothing)."""
    seen = set()
    for call, ret, kind, a, b in ops:
        if ret is not None:
            if kind == "r":
                seen.add(a)
            elif kind == "c":
                seen.add(a)
    out = []
    for op in ops:
        call, ret, kind, a, b = op
        if ret is None:
            if kind == "r":
                continue
            if kind == "w" and a not in seen:
                continue
            if kind == "c" and b not in seen:
                continue
        out.append(op)
    return out


def register_ops(history, reg, exact, final=None, twice=False):
    """History's operations on register REG, in linearizable()'s form.  A
    definite failure is left out when EXACT (it did not happen), else
    counted as of unknown outcome.  FINAL, if given, is the value at the
    end, read after everything.  TWICE adds, for each write or
    compare-and-set whose value was read, then not, then read again, a
    second application of unknown outcome (as a server's retry of a
    transaction that had committed makes)."""
    out = []
    end = 0
    for op in history:
        end = max(end, op["t0"], op["t1"] or 0)
        if op["f"] not in ("read", "write", "cas") or op["reg"] != reg:
            continue
        ret = op["t1"] if op["result"] == "ok" else None
        if op["result"] == "fail" and exact:
            continue
        if op["f"] == "read":
            if op["result"] != "ok":
                continue
            out.append((op["t0"], ret, "r", op["read"], None))
        elif op["f"] == "write":
            out.append((op["t0"], ret, "w", op["value"], None))
        else:
            out.append((op["t0"], ret, "c", op["old"], op["new"]))
    if final is not None:
        out.append((end + 1, end + 2, "r", final, None))
    if twice:
        back = _values_back(out)
        out += [(call, None, kind, a, b)
                for call, ret, kind, a, b in list(out)
                if kind != "r" and (b if kind == "c" else a) in back]
    return out


def _values_back(ops):
    """The values some read returned after another read, begun after it
    ended, returned a different value, itself after a read of the first."""
    reads = sorted((call, ret, a) for call, ret, kind, a, b in ops
                   if kind == "r" and ret is not None)
    back = set()
    first_end = {}
    for call, ret, v in reads:
        first_end[v] = min(first_end.get(v, ret), ret)
    for call, ret, v in reads:
        for c2, r2, w in reads:
            if c2 >= call:
                break
            if w != v and c2 > first_end[v] and r2 < call:
                back.add(v)
                break
    return back


def _rows(dump, table):
    return dump.get(table, [])


def check(history, dumps, exact, n_regs=None):
    """Runs the checks on HISTORY (read_history()'s list) and DUMPS
    ({member: dump}).  Returns a dict: for each check name a list of
    problems (strings; empty: it passed), plus "counts" and "verdict"
    ("pass" or "fail")."""
    res = {"loss": [], "duplicates": [], "divergence": [],
           "linearizable": [], "exact": [], "undecided": []}
    counts = {"ok": 0, "fail": 0, "unknown": 0}
    for op in history:
        counts[op["result"]] += 1
    members = sorted(dumps)

    # 3. All members identical.
    canon = {}
    for m in members:
        canon[m] = json.dumps({t: sorted(_rows(dumps[m], t),
                                         key=lambda r: json.dumps(
                                             r, sort_keys=True))
                               for t in ("Item", "Bag", "Reg")},
                              sort_keys=True)
    for m in members[1:]:
        if canon[m] != canon[members[0]]:
            res["divergence"].append("%s and %s differ" % (members[0], m))

    # 1, 2, 5 on inserts.
    attempted = {}
    for op in history:
        if op["f"] == "insert":
            attempted[(op["table"], op["key"])] = op
    # Identical members have the same problems: name them once.
    for m in members if res["divergence"] else members[:1]:
        for table in ("Item", "Bag"):
            n = {}
            for row in _rows(dumps[m], table):
                n[row["key"]] = n.get(row["key"], 0) + 1
            for key, count in sorted(n.items()):
                if count > 1:
                    op = attempted.get((table, key))
                    # One insert applied twice (a retried transaction whose
                    # first run did commit) is an outcome other than the
                    # one answered: check 5.  Item's index makes that
                    # retry fail instead, also check 5.
                    res["exact" if op and table == "Bag"
                        else "duplicates"].append(
                        "%s: %s key %s %d times (one insert, answered %s%s: "
                        "applied more than once)"
                        % (m, table, key, count,
                           op["result"] if op else "never",
                           " \"%s\"" % op["error"] if op and op["error"]
                           else ""))
                if (table, key) not in attempted:
                    res["duplicates"].append("%s: %s key %s inserted by "
                                             "nobody" % (m, table, key))
            for (t, key), op in sorted(attempted.items()):
                if t != table:
                    continue
                if op["result"] == "ok" and key not in n:
                    res["loss"].append("%s: acknowledged %s key %s missing"
                                       % (m, table, key))
                if op["result"] == "fail" and key in n:
                    res["exact"].append(
                        "%s: %s key %s is present, but its insert failed "
                        "with \"%s\"" % (m, table, key, op["error"]))

    # 4 (and 5 for compare-and-set) on each register, with the final value
    # of the first member.
    regs = sorted({op["reg"] for op in history if "reg" in op}
                  | set(range(n_regs or 0)))
    final = {}
    if members:
        for row in _rows(dumps[members[0]], "Reg"):
            final[row["id"]] = row["value"]
    for reg in regs:
        verdict = linearizable(register_ops(history, reg, True,
                                            final.get(reg)), 0)
        if verdict:
            continue
        if verdict is None:
            res["undecided"].append("register %d: search budget exhausted"
                                    % reg)
            continue
        relaxed = linearizable(register_ops(history, reg, False,
                                            final.get(reg)), 0)
        if relaxed:
            res["exact"].append(
                "register %d: linearizable only if some compare-and-set "
                "reported failed took effect" % reg)
            continue
        twice = linearizable(register_ops(history, reg, False,
                                          final.get(reg), True), 0)
        if twice:
            res["exact"].append(
                "register %d: linearizable only if some write or "
                "compare-and-set took effect twice (a value came back after "
                "another was read)" % reg)
        else:
            res["linearizable"].append(
                "register %d: no linearization%s" % (
                    reg, "" if relaxed is False else " (undecided when "
                    "failures may have taken effect)"))
    failed = any(res[k] for k in ("loss", "duplicates", "divergence",
                                  "linearizable", "undecided"))
    if exact and res["exact"]:
        failed = True
    res["counts"] = counts
    res["verdict"] = "fail" if failed else "pass"
    return res


def report(res, exact, out=sys.stdout):
    c = res["counts"]
    print("operations: %d ok, %d failed, %d unknown"
          % (c["ok"], c["fail"], c["unknown"]), file=out)
    names = [("loss", "1. no acknowledged insert lost"),
             ("duplicates", "2. no duplicate or phantom key"),
             ("divergence", "3. members identical"),
             ("linearizable", "4. registers linearizable"),
             ("exact", "5. exact outcomes (no definite failure took "
              "effect, nothing took effect twice)")]
    for key, title in names:
        problems = res[key]
        if key == "exact" and problems and not exact:
            state = "VIOLATED (not expected of this cluster: reported only)"
        else:
            state = "VIOLATED" if problems else "ok"
        print("%s: %s" % (title, state), file=out)
        for p in problems[:10]:
            print("    " + p, file=out)
        if len(problems) > 10:
            print("    ... %d more" % (len(problems) - 10), file=out)
    for p in res["undecided"]:
        print("undecided: " + p, file=out)
    print("verdict: %s" % res["verdict"].upper(), file=out)


def self_test():
    """The checkers find what they must, and only that."""
    L = linearizable
    # Sequential and concurrent histories.
    assert L([(0, 1, "w", 1, None), (2, 3, "r", 1, None)], 0)
    assert not L([(0, 1, "w", 1, None), (2, 3, "r", 0, None)], 0)
    assert L([(0, 5, "w", 1, None), (1, 2, "r", 0, None),
              (3, 4, "r", 1, None)], 0)
    assert not L([(0, 5, "w", 1, None), (1, 2, "r", 1, None),
                  (3, 4, "r", 0, None)], 0)
    # Compare-and-set.
    assert L([(0, 1, "c", 0, 2), (2, 3, "r", 2, None)], 0)
    assert not L([(0, 1, "c", 1, 2), (2, 3, "r", 2, None)], 0)
    # Unknown outcome: may take effect late, or never.
    assert L([(0, None, "w", 7, None), (5, 6, "r", 0, None),
              (8, 9, "r", 7, None)], 0)
    assert L([(0, None, "w", 7, None), (5, 6, "r", 0, None)], 0)
    assert not L([(0, None, "w", 7, None), (5, 6, "r", 7, None),
                  (8, 9, "r", 0, None)], 0)
    # Not before its call.
    assert not L([(0, 1, "r", 7, None), (2, None, "w", 7, None)], 0)
    # Two writers, reads that need both orders: impossible.
    assert not L([(0, 10, "w", 1, None), (0, 10, "w", 2, None),
                  (11, 12, "r", 1, None), (13, 14, "r", 2, None),
                  (15, 16, "r", 1, None)], 0)

    def h(*ops):
        out = []
        for i, o in enumerate(ops):
            op = {"id": i, "t0": i, "t1": i + 0.5, "error": None}
            op.update(o)
            if op["result"] == "unknown":
                op["t1"] = None
            out.append(op)
        return out

    def dump(items, regs=((0, 0),)):
        return {"Item": [{"key": k, "client": 0} for k in items],
                "Bag": [], "Reg": [{"id": r, "value": v, "touches": 0}
                                   for r, v in regs]}

    ins = [{"f": "insert", "table": "Item", "key": "a", "result": "ok"},
           {"f": "insert", "table": "Item", "key": "b", "result": "unknown"},
           {"f": "insert", "table": "Item", "key": "c", "result": "fail",
            "error": "constraint violation"}]
    good = check(h(*ins), {"s1": dump("ab"), "s2": dump("ab")}, True)
    assert good["verdict"] == "pass", good
    lost = check(h(*ins), {"s1": dump("a"), "s2": dump("b")}, True)
    assert lost["loss"] and lost["divergence"], lost
    dup = check(h(*ins), {"s1": dump("aab")}, True)
    assert dup["duplicates"], dup
    phantom = check(h(*ins), {"s1": dump("ax")}, True)
    assert phantom["duplicates"], phantom
    inexact = check(h(*ins), {"s1": dump("ac")}, True)
    assert inexact["exact"] and inexact["verdict"] == "fail", inexact
    tolerated = check(h(*ins), {"s1": dump("ac")}, False)
    assert tolerated["exact"] and tolerated["verdict"] == "pass", tolerated
    cas = [{"f": "cas", "reg": 0, "old": 0, "new": 5, "result": "fail",
            "error": "timed out"},
           {"f": "read", "reg": 0, "read": 5, "result": "ok"}]
    res = check(h(*cas), {"s1": dump("", ((0, 5),))}, True)
    assert res["exact"] and not res["linearizable"], res
    stale = [{"f": "write", "reg": 0, "value": 5, "result": "ok"},
             {"f": "read", "reg": 0, "read": 0, "result": "ok"}]
    res = check(h(*stale), {"s1": dump("", ((0, 5),))}, True)
    assert res["linearizable"] and res["verdict"] == "fail", res
    again = [{"f": "write", "reg": 0, "value": 5, "result": "ok"},
             {"f": "read", "reg": 0, "read": 5, "result": "ok"},
             {"f": "write", "reg": 0, "value": 6, "result": "ok"},
             {"f": "read", "reg": 0, "read": 6, "result": "ok"},
             {"f": "read", "reg": 0, "read": 5, "result": "ok"}]
    res = check(h(*again), {"s1": dump("", ((0, 5),))}, True)
    assert res["exact"] and not res["linearizable"], res
    bag = [{"f": "insert", "table": "Bag", "key": "a", "result": "ok"}]
    res = check(h(*bag), {"s1": {"Item": [], "Reg": [],
                                 "Bag": [{"key": "a"}, {"key": "a"}]}},
                True)
    assert res["exact"] and not res["duplicates"], res
    print("checker self-test: ok")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    exact = "--exact" in argv
    args = [a for a in argv[1:] if a != "--exact"]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    history = read_history(args[0])
    dumps = {}
    for path in args[1:]:
        with open(path) as f:
            dumps[path] = json.load(f)
    res = check(history, dumps, exact)
    report(res, exact)
    return 0 if res["verdict"] == "pass" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
