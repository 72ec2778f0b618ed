#!/usr/bin/env python3
"""Records a .slt file's expected query results from a real PostgreSQL, and checks its
statement records' expectations (`statement ok` / `statement error SQLSTATE xxxxx`) there.

Usage: record_from_postgres.py in.slt out.slt

Every record runs, in order, in one psql session against a fresh database `numgen` on the
server at PGHOST (default /tmp), PGPORT (default 5499) as PGUSER (default postgres), e.g. a
cluster started with `initdb -A trust -D /tmp/pgnum` and
`pg_ctl -D /tmp/pgnum -o '-p 5499 -k /tmp' start`. A query's old results (after `----`) are
replaced by PostgreSQL's, formatted as basalt-slt prints them: NULL, (empty), booleans as 1/0
in `I` columns, `R` columns with three decimals, rows sorted for `rowsort`. Statement records
whose outcome differs, and queries that fail, are reported on stderr. Used for
tests/slt/numeric.slt (its last section, Basalt's own limits, is appended by hand).
"""
import os, subprocess, sys, re, tempfile

SCRIPT = os.path.join(tempfile.gettempdir(), 'record_from_postgres.sql')

HOST = os.environ.get('PGHOST', '/tmp')
PORT = os.environ.get('PGPORT', '5499')
USER = os.environ.get('PGUSER', 'postgres')

US, RS = '\x1f', '\x1e'
draft = open(sys.argv[1]).read()
records = re.split(r'\n\s*\n', draft.strip('\n'))
script = ['\\pset null NULL', '\\set VERBOSITY sqlstate']
parsed = []
for i, rec in enumerate(records):
    lines = rec.split('\n')
    head = [l for l in lines if not l.startswith('#')]
    comments = [l for l in lines if l.startswith('#')]
    if not head:
        parsed.append(('comment', comments, None, None)); continue
    first = head[0]
    if first.startswith('statement') or first.startswith('query'):
        sql_lines = []
        for l in head[1:]:
            if l == '----': break
            sql_lines.append(l)
        sql = '\n'.join(sql_lines)
        parsed.append((first, comments, sql, i))
        script.append(f'\\echo @@REC {i}')
        script.append(sql.rstrip().rstrip(';') + ';')
    else:
        parsed.append(('other', lines, None, None))
script.append('\\echo @@REC END')
open(SCRIPT, 'w').write('\n'.join(script) + '\n')
for cmd in (['dropdb', '--if-exists'], ['createdb']):
    subprocess.run(cmd + ['-h', HOST, '-p', PORT, '-U', USER, 'numgen'], check=True)
out = subprocess.run(['stdbuf', '-oL', '-eL', 'psql', '-X', '-At', '-F', US, '-h', HOST, '-p', PORT,
                      '-U', USER, '-d', 'numgen', '-f', SCRIPT],
                     capture_output=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
chunks = {}
cur = None
for line in out.split('\n'):
    m = re.match(r'@@REC (\S+)$', line)
    if m:
        cur = m.group(1); chunks[cur] = []; continue
    if cur is not None:
        chunks[cur].append(line)

def fixed3(v):
    return f'{float(v):.3f}'

result = []
for kind, extra, sql, idx in parsed:
    if kind == 'comment':
        result.append('\n'.join(extra)); continue
    if kind == 'other':
        result.append('\n'.join(extra)); continue
    lines = [l for l in chunks.get(str(idx), []) if l != '']
    errors = [l for l in lines if 'ERROR:' in l]
    text = '\n'.join(extra + [kind, sql])
    if kind.startswith('statement'):
        if kind.startswith('statement ok'):
            if errors:
                print(f'MISMATCH record {idx}: {sql}: {errors}', file=sys.stderr)
        else:
            want = kind.split()[-1]
            got = [re.search(r'ERROR:\s+(\w+)', e).group(1) for e in errors]
            if want not in got:
                print(f'MISMATCH record {idx}: {sql}: want {want} got {got or lines}', file=sys.stderr)
        result.append(text); continue
    # query
    if errors:
        print(f'QUERY ERROR record {idx}: {sql}: {errors}', file=sys.stderr)
    parts = kind.split()
    types = parts[1]
    rows = []
    for l in lines:
        if 'ERROR:' in l or l.startswith('psql:') or l in ('SET', 'CREATE TABLE', 'INSERT 0 1'):
            continue
        vals = l.split(US)
        if len(vals) != len(types):
            print(f'WIDTH record {idx}: {sql}: {l!r}', file=sys.stderr)
        row = []
        for t, v in zip(types, vals):
            if v == 'NULL': row.append('NULL')
            elif t == 'I' and v in ('t', 'f'): row.append('1' if v == 't' else '0')
            elif t == 'R': row.append(fixed3(v))
            elif v == '': row.append('(empty)')
            else: row.append(v)
        rows.append(row)
    if 'rowsort' in parts:
        rows.sort()
    values = [v for r in rows for v in r]
    result.append(text + '\n----' + ('\n' + '\n'.join(values) if values else ''))
open(sys.argv[2], 'w').write('\n\n'.join(result) + '\n')
