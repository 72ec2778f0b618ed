//! HNSW indexes at scale: 10,000 clustered 32-dimensional vectors indexed by cosine distance;
//! searches through the index against exact searches of the same data (the index bypassed
//! with `SET hnsw.exact_search = on`): recall@10, filtered searches at 10% selectivity that
//! must return the full LIMIT, inserts, updates and deletes after the build, a rolled-back
//! transaction, reopening, VACUUM and REINDEX, each followed by the integrity check.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss,
    reason = "tests"
)]

#[path = "common/scratch.rs"]
mod scratch;
#[path = "common/vector_search.rs"]
mod vector_search;

use std::collections::HashSet;

use basalt::{Connection, Database};
use scratch::{TempDir, rows};
use vector_search::{Xorshift, ids};

const DIMENSIONS: usize = 32;

/// Rows near one of 20 centres (xorshift, seeded by `seed`).
fn clustered(count: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut noise = Xorshift::new(seed.max(1));
    let mut centre = Xorshift::new(0x1234_5678_9ABC_DEF1);
    let centres: Vec<Vec<f32>> = (0..20)
        .map(|_| (0..DIMENSIONS).map(|_| centre.unit() * 2.0 - 1.0).collect())
        .collect();
    (0..count)
        .map(|i| {
            centres[i % 20]
                .iter()
                .map(|c| c + (noise.unit() - 0.5) * 0.4)
                .collect()
        })
        .collect()
}

/// recall@10 of the index against exact search over `queries`.
fn recall(conn: &Connection, sql: &str, queries: &[Vec<f32>]) -> f64 {
    vector_search::recall(conn, sql, queries, |_| {})
}

fn check(conn: &Connection, stage: &str) {
    assert_eq!(
        rows(conn, "PRAGMA integrity_check"),
        ["Text(\"ok\")"],
        "integrity after {stage}"
    );
}

const NEAREST: &str = "SELECT id FROM items ORDER BY emb <=> $1 LIMIT 10";
const NEAREST_IN_CATEGORY: &str = "SELECT id FROM items WHERE cat = 3 ORDER BY emb <=> $1 LIMIT 10";

#[test]
fn hnsw_recall_filters_writes_and_maintenance() {
    let dir = TempDir::new("hnsw");
    let path = dir.0.join("db.basalt");
    let vectors = clustered(10_050, 7);
    let (rows_vectors, queries) = vectors.split_at(10_000);
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE items (id INTEGER PRIMARY KEY, cat INTEGER NOT NULL, emb VECTOR(32))",
        )
        .unwrap();
        conn.execute_batch("BEGIN").unwrap();
        let mut insert = conn
            .prepare("INSERT INTO items VALUES ($1, $2, $3)")
            .unwrap();
        for (i, vector) in rows_vectors.iter().enumerate() {
            let id = i as i64 + 1;
            insert.execute((id, id % 10, vector.as_slice())).unwrap();
        }
        drop(insert);
        conn.execute_batch("COMMIT").unwrap();
        conn.execute_batch(
            "CREATE INDEX items_emb ON items USING hnsw (emb vector_cosine_ops) \
             WITH (m = 16, ef_construction = 64)",
        )
        .unwrap();
        check(&conn, "the build");
        let plan = rows(
            &conn,
            &format!("EXPLAIN {}", NEAREST.replace("$1", "'[1]'")),
        );
        assert!(
            plan.iter()
                .any(|line| line.contains("Vector Search using items_emb")),
            "{plan:?}"
        );

        let built = recall(&conn, NEAREST, queries);
        assert!(built >= 0.95, "recall@10 after the build: {built}");

        // 10% selectivity: the full LIMIT every time, all in the category.
        for query in queries {
            let found = ids(&conn, NEAREST_IN_CATEGORY, query);
            assert_eq!(found.len(), 10, "a filtered search returned fewer rows");
            assert!(found.iter().all(|id| id % 10 == 3));
        }
        let filtered = recall(&conn, NEAREST_IN_CATEGORY, queries);
        assert!(filtered >= 0.9, "filtered recall@10: {filtered}");
        // A filter matching only three rows returns exactly those.
        let few = ids(
            &conn,
            "SELECT id FROM items WHERE id IN (5, 500, 5000) ORDER BY emb <=> $1 LIMIT 10",
            &queries[0],
        );
        assert_eq!(
            few.iter().copied().collect::<HashSet<_>>(),
            HashSet::from([5, 500, 5000])
        );

        // Rows inserted one at a time after the build are found.
        let mut insert = conn
            .prepare("INSERT INTO items VALUES ($1, $2, $3)")
            .unwrap();
        for (i, vector) in clustered(1_000, 99).iter().enumerate() {
            let id = 20_000 + i as i64;
            insert.execute((id, id % 10, vector.as_slice())).unwrap();
        }
        drop(insert);
        conn.execute(
            "INSERT INTO items VALUES (30000, 0, $1)",
            (queries[0].as_slice(),),
        )
        .unwrap();
        let exact_twin = ids(&conn, NEAREST, &queries[0]);
        assert_eq!(
            exact_twin.first(),
            Some(&30_000),
            "an inserted row equal to the query is nearest"
        );
        let grown = recall(&conn, NEAREST, queries);
        assert!(grown >= 0.95, "recall@10 after inserts: {grown}");
        check(&conn, "inserts");

        // Deleted rows never come back; updated rows are found by their new vector only.
        let nearest_before = ids(&conn, NEAREST, &queries[1]);
        conn.execute("DELETE FROM items WHERE id % 3 = 0", ())
            .unwrap();
        conn.execute("DELETE FROM items WHERE id = $1", (nearest_before[0],))
            .unwrap();
        for query in queries {
            let found = ids(&conn, NEAREST, query);
            assert_eq!(found.len(), 10);
            assert!(
                found
                    .iter()
                    .all(|id| id % 3 != 0 && *id != nearest_before[0])
            );
        }
        conn.execute(
            "UPDATE items SET emb = $1 WHERE id = 7",
            (queries[2].as_slice(),),
        )
        .unwrap();
        assert_eq!(ids(&conn, NEAREST, &queries[2]).first(), Some(&7));
        let after_writes = recall(&conn, NEAREST, queries);
        assert!(
            after_writes >= 0.95,
            "recall@10 after deletes: {after_writes}"
        );
        check(&conn, "deletes and updates");

        // A rolled-back insert leaves the graph as it was.
        conn.execute_batch("BEGIN").unwrap();
        conn.execute(
            "INSERT INTO items VALUES (40000, 3, $1)",
            (queries[3].as_slice(),),
        )
        .unwrap();
        assert_eq!(ids(&conn, NEAREST, &queries[3]).first(), Some(&40_000));
        conn.execute_batch("ROLLBACK").unwrap();
        assert!(!ids(&conn, NEAREST, &queries[3]).contains(&40_000));
        check(&conn, "a rollback");
    }
    // Reopened, then vacuumed (the graph rebuilt from the rows), then reindexed.
    let db = Database::open(&path).unwrap();
    let conn = db.connect();
    let reopened = recall(&conn, NEAREST, queries);
    assert!(reopened >= 0.95, "recall@10 after reopening: {reopened}");
    let size_before = std::fs::metadata(&path).unwrap().len();
    conn.execute_batch("VACUUM").unwrap();
    check(&conn, "VACUUM");
    // A third of the rows were deleted: the table, its index and the graph's stale nodes
    // give their pages back.
    let size_after = std::fs::metadata(&path).unwrap().len();
    assert!(
        size_after < size_before,
        "VACUUM: {size_before} -> {size_after} bytes"
    );
    let vacuumed = recall(&conn, NEAREST, queries);
    assert!(vacuumed >= 0.95, "recall@10 after VACUUM: {vacuumed}");
    conn.execute_batch("REINDEX items_emb").unwrap();
    check(&conn, "REINDEX");
    let reindexed = recall(&conn, NEAREST, queries);
    assert!(reindexed >= 0.95, "recall@10 after REINDEX: {reindexed}");
    assert_eq!(ids(&conn, NEAREST, &queries[2]).first(), Some(&7));
}
