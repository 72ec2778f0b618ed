//! `VACUUM`: the file shrinks after a large delete, and everything in it — rows, row ids,
//! indexes, long values, sequences, statistics, views, triggers, rows from before an
//! `ALTER TABLE ADD COLUMN` — reads back exactly as before, also after reopening.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

#[path = "common/scratch.rs"]
mod scratch;

use std::path::Path;

use basalt::{Connection, Database};
use scratch::{TempDir, rows};

/// The header fields page count (offset 24) and free pages (offset 32) of the main file,
/// as docs/file-format.md lays them out.
fn header_counts(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    let field = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    (field(24), field(32))
}

const SCHEMA: &str = "
    CREATE TABLE items (id SERIAL PRIMARY KEY, k INTEGER NOT NULL, name TEXT UNIQUE, body TEXT);
    CREATE INDEX items_k ON items (k DESC, name);
    CREATE TABLE audit (item INTEGER, note TEXT);
    CREATE TRIGGER items_audit AFTER INSERT ON items BEGIN
        INSERT INTO audit VALUES (NEW.id, 'added ' || NEW.name);
    END;
    CREATE VIEW big_items AS SELECT id, k FROM items WHERE k >= 900;
    CREATE SEQUENCE tickets START WITH 100;
";

/// The queries whose answers must survive VACUUM unchanged.
const CHECKS: &[&str] = &[
    "SELECT * FROM items ORDER BY id",
    "SELECT id, k, name FROM items WHERE k BETWEEN 100 AND 300 ORDER BY k DESC, name",
    "SELECT id FROM items WHERE name = 'item-1234'",
    "SELECT length(body), substr(body, 5000, 20) FROM items WHERE body IS NOT NULL ORDER BY id",
    "SELECT count(*), sum(item) FROM audit",
    "SELECT * FROM big_items ORDER BY id",
    "SELECT id, extra FROM items WHERE extra IS NOT NULL ORDER BY id",
    "SELECT count(*) FROM items WHERE extra IS NULL",
];

fn answers(conn: &Connection) -> Vec<Vec<String>> {
    CHECKS.iter().map(|sql| rows(conn, sql)).collect()
}

#[test]
fn vacuum_shrinks_the_file_and_keeps_every_answer() {
    let dir = TempDir::new("vacuum-shrink");
    let path = dir.0.join("v.basalt");
    let db = Database::open(&path).unwrap();
    let conn = db.connect();
    conn.execute_batch(SCHEMA).unwrap();
    conn.execute("BEGIN", ()).unwrap();
    for i in 0..20_000i64 {
        // Every 500th row carries a value long enough for an overflow chain.
        let body = (i % 500 == 0).then(|| format!("{i:05}").repeat(3_000));
        conn.execute(
            "INSERT INTO items (k, name, body) VALUES (?, ?, ?)",
            (i * 7919 % 1000, format!("item-{i}"), body),
        )
        .unwrap();
    }
    conn.execute("COMMIT", ()).unwrap();
    conn.execute_batch("ALTER TABLE items ADD COLUMN extra INTEGER")
        .unwrap();
    conn.execute_batch("UPDATE items SET extra = id * 2 WHERE id % 1000 = 7")
        .unwrap();
    conn.execute_batch("DELETE FROM items WHERE id % 10 <> 0 AND id % 1000 <> 7")
        .unwrap();
    conn.execute_batch("ANALYZE; SELECT nextval('tickets'); SELECT nextval('tickets')")
        .unwrap();
    db.checkpoint().unwrap();
    let size_before = std::fs::metadata(&path).unwrap().len();
    let (_, free_before) = header_counts(&path);
    assert!(free_before > 0, "the delete should have freed pages");
    let before = answers(&conn);
    let plan_before = rows(&conn, "EXPLAIN SELECT id FROM items WHERE k = 5");

    conn.execute("VACUUM", ()).unwrap();

    let size_after = std::fs::metadata(&path).unwrap().len();
    assert!(
        size_after * 3 < size_before,
        "file went from {size_before} to {size_after} bytes"
    );
    let (page_count, free_after) = header_counts(&path);
    assert_eq!(free_after, 0);
    assert_eq!(u64::from(page_count) * 4096, size_after);
    assert_eq!(answers(&conn), before);
    // The statistics followed the index to its new root: the plan is the same.
    assert_eq!(
        rows(&conn, "EXPLAIN SELECT id FROM items WHERE k = 5"),
        plan_before
    );
    assert_eq!(
        rows(&conn, "SELECT nextval('tickets')"),
        vec!["Integer(102)"]
    );

    // The rebuilt trees take new rows, fire the trigger and continue the SERIAL.
    conn.execute_batch("INSERT INTO items (k, name) VALUES (5, 'after')")
        .unwrap();
    assert_eq!(
        rows(&conn, "SELECT id FROM items WHERE name = 'after'"),
        vec!["Integer(20001)"]
    );
    assert_eq!(
        rows(&conn, "SELECT note FROM audit WHERE item = 20001"),
        vec!["Text(\"added after\")"]
    );
    let after = answers(&conn);
    drop(conn);
    drop(db);

    let db = Database::open(&path).unwrap();
    let conn = db.connect();
    assert_eq!(answers(&conn), after);
    assert_eq!(
        rows(&conn, "SELECT nextval('tickets')"),
        vec!["Integer(103)"]
    );
}

#[test]
fn vacuum_refuses_a_transaction_block_and_unknown_tables() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
        .unwrap();
    conn.execute("BEGIN", ()).unwrap();
    let error = conn.execute("VACUUM", ()).unwrap_err();
    assert_eq!(error.code(), "25001", "{error}");
    // The refusal leaves the transaction usable.
    conn.execute("INSERT INTO t VALUES (2)", ()).unwrap();
    conn.execute("COMMIT", ()).unwrap();
    assert_eq!(conn.execute("VACUUM nope", ()).unwrap_err().code(), "42P01");
    assert_eq!(
        conn.execute("VACUUM (NOPE) t", ()).unwrap_err().code(),
        "42601"
    );
    for statement in [
        "VACUUM",
        "VACUUM FULL",
        "VACUUM t",
        "VACUUM FULL t",
        "VACUUM main",
        // PostgreSQL's forms (pgbench sends `vacuum analyze t`).
        "VACUUM ANALYZE",
        "VACUUM FREEZE VERBOSE ANALYSE t",
        "VACUUM (VERBOSE, ANALYZE true, INDEX_CLEANUP off) t (x)",
        "VACUUM FULL ANALYZE t, t",
    ] {
        conn.execute(statement, ()).unwrap();
    }
    assert_eq!(
        rows(&conn, "SELECT x FROM t ORDER BY x"),
        vec!["Integer(1)", "Integer(2)"]
    );
}

#[test]
fn a_reader_keeps_its_snapshot_through_vacuum_and_the_file_shrinks_after_it() {
    let dir = TempDir::new("vacuum-reader");
    let path = dir.0.join("r.basalt");
    let db = Database::open(&path).unwrap();
    let writer = db.connect();
    let reader = db.connect();
    writer
        .execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
             INSERT INTO t SELECT n, repeat('x', 200) FROM generate_series(1, 20000) AS g(n);
             DELETE FROM t WHERE id > 100;",
        )
        .unwrap();
    db.checkpoint().unwrap();
    let size_before = std::fs::metadata(&path).unwrap().len();

    reader.execute("BEGIN", ()).unwrap();
    assert_eq!(
        rows(&reader, "SELECT count(*) FROM t"),
        vec!["Integer(100)"]
    );
    writer.execute("VACUUM", ()).unwrap();
    writer
        .execute("INSERT INTO t VALUES (0, 'new')", ())
        .unwrap();
    // The reader's snapshot predates both; the old pages it reads are still there.
    assert_eq!(
        rows(&reader, "SELECT count(*), min(id) FROM t"),
        vec!["Integer(100)|Integer(1)"]
    );
    assert_eq!(std::fs::metadata(&path).unwrap().len(), size_before);
    reader.execute("COMMIT", ()).unwrap();

    db.checkpoint().unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() * 10 < size_before);
    assert_eq!(
        rows(&reader, "SELECT count(*), min(id) FROM t"),
        vec!["Integer(101)|Integer(0)"]
    );
}
