"""Basalt, the embedded SQL database, from Python: a PEP 249 (DB-API 2.0) module with the
habits of the standard library's ``sqlite3``.

>>> import basalt
>>> con = basalt.connect(":memory:")
>>> con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)").rowcount
-1
>>> with con:
...     con.executemany("INSERT INTO t (name) VALUES (?)", [("a",), ("b",)]).rowcount
2
>>> con.execute("SELECT id, name FROM t WHERE name = :name", {"name": "b"}).fetchone()
(2, 'b')

The connection, cursors and conversions are Rust (``basalt._basalt``); this file adds PEP
249's type objects and constructors, and ``Row``. See docs/python.md.
"""

import datetime as _datetime
import time as _time

from ._basalt import (  # noqa: F401
    Connection,
    Cursor,
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
    __version__,
    apilevel,
    connect,
    paramstyle,
    threadsafety,
)

__all__ = [
    "connect", "Connection", "Cursor", "Row", "apilevel", "threadsafety", "paramstyle",
    "Warning", "Error", "InterfaceError", "DatabaseError", "DataError", "OperationalError",
    "IntegrityError", "InternalError", "ProgrammingError", "NotSupportedError",
    "Date", "Time", "Timestamp", "DateFromTicks", "TimeFromTicks", "TimestampFromTicks",
    "Binary", "STRING", "BINARY", "NUMBER", "DATETIME", "ROWID",
]

# PEP 249's constructors.
Date = _datetime.date
Time = _datetime.time
Timestamp = _datetime.datetime
Binary = bytes


def DateFromTicks(ticks):
    return Date(*_time.localtime(ticks)[:3])


def TimeFromTicks(ticks):
    return Time(*_time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks):
    return Timestamp(*_time.localtime(ticks)[:6])


class _TypeObject:
    """A PEP 249 type object: equal to each type code (``description[i][1]``) it covers."""

    def __init__(self, name, *codes):
        self._name = name
        self._codes = frozenset(codes)

    def __eq__(self, other):
        if isinstance(other, _TypeObject):
            return self is other
        return other in self._codes

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f"basalt.{self._name}"


STRING = _TypeObject("STRING", "text", "json", "jsonb", "uuid")
BINARY = _TypeObject("BINARY", "blob")
NUMBER = _TypeObject("NUMBER", "integer", "real", "boolean")
DATETIME = _TypeObject("DATETIME", "date", "timestamp", "timestamptz", "interval")
ROWID = _TypeObject("ROWID", "integer")


class Row:
    """A result row by position and by column name (case-insensitive), like ``sqlite3.Row``:
    set ``connection.row_factory = basalt.Row``."""

    __slots__ = ("_values", "_names")

    def __init__(self, cursor, values):
        self._values = tuple(values)
        description = cursor.description or ()
        self._names = tuple(column[0] for column in description)

    def keys(self):
        return list(self._names)

    def __getitem__(self, key):
        if isinstance(key, str):
            folded = key.casefold()
            for position, name in enumerate(self._names):
                if name.casefold() == folded:
                    return self._values[position]
            raise IndexError(f"no column named {key!r}")
        return self._values[key]

    def __len__(self):
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def __eq__(self, other):
        if isinstance(other, Row):
            return self._names == other._names and self._values == other._values
        return NotImplemented

    def __hash__(self):
        return hash((self._names, self._values))

    def __repr__(self):
        pairs = ", ".join(f"{n}={v!r}" for n, v in zip(self._names, self._values))
        return f"<basalt.Row {pairs}>"
