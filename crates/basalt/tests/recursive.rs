//! WITH RECURSIVE through the public API: cancelling a recursion that never ends, and
//! EXPLAIN ANALYZE counting every evaluation of the recursive term.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]
use std::time::Duration;

use basalt::Database;

#[test]
fn an_interrupt_cancels_an_endless_recursion_that_returns_no_rows() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let handle = conn.interrupt_handle();
    // The aggregate above the recursion returns nothing until it ends, which it never does;
    // the interrupt arrives while the statement runs.
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        handle.interrupt();
    });
    let result: Result<i64, _> = conn.query_row(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        (),
        |row| row.get(0),
    );
    canceller.join().unwrap();
    assert_eq!(result.unwrap_err().code(), "57014");
    // The connection keeps working.
    let sum: i64 = conn
        .query_row(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT sum(x) FROM c",
            (),
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(sum, 5050);
}

#[test]
fn explain_analyze_counts_every_evaluation_of_the_recursive_term() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let lines: Vec<String> = conn
        .prepare(
            "EXPLAIN ANALYZE WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT x FROM c",
        )
        .unwrap()
        .query(())
        .unwrap()
        .map(|row| row.get(0))
        .unwrap();
    let text = lines.join("\n");
    assert!(
        text.contains("Recursive Union All (working table 0)  (actual rows=5 loops=1"),
        "{text}"
    );
    // Five evaluations read 1, 2, 3, 4 and 5; the last produces nothing.
    assert!(
        text.contains("Working Table Scan (working table 0)  (actual rows=5 loops=5"),
        "{text}"
    );
    assert!(text.contains("Filter  (actual rows=4 loops=5"), "{text}");
}
