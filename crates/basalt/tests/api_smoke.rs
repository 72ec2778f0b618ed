#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]
use basalt::{Database, Value};

#[test]
fn smoke() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("CREATE TABLE t1(a INTEGER, b INTEGER, c TEXT)", ())
        .unwrap();
    conn.execute(
        "INSERT INTO t1(a,b,c) VALUES(1,2,'x'),(3,4,'y'),(5,NULL,'z')",
        (),
    )
    .unwrap();
    let mut stmt = conn
        .prepare("SELECT a+b, c FROM t1 WHERE a > ? ORDER BY a DESC")
        .unwrap();
    let rows = stmt
        .query((0,))
        .unwrap()
        .map(|r| Ok((r.get::<Option<i64>>(0)?, r.get::<String>(1)?)))
        .unwrap();
    println!("{rows:?}");
    assert_eq!(
        rows,
        vec![
            (None, "z".into()),
            (Some(7), "y".into()),
            (Some(3), "x".into())
        ]
    );
    let count: i64 = conn
        .query_row("SELECT count(*) FROM t1", (), |r| r.get(0))
        .unwrap();
    assert_eq!(count, 3);
    let v: Value = conn
        .query_row("SELECT sum(b), avg(a) FROM t1", (), |r| r.get(1))
        .unwrap();
    assert_eq!(v, Value::Real(3.0));
}

/// SQLite's corpus nests expressions about 60 deep; the parser allows 128. Parsing,
/// binding and executing such an expression must fit in a default 2 MiB thread stack, and
/// deeper nesting must be an error, not a stack overflow.
#[test]
fn deeply_nested_expressions_fit_in_a_thread_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let db = Database::open_in_memory().unwrap();
            let conn = db.connect();
            conn.execute("CREATE TABLE t(a INTEGER)", ()).unwrap();
            conn.execute("INSERT INTO t VALUES (1)", ()).unwrap();
            let depth = 120;
            let sql = format!(
                "SELECT {}a + 1{} FROM t WHERE {}a = 1{}",
                "(".repeat(depth),
                ")".repeat(depth),
                "(".repeat(depth),
                ")".repeat(depth)
            );
            let value: i64 = conn.query_row(&sql, (), |r| r.get(0)).unwrap();
            assert_eq!(value, 2);
            let too_deep = format!("SELECT {}1{}", "(".repeat(2000), ")".repeat(2000));
            assert_eq!(conn.prepare(&too_deep).unwrap_err().code(), "42601");
        })
        .unwrap();
    handle.join().unwrap();
}

/// Row-id range scans whose bound is NULL find nothing (a comparison with NULL is never true).
#[test]
fn null_row_id_bounds_give_empty_scans() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER)", ())
        .unwrap();
    conn.execute("INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)", ())
        .unwrap();
    for sql in [
        "SELECT count(*) FROM t WHERE id < ?",
        "SELECT count(*) FROM t WHERE id > ?",
        "SELECT count(*) FROM t WHERE id = ?",
    ] {
        let count: i64 = conn.query_row(sql, (Value::Null,), |r| r.get(0)).unwrap();
        assert_eq!(count, 0, "{sql}");
    }
    let count: i64 = conn
        .query_row("SELECT count(*) FROM t WHERE id <= ?", (2,), |r| r.get(0))
        .unwrap();
    assert_eq!(count, 2);
}

/// A cached prepared statement re-plans itself after DDL changes the schema under it, and a
/// statement on a dropped table fails cleanly instead of reading freed pages.
#[test]
fn cached_statements_follow_schema_changes() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("CREATE TABLE t(a INTEGER)", ()).unwrap();
    conn.execute("INSERT INTO t VALUES (1)", ()).unwrap();
    {
        let mut stmt = conn.prepare_cached("SELECT * FROM t").unwrap();
        assert_eq!(
            stmt.query(()).unwrap().map(|r| r.get::<i64>(0)).unwrap(),
            vec![1]
        );
    }
    conn.execute("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'", ())
        .unwrap();
    {
        let mut stmt = conn.prepare_cached("SELECT * FROM t").unwrap();
        let rows = stmt
            .query(())
            .unwrap()
            .map(|r| Ok((r.get::<i64>(0)?, r.get::<String>(1)?)))
            .unwrap();
        assert_eq!(rows, vec![(1, "x".to_string())]);
        assert_eq!(stmt.column_names(), vec!["a", "b"]);
    }
    conn.execute("DROP TABLE t", ()).unwrap();
    let mut stmt = conn
        .prepare_cached("SELECT * FROM t")
        .unwrap_or_else(|e| panic!("prepare after drop: {e}"));
    let error = stmt.query(()).err().map(|e| e.code());
    assert_eq!(error, Some("42P01"));
}

#[test]
fn an_interrupt_cancels_the_running_statement_only() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("CREATE TABLE big(x INTEGER)", ()).unwrap();
    conn.execute(
        "INSERT INTO big SELECT a.x * 100 + b.x FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) a(x), (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) b(x)",
        (),
    )
    .unwrap();
    for _ in 0..6 {
        conn.execute("INSERT INTO big SELECT x FROM big", ())
            .unwrap();
    }
    let handle = conn.interrupt_handle();
    let mut stmt = conn.prepare("SELECT x FROM big").unwrap();
    let mut rows = stmt.query(()).unwrap();
    assert!(rows.next().unwrap().is_some());
    handle.interrupt();
    let error = loop {
        match rows.next() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the interrupted scan ran to its end"),
            Err(error) => break error,
        }
    };
    assert_eq!(error.code(), "57014");
    drop(rows);
    drop(stmt);
    // An interrupt that arrives between statements does not cancel the next one.
    handle.interrupt();
    let count: i64 = conn
        .query_row("SELECT count(*) FROM big", (), |row| row.get(0))
        .unwrap();
    assert_eq!(count, 6400);
}

#[test]
fn explain_analyze_reports_rows_per_operator() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER);
         INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40);",
    )
    .unwrap();
    let mut stmt = conn
        .prepare("EXPLAIN ANALYZE SELECT k FROM t WHERE k > 15 ORDER BY k DESC LIMIT 2")
        .unwrap();
    let lines: Vec<String> = stmt.query(()).unwrap().map(|row| row.get(0)).unwrap();
    let text = lines.join("\n");
    assert!(
        text.contains("Top-N Sort (1 keys)  (actual rows=2 loops=1"),
        "{text}"
    );
    assert!(text.contains("Filter  (actual rows=3 loops=1"), "{text}");
    // The scan tests `k > 15` inside its pages: it hands up the 3 rows that pass.
    assert!(
        text.contains("Table Scan on t  (actual rows=3 loops=1"),
        "{text}"
    );
    assert!(
        lines.last().unwrap().starts_with("Execution Time: "),
        "{text}"
    );

    // EXPLAIN ANALYZE of a change performs it and counts the changed rows.
    let lines: Vec<String> = conn
        .prepare("EXPLAIN ANALYZE UPDATE t SET k = k + 1 WHERE id <= 2")
        .unwrap()
        .query(())
        .unwrap()
        .map(|row| row.get(0))
        .unwrap();
    assert!(
        lines[0].starts_with("Update on t  (actual rows=2 loops=1"),
        "{lines:?}"
    );
    let sum: i64 = conn
        .query_row("SELECT sum(k) FROM t", (), |row| row.get(0))
        .unwrap();
    assert_eq!(sum, 102);
}

/// Positional parameters are numbered in the order they appear in the text (SQLite's rule:
/// `?` is one past the largest number so far, `?N` sets it, a name takes the next number at
/// its first appearance), whatever order the binder visits the statement's parts in.
#[test]
fn placeholders_are_numbered_in_text_order() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT);
         INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b');",
    )
    .unwrap();
    // The select list comes before WHERE in the text, after it in binding.
    let (first, k): (i64, i64) = conn
        .query_row("SELECT ? + 0, k FROM t WHERE id = ?", (100, 2), |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    assert_eq!((first, k), (100, 20));
    // UPDATE binds WHERE before SET.
    assert_eq!(
        conn.execute("UPDATE t SET k = ? WHERE id = ?", (77, 1))
            .unwrap(),
        1
    );
    let k: i64 = conn
        .query_row("SELECT k FROM t WHERE id = 1", (), |row| row.get(0))
        .unwrap();
    assert_eq!(k, 77);
    // `?` after `?5` is 6; a name takes the next number.
    let values: (i64, i64, i64) = conn
        .query_row(
            "SELECT ?5, ?, :x FROM t WHERE id = ?1",
            (1, 0, 0, 0, 50, 60, 70),
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .unwrap();
    assert_eq!(values, (50, 60, 70));
    // A name used in the select list and again in WHERE is one parameter, numbered by its
    // first appearance.
    let mut statement = conn
        .prepare("SELECT :b, s FROM t WHERE id = :a AND :b > 0")
        .unwrap();
    let row: (i64, String) = statement
        .query_row((5, 2), |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap();
    assert_eq!(row, (5, "b".to_string()));
}

/// Committing an explicit transaction must not keep its own BEGIN snapshot alive through
/// the commit's checkpoint: then the log could never be emptied, and it would grow with
/// every transaction (and every commit past the threshold would checkpoint and sync).
#[test]
fn explicit_transactions_let_the_log_reset() {
    let dir = std::env::temp_dir().join(format!("basalt-log-reset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("log.basalt");
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER)", ())
            .unwrap();
        conn.execute("INSERT INTO t VALUES (1, 0)", ()).unwrap();
        // Each transaction commits at least two frames (the leaf and the header page), so
        // 3000 of them write 6000 frames against an automatic checkpoint at 1000.
        for round in 0..3000 {
            conn.execute("BEGIN", ()).unwrap();
            conn.execute("UPDATE t SET v = ? WHERE id = 1", (round,))
                .unwrap();
            conn.execute("COMMIT", ()).unwrap();
        }
        let log_bytes = std::fs::metadata(dir.join("log.basalt-wal"))
            .map(|metadata| metadata.len())
            .unwrap_or(0);
        // The checkpoint thread may not have had its turn yet (how far it got depends on
        // scheduling), but past four thresholds the committing thread checkpoints inline, so
        // a log that can be reset never holds more than that and one more transaction. Were
        // the BEGIN snapshot kept alive, no checkpoint could reset it: 6000 frames.
        let frames = log_bytes / 4096;
        assert!(
            frames <= 4 * 1000 + 4,
            "the log holds {frames} frames after 3000 small transactions"
        );
        let v: i64 = conn
            .query_row("SELECT v FROM t WHERE id = 1", (), |row| row.get(0))
            .unwrap();
        assert_eq!(v, 2999);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
