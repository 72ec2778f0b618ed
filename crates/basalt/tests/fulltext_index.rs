//! The full-text index (`CREATE INDEX ... USING fts`) answers exactly what a scan answers, on
//! tables of thousands of documents (hundreds of leaf pages, thousands of postings blocks):
//! the same matching rows for every query form, the same BM25 scores to the bit, and the same
//! top 10 through block-max WAND as a sort of every match — after a bulk build, thousands of
//! inserts, deletes and updates through the index, a rollback, VACUUM and REINDEX; the
//! integrity check agrees with the table throughout. A twin table without the index is the
//! oracle (it runs the same analyzer row by row).

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
use fulltext::{both, integrity, rows, text_value};
use vector_search::Xorshift;

fn plan(conn: &Connection, sql: &str) -> String {
    fulltext::plan(conn, sql, "data")
}

const DOCUMENTS: i64 = 8_000;

/// Words by frequency (the first in most documents), with accented and non-Latin ones.
fn vocabulary() -> Vec<String> {
    let mut words: Vec<String> = ["data", "system", "query", "index", "page", "café", "naïve"]
        .iter()
        .map(|w| (*w).to_owned())
        .collect();
    for i in 0..300 {
        words.push(format!("w{i}x"));
    }
    words.extend(["東京", "straße", "Ωmega"].iter().map(|w| (*w).to_owned()));
    words
}

/// Document text from `rng`: 3 to 60 words, skewed to the front of the vocabulary; one in 50
/// repeats one word 40 times or more (its positions outgrow a block); one in 97 is NULL.
fn document(rng: &mut Xorshift, words: &[String]) -> Option<String> {
    let shape = rng.next_u64() % 4850;
    if shape.is_multiple_of(97) {
        return None;
    }
    let length = if shape % 50 == 1 {
        40 + (rng.next_u64() % 30) as usize
    } else {
        3 + (rng.next_u64() % 58) as usize
    };
    let repeated = shape % 50 == 1;
    let mut text = String::new();
    for i in 0..length {
        let u = rng.unit();
        let word = if repeated && i % 2 == 0 {
            &words[2]
        } else {
            &words[((u * u * u) * words.len() as f32) as usize % words.len()]
        };
        if i > 0 {
            text.push_str(if rng.next_u64().is_multiple_of(9) {
                ", "
            } else {
                " "
            });
        }
        text.push_str(word);
    }
    Some(text)
}

/// Builds `docs` (with the full-text index and a B+tree index) and its twin `plain`: half
/// the rows before CREATE INDEX, half after, then deletes and updates.
fn build(conn: &Connection, options: &str) {
    for table in ["docs", "plain"] {
        conn.execute_batch(&format!(
            "CREATE TABLE {table} (id INTEGER PRIMARY KEY, body TEXT, n INTEGER);
             CREATE INDEX {table}_n ON {table} (n)"
        ))
        .unwrap();
    }
    let words = vocabulary();
    let mut rng = Xorshift::new(0x05ee_df75);
    let insert = "INSERT INTO {t} VALUES ($1, $2, $3)";
    conn.execute_batch("BEGIN").unwrap();
    for id in 1..=DOCUMENTS / 2 {
        let params = [
            Value::Integer(id),
            text_value(document(&mut rng, &words)),
            Value::Integer(id % 100),
        ];
        both(conn, insert, &params);
    }
    conn.execute_batch("COMMIT").unwrap();
    conn.execute_batch(&format!(
        "CREATE INDEX docs_fts ON docs USING fts (body){options}"
    ))
    .unwrap();
    conn.execute_batch("BEGIN").unwrap();
    for id in DOCUMENTS / 2 + 1..=DOCUMENTS {
        let params = [
            Value::Integer(id),
            text_value(document(&mut rng, &words)),
            Value::Integer(id % 100),
        ];
        both(conn, insert, &params);
    }
    conn.execute_batch("COMMIT").unwrap();
    both(conn, "DELETE FROM {t} WHERE id % 7 = 3", &[]);
    for id in (5..=DOCUMENTS).step_by(11) {
        let params = [Value::Integer(id), text_value(document(&mut rng, &words))];
        both(conn, "UPDATE {t} SET body = $2 WHERE id = $1", &params);
    }
}

const QUERIES: &[&str] = &[
    "data",
    "w250x",
    "w3x",
    "café",
    "cafe",
    "東京",
    "data system",
    "w1x w2x",
    "w1x OR w290x",
    "data OR system OR query",
    "\"data system\"",
    "\"query query\"",
    "w1*",
    "w29*",
    "data NOT system",
    "NOT data",
    "w5x OR NOT data",
    "(w1x OR w2x) w3x",
    "\"w1x w2x\" OR w299x",
    "nothingmatches",
    "data nothingmatches",
];

fn assert_same_answers(conn: &Connection) {
    let matching = "SELECT id FROM {t} WHERE fts_match(body, $1) ORDER BY id";
    let top = "SELECT id, bm25_score(body, $1) FROM {t} WHERE fts_match(body, $1) \
               ORDER BY 2 DESC LIMIT 10";
    // Without a tie-breaker, ties come in row order from the search and in `n` order from
    // the twin's index on n: both right, so the filtered form breaks ties by id.
    let filtered = "SELECT id, bm25_score(body, $1) AS s FROM {t} \
                    WHERE fts_match(body, $1) AND n < 30 ORDER BY s DESC, id LIMIT 7 OFFSET 3";
    let every = "SELECT id, bm25_score(body, $1) FROM {t} WHERE fts_match(body, $1) ORDER BY id";
    assert!(plan(conn, &matching.replace("{t}", "docs")).contains("Full-Text Search using"));
    assert!(plan(conn, &top.replace("{t}", "docs")).contains("Full-Text Top-K Search"));
    assert!(plan(conn, &filtered.replace("{t}", "docs")).contains("Full-Text Top-K Search"));
    assert!(plan(conn, &matching.replace("{t}", "plain")).contains("Table Scan"));
    // The top-k search hands its scores up: the projection reads them instead of calling
    // bm25_score again on each row's text (and the scan-side scores below prove them equal).
    for sql in [top, filtered] {
        let verbose = plan(conn, &format!("VERBOSE {}", sql.replace("{t}", "docs")));
        assert!(
            verbose
                .lines()
                .any(|line| line.trim() == "Output: docs.id, bm25_score"),
            "{verbose}"
        );
    }
    for query in QUERIES {
        for sql in [matching, top, filtered, every] {
            let indexed = rows(conn, &sql.replace("{t}", "docs"), query);
            let scanned = rows(conn, &sql.replace("{t}", "plain"), query);
            // Scores must agree to the bit: the index's statistics are the scan's.
            assert_eq!(indexed, scanned, "{query}: {sql}");
        }
    }
}

#[test]
fn the_index_answers_what_a_scan_answers() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    build(&conn, "");
    assert_same_answers(&conn);
    integrity(&conn);

    // Uncommitted writes are searched by their own transaction and vanish on rollback.
    let before = rows(
        &conn,
        "SELECT id FROM docs WHERE fts_match(body, $1) ORDER BY id",
        "w7x",
    );
    conn.execute_batch("BEGIN").unwrap();
    both(&conn, "DELETE FROM {t} WHERE id % 5 = 0", &[]);
    both(
        &conn,
        "UPDATE {t} SET body = 'w7x ' || body WHERE id % 13 = 1",
        &[],
    );
    both(
        &conn,
        "INSERT INTO {t} VALUES (100000, 'w7x w7x data', 1)",
        &[],
    );
    assert_same_answers(&conn);
    conn.execute_batch("ROLLBACK").unwrap();
    assert_eq!(
        rows(
            &conn,
            "SELECT id FROM docs WHERE fts_match(body, $1) ORDER BY id",
            "w7x"
        ),
        before
    );
    assert_same_answers(&conn);
    integrity(&conn);

    conn.execute_batch("VACUUM").unwrap();
    assert_same_answers(&conn);
    conn.execute_batch("REINDEX INDEX docs_fts").unwrap();
    assert_same_answers(&conn);
    integrity(&conn);
}

#[test]
fn an_analyzed_index_matches_its_own_analyzer_and_wand_equals_a_full_sort() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    build(&conn, " WITH (stemmer = english, stopwords = english)");
    let options = "stemmer = english, stopwords = english";
    for query in ["systems", "data querying", "\"the data\"", "index OR pages"] {
        let indexed = rows(
            &conn,
            "SELECT id FROM docs WHERE fts_match(body, $1) ORDER BY id",
            query,
        );
        let scanned = rows(
            &conn,
            &format!("SELECT id FROM plain WHERE fts_match(body, $1, '{options}') ORDER BY id"),
            query,
        );
        assert_eq!(indexed, scanned, "{query}");
        // The top 10 by WAND is the head of a sort of every match.
        let top = rows(
            &conn,
            "SELECT id, bm25_score(body, $1) FROM docs WHERE fts_match(body, $1) \
             ORDER BY 2 DESC LIMIT 10",
            query,
        );
        let mut all = rows(
            &conn,
            "SELECT id, bm25_score(body, $1) FROM docs WHERE fts_match(body, $1) ORDER BY id",
            query,
        );
        all.sort_by(|a, b| b.1.unwrap().total_cmp(&a.1.unwrap()).then(a.0.cmp(&b.0)));
        all.truncate(10);
        assert_eq!(top, all, "{query}");
    }
    integrity(&conn);
}

#[test]
fn what_create_index_using_fts_refuses() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT, title TEXT, n INT)")
        .unwrap();
    let code = |sql: &str| conn.execute_batch(sql).unwrap_err().sqlstate();
    assert_eq!(
        code("CREATE INDEX ON t USING fts (n)"),
        sqlstate::DATATYPE_MISMATCH
    );
    assert_eq!(
        code("CREATE UNIQUE INDEX ON t USING fts (body)"),
        sqlstate::FEATURE_NOT_SUPPORTED
    );
    assert_eq!(
        code("CREATE INDEX ON t USING fts (body) WITH (stemmer = klingon)"),
        sqlstate::INVALID_PARAMETER_VALUE
    );
    assert_eq!(
        code("CREATE INDEX ON t USING fts (body) WITH (m = 4)"),
        sqlstate::INVALID_PARAMETER_VALUE
    );
    conn.execute_batch("CREATE INDEX t_fts ON t USING fts (body) WITH (stemmer = french)")
        .unwrap();
    conn.execute_batch("INSERT INTO t VALUES (1, 'les chevaux', NULL, 1)")
        .unwrap();
    // A malformed query is 42601 through the index too.
    assert_eq!(
        conn.execute_batch("SELECT id FROM t WHERE fts_match(body, 'a OR')")
            .unwrap_err()
            .sqlstate(),
        sqlstate::SYNTAX_ERROR
    );
    conn.execute_batch("DROP INDEX t_fts").unwrap();
    integrity(&conn);
}
