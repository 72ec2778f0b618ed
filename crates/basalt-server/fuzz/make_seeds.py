"""Writes the `messages` target's seed corpus (corpus/messages/) from the client traffic
captured in ../shared/pg-clients/wire-sample.log (psycopg 3, asyncpg, SQLAlchemy, pgjdbc) and
statements-pg15.log (psql, pgbench, the drivers), plus SCRAM logins and COPY.

Each seed is one mode byte (see fuzz_targets/messages.rs) and then the bytes a client sends:
Startup (after an SSLRequest where the client sent one), the messages in order, Terminate.

    python3 make_seeds.py ../../../../shared/pg-clients corpus/messages
"""

import ast
import pathlib
import re
import struct
import sys


def message(kind, body=b""):
    return kind + struct.pack("!i", len(body) + 4) + body


def cstr(text):
    return (text if isinstance(text, bytes) else text.encode()) + b"\0"


def startup(params):
    body = struct.pack("!i", 196608)
    for name, value in params.items():
        body += cstr(name) + cstr(value)
    return struct.pack("!i", len(body) + 5) + body + b"\0"


SSL_REQUEST = struct.pack("!ii", 8, 80877103)
TERMINATE = message(b"X")


def parse(name, query, oids):
    body = cstr(name) + cstr(query) + struct.pack("!h", len(oids))
    body += b"".join(struct.pack("!i", oid) for oid in oids)
    return message(b"P", body)


def bind(statement, paramfmt, resultfmt, values):
    body = cstr(b"") + cstr(statement) + struct.pack("!h", len(paramfmt))
    body += b"".join(struct.pack("!h", f) for f in paramfmt)
    body += struct.pack("!h", len(values))
    for value in values:
        body += struct.pack("!i", len(value)) + value
    body += struct.pack("!h", len(resultfmt))
    body += b"".join(struct.pack("!h", f) for f in resultfmt)
    return message(b"B", body)


def from_wire_log(text):
    """One byte stream per client connection of wire-sample.log."""
    streams = {}
    oids = {}
    for line in text.splitlines():
        found = re.match(r"\[(\d+)\] (\S+) ?(.*)", line)
        if not found:
            continue
        client, kind, rest = found.groups()
        stream = streams.setdefault(client, [b"", bytearray()])
        out = stream[1]
        if kind == "SSLRequest":
            stream[0] = b"\x00"
            out += SSL_REQUEST
        elif kind == "Startup":
            params = ast.literal_eval(rest)
            out += startup({k.decode(): v.decode() for k, v in params.items() if k})
            stream[0] = stream[0] or b"\x01"
        elif kind == "Q":
            out += message(b"Q", ast.literal_eval(rest))
        elif kind == "Parse":
            got = re.match(r"name=(b'.*?') paramoids=(\(.*?\)) q=(b.*)$", rest)
            if got:
                name = ast.literal_eval(got.group(1))
                types = ast.literal_eval(got.group(2))
                query = ast.literal_eval(got.group(3))
                oids[client] = types
                out += parse(name, query, types)
        elif kind == "Bind":
            got = re.match(r"stmt=(b'.*?') paramfmt=(\(.*?\)) resultfmt=(\(.*?\))", rest)
            if got:
                types = oids.get(client, ())
                paramfmt = ast.literal_eval(got.group(2))
                values = []
                for index, oid in enumerate(types):
                    binary = paramfmt and paramfmt[min(index, len(paramfmt) - 1)] == 1
                    if oid == 21 and binary:
                        values.append(struct.pack("!h", 1))
                    elif oid in (20, 23) and binary:
                        values.append(struct.pack("!q" if oid == 20 else "!i", 1))
                    else:
                        values.append(b"1")
                out += bind(
                    ast.literal_eval(got.group(1)),
                    paramfmt,
                    ast.literal_eval(got.group(3)),
                    values,
                )
        elif kind == "D":
            out += message(b"D", ast.literal_eval(rest))
        elif kind == "E":
            out += message(b"E", cstr(b"") + struct.pack("!i", 0))
        elif kind == "S":
            out += message(b"S")
        elif kind == "H":
            out += message(b"H")
        elif kind == "C":
            out += message(b"C", b"S" + cstr(b""))
        elif kind == "X":
            out += TERMINATE
    return [bytes(mode) + bytes(out) for mode, out in streams.values()]


def from_statements(text, limit=40):
    """Simple-query sessions of logged statements, a few per seed."""
    statements = re.findall(r"statement: (.*)", text)
    seeds = []
    login = startup({"user": "psql", "database": "test"})
    for start in range(0, min(len(statements), limit * 4), 4):
        out = b"\x01" + login
        for statement in statements[start : start + 4]:
            out += message(b"Q", cstr(statement))
        seeds.append(out + TERMINATE)
    return seeds


def handwritten():
    login = startup({"user": "alice", "database": "test", "options": "-c statement_timeout=1s"})
    scram = (
        b"\x05"
        + login
        + message(
            b"p",
            cstr(b"SCRAM-SHA-256")
            + struct.pack("!i", 32)
            + b"n,,n=,r=rOprNGfwEbeRWgbNEkqO%hvYDpWU",
        )
        + message(
            b"p",
            b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUAAAAAAAAAAAAAAAAAAAAAAAA,"
            b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        )
    )
    trust = b"\x01" + startup({"user": "tester", "database": "test"})
    copy = (
        trust
        + message(b"Q", cstr("CREATE TABLE t (a INTEGER, b TEXT)"))
        + message(b"Q", cstr("COPY t FROM STDIN WITH (FORMAT csv)"))
        + message(b"d", b'1,"x"\n2,\n')
        + message(b"c")
        + message(b"Q", cstr("COPY t TO STDOUT"))
        + message(b"Q", cstr("SET idle_in_transaction_session_timeout = 10; BEGIN"))
        + TERMINATE
    )
    cancel = struct.pack("!iiii", 16, 80877102, 1234, 5678)
    return [scram, copy, b"\x01" + cancel]


def main():
    source, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    target.mkdir(parents=True, exist_ok=True)
    seeds = from_wire_log((source / "wire-sample.log").read_text())
    seeds += from_statements((source / "statements-pg15.log").read_text())
    seeds += handwritten()
    for number, seed in enumerate(seeds):
        (target / f"seed-{number:03}").write_bytes(seed)
    print(f"{len(seeds)} seeds in {target}")


main()
