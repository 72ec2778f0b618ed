//! Documents added to a full-text index inside a transaction are put off and merged into the
//! index in one pass (`fts::deferred`): at commit, and before anything in the transaction
//! reads a full-text index or changes one otherwise. These tests check that the put-off
//! documents are never lost, never seen twice and never outlive what undid them.
//!
//! Each runs the same statements on `docs` (a full-text index on `body`, a B+tree index and
//! a unique index beside it) and on `twin` (no index: every search scans), and compares the
//! two — the matching rows, their BM25 scores to the bit, and the top-10 scores through
//! block-max WAND — inside transactions (the transaction's own writes must be seen), after
//! savepoints rolled back before and after a merge, after a failed statement, after updates
//! and deletes of documents not yet merged, after a rolled-back DROP INDEX, and after commit,
//! with the integrity check agreeing with the table. The tables reach thousands of rows, so
//! the index spans hundreds of pages.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss,
    reason = "tests"
)]

#[path = "common/fulltext.rs"]
mod fulltext;
#[path = "common/vector_search.rs"]
mod vector_search;

use basalt::{Connection, Database, Value, sqlstate};
use fulltext::{integrity, plan, rows};
use vector_search::Xorshift;

/// Queries of every kind: a common and a rare term, AND, OR, NOT, a phrase and a prefix.
const QUERIES: [&str; 8] = [
    "w0",
    "w250",
    "w3 w40",
    "w7 OR w120",
    "w1 NOT w2",
    "\"w0 w1\"",
    "w19*",
    "w5 (w60 OR w61)",
];

fn word(rng: &mut Xorshift) -> String {
    let u = rng.unit();
    format!("w{}", ((u * u * u) * 300.0) as usize)
}

fn text(rng: &mut Xorshift) -> String {
    let length = 20 + (rng.next_u64() % 60) as usize;
    (0..length).map(|_| word(rng)).collect::<Vec<_>>().join(" ")
}

fn open() -> (Database, Connection) {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE docs (id INTEGER PRIMARY KEY, tag INTEGER, code TEXT, body TEXT);
         CREATE INDEX docs_body ON docs USING fts (body);
         CREATE INDEX docs_tag ON docs (tag);
         CREATE UNIQUE INDEX docs_code ON docs (code);
         CREATE TABLE twin (id INTEGER PRIMARY KEY, tag INTEGER, code TEXT, body TEXT);",
    )
    .unwrap();
    (db, conn)
}

/// Runs `sql` on both tables (`{t}` names the table); both must agree on success or failure.
fn both(conn: &Connection, sql: &str, params: &[Value]) -> Result<usize, String> {
    let on_docs = conn.execute(&sql.replace("{t}", "docs"), params.to_vec());
    let on_twin = conn.execute(&sql.replace("{t}", "twin"), params.to_vec());
    match (on_docs, on_twin) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{sql}");
            Ok(a)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.code(), b.code(), "{sql}");
            Err(a.code().to_owned())
        }
        (a, b) => panic!("{sql}: docs {a:?}, twin {b:?}"),
    }
}

/// Inserts rows `ids` into both tables, one statement each.
fn insert(conn: &Connection, rng: &mut Xorshift, ids: std::ops::Range<i64>) {
    for id in ids {
        let params = [
            Value::Integer(id),
            Value::Integer(id % 17),
            Value::Text(format!("c{id}")),
            Value::Text(text(rng)),
        ];
        both(conn, "INSERT INTO {t} VALUES ($1, $2, $3, $4)", &params).unwrap();
    }
}

/// The index answers every query as the scan of the twin does.
fn agree(conn: &Connection, context: &str) {
    let matching = "SELECT id, bm25_score(body, $1) FROM {t} WHERE fts_match(body, $1) ORDER BY id";
    let top = "SELECT id, bm25_score(body, $1) FROM {t} WHERE fts_match(body, $1)
               ORDER BY bm25_score(body, $1) DESC LIMIT 10";
    assert!(
        plan(conn, &matching.replace("{t}", "docs"), "w0").contains("Full-Text Search using"),
        "{context}"
    );
    assert!(
        plan(conn, &top.replace("{t}", "docs"), "w0").contains("Full-Text Top-K Search using"),
        "{context}"
    );
    for query in QUERIES {
        let indexed = rows(conn, &matching.replace("{t}", "docs"), query);
        let scanned = rows(conn, &matching.replace("{t}", "twin"), query);
        assert_eq!(indexed, scanned, "{context}: {query}");
        // Top-10 scores (ties may list different rows in either engine path).
        let scores = |table: &str| -> Vec<u64> {
            rows(conn, &top.replace("{t}", table), query)
                .iter()
                .map(|(_, score)| score.unwrap().to_bits())
                .collect()
        };
        assert_eq!(scores("docs"), scores("twin"), "{context}: top of {query}");
    }
    // The document count BM25 uses covers the transaction's own rows.
    let count = |table: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), (), |row| {
            row.get(0)
        })
        .unwrap()
    };
    assert_eq!(count("docs"), count("twin"), "{context}");
}

#[test]
fn a_transaction_sees_its_own_documents_before_and_after_commit() {
    let (_db, conn) = open();
    let mut rng = Xorshift::new(0xdef0_0001);
    conn.execute_batch("BEGIN").unwrap();
    insert(&conn, &mut rng, 1..3_001);
    agree(&conn, "inside the loading transaction");
    insert(&conn, &mut rng, 3_001..6_001);
    agree(&conn, "after more rows");
    conn.execute_batch("COMMIT").unwrap();
    agree(&conn, "after commit");
    integrity(&conn);
    // Autocommitted rows, each merged at its own commit.
    insert(&conn, &mut rng, 6_001..6_201);
    agree(&conn, "after autocommitted rows");
    integrity(&conn);
}

#[test]
fn savepoints_undo_documents_merged_or_not() {
    let (_db, conn) = open();
    let mut rng = Xorshift::new(0xdef0_0002);
    insert(&conn, &mut rng, 1..2_001);
    conn.execute_batch("BEGIN").unwrap();
    insert(&conn, &mut rng, 2_001..2_501);
    conn.execute_batch("SAVEPOINT s1").unwrap();
    insert(&conn, &mut rng, 2_501..3_001);
    // This merge writes rows of before and after s1 into the index.
    agree(&conn, "after s1, merged");
    insert(&conn, &mut rng, 3_001..3_501);
    conn.execute_batch("ROLLBACK TO s1").unwrap();
    // 2,001..2,500 were put off at s1 and must be found again; the rest are gone.
    agree(&conn, "rolled back to s1");
    insert(&conn, &mut rng, 3_501..4_001);
    conn.execute_batch("SAVEPOINT s2").unwrap();
    insert(&conn, &mut rng, 4_001..4_301);
    conn.execute_batch("ROLLBACK TO s2").unwrap();
    conn.execute_batch("RELEASE s1").unwrap();
    agree(&conn, "rolled back to s2 without a merge");
    conn.execute_batch("COMMIT").unwrap();
    agree(&conn, "committed");
    integrity(&conn);
    let ids: i64 = conn
        .query_row("SELECT count(*) FROM docs WHERE id > 2000", (), |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(ids, 500 + 500);
}

#[test]
fn a_failed_statement_leaves_no_document_behind() {
    let (_db, conn) = open();
    let mut rng = Xorshift::new(0xdef0_0003);
    insert(&conn, &mut rng, 1..1_501);
    conn.execute_batch("BEGIN").unwrap();
    insert(&conn, &mut rng, 1_501..2_001);
    // The third row's code repeats an existing one: the unique index refuses it after the
    // first two rows were written, so the statement's savepoint undoes them.
    let statement = "INSERT INTO {t} VALUES ($1, 1, 'fresh1', $2), ($3, 1, 'fresh2', $4),
                     ($5, 1, 'c10', $6)";
    let params = [
        Value::Integer(5_001),
        Value::Text(text(&mut rng)),
        Value::Integer(5_002),
        Value::Text(text(&mut rng)),
        Value::Integer(5_003),
        Value::Text(text(&mut rng)),
    ];
    let on_docs = conn.execute(&statement.replace("{t}", "docs"), params.to_vec());
    assert_eq!(on_docs.unwrap_err().sqlstate(), sqlstate::UNIQUE_VIOLATION);
    // (twin has no unique index; the statement is not run there.)
    agree(&conn, "after the failed statement");
    insert(&conn, &mut rng, 2_001..2_201);
    conn.execute_batch("COMMIT").unwrap();
    agree(&conn, "committed");
    integrity(&conn);
    let fresh: i64 = conn
        .query_row("SELECT count(*) FROM docs WHERE id > 5000", (), |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(fresh, 0);
}

#[test]
fn updates_and_deletes_reach_documents_not_yet_merged() {
    let (_db, conn) = open();
    let mut rng = Xorshift::new(0xdef0_0004);
    insert(&conn, &mut rng, 1..2_001);
    conn.execute_batch("BEGIN").unwrap();
    insert(&conn, &mut rng, 2_001..3_001);
    // Pending rows (2,001..) and merged ones alike.
    both(
        &conn,
        "UPDATE {t} SET body = body || ' w299 w298' WHERE id % 7 = 0",
        &[],
    )
    .unwrap();
    both(&conn, "DELETE FROM {t} WHERE id % 11 = 0", &[]).unwrap();
    insert(&conn, &mut rng, 3_001..3_401);
    both(&conn, "UPDATE {t} SET tag = tag + 1 WHERE id > 3200", &[]).unwrap();
    both(
        &conn,
        "UPDATE {t} SET body = 'w250 w250 w1' WHERE id BETWEEN 3300 AND 3310",
        &[],
    )
    .unwrap();
    agree(&conn, "after updates and deletes");
    conn.execute_batch("ROLLBACK").unwrap();
    agree(&conn, "rolled back");
    integrity(&conn);
}

#[test]
fn a_rolled_back_drop_index_keeps_the_documents_put_off_before_it() {
    let (_db, conn) = open();
    let mut rng = Xorshift::new(0xdef0_0005);
    insert(&conn, &mut rng, 1..1_001);
    conn.execute_batch("BEGIN").unwrap();
    insert(&conn, &mut rng, 1_001..1_601);
    conn.execute_batch("SAVEPOINT before_drop").unwrap();
    conn.execute_batch("DROP INDEX docs_body").unwrap();
    conn.execute_batch("ROLLBACK TO before_drop").unwrap();
    insert(&conn, &mut rng, 1_601..1_801);
    conn.execute_batch("COMMIT").unwrap();
    agree(&conn, "after the rolled-back drop");
    integrity(&conn);
    // And a REINDEX inside a transaction with documents put off.
    conn.execute_batch("BEGIN").unwrap();
    insert(&conn, &mut rng, 1_801..2_101);
    conn.execute_batch("REINDEX INDEX docs_body").unwrap();
    insert(&conn, &mut rng, 2_101..2_301);
    agree(&conn, "after REINDEX in the transaction");
    conn.execute_batch("COMMIT").unwrap();
    agree(&conn, "committed");
    integrity(&conn);
}
