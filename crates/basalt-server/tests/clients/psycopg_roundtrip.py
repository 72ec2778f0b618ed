"""psycopg 3 against `basalt serve`: every Basalt type as a parameter and a result, in text
and in binary (`binary=True` cursors, `%b` placeholders), executemany, COPY through
`cursor.copy` (text, CSV and binary), transactions, errors with their SQLSTATE and
server-side cursors. Run by tests/clients.rs with the server's URL as the only argument, against Basalt and
against a live PostgreSQL 15 (which shows the expected values are PostgreSQL's); exits
non-zero (an AssertionError's traceback) on the first difference."""

import datetime as dt
import decimal
import sys
import uuid

import psycopg
from psycopg import errors, sql
from psycopg.types.json import Json, Jsonb

URL = sys.argv[1]
# `--prepare-threshold N`: psycopg prepares a statement on the server after N executions (5
# by default; 0 prepares every statement, so everything goes through named statements).
PREPARE_THRESHOLD = int(sys.argv[sys.argv.index("--prepare-threshold") + 1]) if "--prepare-threshold" in sys.argv else 5


def connect(**kwargs):
    conn = psycopg.connect(URL, **kwargs)
    conn.prepare_threshold = PREPARE_THRESHOLD
    return conn
D = decimal.Decimal
UTC = dt.timezone.utc

# (column type, a Python value, what comes back when it differs from the value). Basalt has
# one integer type (int8) and one float type (float8), so int2/int4 and float4 columns come
# back as Python int / float all the same.
VALUES = [
    ("smallint", 12, None),
    ("integer", -2_000_000_000, None),
    ("bigint", 9_000_000_000_000_000_000, None),
    ("real", 1.5, None),
    ("double precision", 3.141592653589793, None),
    ("numeric(12,3)", D("12345.678"), None),
    ("numeric", D("-0.000000000000000000012345"), None),
    ("text", "héllo\t'world'\n\\", None),
    ("varchar(20)", "short", None),
    ("boolean", True, None),
    ("bytea", b"\x00\x01\xfe\xff'\\", None),
    ("date", dt.date(2024, 2, 29), None),
    ("time", dt.time(13, 45, 6, 789000), None),
    ("timestamp", dt.datetime(2023, 12, 31, 23, 59, 59, 123456), None),
    (
        "timestamptz",
        dt.datetime(2023, 6, 1, 12, 0, 0, 250000, tzinfo=UTC),
        None,
    ),
    ("interval", dt.timedelta(days=3, hours=4, minutes=5, seconds=6, microseconds=7), None),
    ("uuid", uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), None),
    ("bigint[]", [1, None, 3], None),
    ("text[]", ["a b", None, '"q"', "{x}"], None),
    ("double precision[]", [1.25, -2.5], None),
    ("boolean[]", [True, False, None], None),
    ("date[]", [dt.date(2020, 1, 2), dt.date(1999, 12, 31)], None),
]


def check(label, got, expected):
    assert got == expected, f"{label}: got {got!r} ({type(got).__name__}), expected {expected!r}"


def round_trips(conn, binary):
    mode = "binary" if binary else "text"
    placeholder = "%b" if binary else "%s"
    with conn.cursor(binary=binary) as cur:
        for index, (type_name, value, returned) in enumerate(VALUES):
            expected = value if returned is None else returned
            # A table per type: a statement psycopg has prepared keeps its result types (a
            # table recreated with another type would be 0A000, as in PostgreSQL).
            table = f"rt_{mode}_{index}"
            cur.execute(f"CREATE TABLE {table} (id integer primary key, c {type_name})")
            cur.execute(f"INSERT INTO {table} VALUES (1, {placeholder})", (value,))
            cur.execute(f"INSERT INTO {table} VALUES (2, NULL)")
            cur.execute(f"SELECT c FROM {table} ORDER BY id")
            rows = cur.fetchall()
            check(f"{mode} {type_name} column", rows[0][0], expected)
            check(f"{mode} {type_name} NULL", rows[1][0], None)
            # The parameter in a WHERE clause: typed by the column it is compared with.
            if not type_name.endswith("[]") and type_name != "real":
                cur.execute(f"SELECT id FROM {table} WHERE c = {placeholder}", (value,))
                check(f"{mode} {type_name} as a filter", cur.fetchall(), [(1,)])
        # JSON: psycopg sends Json/Jsonb wrappers, and parses both back to Python values.
        document = {"a": [1, 2.5, None, True], "b": {"c": "d"}}
        cur.execute(f"CREATE TABLE rt_{mode}_json (id integer primary key, j json, jb jsonb)")
        cur.execute(
            f"INSERT INTO rt_{mode}_json VALUES (1, {placeholder}, {placeholder})",
            (Json(document), Jsonb(document)),
        )
        cur.execute(f"SELECT j, jb, jb -> 'b' ->> 'c' FROM rt_{mode}_json")
        check(f"{mode} json", cur.fetchone(), (document, document, "d"))
        # Literals computed by the server, read in the cursor's format.
        cur.execute(
            "SELECT 1::int2, 2::int4, 3::int8, 1.5::float4, 2.5::float8, 7.250::numeric(5,3), "
            "'x'::text, true, '\\xdead'::bytea, '2020-02-02'::date, '01:02:03'::time, "
            "'1 year 2 mons 3 days 04:05:06'::interval, "
            "'2001-02-03 04:05:06'::timestamp, NULL"
        )
        check(
            f"{mode} computed literals",
            cur.fetchone(),
            (
                1, 2, 3, 1.5, 2.5, D("7.250"), "x", True, b"\xde\xad", dt.date(2020, 2, 2),
                dt.time(1, 2, 3), dt.timedelta(days=365 + 2 * 30 + 3, seconds=4 * 3600 + 5 * 60 + 6),
                dt.datetime(2001, 2, 3, 4, 5, 6), None,
            ),
        )
        cur.execute(f"SELECT {placeholder}::text || 'b', {placeholder} + 1", ("a", 41))
        check(f"{mode} parameters in expressions", cur.fetchone(), ("ab", 42))


def vectors(conn):
    # psycopg has no vector type of its own (pgvector's Python package would register one):
    # a vector goes as text and comes back as pgvector's text form.
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS vec")
        cur.execute("CREATE TABLE vec (id integer primary key, v vector(3))")
        cur.execute("INSERT INTO vec VALUES (1, %s)", ("[1,2.5,-3]",))
        cur.execute("SELECT v::text, v <-> '[1,2.5,-2]' FROM vec")
        check("vector as text", cur.fetchone(), ("[1,2.5,-3]", 1.0))


def executemany_and_copy(conn):
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS many")
        cur.execute("CREATE TABLE many (id integer primary key, name text, amount numeric(10,2))")
        cur.executemany(
            "INSERT INTO many VALUES (%s, %s, %s)",
            [(i, f"name {i}", D(i) / 4) for i in range(1, 101)],
        )
        cur.execute("SELECT count(*), sum(amount) FROM many")
        check("executemany", cur.fetchone(), (100, D("1262.50")))
        # executemany with returning=True: one result set per parameter set.
        cur.executemany(
            "UPDATE many SET name = %s WHERE id = %s RETURNING id",
            [("renamed", 1), ("renamed", 2)],
            returning=True,
        )
        ids = []
        while True:
            ids.append(cur.fetchone()[0])
            if not cur.nextset():
                break
        check("executemany returning", ids, [1, 2])

        # COPY FROM STDIN, row by row (psycopg's text format), then written as a block.
        with cur.copy("COPY many (id, name, amount) FROM STDIN") as copy:
            for i in range(101, 1101):
                copy.write_row((i, f"tab\there {i}" if i % 7 else None, D("0.01") * i))
        with cur.copy("COPY many (id, name) FROM STDIN WITH (FORMAT csv)") as copy:
            copy.write('2001,"quoted, comma"\n2002,plain\n')
        cur.execute("SELECT count(*), count(name), sum(amount) FROM many")
        check("COPY FROM", cur.fetchone(), (1102, 1102 - 143, D("1262.50") + sum(D("0.01") * i for i in range(101, 1101))))
        # COPY TO STDOUT, rows parsed back by psycopg with the column types set.
        with cur.copy("COPY (SELECT id::bigint, name, amount FROM many WHERE id IN (1, 107, 2001) ORDER BY id) TO STDOUT") as copy:
            copy.set_types(["int8", "text", "numeric"])
            rows = list(copy.rows())
        check(
            "COPY TO",
            rows,
            [(1, "renamed", D("0.25")), (107, "tab\there 107", D("1.07")), (2001, "quoted, comma", None)],
        )
        # Binary COPY both ways, every field in its type's binary form.
        with cur.copy("COPY (SELECT id::bigint, name, amount FROM many WHERE id <= 3 ORDER BY id) TO STDOUT (FORMAT binary)") as copy:
            copy.set_types(["int8", "text", "numeric"])
            check("binary COPY TO", list(copy.rows()), [(1, "renamed", D("0.25")), (2, "renamed", D("0.50")), (3, "name 3", D("0.75"))])
        # The types of the columns as PostgreSQL declares them (id is an int4 there; Basalt's
        # integers are 64-bit and read the narrower width too).
        with cur.copy("COPY many (id, name, amount) FROM STDIN (FORMAT binary)") as copy:
            copy.set_types(["int4", "text", "numeric"])
            copy.write_row((3001, "binary", D("9.99")))
            copy.write_row((3002, None, None))
        cur.execute("SELECT id, name, amount FROM many WHERE id > 3000 ORDER BY id")
        check("binary COPY FROM", cur.fetchall(), [(3001, "binary", D("9.99")), (3002, None, None)])
        cur.execute("CREATE TABLE copied_types (i bigint, f double precision, b boolean, d date, ts timestamptz, u uuid, by bytea, j jsonb, a text[])")
        row = (
            -7, 2.5, True, dt.date(2024, 2, 29), dt.datetime(2023, 6, 1, 12, 0, tzinfo=UTC),
            uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), b"\x00\xff", Jsonb({"k": [1]}), ["x", None],
        )
        with cur.copy("COPY copied_types FROM STDIN (FORMAT binary)") as copy:
            copy.set_types(["int8", "float8", "bool", "date", "timestamptz", "uuid", "bytea", "jsonb", "text[]"])
            copy.write_row(row)
        cur.execute("SELECT * FROM copied_types")
        check("binary COPY of every type", cur.fetchone(), row[:7] + ({"k": [1]}, ["x", None]))


def transactions_and_errors(conn):
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS acct")
        cur.execute("CREATE TABLE acct (id integer primary key, balance integer not null check (balance >= 0))")
        cur.execute("INSERT INTO acct VALUES (1, 100), (2, 0)")
    conn.commit()

    # A failing statement leaves the transaction aborted (25P02) until rollback.
    with conn.cursor() as cur:
        cur.execute("UPDATE acct SET balance = balance - 50 WHERE id = 1")
        try:
            cur.execute("INSERT INTO acct VALUES (1, 5)")
            raise AssertionError("duplicate key accepted")
        except errors.UniqueViolation as e:
            check("unique violation", e.sqlstate, "23505")
        try:
            cur.execute("SELECT 1")
            raise AssertionError("statement ran in an aborted transaction")
        except errors.InFailedSqlTransaction as e:
            check("aborted transaction", e.sqlstate, "25P02")
    conn.rollback()
    with conn.cursor() as cur:
        cur.execute("SELECT balance FROM acct WHERE id = 1")
        check("rolled back", cur.fetchone(), (100,))

    # conn.transaction(): commit on success, rollback on an exception; nested = savepoint.
    with conn.transaction():
        conn.execute("UPDATE acct SET balance = balance - 30 WHERE id = 1")
        conn.execute("UPDATE acct SET balance = balance + 30 WHERE id = 2")
        try:
            with conn.transaction():
                conn.execute("UPDATE acct SET balance = balance - 1000 WHERE id = 1")
        except errors.CheckViolation as e:
            check("check violation", e.sqlstate, "23514")
    check("transfer committed", conn.execute("SELECT balance FROM acct ORDER BY id").fetchall(), [(70,), (30,)])

    for statement, state, cls in [
        ("SELECT * FROM no_such_table", "42P01", errors.UndefinedTable),
        ("SELECT 1/0", "22012", errors.DivisionByZero),
        ("SELEC 1", "42601", errors.SyntaxError),
        ("SELECT 'x'::integer", "22P02", errors.InvalidTextRepresentation),
        ("INSERT INTO acct VALUES (3, NULL)", "23502", errors.NotNullViolation),
    ]:
        try:
            conn.execute(statement)
            raise AssertionError(f"{statement} succeeded")
        except psycopg.Error as e:
            check(statement, (e.sqlstate, type(e)), (state, cls))
            conn.rollback()
    # Autocommit connection: each statement its own transaction.
    with connect(autocommit=True) as auto:
        auto.execute("INSERT INTO acct VALUES (3, 1)")
        try:
            auto.execute("INSERT INTO acct VALUES (3, 1)")
        except errors.UniqueViolation:
            pass
        check("autocommit", auto.execute("SELECT count(*) FROM acct").fetchone(), (3,))


def server_side_cursors(conn):
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS big")
        cur.execute("CREATE TABLE big (id integer primary key, payload text)")
        cur.executemany("INSERT INTO big VALUES (%s, %s)", [(i, "p" * (i % 17)) for i in range(1, 2001)])
    conn.commit()
    for binary in (False, True):
        with conn.cursor("named", binary=binary) as cur:
            cur.itersize = 150
            cur.execute("SELECT id, payload FROM big WHERE id > %s ORDER BY id", (10,))
            first = cur.fetchmany(5)
            check("named cursor first rows", [r[0] for r in first], [11, 12, 13, 14, 15])
            rest = list(cur)
            check("named cursor rest", (len(rest), rest[-1][0]), (1985, 2000))
        conn.commit()
    # A scrollable WITH HOLD cursor survives the commit.
    with conn.cursor("held", scrollable=True, withhold=True) as cur:
        cur.execute("SELECT id FROM big ORDER BY id")
        conn.commit()
        cur.scroll(100, mode="absolute")
        check("scroll", cur.fetchone(), (101,))


def main():
    with connect() as conn:
        info = conn.info
        assert info.server_version >= 150000, info.server_version
        basalt = "Basalt" in conn.execute("SELECT version()").fetchone()[0]
        round_trips(conn, binary=False)
        conn.commit()
        round_trips(conn, binary=True)
        conn.commit()
        if basalt:  # PostgreSQL has no vector type without pgvector
            vectors(conn)
        executemany_and_copy(conn)
        conn.commit()
        transactions_and_errors(conn)
        server_side_cursors(conn)
    print(f"psycopg (prepare_threshold {PREPARE_THRESHOLD}): all checks passed")


main()
