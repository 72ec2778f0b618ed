//! A full-text index over several columns, `CREATE INDEX ... USING fts (title, body)`:
//! one document per row of both texts, searched as `fts_match((title, body), query)` and
//! ranked by `bm25_score((title, body), query)`.
//!
//! On a table of 12,000 rows (hundreds of leaf pages) with that index, a one-column
//! full-text index on `body` and a B+tree index beside it, checked three ways:
//! * against a reference written here: a row matches a term when its title or its body has
//!   the word, a phrase only within one column (never across the two), and its BM25 score is
//!   computed from the reference's own statistics of the two-column documents;
//! * against a twin table without indexes (the scan path): the same rows, the same scores to
//!   the bit, the same top 10 through block-max WAND, in either order of the columns;
//! * after inserts, updates of either column, deletes, a rollback, VACUUM and REINDEX, with
//!   the integrity check agreeing with the table each time.

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

use std::collections::HashMap;

use basalt::{Connection, Database, Value, sqlstate};
use fulltext::{integrity, rows};
use vector_search::Xorshift;

fn plan(conn: &Connection, sql: &str) -> String {
    fulltext::plan(conn, sql, "w1")
}

const ROWS: i64 = 12_000;

/// A word of the vocabulary: `w0` in most texts, `w300` in few.
fn word(rng: &mut Xorshift) -> String {
    let u = rng.unit();
    format!("w{}", ((u * u * u) * 300.0) as usize)
}

/// A text of `min..min + spread` words, NULL one time in `null_one_in`.
fn text(rng: &mut Xorshift, min: usize, spread: u64, null_one_in: u64) -> Option<String> {
    if rng.next_u64().is_multiple_of(null_one_in) {
        return None;
    }
    let length = min + (rng.next_u64() % spread) as usize;
    Some((0..length).map(|_| word(rng)).collect::<Vec<_>>().join(" "))
}

fn value(text: &Option<String>) -> Value {
    text.clone().map_or(Value::Null, Value::Text)
}

/// A row's (title, body).
type Texts = (Option<String>, Option<String>);

/// The rows as the reference sees them: id → (title, body).
type Corpus = HashMap<i64, Texts>;

/// Runs `sql` on both tables (`{t}` names the table) and on the reference.
struct Twins<'c> {
    conn: &'c Connection,
    corpus: Corpus,
}

impl Twins<'_> {
    fn run(&self, sql: &str, params: &[Value]) {
        for table in ["docs", "plain"] {
            self.conn
                .execute(&sql.replace("{t}", table), params.to_vec())
                .unwrap();
        }
    }

    fn insert(&mut self, id: i64, title: Option<String>, body: Option<String>) {
        self.run(
            "INSERT INTO {t} VALUES ($1, $2, $3, $4)",
            &[
                Value::Integer(id),
                value(&title),
                value(&body),
                Value::Integer(id % 100),
            ],
        );
        self.corpus.insert(id, (title, body));
    }
}

/// The reference's tokens of a text: its words (lowercase ASCII, split on spaces).
fn words(text: &Option<String>) -> Vec<&str> {
    text.as_deref()
        .map_or_else(Vec::new, |text| text.split(' ').collect())
}

/// How often a query item (one word, or a phrase of words) occurs in a row: in the title
/// plus in the body, a phrase only within one of them.
fn occurrences(row: &Texts, item: &[&str]) -> usize {
    [&row.0, &row.1]
        .into_iter()
        .map(|text| {
            let words = words(text);
            (0..words.len())
                .filter(|&at| words[at..].starts_with(item))
                .count()
        })
        .sum()
}

/// The reference's BM25 scores of the rows matching every item (an AND of items), by id:
/// k1 = 1.2, b = 0.75, idf = ln(1 + (N − df + 0.5) / (df + 0.5)) over the rows with a
/// title or a body, a row's length its words in both.
fn reference(corpus: &Corpus, items: &[&[&str]]) -> HashMap<i64, f64> {
    let documents: Vec<(&i64, &Texts)> = corpus
        .iter()
        .filter(|(_, row)| row.0.is_some() || row.1.is_some())
        .collect();
    let n = documents.len() as f64;
    let length = |row: &Texts| words(&row.0).len() + words(&row.1).len();
    let average = documents.iter().map(|(_, row)| length(row)).sum::<usize>() as f64 / n;
    let idfs: Vec<f64> = items
        .iter()
        .map(|item| {
            let df = documents
                .iter()
                .filter(|(_, row)| occurrences(row, item) > 0)
                .count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let mut scores = HashMap::new();
    for (id, row) in documents {
        let tfs: Vec<f64> = items
            .iter()
            .map(|item| occurrences(row, item) as f64)
            .collect();
        if tfs.contains(&0.0) {
            continue;
        }
        let norm = 1.2 * (1.0 - 0.75 + 0.75 * length(row) as f64 / average);
        let score = tfs
            .iter()
            .zip(&idfs)
            .map(|(tf, idf)| idf * tf * 2.2 / (tf + norm))
            .sum();
        scores.insert(*id, score);
    }
    scores
}

/// Queries and their items for the reference (an AND of items; `None`: not checked there).
const QUERIES: &[(&str, Option<&[&[&str]]>)] = &[
    ("w1", Some(&[&["w1"]])),
    ("w150", Some(&[&["w150"]])),
    ("w2 w40", Some(&[&["w2"], &["w40"]])),
    ("\"w0 w1\"", Some(&[&["w0", "w1"]])),
    ("\"w1 w1\"", Some(&[&["w1", "w1"]])),
    ("w3 OR w200", None),
    ("w1 NOT w2", None),
    ("w29*", None),
    ("nothing", Some(&[&["nothing"]])),
];

fn assert_answers(twins: &Twins<'_>) {
    let conn = twins.conn;
    let matching = "SELECT id, NULL::float FROM {t} WHERE fts_match((title, body), $1) ORDER BY id";
    let reversed = "SELECT id, NULL::float FROM {t} WHERE fts_match((body, title), $1) ORDER BY id";
    let every = "SELECT id, bm25_score((title, body), $1) FROM {t} \
                 WHERE fts_match((title, body), $1) ORDER BY id";
    let top = "SELECT id, bm25_score((body, title), $1) AS s FROM {t} \
               WHERE fts_match((title, body), $1) ORDER BY s DESC, id LIMIT 10";
    let filtered = "SELECT id, bm25_score((title, body), $1) AS s FROM {t} \
                    WHERE fts_match((title, body), $1) AND n < 30 ORDER BY s DESC, id LIMIT 7 OFFSET 3";
    assert!(
        plan(conn, &matching.replace("{t}", "docs")).contains("Full-Text Search using docs_both")
    );
    assert!(
        plan(conn, &reversed.replace("{t}", "docs")).contains("Full-Text Search using docs_both")
    );
    for sql in [top, filtered] {
        assert!(
            plan(conn, &sql.replace("{t}", "docs"))
                .contains("Full-Text Top-K Search using docs_both"),
            "{sql}"
        );
    }
    // One column of the two is not the index's document: a scan (or body's own index).
    assert!(plan(conn, "SELECT id FROM docs WHERE fts_match(title, $1)").contains("Table Scan"));
    assert!(
        plan(conn, "SELECT id FROM docs WHERE fts_match(body, $1)")
            .contains("Full-Text Search using docs_body")
    );
    for (query, items) in QUERIES {
        for sql in [matching, reversed, every, top, filtered] {
            let indexed = rows(conn, &sql.replace("{t}", "docs"), query);
            let scanned = rows(conn, &sql.replace("{t}", "plain"), query);
            assert_eq!(indexed, scanned, "{query}: {sql}");
        }
        let Some(items) = items else { continue };
        let want = reference(&twins.corpus, items);
        let got = rows(conn, &every.replace("{t}", "docs"), query);
        let mut ids: Vec<i64> = want.keys().copied().collect();
        ids.sort_unstable();
        assert_eq!(
            got.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            ids,
            "{query}"
        );
        for (id, score) in got {
            let (score, expected) = (score.unwrap(), want[&id]);
            assert!(
                (score - expected).abs() < 1e-9,
                "{query}: row {id}: {score} vs {expected}"
            );
        }
    }
}

fn build(conn: &Connection) -> Twins<'_> {
    conn.execute_batch(
        "CREATE TABLE docs (id INTEGER PRIMARY KEY, title TEXT, body TEXT, n INTEGER);
         CREATE INDEX docs_n ON docs (n);
         CREATE INDEX docs_body ON docs USING fts (body);
         CREATE TABLE plain (id INTEGER PRIMARY KEY, title TEXT, body TEXT, n INTEGER);",
    )
    .unwrap();
    let mut twins = Twins {
        conn,
        corpus: Corpus::new(),
    };
    let mut rng = Xorshift::new(0x7171_e5b0);
    // Half the rows before the two-column index is built, half maintained by it.
    conn.execute_batch("BEGIN").unwrap();
    for id in 1..=ROWS / 2 {
        let (title, body) = (text(&mut rng, 1, 6, 13), text(&mut rng, 5, 50, 29));
        twins.insert(id, title, body);
    }
    conn.execute_batch("COMMIT").unwrap();
    conn.execute_batch("CREATE INDEX docs_both ON docs USING fts (title, body)")
        .unwrap();
    conn.execute_batch("BEGIN").unwrap();
    for id in ROWS / 2 + 1..=ROWS {
        let (title, body) = (text(&mut rng, 1, 6, 13), text(&mut rng, 5, 50, 29));
        twins.insert(id, title, body);
    }
    conn.execute_batch("COMMIT").unwrap();
    twins
}

#[test]
fn a_two_column_index_answers_what_the_reference_and_a_scan_answer() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let mut twins = build(&conn);
    // A phrase never spans the two columns: "w5 w6" across the boundary is not a match.
    twins.insert(ROWS + 1, Some("w7 w5".into()), Some("w6 w8".into()));
    assert!(
        !rows(
            &conn,
            "SELECT id, NULL::float FROM docs WHERE fts_match((title, body), $1)",
            "\"w5 w6\""
        )
        .iter()
        .any(|(id, _)| *id == ROWS + 1)
    );
    assert_answers(&twins);
    integrity(&conn);

    // Updates of either column, and deletes, through the index.
    let mut rng = Xorshift::new(0x0bad_cafe);
    for id in (3..=ROWS).step_by(17) {
        let title = text(&mut rng, 1, 6, 5);
        twins.run(
            "UPDATE {t} SET title = $2 WHERE id = $1",
            &[Value::Integer(id), value(&title)],
        );
        twins.corpus.get_mut(&id).unwrap().0 = title;
    }
    for id in (8..=ROWS).step_by(23) {
        let body = text(&mut rng, 5, 50, 5);
        twins.run(
            "UPDATE {t} SET body = $2 WHERE id = $1",
            &[Value::Integer(id), value(&body)],
        );
        twins.corpus.get_mut(&id).unwrap().1 = body;
    }
    twins.run("DELETE FROM {t} WHERE id % 9 = 4", &[]);
    twins.corpus.retain(|id, _| id % 9 != 4);
    assert_answers(&twins);
    integrity(&conn);

    // A rolled-back transaction's writes were searched by it and then vanish.
    let saved = twins.corpus.clone();
    conn.execute_batch("BEGIN").unwrap();
    twins.run("UPDATE {t} SET title = 'w1 w1 w1' WHERE id % 10 = 1", &[]);
    for (id, row) in twins.corpus.iter_mut() {
        if id % 10 == 1 {
            row.0 = Some("w1 w1 w1".into());
        }
    }
    twins.run("DELETE FROM {t} WHERE id % 6 = 0", &[]);
    twins.corpus.retain(|id, _| id % 6 != 0);
    assert_answers(&twins);
    conn.execute_batch("ROLLBACK").unwrap();
    twins.corpus = saved;
    assert_answers(&twins);
    integrity(&conn);

    conn.execute_batch("VACUUM").unwrap();
    assert_answers(&twins);
    conn.execute_batch("REINDEX INDEX docs_both").unwrap();
    assert_answers(&twins);
    integrity(&conn);
}

#[test]
fn what_a_row_of_texts_refuses() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, title TEXT, body TEXT, n INT);
         CREATE TABLE u (id INTEGER PRIMARY KEY, note TEXT);",
    )
    .unwrap();
    let code = |sql: &str| conn.execute_batch(sql).unwrap_err().sqlstate();
    assert_eq!(
        code("CREATE INDEX ON t USING fts (title, n)"),
        sqlstate::DATATYPE_MISMATCH
    );
    assert_eq!(
        code("CREATE INDEX ON t USING fts (title, title)"),
        sqlstate::DUPLICATE_COLUMN
    );
    assert_eq!(
        code("SELECT fts_highlight((title, body), 'a', '<', '>') FROM t"),
        sqlstate::UNDEFINED_FUNCTION
    );
    assert_eq!(
        code("SELECT fts_match((title, n), 'a') FROM t"),
        sqlstate::UNDEFINED_FUNCTION
    );
    // bm25_score ranks against whole stored columns of one table.
    assert_eq!(
        code("SELECT bm25_score((t.title, u.note), 'a') FROM t, u"),
        sqlstate::FEATURE_NOT_SUPPORTED
    );
    assert_eq!(
        code("SELECT bm25_score((title, body || 'x'), 'a') FROM t"),
        sqlstate::FEATURE_NOT_SUPPORTED
    );
    // A row of texts that are not columns still matches, by scanning.
    conn.execute_batch("INSERT INTO t VALUES (1, 'red fox', NULL, 1), (2, NULL, NULL, 2)")
        .unwrap();
    let mut statement = conn
        .prepare("SELECT id, fts_match((title, body, 'quick'), 'fox quick') FROM t ORDER BY id")
        .unwrap();
    let mut result = statement.query(vec![]).unwrap();
    let first = result.next().unwrap().unwrap();
    assert_eq!(first.get::<Option<bool>>(1).unwrap(), Some(true));
    let second = result.next().unwrap().unwrap();
    assert_eq!(second.get::<Option<bool>>(1).unwrap(), Some(false));
    // A NULL query is NULL.
    let mut statement = conn
        .prepare("SELECT fts_match((title, body), NULL) FROM t WHERE id = 1")
        .unwrap();
    let mut result = statement.query(vec![]).unwrap();
    assert_eq!(
        result
            .next()
            .unwrap()
            .unwrap()
            .get::<Option<bool>>(0)
            .unwrap(),
        None
    );
    integrity(&conn);
}
