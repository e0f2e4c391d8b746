#!/usr/bin/env python3
"""tests/corpus/txncompare.py: runs the transaction corpus and compares.

The corpus lives in tests/data/txn/<case>/:
  schema         an .ovsschema, or one line naming a file in
                 tests/data/schemas/ (e.g. "vswitch.ovsschema").
  requests.json  a JSON array of transactions (each the params array
                 ["DBNAME", op, op, ...]), run in order on one fresh db.
  expected.json  {"replies": [...], "final": ...}: the masked output of
                 "ovsdb-tool transact" for each transaction, then of an
                 "ovsdb-tool query" selecting every row of every table.

  expected-server.json  (optional) the same through a live ovsdb-server,
                 where that differs from expected.json: a server answers
                 an unknown database with a JSON-RPC error, closes the
                 connection on params that are not an array, and really
                 waits (transactions with a "wait" without "timeout" are
                 not sent to a server at all).

Usage:
  txncompare.py record --tool TOOL [SERVER-OPTIONS] CASEDIR...
                        (re)write expected.json (expected-server.json)
  txncompare.py check --tool TOOL [SERVER-OPTIONS] [--label L]
                      [--known FILE [--mode MODE]] [--cross-read REF]
                      CASEDIR...
                        compare the output with the golden file; print a
                        readable diff per mismatch; exit 1 if any, except
                        in cases FILE lists as known mismatches for MODE
                        (default "tool", or "server" with --server), which
                        fail instead if they match: remove them from FILE.
                        --cross-read REF also queries the database file
                        left by the case with REF (the reference
                        ovsdb-tool) and compares that with the golden
                        final contents: our files must read the same.
  txncompare.py show --tool TOOL [SERVER-OPTIONS] CASEDIR
                        print the masked output
  txncompare.py selftest
                        check the masking and the comparison themselves
SERVER-OPTIONS: --server OVSDB-SERVER [--remote unix|tcp|ssl]: run the
  transactions through "OVSDB-SERVER --remote=... --unixctl=... DB" (DB
  created by "TOOL create") over a Unix socket, 127.0.0.1 TCP or TLS over
  127.0.0.1 (with --private-key, --certificate and --ca-cert naming a
  self-signed certificate made by openssl, which the client presents too),
  instead of "TOOL transact".

Masking: every ["uuid", U] value becomes ["uuid", "<N>"], N counted in order
of first appearance over the whole case (replies, then the final query),
except UUIDs written in requests.json and the all-zeros UUID, which are
deterministic and kept.
Because row order in "rows" and element order in sets and maps are not
specified (the reference orders them by hash or by UUID), rows, set
elements and map pairs are sorted first, by their masked form with
not-yet-labelled UUIDs written "?".  "_version" values are labelled
"<vN>" per reply (the reference draws fresh versions each time it loads a
file, so only their identities within one reply mean something).  UUIDs
inside "details" and "syntax" strings are replaced with their labels too,
for readers; those strings are never compared.

Comparison is structural: booleans differ from numbers, integers equal
reals of the same value (1 == 1.0), strings and containers exactly, and
UUID labels must correspond one to one between the two outputs (so a UUID
missing early in one output does not shift every later label).  In
error objects the "error" member is compared exactly, "details" is
ignored and only the presence of "syntax" is compared (its value echoes the
input as each server chooses to print it).

Uses the Python 3 standard library and tests/rpc.py.
"""

import json
import os
import re
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))
import rpc  # noqa: E402

UUID_RE = re.compile(r'[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}')
UNCOMPARED = ('details', 'syntax')


# ---------------------------------------------------------------------------
# Reading requests without losing their exact text.

class RawNumber:
    """A JSON number kept as written (so "2.0" stays "2.0")."""
    def __init__(self, text):
        self.text = text


class Pairs(list):
    """A JSON object kept as its (key, value) pairs, duplicates included."""


def load_raw(path):
    with open(path, encoding='utf-8') as f:
        return json.load(f, object_pairs_hook=Pairs,
                         parse_float=RawNumber, parse_int=RawNumber)


def dump_raw(value):
    """Serializes a value read by load_raw() back to compact JSON text."""
    if isinstance(value, RawNumber):
        return value.text
    if isinstance(value, Pairs):
        return '{' + ','.join(json.dumps(k) + ':' + dump_raw(v)
                              for k, v in value) + '}'
    if isinstance(value, list):
        return '[' + ','.join(dump_raw(v) for v in value) + ']'
    return json.dumps(value)


# ---------------------------------------------------------------------------
# Masking.

class Masker:
    def __init__(self, keep=()):
        self.labels = {}
        self.versions = {}
        self.keep = set(u.lower() for u in keep)

    def uuid_label(self, u, assign, anon=False):
        if u.lower() in self.keep:
            return u
        if anon:
            return '?'
        u = u.lower()
        if u not in self.labels:
            if not assign:
                return '?'
            self.labels[u] = '<%d>' % len(self.labels)
        return self.labels[u]

    def version_label(self, u, assign, anon=False):
        if anon:
            return '<v>'
        if u not in self.versions:
            if not assign:
                return '<v>'
            self.versions[u] = '<v%d>' % len(self.versions)
        return self.versions[u]

    def sort_key(self, value):
        """Orders rows, set elements and map pairs by their content first,
        UUIDs aside (so that one missing or extra UUID elsewhere does not
        reorder them), then by the labels already known."""
        return (json.dumps(self.mask(value, False, True), sort_keys=True),
                json.dumps(self.mask(value, False), sort_keys=True))

    def mask(self, value, assign=True, anon=False):
        if isinstance(value, list):
            if (len(value) == 2 and value[0] == 'uuid'
                    and isinstance(value[1], str)
                    and UUID_RE.fullmatch(value[1])):
                return ['uuid', self.uuid_label(value[1], assign, anon)]
            if (len(value) == 2 and value[0] in ('set', 'map')
                    and isinstance(value[1], list)):
                elems = sorted(value[1], key=self.sort_key)
                return [value[0],
                        [self.mask(e, assign, anon) for e in elems]]
            return [self.mask(e, assign, anon) for e in value]
        if isinstance(value, dict):
            out = {}
            for k in sorted(value):
                v = value[k]
                if k in UNCOMPARED:
                    out[k] = v
                elif (k == '_version' and isinstance(v, list) and len(v) == 2
                      and v[0] == 'uuid' and isinstance(v[1], str)):
                    out[k] = ['uuid', self.version_label(v[1], assign, anon)]
                elif (k == 'rows' and isinstance(v, list)
                      and all(isinstance(r, dict) for r in v)):
                    rows = sorted(v, key=self.sort_key)
                    out[k] = [self.mask(r, assign, anon) for r in rows]
                else:
                    out[k] = self.mask(v, assign, anon)
            return out
        return value

    def mask_strings(self, value):
        """Replaces UUIDs in "details" and "syntax" strings by labels."""
        if isinstance(value, list):
            return [self.mask_strings(v) for v in value]
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if k in UNCOMPARED and isinstance(v, str):
                    v = UUID_RE.sub(
                        lambda m: self.uuid_label(m.group(0), True), v)
                else:
                    v = self.mask_strings(v)
                out[k] = v
            return out
        return value


def mask_output(output, keep=()):
    """Masks a whole case output {"replies": [...], "final": ...}.  UUIDs in
    'keep' (those written in the requests, and the all-zeros UUID) are
    deterministic, so they are left as they are."""
    m = Masker(keep)
    replies = []
    for r in output['replies']:
        m.versions = {}
        replies.append(m.mask(r))
    m.versions = {}
    masked = {'replies': replies, 'final': m.mask(output['final'])}
    if 'final_ref' in output:
        m.versions = {}
        masked['final_ref'] = m.mask(output['final_ref'])
    return m.mask_strings(masked)


# ---------------------------------------------------------------------------
# Running a case.

def case_schema(casedir):
    path = os.path.join(casedir, 'schema')
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if text.lstrip().startswith('{'):
        return path
    name = text.strip()
    schemas = os.path.join(casedir, '..', '..', 'schemas')
    return os.path.normpath(os.path.join(schemas, name))


def run_tool(tool, args):
    """Runs TOOL ARGS; returns the parsed stdout, or a failure record."""
    p = subprocess.run([tool] + args, capture_output=True, text=True,
                       timeout=60)
    if p.returncode == 0:
        try:
            return json.loads(p.stdout)
        except ValueError:
            pass
    return {'exit': p.returncode, 'stdout': p.stdout.strip(),
            'stderr': p.stderr.strip()}


def is_failure(value):
    return isinstance(value, dict) and 'exit' in value and 'stderr' in value


def final_query(schema_json):
    """The transaction that selects every row of every table."""
    return [schema_json['name']] + [
        {'op': 'select', 'table': t, 'where': []}
        for t in sorted(schema_json['tables'])]


def blocks_on_server(txn):
    """True if TXN has a "wait" without "timeout": a server would wait for
    ever (ovsdb-tool answers "not supported" instead)."""
    if not isinstance(txn, list):
        return False
    for op in txn[1:]:
        if isinstance(op, Pairs):
            members = dict(op)
            if members.get('op') == 'wait' and 'timeout' not in members:
                return True
    return False


SKIPPED = {'skipped': 'a wait without timeout blocks on a server'}


_tls_dir = None


def tls_credentials():
    """Returns (key, certificate) paths of a self-signed certificate, made
    once per run with openssl; the certificate is also the CA of both
    sides."""
    global _tls_dir
    if _tls_dir is None:
        _tls_dir = tempfile.TemporaryDirectory(prefix='txn-corpus-tls.')
    key = os.path.join(_tls_dir.name, 'key.pem')
    cert = os.path.join(_tls_dir.name, 'cert.pem')
    if not os.path.exists(cert):
        subprocess.run(['openssl', 'req', '-x509', '-newkey', 'ec',
                        '-pkeyopt', 'ec_paramgen_curve:prime256v1',
                        '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
                        '-keyout', key, '-out', cert],
                       check=True, capture_output=True, timeout=60)
    return key, cert


class Server:
    """One server process serving one database, and a client connection
    (a tests/rpc.py Client)."""

    def __init__(self, program, db, tmp, remote):
        options = []
        self.tls = None
        if remote == 'unix':
            self.remote = 'unix:' + os.path.join(tmp, 'db.sock')
            listen = 'p' + self.remote
        else:
            port = rpc.free_port()
            self.remote = '%s:127.0.0.1:%d' % (remote, port)
            listen = 'p%s:%d:127.0.0.1' % (remote, port)
        if remote == 'ssl':
            key, cert = tls_credentials()
            options = ['--private-key=' + key, '--certificate=' + cert,
                       '--ca-cert=' + cert]
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            self.tls.check_hostname = False
            self.tls.load_verify_locations(cert)
            self.tls.load_cert_chain(cert, key)
        self.log_path = os.path.join(tmp, 'server.log')
        with open(self.log_path, 'w') as log:
            self.proc = subprocess.Popen(
                [program, '--remote=' + listen,
                 '--unixctl=' + os.path.join(tmp, 'ctl')] + options + [db],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.client = None
        try:
            self.connect()
        except RuntimeError:
            self.close()
            raise

    def connect(self):
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client = rpc.Client(self.remote, timeout=30,
                                         tls=self.tls)
                return
            except OSError:
                if (self.proc.poll() is not None
                        or time.monotonic() > deadline):
                    with open(self.log_path) as f:
                        log = f.read().strip()
                    raise RuntimeError('server did not start: %s' % log)
                time.sleep(0.05)

    def transact(self, params_text):
        """Sends one "transact" request; returns its result, the JSON-RPC
        error as {"rpc-error": ...}, or a failure record if the server
        closed the connection."""
        try:
            rid = self.client.request_raw('transact', params_text)
            msg = self.client.wait_reply(rid)
        except (OSError, rpc.Closed):
            # The server dropped us (a close, a reset or a timeout).
            self.client.close()
            self.connect()
            return {'exit': 'closed', 'stdout': '',
                    'stderr': 'server closed the connection'}
        if msg.get('error') is not None:
            return {'rpc-error': msg['error']}
        return msg.get('result')

    def close(self):
        if self.client:
            self.client.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run_case(tool, casedir, server=None, remote='unix', cross_read=None):
    """Runs every transaction of CASEDIR with TOOL, or, if SERVER is given,
    through a SERVER process (on a database TOOL creates) over REMOTE ("unix"
    or "tcp"); returns the masked output.  If CROSS_READ names another
    ovsdb-tool, it queries the resulting file too ("final_ref")."""
    schema = case_schema(casedir)
    with open(schema, encoding='utf-8') as f:
        schema_json = json.load(f)
    requests = load_raw(os.path.join(casedir, 'requests.json'))
    query = json.dumps(final_query(schema_json))
    with tempfile.TemporaryDirectory(prefix='txn-corpus.') as tmp:
        db = os.path.join(tmp, 'db')
        p = subprocess.run([tool, 'create', db, schema],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise RuntimeError('%s create %s failed: %s'
                               % (tool, schema, p.stderr.strip()))
        if server:
            srv = Server(server, db, tmp, remote)
            try:
                replies = [SKIPPED if blocks_on_server(txn)
                           else srv.transact(dump_raw(txn))
                           for txn in requests]
                final = srv.transact(query)
            finally:
                srv.close()
        else:
            replies = [run_tool(tool, ['transact', db, dump_raw(txn)])
                       for txn in requests]
            final = run_tool(tool, ['query', db, query])
        output = {'replies': replies, 'final': final}
        if cross_read:
            output['final_ref'] = run_tool(cross_read, ['query', db, query])
    with open(os.path.join(casedir, 'requests.json'),
              encoding='utf-8') as f:
        keep = UUID_RE.findall(f.read())
    keep.append('00000000-0000-0000-0000-000000000000')
    return mask_output(output, keep)


# ---------------------------------------------------------------------------
# Comparing.

LABEL_RE = re.compile(r'<v?[0-9]+>')


class Matcher:
    """Structural equality of two masked outputs: bools are not numbers,
    1 == 1.0, and UUID labels must correspond one to one (a bijection built
    as the outputs are walked in order), so that one UUID more or less
    early in one output does not make every later label differ."""

    def __init__(self):
        self.e2g = {}
        self.g2e = {}

    def snapshot(self):
        return dict(self.e2g), dict(self.g2e)

    def restore(self, snap):
        self.e2g, self.g2e = dict(snap[0]), dict(snap[1])

    def new_reply(self):
        """_version labels are numbered per reply: forget their pairs."""
        for table in (self.e2g, self.g2e):
            for label in [k for k in table if k.startswith('<v')]:
                del table[label]

    def labels(self, a, b):
        if a in self.e2g or b in self.g2e:
            return self.e2g.get(a) == b and self.g2e.get(b) == a
        self.e2g[a] = b
        self.g2e[b] = a
        return True

    def same(self, a, b):
        if isinstance(a, bool) or isinstance(b, bool):
            return type(a) is type(b) and a == b
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return a == b
        if type(a) is not type(b):
            return False
        if isinstance(a, list):
            if (len(a) == 2 and len(b) == 2 and a[0] == b[0] == 'uuid'
                    and isinstance(a[1], str) and isinstance(b[1], str)
                    and LABEL_RE.fullmatch(a[1])
                    and LABEL_RE.fullmatch(b[1])):
                return self.labels(a[1], b[1])
            return len(a) == len(b) and all(self.same(x, y)
                                            for x, y in zip(a, b))
        if isinstance(a, dict):
            if is_failure(a) and is_failure(b):
                return True
            if set(a) != set(b):
                return False
            return all(k in UNCOMPARED or self.same(a[k], b[k])
                       for k in sorted(a))
        return a == b


def compact(value):
    return json.dumps(value, sort_keys=True, separators=(',', ':'))


def short(text, limit=300):
    return text if len(text) <= limit else text[:limit] + '...'


def describe_txn(matcher, txn, expected, got):
    """Yields readable lines for the differences in one transaction."""
    ops = list(txn[1:]) if isinstance(txn, list) else []
    if not (isinstance(expected, list) and isinstance(got, list)):
        yield '  whole reply:'
        yield '    expected: ' + short(compact(expected))
        yield '    got:      ' + short(compact(got))
        return
    for i in range(max(len(expected), len(got))):
        e = expected[i] if i < len(expected) else '(absent)'
        g = got[i] if i < len(got) else '(absent)'
        if i < len(expected) and i < len(got) and matcher.same(e, g):
            continue
        if i < len(ops):
            what = 'op %d %s' % (i + 1, short(dump_raw(ops[i]), 160))
        else:
            what = 'result %d (after the last op: commit outcome)' % (i + 1)
        yield '  ' + what
        yield '    expected: ' + short(compact(e))
        yield '    got:      ' + short(compact(g))


def compare_case(casedir, expected, got):
    """Returns a list of readable mismatch lines (empty if equal)."""
    lines = []
    matcher = Matcher()
    requests = load_raw(os.path.join(casedir, 'requests.json'))
    for n, txn in enumerate(requests):
        e = expected['replies'][n] if n < len(expected['replies']) else None
        g = got['replies'][n] if n < len(got['replies']) else None
        matcher.new_reply()
        snap = matcher.snapshot()
        if not matcher.same(e, g):
            matcher.restore(snap)
            lines.append('transaction %d of %d:' % (n + 1, len(requests)))
            lines.extend(describe_txn(matcher, txn, e, g))
    compare_final(casedir, matcher, expected['final'], got['final'],
                  'final contents (query of all rows):', lines)
    if 'final_ref' in got:
        compare_final(casedir, matcher, expected['final'], got['final_ref'],
                      'final contents of our file read by the reference '
                      'ovsdb-tool:', lines)
    return lines


def compare_final(casedir, matcher, e, g, title, lines):
    """Compares two final queries of every table; appends readable lines
    to 'lines' if they differ."""
    matcher.new_reply()
    snap = matcher.snapshot()
    if matcher.same(e, g):
        return
    matcher.restore(snap)
    lines.append(title)
    if isinstance(e, list) and isinstance(g, list) and len(e) == len(g):
        with open(case_schema(casedir), encoding='utf-8') as f:
            tables = sorted(json.load(f)['tables'])
        for i, (x, y) in enumerate(zip(e, g)):
            if not matcher.same(x, y):
                name = tables[i] if i < len(tables) else '?'
                lines.append('  table %s' % name)
                lines.append('    expected: ' + short(compact(x), 600))
                lines.append('    got:      ' + short(compact(y), 600))
    else:
        lines.append('    expected: ' + short(compact(e), 600))
        lines.append('    got:      ' + short(compact(g), 600))


def write_expected(path, output):
    with open(path, 'w', encoding='utf-8') as f:
        f.write('{"replies": [\n')
        f.write(',\n'.join(compact(r) for r in output['replies']))
        f.write('\n],\n"final": ')
        f.write(compact(output['final']))
        f.write('}\n')


def load_expected(casedir, server):
    """Returns (path, contents) of the golden file for CASEDIR: in server
    mode expected-server.json if there is one, else expected.json."""
    path = os.path.join(casedir, 'expected.json')
    server_path = os.path.join(casedir, 'expected-server.json')
    if server and os.path.exists(server_path):
        path = server_path
    with open(path, encoding='utf-8') as f:
        return path, json.load(f)


def record(casedir, server, got):
    """Writes expected.json, or in server mode expected-server.json, but the
    latter only where the server's replies differ from expected.json.  A
    file whose compared parts are unchanged is kept as it is, so that the
    "details" strings, which vary from run to run, do not churn."""
    def unchanged(path):
        if not os.path.exists(path):
            return False
        with open(path, encoding='utf-8') as f:
            return not compare_case(casedir, json.load(f), got)

    path = os.path.join(casedir, 'expected.json')
    server_path = os.path.join(casedir, 'expected-server.json')
    if not server:
        if unchanged(path):
            return 'nothing (expected.json is unchanged)'
        write_expected(path, got)
        return 'expected.json'
    if not unchanged(path):
        if unchanged(server_path):
            return 'nothing (expected-server.json is unchanged)'
        write_expected(server_path, got)
        return 'expected-server.json'
    if os.path.exists(server_path):
        os.remove(server_path)
    return 'nothing (the server matches expected.json)'



# ---------------------------------------------------------------------------
# Self-test of the masking and the comparison (no programs needed).

def selftest():
    """Checks that equivalent outputs compare equal and that each kind of
    real difference is reported.  Returns the number of failed checks."""
    u = ['%08d-0000-4000-8000-%012d' % (n, n) for n in range(1, 9)]
    kept = '01234567-89ab-cdef-0123-456789abcdef'
    requests = [['DB', {'op': 'insert', 'table': 'T', 'row': {}}]]

    def output(a, b, v1, v2, ref_a, ref_b, error='constraint violation',
               count=2, extra=None):
        row_a = {'_uuid': ['uuid', a], '_version': ['uuid', v1],
                 'name': 'a', 'ref': ['uuid', ref_a],
                 'set': ['set', [['uuid', a], ['uuid', b]]],
                 'map': ['map', [['x', 1], ['y', 2.0]]],
                 'fixed': ['uuid', kept]}
        row_b = {'_uuid': ['uuid', b], '_version': ['uuid', v2],
                 'name': 'b', 'ref': ['uuid', ref_b],
                 'set': ['set', []], 'map': ['map', []],
                 'fixed': ['uuid', kept]}
        if extra:
            row_b.update(extra)
        return {'replies': [[{'uuid': ['uuid', a]}, {'uuid': ['uuid', b]},
                             {'count': count},
                             {'error': error, 'details': 'row ' + a}]],
                'final': [{'rows': [row_a, row_b]}]}

    base = output(u[0], u[1], u[2], u[3], u[1], u[0])
    equivalent = {
        'renamed uuids': output(u[4], u[5], u[6], u[7], u[5], u[4]),
        'reordered': None,
    }
    other = output(u[4], u[5], u[6], u[7], u[5], u[4])
    other['final'][0]['rows'].reverse()
    other['final'][0]['rows'][1]['set'][1].reverse()
    other['final'][0]['rows'][1]['map'][1].reverse()
    other['replies'][0][3]['details'] = 'other words'
    equivalent['reordered'] = other
    different = {
        'swapped reference': output(u[0], u[1], u[2], u[3], u[0], u[1]),
        'error string': output(u[0], u[1], u[2], u[3], u[1], u[0],
                               error='referential integrity violation'),
        'count': output(u[0], u[1], u[2], u[3], u[1], u[0], count=3),
        'same version twice': output(u[0], u[1], u[2], u[2], u[1], u[0]),
        'bool for integer': output(u[0], u[1], u[2], u[3], u[1], u[0],
                                   extra={'x': True}),
        'set for atom': output(u[0], u[1], u[2], u[3], u[1], u[0],
                               extra={'name': ['set', ['b']]}),
        'kept uuid changed': output(u[0], u[1], u[2], u[3], u[1], u[0],
                                    extra={'fixed': ['uuid', u[5]]}),
    }
    base_x = output(u[0], u[1], u[2], u[3], u[1], u[0], extra={'x': 1})
    different['bool for integer'] = (base_x, different['bool for integer'])
    equivalent['1 == 1.0'] = (base_x, output(u[0], u[1], u[2], u[3], u[1],
                                            u[0], extra={'x': 1.0}))
    failure = {'exit': 1, 'stdout': '', 'stderr': 'one message'}
    failure2 = {'exit': 'closed', 'stdout': '', 'stderr': 'another'}
    fail_a = {'replies': [failure], 'final': [{'rows': []}]}
    fail_b = {'replies': [failure2], 'final': [{'rows': []}]}
    equivalent['two failures'] = (fail_a, fail_b)
    different['failure vs reply'] = (fail_a, {'replies': [[]],
                                              'final': [{'rows': []}]})

    failed = 0
    with tempfile.TemporaryDirectory(prefix='txn-selftest.') as tmp:
        with open(os.path.join(tmp, 'requests.json'), 'w') as f:
            json.dump(requests, f)
        with open(os.path.join(tmp, 'schema'), 'w') as f:
            json.dump({'name': 'DB', 'tables': {'T': {}}}, f)
        for expect_equal, table in ((True, equivalent), (False, different)):
            for name, pair in sorted(table.items()):
                a, b = pair if isinstance(pair, tuple) else (base, pair)
                lines = compare_case(tmp, mask_output(a, [kept]),
                                     mask_output(b, [kept]))
                if bool(lines) == expect_equal:
                    failed += 1
                    print('selftest FAILED: %s: expected %s' %
                          (name, 'equal' if expect_equal else 'a mismatch'))
                    for line in lines:
                        print(line)
        # One UUID missing early must not make every later label differ.
        with open(os.path.join(tmp, 'requests.json'), 'w') as f:
            json.dump(requests * 2, f)
        a = {'replies': [[{'uuid': ['uuid', u[0]]}],
                         [{'uuid': ['uuid', u[1]]}]],
             'final': [{'rows': [{'_uuid': ['uuid', u[1]]}]}]}
        b = {'replies': [[{'error': 'syntax error'}],
                         [{'uuid': ['uuid', u[2]]}]],
             'final': [{'rows': [{'_uuid': ['uuid', u[2]]}]}]}
        lines = compare_case(tmp, mask_output(a), mask_output(b))
        if lines[:1] != ['transaction 1 of 2:'] or len(lines) != 4:
            failed += 1
            print('selftest FAILED: a shifted label is reported beyond '
                  'the transaction that differs:')
            for line in lines:
                print(line)
    print('selftest: %d checks, %d failed'
          % (len(equivalent) + len(different) + 1, failed))
    return failed


def load_known(path, mode):
    """Reads the known-mismatches file: lines "CASE MODES REASON..." where
    MODES is "all" or a comma-separated list of runner modes ("tool",
    "server", "engine", ...); "#" starts a comment.  Returns {case:
    reason} for the cases known to mismatch in 'mode'."""
    known = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            case, modes, reason = (line.split(None, 2) + ['', ''])[:3]
            if modes == 'all' or mode in modes.split(','):
                known[case] = reason or 'known'
    return known


def main(argv):
    if len(argv) == 2 and argv[1] == 'selftest':
        return 1 if selftest() else 0
    if len(argv) < 2 or argv[1] not in ('record', 'check', 'show'):
        sys.stderr.write(__doc__)
        return 2
    cmd = argv[1]
    args = argv[2:]
    tool = server = known_path = mode = cross_read = None
    remote = 'unix'
    label = 'ours'
    cases = []
    while args:
        a = args.pop(0)
        if a == '--tool':
            tool = args.pop(0)
        elif a == '--server':
            server = args.pop(0)
        elif a == '--remote':
            remote = args.pop(0)
        elif a == '--label':
            label = args.pop(0)
        elif a == '--known':
            known_path = args.pop(0)
        elif a == '--mode':
            mode = args.pop(0)
        elif a == '--cross-read':
            cross_read = args.pop(0)
        else:
            cases.append(a.rstrip('/'))
    if not tool or not cases or remote not in ('unix', 'tcp', 'ssl'):
        sys.stderr.write('txncompare.py: need --tool and case directories '
                         '(and --remote unix, tcp or ssl)\n')
        return 2
    if server:
        label += ' server over %s' % remote

    if mode is None:
        mode = 'server' if server else 'tool'
    known = load_known(known_path, mode) if known_path else {}
    passed = failed = n_txns = 0
    known_seen = []
    for casedir in cases:
        name = os.path.basename(casedir)
        try:
            got = run_case(tool, casedir, server, remote, cross_read)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            print('FAIL %s (%s): %s' % (name, label, e))
            failed += 1
            continue
        if cmd == 'record':
            print('%s: recorded %s (%d transactions)'
                  % (name, record(casedir, server, got),
                     len(got['replies'])))
            continue
        if cmd == 'show':
            print(json.dumps(got, indent=1, sort_keys=True))
            continue
        path, expected = load_expected(casedir, server)
        n_txns += len(expected['replies'])
        lines = compare_case(casedir, expected, got)
        if lines and name in known:
            known_seen.append(name)
            print('KNOWN MISMATCH %s (%s vs %s; %s):'
                  % (name, label, os.path.basename(path), known[name]))
            for line in lines:
                print(line)
        elif lines:
            failed += 1
            print('MISMATCH %s (%s vs %s):'
                  % (name, label, os.path.basename(path)))
            for line in lines:
                print(line)
        elif name in known:
            failed += 1
            print('FIXED %s (%s): it now matches, remove it from %s'
                  % (name, label, known_path))
        else:
            passed += 1
    if cmd == 'check':
        print('%s: %d cases passed, %d failed, %d known mismatches '
              '(%d transactions)'
              % (label, passed, failed, len(known_seen), n_txns))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
