//! W12: hybrid retrieval — reciprocal-rank fusion of a BM25 ranking and a cosine ranking,
//! Basalt against SQLite FTS5 + sqlite-vec with the fusion done in the driver.
//!
//! The documents are W11's (`fulltext::document`: 50 to 150 words of a 20,000-word Zipf
//! vocabulary), and document `id` carries W10's row `id` as its embedding
//! ([`VectorData`]: 384-dimensional f32 from the mixture of 100 Gaussians), both from the
//! suite's seed; a document's text and its embedding are independent of each other. Every run
//! measures 1k documents; a run whose scale makes the catalogue's 100k larger than that (the
//! full run at 100k, a quick run at 5k) measures the larger corpus too.
//!
//! 100 queries, each a text and a vector: query i's text is W11's two-term OR
//! (`t{190+i} OR t{210+i}`, two mid-frequency words, the same text in both query languages)
//! and its vector is W10's query vector i. The answer is the catalogue's fusion: each
//! branch's 100 best candidates, ranked from 1 — by BM25 (ties by id) and by cosine distance —
//! each document scored Σ 0.5 / (60 + rank) over the branches that returned it, and the 10
//! best by score, ties by id:
//!
//! * Basalt: `docs(id INTEGER PRIMARY KEY, body TEXT NOT NULL, emb VECTOR(384) NOT NULL)` with
//!   `CREATE INDEX docs_fts ON docs USING fts (body)` (before the load, as in W11) and
//!   `CREATE INDEX docs_emb ON docs USING hnsw (emb vector_cosine_ops) WITH (m = 16,
//!   ef_construction = 64)` (after it, as in W10; its build time is a note), and
//!   `SET hnsw.ef_search = 100` so the vector branch can return 100 candidates. The hybrid
//!   query is docs/sql.md's long form ("Hybrid retrieval"): two ranked CTEs of 100 candidates
//!   each and a `GROUP BY` over their `UNION ALL`, one prepared statement with the text bound
//!   as `$1` and the vector as `$2`. A second metric runs the short form, `rrf(...)` over the
//!   same two branches (SQLite answers it as before, fusing in the driver).
//! * SQLite: `CREATE VIRTUAL TABLE docs_fts USING fts5(body)` and `CREATE VIRTUAL TABLE
//!   docs_vec USING vec0(emb float[384] distance_metric=cosine)`, keyed by the same rowids.
//!   Per query the driver runs FTS5's `... MATCH ?1 ORDER BY rank LIMIT 100` and sqlite-vec's
//!   KNN `... WHERE emb MATCH ?1 AND k = 100` (exact), then fuses the two in Rust
//!   ([`Fusion`]); all three are the timed query.
//!
//! Both engines get W10's 1 GiB page cache, room for the 100k corpus, its vectors and both
//! indexes. Each query is its own measurement, so the median and p95 are per-query latencies.
//!
//! The gate. The engines' fused top-10s legitimately differ — FTS5's `bm25()` uses another IDF
//! than Basalt's (see W11), and sqlite-vec searches exactly where the HNSW index is
//! approximate — so they are not compared. After each iteration's timed queries every query is
//! checked, untimed, with the engine's own statements: the two branches run on their own (the
//! BM25 top-100 and the vector top-100) and fused here must give the timed top-10, in order,
//! which checks that Basalt's one statement computes the fusion its SQL says (a difference
//! fails the metric with the query and both lists); the gated answer then holds, per query,
//! the number of matching documents (a `count(*)` of the text query: the same match sets in
//! both engines) and whether the BM25 branch had min(100, matches) distinct rows, the vector
//! branch min(100, documents) distinct rows of the table and the top-10 min(10, candidates)
//! distinct rows; and, over all queries, whether the vector branch's recall@100 against the
//! exact neighbours (W10's brute force and tie rule) is at least W10's floor for approximate
//! search. The first iteration also checks that Basalt's plan for the statement has the
//! full-text index's top-k search and the HNSW index's search (EXPLAIN).
//!
//! Reported beside the times, not gated: the vector branch's recall@100, the mean number of
//! matching documents, and the overlap@10 of Basalt's and SQLite's fused top-10s (the
//! orchestrator compares the warm-up's rankings: `overlap@10 with sqlite`).

use std::time::{Duration, Instant};

use crate::driver::{DriverKind, RowRef, RowSink, Session, Val};
use crate::model::Mode;

use super::fulltext;
use super::retrieval::{APPROXIMATE_RECALL_FLOOR, CACHE_BYTES, DIMS, VectorData};
use super::{Ctx, Group, Ids, Metric, SQLITE_ONLY, Sample, Workload, integers};

pub fn workloads() -> Vec<Workload> {
    vec![Workload {
        id: "W12.v1",
        group: Group::Retrieval,
        title: "hybrid top-10: reciprocal-rank fusion of BM25 and cosine, against FTS5 + sqlite-vec",
        drivers: SQLITE_ONLY,
        foreign_keys: false,
        sqlite_vec: true,
        cache_bytes: CACHE_BYTES,
        run: w12,
    }]
}

/// The catalogue's corpus sizes: the first in every run, the second when the run's scale
/// makes it larger than the first.
const SIZES: [(usize, &str); 2] = [(1_000, "1k"), (100_000, "100k")];
/// A smoke run's corpus: enough documents for both branches to fill their candidates.
const SMOKE_DOCUMENTS: usize = 200;
/// Candidates per branch.
const CANDIDATES: usize = 100;
/// Rows of the fused answer.
const K: usize = 10;
/// Reciprocal rank fusion's constant: a row ranked r in a branch scores weight / (60 + r).
const RRF_K: f64 = 60.0;
/// The branches' weights: BM25, then cosine.
const WEIGHTS: [f64; 2] = [0.5, 0.5];
/// The HNSW build parameters (W10's, pgvector's defaults).
const HNSW_WITH: &str = "m = 16, ef_construction = 64";

/// The corpus sizes of a run (see [`SIZES`]).
fn sizes(ctx: &Ctx<'_>) -> Vec<(usize, &'static str)> {
    if ctx.settings.mode == Mode::Smoke {
        return vec![(SMOKE_DOCUMENTS, SIZES[0].1)];
    }
    let mut sizes = vec![SIZES[0]];
    let larger = ctx.size(SIZES[1].0);
    if larger > SIZES[0].0 {
        sizes.push((larger, SIZES[1].1));
    }
    sizes
}

/// A value of a document that a loading statement binds.
#[derive(Clone, Copy, Debug)]
enum Field {
    Id,
    Body,
    Emb,
}

/// How an engine answers the hybrid query.
enum Fused {
    /// One statement, the text bound as `$1` and the vector as `$2`, returning the fused ids
    /// best first; its EXPLAIN must have a line containing each of `plan`.
    Statement {
        sql: String,
        plan: &'static [&'static str],
    },
    /// The branches' statements one after the other, fused in the driver ([`Fusion`]).
    InDriver,
}

/// One engine's SQL for the corpus.
struct HybridSql {
    schema: String,
    /// The statements that load a document, each with the values it binds, in order.
    loads: &'static [(&'static str, &'static [Field])],
    /// Built after the load (its time is a note), then the search settings.
    index: Option<String>,
    settings: Option<String>,
    /// The BM25 branch (`$1`: the text) and the vector branch (`$1`: the vector), each the
    /// ids of the best [`CANDIDATES`], best first.
    lexical: String,
    semantic: String,
    /// The number of documents matching the text (`$1`).
    matches: &'static str,
    /// The hybrid query.
    fused: Fused,
    /// The hybrid query's short form, measured as a second metric: Basalt's `rrf(...)`;
    /// SQLite answers it as it answers the long form (fused in the driver).
    short: Fused,
}

impl HybridSql {
    fn for_driver(driver: DriverKind) -> anyhow::Result<HybridSql> {
        match driver {
            DriverKind::Basalt | DriverKind::BasaltFull => Ok(HybridSql {
                schema: format!(
                    "CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL, \
                     emb VECTOR({DIMS}) NOT NULL); \
                     CREATE INDEX docs_fts ON docs USING fts (body)"
                ),
                loads: &[(
                    "INSERT INTO docs (id, body, emb) VALUES ($1, $2, $3)",
                    &[Field::Id, Field::Body, Field::Emb],
                )],
                index: Some(format!(
                    "CREATE INDEX docs_emb ON docs USING hnsw (emb vector_cosine_ops) \
                     WITH ({HNSW_WITH})"
                )),
                settings: Some(format!("SET hnsw.ef_search = {CANDIDATES}")),
                lexical: format!(
                    "SELECT id FROM docs WHERE fts_match(body, $1) \
                     ORDER BY bm25_score(body, $1) DESC, id LIMIT {CANDIDATES}"
                ),
                semantic: format!("SELECT id FROM docs ORDER BY emb <=> $1 LIMIT {CANDIDATES}"),
                matches: "SELECT count(*) FROM docs WHERE fts_match(body, $1)",
                fused: Fused::Statement {
                    sql: long_form(),
                    plan: &[
                        "Full-Text Top-K Search using docs_fts on docs",
                        "Vector Search using docs_emb on docs",
                    ],
                },
                short: Fused::Statement {
                    sql: short_form(),
                    plan: &[
                        "Rank Fusion (rrf) of 2 ranked queries",
                        "Full-Text Top-K Search using docs_fts on docs",
                        "Vector Search using docs_emb on docs",
                    ],
                },
            }),
            DriverKind::Sqlite | DriverKind::SqliteDefault => Ok(HybridSql {
                schema: format!(
                    "CREATE VIRTUAL TABLE docs_fts USING fts5(body); \
                     CREATE VIRTUAL TABLE docs_vec USING vec0(emb float[{DIMS}] \
                     distance_metric=cosine)"
                ),
                loads: &[
                    (
                        "INSERT INTO docs_fts (rowid, body) VALUES (?1, ?2)",
                        &[Field::Id, Field::Body],
                    ),
                    (
                        "INSERT INTO docs_vec (rowid, emb) VALUES (?1, ?2)",
                        &[Field::Id, Field::Emb],
                    ),
                ],
                index: None,
                settings: None,
                lexical: format!(
                    "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?1 ORDER BY rank \
                     LIMIT {CANDIDATES}"
                ),
                semantic: format!(
                    "SELECT rowid FROM docs_vec WHERE emb MATCH ?1 AND k = {CANDIDATES}"
                ),
                matches: "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?1",
                fused: Fused::InDriver,
                short: Fused::InDriver,
            }),
            DriverKind::Duckdb => anyhow::bail!("W12 has no DuckDB form"),
        }
    }
}

/// docs/sql.md's hybrid query ("Hybrid retrieval", its long form) without the example's
/// filter: the weights, the candidates per branch and the LIMIT are this workload's.
fn long_form() -> String {
    let [lexical_weight, semantic_weight] = WEIGHTS;
    format!(
        "WITH lexical AS ( \
           SELECT id, row_number() OVER (ORDER BY score DESC, id) AS r \
           FROM (SELECT id, bm25_score(body, $1) AS score FROM docs \
                 WHERE fts_match(body, $1) \
                 ORDER BY score DESC, id LIMIT {CANDIDATES}) AS best \
         ), semantic AS ( \
           SELECT id, row_number() OVER (ORDER BY distance, id) AS r \
           FROM (SELECT id, emb <=> $2 AS distance FROM docs \
                 ORDER BY emb <=> $2 LIMIT {CANDIDATES}) AS nearest \
         ) \
         SELECT id, sum(score) AS rrf FROM ( \
           SELECT id, {lexical_weight:?} / ({RRF_K} + r) AS score FROM lexical \
           UNION ALL \
           SELECT id, {semantic_weight:?} / ({RRF_K} + r) FROM semantic \
         ) AS fused \
         GROUP BY id ORDER BY rrf DESC, id LIMIT {K}"
    )
}

/// The same query through `rrf(...)` (docs/sql.md, "rrf"): the two branches as they are in
/// the long form, fused by the table function.
fn short_form() -> String {
    let [lexical_weight, semantic_weight] = WEIGHTS;
    format!(
        "SELECT id FROM rrf( \
           (SELECT id FROM docs WHERE fts_match(body, $1) \
            ORDER BY bm25_score(body, $1) DESC, id LIMIT {CANDIDATES}), \
           (SELECT id FROM docs ORDER BY emb <=> $2 LIMIT {CANDIDATES}), \
           k => {RRF_K}, weights => ({lexical_weight:?}, {semantic_weight:?})) \
         ORDER BY score DESC, id LIMIT {K}"
    )
}

/// Reciprocal rank fusion in the driver (SQLite's side, and the check of Basalt's): each id
/// scores Σ weight / (60 + rank) over the rankings that hold it, ranks from 1, in double
/// precision exactly as the SQL computes it; the best [`K`] by score, ties by id. The buffer
/// is kept between queries.
#[derive(Debug, Default)]
struct Fusion {
    scored: Vec<(i64, f64)>,
}

impl Fusion {
    /// Fuses `rankings` (ids best first; weighted by [`WEIGHTS`]) into `out`, best first.
    fn fuse(&mut self, rankings: [&[i64]; 2], out: &mut Vec<i64>) {
        self.scored.clear();
        for (ranking, weight) in rankings.iter().zip(WEIGHTS) {
            for (rank, &id) in ranking.iter().enumerate() {
                self.scored.push((id, weight / (RRF_K + (rank + 1) as f64)));
            }
        }
        // One entry per id, its scores summed (two scores add alike in either order).
        self.scored.sort_unstable_by_key(|&(id, _)| id);
        self.scored.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
        self.scored
            .sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.clear();
        out.extend(self.scored.iter().take(K).map(|&(id, _)| id));
    }
}

/// Loads `documents` documents, W11's texts with W10's vectors, in one transaction; returns
/// how long it took.
fn load(
    ctx: &Ctx<'_>,
    session: &mut dyn Session,
    sql: &HybridSql,
    vectors: &VectorData,
    documents: usize,
) -> anyhow::Result<Duration> {
    let mut vector = Vec::with_capacity(DIMS);
    fulltext::load_documents(ctx, session, &sql.schema, documents, |session, id, text| {
        vectors.row(id, &mut vector);
        for (statement, fields) in sql.loads {
            let params: Vec<Val<'_>> = fields
                .iter()
                .map(|field| match field {
                    Field::Id => Val::Int(id as i64),
                    Field::Body => Val::Text(text),
                    Field::Emb => Val::Vector(&vector),
                })
                .collect();
            session.execute(statement, &params)?;
        }
        Ok(())
    })
}

/// Collects each row's first column as text (an EXPLAIN's lines).
struct Lines(Vec<String>);

impl RowSink for Lines {
    fn row(&mut self, row: &dyn RowRef) -> anyhow::Result<()> {
        let line = match row.value(0)? {
            Val::Text(line) => line.to_string(),
            other => format!("{other:?}"),
        };
        self.0.push(line);
        Ok(())
    }
}

/// Fails unless the plan of `statement` (for `params`) has a line containing each of `want`.
fn check_plan(
    session: &mut dyn Session,
    statement: &str,
    params: &[Val<'_>],
    want: &[&str],
) -> anyhow::Result<()> {
    let mut lines = Lines(Vec::new());
    session.query(&format!("EXPLAIN {statement}"), params, &mut lines)?;
    for operator in want {
        anyhow::ensure!(
            lines.0.iter().any(|line| line.contains(operator)),
            "the hybrid query's plan has no `{operator}`:\n{}",
            lines.0.join("\n")
        );
    }
    Ok(())
}

/// What the timed queries run over: the texts, the vectors (and their exact neighbours), the
/// corpus size.
struct Queries<'a> {
    texts: &'a [String],
    vectors: &'a VectorData,
    documents: usize,
}

/// Checks every query's timed top-10 against its branches run on their own (see the module
/// comment) and digests the gated answer; returns the branches' vector rankings, for recall.
fn check_queries(
    s: &mut Sample<'_>,
    session: &mut dyn Session,
    sql: &HybridSql,
    queries: &Queries<'_>,
    fused: &[Vec<i64>],
) -> anyhow::Result<()> {
    let mut fusion = Fusion::default();
    let (mut lexical, mut expected) = (Vec::new(), Vec::new());
    let mut semantic_rankings = Vec::with_capacity(fused.len());
    let mut matched_total = 0;
    for (index, ((text, vector), top)) in queries
        .texts
        .iter()
        .zip(queries.vectors.queries())
        .zip(fused)
        .enumerate()
    {
        lexical.clear();
        session.query(&sql.lexical, &[Val::Text(text)], &mut Ids(&mut lexical))?;
        let mut semantic = Vec::with_capacity(CANDIDATES);
        session.query(
            &sql.semantic,
            &[Val::Vector(vector)],
            &mut Ids(&mut semantic),
        )?;
        fusion.fuse([&lexical, &semantic], &mut expected);
        anyhow::ensure!(
            *top == expected,
            "query {index} ({text:?}): the hybrid query returned {top:?}, but fusing its \
             branches run on their own gives {expected:?} (BM25 branch {lexical:?}, vector \
             branch {semantic:?})"
        );
        let matches = integers(session, sql.matches, &[Val::Text(text)])?[0];
        matched_total += matches;
        let candidates = distinct(&[lexical.as_slice(), &semantic].concat(), None);
        let well_formed = distinct(&lexical, None) == lexical.len()
            && lexical.len() == (matches as usize).min(CANDIDATES)
            && distinct(&semantic, Some(queries.documents)) == semantic.len()
            && semantic.len() == queries.documents.min(CANDIDATES)
            && distinct(top, Some(queries.documents)) == top.len()
            && (top.len() == K || top.len() == candidates);
        s.digest.add_values(&[
            Val::Int(index as i64),
            Val::Int(matches),
            Val::Int(i64::from(well_formed)),
        ]);
        semantic_rankings.push(semantic);
    }
    let recall = queries.vectors.recall(&semantic_rankings);
    s.digest.add_values(&[
        Val::Int(-1),
        Val::Int(0),
        Val::Int(i64::from(recall >= APPROXIMATE_RECALL_FLOOR)),
    ]);
    s.set_note(&format!("vector branch recall@{CANDIDATES}"), recall);
    s.set_note(
        "matching documents per query",
        matched_total as f64 / fused.len().max(1) as f64,
    );
    Ok(())
}

/// The number of distinct ids in `ids`, counting only ids of a table of `rows` rows when
/// given.
fn distinct(ids: &[i64], rows: Option<usize>) -> usize {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted
        .iter()
        .filter(|&&id| rows.is_none_or(|rows| id >= 1 && id <= rows as i64))
        .count()
}

/// Times the hybrid query (`fused`) once per query, then checks and digests the answers.
fn measure_hybrid(
    ctx: &mut Ctx<'_>,
    session: &mut dyn Session,
    sql: &HybridSql,
    fused: &Fused,
    queries: &Queries<'_>,
    metric: Metric,
    notes: &[(&str, f64)],
) -> anyhow::Result<()> {
    let count = queries.texts.len();
    let mut results: Vec<Vec<i64>> = vec![Vec::with_capacity(K); count];
    let mut fusion = Fusion::default();
    let (mut lexical, mut semantic) = (
        Vec::with_capacity(CANDIDATES),
        Vec::with_capacity(CANDIDATES),
    );
    ctx.measure(metric, |s: &mut Sample<'_>| {
        s.time_batches(count as u64, 1, |index, _| {
            let index = index as usize;
            let text = Val::Text(&queries.texts[index]);
            let vector = Val::Vector(&queries.vectors.queries()[index]);
            let out = &mut results[index];
            match fused {
                Fused::Statement { sql: statement, .. } => {
                    out.clear();
                    session.query(statement, &[text, vector], &mut Ids(out))
                }
                Fused::InDriver => {
                    lexical.clear();
                    session.query(&sql.lexical, &[text], &mut Ids(&mut lexical))?;
                    semantic.clear();
                    session.query(&sql.semantic, &[vector], &mut Ids(&mut semantic))?;
                    fusion.fuse([&lexical, &semantic], out);
                    Ok(())
                }
            }
        })?;
        if s.is_warmup() {
            if let Fused::Statement {
                sql: statement,
                plan,
            } = fused
            {
                let params = [
                    Val::Text(&queries.texts[0]),
                    Val::Vector(&queries.vectors.queries()[0]),
                ];
                check_plan(session, statement, &params, plan)?;
            }
            s.set_rankings(results.clone());
        }
        check_queries(s, session, sql, queries, &results)?;
        s.set_note("documents", queries.documents as f64);
        s.set_note("page cache MiB", (CACHE_BYTES >> 20) as f64);
        for &(key, value) in notes {
            s.set_note(key, value);
        }
        Ok(())
    })
}

fn w12(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let sql = HybridSql::for_driver(ctx.driver)?;
    for (documents, size) in sizes(ctx) {
        // The embeddings and query vectors, with each query's exact 100 nearest documents.
        let vectors = VectorData::nearest(ctx, documents, CANDIDATES);
        let texts: Vec<String> = (0..vectors.queries().len())
            .map(fulltext::two_term_or)
            .collect();
        let db = ctx.open(&format!("hybrid-{size}"))?;
        let mut session = db.connect()?;
        let loaded = load(ctx, session.as_mut(), &sql, &vectors, documents)?;
        let mut notes = vec![("load s", loaded.as_secs_f64())];
        if let Some(index) = &sql.index {
            let start = Instant::now();
            session.execute_batch(index)?;
            notes.push(("hnsw build s", start.elapsed().as_secs_f64()));
        }
        if let Some(settings) = &sql.settings {
            session.execute_batch(settings)?;
        }
        let queries = Queries {
            texts: &texts,
            vectors: &vectors,
            documents,
        };
        measure_hybrid(
            ctx,
            session.as_mut(),
            &sql,
            &sql.fused,
            &queries,
            Metric::new(format!("hybrid top-{K}, {size} docs"), "query"),
            &notes,
        )?;
        // The short form: Basalt's `rrf(...)`; SQLite's comparator is again the driver-side
        // fusion.
        measure_hybrid(
            ctx,
            session.as_mut(),
            &sql,
            &sql.short,
            &queries,
            Metric::new(format!("hybrid top-{K} by rrf(), {size} docs"), "query"),
            &notes,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_sums_reciprocal_ranks_and_breaks_ties_by_id() {
        let mut fusion = Fusion::default();
        let mut out = Vec::new();
        // 7 (ranks 2 and 1) and 9 (ranks 3 and 3) are in both branches and come first;
        // then 5 (rank 1 in one branch) and 8 (rank 2 in one).
        fusion.fuse([&[5, 7, 9], &[7, 8, 9]], &mut out);
        assert_eq!(out, vec![7, 9, 5, 8]);
        // Equal scores: the lower id first.
        fusion.fuse([&[4, 3], &[3, 4]], &mut out);
        assert_eq!(out, vec![3, 4]);
        fusion.fuse([&[2], &[1]], &mut out);
        assert_eq!(out, vec![1, 2]);
        // Only the best K.
        let long: Vec<i64> = (1..=50).collect();
        fusion.fuse([&long, &[]], &mut out);
        assert_eq!(out, (1..=K as i64).collect::<Vec<_>>());
    }

    #[test]
    fn the_long_form_has_the_workloads_weights_and_sizes() {
        let sql = long_form();
        assert!(
            sql.contains("SELECT id, 0.5 / (60 + r) AS score FROM lexical"),
            "{sql}"
        );
        assert!(
            sql.contains("SELECT id, 0.5 / (60 + r) FROM semantic"),
            "{sql}"
        );
        assert!(sql.contains("ORDER BY emb <=> $2 LIMIT 100"), "{sql}");
        assert!(
            sql.ends_with("GROUP BY id ORDER BY rrf DESC, id LIMIT 10"),
            "{sql}"
        );
    }

    #[test]
    fn the_short_form_has_the_same_branches_and_weights() {
        let sql = short_form();
        assert!(
            sql.contains("ORDER BY bm25_score(body, $1) DESC, id LIMIT 100)"),
            "{sql}"
        );
        assert!(sql.contains("ORDER BY emb <=> $2 LIMIT 100)"), "{sql}");
        assert!(sql.contains("k => 60, weights => (0.5, 0.5))"), "{sql}");
        assert!(sql.ends_with("ORDER BY score DESC, id LIMIT 10"), "{sql}");
    }

    #[test]
    fn distinct_counts_rows_of_the_table_once() {
        assert_eq!(distinct(&[3, 1, 3, 2], None), 3);
        assert_eq!(distinct(&[0, 1, 5, 6], Some(5)), 2);
    }
}
