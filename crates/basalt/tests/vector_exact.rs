//! Exact vector search (`ORDER BY emb <op> $1 LIMIT k` with no HNSW index, or with
//! `hnsw.exact_search` on): the scan that computes distances from the page and keeps only the
//! nearest rows must return exactly what the plain plan returns — a full scan, the filter,
//! and a sort by the distance — for every operator, filter, LIMIT and OFFSET, including ties
//! (duplicated vectors, all-NaN cosine distances to a zero query), NULL vectors, rows of
//! another dimension, and a LIMIT too large to keep.
//!
//! The oracle is the same query ordered by `emb <op> $1, id + 0`: a second key that is not
//! the row id itself is never turned into a vector search, and since `id` is the row id it
//! breaks ties as the search does (the least by distance, then row id). The table spans hundreds of
//! leaf pages, so the search walks the leaf chain.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

#[path = "common/vector_search.rs"]
mod vector_search;

use basalt::{Connection, Database, Value, sqlstate};
use vector_search::Xorshift;

const ROWS: i64 = 12_000;
const DIMENSIONS: usize = 32;
const OPERATORS: [&str; 4] = ["<->", "<=>", "<#>", "<+>"];

/// A clustered vector from the generator: one of eight centres plus noise.
fn clustered(rng: &mut Xorshift) -> Vec<f32> {
    let centre = (rng.next_u64() % 8) as f32;
    (0..DIMENSIONS)
        .map(|i| ((centre + i as f32) % 5.0) - 2.0 + (rng.unit() - 0.5) * 0.8)
        .collect()
}

/// The vector many rows share, so distances tie.
fn shared() -> Vec<f32> {
    (0..DIMENSIONS).map(|i| i as f32 * 0.25 - 3.0).collect()
}

/// `items`: ids 1..=ROWS; every 97th vector NULL, every 50th the shared vector, every 311th
/// zero (its cosine distance is NaN), the rest clustered; `cat` = id mod 10; `note` text.
fn build(conn: &Connection) {
    conn.execute_batch(&format!(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, cat INTEGER, emb VECTOR({DIMENSIONS}), \
         note TEXT)"
    ))
    .unwrap();
    let mut rng = Xorshift::new(0x5eed_0e1a);
    conn.execute_batch("BEGIN").unwrap();
    {
        let mut insert = conn
            .prepare("INSERT INTO items (id, cat, emb, note) VALUES ($1, $2, $3, $4)")
            .unwrap();
        for id in 1..=ROWS {
            let emb = if id % 97 == 0 {
                Value::Null
            } else if id % 50 == 0 {
                Value::Vector(shared())
            } else if id % 311 == 0 {
                Value::Vector(vec![0.0; DIMENSIONS])
            } else {
                Value::Vector(clustered(&mut rng))
            };
            insert
                .execute(vec![
                    Value::Integer(id),
                    Value::Integer(id % 10),
                    emb,
                    Value::Text(format!("note {}", id * 7 % 1000)),
                ])
                .unwrap();
        }
    }
    conn.execute_batch("COMMIT").unwrap();
}

/// Every row of `sql` (bound to `query`) as (id, distance bits), distances compared bit for
/// bit; NULL as `None`.
fn run(conn: &Connection, sql: &str, query: &[f32]) -> basalt::Result<Vec<(i64, Option<u64>)>> {
    let mut statement = conn.prepare(sql)?;
    let mut result = statement.query((query,))?;
    let mut out = Vec::new();
    while let Some(row) = result.next()? {
        let distance = match row.get::<Value>(1)? {
            Value::Real(d) => Some(d.to_bits()),
            Value::Null => None,
            other => panic!("distance {other:?}"),
        };
        out.push((row.get::<i64>(0)?, distance));
    }
    Ok(out)
}

/// The plan of `sql`, its parameter bound to `query`.
fn plan(conn: &Connection, sql: &str, query: &[f32]) -> String {
    let mut statement = conn.prepare(&format!("EXPLAIN {sql}")).unwrap();
    let mut result = statement.query((query,)).unwrap();
    let mut lines = Vec::new();
    while let Some(row) = result.next().unwrap() {
        lines.push(row.get::<String>(0).unwrap());
    }
    lines.join("\n")
}

/// The search and its oracle agree for `query` under every operator, filter, LIMIT and
/// OFFSET here, and the search is what the plan runs.
fn check_all(conn: &Connection, query: &[f32], what: &str) {
    let filters = [
        "",
        "WHERE cat = 3",
        "WHERE note LIKE '%1%'",
        // Only NULL vectors pass: every distance is NULL, rows come in table order.
        "WHERE emb IS NULL AND cat < 5",
        // Fewer rows pass than most LIMITs ask for.
        "WHERE id % 1000 = 7",
    ];
    for operator in OPERATORS {
        for filter in filters {
            for (limit, offset) in [(1, ""), (10, ""), (10, "OFFSET 5"), (250, ""), (0, "")] {
                let search = format!(
                    "SELECT id, emb {operator} $1 FROM items {filter} \
                     ORDER BY emb {operator} $1 LIMIT {limit} {offset}"
                );
                let oracle = format!(
                    "SELECT id, emb {operator} $1 FROM items {filter} \
                     ORDER BY emb {operator} $1, id + 0 LIMIT {limit} {offset}"
                );
                // The row id as a written tie-break is a search too, with the same rows.
                let tie_broken = format!(
                    "SELECT id, emb {operator} $1 FROM items {filter} \
                     ORDER BY emb {operator} $1, id LIMIT {limit} {offset}"
                );
                let want = run(conn, &oracle, query).unwrap();
                for search in [search, tie_broken] {
                    let shown = plan(conn, &search, query);
                    assert!(
                        shown.contains("Exact Vector Search on items"),
                        "{search}: {shown}"
                    );
                    let got = run(conn, &search, query).unwrap();
                    assert_eq!(got, want, "{what}: {search}");
                }
            }
        }
    }
}

#[test]
fn exact_search_returns_what_a_full_sort_returns() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    build(&conn);
    let mut rng = Xorshift::new(0xfeed_beef);
    // A query near the data, the shared vector itself (distance 0 ties), its negation
    // (ties at the far end), and a zero vector (NaN cosine distances everywhere).
    let near = clustered(&mut rng);
    check_all(&conn, &near, "clustered query");
    check_all(&conn, &shared(), "shared vector");
    let far: Vec<f32> = shared().iter().map(|x| -x).collect();
    check_all(&conn, &far, "negated shared vector");
    check_all(&conn, &[0.0; DIMENSIONS], "zero query");

    // A LIMIT above what the search keeps reads every row through the sort, same answer.
    let large = "SELECT id, emb <-> $1 FROM items ORDER BY emb <-> $1 LIMIT 10001";
    let oracle = "SELECT id, emb <-> $1 FROM items ORDER BY emb <-> $1, id + 0 LIMIT 10001";
    assert_eq!(
        run(&conn, large, &near).unwrap(),
        run(&conn, oracle, &near).unwrap()
    );

    // Written in the transaction, seen by its own search; rolled back, gone.
    let target: Vec<f32> = (0..DIMENSIONS).map(|i| 40.0 + i as f32).collect();
    let top = "SELECT id, emb <-> $1 FROM items ORDER BY emb <-> $1 LIMIT 1";
    conn.execute_batch("BEGIN").unwrap();
    conn.execute(
        "UPDATE items SET emb = $1 WHERE id = 7777",
        (target.as_slice(),),
    )
    .unwrap();
    conn.execute("DELETE FROM items WHERE id = 7776", ())
        .unwrap();
    assert_eq!(
        run(&conn, top, &target).unwrap(),
        vec![(7777, Some(0.0f64.to_bits()))]
    );
    conn.execute_batch("ROLLBACK").unwrap();
    assert_ne!(run(&conn, top, &target).unwrap()[0].0, 7777);
}

/// With an HNSW index and `hnsw.exact_search` on, the search is exact: the oracle's answer.
#[test]
fn forced_exact_search_ignores_the_index() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    build(&conn);
    conn.execute_batch("CREATE INDEX items_cosine ON items USING hnsw (emb vector_cosine_ops)")
        .unwrap();
    conn.execute_batch("SET hnsw.exact_search = on").unwrap();
    let mut rng = Xorshift::new(0xabcd_ef01);
    for _ in 0..5 {
        let query = clustered(&mut rng);
        for filter in ["", "WHERE cat = 3"] {
            let search =
                format!("SELECT id, emb <=> $1 FROM items {filter} ORDER BY emb <=> $1 LIMIT 10");
            let oracle = format!(
                "SELECT id, emb <=> $1 FROM items {filter} ORDER BY emb <=> $1, id + 0 LIMIT 10"
            );
            assert!(plan(&conn, &search, &query).contains("hnsw.exact_search is on"));
            assert_eq!(
                run(&conn, &search, &query).unwrap(),
                run(&conn, &oracle, &query).unwrap()
            );
        }
    }
}

/// A vector of another dimension is pgvector's 22000 error, naming the dimensions in the
/// order the ORDER BY wrote its operands, as the plain plan reports it; a filter that leaves
/// the row out leaves the error out, as the plain plan (which filters first) does.
#[test]
fn another_dimension_is_an_error_only_where_the_row_passes() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch("CREATE TABLE loose (id INTEGER PRIMARY KEY, cat INTEGER, emb VECTOR)")
        .unwrap();
    let mut rng = Xorshift::new(0x1234_5678);
    conn.execute_batch("BEGIN").unwrap();
    for id in 1..=3_000i64 {
        let emb: Vec<f32> = if id == 1_500 {
            vec![1.0, 2.0, 3.0]
        } else {
            (0..8).map(|_| rng.unit()).collect()
        };
        conn.execute(
            "INSERT INTO loose VALUES ($1, $2, $3)",
            vec![
                Value::Integer(id),
                Value::Integer(if id == 1_500 { 99 } else { id % 7 }),
                Value::Vector(emb),
            ],
        )
        .unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
    let query: Vec<f32> = (0..8).map(|_| rng.unit()).collect();
    for (distance, message) in [
        ("emb <-> $1", "different vector dimensions 3 and 8"),
        ("$1 <-> emb", "different vector dimensions 8 and 3"),
    ] {
        let search = format!("SELECT id, {distance} FROM loose ORDER BY {distance} LIMIT 5");
        let oracle =
            format!("SELECT id, {distance} FROM loose ORDER BY {distance}, id + 0 LIMIT 5");
        assert!(plan(&conn, &search, &query).contains("Exact Vector Search on loose"));
        for sql in [&search, &oracle] {
            let error = run(&conn, sql, &query).unwrap_err();
            assert_eq!(error.sqlstate(), sqlstate::DATA_EXCEPTION, "{sql}");
            assert!(error.message().contains(message), "{sql}: {error}");
        }
        let filtered = |sql: &str| sql.replace("FROM loose", "FROM loose WHERE cat <> 99");
        assert_eq!(
            run(&conn, &filtered(&search), &query).unwrap(),
            run(&conn, &filtered(&oracle), &query).unwrap()
        );
    }
}
