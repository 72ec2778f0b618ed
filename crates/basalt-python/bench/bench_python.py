"""The Python path measured: basalt against the standard library's sqlite3 and DuckDB's
Python package, on the same machine, in the same process, on file databases.

    python crates/basalt-python/bench/bench_python.py [--runs 7] [--rows 100000]

Workloads (each the median of --runs runs, after one warm-up run):

- point:      ``cur.execute("SELECT ... WHERE id = ?", (k,)).fetchone()`` on a 100k-row table,
              random ids, per call (the per-call overhead of a prepared point select).
- fetchall:   ``execute("SELECT id, name, score FROM t").fetchall()`` of 100k rows.
- executemany: ``executemany("INSERT INTO t VALUES (?, ?, ?)", rows)`` of 100k rows into an
              empty table, in one transaction, committed.
- vector:     a top-10 nearest-neighbour query for a numpy float32 query vector over 20k
              vectors of 128 dimensions: basalt with an HNSW index and exactly (no index),
              DuckDB with array_distance over FLOAT[128]; sqlite3 is left out: it has no
              vector search, and sqlite-vec (on PyPI) needs loadable extensions, which this
              machine's Python sqlite3 is built without (no enable_load_extension).

Answers are checked to agree before anything is timed. Prints a Markdown table.
"""

import argparse
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time

import numpy as np

import basalt

try:
    import duckdb
except ImportError:  # measured when installed
    duckdb = None

DIM = 128


def median_time(function, runs):
    function()  # warm-up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def rows_of(n):
    random.seed(1)
    return [(i, f"name-{i}-{random.randint(0, 10**6)}", random.random() * 1000) for i in range(1, n + 1)]


class Engine:
    name = ""

    def __init__(self, directory):
        self.directory = directory


class Basalt(Engine):
    name = "basalt"

    def connect(self, label):
        return basalt.connect(os.path.join(self.directory, f"{label}.basalt"))

    def create(self, con, table):
        con.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, name TEXT, score REAL)")


class Sqlite(Engine):
    name = "sqlite3"

    def connect(self, label):
        con = sqlite3.connect(os.path.join(self.directory, f"{label}.sqlite"))
        con.execute("PRAGMA journal_mode = WAL")
        con.execute("PRAGMA synchronous = NORMAL")
        return con

    def create(self, con, table):
        con.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, name TEXT, score REAL)")


class Duck(Engine):
    name = "duckdb"

    def connect(self, label):
        return duckdb.connect(os.path.join(self.directory, f"{label}.duckdb"))

    def create(self, con, table):
        con.execute(f"CREATE TABLE {table} (id BIGINT PRIMARY KEY, name VARCHAR, score DOUBLE)")


def load(engine, con, rows):
    engine.create(con, "t")
    if engine.name == "duckdb":
        # DuckDB's executemany goes row by row (measured on its own below); load in bulk.
        ids, names, scores = (list(column) for column in zip(*rows))
        con.execute("INSERT INTO t SELECT unnest(?), unnest(?), unnest(?)", (ids, names, scores))
    else:
        con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    con.commit()


def bench_point(engine, con, n, runs, calls=20000):
    random.seed(2)
    keys = [random.randint(1, n) for _ in range(calls)]
    cur = con.cursor()
    sql = "SELECT id, name, score FROM t WHERE id = ?"

    def run():
        for k in keys:
            cur.execute(sql, (k,)).fetchone()

    for k in keys[:50]:
        assert cur.execute(sql, (k,)).fetchone()[0] == k
    return median_time(run, runs) / calls


def bench_fetchall(engine, con, n, runs):
    cur = con.cursor()
    sql = "SELECT id, name, score FROM t"
    assert len(cur.execute(sql).fetchall()) == n
    return median_time(lambda: cur.execute(sql).fetchall(), runs)


def bench_executemany(engine, rows, runs):
    counter = [0]

    def run():  # noqa: the first run is a warm-up
        counter[0] += 1
        con = engine.connect(f"many{counter[0]}")
        engine.create(con, "m")
        started = time.perf_counter()
        con.executemany("INSERT INTO m VALUES (?, ?, ?)", rows)
        con.commit()
        elapsed = time.perf_counter() - started
        assert con.execute("SELECT count(*) FROM m").fetchone()[0] == len(rows)
        con.close()
        return elapsed

    run()
    return statistics.median(run() for _ in range(runs))


def vectors_of(count):
    rng = np.random.default_rng(5)
    return rng.standard_normal((count, DIM)).astype(np.float32), rng.standard_normal((50, DIM)).astype(np.float32)


def bench_vector_basalt(directory, vectors, queries, runs, index):
    con = basalt.connect(os.path.join(directory, f"vec-{index}.basalt"))
    con.execute(f"CREATE TABLE v (id INTEGER PRIMARY KEY, e VECTOR({DIM}))")
    con.executemany("INSERT INTO v VALUES (?, ?)", ((i + 1, vectors[i]) for i in range(len(vectors))))
    con.commit()
    if index:
        con.execute("CREATE INDEX v_e ON v USING hnsw (e vector_l2_ops)")
    sql = "SELECT id FROM v ORDER BY e <-> ? LIMIT 10"
    cur = con.cursor()
    exact = [np.argsort(np.linalg.norm(vectors - q, axis=1))[:10] + 1 for q in queries]
    found = [[r[0] for r in cur.execute(sql, (q,)).fetchall()] for q in queries]
    recall = np.mean([len(set(f) & set(e.tolist())) / 10 for f, e in zip(found, exact)])
    per_query = median_time(lambda: [cur.execute(sql, (q,)).fetchall() for q in queries], runs) / len(queries)
    con.close()
    return per_query, recall


def bench_vector_duckdb(directory, vectors, queries, runs):
    con = duckdb.connect(os.path.join(directory, "vec.duckdb"))
    con.execute(f"CREATE TABLE v (id BIGINT, e FLOAT[{DIM}])")
    con.execute("INSERT INTO v SELECT i + 1, e FROM (SELECT unnest(range(?)) AS i, unnest(?) AS e)",
                (len(vectors), vectors.tolist()))
    sql = f"SELECT id FROM v ORDER BY array_distance(e, ?::FLOAT[{DIM}]) LIMIT 10"
    exact = [np.argsort(np.linalg.norm(vectors - q, axis=1))[:10] + 1 for q in queries]
    found = [[r[0] for r in con.execute(sql, (q.tolist(),)).fetchall()] for q in queries[:5]]
    recall = np.mean([len(set(f) & set(e.tolist())) / 10 for f, e in zip(found, exact)])
    per_query = median_time(lambda: [con.execute(sql, (q.tolist(),)).fetchall() for q in queries], runs) / len(queries)
    con.close()
    return per_query, recall


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--vectors", type=int, default=20_000)
    args = parser.parse_args()
    n = args.rows
    rows = rows_of(n)
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-python-") as directory:
        engines = [Basalt(directory), Sqlite(directory)] + ([Duck(directory)] if duckdb else [])
        for engine in engines:
            con = engine.connect("main")
            load(engine, con, rows)
            results[(engine.name, "point")] = bench_point(engine, con, n, args.runs)
            results[(engine.name, "fetchall")] = bench_fetchall(engine, con, n, args.runs)
            con.close()
            # DuckDB's row-by-row executemany takes minutes for 100k rows: once, on 10k, scaled.
            if engine.name == "duckdb":
                results[(engine.name, "executemany")] = bench_executemany(engine, rows[: n // 10], 1) * 10
            else:
                results[(engine.name, "executemany")] = bench_executemany(engine, rows, max(3, args.runs // 2))
            print(f"{engine.name}: done", file=sys.stderr)
        vectors, queries = vectors_of(args.vectors)
        results[("basalt", "vector (HNSW)")] = bench_vector_basalt(directory, vectors, queries, args.runs, True)
        results[("basalt", "vector (exact)")] = bench_vector_basalt(directory, vectors, queries, args.runs, False)
        if duckdb:
            results[("duckdb", "vector (exact)")] = bench_vector_duckdb(directory, vectors, queries, args.runs)
    print(f"\nPython {sys.version.split()[0]}, sqlite3 {sqlite3.sqlite_version}"
          + (f", duckdb {duckdb.__version__}" if duckdb else "") + f", numpy {np.__version__}\n")
    print("| workload | basalt | sqlite3 | duckdb | basalt / sqlite3 |")
    print("|---|---:|---:|---:|---:|")

    def show(value, unit):
        if value is None:
            return "—"
        return f"{value * 1e6:.2f} µs" if unit == "us" else f"{value * 1e3:.1f} ms"

    for workload, unit in [("point", "us"), ("fetchall", "ms"), ("executemany", "ms")]:
        b, s, d = (results.get((e, workload)) for e in ("basalt", "sqlite3", "duckdb"))
        print(f"| {workload} | {show(b, unit)} | {show(s, unit)} | {show(d, unit)} | {b / s:.2f}× |")
    for (engine, workload), value in results.items():
        if workload.startswith("vector"):
            per_query, recall = value
            print(f"| top-10 {workload}, {engine} | {per_query * 1e3:.2f} ms/query | recall@10 {recall:.2f} | | |")


if __name__ == "__main__":
    main()
