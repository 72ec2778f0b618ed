//! SQL cursors through the public API over a 12,000-row result: fetching forward in pieces,
//! backward in pieces, by absolute and relative positions and after MOVEs gives exactly the
//! plain query's rows in the order each direction visits them; a WITH HOLD cursor keeps its
//! rows through its transaction's commit and later changes to the table; NO SCROLL refuses
//! to go back.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{Connection, Database};

const ROWS: i64 = 12_000;
const QUERY: &str = "SELECT id, label, score FROM items ORDER BY score DESC, id";

type Row = (i64, String, f64);

fn rows(conn: &Connection, sql: &str) -> Vec<Row> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut result = statement.query(()).unwrap();
    let mut out = Vec::new();
    while let Some(row) = result.next().unwrap() {
        out.push((
            row.get::<i64>(0).unwrap(),
            row.get::<String>(1).unwrap(),
            row.get::<f64>(2).unwrap(),
        ));
    }
    out
}

fn setup() -> (Database, Vec<Row>) {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL, score REAL NOT NULL);
         INSERT INTO items SELECT g, 'item ' || g, (g * 7919 % 1000) / 10.0
           FROM generate_series(1, 12000) g;",
    )
    .unwrap();
    let expected = rows(&conn, QUERY);
    assert_eq!(expected.len() as i64, ROWS);
    drop(conn);
    (db, expected)
}

#[test]
fn every_direction_visits_the_plain_querys_rows() {
    let (db, expected) = setup();
    let conn = db.connect();
    conn.execute_batch("BEGIN").unwrap();
    conn.execute_batch(&format!("DECLARE c SCROLL CURSOR FOR {QUERY}"))
        .unwrap();

    // Forward in pieces of 1,000 (the last FETCH returns nothing).
    let mut forward = Vec::new();
    loop {
        let piece = rows(&conn, "FETCH 1000 FROM c");
        if piece.is_empty() {
            break;
        }
        forward.extend(piece);
    }
    assert_eq!(forward, expected);

    // Backward in pieces of 777 from after the end: the rows reversed.
    let mut backward = Vec::new();
    loop {
        let piece = rows(&conn, "FETCH BACKWARD 777 FROM c");
        if piece.is_empty() {
            break;
        }
        backward.extend(piece);
    }
    let mut reversed = expected.clone();
    reversed.reverse();
    assert_eq!(backward, reversed);

    // Absolute positions, from either end.
    for k in [1_i64, 2, 999, 5_000, 11_999, 12_000] {
        assert_eq!(
            rows(&conn, &format!("FETCH ABSOLUTE {k} FROM c")),
            [expected[k as usize - 1].clone()],
            "ABSOLUTE {k}"
        );
        assert_eq!(
            rows(&conn, &format!("FETCH ABSOLUTE -{k} FROM c")),
            [expected[(ROWS - k) as usize].clone()],
            "ABSOLUTE -{k}"
        );
    }
    assert!(rows(&conn, "FETCH ABSOLUTE 12001 FROM c").is_empty());
    assert_eq!(
        rows(&conn, "FETCH PRIOR FROM c"),
        [expected[11_999].clone()]
    );

    // Relative steps from row 6,000.
    conn.execute_batch("MOVE ABSOLUTE 6000 IN c").unwrap();
    let mut position = 6_000_i64;
    for step in [1_i64, -1, 250, -3_000, 0, 4_321, -7_000] {
        position += step;
        let fetched = rows(&conn, &format!("FETCH RELATIVE {step} FROM c"));
        if (1..=ROWS).contains(&position) {
            assert_eq!(fetched, [expected[position as usize - 1].clone()], "{step}");
        } else {
            assert!(fetched.is_empty(), "{step}");
            position = position.clamp(0, ROWS + 1);
        }
    }

    // MOVE, then everything before the position backward and after it forward.
    conn.execute_batch("MOVE ABSOLUTE 5000 FROM c").unwrap();
    let before = rows(&conn, "FETCH BACKWARD ALL FROM c");
    assert_eq!(before.len(), 4_999);
    assert!(before.iter().rev().eq(expected[..4_999].iter()));
    conn.execute_batch("MOVE FORWARD 4999 FROM c").unwrap();
    let after = rows(&conn, "FETCH ALL FROM c");
    assert_eq!(after, expected[4_999..]);
    conn.execute_batch("COMMIT").unwrap();
    assert_eq!(
        conn.execute_batch("FETCH NEXT FROM c").unwrap_err().code(),
        "34000"
    );
}

#[test]
fn a_held_cursor_keeps_its_rows_past_commit_and_changes() {
    let (db, expected) = setup();
    let conn = db.connect();
    conn.execute_batch("BEGIN").unwrap();
    conn.execute_batch(&format!("DECLARE h SCROLL CURSOR WITH HOLD FOR {QUERY}"))
        .unwrap();
    conn.execute_batch("COMMIT").unwrap();
    conn.execute_batch("DELETE FROM items WHERE id % 2 = 0; UPDATE items SET label = 'x'")
        .unwrap();
    let first_half = rows(&conn, "FETCH 6000 FROM h");
    assert_eq!(first_half, expected[..6_000]);
    let last = rows(&conn, "FETCH LAST FROM h");
    assert_eq!(last, [expected[11_999].clone()]);
    let all = rows(&conn, "FETCH BACKWARD ALL FROM h");
    assert_eq!(all.len(), 11_999);
    assert!(all.iter().rev().eq(expected[..11_999].iter()));
    conn.execute_batch("CLOSE h").unwrap();
    assert_eq!(conn.execute_batch("CLOSE h").unwrap_err().code(), "34000");
}

#[test]
fn no_scroll_only_goes_forward() {
    let (db, expected) = setup();
    let conn = db.connect();
    conn.execute_batch("BEGIN").unwrap();
    conn.execute_batch(&format!("DECLARE f NO SCROLL CURSOR FOR {QUERY}"))
        .unwrap();
    assert_eq!(rows(&conn, "FETCH 10 FROM f"), expected[..10]);
    conn.execute_batch("MOVE 5000 FROM f").unwrap();
    assert_eq!(rows(&conn, "FETCH NEXT FROM f"), [expected[5_010].clone()]);
    for backward in [
        "FETCH PRIOR FROM f",
        "FETCH BACKWARD 2 FROM f",
        "FETCH ABSOLUTE 3 FROM f",
        "FETCH RELATIVE 0 FROM f",
        "MOVE LAST IN f",
    ] {
        assert_eq!(
            conn.execute_batch(backward).unwrap_err().code(),
            "55000",
            "{backward}"
        );
    }
    assert_eq!(rows(&conn, "FETCH ALL FROM f"), expected[5_011..]);
}
