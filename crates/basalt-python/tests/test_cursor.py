"""Cursor behaviour: parameter styles, streaming, fetch sizes, row factories, description,
rowcount and lastrowid, executemany and executescript."""

import pytest

import basalt

N = 20000


@pytest.fixture
def big(con):
    con.execute("CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT, x REAL)")
    with con:
        con.executemany("INSERT INTO big VALUES (?, ?, ?)",
                        ((i, f"n{i}", i / 2) for i in range(1, N + 1)))
    return con


def test_module_attributes():
    assert basalt.apilevel == "2.0"
    assert basalt.threadsafety == 1
    assert basalt.paramstyle == "qmark"


def test_parameter_styles(con):
    assert con.execute("SELECT ?, ?", (1, "a")).fetchone() == (1, "a")
    assert con.execute("SELECT ?2, ?1", [1, "a"]).fetchone() == ("a", 1)
    assert con.execute("SELECT $2, $1, $2", (1, "a")).fetchone() == ("a", 1, "a")
    assert con.execute("SELECT :b, :a, :b", {"a": 1, "b": "x", "unused": 0}).fetchone() == ("x", 1, "x")
    assert con.execute("SELECT :a", (5,)).fetchone() == (5,)  # named, given by position
    assert con.execute("SELECT @a, :b", {"a": 1, "b": 2}).fetchone() == (1, 2)
    # PEP 249's numeric style: :N takes the N-th value.
    assert con.execute("SELECT :2, :1, :2", ("x", "y")).fetchone() == ("y", "x", "y")
    with pytest.raises(basalt.ProgrammingError):
        con.execute("SELECT :2, :1", ("x",))
    assert con.execute("SELECT 1").fetchone() == (1,)
    assert con.execute("SELECT 1", ()).fetchone() == (1,)


def test_string_is_not_a_parameter_sequence(con):
    with pytest.raises(basalt.ProgrammingError):
        con.execute("SELECT ?", "a")


def test_iteration_streams_every_row(big):
    cur = big.execute("SELECT id, name, x FROM big ORDER BY id")
    total = 0
    for count, (id_, name, x) in enumerate(cur, start=1):
        assert (id_, name, x) == (count, f"n{count}", count / 2)
        total += id_
    assert count == N and total == N * (N + 1) // 2
    assert cur.fetchone() is None and cur.fetchall() == []


def test_stopping_early_and_reusing_the_cursor(big):
    cur = big.cursor()
    cur.execute("SELECT id FROM big ORDER BY id")
    assert cur.fetchone() == (1,)
    cur.execute("SELECT count(*) FROM big")
    assert cur.fetchall() == [(N,)]


def test_fetchmany_and_arraysize(big):
    cur = big.cursor()
    assert cur.arraysize == 1
    cur.execute("SELECT id FROM big WHERE id <= 2500 ORDER BY id")
    assert cur.fetchmany() == [(1,)]
    cur.arraysize = 1000
    chunks = []
    while rows := cur.fetchmany():
        chunks.append(len(rows))
    assert chunks == [1000, 1000, 499]
    cur.execute("SELECT id FROM big WHERE id <= 10 ORDER BY id")
    assert cur.fetchmany(3) == [(1,), (2,), (3,)]
    assert cur.fetchone() == (4,)
    assert len(cur.fetchall()) == 6


def test_mixed_fetches_across_chunks(big):
    cur = big.execute("SELECT id FROM big ORDER BY id")
    got = [cur.fetchone()[0] for _ in range(1500)]
    got += [r[0] for r in cur.fetchmany(3000)]
    got += [r[0] for r in cur.fetchall()]
    assert got == list(range(1, N + 1))


def test_two_cursors_interleave(big):
    a = big.execute("SELECT id FROM big ORDER BY id")
    b = big.execute("SELECT id FROM big ORDER BY id DESC")
    pairs = [(a.fetchone()[0], b.fetchone()[0]) for _ in range(3000)]
    assert pairs[0] == (1, N) and pairs[-1] == (3000, N - 2999)


def test_description(big):
    cur = big.execute("SELECT id, name AS label, x * 2 AS y FROM big LIMIT 1")
    assert [d[0] for d in cur.description] == ["id", "label", "y"]
    assert cur.description[0][1] == basalt.NUMBER and cur.description[0][1] == basalt.ROWID
    assert cur.description[1][1] == basalt.STRING and cur.description[1][1] != basalt.NUMBER
    assert all(len(d) == 7 for d in cur.description)
    cur.execute("UPDATE big SET x = 0 WHERE id = 1")
    assert cur.description is None


def test_description_follows_schema_changes(con):
    con.execute("CREATE TABLE s (a INTEGER)")
    con.execute("INSERT INTO s VALUES (1)")
    con.commit()
    assert [d[0] for d in con.execute("SELECT * FROM s").description] == ["a"]
    other = basalt.connect(":memory:")  # unrelated database: must not matter
    other.close()
    con.execute("ALTER TABLE s ADD COLUMN b TEXT")
    cur = con.execute("SELECT * FROM s")
    assert [d[0] for d in cur.description] == ["a", "b"]
    assert cur.fetchall() == [(1, None)]


def test_rowcount_and_lastrowid(con):
    cur = con.cursor()
    assert cur.rowcount == -1 and cur.lastrowid is None
    cur.execute("CREATE TABLE r (id INTEGER PRIMARY KEY, v INTEGER)")
    assert cur.rowcount == -1
    cur.execute("INSERT INTO r (v) VALUES (10)")
    assert cur.rowcount == 1 and cur.lastrowid == 1
    cur.executemany("INSERT INTO r (v) VALUES (?)", [(i,) for i in range(3000)])
    assert cur.rowcount == 3000 and cur.lastrowid == 3001
    cur.execute("UPDATE r SET v = v + 1 WHERE v < 100")
    assert cur.rowcount == 101
    cur.execute("DELETE FROM r WHERE id > 2000")
    assert cur.rowcount == 1001 and cur.lastrowid == 3001
    cur.execute("SELECT * FROM r")
    assert cur.rowcount == -1
    # As in SQLite, a new row id is one past the largest left.
    cur.execute("INSERT INTO r (v) VALUES (1) RETURNING id, v")
    assert cur.fetchall() == [(2001, 1)] and cur.lastrowid == 2001


def test_row_factories(big):
    big.row_factory = basalt.Row
    row = big.execute('SELECT id, name AS "Label" FROM big WHERE id = 7').fetchone()
    assert isinstance(row, basalt.Row)
    assert row["id"] == 7 and row["label"] == "n7" and row["LABEL"] == "n7" and row[1] == "n7"
    assert row.keys() == ["id", "Label"] and tuple(row) == (7, "n7") and len(row) == 2
    cur = big.cursor()
    cur.row_factory = lambda cursor, values: {d[0]: v for d, v in zip(cursor.description, values)}
    assert cur.execute("SELECT id, x FROM big WHERE id = 2").fetchone() == {"id": 2, "x": 1.0}
    big.row_factory = None
    assert big.execute("SELECT 1").fetchone() == (1,)


def test_executemany_with_a_generator_and_named_parameters(con):
    con.execute("CREATE TABLE g (a INTEGER, b TEXT)")
    cur = con.executemany("INSERT INTO g VALUES (:a, :b)",
                          ({"a": i, "b": str(i)} for i in range(10000)))
    assert cur.rowcount == 10000
    assert con.execute("SELECT count(*), sum(a) FROM g").fetchone() == (10000, sum(range(10000)))
    assert con.executemany("INSERT INTO g VALUES (?, ?)", []).rowcount == 0


def test_executescript(con):
    con.execute("CREATE TABLE e (a INTEGER)")
    con.execute("INSERT INTO e VALUES (1)")
    con.executescript("""
        INSERT INTO e VALUES (2);
        CREATE TABLE f (b TEXT);
        INSERT INTO f VALUES ('x');
    """)
    assert not con.in_transaction
    other = basalt.connect(":memory:")
    other.close()
    assert con.execute("SELECT count(*) FROM e").fetchone() == (2,)
    assert con.execute("SELECT b FROM f").fetchall() == [("x",)]


def test_connect_accepts_a_path_object(tmp_path):
    con = basalt.connect(tmp_path / "p.basalt")
    con.execute("CREATE TABLE t (a INTEGER)")
    con.close()
    assert (tmp_path / "p.basalt").exists()


def test_connections_to_one_file_share_it(path):
    a = basalt.connect(path)
    b = basalt.connect(path)
    a.execute("CREATE TABLE t (a INTEGER)")
    with a:
        a.execute("INSERT INTO t VALUES (1)")
    assert b.execute("SELECT a FROM t").fetchall() == [(1,)]
    a.close()
    b.close()
    # Reopened after every connection closed.
    assert basalt.connect(path).execute("SELECT a FROM t").fetchall() == [(1,)]


def test_memory_databases_are_separate():
    a = basalt.connect(":memory:")
    b = basalt.connect(":memory:")
    a.execute("CREATE TABLE t (a INTEGER)")
    with pytest.raises(basalt.ProgrammingError):
        b.execute("SELECT * FROM t")


@pytest.mark.parametrize("autocommit", [False, True])
def test_executemany_error_leaves_the_rows_before_it(path, autocommit):
    """executemany runs plain INSERTs in multi-row groups; a failing group is redone row by
    row, so the rows before the bad one are inserted and the error names the bad row's key."""
    con = basalt.connect(path, autocommit=autocommit)
    con.execute("CREATE TABLE u (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    rows = [(i, str(i)) for i in range(1, 3001)]
    rows[1234] = (7, "duplicate")  # row 1235 repeats id 7
    with pytest.raises(basalt.IntegrityError) as raised:
        con.executemany("INSERT INTO u (id, v) VALUES (?, ?);", rows)
    assert raised.value.sqlstate == "23505"
    assert con.execute("SELECT count(*), max(id) FROM u").fetchone() == (1234, 1234)
    con.rollback()
    expected = 1234 if autocommit else 0
    assert basalt.connect(path).execute("SELECT count(*) FROM u").fetchone() == (expected,)


def test_executemany_forms_that_are_not_batched(con):
    con.execute("CREATE TABLE k (id INTEGER PRIMARY KEY, v INTEGER)")
    con.executemany("INSERT INTO k VALUES (?, ?)", [(i, i) for i in range(1, 1001)])
    cur = con.executemany("INSERT INTO k VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET v = excluded.v + 1",
                          [(i, i) for i in range(500, 1501)])
    assert cur.rowcount == 1001
    assert con.execute("SELECT count(*), sum(v) FROM k").fetchone() == (
        1500, sum(range(1, 500)) + sum(i + 1 for i in range(500, 1001)) + sum(range(1001, 1501)))
    con.executemany("INSERT INTO k (v, id) VALUES (? * 2, ?)", [(i, 2000 + i) for i in range(600)])
    assert con.execute("SELECT v FROM k WHERE id = 2599").fetchone() == (1198,)
    con.executemany("UPDATE k SET v = ? WHERE id = ?", [(0, i) for i in range(1, 1001)])
    # ids 1..1000, and 2000, inserted with v = 0 * 2
    assert con.execute("SELECT count(*) FROM k WHERE v = 0").fetchone() == (1001,)
