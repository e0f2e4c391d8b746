#!/usr/bin/env python3
"""tests/corpus/txnfuzz.py: differential fuzzing of transactions.

Generates random transactions (valid and invalid inserts, selects with
random conditions, updates, mutations, deletes, waits) for a schema, runs
each batch through the reference ovsdb-tool and through ours exactly as the
corpus does (tests/corpus/txncompare.py), and prints every difference.  A
difference worth keeping becomes a corpus case: copy the printed case
directory into tests/data/txn/, trim requests.json to the transactions
that matter, and run tests/corpus/regenerate CASE.  Not run by the tests.

Usage: txnfuzz.py --tool OURS [--server OURS-SERVER] [--ref REF]
                  [--seeds A-B] [--txns N] [--keep DIR] SCHEMA...
  SCHEMA   a file name in tests/data/schemas/ (e.g. constraints.ovsschema)
  --server send our transactions through this ovsdb-server (on a database
           our ovsdb-tool creates) instead of "ovsdb-tool transact"
  --ref    the reference ovsdb-tool (default /usr/bin/ovsdb-tool)
  --seeds  random seeds to run, each one batch per schema (default 1-10)
  --txns   transactions per batch (default 25)
  --keep   directory to keep the mismatching batches in (default: a new
           temporary directory, printed)

The same seed and schema always give the same transactions.  Batches
whose differences are all an error against another error are printed
briefly as "error choice": often an operation with several faults, where
the reference reports the one its hash-table order reaches first, but
read them, a real difference can hide there too.
"""

import json
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import txncompare  # noqa: E402

INTS = [0, 1, -1, 2, 3, 5, 7, 10, 100, 65535, 65536,
        -9223372036854775808, 9223372036854775807, 4611686018427387904]
REALS = [0, 0.5, -1.5, 1e308, 2.5, 1, 3.25, -0.0, 1e-5, 0.1]
STRINGS = ['', 'a', 'b', 'red', 'green', 'blue', 'x', 'y', 'ab', 'abcde',
           'abcdef', 'k', 'v', '\u00e9']
UUIDS = ['00000000-0000-0000-0000-0000000000a1',
         '00000000-0000-0000-0000-0000000000a2']
FUNCTIONS = ['==', '!=', '<', '<=', '>', '>=', 'includes', 'excludes']
MUTATORS = ['+=', '-=', '*=', '/=', '%=', 'insert', 'delete']


class Generator:
    def __init__(self, seed, schema):
        self.r = random.Random(seed)
        self.schema = schema
        self.tables = schema['tables']
        self.named = []

    def base_type(self, t):
        return t if isinstance(t, str) else t['type']

    def column_type(self, column):
        t = column['type']
        if isinstance(t, str):
            return {'key': t, 'min': 1, 'max': 1}
        t = dict(t)
        t.setdefault('min', 1)
        t.setdefault('max', 1)
        return t

    def atom(self, base):
        kind = self.base_type(base)
        r = self.r
        if kind == 'integer':
            return r.choice(INTS)
        if kind == 'real':
            return r.choice(REALS)
        if kind == 'boolean':
            return r.choice([True, False])
        if kind == 'string':
            return r.choice(STRINGS)
        if self.named and r.random() < 0.4:
            return ['named-uuid', r.choice(self.named)]
        return ['uuid', r.choice(UUIDS)]

    def datum(self, column):
        """A value for 'column', now and then one element too few or too
        many."""
        t = self.column_type(column)
        r = self.r
        top = 5 if t['max'] == 'unlimited' else t['max']
        low = max(0, t["min"] - (1 if r.random() < 0.25 else 0))
        n = r.randint(low, top + (1 if r.random() < 0.25 else 0))
        if 'value' in t:
            return ['map', [[self.atom(t['key']), self.atom(t['value'])]
                            for _ in range(n)]]
        if t['min'] == 1 and t['max'] == 1 and r.random() < 0.8:
            return self.atom(t['key'])
        if n == 1 and r.random() < 0.5:
            return self.atom(t['key'])
        return ['set', [self.atom(t['key']) for _ in range(n)]]

    def columns(self, table):
        return sorted(self.tables[table]['columns'])

    def where(self, table):
        r = self.r
        clauses = []
        for _ in range(r.randint(0, 2)):
            name = r.choice(self.columns(table) + ['_uuid'])
            if name == '_uuid':
                clauses.append(['_uuid', r.choice(['==', '!=']),
                                self.atom('uuid')])
                continue
            column = self.tables[table]['columns'][name]
            t = self.column_type(column)
            if r.random() < 0.5 or 'value' in t:
                value = self.datum(column)
            else:
                value = self.atom(t['key'])
            clauses.append([name, r.choice(FUNCTIONS), value])
        return clauses

    def row(self, table, low):
        names = self.columns(table)
        chosen = self.r.sample(names, self.r.randint(low, min(2, len(names))))
        return {c: self.datum(self.tables[table]['columns'][c])
                for c in chosen}

    def op(self):
        r = self.r
        table = r.choice(sorted(self.tables))
        k = r.random()
        if k < 0.3:
            op = {'op': 'insert', 'table': table, 'row': self.row(table, 0)}
            if r.random() < 0.5:
                op['uuid-name'] = 'n%d' % len(self.named)
                self.named.append(op['uuid-name'])
            return op
        if k < 0.5:
            op = {'op': 'select', 'table': table, 'where': self.where(table)}
            if r.random() < 0.5:
                names = self.columns(table)
                op['columns'] = r.sample(names, r.randint(1, len(names)))
            return op
        if k < 0.65:
            return {'op': 'update', 'table': table,
                    'where': self.where(table), 'row': self.row(table, 1)}
        if k < 0.85:
            mutations = []
            for _ in range(r.randint(1, 2)):
                name = r.choice(self.columns(table))
                column = self.tables[table]['columns'][name]
                t = self.column_type(column)
                mutator = r.choice(MUTATORS)
                if mutator in ('insert', 'delete'):
                    if r.random() < 0.6:
                        value = self.datum(column)
                    else:
                        value = self.atom(t['key'])
                    if (mutator == 'delete' and 'value' in t
                            and r.random() < 0.5):
                        value = ['set', [self.atom(t['key'])]]
                else:
                    value = self.atom(t['key'])
                mutations.append([name, mutator, value])
            return {'op': 'mutate', 'table': table,
                    'where': self.where(table), 'mutations': mutations}
        if k < 0.95:
            return {'op': 'delete', 'table': table,
                    'where': self.where(table)}
        return {'op': 'wait', 'table': table, 'where': self.where(table),
                'columns': self.columns(table)[:1],
                'until': r.choice(['==', '!=']), 'rows': [], 'timeout': 0}

    def transactions(self, n):
        txns = []
        for _ in range(n):
            self.named = []
            ops = [self.op() for _ in range(self.r.randint(1, 4))]
            txns.append([self.schema['name']] + ops)
        return txns


def write_case(casedir, schema_path, txns):
    os.makedirs(casedir)
    shutil.copy(schema_path, os.path.join(casedir, 'schema'))
    with open(os.path.join(casedir, 'requests.json'), 'w') as f:
        f.write('[\n' + ',\n'.join(json.dumps(t, separators=(',', ':'))
                                   for t in txns) + '\n]\n')


def error_choice_only(lines):
    """True if every difference in 'lines' is an error against an error."""
    pairs = [(lines[i + 1], lines[i + 2]) for i, line in enumerate(lines)
             if line.startswith('  ') and not line.startswith('    ')
             and i + 2 < len(lines)]
    return bool(pairs) and all('"error"' in e and '"error"' in g
                               for e, g in pairs)


def main(argv):
    ours = server = None
    ref = '/usr/bin/ovsdb-tool'
    first, last = 1, 10
    n_txns = 25
    keep = None
    schemas = []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == '--tool':
            ours = args.pop(0)
        elif a == '--server':
            server = args.pop(0)
        elif a == '--ref':
            ref = args.pop(0)
        elif a == '--seeds':
            first, _, last = args.pop(0).partition('-')
            first, last = int(first), int(last or first)
        elif a == '--txns':
            n_txns = int(args.pop(0))
        elif a == '--keep':
            keep = args.pop(0)
        else:
            schemas.append(a)
    if not ours or not schemas:
        sys.stderr.write(__doc__)
        return 2
    srcdir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    keep = keep or tempfile.mkdtemp(prefix='txnfuzz.')
    # Cases find shared schemas in ../../schemas: mirror the layout.
    os.makedirs(os.path.join(keep, 'txn'), exist_ok=True)
    schemas_link = os.path.join(keep, 'schemas')
    if not os.path.exists(schemas_link):
        os.symlink(os.path.join(srcdir, 'data', 'schemas'), schemas_link)

    mismatches = choices = batches = 0
    for seed in range(first, last + 1):
        for name in schemas:
            schema_path = os.path.join(srcdir, 'data', 'schemas', name)
            with open(schema_path) as f:
                schema = json.load(f)
            txns = Generator(seed, schema).transactions(n_txns)
            casedir = os.path.join(keep, 'txn', '%s-%d'
                                   % (name.split('.')[0], seed))
            shutil.rmtree(casedir, ignore_errors=True)
            write_case(casedir, schema_path, txns)
            expected = txncompare.run_case(ref, casedir)
            got = txncompare.run_case(ours, casedir, server)
            lines = txncompare.compare_case(casedir, expected, got)
            batches += 1
            if not lines:
                shutil.rmtree(casedir)
            elif error_choice_only(lines):
                choices += 1
                print('ERROR CHOICE in %s:' % casedir)
                for line in lines:
                    if line.startswith('  ') and not line.startswith('    '):
                        print(line)
                    elif '"error"' in line:
                        print('      ' + line.split('"error":')[1][:40])
            else:
                mismatches += 1
                txncompare.write_expected(
                    os.path.join(casedir, 'expected.json'), expected)
                print('MISMATCH in %s:' % casedir)
                for line in lines:
                    print(line)
    print('%d batches of %d transactions: %d with mismatches (kept in %s), '
          '%d with only different errors (error choice)'
          % (batches, n_txns, mismatches, os.path.join(keep, 'txn'),
             choices))
    return 1 if mismatches else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
