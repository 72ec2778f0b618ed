"""Every supported Python type goes in as a parameter and comes back as the same value."""

import datetime
import decimal
import json
import math
import random
import uuid

import numpy as np
import pytest

import basalt


def roundtrip(con, column_type, value):
    con.execute(f"CREATE TABLE t (v {column_type})")
    con.execute("INSERT INTO t VALUES (?)", (value,))
    (got,) = con.execute("SELECT v FROM t").fetchone()
    con.execute("DROP TABLE t")
    return got


@pytest.mark.parametrize(
    "column_type, value",
    [
        ("INTEGER", 0),
        ("INTEGER", -(2**63)),
        ("INTEGER", 2**63 - 1),
        ("REAL", 1.5),
        ("REAL", -0.0),
        ("REAL", 1e300),
        ("TEXT", ""),
        ("TEXT", "héllo wörld ✓ 日本語 \U0001f600"),
        ("BLOB", b""),
        ("BLOB", bytes(range(256))),
        ("BOOLEAN", True),
        ("BOOLEAN", False),
        ("DATE", datetime.date(2024, 2, 29)),
        ("DATE", datetime.date(1, 1, 1)),
        ("DATE", datetime.date(9999, 12, 31)),
        ("DATE", datetime.date(1969, 12, 31)),
        ("TIMESTAMP", datetime.datetime(2024, 1, 2, 3, 4, 5, 678901)),
        ("TIMESTAMP", datetime.datetime(1900, 3, 1, 23, 59, 59, 999999)),
        ("TIME", datetime.time(13, 45, 10, 500000)),
        ("TIME", datetime.time(0, 0)),
        ("TIME", datetime.time(23, 59, 59, 999999)),
        ("INTERVAL", datetime.timedelta(days=3, seconds=5, microseconds=7)),
        ("INTERVAL", datetime.timedelta(days=-2, seconds=3600)),
        ("UUID", uuid.UUID("12345678-1234-5678-1234-567812345678")),
        ("JSONB", {"a": [1, 2, {"b": None}], "c": "d"}),
        ("JSON", [1, "two", 3.5, True, None]),
    ],
)
def test_roundtrip(con, column_type, value):
    got = roundtrip(con, column_type, value)
    assert type(got) is type(value)
    assert got == value
    if isinstance(value, float):
        assert math.copysign(1, got) == math.copysign(1, value)


def test_none_in_every_type(con):
    types = ["INTEGER", "REAL", "TEXT", "BLOB", "BOOLEAN", "DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL",
             "UUID", "JSON", "JSONB", "VECTOR(3)"]
    con.execute("CREATE TABLE t (" + ", ".join(f"c{i} {t}" for i, t in enumerate(types)) + ")")
    con.execute(f"INSERT INTO t VALUES ({', '.join('?' * len(types))})", [None] * len(types))
    assert con.execute("SELECT * FROM t").fetchone() == (None,) * len(types)


def test_aware_datetime_is_stored_in_utc(con):
    zone = datetime.timezone(datetime.timedelta(hours=2))
    aware = datetime.datetime(2024, 6, 1, 12, 0, tzinfo=zone)
    assert roundtrip(con, "TIMESTAMP", aware) == datetime.datetime(2024, 6, 1, 10, 0)


def test_timestamptz_is_an_aware_datetime_in_utc(con):
    zone = datetime.timezone(datetime.timedelta(hours=2))
    aware = datetime.datetime(2024, 6, 1, 12, 0, 0, 5, tzinfo=zone)
    got = roundtrip(con, "TIMESTAMPTZ", aware)
    assert got == aware
    assert got.tzinfo == datetime.timezone.utc
    con.execute("SET TIME ZONE 'Asia/Kolkata'")
    (got, text) = con.execute(
        "SELECT '2024-03-10 12:00:00+02'::timestamptz, CAST(? AS text)", [aware]
    ).fetchone()
    assert got == datetime.datetime(2024, 3, 10, 10, 0, tzinfo=datetime.timezone.utc)
    assert text == "2024-06-01 15:30:00.000005+05:30"


def test_time_of_24_00_is_time_max_and_aware_time_is_refused(con):
    assert con.execute("SELECT time '24:00', CAST(time '01:02:03.5' AS text)").fetchone() == (
        datetime.time.max,
        "01:02:03.5",
    )
    with pytest.raises(basalt.NotSupportedError):
        con.execute("SELECT ?", [datetime.time(1, 2, tzinfo=datetime.timezone.utc)])


def test_interval_months_are_thirty_days(con):
    (got,) = con.execute("SELECT INTERVAL '1 month 2 days 03:00:00'").fetchone()
    assert got == datetime.timedelta(days=32, hours=3)


def test_decimal_round_trips_exactly(con):
    got = roundtrip(con, "NUMERIC", decimal.Decimal("12.25"))
    assert isinstance(got, decimal.Decimal) and str(got) == "12.25"
    big = decimal.Decimal("12345678901234567890.12")
    assert roundtrip(con, "NUMERIC(30,2)", big) == big
    # NUMERIC(p, s) rounds half away from zero on store and keeps its scale.
    got = roundtrip(con, "NUMERIC(10,2)", decimal.Decimal("0.125"))
    assert str(got) == "0.13"
    (total,) = con.execute("SELECT 0.1 + 0.2").fetchone()
    assert total == decimal.Decimal("0.3")


def test_vector_from_list_numpy_float32_and_float64(con):
    con.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, e VECTOR(4))")
    inputs = [
        [1, 2.5, -3, 0.125],
        np.array([0.5, 1.5, 2.5, 3.5], dtype=np.float32),
        np.array([4.0, 3.0, 2.0, 1.0], dtype=np.float64),
        np.arange(8, dtype=np.float32)[::2],  # a strided view
    ]
    for value in inputs:
        con.execute("INSERT INTO v (e) VALUES (?)", (value,))
    rows = con.execute("SELECT e FROM v ORDER BY id").fetchall()
    for (got,), value in zip(rows, inputs):
        assert isinstance(got, np.ndarray) and got.dtype == np.float32
        np.testing.assert_array_equal(got, np.asarray(value, dtype=np.float32))
    got = rows[0][0]
    got[0] = 7  # writable
    assert got[0] == 7


def test_list_where_json_is_expected_is_json(con):
    assert roundtrip(con, "JSONB", [1.5, 2.5]) == [1.5, 2.5]


def test_bool_is_not_an_integer(con):
    (got,) = con.execute("SELECT ?", (True,)).fetchone()
    assert got is True


def test_numpy_scalars(con):
    (a, b) = con.execute("SELECT ?, ?", (np.int64(7), np.float32(0.5))).fetchone()
    assert (a, b) == (7, 0.5)


def test_integer_too_large_is_data_error(con):
    with pytest.raises(basalt.DataError) as raised:
        con.execute("SELECT ?", (2**64,))
    assert raised.value.sqlstate == "22003"


def test_unsupported_type_is_interface_error(con):
    with pytest.raises(basalt.InterfaceError) as raised:
        con.execute("SELECT ?", (object(),))
    assert raised.value.sqlstate is not None


def test_nan_json_is_refused(con):
    with pytest.raises(basalt.Error):
        con.execute("SELECT ?", ({"x": float("nan")},))


def test_many_rows_of_every_type(con):
    """5,000 rows of mixed values, written with executemany and read back in order."""
    random.seed(7)
    con.execute(
        "CREATE TABLE m (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB, "
        "d DATE, ts TIMESTAMP, u UUID, j JSONB, e VECTOR(3))"
    )
    rows = []
    for n in range(5000):
        rows.append((
            n,
            random.randint(-(2**62), 2**62) if n % 7 else None,
            random.random() * 1e6,
            "".join(random.choice("abcdé✓ ") for _ in range(n % 40)),
            random.randbytes(n % 50),
            datetime.date(1970, 1, 1) + datetime.timedelta(days=random.randint(-50000, 50000)),
            datetime.datetime(2000, 1, 1) + datetime.timedelta(microseconds=random.randint(0, 10**15)),
            uuid.UUID(int=random.getrandbits(128)),
            {"n": n, "tags": ["x"] * (n % 3)},
            [random.random(), random.random(), float(n)],
        ))
    with con:
        con.executemany("INSERT INTO m VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    got = con.execute("SELECT * FROM m ORDER BY id").fetchall()
    assert len(got) == len(rows)
    for back, row in zip(got, rows):
        assert back[:9] == row[:9]
        np.testing.assert_array_equal(back[9], np.asarray(row[9], dtype=np.float32))


def test_vectors_come_back_as_lists_without_numpy():
    """Without numpy (its import blocked in a fresh interpreter) a VECTOR is a list."""
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['numpy'] = None\n"
        "import basalt\n"
        "con = basalt.connect(':memory:')\n"
        "con.execute('CREATE TABLE v (e VECTOR(3))')\n"
        "con.execute('INSERT INTO v VALUES (?)', ([1, 2.5, -3],))\n"
        "print(repr(con.execute('SELECT e FROM v').fetchone()[0]))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[1.0, 2.5, -3.0]"


def test_arrays_are_lists_both_ways(con):
    con.execute("CREATE TABLE a (id INTEGER PRIMARY KEY, tags TEXT[], scores INT[], amounts NUMERIC[], grid INT[])")
    con.execute(
        "INSERT INTO a VALUES (?, ?, ?, ?, ?)",
        (1, ["a b", None, "{c}"], [3, 1, 2], [decimal.Decimal("1.50"), 2], [[1, 2], [3, 4]]),
    )
    con.execute("INSERT INTO a VALUES (2, '{}', '[0:1]={5,NULL}', NULL, '{{1},{2}}')")
    rows = con.execute("SELECT tags, scores, amounts, grid FROM a ORDER BY id").fetchall()
    assert rows[0] == (["a b", None, "{c}"], [3, 1, 2], [decimal.Decimal("1.50"), decimal.Decimal("2")], [[1, 2], [3, 4]])
    assert rows[1] == ([], [5, None], None, [[1], [2]])
    (text,) = con.execute("SELECT CAST(tags AS TEXT) FROM a WHERE id = 1").fetchone()
    assert text == '{"a b",NULL,"{c}"}'
    ids = [row[0] for row in con.execute("SELECT id FROM a WHERE id = ANY(?) ORDER BY id", ([2, 7, 1],))]
    assert ids == [1, 2]
    assert con.execute("SELECT count(*) FROM a WHERE id <> ALL(?)", ([],)).fetchone() == (2,)
    (described,) = [d[1] for d in con.execute("SELECT scores FROM a").description]
    assert described == "integer[]"


def test_malformed_array_parameters_are_errors(con):
    con.execute("CREATE TABLE a (scores INT[])")
    with pytest.raises(basalt.DataError):
        con.execute("INSERT INTO a VALUES (?)", (["x"],))
    with pytest.raises(basalt.DatabaseError):
        con.execute("INSERT INTO a VALUES (?)", ([[1, 2], [3]],))
