#!/usr/bin/env python3
"""Generates random calls of the jsonb path and key-list functions as sqllogictest records
(for tests/slt/jsonpath-random.slt): jsonb_set, jsonb_set_lax, jsonb_insert, #-, - text[],
?| and ?& over a few documents with random text[] paths.

Usage: jsonb_modify_random.py SEED OUT.slt

Record the answers on PostgreSQL 15 as jsonpath_random.py's docstring explains.
"""

import random
import sys

random.seed(int(sys.argv[1]))
docs=['{"a": [1, 2, {"b": 3}], "b": {"c": "s1", "a": 2}, "c": null}','[1, {"a": -2.5, "b": [true, "b"]}, [3, 4], "c"]','{}','[]','{"a": {"a": {"a": 1}}}']
steps=['a','b','c','0','1','-1','2','5','-5','x','-3']
vals=["'1'","'\"v\"'","'[9]'","'{\"z\": 0}'","'null'"]
out=['statement ok\nSELECT 1\n']
for i in range(300):
    d=random.choice(docs)
    path='{'+','.join(random.choice(steps) for _ in range(random.randint(0,3)))+'}'
    v=random.choice(vals)
    f=random.choice(['jsonb_set(%s, %s, %s)','jsonb_set(%s, %s, %s, false)','jsonb_insert(%s, %s, %s)','jsonb_insert(%s, %s, %s, true)','%s #- %s','jsonb_set_lax(%s, %s, NULL, true, \'delete_key\')','%s - %s::text[]','%s ?| %s::text[]','%s ?& %s::text[]', 'jsonb_strip_nulls(jsonb_set(%s, %s, \'null\'))'])
    nargs=f.count('%s')
    args=["'%s'::jsonb"%d,"'%s'"%path,v][:nargs]
    out.append('query T\nSELECT %s\n----\n'%(f%tuple(args)))
open(sys.argv[2], 'w').write('\n'.join(out))
