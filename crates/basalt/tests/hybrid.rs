//! Hybrid retrieval through `rrf(...)`, on a table of 12,000 documents (hundreds of leaf
//! pages) with a full-text index, an HNSW index and a B-tree index: the short form gives the
//! long form's rows and scores (docs/sql.md), both equal a fusion computed here from each
//! branch's own ranking, with and without a filter in the branches, inside a transaction
//! that changes the rows and after its rollback; keys that repeat within a branch, NULL keys,
//! text keys, three branches, parameters for k and the weights, aliases and joins; EXPLAIN
//! shows the fusion over both index searches; what `rrf` refuses, with its SQLSTATE.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss,
    reason = "tests"
)]

#[path = "common/vector_search.rs"]
mod vector_search;

use std::collections::BTreeMap;

use basalt::{Connection, Database, Value, sqlstate};
use vector_search::Xorshift;

const DOCUMENTS: i64 = 12_000;
const DIMENSIONS: usize = 16;

/// A document of 20–60 words from 400, skewed so a few words are in most documents.
fn document(rng: &mut Xorshift) -> String {
    let length = 20 + rng.next_u64() % 41;
    let mut words = Vec::new();
    for _ in 0..length {
        let draw = f64::from(rng.unit());
        let word = (draw * draw * draw * 400.0) as u64;
        words.push(format!("w{word}"));
    }
    words.join(" ")
}

fn vector(rng: &mut Xorshift) -> Vec<f32> {
    (0..DIMENSIONS).map(|_| rng.unit() - 0.5).collect()
}

/// `docs` (id, cat, body, emb) with a full-text, an HNSW and a B-tree index.
fn build() -> Database {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(&format!(
        "CREATE TABLE docs (id INTEGER PRIMARY KEY, cat INTEGER, body TEXT, emb VECTOR({DIMENSIONS}));
         CREATE INDEX docs_body ON docs USING fts (body);
         CREATE INDEX docs_emb ON docs USING hnsw (emb vector_cosine_ops);
         CREATE INDEX docs_cat ON docs (cat);"
    ))
    .unwrap();
    let mut rng = Xorshift::new(0x4b1d_0002);
    conn.execute_batch("BEGIN").unwrap();
    for id in 1..=DOCUMENTS {
        conn.execute(
            "INSERT INTO docs VALUES ($1, $2, $3, $4)",
            vec![
                Value::Integer(id),
                Value::Integer(id % 10),
                Value::Text(document(&mut rng)),
                Value::Vector(vector(&mut rng)),
            ],
        )
        .unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
    db
}

/// (key, score) of every row `sql` returns with `params`.
fn rows_of(conn: &Connection, sql: &str, params: Vec<Value>) -> Vec<(Value, f64)> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut rows = statement.query(params).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push((row.get::<Value>(0).unwrap(), row.get::<f64>(1).unwrap()));
    }
    out
}

/// The first column of every row `sql` returns, in order.
fn ranking(conn: &Connection, sql: &str, params: Vec<Value>) -> Vec<Value> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut rows = statement.query(params).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(row.get::<Value>(0).unwrap());
    }
    out
}

/// Reciprocal rank fusion computed here: Σ weight / (k + rank) per key, best first, ties by
/// key (integers ascending, NULL last).
fn fuse(rankings: &[(f64, Vec<Value>)], k: f64) -> Vec<(Value, f64)> {
    let mut scores: BTreeMap<Option<i64>, f64> = BTreeMap::new();
    for (weight, ranking) in rankings {
        for (rank, key) in ranking.iter().enumerate() {
            let key = match key {
                Value::Integer(key) => Some(*key),
                Value::Null => None,
                other => panic!("integer keys only here, not {other:?}"),
            };
            *scores.entry(key).or_default() += weight / (k + rank as f64 + 1.0);
        }
    }
    let mut fused: Vec<(Option<i64>, f64)> = scores.into_iter().collect();
    fused.sort_by(|a, b| {
        b.1.total_cmp(&a.1).then(match (a.0, b.0) {
            (Some(x), Some(y)) => x.cmp(&y),
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, None) => std::cmp::Ordering::Equal,
        })
    });
    fused
        .into_iter()
        .map(|(key, score)| (key.map_or(Value::Null, Value::Integer), score))
        .collect()
}

fn assert_same(got: &[(Value, f64)], want: &[(Value, f64)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: row count");
    for (position, ((got_key, got_score), (want_key, want_score))) in
        got.iter().zip(want).enumerate()
    {
        assert_eq!(got_key, want_key, "{what}: key at {position}");
        assert!(
            (got_score - want_score).abs() < 1e-12,
            "{what}: score at {position}: {got_score} vs {want_score}"
        );
    }
}

fn lexical_branch(filter: &str) -> String {
    format!(
        "SELECT id FROM docs WHERE fts_match(body, $1) {filter} \
         ORDER BY bm25_score(body, $1) DESC, id LIMIT 100"
    )
}

/// The vector branch; `filter` is `AND condition` as for [`lexical_branch`].
fn semantic_branch(filter: &str) -> String {
    let filter = filter.replacen("AND", "WHERE", 1);
    format!("SELECT id FROM docs {filter} ORDER BY emb <=> $2, id LIMIT 100")
}

/// The short form, its branches run on their own, and the long form of docs/sql.md agree,
/// for several queries, with and without a filter, and as the rows change in a transaction.
fn check_forms(conn: &Connection, rng: &mut Xorshift, what: &str) {
    for (query, filter) in [
        ("w3 OR w150", ""),
        ("w3 OR w150", "AND cat = 2"),
        ("w60 w61", ""),
        ("w200", "AND cat IN (1, 5)"),
        ("\"w0 w1\"", ""),
    ] {
        let query_vector = vector(rng);
        let params = || {
            vec![
                Value::Text(query.into()),
                Value::Vector(query_vector.clone()),
            ]
        };
        let what = format!("{what}: {query} {filter}");
        let vector_filter = filter.replacen("AND", "WHERE", 1);
        let short = format!(
            "SELECT id, score FROM rrf(({}), ({}), weights => (0.7, 0.3)) \
             ORDER BY score DESC, id LIMIT 10",
            lexical_branch(filter),
            semantic_branch(filter)
        );
        let long = format!(
            "WITH lexical AS (
               SELECT id, row_number() OVER (ORDER BY score DESC, id) AS r
               FROM (SELECT id, bm25_score(body, $1) AS score FROM docs
                     WHERE fts_match(body, $1) {filter}
                     ORDER BY score DESC, id LIMIT 100) AS best
             ), semantic AS (
               SELECT id, row_number() OVER (ORDER BY distance, id) AS r
               FROM (SELECT id, emb <=> $2 AS distance FROM docs {vector_filter}
                     ORDER BY emb <=> $2 LIMIT 100) AS nearest
             )
             SELECT id, sum(score) AS rrf FROM (
               SELECT id, 0.7 / (60 + r) AS score FROM lexical
               UNION ALL
               SELECT id, 0.3 / (60 + r) FROM semantic
             ) AS fused
             GROUP BY id ORDER BY rrf DESC, id LIMIT 10"
        );
        let lexical = ranking(
            conn,
            &lexical_branch(filter),
            vec![Value::Text(query.into())],
        );
        let semantic = ranking(
            conn,
            &format!(
                "SELECT * FROM ({}) AS s WHERE $1 IS NOT NULL",
                semantic_branch(filter)
            ),
            params(),
        );
        assert!(!lexical.is_empty(), "{what}: the text query matches");
        assert_eq!(semantic.len(), 100, "{what}");
        let mut want = fuse(&[(0.7, lexical), (0.3, semantic)], 60.0);
        let everything = rows_of(
            conn,
            &format!(
                "SELECT * FROM rrf(({}), ({}), k => 60, weights => (0.7, 0.3))",
                lexical_branch(filter),
                semantic_branch(filter)
            ),
            params(),
        );
        assert_same(&everything, &want, &format!("{what}: every fused row"));
        want.truncate(10);
        assert_eq!(want.len(), 10, "{what}");
        assert_same(
            &rows_of(conn, &short, params()),
            &want,
            &format!("{what}: short"),
        );
        assert_same(
            &rows_of(conn, &long, params()),
            &want,
            &format!("{what}: long"),
        );
    }
}

#[test]
fn the_short_form_equals_the_long_form_and_the_fusion_of_its_branches() {
    let db = build();
    let conn = db.connect();
    let mut rng = Xorshift::new(0x4b1d_0003);
    check_forms(&conn, &mut rng, "committed");
    // Inside a transaction that adds documents which rank first in both branches and
    // deletes others, the fusion sees the transaction's rows; after ROLLBACK, the old ones.
    conn.execute_batch("BEGIN").unwrap();
    conn.execute_batch(
        "DELETE FROM docs WHERE id % 7 = 0;
         UPDATE docs SET body = body || ' w150 w150 w150' WHERE id % 11 = 0;",
    )
    .unwrap();
    let probe = vector(&mut rng);
    for id in 0..50i64 {
        conn.execute(
            "INSERT INTO docs VALUES ($1, 2, 'w3 w150 w3 w150', $2)",
            vec![
                Value::Integer(DOCUMENTS + 1 + id),
                Value::Vector(probe.clone()),
            ],
        )
        .unwrap();
    }
    let fused = ranking(
        &conn,
        &format!(
            "SELECT id FROM rrf(({}), ({})) ORDER BY score DESC, id LIMIT 10",
            lexical_branch(""),
            semantic_branch("")
        ),
        vec![
            Value::Text("w3 OR w150".into()),
            Value::Vector(probe.clone()),
        ],
    );
    assert!(
        fused
            .iter()
            .all(|id| matches!(id, Value::Integer(id) if *id > DOCUMENTS)),
        "the transaction's own rows rank first: {fused:?}"
    );
    let mut in_transaction = Xorshift::new(0x4b1d_0004);
    check_forms(&conn, &mut in_transaction, "in a transaction");
    conn.execute_batch("ROLLBACK").unwrap();
    let mut after = Xorshift::new(0x4b1d_0003);
    check_forms(&conn, &mut after, "after rollback");
}

#[test]
fn keys_repeat_or_are_null_or_text_and_branches_may_be_many() {
    let db = build();
    let conn = db.connect();
    // A key that repeats within a branch scores once per row; NULL keys are one key.
    let repeated = "SELECT cat FROM docs ORDER BY id LIMIT 30";
    let nulls = "SELECT CASE WHEN id % 3 = 0 THEN NULL ELSE id % 5 END FROM docs \
                 ORDER BY id DESC LIMIT 12";
    let by_cat = "SELECT cat FROM docs WHERE id < 40 ORDER BY cat DESC, id";
    let got = rows_of(
        &conn,
        &format!("SELECT * FROM rrf(({repeated}), ({nulls}), ({by_cat}), k => 1.5)"),
        vec![],
    );
    let want = fuse(
        &[
            (1.0, ranking(&conn, repeated, vec![])),
            (1.0, ranking(&conn, nulls, vec![])),
            (1.0, ranking(&conn, by_cat, vec![])),
        ],
        1.5,
    );
    assert!(want.iter().any(|(key, _)| *key == Value::Null));
    assert_same(&got, &want, "three branches, repeats and NULLs");

    // k and weights as parameters; a weight of zero drops a branch's say.
    let sql = format!("SELECT * FROM rrf(({repeated}), ({by_cat}), k => $1, weights => ($2, $3))");
    let got = rows_of(
        &conn,
        &sql,
        vec![Value::Real(10.0), Value::Integer(2), Value::Real(0.0)],
    );
    let want = fuse(
        &[
            (2.0, ranking(&conn, repeated, vec![])),
            (0.0, ranking(&conn, by_cat, vec![])),
        ],
        10.0,
    );
    assert_same(&got, &want, "parameters");

    // Text keys, an alias with column names, and a join back to the table.
    let mut statement = conn
        .prepare(
            "SELECT f.word, f.s FROM rrf(
               (SELECT 'w' || cat FROM docs ORDER BY id LIMIT 4),
               (SELECT 'w' || (cat + 1) FROM docs ORDER BY id LIMIT 4)) AS f(word, s)
             ORDER BY f.s DESC, f.word",
        )
        .unwrap();
    let mut result = statement.query(()).unwrap();
    let mut words = Vec::new();
    while let Some(row) = result.next().unwrap() {
        words.push(row.get::<String>(0).unwrap());
    }
    // Branch 1 ranks w1 w2 w3 w4, branch 2 w2 w3 w4 w5: w2 (1/62 + 1/61) leads.
    assert_eq!(words, ["w2", "w3", "w4", "w1", "w5"]);
    let joined = ranking(
        &conn,
        "SELECT d.cat FROM rrf((SELECT id FROM docs WHERE cat = 3 ORDER BY id LIMIT 5)) AS f
         JOIN docs AS d ON d.id = f.id ORDER BY f.score DESC",
        vec![],
    );
    assert_eq!(joined, vec![Value::Integer(3); 5]);
}

/// As a function in FROM, `rrf` is LATERAL: its branches may read the items to its left,
/// so one statement fuses a whole table of queries, each as the same statement with that
/// query's text and vector as parameters would.
#[test]
fn a_table_of_queries_fuses_through_lateral_branches() {
    let db = build();
    let conn = db.connect();
    // The LATERAL vector branch sorts exactly (its query vector is a column, not a
    // constant); the per-query statements must too.
    conn.execute_batch(
        "SET hnsw.exact_search = on;
         CREATE TABLE queries (qid INTEGER PRIMARY KEY, text TEXT, vec VECTOR(16))",
    )
    .unwrap();
    let mut rng = Xorshift::new(0x4b1d_0005);
    let texts = ["w3 OR w150", "w60 w61", "w200", "\"w0 w1\"", "w9 OR w300"];
    for (qid, text) in texts.iter().enumerate() {
        conn.execute(
            "INSERT INTO queries VALUES ($1, $2, $3)",
            vec![
                Value::Integer(qid as i64),
                Value::Text((*text).into()),
                Value::Vector(vector(&mut rng)),
            ],
        )
        .unwrap();
    }
    let mut statement = conn
        .prepare(
            "SELECT q.qid, f.id, f.score FROM queries AS q,
               rrf((SELECT id FROM docs WHERE fts_match(body, q.text) AND cat <> q.qid
                    ORDER BY id DESC LIMIT 30),
                   (SELECT id FROM docs WHERE cat <> q.qid ORDER BY emb <=> q.vec, id LIMIT 30),
                   weights => (0.7, 0.3)) AS f
             ORDER BY q.qid, f.score DESC, f.id",
        )
        .unwrap();
    let mut result = statement.query(()).unwrap();
    let mut batch: BTreeMap<i64, Vec<(Value, f64)>> = BTreeMap::new();
    while let Some(row) = result.next().unwrap() {
        batch
            .entry(row.get::<i64>(0).unwrap())
            .or_default()
            .push((row.get::<Value>(1).unwrap(), row.get::<f64>(2).unwrap()));
    }
    assert_eq!(batch.len(), texts.len(), "every query has fused rows");
    let plan = ranking(
        &conn,
        "EXPLAIN SELECT * FROM queries AS q, rrf((SELECT id FROM docs WHERE cat = q.qid))",
        vec![],
    );
    assert!(
        plan.contains(&Value::Text("  Lateral Subquery".into())),
        "{plan:?}"
    );
    let mut check = conn
        .prepare("SELECT text, vec FROM queries WHERE qid = $1")
        .unwrap();
    for (qid, got) in batch {
        let mut rows = check.query(vec![Value::Integer(qid)]).unwrap();
        let row = rows.next().unwrap().unwrap();
        let params = vec![
            row.get::<Value>(0).unwrap(),
            row.get::<Value>(1).unwrap(),
            Value::Integer(qid),
        ];
        drop(rows);
        let want = rows_of(
            &conn,
            "SELECT id, score FROM rrf(
               (SELECT id FROM docs WHERE fts_match(body, $1) AND cat <> $3
                ORDER BY id DESC LIMIT 30),
               (SELECT id FROM docs WHERE cat <> $3 ORDER BY emb <=> $2, id LIMIT 30),
               weights => (0.7, 0.3))
             ORDER BY score DESC, id",
            params,
        );
        assert_same(&got, &want, &format!("query {qid}"));
    }
}

#[test]
fn explain_shows_the_fusion_over_both_index_searches() {
    let db = build();
    let conn = db.connect();
    let plan = ranking(
        &conn,
        &format!(
            "EXPLAIN SELECT id, score FROM rrf(({}), ({})) ORDER BY score DESC, id LIMIT 10",
            lexical_branch(""),
            semantic_branch("")
        ),
        vec![
            Value::Text("w3".into()),
            Value::Vector(vec![0.5; DIMENSIONS]),
        ],
    );
    let plan: Vec<String> = plan
        .into_iter()
        .map(|line| match line {
            Value::Text(line) => line,
            other => panic!("{other:?}"),
        })
        .collect();
    let text = plan.join("\n");
    assert!(
        text.contains("Rank Fusion (rrf) of 2 ranked queries"),
        "{text}"
    );
    assert!(
        text.contains("Full-Text Top-K Search using docs_body"),
        "{text}"
    );
    assert!(
        text.contains("Vector Search using docs_emb on docs (hnsw)"),
        "{text}"
    );
}

#[test]
fn what_rrf_refuses() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, doc JSON);
         INSERT INTO t VALUES (1, 'a', '{}'), (2, 'b', '[]');",
    )
    .unwrap();
    let branch = "(SELECT id FROM t ORDER BY id)";
    for (sql, code) in [
        (
            "SELECT * FROM rrf()".to_string(),
            sqlstate::UNDEFINED_FUNCTION,
        ),
        (
            "SELECT * FROM rrf(1, 2)".to_string(),
            sqlstate::DATATYPE_MISMATCH,
        ),
        (
            format!("SELECT * FROM rrf({branch}, (SELECT name FROM t))"),
            sqlstate::DATATYPE_MISMATCH,
        ),
        (
            "SELECT * FROM rrf((SELECT doc FROM t))".to_string(),
            sqlstate::UNDEFINED_FUNCTION,
        ),
        (
            format!("SELECT * FROM rrf({branch}, {branch}, weights => (1, 2, 3))"),
            sqlstate::DATATYPE_MISMATCH,
        ),
        (
            format!("SELECT * FROM rrf({branch}, weights => 'heavy')"),
            sqlstate::INVALID_TEXT_REPRESENTATION,
        ),
        (
            format!("SELECT * FROM rrf({branch}, weights => CAST('1' AS TEXT))"),
            sqlstate::DATATYPE_MISMATCH,
        ),
        (
            format!("SELECT * FROM rrf({branch}, depth => 2)"),
            sqlstate::UNDEFINED_FUNCTION,
        ),
        (
            format!("SELECT * FROM rrf({branch}, k => 1, k => 2)"),
            sqlstate::SYNTAX_ERROR,
        ),
        (
            format!("SELECT * FROM rrf(k => 1, {branch})"),
            sqlstate::SYNTAX_ERROR,
        ),
        (
            // k is per call, not per row, even where the branches are LATERAL.
            format!("SELECT * FROM t, rrf({branch}, k => t.id)"),
            sqlstate::FEATURE_NOT_SUPPORTED,
        ),
        (
            format!("SELECT * FROM rrf({branch}, k => -1)"),
            sqlstate::INVALID_PARAMETER_VALUE,
        ),
        (
            format!("SELECT * FROM rrf({branch}, weights => (CAST('NaN' AS REAL)))"),
            sqlstate::INVALID_PARAMETER_VALUE,
        ),
        (
            format!("SELECT * FROM rrf({branch}, k => NULL)"),
            sqlstate::INVALID_PARAMETER_VALUE,
        ),
    ] {
        let error = conn
            .prepare(&sql)
            .and_then(|mut statement| {
                let mut rows = statement.query(())?;
                while rows.next()?.is_some() {}
                Ok(())
            })
            .expect_err(&sql);
        assert_eq!(error.sqlstate(), code, "{sql}: {error}");
    }
}
