#!/usr/bin/env python3
"""Generates random jsonpath queries as sqllogictest records (for tests/slt/jsonpath-random.slt).

Usage: jsonpath_random.py SEED OUT.slt

Each record runs one random path (lax or strict; accessors, filters, arithmetic, methods,
predicates) over one of three documents through jsonb_path_query_array or jsonb_path_exists,
with or without silent. The records have no expected results: record them on PostgreSQL 15 by
running `basalt-slt --db postgres --verbose --list-failures OUT.slt`, turning each query that
fails there into `statement error SQLSTATE <code>`, then `basalt-slt --db postgres --rewrite
OUT.slt`; `basalt-slt OUT.slt` then compares Basalt with PostgreSQL's answers.
"""

import random
import sys

random.seed(int(sys.argv[1]))
keys=['a','b','c','"x y"']
def primary(d, in_filter):
    r=random.random()
    if r<0.35: return '$'
    if in_filter and r<0.6: return '@'
    if r<0.7: return str(random.choice([0,1,2,-1,1.5]))
    if r<0.75: return '"s"'
    if r<0.8: return random.choice(['true','null'])
    return '$'
def step(d, in_filter):
    r=random.random()
    if r<0.3: return '.'+random.choice(keys)
    if r<0.4: return '.*'
    if r<0.5: return '[*]'
    if r<0.6: return '[%s]'%random.choice(['0','1','last','0 to 1','last - 1','1 to last','0, 2'])
    if r<0.65: return random.choice(['.**','.**{1}','.**{0 to 1}','.**{2 to last}'])
    if r<0.8 and d<3: return ' ? (%s)'%pred(d+1)
    return random.choice(['.type()','.size()','.abs()','.floor()','.double()','.keyvalue()'])
def accessor(d, in_filter):
    p=primary(d,in_filter)
    if p in ('$','@'):
        return p+''.join(step(d,in_filter) for _ in range(random.randint(0,3)))
    return p
def expr(d, in_filter):
    r=random.random()
    if r<0.75 or d>2: return accessor(d,in_filter)
    if r<0.9: return '%s %s %s'%(accessor(d,in_filter),random.choice(['+','-','*','/','%']),accessor(d,in_filter))
    return '-'+accessor(d,in_filter)
def pred(d):
    r=random.random()
    if r<0.5 or d>2: return '%s %s %s'%(expr(d,True),random.choice(['==','!=','<','>=']),expr(d,True))
    if r<0.6: return 'exists(%s)'%expr(d,True)
    if r<0.7: return '%s && %s'%(pred(d+1),pred(d+1))
    if r<0.8: return '%s || %s'%(pred(d+1),pred(d+1))
    if r<0.85: return '!(%s)'%pred(d+1)
    if r<0.9: return '(%s) is unknown'%pred(d+1)
    if r<0.95: return '%s like_regex "^[a-c]"'%expr(d,True)
    return '%s starts with "s"'%expr(d,True)
docs=['{"a": [1, 2, {"b": 3}], "b": {"c": "s1", "a": 2}, "c": null, "x y": [[4], "sa"]}','[1, {"a": -2.5, "b": [true, "b"]}, [3, 4], "c"]','{"a": {"a": {"a": 1}}, "b": 0}']
out=['statement ok\nSELECT 1\n']
seen=set()
while len(seen)<400:
    mode=random.choice(['','strict ','lax '])
    p=mode+(expr(0,False) if random.random()<0.8 else pred(0))
    if p in seen: continue
    seen.add(p)
    doc=random.choice(docs)
    fn=random.choice(['jsonb_path_query_array(\'%s\', \'%s\')','jsonb_path_query_array(\'%s\', \'%s\', silent => true)','jsonb_path_exists(\'%s\', \'%s\', silent => true)'])
    out.append('query T\nSELECT %s\n----\n'%(fn%(doc,p.replace("'","''"))))
open(sys.argv[2], 'w').write('\n'.join(out))
