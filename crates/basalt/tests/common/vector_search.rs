//! Helpers for the tests of vector search through an HNSW index: the ids a query returns,
//! and recall@k of the index against the exact answer of the same statement
//! (`SET hnsw.exact_search = on` bypasses the index).

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::cast_precision_loss,
    reason = "test helpers: each test file uses some of them"
)]

use std::collections::HashSet;

use basalt::Connection;

/// A seeded xorshift64 generator (shifts 13, 7, 17) for test vectors: the same sequence on
/// every platform, with no dependency.
pub struct Xorshift(u64);

impl Xorshift {
    /// A generator from `state`, which must not be 0 (xorshift would stay at 0).
    pub fn new(state: u64) -> Xorshift {
        Xorshift(state)
    }

    /// The next state.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A uniform draw in [0, 1) from the next state's top 24 bits.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The first column (an integer id) of every row `sql` returns for the vector `query`.
pub fn ids(conn: &Connection, sql: &str, query: &[f32]) -> Vec<i64> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut result = statement.query((query,)).unwrap();
    let mut out = Vec::new();
    while let Some(row) = result.next().unwrap() {
        out.push(row.get::<i64>(0).unwrap());
    }
    out
}

/// recall of `sql` (one parameter, the query vector) through the index against exact search,
/// over `queries`; each answer through the index must have as many rows as the exact one,
/// and goes to `check` too.
pub fn recall(
    conn: &Connection,
    sql: &str,
    queries: &[Vec<f32>],
    mut check: impl FnMut(&[i64]),
) -> f64 {
    let (mut hits, mut total) = (0, 0);
    for query in queries {
        conn.execute_batch("SET hnsw.exact_search = on").unwrap();
        let exact: HashSet<i64> = ids(conn, sql, query).into_iter().collect();
        conn.execute_batch("SET hnsw.exact_search = off").unwrap();
        let found = ids(conn, sql, query);
        assert_eq!(
            found.len(),
            exact.len(),
            "the index returned fewer rows than exist"
        );
        check(&found);
        hits += found.iter().filter(|id| exact.contains(id)).count();
        total += exact.len();
    }
    hits as f64 / total.max(1) as f64
}
