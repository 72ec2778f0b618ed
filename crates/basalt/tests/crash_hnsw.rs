//! Crash test of an HNSW index: a child process runs SQL transactions that insert and delete
//! rows of a table with an HNSW index (building the index in one of them) and prints `ACK t`
//! after each commit; the parent kills it with SIGKILL after a random number of
//! acknowledgements — so kills land inside inserts, deletes, the index build and checkpoints —
//! then reopens the database and checks that it holds exactly the transactions up to the last
//! acknowledged one or the one in flight, that the integrity check (which walks every link of
//! the graph and finds every row's node) is clean, that searches return only committed rows,
//! and that recall against exact search holds. `BASALT_HNSW_CRASH_CYCLES=N` sets the number of
//! cycles (20).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss,
    reason = "tests"
)]

use std::collections::BTreeSet;

use basalt::Connection;

#[path = "common/kill.rs"]
mod kill;
#[path = "common/vector_search.rs"]
mod vector_search;

use vector_search::Xorshift;

const CHILD_ENV: &str = "BASALT_HNSW_CRASH_CHILD";
/// The transaction that builds the index over the rows inserted before it.
const BUILD_AT: u64 = 4;
const ROWS_PER_TXN: i64 = 15;

fn vector_for(id: i64) -> Vec<f32> {
    let mut noise = Xorshift::new((id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let centre = (id % 5) as f32;
    (0..8).map(|_| centre + noise.unit()).collect()
}

/// The ids transaction `t` deletes: some of the rows of earlier transactions.
fn deleted_by(t: u64, id: i64) -> bool {
    id < t as i64 * 100 && (id * 31 + t as i64) % 11 == 0
}

/// The row ids present after transactions 1..=n.
fn model(n: u64) -> BTreeSet<i64> {
    let mut ids = BTreeSet::new();
    for t in 1..=n {
        ids.retain(|id| !deleted_by(t, *id));
        for k in 0..ROWS_PER_TXN {
            ids.insert(t as i64 * 100 + k);
        }
    }
    ids
}

fn run_transaction(conn: &Connection, t: u64) {
    conn.execute_batch("BEGIN").unwrap();
    if t == 1 {
        conn.execute_batch(
            "CREATE TABLE items (id INTEGER PRIMARY KEY, emb VECTOR(8));
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
    let mut insert = conn.prepare("INSERT INTO items VALUES ($1, $2)").unwrap();
    for k in 0..ROWS_PER_TXN {
        let id = t as i64 * 100 + k;
        insert.execute((id, vector_for(id))).unwrap();
    }
    drop(insert);
    if t == BUILD_AT {
        conn.execute_batch(
            "CREATE INDEX items_emb ON items USING hnsw (emb) WITH (m = 8, ef_construction = 32)",
        )
        .unwrap();
    }
    conn.execute("UPDATE progress SET n = $1", (t as i64,))
        .unwrap();
    conn.execute_batch("COMMIT").unwrap();
}

/// Child mode: continues after the last committed transaction until killed.
#[test]
fn hnsw_crash_child() {
    kill::run_child(CHILD_ENV, run_transaction);
}

fn verify(conn: &Connection, acknowledged: u64, cycle: u64) -> u64 {
    let n = kill::committed(conn);
    assert!(
        n == acknowledged || n == acknowledged + 1,
        "cycle {cycle}: {n} transactions committed, {acknowledged} acknowledged"
    );
    let mut statement = conn.prepare("SELECT id FROM items ORDER BY id").unwrap();
    let mut result = statement.query(()).unwrap();
    let mut present = BTreeSet::new();
    while let Some(row) = result.next().unwrap() {
        present.insert(row.get::<i64>(0).unwrap());
    }
    drop(result);
    drop(statement);
    assert_eq!(
        present,
        model(n),
        "cycle {cycle}: rows after {n} transactions"
    );
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", (), |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok", "cycle {cycle}");
    if n >= BUILD_AT {
        let sql = "SELECT id FROM items ORDER BY emb <-> $1 LIMIT 10";
        let queries: Vec<Vec<f32>> = (0..5).map(|q| vector_for(7_000_000 + q)).collect();
        let recall = vector_search::recall(conn, sql, &queries, |found| {
            assert!(
                found.iter().all(|id| present.contains(id)),
                "cycle {cycle}: a search returned a row that is not committed"
            );
        });
        assert!(
            recall >= 0.9,
            "cycle {cycle}: recall@10 {recall} after recovery"
        );
    }
    n
}

#[test]
fn hnsw_crash_cycles_with_sigkill() {
    kill::index_crash_cycles(
        &kill::IndexCrashTest {
            name: "hnsw-crash",
            cycles_var: "BASALT_HNSW_CRASH_CYCLES",
            child_env: CHILD_ENV,
            child_test: "hnsw_crash_child",
            build_at: BUILD_AT,
        },
        verify,
    );
}
