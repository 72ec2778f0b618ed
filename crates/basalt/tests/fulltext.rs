//! Full-text search without an index, on a table of 12,000 documents (hundreds of leaf pages):
//! `fts_match` returns exactly the documents a reference matcher written here finds, and
//! `bm25_score` gives the scores of a reference BM25 computed here from its own statistics
//! of the whole column (k1 = 1.2, b = 0.75, Lucene's IDF), for single terms, AND, OR,
//! phrases and prefixes, very common and rare terms; the statistics are the whole column's
//! even when WHERE reads few rows, follow the transaction's own writes, and a query given as
//! a parameter ranks as one given as a constant.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss,
    reason = "tests"
)]

#[path = "common/vector_search.rs"]
mod vector_search;

use std::collections::{BTreeMap, BTreeSet};

use basalt::{Connection, Database, Value, sqlstate};
use vector_search::Xorshift;

const DOCUMENTS: i64 = 12_000;

/// Words by frequency: the first are in most documents, the last in few.
fn vocabulary() -> Vec<String> {
    let common = ["data", "system", "query", "index", "page"];
    let mut words: Vec<String> = common.iter().map(|w| (*w).to_owned()).collect();
    for i in 0..400 {
        words.push(format!("w{i}x"));
    }
    words
}

/// Document `id`: 5 to 60 words drawn with a skew towards the front of the vocabulary,
/// with commas and full stops between some; every 101st is NULL.
fn document(id: i64, words: &[String], rng: &mut Xorshift) -> Option<String> {
    if id % 101 == 0 {
        return None;
    }
    let length = 5 + (rng.next_u64() % 56) as usize;
    let mut text = String::new();
    for i in 0..length {
        // Cubing a uniform draw skews towards small indexes.
        let u = rng.unit();
        let word = &words[((u * u * u) * words.len() as f32) as usize % words.len()];
        if i > 0 {
            text.push_str(if rng.next_u64().is_multiple_of(7) {
                ", "
            } else {
                " "
            });
        }
        text.push_str(word);
    }
    text.push('.');
    Some(text)
}

/// The reference: each document's words (lowercase ASCII here, so splitting on anything
/// else is what Unicode segmentation does for this text).
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A reference query: the items and how they combine.
#[derive(Clone, Copy)]
enum Reference<'a> {
    Term(&'a str),
    And(&'a str, &'a str),
    Or(&'a str, &'a str),
    Phrase(&'a str, &'a str),
    Prefix(&'a str),
}

/// Occurrences of one item in a document's words.
fn occurrences(words: &[String], item: Reference<'_>) -> usize {
    match item {
        Reference::Term(t) => words.iter().filter(|w| *w == t).count(),
        Reference::Prefix(p) => words.iter().filter(|w| w.starts_with(p)).count(),
        Reference::Phrase(a, b) => words.windows(2).filter(|w| w[0] == a && w[1] == b).count(),
        Reference::And(..) | Reference::Or(..) => panic!("not an item"),
    }
}

fn items(query: Reference<'_>) -> Vec<Reference<'_>> {
    match query {
        Reference::And(a, b) | Reference::Or(a, b) => vec![Reference::Term(a), Reference::Term(b)],
        item => vec![item],
    }
}

fn matches(words: &[String], query: Reference<'_>) -> bool {
    match query {
        Reference::And(a, b) => {
            occurrences(words, Reference::Term(a)) > 0 && occurrences(words, Reference::Term(b)) > 0
        }
        Reference::Or(a, b) => {
            occurrences(words, Reference::Term(a)) > 0 || occurrences(words, Reference::Term(b)) > 0
        }
        item => occurrences(words, item) > 0,
    }
}

/// Every document's reference score (matching documents only), by id.
fn reference_scores(
    corpus: &BTreeMap<i64, Vec<String>>,
    query: Reference<'_>,
) -> BTreeMap<i64, f64> {
    let n = corpus.len() as f64;
    let average = corpus.values().map(Vec::len).sum::<usize>() as f64 / n;
    let items = items(query);
    let df: Vec<f64> = items
        .iter()
        .map(|item| {
            corpus
                .values()
                .filter(|w| occurrences(w, *item) > 0)
                .count() as f64
        })
        .collect();
    let (k1, b) = (1.2, 0.75);
    corpus
        .iter()
        .filter(|(_, words)| matches(words, query))
        .map(|(id, words)| {
            let score = items
                .iter()
                .zip(&df)
                .map(|(item, df)| {
                    let tf = occurrences(words, *item) as f64;
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * words.len() as f64 / average))
                })
                .sum();
            (*id, score)
        })
        .collect()
}

fn sql_of(query: Reference<'_>) -> String {
    match query {
        Reference::Term(t) => t.to_owned(),
        Reference::And(a, b) => format!("{a} {b}"),
        Reference::Or(a, b) => format!("{a} OR {b}"),
        Reference::Phrase(a, b) => format!("\"{a} {b}\""),
        Reference::Prefix(p) => format!("{p}*"),
    }
}

fn build(conn: &Connection) -> BTreeMap<i64, Vec<String>> {
    conn.execute_batch("CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT, n INTEGER)")
        .unwrap();
    conn.execute_batch("CREATE INDEX docs_n ON docs (n)")
        .unwrap();
    let words = vocabulary();
    let mut rng = Xorshift::new(0x0f75_5eed);
    let mut corpus = BTreeMap::new();
    conn.execute_batch("BEGIN").unwrap();
    for id in 1..=DOCUMENTS {
        let text = document(id, &words, &mut rng);
        if let Some(text) = &text {
            corpus.insert(id, words_of(text));
        }
        conn.execute(
            "INSERT INTO docs VALUES ($1, $2, $3)",
            vec![
                Value::Integer(id),
                text.map_or(Value::Null, Value::Text),
                Value::Integer(id % 100),
            ],
        )
        .unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
    corpus
}

/// (id, score) of every row `sql` returns for `query`.
fn scored(conn: &Connection, sql: &str, query: &str) -> Vec<(i64, f64)> {
    scored_with(conn, sql, vec![Value::Text(query.to_owned())])
}

/// (id, score) of every row `sql` returns with `params`.
fn scored_with(conn: &Connection, sql: &str, params: Vec<Value>) -> Vec<(i64, f64)> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut rows = statement.query(params).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push((row.get::<i64>(0).unwrap(), row.get::<f64>(1).unwrap()));
    }
    out
}

fn assert_scores(got: &[(i64, f64)], want: &BTreeMap<i64, f64>, what: &str) {
    for (id, score) in got {
        let expected = want
            .get(id)
            .unwrap_or_else(|| panic!("{what}: row {id} does not match"));
        assert!(
            (score - expected).abs() <= 1e-9 * expected.abs().max(1.0),
            "{what}: row {id} scored {score}, expected {expected}"
        );
    }
}

#[test]
fn matches_and_scores_follow_the_reference() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let corpus = build(&conn);
    let queries = [
        Reference::Term("data"),
        Reference::Term("w250x"),
        Reference::And("data", "w3x"),
        Reference::Or("w100x", "w101x"),
        Reference::Phrase("data", "system"),
        Reference::Prefix("w39"),
    ];
    for query in queries {
        let text = sql_of(query);
        let want = reference_scores(&corpus, query);
        assert!(!want.is_empty(), "{text} matches something");
        // fts_match finds exactly the matching documents.
        let matched: BTreeSet<i64> = scored(
            &conn,
            "SELECT id, 0.0 FROM docs WHERE fts_match(body, $1)",
            &text,
        )
        .into_iter()
        .map(|(id, _)| id)
        .collect();
        assert_eq!(matched, want.keys().copied().collect(), "fts_match {text}");
        // Every matching row's score, and the top 10 in the reference's order.
        let all = scored(
            &conn,
            "SELECT id, bm25_score(body, $1) FROM docs WHERE fts_match(body, $1)",
            &text,
        );
        assert_eq!(all.len(), want.len());
        assert_scores(&all, &want, &text);
        let top = scored(
            &conn,
            "SELECT id, bm25_score(body, $1) AS s FROM docs WHERE fts_match(body, $1) \
             ORDER BY s DESC, id LIMIT 10",
            &text,
        );
        let mut ranked: Vec<(i64, f64)> = want.iter().map(|(id, s)| (*id, *s)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let expected: Vec<i64> = ranked.iter().take(10).map(|(id, _)| *id).collect();
        assert_eq!(
            top.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            expected,
            "top 10 of {text}"
        );
        // The statistics are the whole column's, whatever WHERE reads (through an index).
        let few = scored(
            &conn,
            "SELECT id, bm25_score(body, $1) FROM docs WHERE n = 7 AND fts_match(body, $1)",
            &text,
        );
        assert_scores(&few, &want, &format!("{text} with n = 7"));
        // A non-matching row scores 0; a NULL document NULL.
        let zero = scored(
            &conn,
            "SELECT id, bm25_score(body, $1) FROM docs WHERE NOT fts_match(body, $1) LIMIT 5",
            &text,
        );
        assert!(zero.iter().all(|(_, score)| *score == 0.0));
    }
    let mut statement = conn
        .prepare("SELECT bm25_score(body, 'data') IS NULL FROM docs WHERE id = 101")
        .unwrap();
    let mut rows = statement.query(()).unwrap();
    assert!(rows.next().unwrap().unwrap().get::<bool>(0).unwrap());
}

/// Rows written by the transaction count in its statistics; rolled back, they are gone.
#[test]
fn statistics_follow_the_transaction() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let mut corpus = build(&conn);
    let query = Reference::Term("w250x");
    let before = reference_scores(&corpus, query);
    let sql = "SELECT id, bm25_score(body, $1) FROM docs WHERE fts_match(body, $1)";
    conn.execute_batch("BEGIN").unwrap();
    for id in 0..50 {
        conn.execute(
            "INSERT INTO docs VALUES ($1, 'w250x w250x data', 0)",
            (DOCUMENTS + 1 + id,),
        )
        .unwrap();
        corpus.insert(DOCUMENTS + 1 + id, words_of("w250x w250x data"));
    }
    let during = reference_scores(&corpus, query);
    assert_scores(
        &scored(&conn, sql, "w250x"),
        &during,
        "inside the transaction",
    );
    conn.execute_batch("ROLLBACK").unwrap();
    let after = scored(&conn, sql, "w250x");
    assert_eq!(after.len(), before.len());
    assert_scores(&after, &before, "after rollback");
}

#[test]
fn what_bm25_score_refuses() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT, other TEXT)")
        .unwrap();
    conn.execute_batch("INSERT INTO t VALUES (1, 'a b', 'c')")
        .unwrap();
    for (sql, code) in [
        (
            "SELECT bm25_score('a b', 'a')",
            sqlstate::FEATURE_NOT_SUPPORTED,
        ),
        (
            "SELECT bm25_score(upper(body), 'a') FROM t",
            sqlstate::FEATURE_NOT_SUPPORTED,
        ),
        (
            "SELECT bm25_score(body, other) FROM t",
            sqlstate::FEATURE_NOT_SUPPORTED,
        ),
        (
            "SELECT bm25_score(id, 'a') FROM t",
            sqlstate::UNDEFINED_FUNCTION,
        ),
        (
            "SELECT bm25_score(body) FROM t",
            sqlstate::UNDEFINED_FUNCTION,
        ),
        (
            "SELECT bm25_score(body, 'a OR') FROM t",
            sqlstate::SYNTAX_ERROR,
        ),
    ] {
        let error = conn
            .prepare(sql)
            .and_then(|mut statement| {
                let mut rows = statement.query(())?;
                while rows.next()?.is_some() {}
                Ok(())
            })
            .expect_err(sql);
        assert_eq!(error.sqlstate(), code, "{sql}: {error}");
    }
    // Through a join and a table alias, the column is still the table's.
    let mut statement = conn
        .prepare("SELECT round(bm25_score(x.body, 'a'), 6) FROM t AS x JOIN t AS y ON x.id = y.id")
        .unwrap();
    let mut rows = statement.query(()).unwrap();
    assert!(rows.next().unwrap().unwrap().get::<f64>(0).unwrap() > 0.0);
}

/// The hybrid shape of docs/sql.md — two ranked branches (BM25 and cosine distance, 100
/// candidates each) fused by reciprocal rank fusion with k = 60 and weights — gives what
/// fusing the two branches' own rankings gives, computed here; with a filter in both
/// branches too.
#[test]
fn hybrid_retrieval_fuses_both_rankings() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE docs (id INTEGER PRIMARY KEY, cat INTEGER, body TEXT, emb VECTOR(8))",
    )
    .unwrap();
    let words = vocabulary();
    let mut rng = Xorshift::new(0x4b1d_0001);
    conn.execute_batch("BEGIN").unwrap();
    for id in 1..=3_000i64 {
        let text = document(id, &words, &mut rng);
        let emb: Vec<f32> = (0..8).map(|_| rng.unit() - 0.5).collect();
        conn.execute(
            "INSERT INTO docs VALUES ($1, $2, $3, $4)",
            vec![
                Value::Integer(id),
                Value::Integer(id % 4),
                text.map_or(Value::Null, Value::Text),
                Value::Vector(emb),
            ],
        )
        .unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
    let query_vector: Vec<f32> = (0..8).map(|_| rng.unit() - 0.5).collect();
    for filter in ["", "AND cat = 2"] {
        let hybrid = format!(
            "WITH lexical AS (
               SELECT id, row_number() OVER (ORDER BY score DESC, id) AS r
               FROM (SELECT id, bm25_score(body, $1) AS score FROM docs
                     WHERE fts_match(body, $1) {filter}
                     ORDER BY score DESC, id LIMIT 100) AS best
             ), semantic AS (
               SELECT id, row_number() OVER (ORDER BY distance, id) AS r
               FROM (SELECT id, emb <=> $2 AS distance FROM docs WHERE true {filter}
                     ORDER BY emb <=> $2 LIMIT 100) AS nearest
             )
             SELECT id, sum(score) AS rrf FROM (
               SELECT id, 0.7 / (60 + r) AS score FROM lexical
               UNION ALL
               SELECT id, 0.3 / (60 + r) FROM semantic
             ) AS fused
             GROUP BY id ORDER BY rrf DESC, id LIMIT 10"
        );
        let run = |sql: &str| {
            let params = vec![
                Value::Text("w100x OR w101x OR data".into()),
                Value::Vector(query_vector.clone()),
            ];
            scored_with(&conn, sql, params)
        };
        let ids =
            |rows: Vec<(i64, f64)>| -> Vec<i64> { rows.into_iter().map(|(id, _)| id).collect() };
        let lexical = ids(run(&format!(
            "SELECT id, 0.0 FROM docs WHERE fts_match(body, $1) {filter} AND $2 IS NOT NULL \
             ORDER BY bm25_score(body, $1) DESC, id LIMIT 100"
        )));
        let semantic = ids(run(&format!(
            "SELECT id, 0.0 FROM docs WHERE $1 IS NOT NULL {filter} \
             ORDER BY emb <=> $2, id LIMIT 100"
        )));
        assert_eq!((lexical.len(), semantic.len()), (100, 100));
        let mut fused: BTreeMap<i64, f64> = BTreeMap::new();
        for (weight, ranking) in [(0.7, &lexical), (0.3, &semantic)] {
            for (rank, id) in ranking.iter().enumerate() {
                *fused.entry(*id).or_default() += weight / (60.0 + rank as f64 + 1.0);
            }
        }
        let mut want: Vec<(i64, f64)> = fused.into_iter().collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        want.truncate(10);
        let got = run(&hybrid);
        assert_eq!(got.len(), 10, "{filter}");
        for ((got_id, got_score), (want_id, want_score)) in got.iter().zip(&want) {
            assert_eq!(got_id, want_id, "{filter}");
            assert!((got_score - want_score).abs() < 1e-12, "{filter}");
        }
    }
}
