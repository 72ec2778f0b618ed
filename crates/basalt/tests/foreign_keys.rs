//! Foreign keys through the public API: cascades across tables, cycles and self-references
//! that must terminate, statements that fail halfway and must leave nothing behind,
//! `PRAGMA foreign_keys = OFF`, and the cost of checking large inserts. The rule-by-rule
//! coverage with error codes is `tests/slt/foreign_keys.slt`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use std::time::{Duration, Instant};

use basalt::{Connection, Database};

fn count(conn: &Connection, table: &str) -> i64 {
    conn.query_row(&format!("SELECT count(*) FROM {table}"), (), |r| r.get(0))
        .unwrap()
}

fn error_code(result: basalt::Result<()>) -> &'static str {
    result.err().map_or("none", |e| e.code())
}

/// `SELECT` of 10^`digits` consecutive integers from 0, for bulk statements.
fn numbers(digits: usize) -> String {
    let digit = "(VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9))";
    let from: Vec<String> = (0..digits).map(|i| format!("{digit} d{i}(x)")).collect();
    let value: Vec<String> = (0..digits)
        .map(|i| format!("d{i}.x * {}", 10i64.pow(i as u32)))
        .collect();
    format!("SELECT {} FROM {}", value.join(" + "), from.join(", "))
}

fn schema(conn: &Connection) {
    conn.execute_batch(
        "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
         CREATE TABLE books (id INTEGER PRIMARY KEY,
             author TEXT REFERENCES authors (name) ON DELETE CASCADE ON UPDATE CASCADE);
         CREATE TABLE chapters (id INTEGER PRIMARY KEY,
             book_id INTEGER REFERENCES books ON DELETE CASCADE ON UPDATE CASCADE);
         CREATE INDEX chapters_book ON chapters (book_id);
         INSERT INTO authors VALUES (1, 'ann'), (2, 'bob');
         INSERT INTO books VALUES (10, 'ann'), (11, 'ann'), (20, 'bob');
         INSERT INTO chapters VALUES (100, 10), (101, 10), (110, 11), (200, 20), (201, 20);",
    )
    .unwrap();
}

#[test]
fn cascades_cross_three_tables() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    schema(&conn);
    // ON UPDATE CASCADE carries a changed text key down one level...
    conn.execute("UPDATE authors SET name = 'anne' WHERE id = 1", ())
        .unwrap();
    let authors: Vec<String> = conn
        .prepare("SELECT DISTINCT author FROM books ORDER BY author")
        .unwrap()
        .query(())
        .unwrap()
        .map(|r| r.get(0))
        .unwrap();
    assert_eq!(authors, vec!["anne", "bob"]);
    // ... and a changed row id down the next.
    conn.execute("UPDATE books SET id = 12 WHERE id = 11", ())
        .unwrap();
    let book: i64 = conn
        .query_row("SELECT book_id FROM chapters WHERE id = 110", (), |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(book, 12);
    // ON DELETE CASCADE removes the author's books and their chapters.
    assert_eq!(
        conn.execute("DELETE FROM authors WHERE name = 'anne'", ())
            .unwrap(),
        1,
        "cascaded rows are not counted as the statement's changes"
    );
    assert_eq!(count(&conn, "books"), 1);
    assert_eq!(count(&conn, "chapters"), 2);
}

#[test]
fn a_statement_failing_after_cascades_changes_nothing() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    schema(&conn);
    conn.execute_batch(
        "CREATE TABLE quotes (chapter_id INTEGER REFERENCES chapters ON DELETE RESTRICT);
         INSERT INTO quotes VALUES (201);",
    )
    .unwrap();
    // Deleting both authors cascades through books and chapters until chapter 201, which a
    // quote still needs: the whole statement is undone, in autocommit...
    let failed = conn.execute("DELETE FROM authors", ()).map(|_| ());
    assert_eq!(error_code(failed), "23503");
    assert_eq!(
        (
            count(&conn, "authors"),
            count(&conn, "books"),
            count(&conn, "chapters")
        ),
        (2, 3, 5)
    );
    // ... and inside a transaction, where the transaction goes on.
    conn.execute("BEGIN", ()).unwrap();
    conn.execute("DELETE FROM authors WHERE id = 1", ())
        .unwrap();
    let failed = conn
        .execute("DELETE FROM authors WHERE id = 2", ())
        .map(|_| ());
    assert_eq!(error_code(failed), "23503");
    conn.execute("COMMIT", ()).unwrap();
    assert_eq!(
        (
            count(&conn, "authors"),
            count(&conn, "books"),
            count(&conn, "chapters")
        ),
        (1, 1, 2)
    );
}

#[test]
fn cycles_and_self_references_terminate() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE a (id INTEGER PRIMARY KEY);
         CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a ON DELETE CASCADE ON UPDATE CASCADE);
         ALTER TABLE a ADD COLUMN b_id INTEGER REFERENCES b ON DELETE CASCADE ON UPDATE CASCADE;
         INSERT INTO a VALUES (1, NULL), (2, NULL), (3, NULL);
         INSERT INTO b VALUES (1, 1), (2, 2), (3, 3);
         UPDATE a SET b_id = CASE id WHEN 3 THEN 1 ELSE id + 1 END;",
    )
    .unwrap();
    // a1 → b2 → a2 → b3 → a3 → b1 → a1: deleting any row goes all the way round.
    conn.execute("DELETE FROM a WHERE id = 2", ()).unwrap();
    assert_eq!((count(&conn, "a"), count(&conn, "b")), (0, 0));

    // A row that references itself, and a long chain through a self-reference.
    conn.execute_batch(
        "CREATE TABLE node (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES node ON DELETE CASCADE ON UPDATE CASCADE);
         CREATE INDEX node_parent ON node (parent);
         INSERT INTO node VALUES (0, 0);",
    )
    .unwrap();
    conn.execute("UPDATE node SET id = 5", ()).unwrap();
    let row: (i64, i64) = conn
        .query_row("SELECT id, parent FROM node", (), |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(row, (5, 5));
    conn.execute("DELETE FROM node", ()).unwrap();
    assert_eq!(count(&conn, "node"), 0);

    // 20,000 rows, each the parent of the next, inserted newest first: deleting the root
    // cascades down the whole chain without recursion.
    let rows = 20_000;
    conn.execute(
        &format!(
            "INSERT INTO node SELECT {rows} - n, CASE WHEN n = {rows} - 1 THEN NULL ELSE {rows} - n - 1 END FROM ({}) AS s(n) WHERE n < {rows} ORDER BY n",
            numbers(5)
        ),
        (),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&conn, "node"), rows);
    conn.execute("DELETE FROM node WHERE id = 1", ()).unwrap();
    assert_eq!(count(&conn, "node"), 0);
}

#[test]
fn foreign_keys_off_skips_checks_and_actions() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    schema(&conn);
    conn.execute("PRAGMA foreign_keys = OFF", ()).unwrap();
    conn.execute("INSERT INTO books VALUES (30, 'nobody')", ())
        .unwrap();
    conn.execute("DELETE FROM authors WHERE id = 2", ())
        .unwrap();
    assert_eq!(count(&conn, "books"), 4, "no cascade while off");
    // Another connection enforces them: the setting is per connection.
    let other = db.connect();
    let failed = other
        .execute("INSERT INTO books VALUES (31, 'nobody')", ())
        .map(|_| ());
    assert_eq!(error_code(failed), "23503");
    // Turning them back on does not re-check existing rows (neither does SQLite), but new
    // changes are checked again.
    conn.execute("PRAGMA foreign_keys = ON", ()).unwrap();
    let failed = conn
        .execute("INSERT INTO books VALUES (32, 'nobody')", ())
        .map(|_| ());
    assert_eq!(error_code(failed), "23503");
    // DDL keeps keys valid whatever the setting.
    conn.execute("PRAGMA foreign_keys = OFF", ()).unwrap();
    let failed = conn.execute("DROP TABLE authors", ()).map(|_| ());
    assert_eq!(error_code(failed), "2BP01");
}

/// Checking a child row is one seek into the parent: a 100,000-row insert with a foreign
/// key costs a small multiple of the same insert without one, not a quadratic blow-up.
#[test]
fn large_inserts_check_each_row_with_one_seek() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE parent (id INTEGER PRIMARY KEY, code TEXT UNIQUE);
         CREATE TABLE by_id (parent_id INTEGER REFERENCES parent);
         CREATE TABLE by_code (code TEXT REFERENCES parent (code));
         CREATE TABLE plain (parent_id INTEGER, code TEXT);",
    )
    .unwrap();
    conn.execute(
        &format!(
            "INSERT INTO parent SELECT n, 'c' || n FROM ({}) AS s(n)",
            numbers(5)
        ),
        (),
    )
    .unwrap();
    let timed = |sql: String| {
        let start = Instant::now();
        conn.execute(&sql, ())
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        start.elapsed()
    };
    let source = format!("FROM ({}) AS s(n)", numbers(5));
    let plain = timed(format!("INSERT INTO plain SELECT n, 'c' || n {source}"));
    let by_id = timed(format!("INSERT INTO by_id SELECT n {source}"));
    let by_code = timed(format!("INSERT INTO by_code SELECT 'c' || n {source}"));
    assert_eq!(count(&conn, "by_id"), 100_000);
    assert_eq!(count(&conn, "by_code"), 100_000);
    let limit = plain * 20 + Duration::from_secs(2);
    assert!(
        by_id < limit && by_code < limit,
        "plain {plain:?}, by row id {by_id:?}, by unique index {by_code:?}"
    );
}
