"""Transactions: implicit BEGIN before modifications, commit/rollback, the connection as a
context manager, autocommit — checked from a second connection to the same file."""

import pytest

import basalt


ROWS = 5000


@pytest.fixture
def pair(path):
    writer = basalt.connect(path)
    reader = basalt.connect(path)
    writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    yield writer, reader
    writer.close()
    reader.close()


def count(con):
    return con.execute("SELECT count(*) FROM t").fetchone()[0]


def test_ddl_commits_on_its_own(pair):
    writer, reader = pair
    assert not writer.in_transaction
    assert reader.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_modification_opens_a_transaction_until_commit(pair):
    writer, reader = pair
    writer.executemany("INSERT INTO t (v) VALUES (?)", ((str(i),) for i in range(ROWS)))
    assert writer.in_transaction
    assert count(writer) == ROWS
    assert count(reader) == 0
    writer.commit()
    assert not writer.in_transaction
    assert count(reader) == ROWS


def test_rollback_discards(pair):
    writer, reader = pair
    writer.executemany("INSERT INTO t (v) VALUES (?)", [("x",)] * ROWS)
    writer.commit()
    writer.execute("DELETE FROM t WHERE id % 2 = 0")
    assert writer.execute("SELECT count(*) FROM t").fetchone() == (ROWS // 2,)
    writer.rollback()
    assert count(writer) == ROWS and count(reader) == ROWS


def test_context_manager_commits(pair):
    writer, reader = pair
    with writer:
        writer.executemany("INSERT INTO t (v) VALUES (?)", [("x",)] * ROWS)
    assert not writer.in_transaction
    assert count(reader) == ROWS
    # The connection stays usable after the block, as sqlite3's does.
    assert count(writer) == ROWS


def test_context_manager_rolls_back_on_error(pair):
    writer, reader = pair
    with pytest.raises(ZeroDivisionError):
        with writer:
            writer.executemany("INSERT INTO t (v) VALUES (?)", [("x",)] * ROWS)
            1 / 0
    assert not writer.in_transaction
    assert count(writer) == 0 and count(reader) == 0


def test_context_manager_rolls_back_on_database_error(pair):
    writer, _ = pair
    writer.execute("INSERT INTO t VALUES (1, 'a')")
    writer.commit()
    with pytest.raises(basalt.IntegrityError):
        with writer:
            writer.execute("INSERT INTO t VALUES (2, 'b')")
            writer.execute("INSERT INTO t VALUES (1, 'c')")
    assert writer.execute("SELECT id FROM t").fetchall() == [(1,)]


def test_autocommit(path):
    writer = basalt.connect(path, autocommit=True)
    reader = basalt.connect(path)
    assert writer.autocommit is True
    writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    writer.execute("INSERT INTO t (v) VALUES ('a')")
    assert not writer.in_transaction
    assert count(reader) == 1
    # An explicit BEGIN still makes a transaction.
    writer.execute("BEGIN")
    writer.execute("INSERT INTO t (v) VALUES ('b')")
    assert count(reader) == 1
    writer.rollback()
    assert count(writer) == 1
    # Turning autocommit on commits what is open.
    writer.autocommit = False
    writer.execute("INSERT INTO t (v) VALUES ('c')")
    assert writer.in_transaction
    writer.autocommit = True
    assert not writer.in_transaction and count(reader) == 2


def test_close_rolls_back(path):
    writer = basalt.connect(path)
    writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    writer.execute("INSERT INTO t (v) VALUES ('a')")
    writer.close()
    assert count(basalt.connect(path)) == 0


def test_reads_see_a_snapshot(pair):
    writer, reader = pair
    with writer:
        writer.executemany("INSERT INTO t (v) VALUES (?)", [("x",)] * ROWS)
    cur = reader.execute("SELECT id FROM t ORDER BY id")
    first = cur.fetchone()
    with writer:
        writer.execute("DELETE FROM t")
    rest = cur.fetchall()
    assert [first] + rest == [(i,) for i in range(1, ROWS + 1)]
    assert count(reader) == 0


def test_commit_ends_open_queries(pair):
    """As PostgreSQL closes portals at the end of a transaction: the rows a cursor already
    holds are returned, then the next fetch raises (docs/python.md)."""
    writer, _ = pair
    writer.executemany("INSERT INTO t (v) VALUES (?)", [("x",)] * ROWS)
    writer.commit()
    cur = writer.execute("SELECT id FROM t ORDER BY id")
    assert cur.fetchone() == (1,)
    writer.execute("INSERT INTO t (v) VALUES ('y')")  # opens the implicit transaction
    writer.commit()
    assert len(cur.fetchmany(1023)) == 1023  # the rest of the first chunk
    with pytest.raises(basalt.ProgrammingError) as raised:
        cur.fetchone()
    assert raised.value.sqlstate == "34000" and "transaction ended" in str(raised.value)
    # Without a transaction open, commit() changes nothing and the query goes on.
    cur = writer.execute("SELECT id FROM t")
    cur.fetchone()
    writer.commit()
    assert len(cur.fetchall()) == ROWS
