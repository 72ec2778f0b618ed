//! WITH RECURSIVE over a graph of many pages, against SQLite: breadth-first walks whose
//! recursive term joins the working table to an edge table through an index (the recursive
//! union restarts those operators for every evaluation instead of building them anew) and
//! through joins without an index (built anew each evaluation), with UNION and UNION ALL,
//! several depths and start nodes. A restarted join that kept a row, a cursor position or a
//! half-joined batch from the evaluation before would show as a difference from SQLite.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;
#[path = "common/oracle.rs"]
mod oracle;

use common::Rng;
use oracle::{P, Pair};

const NODES: i64 = 4_000;
const EDGES: i64 = 20_000;

fn graph() -> Pair {
    let pair = Pair::new();
    for sql in [
        "CREATE TABLE edges (src INTEGER NOT NULL, dst INTEGER NOT NULL, kind TEXT NOT NULL, weight INTEGER NOT NULL)",
        "CREATE INDEX edges_src_kind ON edges (src, kind)",
        // The same edges with no index: the recursive term's join has nothing to seek by.
        "CREATE TABLE plain_edges (src INTEGER NOT NULL, dst INTEGER NOT NULL)",
        "CREATE TABLE nodes (id INTEGER PRIMARY KEY, label TEXT NOT NULL)",
    ] {
        pair.same(sql, &[]);
    }
    let mut rng = Rng::new(0x5EED_06A7);
    let both = |sql: &str| {
        pair.basalt.execute_batch(sql).unwrap();
        pair.sqlite.execute_batch(sql).unwrap();
    };
    both("BEGIN");
    for id in 1..=NODES {
        pair.same(
            "INSERT INTO nodes VALUES (?1, ?2)",
            &[
                P::I(id),
                P::T(format!("node {id} {}", "x".repeat((id % 40) as usize))),
            ],
        );
    }
    for _ in 0..EDGES {
        // A few hubs get many edges, so some evaluations join far more than a batch.
        let src = if rng.below(10) == 0 {
            1 + rng.below(8) as i64
        } else {
            1 + rng.below(NODES as u64) as i64
        };
        let dst = 1 + rng.below(NODES as u64) as i64;
        let kind = ["follows", "likes", "mentions"][rng.below(3) as usize];
        let weight = rng.below(100) as i64;
        let params = [P::I(src), P::I(dst), P::T(kind.into()), P::I(weight)];
        pair.same("INSERT INTO edges VALUES (?1, ?2, ?3, ?4)", &params);
        pair.same("INSERT INTO plain_edges VALUES (?1, ?2)", &params[..2]);
    }
    both("COMMIT");
    pair
}

#[test]
fn breadth_first_walks_agree_with_sqlite() {
    let pair = graph();
    let walks = [
        // Index join, UNION: the reachable set.
        "WITH RECURSIVE reach(id, depth) AS (
             SELECT CAST(?1 AS BIGINT), 0
             UNION
             SELECT e.dst, r.depth + 1 FROM reach r JOIN edges e ON e.src = r.id WHERE r.depth < ?2)
         SELECT id, min(depth) FROM reach GROUP BY id ORDER BY id",
        // Index join with a residual on the edge, UNION ALL: every path counted per depth.
        "WITH RECURSIVE walk(id, depth) AS (
             SELECT CAST(?1 AS BIGINT), 0
             UNION ALL
             SELECT e.dst, w.depth + 1 FROM walk w JOIN edges e ON e.src = w.id AND e.weight < 50
             WHERE w.depth < ?2)
         SELECT depth, count(*), sum(id) FROM walk GROUP BY depth ORDER BY depth",
        // Index join on both columns of the index, then a join back to the nodes by row id.
        "WITH RECURSIVE walk(id, depth) AS (
             SELECT CAST(?1 AS BIGINT), 0
             UNION
             SELECT e.dst, w.depth + 1 FROM walk w JOIN edges e ON e.src = w.id AND e.kind = 'likes'
             WHERE w.depth < ?2)
         SELECT w.depth, n.id, n.label FROM walk w JOIN nodes n ON n.id = w.id ORDER BY w.depth, n.id",
        // No index: the join is built anew for every evaluation.
        "WITH RECURSIVE reach(id, depth) AS (
             SELECT CAST(?1 AS BIGINT), 0
             UNION
             SELECT e.dst, r.depth + 1 FROM reach r JOIN plain_edges e ON e.src = r.id WHERE r.depth < ?2)
         SELECT depth, count(*), sum(id) FROM reach GROUP BY depth ORDER BY depth",
    ];
    for walk in walks {
        for start in [1, 2, 7, 1_234, 3_999] {
            for depth in [0, 1, 2, 4] {
                pair.same(walk, &[P::I(start), P::I(depth)]);
            }
        }
    }
    // A deep walk that ends on its own once nothing new is reached.
    pair.same(
        "WITH RECURSIVE reach(id) AS (
             SELECT CAST(?1 AS BIGINT)
             UNION
             SELECT e.dst FROM reach r JOIN edges e ON e.src = r.id)
         SELECT count(*), sum(id), min(id), max(id) FROM reach",
        &[P::I(5)],
    );
}
