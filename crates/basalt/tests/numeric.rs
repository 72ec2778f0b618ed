//! NUMERIC through the public API: values bind as `Value::Numeric` (or `Numeric` through
//! `ToSql`) and come back as `ValueRef::Numeric` with their scale; a `NUMERIC(p, s)` column
//! rounds what is stored; a numeric column with an index over many pages survives closing
//! and reopening the database, answers range queries through the index in value order
//! (`1.0` and `1.00` as one value), and sorts the same when the sort spills to disk.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{DataType, Database, Numeric, Value, ValueRef};

fn n(text: &str) -> Numeric {
    text.parse().unwrap()
}

fn texts(conn: &basalt::Connection, sql: &str) -> Vec<String> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut rows = statement.query(()).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(row.get::<String>(0).unwrap());
    }
    out
}

#[test]
fn values_bind_and_read_with_their_scale() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let value: Value = conn
        .query_row("SELECT 0.1 + 0.2", (), |row| row.get(0))
        .unwrap();
    assert_eq!(value, Value::Numeric(n("0.3")));
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, amount NUMERIC(10,2))")
        .unwrap();
    conn.execute("INSERT INTO t VALUES (1, ?)", (n("12.345"),))
        .unwrap();
    conn.execute("INSERT INTO t VALUES (2, ?)", (Value::Real(0.125),))
        .unwrap();
    conn.execute("INSERT INTO t VALUES (3, ?)", ("7",)).unwrap();
    assert_eq!(
        texts(&conn, "SELECT amount FROM t ORDER BY id"),
        ["12.35", "0.13", "7.00"]
    );
    let back: Numeric = conn
        .query_row("SELECT amount FROM t WHERE id = 1", (), |row| row.get(0))
        .unwrap();
    assert_eq!((back.mantissa(), back.scale()), (1235, 2));
    let as_double: f64 = conn
        .query_row("SELECT amount FROM t WHERE id = 2", (), |row| row.get(0))
        .unwrap();
    assert_eq!(as_double, 0.13);
    let described = conn
        .session()
        .prepare_named("q", "SELECT amount FROM t WHERE amount > $1")
        .unwrap();
    assert_eq!(
        described.parameters[0].data_type.unmodified(),
        DataType::Numeric(None)
    );
    let error = conn
        .execute("INSERT INTO t VALUES (4, ?)", (n("123456789"),))
        .unwrap_err();
    assert_eq!(error.code(), "22003");
}

#[test]
fn an_indexed_column_survives_reopening_and_spilling() {
    let dir = std::env::temp_dir().join(format!("basalt-numeric-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("numeric.basalt");
    let rows = 12_000_i64;
    // Row id's value: descending with the id, with scales 0 to 3 mixed.
    let value_of = |id: i64| Numeric::new(i128::from(rows - id) * 1000 - 500, 3).unwrap();
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE ev (id INTEGER PRIMARY KEY, v NUMERIC NOT NULL);
             CREATE INDEX ev_v ON ev (v);",
        )
        .unwrap();
        for id in 0..rows {
            // The same value written at different scales: 11999.500, 11998.50, ...
            let text = match id % 3 {
                0 => value_of(id).to_string(),
                1 => format!("{}0", value_of(id)),
                _ => format!("{}00", value_of(id)),
            };
            conn.execute("INSERT INTO ev VALUES (?, CAST(? AS NUMERIC))", (id, text))
                .unwrap();
        }
    }
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        let plan = texts(
            &conn,
            "EXPLAIN SELECT count(*) FROM ev WHERE v >= 100.5 AND v < 200.5",
        )
        .join("\n");
        assert!(plan.contains("ev_v"), "{plan}");
        assert_eq!(
            texts(
                &conn,
                "SELECT count(*) FROM ev WHERE v >= 100.5 AND v < 200.5"
            ),
            ["100"]
        );
        assert_eq!(texts(&conn, "SELECT id FROM ev WHERE v = 11998.5"), ["1"]);
        assert_eq!(texts(&conn, "SELECT sum(v) FROM ev"), ["72000000.00000"]);
        conn.execute_batch("SET work_mem = '64kB'").unwrap();
        let mut statement = conn.prepare("SELECT id, v FROM ev ORDER BY v, id").unwrap();
        let mut result = statement.query(()).unwrap();
        let mut expected_id = rows - 1;
        while let Some(row) = result.next().unwrap() {
            assert_eq!(row.get::<i64>(0).unwrap(), expected_id);
            assert!(matches!(
                row.get_ref(1).unwrap(),
                ValueRef::Numeric(v) if v == value_of(expected_id)
            ));
            expected_id -= 1;
        }
        assert_eq!(expected_id, -1);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
