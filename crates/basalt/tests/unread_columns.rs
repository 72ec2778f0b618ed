//! The optimizer's last pass marks scan columns that nothing above reads as unread
//! (`plan::optimize::columns`): they are not decoded and carry NULL. These tests check that
//! no query can tell: every query runs on a connection with the optimizer and on one with
//! `SET optimizer = off` (no pass at all), over a table of 12,000 rows (many pages) and one of 400 with
//! several indexes and a full-text index, and the rows must be the same. The shapes are the
//! ones where a column is read somewhere other than the projection: filters, sort and group
//! keys, aggregate arguments, ordered aggregates, window functions, DISTINCT ON, join keys
//! and residuals (hash, nested-loop and index joins), correlated subqueries, LATERAL,
//! set operations, CTEs, full-text searches with other filters, and modifications with
//! RETURNING, after which both databases must hold the same rows and pass the integrity
//! check. A DELETE without RETURNING, triggers or a foreign key pointing at its table reads
//! only its indexes' columns of each row; DELETEs of every shape on indexed tables, one with a
//! trigger reading the old row and one under a foreign key, must leave the same rows, logs
//! and children. EXPLAIN VERBOSE shows the unread columns gone from a scan's output.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{Connection, Database, Value};

const ROWS: i64 = 12_000;

fn setup(conn: &Connection) {
    conn.execute_batch(
        "CREATE TABLE t1(id INTEGER PRIMARY KEY, a INTEGER, b REAL, c TEXT, d TEXT);
         CREATE TABLE t2(k INTEGER, v INTEGER, w TEXT);
         CREATE INDEX t1_a ON t1(a);
         CREATE INDEX t1_c ON t1(c);
         CREATE INDEX t2_k ON t2(k);
         CREATE INDEX t1_d ON t1 USING fts (d);",
    )
    .unwrap();
    conn.execute_batch("BEGIN").unwrap();
    let mut state = 0x5eed_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for id in 1..=ROWS {
        let r = next();
        let a = if r % 13 == 0 {
            Value::Null
        } else {
            Value::Integer((r % 50) as i64)
        };
        let b = if r % 11 == 0 {
            Value::Null
        } else {
            Value::Real((r >> 20) as f64 % 1000.0 / 8.0)
        };
        // A long text column, so the table spans many pages and reading it costs.
        let c = format!("c{:03}{}", (r >> 8) % 200, "x".repeat((r % 120) as usize));
        let d = format!(
            "w{} w{} w{} filler{}",
            (r >> 12) % 20,
            (r >> 17) % 300,
            (r >> 27) % 7,
            id % 5
        );
        conn.execute(
            "INSERT INTO t1 VALUES (?, ?, ?, ?, ?)",
            vec![Value::Integer(id), a, b, Value::Text(c), Value::Text(d)],
        )
        .unwrap();
        if id % 30 == 0 {
            conn.execute(
                "INSERT INTO t2 VALUES (?, ?, ?)",
                vec![
                    Value::Integer((r >> 33) as i64 % 60),
                    Value::Integer(id),
                    Value::Text(format!("c{:03}", (r >> 40) % 200)),
                ],
            )
            .unwrap();
        }
    }
    conn.execute_batch("COMMIT").unwrap();
}

fn rows(conn: &Connection, sql: &str) -> Vec<String> {
    let mut statement = conn.prepare(sql).unwrap();
    let columns = statement.column_count();
    let mut out = statement
        .query(())
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

const QUERIES: &[&str] = &[
    "SELECT id FROM t1 WHERE a > 40",
    "SELECT id FROM t1 WHERE c LIKE 'c01%'",
    "SELECT count(*) FROM t1",
    "SELECT count(*), count(b) FROM t1 WHERE id > 100",
    "SELECT a FROM t1 ORDER BY c DESC, id LIMIT 25",
    "SELECT id FROM t1 ORDER BY b, id",
    "SELECT a, count(*), max(c), sum(b) FROM t1 GROUP BY a",
    "SELECT length(c) % 7, count(*) FROM t1 GROUP BY length(c) % 7 HAVING max(b) > 0.5",
    "SELECT a, string_agg(substr(c, 1, 4), ',' ORDER BY b DESC, id) FILTER (WHERE id % 7 = 0) \
     FROM t1 WHERE a < 5 GROUP BY a",
    "SELECT id, sum(b) OVER (PARTITION BY a ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) \
     FROM t1 WHERE id < 2000",
    "SELECT id, rank() OVER (ORDER BY c, id) FROM t1 WHERE a = 3",
    "SELECT DISTINCT ON (a) a, id FROM t1 ORDER BY a, b DESC, id",
    "SELECT DISTINCT a FROM t1",
    "SELECT id FROM t1 WHERE id < 1500 AND EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.a \
     AND t2.w = substr(t1.c, 1, 4))",
    "SELECT id FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.v = t1.id) AND a = 7 AND id < 3000",
    "SELECT id, (SELECT count(*) FROM t2 WHERE t2.w = substr(t1.c, 1, 4)) FROM t1 \
     WHERE a = 9 AND id < 3000",
    "SELECT id FROM t1 WHERE a IN (SELECT k FROM t2 WHERE t2.w > 'c190')",
    "SELECT t1.id, t2.v FROM t1 JOIN t2 ON t1.a = t2.k AND substr(t1.c, 1, 4) = t2.w",
    "SELECT t1.id FROM t1 JOIN t2 ON t1.a = t2.k WHERE t1.b > t2.v / 100.0",
    "SELECT t2.v FROM t2 JOIN t1 ON t1.id = t2.v WHERE t1.c > 'c150'",
    "SELECT t2.w, t1.b FROM t2 JOIN t1 ON t1.id = t2.v",
    "SELECT t1.id, t2.w FROM t1 LEFT JOIN t2 ON t2.v = t1.id WHERE t1.a = 11",
    "SELECT t1.id FROM t1, t2 WHERE t1.id < 60 AND t2.v < 60 AND t1.b < t2.k",
    "SELECT t1.id, s.x FROM t1, LATERAL (SELECT t2.v AS x FROM t2 WHERE t2.k = t1.a \
     ORDER BY t2.v LIMIT 1) s WHERE t1.id < 500",
    "SELECT t1.id, g FROM t1, generate_series(1, t1.a % 4) g WHERE t1.id < 300",
    "SELECT a FROM t1 UNION SELECT k FROM t2",
    "SELECT substr(c, 1, 4) FROM t1 WHERE a < 3 EXCEPT SELECT w FROM t2 WHERE k < 5",
    "SELECT a FROM t1 INTERSECT SELECT k FROM t2",
    "SELECT s.x FROM (SELECT a AS x, c AS y, b FROM t1) s WHERE s.y > 'c100' AND s.b < 10",
    "WITH w AS (SELECT * FROM t1 WHERE b > 100) SELECT count(*), sum(a), max(c) FROM w",
    "WITH RECURSIVE r(n, s) AS (SELECT id, a FROM t1 WHERE id < 5 \
     UNION ALL SELECT n + 1, s FROM r WHERE n < 20) SELECT count(*), sum(s) FROM r",
    "SELECT id FROM t1 WHERE fts_match(d, 'w3')",
    "SELECT count(*) FROM t1 WHERE fts_match(d, 'w3 w5')",
    "SELECT id, a FROM t1 WHERE fts_match(d, 'w7') AND c > 'c100'",
    "SELECT id FROM t1 WHERE fts_match(d, 'filler2') AND a = 5 \
     ORDER BY bm25_score(d, 'filler2') DESC, id LIMIT 10",
    "SELECT id, bm25_score(d, 'w1 OR w2') FROM t1 WHERE fts_match(d, 'w1 OR w2') \
     ORDER BY bm25_score(d, 'w1 OR w2') DESC, id LIMIT 10",
    "SELECT id FROM t1 WHERE id BETWEEN 500 AND 700 AND length(c) > 50",
    "SELECT max(length(d)) FROM t1 WHERE a = 4",
    "SELECT json_agg(id ORDER BY c, id) FROM t1 WHERE a = 2 AND id < 3000",
];

#[test]
fn queries_read_the_same_rows_with_unread_columns() {
    let db = Database::open_in_memory().unwrap();
    let plain = db.connect();
    setup(&plain);
    plain.execute("SET optimizer = off", ()).unwrap();
    let optimized = db.connect();
    for sql in QUERIES {
        let expected = rows(&plain, sql);
        assert!(!expected.is_empty(), "{sql}");
        assert_eq!(rows(&optimized, sql), expected, "{sql}");
    }
}

#[test]
fn explain_verbose_leaves_unread_columns_out_of_the_scan() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch("CREATE TABLE t1(id INTEGER PRIMARY KEY, a INTEGER, b REAL, c TEXT)")
        .unwrap();
    let plan = rows(&conn, "EXPLAIN VERBOSE SELECT id FROM t1 WHERE a > 3").join("\n");
    assert!(plan.contains("Output: t1.id, t1.a\""), "{plan}");
    let plan = rows(
        &conn,
        "EXPLAIN VERBOSE SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t1 AS u WHERE u.c = t1.c)",
    )
    .join("\n");
    // The correlated subquery may read any column of the outer row: all are read.
    assert!(plan.contains("Output: t1.id, t1.a, t1.b, t1.c\""), "{plan}");
}

/// The same modifications on two databases, one with the optimizer off: the same rows
/// returned, the same tables afterwards, and every index in agreement with its table.
#[test]
fn modifications_change_the_same_rows() {
    let on = Database::open_in_memory().unwrap();
    let off = Database::open_in_memory().unwrap();
    let (with_pass, without) = (on.connect(), off.connect());
    setup(&with_pass);
    setup(&without);
    without.execute("SET optimizer = off", ()).unwrap();
    for sql in [
        "UPDATE t1 SET a = a + 100 WHERE c > 'c150' RETURNING id",
        "UPDATE t1 SET d = d || ' extra' WHERE fts_match(d, 'w4') AND b < 50 RETURNING id, a",
        "DELETE FROM t1 WHERE b < 20 RETURNING c",
        "DELETE FROM t1 WHERE fts_match(d, 'w9') RETURNING id",
        "INSERT INTO t2 SELECT a, id, substr(c, 1, 4) FROM t1 WHERE id % 97 = 0 RETURNING v",
        "UPDATE t2 SET w = 'moved' WHERE v IN (SELECT id FROM t1 WHERE a > 120) RETURNING k",
    ] {
        assert_eq!(rows(&with_pass, sql), rows(&without, sql), "{sql}");
    }
    for sql in [
        "SELECT * FROM t1",
        "SELECT * FROM t2",
        "SELECT id FROM t1 WHERE fts_match(d, 'extra')",
    ] {
        let expected = rows(&without, sql);
        assert!(!expected.is_empty(), "{sql}");
        assert_eq!(rows(&with_pass, sql), expected, "{sql}");
    }
    for conn in [&with_pass, &without] {
        let check = rows(conn, "PRAGMA integrity_check");
        assert_eq!(check, ["[Text(\"ok\")]"]);
    }
}

/// DELETEs without RETURNING read of each row only the columns of the table's indexes (the
/// B+tree indexes on `a` and `c`, the full-text one on `d`); leaving out any of them would
/// leave its entries behind, which the integrity check finds. Where a trigger or a foreign
/// key may read the old row, every column is read.
#[test]
fn deletes_read_what_their_indexes_triggers_and_foreign_keys_need() {
    let on = Database::open_in_memory().unwrap();
    let off = Database::open_in_memory().unwrap();
    let (with_pass, without) = (on.connect(), off.connect());
    for conn in [&with_pass, &without] {
        setup(conn);
        conn.execute_batch(
            "CREATE TABLE log(id INTEGER, a INTEGER, c TEXT, d TEXT);
             CREATE TABLE t3(id INTEGER PRIMARY KEY, a INTEGER, c TEXT, d TEXT);
             INSERT INTO t3 SELECT id, a, c, d FROM t1 WHERE id <= 3000;
             CREATE TRIGGER t3_gone AFTER DELETE ON t3 BEGIN
                 INSERT INTO log VALUES (old.id, old.a, old.c, old.d); END;
             CREATE TABLE parent(id INTEGER PRIMARY KEY, code TEXT UNIQUE, note TEXT);
             INSERT INTO parent SELECT id, 'p' || id, c FROM t1 WHERE id <= 2000;
             CREATE TABLE child(id INTEGER PRIMARY KEY,
                 code TEXT REFERENCES parent(code) ON DELETE CASCADE);
             INSERT INTO child SELECT id, 'p' || (id % 2000 + 1) FROM t1 WHERE id <= 6000;",
        )
        .unwrap();
    }
    without.execute("SET optimizer = off", ()).unwrap();
    let plan = rows(&with_pass, "EXPLAIN VERBOSE DELETE FROM t1 WHERE id = 7").join("\n");
    assert!(
        plan.contains("Output: t1.<row id>, t1.id, t1.a, t1.c, t1.d\""),
        "{plan}"
    );
    let plan = rows(&with_pass, "EXPLAIN VERBOSE DELETE FROM t2 WHERE v = 30").join("\n");
    assert!(plan.contains("Output: t2.<row id>, t2.k, t2.v\""), "{plan}");
    let plan = rows(&with_pass, "EXPLAIN VERBOSE DELETE FROM t3 WHERE id = 7").join("\n");
    assert!(plan.contains("t3.a, t3.c, t3.d\""), "{plan}");
    for sql in [
        "DELETE FROM t1 WHERE id = 17",
        "DELETE FROM t1 WHERE id % 5 = 1",
        "DELETE FROM t1 WHERE id BETWEEN 3000 AND 3600",
        "DELETE FROM t1 WHERE b < 30",
        "DELETE FROM t1 WHERE a = 4",
        "DELETE FROM t1 WHERE c > 'c180'",
        "DELETE FROM t1 WHERE fts_match(d, 'w11')",
        "DELETE FROM t2 WHERE k < 20",
        "DELETE FROM t3 WHERE id % 3 = 0",
        "DELETE FROM parent WHERE id % 4 = 0",
        "DELETE FROM parent WHERE note < 'c050'",
    ] {
        assert_eq!(
            with_pass.execute(sql, ()).unwrap(),
            without.execute(sql, ()).unwrap(),
            "{sql}"
        );
    }
    for sql in [
        "SELECT * FROM t1",
        "SELECT * FROM t2",
        "SELECT * FROM t3",
        "SELECT * FROM log",
        "SELECT * FROM parent",
        "SELECT * FROM child",
        "SELECT id FROM t1 WHERE fts_match(d, 'w3')",
        "SELECT id FROM t1 WHERE a = 7",
        "SELECT id FROM t1 WHERE c >= 'c100' AND c < 'c120'",
    ] {
        let expected = rows(&without, sql);
        assert!(!expected.is_empty(), "{sql}");
        assert_eq!(rows(&with_pass, sql), expected, "{sql}");
    }
    for conn in [&with_pass, &without] {
        let check = rows(conn, "PRAGMA integrity_check");
        assert_eq!(check, ["[Text(\"ok\")]"]);
    }
}
