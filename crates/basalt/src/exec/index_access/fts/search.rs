//! Searching a full-text index: the rows a query matches, the corpus statistics BM25 needs,
//! and the top k rows by BM25 through block-max WAND.
//!
//! What it guarantees:
//! * [`matching_rows`] is exactly the set of indexed rows whose document
//!   `types::text_search::matcher::Document::matches` the query, in row order;
//! * [`corpus_stats`] equals what a scan of the column gathers (`bm25::CorpusStats::add` over
//!   every non-NULL value);
//! * [`top_k`] returns the `k` best rows that match and that `accept` takes, ranked by score
//!   (higher first) then row id (lower first) — the order a TopN over every matching row
//!   gives, since rows reach it in row order — with scores computed by the same functions
//!   (`bm25::item_score`, `bm25::length_norm`) in the same order as the evaluator's
//!   `bm25_score`, so the same bits. A row is scored only when the bounds of the blocks it
//!   lies in could lift it above the k-th score so far; `accept` (the statement's other
//!   filters) is asked only about rows that would enter the top k.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashSet};

use crate::exec::error::ExecResult;
use crate::storage::PageRead;
use crate::types::text_search::bm25::{self, CorpusStats};
use crate::types::text_search::query::Query;

use super::read::{FtsReader, PostingList};

/// The statistics of the index's corpus for a query with `items` (`bm25::items`).
pub fn corpus_stats<S: PageRead + Clone>(
    reader: &FtsReader<S>,
    items: &[&Query],
) -> ExecResult<CorpusStats> {
    let (documents, total_length) = reader.stats()?;
    let mut item_documents = Vec::with_capacity(items.len());
    for item in items {
        item_documents.push(match item {
            Query::Term(term) => reader.term(term)?.map_or(0, |info| info.documents),
            _ => match reader.item_list(item)? {
                PostingList::Computed(list) => list.len() as u64,
                PostingList::Term(mut cursor) => cursor_len(&mut cursor)?,
            },
        });
    }
    Ok(CorpusStats {
        documents,
        total_length,
        item_documents,
    })
}

fn cursor_len<S: PageRead + Clone>(cursor: &mut super::read::TermCursor<S>) -> ExecResult<u64> {
    let mut count = 0;
    while cursor.current().is_some() {
        count += 1;
        cursor.next()?;
    }
    Ok(count)
}

/// The rows whose document matches `query`, in order.
pub fn matching_rows<S: PageRead + Clone>(
    reader: &FtsReader<S>,
    query: &Query,
) -> ExecResult<Vec<i64>> {
    let mut universe = None;
    rows_of(reader, query, &mut universe)
}

/// Every indexed row, read once per search when a NOT needs it.
fn all_rows<'u, S: PageRead + Clone>(
    reader: &FtsReader<S>,
    universe: &'u mut Option<Vec<i64>>,
) -> ExecResult<&'u [i64]> {
    if universe.is_none() {
        *universe = Some(reader.documents()?);
    }
    Ok(universe.as_deref().unwrap_or_default())
}

fn rows_of<S: PageRead + Clone>(
    reader: &FtsReader<S>,
    query: &Query,
    universe: &mut Option<Vec<i64>>,
) -> ExecResult<Vec<i64>> {
    match query {
        Query::Term(_) | Query::Prefix(_) | Query::Phrase(_) => {
            reader.item_list(query)?.drain_rows()
        }
        Query::Or(operands) => {
            let mut rows: Vec<i64> = Vec::new();
            for operand in operands {
                rows = union(&rows, &rows_of(reader, operand, universe)?);
            }
            Ok(rows)
        }
        Query::And(operands) => {
            // The positive operands intersected; each NOT operand's rows taken away.
            let mut rows: Option<Vec<i64>> = None;
            for operand in operands.iter().filter(|o| !matches!(o, Query::Not(_))) {
                let operand_rows = rows_of(reader, operand, universe)?;
                rows = Some(match rows {
                    None => operand_rows,
                    Some(rows) => intersection(&rows, &operand_rows),
                });
            }
            let mut rows = match rows {
                Some(rows) => rows,
                None => all_rows(reader, universe)?.to_vec(),
            };
            for operand in operands {
                if let Query::Not(negated) = operand {
                    rows = difference(&rows, &rows_of(reader, negated, universe)?);
                }
            }
            Ok(rows)
        }
        Query::Not(negated) => {
            let excluded = rows_of(reader, negated, universe)?;
            Ok(difference(all_rows(reader, universe)?, &excluded))
        }
    }
}

fn union(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

fn intersection(a: &[i64], b: &[i64]) -> Vec<i64> {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small
        .iter()
        .copied()
        .filter(|row| large.binary_search(row).is_ok())
        .collect()
}

fn difference(a: &[i64], b: &[i64]) -> Vec<i64> {
    a.iter()
        .copied()
        .filter(|row| b.binary_search(row).is_err())
        .collect()
}

/// The query's shape over its leaves, for checking one row at a time.
enum Shape {
    Leaf(usize),
    And(Vec<Shape>),
    Or(Vec<Shape>),
    Not(Box<Shape>),
}

fn shape<'q>(query: &'q Query, leaves: &mut Vec<&'q Query>) -> Shape {
    match query {
        Query::Term(_) | Query::Prefix(_) | Query::Phrase(_) => {
            leaves.push(query);
            Shape::Leaf(leaves.len() - 1)
        }
        Query::And(operands) => Shape::And(operands.iter().map(|o| shape(o, leaves)).collect()),
        Query::Or(operands) => Shape::Or(operands.iter().map(|o| shape(o, leaves)).collect()),
        Query::Not(operand) => Shape::Not(Box::new(shape(operand, leaves))),
    }
}

/// Whether `row` matches, each leaf's list moved up to it (rows are asked in increasing
/// order, so the lists only move forward).
fn row_matches<S: PageRead + Clone>(
    shape: &Shape,
    lists: &mut [PostingList<S>],
    row: i64,
) -> ExecResult<bool> {
    Ok(match shape {
        Shape::Leaf(leaf) => {
            let list = &mut lists[*leaf];
            list.advance_to(row)?;
            list.current().is_some_and(|p| p.row == row)
        }
        Shape::And(operands) => {
            for operand in operands {
                if !row_matches(operand, lists, row)? {
                    return Ok(false);
                }
            }
            true
        }
        Shape::Or(operands) => {
            for operand in operands {
                if row_matches(operand, lists, row)? {
                    return Ok(true);
                }
            }
            false
        }
        Shape::Not(operand) => !row_matches(operand, lists, row)?,
    })
}

/// A row in the top k: greater is better (higher score, then lower row id).
#[derive(Debug, Clone, Copy)]
struct Ranked {
    score: f64,
    row: i64,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then(other.row.cmp(&self.row))
    }
}

/// How far a bound may fall short of a score through rounding (bounds and scores are
/// summed in different orders): bounds are raised by this factor.
const BOUND_SLACK: f64 = 1.0 + 1e-9;

/// The `k` best matching rows that `accept` takes, best first (see the module doc).
pub fn top_k<S: PageRead + Clone>(
    reader: &FtsReader<S>,
    query: &Query,
    k: usize,
    mut accept: impl FnMut(i64) -> ExecResult<bool>,
    mut check_interrupt: impl FnMut() -> ExecResult<()>,
) -> ExecResult<Vec<i64>> {
    if k == 0 {
        return Ok(Vec::new());
    }
    let items = bm25::items(query);
    let stats = corpus_stats(reader, &items)?;
    let mut leaves = Vec::new();
    let shape = shape(query, &mut leaves);
    let mut membership = leaves
        .iter()
        .map(|leaf| reader.item_list(leaf))
        .collect::<ExecResult<Vec<_>>>()?;
    let mut lists = Vec::with_capacity(items.len());
    let mut idfs = Vec::with_capacity(items.len());
    let mut bounds = Vec::with_capacity(items.len());
    for (item, df) in items.iter().zip(&stats.item_documents) {
        let list = reader.item_list(item)?;
        let idf = bm25::idf(stats.documents, *df);
        let info = match item {
            Query::Term(term) => reader.term(term)?,
            _ => None,
        };
        let (max_tf, min_length) = list.list_bounds(info);
        bounds.push(bound(idf, max_tf, min_length, &stats));
        idfs.push(idf);
        lists.push(list);
    }
    let mut heap: BinaryHeap<Reverse<Ranked>> = BinaryHeap::with_capacity(k + 1);
    let mut order: Vec<usize> = (0..lists.len()).collect();
    let mut steps = 0usize;
    loop {
        steps += 1;
        if steps.is_multiple_of(4096) {
            check_interrupt()?;
        }
        order.retain(|&i| lists[i].current().is_some());
        order.sort_by_key(|&i| lists[i].current().map_or(i64::MAX, |p| p.row));
        let row_of =
            |lists: &[PostingList<S>], i: usize| lists[i].current().map_or(i64::MAX, |p| p.row);
        let threshold = (heap.len() >= k).then(|| heap.peek().map_or(0.0, |r| r.0.score));
        // The pivot: the first list where the bounds so far could beat the threshold.
        let mut sum = 0.0;
        let mut pivot = None;
        for (position, &i) in order.iter().enumerate() {
            sum += bounds[i];
            if threshold.is_none_or(|t| sum > t) {
                pivot = Some(position);
                break;
            }
        }
        let Some(pivot) = pivot else {
            break;
        };
        let pivot_row = row_of(&lists, order[pivot]);
        if row_of(&lists, order[0]) < pivot_row {
            for &i in &order[..pivot] {
                lists[i].advance_to(pivot_row)?;
            }
            continue;
        }
        let at: Vec<usize> = order
            .iter()
            .copied()
            .take_while(|&i| row_of(&lists, i) == pivot_row)
            .collect();
        if let Some(threshold) = threshold {
            // Block-max: the blocks these lists are in bound every row up to the first block
            // end (or the next list's row); if they cannot beat the threshold, skip them all.
            let mut block_sum = 0.0;
            let mut skip_to = order.get(at.len()).map_or(i64::MAX, |&i| row_of(&lists, i));
            for &i in &at {
                if let Some((max_tf, min_length, last_row)) = lists[i].block_bounds() {
                    block_sum += bound(idfs[i], max_tf, min_length, &stats);
                    skip_to = skip_to.min(last_row.saturating_add(1));
                }
            }
            if block_sum <= threshold {
                for &i in &at {
                    if skip_to > pivot_row {
                        lists[i].advance_to(skip_to)?;
                    } else {
                        lists[i].next()?;
                    }
                }
                continue;
            }
        }
        // Score the pivot row from the lists on it, in item order.
        let length = at
            .first()
            .and_then(|&i| lists[i].current())
            .map_or(0, |p| p.length as usize);
        let norm = bm25::length_norm(length, &stats);
        let score: f64 = (0..lists.len())
            .map(|i| {
                let tf = match lists[i].current() {
                    Some(p) if p.row == pivot_row => f64::from(p.tf),
                    _ => 0.0,
                };
                bm25::item_score(idfs[i], tf, norm)
            })
            .sum();
        let candidate = Ranked {
            score,
            row: pivot_row,
        };
        let enters = heap.len() < k || heap.peek().is_some_and(|worst| candidate > worst.0);
        if enters && row_matches(&shape, &mut membership, pivot_row)? && accept(pivot_row)? {
            heap.push(Reverse(candidate));
            if heap.len() > k {
                heap.pop();
            }
        }
        for &i in &at {
            lists[i].next()?;
        }
    }
    let mut ranked: Vec<Ranked> = heap.into_iter().map(|r| r.0).collect();
    ranked.sort_unstable_by(|a, b| b.cmp(a));
    let mut rows: Vec<i64> = ranked.iter().map(|r| r.row).collect();
    if rows.len() < k {
        // Matching rows without any positive item score 0 (`a OR NOT b`): they follow, in
        // row order.
        let taken: HashSet<i64> = rows.iter().copied().collect();
        for row in matching_rows(reader, query)? {
            if rows.len() >= k {
                break;
            }
            if !taken.contains(&row) && accept(row)? {
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

/// The largest score an item with this idf can give a posting with at most `max_tf`
/// occurrences in a document of at least `min_length` tokens, raised for rounding.
fn bound(idf: f64, max_tf: u32, min_length: u32, stats: &CorpusStats) -> f64 {
    let norm = bm25::length_norm(min_length as usize, stats);
    bm25::item_score(idf, f64::from(max_tf), norm) * BOUND_SLACK
}
