"""SQLAlchemy 2's reflection of a Basalt schema over psycopg 3 (run by client_catalog.rs).

Usage: python3 sqlalchemy_reflect.py URL. Exits 0 when every inspector call answers what
PostgreSQL 15 answers for the same schema, 1 (with the difference) otherwise.
"""
import sys

import sqlalchemy as sa

engine = sa.create_engine(sys.argv[1])
inspector = sa.inspect(engine)
failures = []


def check(label, actual, expected):
    if actual != expected:
        failures.append(f"{label}: {actual!r} != {expected!r}")


check("tables", sorted(inspector.get_table_names()), ["orders", "t"])
check("views", inspector.get_view_names(), ["big_orders"])
check("sequences", inspector.get_sequence_names(), ["order_numbers"])
check("has_table", inspector.has_table("t"), True)
check(
    "t columns",
    [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in inspector.get_columns("t")],
    [
        ("id", "INTEGER", False, None),
        ("name", "VARCHAR(40)", False, "'x'::character varying"),
        ("created", "TIMESTAMP", True, "now()"),
    ],
)
check("t pk", inspector.get_pk_constraint("t")["constrained_columns"], ["id"])
check("t pk name", inspector.get_pk_constraint("t")["name"], "t_pkey")
check(
    "t indexes",
    [(i["name"], i["unique"], i["column_names"]) for i in inspector.get_indexes("t")],
    [("t_name_idx", False, ["name"])],
)
check(
    "orders fks",
    [
        (f["name"], f["constrained_columns"], f["referred_table"], f["referred_columns"])
        for f in inspector.get_foreign_keys("orders")
    ],
    [("orders_t_id_fkey", ["t_id"], "t", ["id"])],
)
check(
    "orders indexes",
    [
        (i["name"], i["unique"], i["column_names"], i.get("column_sorting"))
        for i in inspector.get_indexes("orders")
    ],
    [
        ("orders_code_key", True, ["code"], None),
        ("orders_qty_desc", False, ["qty"], {"qty": ("desc",)}),
    ],
)
check(
    "orders uniques",
    [(u["name"], u["column_names"]) for u in inspector.get_unique_constraints("orders")],
    [("orders_code_key", ["code"])],
)
check(
    "orders checks",
    [(c["name"], c["sqltext"]) for c in inspector.get_check_constraints("orders")],
    [("orders_qty_check", "qty > 0")],
)
check("orders comment", inspector.get_table_comment("orders"), {"text": None})
metadata = sa.MetaData()
metadata.reflect(engine)
check("reflected", sorted(metadata.tables), ["orders", "t"])
check(
    "reflected orders",
    [c.name for c in metadata.tables["orders"].columns],
    ["order_id", "t_id", "code", "qty"],
)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
