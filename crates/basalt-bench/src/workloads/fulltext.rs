//! W11: BM25 top-10 over synthetic documents, Basalt against SQLite FTS5.
//!
//! The corpus: documents of 50 to 150 words drawn from a vocabulary of 20,000 words (`t0`,
//! `t1`, ...) with Zipf's distribution (the word of rank r with weight 1 / (r + 1)), from the
//! suite's seed, so `t0` is in nearly every document and `t9500` in about one in a thousand.
//! Words are lowercase letters and digits separated by spaces and full stops, which Basalt's
//! Unicode word segmentation and FTS5's `unicode61` tokenizer split alike. Every run measures
//! 1k and 10k documents; the full run also 100k.
//!
//! Six query classes, five queries each (neighbouring ranks, so the five are alike): a rare
//! term (rank ≈ 9,500, in ≈ 0.1% of documents), a mid-frequency term (rank ≈ 190, ≈ 5%), a
//! very common term (ranks 0–4, 85–100%), two mid terms with AND, two with OR, and a phrase of
//! two common words (ranks 1–6, ≈ 10%). Each engine answers top-10 by its BM25:
//!
//! * Basalt: `SELECT id FROM docs WHERE fts_match(body, $1) ORDER BY bm25_score(body, $1)
//!   DESC, id LIMIT 10` over `CREATE INDEX docs_fts ON docs USING fts (body)` (v1 had no
//!   index: every query read every document);
//! * SQLite: `SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY rank LIMIT 10` on
//!   `CREATE VIRTUAL TABLE docs USING fts5(body)`.
//!
//! Both indexes exist before the rows go in, so the load (one transaction; its time is a
//! note) maintains them row by row. Three more metrics per corpus size, each one timed pass:
//! the index built afresh over the loaded rows (Basalt: DROP INDEX, then CREATE INDEX, the
//! CREATE timed; FTS5: its `rebuild` command), with the database's bytes on disk after a
//! checkpoint as a note (table and index together, as FTS5 keeps them); and single-row
//! inserts of new 50–150-word documents (100 on average), 200 of them in one transaction
//! that is then rolled back, each INSERT one operation. Both engines keep a transaction's
//! new postings in memory until commit (FTS5's pending-terms table, Basalt's put-off
//! documents), so that metric leaves the index writes out; v3 added the one that counts them:
//! the same 200 inserts and their COMMIT timed together, per insert (the rows are deleted
//! again, untimed, after each pass).
//!
//! The gate: the same matching documents. After the timed queries of an iteration, each
//! query's full match set is read (untimed) and digested with the number of rows its top-10
//! returned. The top-10s themselves are not compared: FTS5's `bm25()` uses the classic IDF,
//! `ln((N − df + 0.5) / (df + 0.5))` (clamped near zero for terms in more than half the
//! documents), Basalt Lucene's `ln(1 + (N − df + 0.5) / (df + 0.5))`; for one term the
//! orders agree up to ties, for several they may not.

use crate::digest::Digest;
use crate::driver::{DriverKind, Session, Val};
use crate::model::Mode;

use super::{Ctx, Group, Ids, Metric, SQLITE_ONLY, Sample, Workload};

pub fn workloads() -> Vec<Workload> {
    vec![Workload {
        id: "W11.v3",
        group: Group::Retrieval,
        title: "BM25 top-10 over synthetic documents, against SQLite FTS5",
        drivers: SQLITE_ONLY,
        foreign_keys: false,
        sqlite_vec: false,
        cache_bytes: crate::driver::CACHE_BYTES,
        run: w11,
    }]
}

/// The catalogue's corpus sizes: the first two in every run (scaled only in smoke runs), the
/// third when the run's scale makes it larger than the second (the full run).
const SIZES: [(usize, &str); 3] = [(1_000, "1k"), (10_000, "10k"), (100_000, "100k")];
const VOCABULARY: usize = 20_000;
const SHORTEST: u64 = 50;
const LONGEST: u64 = 150;
const QUERIES_PER_CLASS: usize = 5;
const K: usize = 10;

/// A query class: its name, and the text of its `i`-th query.
type QueryClass = (&'static str, fn(usize) -> String);

/// The query classes.
const CLASSES: [QueryClass; 6] = [
    ("rare term", |i| word(9_500 + i)),
    ("mid-frequency term", |i| word(190 + i)),
    ("very common term", word),
    ("two-term AND", |i| {
        format!("{} {}", word(190 + i), word(200 + i))
    }),
    ("two-term OR", two_term_or),
    ("phrase", |i| format!("\"{} {}\"", word(1 + i), word(2 + i))),
];

/// The word of rank `rank`.
fn word(rank: usize) -> String {
    format!("t{rank}")
}

/// The `i`-th query of two mid-frequency terms with OR (`t190 OR t210`, `t191 OR t211`, ...),
/// the same text in FTS5's and Basalt's query languages; W12 takes its text queries from here.
pub(crate) fn two_term_or(i: usize) -> String {
    format!("{} OR {}", word(190 + i), word(210 + i))
}

/// The corpus sizes of a run (see [`SIZES`]).
fn sizes(ctx: &Ctx<'_>) -> Vec<(usize, &'static str)> {
    if ctx.settings.mode == Mode::Smoke {
        return vec![(ctx.size(SIZES[0].0), SIZES[0].1)];
    }
    let mut sizes = vec![SIZES[0], SIZES[1]];
    let largest = ctx.size(SIZES[2].0);
    if largest > SIZES[1].0 {
        sizes.push((largest, SIZES[2].1));
    }
    sizes
}

/// The Zipf distribution's cumulative weights, for drawing ranks by binary search.
struct Zipf(Vec<f64>);

impl Zipf {
    fn new(words: usize) -> Zipf {
        let mut total = 0.0;
        let cumulative = (0..words)
            .map(|rank| {
                total += 1.0 / (rank as f64 + 1.0);
                total
            })
            .collect::<Vec<f64>>();
        Zipf(cumulative.iter().map(|c| c / total).collect())
    }

    /// The rank a uniform draw `u` in [0, 1) falls on.
    fn rank(&self, u: f64) -> usize {
        self.0
            .partition_point(|c| *c <= u)
            .min(self.0.len().saturating_sub(1))
    }
}

/// Document `id` (from 1): its words, with a full stop after every twelfth.
fn document(zipf: &Zipf, seed: u64, id: u64, out: &mut String) {
    let mut rng = crate::data::Rng::for_item(seed, "w11-document", id);
    let length = SHORTEST + rng.below(LONGEST - SHORTEST + 1);
    out.clear();
    for index in 0..length {
        if index > 0 {
            out.push_str(if index % 12 == 0 { ". " } else { " " });
        }
        out.push_str(&word(zipf.rank(rng.unit())));
    }
    out.push('.');
}

/// One engine's SQL for the corpus.
struct TextSql {
    schema: &'static str,
    insert: &'static str,
    /// Deletes the rows from id `$1` on (what the committed inserts added).
    delete_from: &'static str,
    top_k: String,
    matches: &'static str,
    /// Builds the index afresh over the rows (timed), after `before_rebuild` (untimed).
    rebuild: &'static str,
    before_rebuild: Option<&'static str>,
}

impl TextSql {
    fn for_driver(driver: DriverKind) -> anyhow::Result<TextSql> {
        match driver {
            DriverKind::Basalt | DriverKind::BasaltFull => Ok(TextSql {
                schema: "CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL); \
                         CREATE INDEX docs_fts ON docs USING fts (body)",
                rebuild: "CREATE INDEX docs_fts ON docs USING fts (body)",
                before_rebuild: Some("DROP INDEX docs_fts"),
                insert: "INSERT INTO docs (id, body) VALUES ($1, $2)",
                delete_from: "DELETE FROM docs WHERE id >= $1",
                top_k: format!(
                    "SELECT id FROM docs WHERE fts_match(body, $1) \
                     ORDER BY bm25_score(body, $1) DESC, id LIMIT {K}"
                ),
                matches: "SELECT id FROM docs WHERE fts_match(body, $1) ORDER BY id",
            }),
            DriverKind::Sqlite | DriverKind::SqliteDefault => Ok(TextSql {
                schema: "CREATE VIRTUAL TABLE docs USING fts5(body)",
                rebuild: "INSERT INTO docs(docs) VALUES ('rebuild')",
                before_rebuild: None,
                insert: "INSERT INTO docs (rowid, body) VALUES (?1, ?2)",
                delete_from: "DELETE FROM docs WHERE rowid >= ?1",
                top_k: format!(
                    "SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY rank LIMIT {K}"
                ),
                matches: "SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY rowid",
            }),
            DriverKind::Duckdb => anyhow::bail!("W11 has no DuckDB form"),
        }
    }
}

/// Loads `documents` documents in one transaction; returns how long it took (for FTS5, the
/// index is built as the rows go in).
fn load(
    ctx: &Ctx<'_>,
    session: &mut dyn Session,
    sql: &TextSql,
    documents: usize,
) -> anyhow::Result<std::time::Duration> {
    load_documents(ctx, session, sql.schema, documents, |session, id, text| {
        session.execute(sql.insert, &[Val::Int(id as i64), Val::Text(text)])?;
        Ok(())
    })
}

/// Creates `schema`, then inserts documents 1 to `documents` in one transaction, each through
/// `insert` (given the session, the id and the text); returns how long it all took. W12 loads
/// its documents, with their embeddings, through here too.
pub(crate) fn load_documents(
    ctx: &Ctx<'_>,
    session: &mut dyn Session,
    schema: &str,
    documents: usize,
    mut insert: impl FnMut(&mut dyn Session, u64, &str) -> anyhow::Result<()>,
) -> anyhow::Result<std::time::Duration> {
    let start = std::time::Instant::now();
    let zipf = Zipf::new(VOCABULARY);
    session.execute_batch(schema)?;
    session.execute_batch("BEGIN")?;
    let mut text = String::new();
    for id in 1..=documents as u64 {
        document(&zipf, ctx.seed(), id, &mut text);
        insert(session, id, &text)?;
    }
    session.execute_batch("COMMIT")?;
    Ok(start.elapsed())
}

/// Times the class's queries (one measurement each), then digests each query's match set.
fn measure_class(
    ctx: &mut Ctx<'_>,
    session: &mut dyn Session,
    sql: &TextSql,
    metric: Metric,
    queries: &[String],
    notes: &[(&str, f64)],
) -> anyhow::Result<()> {
    let mut results: Vec<Vec<i64>> = vec![Vec::with_capacity(K); queries.len()];
    ctx.measure(metric, |s: &mut Sample<'_>| {
        s.time_batches(queries.len() as u64, 1, |index, _| {
            let ids = &mut results[index as usize];
            ids.clear();
            session.query(
                &sql.top_k,
                &[Val::Text(&queries[index as usize])],
                &mut Ids(ids),
            )
        })?;
        let mut matched_total = 0usize;
        for (index, (query, top)) in queries.iter().zip(&results).enumerate() {
            let mut matched = Vec::new();
            session.query(sql.matches, &[Val::Text(query)], &mut Ids(&mut matched))?;
            digest_matches(&mut s.digest, index, top, &matched);
            matched_total += matched.len();
        }
        s.set_note(
            "matching documents per query",
            matched_total as f64 / queries.len() as f64,
        );
        for &(key, value) in notes {
            s.set_note(key, value);
        }
        Ok(())
    })
}

/// A query's gated answer: its index, its match set, and whether its top-10 is the right
/// size and drawn from the match set.
fn digest_matches(digest: &mut Digest, query: usize, top: &[i64], matched: &[i64]) {
    for id in matched {
        digest.add_values(&[Val::Int(query as i64), Val::Int(*id)]);
    }
    let from_matches = top.iter().all(|id| matched.binary_search(id).is_ok());
    let sized = top.len() == matched.len().min(K);
    digest.add_values(&[
        Val::Int(query as i64),
        Val::Int(-1),
        Val::Int(i64::from(from_matches && sized)),
    ]);
}

fn w11(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let sql = TextSql::for_driver(ctx.driver)?;
    for (documents, size) in sizes(ctx) {
        let db = ctx.open(&format!("documents-{size}"))?;
        let mut session = db.connect()?;
        let loaded = load(ctx, session.as_mut(), &sql, documents)?;
        let notes = [
            ("documents", documents as f64),
            ("load s", loaded.as_secs_f64()),
        ];
        for (class, query) in CLASSES {
            let queries: Vec<String> = (0..QUERIES_PER_CLASS).map(query).collect();
            let mut metric =
                Metric::new(format!("BM25 top-{K}, {class}, {size} documents"), "query");
            if documents > SIZES[1].0 {
                metric = metric.at_most(5);
            }
            measure_class(ctx, session.as_mut(), &sql, metric, &queries, &notes)?;
        }
        measure_rebuild(ctx, db.as_ref(), session.as_mut(), &sql, size)?;
        measure_inserts(ctx, session.as_mut(), &sql, documents, size)?;
        measure_committed_inserts(ctx, session.as_mut(), &sql, documents, size)?;
    }
    Ok(())
}

/// The index built afresh over the loaded rows, once; the gate: one query's match count
/// afterwards.
fn measure_rebuild(
    ctx: &mut Ctx<'_>,
    db: &dyn crate::driver::Db,
    session: &mut dyn Session,
    sql: &TextSql,
    size: &str,
) -> anyhow::Result<()> {
    let metric = Metric::new(format!("index build, {size} documents"), "build").once();
    ctx.measure(metric, |s: &mut Sample<'_>| {
        if let Some(before) = sql.before_rebuild {
            session.execute_batch(before)?;
        }
        s.time(1, |_| session.execute_batch(sql.rebuild))?;
        let mut matched = Vec::new();
        session.query(
            sql.matches,
            &[Val::Text(&word(190))],
            &mut Ids(&mut matched),
        )?;
        s.digest.add_values(&[Val::Int(matched.len() as i64)]);
        if let Some(bytes) = db.file_bytes()? {
            s.set_note("database bytes", bytes as f64);
        }
        Ok(())
    })
}

/// The documents the insert metrics add: [`INSERTS`] of them, the same in every iteration
/// and for every engine.
fn new_documents(seed: u64) -> Vec<String> {
    let zipf = Zipf::new(VOCABULARY);
    (0..INSERTS)
        .map(|i| {
            let mut text = String::new();
            document(&zipf, seed ^ 0x1a5e, i, &mut text);
            text
        })
        .collect()
}

/// Inserts one new document (an insert metric's operation), digesting the rows it changed.
fn insert_document(
    session: &mut dyn Session,
    sql: &TextSql,
    id: i64,
    text: &str,
    digest: &mut Digest,
) -> anyhow::Result<()> {
    let changed = session.execute(sql.insert, &[Val::Int(id), Val::Text(text)])?;
    digest.add_values(&[Val::Int(changed as i64)]);
    Ok(())
}

/// The inserts per transaction of the insert metrics.
const INSERTS: u64 = 200;

/// New documents inserted one statement at a time, in a transaction rolled back after each
/// iteration.
fn measure_inserts(
    ctx: &mut Ctx<'_>,
    session: &mut dyn Session,
    sql: &TextSql,
    documents: usize,
    size: &str,
) -> anyhow::Result<()> {
    let metric = Metric::new(
        format!("single-row insert, 100-word document, {size} documents"),
        "insert",
    )
    .at_most(3);
    let seed = ctx.seed();
    ctx.measure(metric, |s: &mut Sample<'_>| {
        let texts = new_documents(seed);
        session.execute_batch("BEGIN")?;
        let first = documents as i64 + 1;
        s.time_batches(INSERTS, 20, |i, digest| {
            insert_document(session, sql, first + i as i64, &texts[i as usize], digest)
        })?;
        session.execute_batch("ROLLBACK")?;
        Ok(())
    })
}

/// The new documents of [`measure_inserts`], inserted one statement at a time and committed,
/// the commit timed with them; deleted again (untimed) after each pass.
fn measure_committed_inserts(
    ctx: &mut Ctx<'_>,
    session: &mut dyn Session,
    sql: &TextSql,
    documents: usize,
    size: &str,
) -> anyhow::Result<()> {
    let metric = Metric::new(
        format!("single-row insert with its commit, 200 per transaction, {size} documents"),
        "insert",
    )
    .at_most(3);
    let seed = ctx.seed();
    ctx.measure(metric, |s: &mut Sample<'_>| {
        let texts = new_documents(seed);
        let first = documents as i64 + 1;
        s.time(INSERTS, |digest| {
            session.execute_batch("BEGIN")?;
            for (i, text) in texts.iter().enumerate() {
                insert_document(session, sql, first + i as i64, text, digest)?;
            }
            session.execute_batch("COMMIT")?;
            Ok(())
        })?;
        let deleted = session.execute(sql.delete_from, &[Val::Int(first)])?;
        s.digest.add_values(&[Val::Int(deleted as i64)]);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    /// The classes have the frequencies the module comment gives them, on 2,000 documents.
    #[test]
    fn the_corpus_has_the_intended_frequencies() {
        let zipf = Zipf::new(VOCABULARY);
        let mut text = String::new();
        let documents: Vec<Vec<String>> = (1..=2_000)
            .map(|id| {
                document(&zipf, 42, id, &mut text);
                text.split(|c: char| !c.is_ascii_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .collect();
        let share = |word: &str| {
            documents
                .iter()
                .filter(|d| d.iter().any(|w| w == word))
                .count() as f64
                / 2_000.0
        };
        assert!(share("t0") > 0.99, "t0 in {}", share("t0"));
        let mid = share("t190");
        assert!((0.02..0.10).contains(&mid), "t190 in {mid}");
        assert!(share("t9500") < 0.01);
        for words in &documents {
            assert!((SHORTEST as usize..=LONGEST as usize).contains(&words.len()));
        }
    }

    #[test]
    fn a_top_k_outside_the_matches_is_refused() {
        let answer = |top: &[i64]| {
            let mut digest = Digest::unordered();
            digest_matches(&mut digest, 0, top, &[1, 2, 3]);
            digest.answer()
        };
        assert_eq!(answer(&[3, 1, 2]), answer(&[1, 2, 3]));
        assert_ne!(answer(&[1, 2, 4]), answer(&[1, 2, 3]));
        assert_ne!(answer(&[1, 2]), answer(&[1, 2, 3]));
    }
}
