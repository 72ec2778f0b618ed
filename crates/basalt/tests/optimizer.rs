//! End-to-end checks that the optimizer changes plans, not results: every query runs on one
//! connection with the optimizer and on another with `SET optimizer = off`, and the sorted
//! rows must be identical.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{Connection, Database, Value};

fn setup(conn: &Connection) {
    for sql in [
        "CREATE TABLE t1(id INTEGER PRIMARY KEY, a INTEGER, b REAL, c TEXT)",
        "CREATE TABLE t2(k INTEGER, v INTEGER, w TEXT)",
        "CREATE TABLE t3(x INTEGER, y INTEGER)",
        "CREATE INDEX t1_a ON t1(a)",
        "CREATE INDEX t1_bc ON t1(b DESC, c)",
        "CREATE INDEX t2_kv ON t2(k, v)",
    ] {
        conn.execute(sql, ()).unwrap();
    }
    for i in 1..=40i64 {
        let a = if i % 7 == 0 {
            Value::Null
        } else {
            Value::Integer(i % 9)
        };
        let b = if i % 5 == 0 {
            Value::Null
        } else {
            Value::Real(i as f64 / 4.0)
        };
        conn.execute(
            "INSERT INTO t1 VALUES (?, ?, ?, ?)",
            vec![Value::Integer(i), a, b, Value::Text(format!("c{}", i % 4))],
        )
        .unwrap();
        let k = if i % 11 == 0 {
            Value::Null
        } else {
            Value::Integer(i % 6)
        };
        conn.execute(
            "INSERT INTO t2 VALUES (?, ?, ?)",
            vec![k, Value::Integer(i % 10), Value::Text(format!("w{i}"))],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO t3 VALUES (?, ?)",
            vec![Value::Integer(i % 8), Value::Integer(i)],
        )
        .unwrap();
    }
}

fn rows(conn: &Connection, sql: &str, params: Vec<Value>) -> Vec<String> {
    let mut statement = conn.prepare(sql).unwrap();
    let columns = statement.column_count();
    let mut out = statement
        .query(params)
        .unwrap()
        .map(|row| {
            let values = (0..columns)
                .map(|i| row.get::<Value>(i))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(format!("{values:?}"))
        })
        .unwrap();
    out.sort();
    out
}

const QUERIES: &[(&str, &[Option<i64>])] = &[
    ("SELECT * FROM t1 WHERE id = 5", &[]),
    ("SELECT * FROM t1 WHERE id >= 5 AND id < 12", &[]),
    ("SELECT * FROM t1 WHERE id > 38 OR id < 2", &[]),
    ("SELECT * FROM t1 WHERE id BETWEEN 3 AND 9 AND a > 2", &[]),
    ("SELECT * FROM t1 WHERE id < 2.5", &[]),
    ("SELECT * FROM t1 WHERE id > 7.5 AND id <= 9", &[]),
    ("SELECT * FROM t1 WHERE id = ?", &[Some(3)]),
    ("SELECT * FROM t1 WHERE id = ?", &[None]),
    ("SELECT * FROM t1 WHERE id < ?", &[None]),
    ("SELECT * FROM t1 WHERE id > ?", &[None]),
    ("SELECT * FROM t1 WHERE a = 3", &[]),
    ("SELECT * FROM t1 WHERE a = ?", &[None]),
    ("SELECT * FROM t1 WHERE a > 4", &[]),
    ("SELECT * FROM t1 WHERE a < 3", &[]),
    ("SELECT * FROM t1 WHERE a >= 2 AND a <= 5", &[]),
    ("SELECT * FROM t1 WHERE a > 2.5", &[]),
    ("SELECT * FROM t1 WHERE a IS NULL", &[]),
    ("SELECT * FROM t1 WHERE b > 3", &[]),
    ("SELECT * FROM t1 WHERE b <= 2.5 AND b > 1", &[]),
    ("SELECT * FROM t1 WHERE b = 2.5 AND c > 'c1'", &[]),
    ("SELECT * FROM t1 WHERE b = 2.5 AND c = 'c2'", &[]),
    ("SELECT * FROM t2 WHERE k = 3 AND v > 4", &[]),
    ("SELECT * FROM t2 WHERE k = 3 AND v = 3", &[]),
    ("SELECT * FROM t2 WHERE k = ? AND v < 7", &[Some(2)]),
    ("SELECT * FROM t2 WHERE k > 4", &[]),
    (
        "SELECT t1.id, t2.w FROM t1, t2 WHERE t1.a = t2.k AND t2.v > 5",
        &[],
    ),
    (
        "SELECT t1.id, t2.w, t3.y FROM t1, t2, t3 WHERE t3.x = t1.a AND t2.k = t3.x AND t1.id < 20",
        &[],
    ),
    (
        "SELECT * FROM t3, t1, t2 WHERE t1.id = t3.y AND t2.v = t3.x AND t1.b > 2",
        &[],
    ),
    (
        "SELECT t1.id, t2.w FROM t1 LEFT JOIN t2 ON t1.a = t2.k AND t2.v > 5 WHERE t1.id < 15",
        &[],
    ),
    (
        "SELECT t1.id, t2.w FROM t1 LEFT JOIN t2 ON t1.a = t2.k WHERE t2.w IS NULL",
        &[],
    ),
    (
        "SELECT t1.id, t2.w FROM t1 LEFT JOIN t2 ON t1.a = t2.k AND t1.id > 30",
        &[],
    ),
    (
        "SELECT t1.id, t2.w FROM t1 RIGHT JOIN t2 ON t1.a = t2.k AND t1.b > 3",
        &[],
    ),
    (
        "SELECT t1.id, t2.w FROM t1 FULL JOIN t2 ON t1.a = t2.k WHERE t2.v > 3 OR t1.id IS NULL",
        &[],
    ),
    (
        "SELECT t1.id, t2.w FROM t1 JOIN t2 ON t1.b = t2.k WHERE t1.c = 'c1'",
        &[],
    ),
    (
        "SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.a AND t2.v = 2)",
        &[],
    ),
    (
        "SELECT * FROM t1 WHERE a IN (SELECT k FROM t2 WHERE v > 6) AND id > 10",
        &[],
    ),
    (
        "SELECT id, (SELECT max(v) FROM t2 WHERE t2.k = t1.a) FROM t1 WHERE id <= 10",
        &[],
    ),
    (
        "SELECT * FROM (SELECT id, a + 1 AS a1 FROM t1) s WHERE s.id > 30 AND s.a1 > 3",
        &[],
    ),
    (
        "SELECT a, count(*) FROM t1, t3 WHERE t1.a = t3.x GROUP BY a HAVING count(*) > 2",
        &[],
    ),
    ("SELECT * FROM t1 WHERE a = 3 ORDER BY id DESC", &[]),
    ("SELECT * FROM t1, t2 WHERE 1 = 0", &[]),
    ("SELECT * FROM t1, t2 WHERE t1.id = 3 AND t2.v = 1", &[]),
];

#[test]
fn optimized_results_match_unoptimized() {
    let db = Database::open_in_memory().unwrap();
    let plain = db.connect();
    setup(&plain);
    plain.execute("SET optimizer = off", ()).unwrap();
    let optimized = db.connect();
    for (sql, params) in QUERIES {
        let params: Vec<Value> = params
            .iter()
            .map(|p| p.map_or(Value::Null, Value::Integer))
            .collect();
        let expected = rows(&plain, sql, params.clone());
        let actual = rows(&optimized, sql, params);
        assert_eq!(actual, expected, "{sql}");
    }
}

#[test]
fn explain_shows_access_paths_and_hash_joins() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    setup(&conn);
    let plan =
        |sql: &str| -> String { rows(&conn, &format!("EXPLAIN {sql}"), Vec::new()).join("\n") };
    let text = plan("SELECT * FROM t1, t2 WHERE t1.a = t2.k AND t1.id > 3");
    assert!(text.contains("Hash Inner Join (1 key)"), "{text}");
    assert!(text.contains("row id range"), "{text}");
    let text = plan("SELECT * FROM t2 WHERE k = 1 AND v > 2");
    assert!(
        text.contains("Index Scan using t2_kv on t2 (1 key column equal, lower bound)"),
        "{text}"
    );
}

#[test]
fn updates_and_deletes_through_index_ranges() {
    let statements = [
        "UPDATE t1 SET a = a + 10 WHERE a > 5",
        "UPDATE t1 SET c = 'moved' WHERE id BETWEEN 4 AND 8",
        "DELETE FROM t2 WHERE k = 2 AND v < 5",
        "DELETE FROM t1 WHERE id > 35",
        "UPDATE t2 SET v = v + 1 WHERE k = 1 AND v >= 3",
    ];
    let contents = |optimizer: bool| -> Vec<Vec<String>> {
        let db = Database::open_in_memory().unwrap();
        let conn = db.connect();
        setup(&conn);
        if !optimizer {
            conn.execute("SET optimizer = off", ()).unwrap();
        }
        for sql in statements {
            conn.execute(sql, ()).unwrap();
        }
        [
            "SELECT * FROM t1",
            "SELECT * FROM t2",
            "SELECT * FROM t1 WHERE a > 10",
        ]
        .iter()
        .map(|sql| rows(&conn, sql, Vec::new()))
        .collect()
    };
    let optimized = contents(true);
    assert_eq!(optimized, contents(false));
    assert!(!optimized[2].is_empty(), "the update moved rows");
}
