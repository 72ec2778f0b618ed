//! The trigram tokenizer (`CREATE INDEX ... USING fts (body) WITH (tokenizer = trigram)`)
//! finds substrings: on a table of 12,000 documents (the index spans thousands of pages), for
//! every query the index answers exactly what a case-insensitive `LIKE '%...%'` over a twin
//! table answers, and what a scan with the same analyzer answers; the top 10 by block-max
//! WAND is the head of a sort of every match by its BM25 score; and so it stays after
//! inserts, deletes and updates through the index, a rollback and REINDEX, with the integrity
//! check agreeing with the table.

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

use basalt::{Connection, Database, Value};
use fulltext::{both, integrity, plan, rows, text_value};
use vector_search::Xorshift;

const DOCUMENTS: i64 = 12_000;
const OPTIONS: &str = "tokenizer = trigram";

/// Syllables, so that words share substrings across documents and some trigrams are in
/// most of them.
const SYLLABLES: [&str; 12] = [
    "ka", "Lo", "mi", "nu", "ri", "te", "SO", "pa", "ve", "zi", "xo", "bu",
];

/// ASCII text of 2 to 30 words of 1 to 4 syllables (mixed case, so case folding matters),
/// separated by spaces or punctuation; one in 61 is NULL.
fn document(rng: &mut Xorshift) -> Option<String> {
    if rng.next_u64().is_multiple_of(61) {
        return None;
    }
    let words = 2 + rng.next_u64() % 29;
    let mut text = String::new();
    for i in 0..words {
        if i > 0 {
            text.push_str(match rng.next_u64() % 8 {
                0 => ", ",
                1 => ". ",
                _ => " ",
            });
        }
        for _ in 0..1 + rng.next_u64() % 4 {
            let u = rng.unit();
            text.push_str(SYLLABLES[((u * u) * SYLLABLES.len() as f32) as usize]);
        }
    }
    Some(text)
}

/// `docs` (the trigram index and a B+tree index) and its twin `plain`: half the rows before
/// CREATE INDEX, half after, then deletes and updates.
fn build(conn: &Connection, rng: &mut Xorshift) {
    for table in ["docs", "plain"] {
        conn.execute_batch(&format!(
            "CREATE TABLE {table} (id INTEGER PRIMARY KEY, body TEXT, n INTEGER);
             CREATE INDEX {table}_n ON {table} (n)"
        ))
        .unwrap();
    }
    let insert = "INSERT INTO {t} VALUES ($1, $2, $3)";
    conn.execute_batch("BEGIN").unwrap();
    for id in 1..=DOCUMENTS / 2 {
        let params = [
            Value::Integer(id),
            text_value(document(rng)),
            Value::Integer(id % 100),
        ];
        both(conn, insert, &params);
    }
    conn.execute_batch("COMMIT").unwrap();
    conn.execute_batch(&format!(
        "CREATE INDEX docs_fts ON docs USING fts (body) WITH ({OPTIONS})"
    ))
    .unwrap();
    conn.execute_batch("BEGIN").unwrap();
    for id in DOCUMENTS / 2 + 1..=DOCUMENTS {
        let params = [
            Value::Integer(id),
            text_value(document(rng)),
            Value::Integer(id % 100),
        ];
        both(conn, insert, &params);
    }
    conn.execute_batch("COMMIT").unwrap();
    both(conn, "DELETE FROM {t} WHERE id % 7 = 3", &[]);
    for id in (5..=DOCUMENTS).step_by(11) {
        let params = [Value::Integer(id), text_value(document(rng))];
        both(conn, "UPDATE {t} SET body = $2 WHERE id = $1", &params);
    }
}

/// Substrings of 3 to 8 characters cut from the documents (so most match), in the case they
/// were written in or upper-cased, and some that match nothing.
fn substrings(conn: &Connection, rng: &mut Xorshift, count: usize) -> Vec<String> {
    let mut out = vec!["qqq".to_owned(), "kakakakakakaka".to_owned()];
    while out.len() < count {
        let id = 1 + (rng.next_u64() % DOCUMENTS as u64) as i64;
        let mut statement = conn
            .prepare("SELECT body FROM plain WHERE id = $1")
            .unwrap();
        let mut result = statement.query(vec![Value::Integer(id)]).unwrap();
        let Some(row) = result.next().unwrap() else {
            continue;
        };
        let Some(body) = row.get::<Option<String>>(0).unwrap() else {
            continue;
        };
        let length = 3 + (rng.next_u64() % 6) as usize;
        if body.len() < length {
            continue;
        }
        let start = (rng.next_u64() % (body.len() - length + 1) as u64) as usize;
        let cut = &body[start..start + length];
        // The query language splits words at spaces and treats `"`, `(`, `)`, `*` apart;
        // a cut with a space goes in quotes, to be matched as written.
        out.push(match (cut.contains(' '), rng.next_u64() % 3) {
            (true, _) => format!("\"{cut}\""),
            (false, 0) => cut.to_uppercase(),
            (false, _) => cut.to_owned(),
        });
    }
    out
}

/// The `LIKE` pattern a query of one substring means (quotes off, lowercased: `lower(body)`
/// is what it is matched against).
fn like_pattern(query: &str) -> String {
    format!("%{}%", query.trim_matches('"').to_lowercase())
}

fn assert_same_answers(conn: &Connection, queries: &[String]) {
    let matching = "SELECT id FROM docs WHERE fts_match(body, $1) ORDER BY id";
    let scanned =
        format!("SELECT id FROM plain WHERE fts_match(body, $1, '{OPTIONS}') ORDER BY id");
    let like = "SELECT id FROM plain WHERE lower(body) LIKE $1 ORDER BY id";
    let top = "SELECT id, bm25_score(body, $1) FROM docs WHERE fts_match(body, $1) \
               ORDER BY 2 DESC, id LIMIT 10";
    let every = "SELECT id, bm25_score(body, $1) FROM docs WHERE fts_match(body, $1) \
                 ORDER BY id";
    assert!(plan(conn, matching, "kaLo").contains("Full-Text Search using docs_fts"));
    assert!(plan(conn, top, "kaLo").contains("Full-Text Top-K Search"));
    let mut matched = 0;
    for query in queries {
        let indexed = rows(conn, matching, query);
        assert_eq!(indexed, rows(conn, &scanned, query), "{query}");
        assert_eq!(indexed, rows(conn, like, &like_pattern(query)), "{query}");
        matched += usize::from(!indexed.is_empty());
        // WAND's top 10 is the head of every match sorted by score (ties by id).
        let mut all = rows(conn, every, query);
        all.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap().then(a.0.cmp(&b.0)));
        all.truncate(10);
        assert_eq!(rows(conn, top, query), all, "{query}");
    }
    assert!(matched * 2 > queries.len(), "most queries should match");
    // Two substrings together, either, and one without the other, against LIKE.
    for pair in queries.chunks(2).take(20) {
        let [a, b] = pair else { continue };
        let (la, lb) = (like_pattern(a), like_pattern(b));
        for (query, condition) in [
            (
                format!("{a} {b}"),
                "lower(body) LIKE $2 AND lower(body) LIKE $3",
            ),
            (
                format!("{a} OR {b}"),
                "(lower(body) LIKE $2 OR lower(body) LIKE $3)",
            ),
            (
                format!("{a} NOT {b}"),
                "lower(body) LIKE $2 AND lower(body) NOT LIKE $3",
            ),
        ] {
            let mut statement = conn
                .prepare(&format!(
                    "SELECT count(*) FROM plain WHERE {condition} AND $1 = $1"
                ))
                .unwrap();
            let params = vec![
                Value::Text(query.clone()),
                Value::Text(la.clone()),
                Value::Text(lb.clone()),
            ];
            let mut result = statement.query(params).unwrap();
            let expected = result.next().unwrap().unwrap().get::<i64>(0).unwrap();
            assert_eq!(
                rows(conn, matching, &query).len() as i64,
                expected,
                "{query}"
            );
        }
    }
}

#[test]
fn a_trigram_index_finds_what_like_finds() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let mut rng = Xorshift::new(0x7419_a3c5);
    build(&conn, &mut rng);
    integrity(&conn);
    let queries = substrings(&conn, &mut rng, 60);
    assert_same_answers(&conn, &queries);

    // A rolled-back transaction leaves the index as it was; a committed one is seen.
    conn.execute_batch("BEGIN").unwrap();
    both(&conn, "DELETE FROM {t} WHERE id % 5 = 1", &[]);
    conn.execute_batch("ROLLBACK").unwrap();
    assert_same_answers(&conn, &queries[..20]);
    conn.execute_batch("BEGIN").unwrap();
    for id in DOCUMENTS + 1..=DOCUMENTS + 500 {
        let params = [
            Value::Integer(id),
            text_value(document(&mut rng)),
            Value::Integer(id % 100),
        ];
        both(&conn, "INSERT INTO {t} VALUES ($1, $2, $3)", &params);
    }
    both(&conn, "DELETE FROM {t} WHERE id % 13 = 4", &[]);
    conn.execute_batch("COMMIT").unwrap();
    integrity(&conn);
    assert_same_answers(&conn, &queries);

    conn.execute_batch("REINDEX docs_fts").unwrap();
    integrity(&conn);
    assert_same_answers(&conn, &queries[..20]);
}

#[test]
fn trigram_queries_highlight_substrings_and_short_words_drop_out() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT);
         CREATE INDEX t_fts ON t USING fts (body) WITH (tokenizer = trigram);
         INSERT INTO t VALUES (1, 'The Café au lait'), (2, 'caffeine'), (3, 'aaaa'),
                              (4, 'au'), (5, NULL)",
    )
    .unwrap();
    let ids = |query: &str| -> Vec<i64> {
        rows(
            &conn,
            "SELECT id FROM t WHERE fts_match(body, $1) ORDER BY id",
            query,
        )
        .into_iter()
        .map(|(id, _)| id)
        .collect()
    };
    assert_eq!(ids("caf"), [1, 2]);
    assert_eq!(ids("CAFE"), [1]);
    assert_eq!(ids("cafe*"), [1]);
    assert_eq!(ids("\"e au l\""), [1]);
    assert_eq!(ids("aaa"), [3]);
    // Shorter than a trigram: left out, so `au` alone matches nothing, `au caf` is `caf`.
    assert_eq!(ids("au"), Vec::<i64>::new());
    assert_eq!(ids("au caf"), [1, 2]);
    assert_eq!(ids("caf NOT ein"), [1]);
    let mut statement = conn
        .prepare(
            "SELECT fts_highlight(body, $1, '[', ']', 'tokenizer = trigram') FROM t \
             WHERE id = $2",
        )
        .unwrap();
    let mut highlight = |query: &str, id: i64| -> String {
        let mut result = statement
            .query(vec![Value::Text(query.into()), Value::Integer(id)])
            .unwrap();
        result.next().unwrap().unwrap().get::<String>(0).unwrap()
    };
    assert_eq!(highlight("cafe", 1), "The [Café] au lait");
    assert_eq!(highlight("afé AU", 1), "The C[afé] au lait");
    // Overlapping matches are marked once.
    assert_eq!(highlight("aaa", 3), "[aaaa]");
}
