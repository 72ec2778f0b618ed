//! Crash test of a full-text index: a child process runs SQL transactions that insert, update
//! and delete rows of a table with a full-text index (building the index in one of them) and
//! prints `ACK t` after each commit; the parent kills it with SIGKILL after a random number of
//! acknowledgements — so kills land inside inserts, updates, deletes, the index build and
//! checkpoints — then reopens the database and checks that it holds exactly the transactions
//! up to the last acknowledged one or the one in flight (every row's text included), that the
//! integrity check (every row's postings, every posting's row, the statistics) is clean, and
//! that searches through the index return what a scan of the same rows returns.
//! `BASALT_FTS_CRASH_CYCLES=N` sets the number of cycles (20).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss,
    reason = "tests"
)]

use std::collections::BTreeMap;

use basalt::Connection;

#[path = "common/kill.rs"]
mod kill;
#[path = "common/vector_search.rs"]
mod vector_search;

use vector_search::Xorshift;

const CHILD_ENV: &str = "BASALT_FTS_CRASH_CHILD";
/// The transaction that builds the index over the rows inserted before it.
const BUILD_AT: u64 = 4;
const ROWS_PER_TXN: i64 = 15;

const WORDS: [&str; 12] = [
    "alpha", "beta", "gamma", "delta", "crash", "index", "page", "log", "café", "東京", "sync",
    "torn",
];

/// The text row `id` holds after transaction `version` wrote it: 5 to 40 words.
fn text_for(id: i64, version: u64) -> String {
    let mut rng =
        Xorshift::new(((id as u64) << 16 ^ version).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let length = 5 + rng.next_u64() % 36;
    (0..length)
        .map(|_| WORDS[(rng.next_u64() % WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// The ids transaction `t` deletes: some of the rows of earlier transactions.
fn deleted_by(t: u64, id: i64) -> bool {
    id < t as i64 * 100 && (id * 31 + t as i64) % 11 == 0
}

/// The ids transaction `t` rewrites the text of.
fn updated_by(t: u64, id: i64) -> bool {
    id < t as i64 * 100 && (id * 17 + t as i64) % 7 == 0
}

/// Each row id present after transactions 1..=n, with the transaction that wrote its text.
fn model(n: u64) -> BTreeMap<i64, u64> {
    let mut rows = BTreeMap::new();
    for t in 1..=n {
        rows.retain(|id, _| !deleted_by(t, *id));
        for (id, version) in rows.iter_mut() {
            if updated_by(t, *id) {
                *version = t;
            }
        }
        for k in 0..ROWS_PER_TXN {
            rows.insert(t as i64 * 100 + k, t);
        }
    }
    rows
}

fn run_transaction(conn: &Connection, t: u64) {
    conn.execute_batch("BEGIN").unwrap();
    if t == 1 {
        conn.execute_batch(
            "CREATE TABLE items (id INTEGER PRIMARY KEY, body TEXT);
             CREATE TABLE progress (n INTEGER NOT NULL);
             INSERT INTO progress VALUES (0)",
        )
        .unwrap();
    }
    // Deletes among earlier rows (in SQL, with the same rule as the model).
    conn.execute(
        "DELETE FROM items WHERE id < $1 AND (id * 31 + $2) % 11 = 0",
        (t as i64 * 100, t as i64),
    )
    .unwrap();
    let mut ids = Vec::new();
    let mut statement = conn
        .prepare("SELECT id FROM items WHERE id < $1 AND (id * 17 + $2) % 7 = 0")
        .unwrap();
    let mut result = statement.query((t as i64 * 100, t as i64)).unwrap();
    while let Some(row) = result.next().unwrap() {
        ids.push(row.get::<i64>(0).unwrap());
    }
    drop(result);
    drop(statement);
    for id in ids {
        conn.execute(
            "UPDATE items SET body = $2 WHERE id = $1",
            (id, text_for(id, t)),
        )
        .unwrap();
    }
    let mut insert = conn.prepare("INSERT INTO items VALUES ($1, $2)").unwrap();
    for k in 0..ROWS_PER_TXN {
        let id = t as i64 * 100 + k;
        insert.execute((id, text_for(id, t))).unwrap();
    }
    drop(insert);
    if t == BUILD_AT {
        conn.execute_batch("CREATE INDEX items_fts ON items USING fts (body)")
            .unwrap();
    }
    conn.execute("UPDATE progress SET n = $1", (t as i64,))
        .unwrap();
    conn.execute_batch("COMMIT").unwrap();
}

/// Child mode: continues after the last committed transaction until killed.
#[test]
fn fts_crash_child() {
    kill::run_child(CHILD_ENV, run_transaction);
}

/// The ids (and scores, when asked) `sql` returns for `query`.
fn answers(conn: &Connection, sql: &str, query: &str) -> Vec<(i64, Option<f64>)> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut result = statement.query((query.to_owned(),)).unwrap();
    let mut out = Vec::new();
    while let Some(row) = result.next().unwrap() {
        out.push((
            row.get::<i64>(0).unwrap(),
            row.get::<Option<f64>>(1).ok().flatten(),
        ));
    }
    out
}

fn verify(conn: &Connection, acknowledged: u64, cycle: u64) -> u64 {
    let n = kill::committed(conn);
    assert!(
        n == acknowledged || n == acknowledged + 1,
        "cycle {cycle}: {n} transactions committed, {acknowledged} acknowledged"
    );
    let mut statement = conn
        .prepare("SELECT id, body FROM items ORDER BY id")
        .unwrap();
    let mut result = statement.query(()).unwrap();
    let mut present = BTreeMap::new();
    while let Some(row) = result.next().unwrap() {
        present.insert(row.get::<i64>(0).unwrap(), row.get::<String>(1).unwrap());
    }
    drop(result);
    drop(statement);
    let expected: BTreeMap<i64, String> = model(n)
        .into_iter()
        .map(|(id, version)| (id, text_for(id, version)))
        .collect();
    assert_eq!(
        present, expected,
        "cycle {cycle}: rows after {n} transactions"
    );
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", (), |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok", "cycle {cycle}");
    if n >= BUILD_AT {
        // `body || ''` is no column: the same query by a scan, as the oracle.
        for query in [
            "crash",
            "café log",
            "\"torn page\"",
            "sync OR 東京",
            "alpha NOT beta",
        ] {
            for (indexed, scanned) in [
                (
                    "SELECT id FROM items WHERE fts_match(body, $1) ORDER BY id",
                    "SELECT id FROM items WHERE fts_match(body || '', $1) ORDER BY id",
                ),
                (
                    "SELECT id, bm25_score(body, $1) FROM items WHERE fts_match(body, $1) \
                     ORDER BY 2 DESC, id LIMIT 10",
                    "SELECT id, bm25_score(body, $1) FROM items WHERE fts_match(body || '', $1) \
                     ORDER BY 2 DESC, id LIMIT 10",
                ),
            ] {
                assert_eq!(
                    answers(conn, indexed, query),
                    answers(conn, scanned, query),
                    "cycle {cycle}: {query}"
                );
            }
        }
    }
    n
}

#[test]
fn fts_crash_cycles_with_sigkill() {
    kill::index_crash_cycles(
        &kill::IndexCrashTest {
            name: "fts-crash",
            cycles_var: "BASALT_FTS_CRASH_CYCLES",
            child_env: CHILD_ENV,
            child_test: "fts_crash_child",
            build_at: BUILD_AT,
        },
        verify,
    );
}
