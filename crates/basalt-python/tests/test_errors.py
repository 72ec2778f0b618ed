"""Errors raise PEP 249's classes, chosen by SQLSTATE, each carrying `.sqlstate`."""

import pytest

import basalt


def test_hierarchy():
    assert issubclass(basalt.Error, Exception) and issubclass(basalt.Warning, Exception)
    assert issubclass(basalt.InterfaceError, basalt.Error)
    assert issubclass(basalt.DatabaseError, basalt.Error)
    for name in ["DataError", "OperationalError", "IntegrityError", "InternalError",
                 "ProgrammingError", "NotSupportedError"]:
        assert issubclass(getattr(basalt, name), basalt.DatabaseError), name
    assert basalt.Error.sqlstate is None


@pytest.fixture
def table(con):
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
                "n INTEGER CHECK (n >= 0))")
    con.execute("INSERT INTO t VALUES (1, 'a', 1)")
    con.commit()
    return con


@pytest.mark.parametrize(
    "sql, params, error, sqlstate",
    [
        ("SELEC 1", (), basalt.ProgrammingError, "42601"),
        ("SELECT * FROM missing", (), basalt.ProgrammingError, "42P01"),
        ("SELECT nope FROM t", (), basalt.ProgrammingError, "42703"),
        ("INSERT INTO t VALUES (1, 'b', 1)", (), basalt.IntegrityError, "23505"),
        ("INSERT INTO t VALUES (2, 'a', 1)", (), basalt.IntegrityError, "23505"),
        ("INSERT INTO t VALUES (2, NULL, 1)", (), basalt.IntegrityError, "23502"),
        ("INSERT INTO t VALUES (2, 'b', -1)", (), basalt.IntegrityError, "23514"),
        ("SELECT 1 / 0", (), basalt.DataError, "22012"),
        ("SELECT CAST('x' AS INTEGER)", (), basalt.DataError, "22P02"),
        ("SELECT ?", (1, 2), basalt.ProgrammingError, "08P01"),
        ("SELECT ? + ?", (1,), basalt.ProgrammingError, "08P01"),
        ("SELECT :a", {"b": 1}, basalt.ProgrammingError, "08P01"),
        ("SELECT ?", {"a": 1}, basalt.ProgrammingError, "08P01"),
    ],
)
def test_error_class_and_sqlstate(table, sql, params, error, sqlstate):
    with pytest.raises(error) as raised:
        table.execute(sql, params)
    assert raised.value.sqlstate == sqlstate
    assert sqlstate in str(raised.value) or raised.value.sqlstate == sqlstate


def test_syntax_error_message_has_a_caret(con):
    with pytest.raises(basalt.ProgrammingError) as raised:
        con.execute("SELECT * FROM t WHERE a = = 1")
    assert "^" in str(raised.value)


def test_executemany_of_a_query_is_not_supported(con):
    with pytest.raises(basalt.NotSupportedError) as raised:
        con.executemany("SELECT ?", [(1,), (2,)])
    assert raised.value.sqlstate == "0A000"


def test_failed_statement_in_executemany_stops_it(table):
    with pytest.raises(basalt.IntegrityError):
        table.executemany("INSERT INTO t VALUES (?, ?, 0)", [(10, "x"), (11, "y"), (12, "x")])
    table.rollback()
    assert table.execute("SELECT count(*) FROM t").fetchone() == (1,)


def test_closed_connection_and_cursor(con):
    cur = con.cursor()
    cur.close()
    with pytest.raises(basalt.ProgrammingError):
        cur.execute("SELECT 1")
    con.close()
    for operation in [lambda: con.execute("SELECT 1"), con.commit, con.cursor, con.close]:
        with pytest.raises(basalt.ProgrammingError) as raised:
            operation()
        assert raised.value.sqlstate == "08003"


def test_fetch_without_rows(con):
    cur = con.cursor()
    with pytest.raises(basalt.ProgrammingError):
        cur.fetchone()
    cur.execute("CREATE TABLE x (a INTEGER)")
    with pytest.raises(basalt.ProgrammingError):
        cur.fetchall()


def test_busy_writer_is_operational_error(path):
    first = basalt.connect(path)
    second = basalt.connect(path)
    first.execute("CREATE TABLE w (a INTEGER)")
    second.execute("PRAGMA busy_timeout = 50")
    first.execute("INSERT INTO w VALUES (1)")  # holds the write transaction
    with pytest.raises(basalt.OperationalError) as raised:
        second.execute("INSERT INTO w VALUES (2)")
    assert raised.value.sqlstate[:2] in ("40", "55")
    first.commit()
    second.rollback()
    second.execute("INSERT INTO w VALUES (2)")
    second.commit()
    assert sorted(first.execute("SELECT a FROM w").fetchall()) == [(1,), (2,)]
