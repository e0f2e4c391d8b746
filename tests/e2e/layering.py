#!/usr/bin/env python3
"""tests/e2e/layering.py: checks the layering of the source tree from the
object files' symbols (nm), so that what is checked is who calls whom, not
who includes what.

Usage: layering.py BUILDDIR [--print]

Rules (ovsdb/README.md):
  1. lib/ calls nothing in ovsdb/.
  2. A file in one ovsdb/ folder calls files of its own folder, of the
     folders LAYERS lists for it, and of lib/, nothing else.
  3. Files of ovsdb/ that call each other, directly or round a longer
     loop, are in one folder and all include that folder's one private
     header (the header says why they are one unit).  (lib/ is not held to
     this yet: its stream classes, vlog and unixctl, poll-loop and
     fatal-signal call each other.)
--print prints the file-level call graph and the folder graph instead.
Exits 1 and names every offending call if a rule is broken."""

import collections
import glob
import os
import re
import subprocess
import sys

# The folders, each with the folders it may call (besides itself and lib/).
LAYERS = {
    'engine': set(),
    'format': {'engine'},
    'monitor': {'engine'},
    'raft': {'format', 'engine'},
    'storage': {'raft', 'format', 'engine'},
    'server': {'storage', 'monitor', 'raft', 'format', 'engine'},
    'tool': {'format', 'engine'},
    'client': {'format', 'engine'},
}


def unit_of(builddir, obj):
    """('lib', 'lib/hmap') or ('engine', 'ovsdb/engine/datum') for an object
    file; the program objects of automake have no per-target prefix here."""
    rel = os.path.relpath(obj, builddir)[:-2]
    parts = rel.split('/')
    if parts[0] == 'lib':
        return 'lib', rel
    return parts[1], rel


def read_symbols(obj):
    out = subprocess.run(['nm', obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == 'U':
            undefined.add(fields[1])
        elif len(fields) == 3 and fields[1] in 'TDBRCG':
            defined.add(fields[2])
    return defined, undefined


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iteratively: the components of more than one
    node, in the graph 'edges' restricted to 'nodes'."""
    edges = {n: {c for c in edges[n] if c in nodes} for n in nodes}
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return comps


def private_headers(srcdir, unit):
    """The '*-private.h' headers that the source of 'unit' includes."""
    path = os.path.join(srcdir, unit + '.c')
    with open(path, encoding='utf-8') as f:
        text = f.read()
    return set(re.findall(r'#include "(ovsdb/\w+/[\w-]+-private\.h)"', text))


def main():
    builddir = sys.argv[1]
    srcdir = os.environ.get('OVSDB_SRCDIR', '.')
    objs = sorted(glob.glob(os.path.join(builddir, 'lib', '*.o'))
                  + glob.glob(os.path.join(builddir, 'ovsdb', '*', '*.o')))
    folder, defs, uses = {}, {}, {}
    for obj in objs:
        fold, unit = unit_of(builddir, obj)
        folder[unit] = fold
        defined, uses[unit] = read_symbols(obj)
        for sym in defined:
            defs[sym] = unit
    missing = [f for f in list(LAYERS) + ['lib'] if f not in
               folder.values()]
    if missing:
        sys.exit('layering: no object files for %s under %s: build first'
                 % (', '.join(missing), builddir))
    unknown = sorted(set(folder.values()) - set(LAYERS) - {'lib'})
    if unknown:
        sys.exit('layering: folders %s are not in LAYERS: say where they '
                 'stand' % ', '.join(unknown))

    edges = collections.defaultdict(set)
    calls = collections.defaultdict(list)  # (caller, callee) -> symbols
    for unit, syms in uses.items():
        for sym in syms:
            callee = defs.get(sym)
            if callee and callee != unit:
                edges[unit].add(callee)
                calls[(unit, callee)].append(sym)

    if '--print' in sys.argv:
        for unit in sorted(folder):
            print(unit, '->', ' '.join(sorted(edges[unit])))
        fedges = collections.defaultdict(set)
        for (a, b) in calls:
            if folder[a] != folder[b]:
                fedges[folder[a]].add(folder[b])
        for f in sorted(fedges):
            print('folder', f, '->', ' '.join(sorted(fedges[f])))
        return 0

    errors = []
    for (a, b), syms in sorted(calls.items()):
        fa, fb = folder[a], folder[b]
        if fa == fb or fb == 'lib':
            continue
        if fa == 'lib' or fb not in LAYERS[fa]:
            errors.append('%s calls %s (%s): %s may not call %s'
                          % (a, b, ', '.join(sorted(syms)[:4]), fa, fb))

    for comp in strongly_connected({u for u in folder
                                    if folder[u] != 'lib'}, edges):
        folders = {folder[u] for u in comp}
        shared = set.intersection(*(private_headers(srcdir, u)
                                    for u in comp))
        if len(folders) > 1 or not shared:
            errors.append('call cycle among %s: files that call each other '
                          'must be one subsystem and share its private '
                          'header' % ' '.join(comp))

    for e in errors:
        print('layering:', e)
    if errors:
        return 1
    print('layering: %d files in %d folders, calls go one way'
          % (len(folder), len(set(folder.values()))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
