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

use super::format::Impacts;
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
            // A prefix's or phrase's list is computed, its length the count.
            _ => match reader.item_list(item)? {
                PostingList::Computed(list) => list.len() as u64,
                PostingList::Term(_) => 0,
            },
        });
    }
    Ok(CorpusStats {
        documents,
        total_length,
        item_documents,
    })
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

/// How a row found in the item lists is known to match the whole query.
enum Matching {
    /// Every row in any list matches: one item, or an OR of items.
    AnyList,
    /// A row matches when it is in every list: an AND of items.
    EveryList,
    /// Anything with a NOT or nesting: checked against lists of every leaf.
    Checked(Shape),
}

/// The query's matching rule (see [`Matching`]); for `Checked`, the leaves.
fn matching<'q>(query: &'q Query, leaves: &mut Vec<&'q Query>) -> Matching {
    let is_item = |q: &Query| matches!(q, Query::Term(_) | Query::Prefix(_) | Query::Phrase(_));
    match query {
        q if is_item(q) => Matching::AnyList,
        Query::Or(operands) if operands.iter().all(is_item) => Matching::AnyList,
        Query::And(operands) if operands.iter().all(is_item) => Matching::EveryList,
        _ => Matching::Checked(shape(query, leaves)),
    }
}

/// The `k` best matching rows that `accept` takes, best first (see the module doc), each with
/// its score (bit for bit what `bm25_score` computes), and the corpus statistics they were
/// scored with.
pub fn top_k<S: PageRead + Clone>(
    reader: &FtsReader<S>,
    query: &Query,
    k: usize,
    mut accept: impl FnMut(i64) -> ExecResult<bool>,
    mut check_interrupt: impl FnMut() -> ExecResult<()>,
) -> ExecResult<(Vec<(i64, f64)>, CorpusStats)> {
    let items = bm25::items(query);
    // Each item's list once: a prefix's or phrase's document count is its list's length.
    let (documents, total_length) = reader.stats()?;
    let mut lists = Vec::with_capacity(items.len());
    let mut item_documents = Vec::with_capacity(items.len());
    let mut infos = Vec::with_capacity(items.len());
    for item in &items {
        let list = reader.item_list(item)?;
        let info = match item {
            Query::Term(term) => reader.term(term)?,
            _ => None,
        };
        item_documents.push(match &list {
            PostingList::Computed(computed) => computed.len() as u64,
            PostingList::Term(_) => info.map_or(0, |info| info.documents),
        });
        infos.push(info);
        lists.push(list);
    }
    let stats = CorpusStats {
        documents,
        total_length,
        item_documents,
    };
    if k == 0 {
        return Ok((Vec::new(), stats));
    }
    let mut leaves = Vec::new();
    let mut rule = matching(query, &mut leaves);
    let mut membership = Vec::new();
    if let Matching::Checked(_) = rule {
        for leaf in &leaves {
            // A leaf that is one of the items reuses its computed list; terms reopen.
            let computed = items.iter().position(|item| std::ptr::eq(*item, *leaf));
            membership.push(match computed.map(|i| &lists[i]) {
                Some(PostingList::Computed(list)) => PostingList::Computed(list.clone()),
                _ => reader.item_list(leaf)?,
            });
        }
    }
    let idfs: Vec<f64> = stats
        .item_documents
        .iter()
        .map(|df| bm25::idf(stats.documents, *df))
        .collect();
    let bounds: Vec<f64> = lists
        .iter()
        .zip(&infos)
        .zip(&idfs)
        .map(|((list, info), idf)| {
            let (max_tf, min_length) = list.list_bounds(*info);
            bound(*idf, max_tf, min_length, &stats)
        })
        .collect();
    let mut ranking = Ranking {
        norms: Norms::new(&stats),
        k,
        heap: BinaryHeap::with_capacity(k + 1),
        accept: &mut accept,
        check_interrupt: &mut check_interrupt,
    };
    if let ([list], Matching::AnyList) = (lists.as_mut_slice(), &rule) {
        one_list(list, idfs[0], &mut ranking)?;
    } else {
        many_lists(
            &mut lists,
            (&idfs, &bounds),
            (&mut rule, &mut membership),
            &mut ranking,
        )?;
    }
    let mut ranked: Vec<Ranked> = ranking.heap.into_iter().map(|r| r.0).collect();
    ranked.sort_unstable_by(|a, b| b.cmp(a));
    let mut rows: Vec<(i64, f64)> = ranked.iter().map(|r| (r.row, r.score)).collect();
    if rows.len() < k {
        // Matching rows without any positive item score 0 (`a OR NOT b`): they follow, in
        // row order.
        let taken: HashSet<i64> = rows.iter().map(|(row, _)| *row).collect();
        for row in matching_rows(reader, query)? {
            if rows.len() >= k {
                break;
            }
            if !taken.contains(&row) && accept(row)? {
                rows.push((row, 0.0));
            }
        }
    }
    Ok((rows, stats))
}

/// Length normalizations by document length, each computed once per search
/// (`bm25::length_norm`, so the same bits).
struct Norms<'s> {
    stats: &'s CorpusStats,
    by_length: Vec<f64>,
}

impl<'s> Norms<'s> {
    fn new(stats: &'s CorpusStats) -> Norms<'s> {
        Norms {
            stats,
            by_length: Vec::new(),
        }
    }

    fn of(&mut self, length: u32) -> f64 {
        let index = length as usize;
        if index >= 4096 {
            return bm25::length_norm(index, self.stats);
        }
        if index >= self.by_length.len() {
            let start = self.by_length.len();
            self.by_length
                .extend((start..=index).map(|l| bm25::length_norm(l, self.stats)));
        }
        self.by_length[index]
    }
}

/// The state a top-k search carries through its lists: the best `k` rows so far (a heap,
/// worst on top), the length normalizations, the caller's filter and its interrupt check.
struct Ranking<'s, A, C> {
    norms: Norms<'s>,
    k: usize,
    heap: BinaryHeap<Reverse<Ranked>>,
    accept: A,
    check_interrupt: C,
}

impl<A, C> Ranking<'_, A, C>
where
    A: FnMut(i64) -> ExecResult<bool>,
    C: FnMut() -> ExecResult<()>,
{
    /// The score a row must beat to enter, once `k` rows are in.
    fn threshold(&self) -> Option<f64> {
        (self.heap.len() >= self.k).then(|| self.heap.peek().map_or(0.0, |r| r.0.score))
    }

    /// Whether `candidate` would enter: there is room, or it beats the worst.
    fn would_enter(&self, candidate: Ranked) -> bool {
        self.heap.len() < self.k || self.heap.peek().is_some_and(|worst| candidate > worst.0)
    }

    /// Offers a scored row: it enters when it would and the filter takes it.
    fn offer(&mut self, candidate: Ranked) -> ExecResult<()> {
        if self.would_enter(candidate) && (self.accept)(candidate.row)? {
            self.heap.push(Reverse(candidate));
            if self.heap.len() > self.k {
                self.heap.pop();
            }
        }
        Ok(())
    }

    /// The best score any posting of a block with `impacts` can give, for an item of `idf`
    /// (raised for rounding, as [`bound`]; the length normalizations come from the cache).
    fn block_bound(&mut self, impacts: &Impacts, idf: f64) -> f64 {
        let mut best = 0.0;
        for &(tf, length) in impacts.points() {
            let norm = self.norms.of(length);
            best = f64::max(
                best,
                bm25::item_score(idf, f64::from(tf), norm) * BOUND_SLACK,
            );
        }
        best
    }

    /// Whether some posting of a block with `impacts` could score above `threshold` for an
    /// item of `idf`: [`Ranking::block_bound`] `> threshold` without its divisions
    /// ([`may_beat`] per impact point). One search over a very common term asks this of
    /// every block header it passes.
    fn block_may_beat(&mut self, impacts: &Impacts, idf: f64, threshold: f64) -> bool {
        impacts
            .points()
            .iter()
            .any(|&(tf, length)| may_beat(idf, f64::from(tf), self.norms.of(length), threshold))
    }
}

/// The top k of one list whose every row matches: block by block, a block skipped unread
/// when its impacts cannot beat the k-th score so far.
fn one_list<S, A, C>(
    list: &mut PostingList<S>,
    idf: f64,
    ranking: &mut Ranking<'_, A, C>,
) -> ExecResult<()>
where
    S: PageRead + Clone,
    A: FnMut(i64) -> ExecResult<bool>,
    C: FnMut() -> ExecResult<()>,
{
    let mut blocks = 0usize;
    while list.row_bound().is_some() {
        blocks += 1;
        if blocks.is_multiple_of(64) {
            (ranking.check_interrupt)()?;
        }
        let Some((impacts, last_row)) = list.block_bounds() else {
            break;
        };
        if let Some(threshold) = ranking.threshold()
            && !ranking.block_may_beat(&impacts, idf, threshold)
        {
            if last_row == i64::MAX {
                break;
            }
            list.advance_shallow(last_row + 1)?;
            continue;
        }
        list.settle()?;
        // Once k rows are in, a posting is scored only when its bound (without a division)
        // could beat the k-th score: most postings of a block that may hold one good row
        // cannot.
        let threshold = ranking.threshold();
        while let Some(posting) = list.current() {
            let tf = f64::from(posting.tf);
            let norm = ranking.norms.of(posting.length);
            let row = posting.row;
            if threshold.is_none_or(|t| may_beat(idf, tf, norm, t)) {
                // Summed as the evaluator sums a one-item query, for the same bits.
                let score = [bm25::item_score(idf, tf, norm)].into_iter().sum();
                ranking.offer(Ranked { score, row })?;
            }
            if row >= last_row {
                // The block is done: the next one is judged by its header first.
                if row == i64::MAX {
                    return Ok(());
                }
                list.advance_shallow(row + 1)?;
                break;
            }
            list.next()?;
        }
    }
    Ok(())
}

/// The top k over several lists: WAND by the lists' bounds, block-max by their blocks'.
fn many_lists<S, A, C>(
    lists: &mut [PostingList<S>],
    (idfs, bounds): (&[f64], &[f64]),
    (rule, membership): (&mut Matching, &mut [PostingList<S>]),
    ranking: &mut Ranking<'_, A, C>,
) -> ExecResult<()>
where
    S: PageRead + Clone,
    A: FnMut(i64) -> ExecResult<bool>,
    C: FnMut() -> ExecResult<()>,
{
    let mut order: Vec<usize> = (0..lists.len()).collect();
    let mut at: Vec<usize> = Vec::with_capacity(lists.len());
    let mut steps = 0usize;
    loop {
        steps += 1;
        if steps.is_multiple_of(4096) {
            (ranking.check_interrupt)()?;
        }
        // Rows are lower bounds until a block is decoded (`settle`): a list skipped by its
        // block bounds is never decoded.
        order.retain(|&i| lists[i].row_bound().is_some());
        order.sort_by_key(|&i| lists[i].row_bound().unwrap_or(i64::MAX));
        let row_of = |lists: &[PostingList<S>], i: usize| lists[i].row_bound().unwrap_or(i64::MAX);
        let threshold = ranking.threshold();
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
        let pivot_row = row_of(lists, order[pivot]);
        if row_of(lists, order[0]) < pivot_row {
            for &i in &order[..pivot] {
                lists[i].advance_shallow(pivot_row)?;
            }
            continue;
        }
        at.clear();
        at.extend(
            order
                .iter()
                .copied()
                .take_while(|&i| row_of(lists, i) == pivot_row),
        );
        if let Some(threshold) = threshold {
            // Block-max: the blocks these lists are in bound every row up to the first block
            // end (or the next list's row); if they cannot beat the threshold, skip them all.
            let mut block_sum = 0.0;
            let mut skip_to = order.get(at.len()).map_or(i64::MAX, |&i| row_of(lists, i));
            for &i in &at {
                if let Some((impacts, last_row)) = lists[i].block_bounds() {
                    block_sum += ranking.block_bound(&impacts, idfs[i]);
                    skip_to = skip_to.min(last_row.saturating_add(1));
                }
            }
            if block_sum <= threshold {
                for &i in &at {
                    if skip_to > pivot_row {
                        lists[i].advance_shallow(skip_to)?;
                    } else {
                        lists[i].next()?;
                    }
                }
                continue;
            }
        }
        // The row may be scored: decode the lists' blocks; a list whose posting lies past
        // the bound it stood at sends the search round again.
        let mut moved = false;
        for &i in &at {
            lists[i].settle()?;
            moved |= lists[i].current().is_none_or(|p| p.row != pivot_row);
        }
        if moved {
            continue;
        }
        // Score the pivot row from the lists on it, in item order.
        let length = at
            .first()
            .and_then(|&i| lists[i].current())
            .map_or(0, |p| p.length);
        let norm = ranking.norms.of(length);
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
        // Whether it matches is asked only of a row that would enter (a checked rule reads
        // the membership lists).
        let matches = ranking.would_enter(candidate)
            && match rule {
                Matching::AnyList => true,
                Matching::EveryList => at.len() == lists.len(),
                Matching::Checked(shape) => row_matches(shape, membership, pivot_row)?,
            };
        if matches {
            ranking.offer(candidate)?;
        }
        for &i in &at {
            lists[i].next()?;
        }
    }
    Ok(())
}

/// Whether an item of `idf` occurring `tf` times where the length normalization is `norm`
/// could score above `threshold`: `item_score · slack > threshold` without the division,
/// since `idf·tf·(k1+1) / (tf + norm) > t` exactly when `idf·tf·(k1+1) > t·(tf + norm)` (the
/// denominator is positive); [`BOUND_SLACK`] covers the rounding the two forms differ by.
#[inline]
fn may_beat(idf: f64, tf: f64, norm: f64, threshold: f64) -> bool {
    idf * (bm25::K1 + 1.0) * BOUND_SLACK * tf > threshold * (tf + norm)
}

/// The largest score an item with this idf can give a posting with at most `max_tf`
/// occurrences in a document of at least `min_length` tokens, raised for rounding.
fn bound(idf: f64, max_tf: u32, min_length: u32, stats: &CorpusStats) -> f64 {
    let norm = bm25::length_norm(min_length as usize, stats);
    bm25::item_score(idf, f64::from(max_tf), norm) * BOUND_SLACK
}
