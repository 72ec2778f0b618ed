//! The bulk build of a full-text index (CREATE INDEX, REINDEX, VACUUM): every document's
//! postings gathered in memory, term by term, then written as one sorted bulk load.
//!
//! What it guarantees: [`build_entries`] returns exactly the entries `write::add_document`
//! would leave for the same documents (statistics, document lengths, term entries, postings
//! with their positions), sorted by key, in valid blocks of at most [`BLOCK_POSTINGS`]
//! postings and an entry's size — though not cut at the same rows: a block boundary may fall
//! elsewhere, which no reader depends on.
//!
//! How: documents are cut into runs of [`RUN`] consecutive rows; each run is analyzed and
//! gathered into a [`Run`] on its own (several at once on a machine with more than one
//! core: analysis and gathering are most of a build's time), then the runs are appended in
//! row order. Appending re-packs the seam — the first block of the later run's term joins
//! the earlier run's open block — so a term that occurs a few times in each run still gets
//! full blocks. The runs and their seams are fixed by the rows alone, so the index built is
//! the same whatever the number of threads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::exec::error::{ExecError, ExecResult};
use crate::storage::btree::index_page::{ENTRY_OVERHEAD, max_entry_size};

use super::format::{self, BLOCK_POSTINGS, BlockBuilder, INLINE_POSITIONS, TermInfo};
use super::write::{position_chunks, varint};

/// Rows per run: enough that a run's terms repeat (so its blocks fill), few enough that
/// several runs keep every thread busy on a build of a few hundred thousand rows.
pub const RUN: usize = 8192;

/// The most threads a build uses.
const MAX_THREADS: usize = 8;

/// A term's postings gathered so far: its entry, its finished blocks and its open one.
struct TermBuild {
    info: TermInfo,
    prefix: Vec<u8>,
    open: BlockBuilder,
    blocks: Vec<(Vec<u8>, Vec<u8>)>,
    positions: Vec<(Vec<u8>, Vec<u8>)>,
}

impl TermBuild {
    fn new(term: &str) -> TermBuild {
        TermBuild {
            info: TermInfo {
                documents: 0,
                max_tf: 0,
                min_length: u32::MAX,
            },
            prefix: format::postings_prefix(term),
            open: BlockBuilder::default(),
            blocks: Vec::new(),
            positions: Vec::new(),
        }
    }

    /// Appends a posting (its row past every row held) to the open block, closing that
    /// block first when the posting would not fit.
    fn push(&mut self, (row, tf, length): (i64, u32, u32), positions: &[u8], max_entry: usize) {
        let budget = max_entry.saturating_sub(self.prefix.len() + 8 + ENTRY_OVERHEAD);
        let full = self.open.count() >= BLOCK_POSTINGS
            || self.open.size_with(positions.len() + 30) > budget;
        if full && self.open.count() > 0 {
            self.close();
        }
        self.open.push(row, tf, length, positions);
    }

    /// Moves the open block, if it has postings, to the finished ones.
    fn close(&mut self) {
        if self.open.count() > 0 {
            let block = std::mem::take(&mut self.open);
            self.blocks.push((
                format::postings_key(&self.prefix, block.first_row()),
                block.finish(),
            ));
        }
    }

    /// Appends `later` (a term's postings from rows past every row held): its first block's
    /// postings joined to the open block, its other blocks after them, the last of them
    /// left open for the next run's postings.
    fn append(&mut self, mut later: TermBuild, max_entry: usize) -> ExecResult<()> {
        self.info.documents += later.info.documents;
        self.info.max_tf = self.info.max_tf.max(later.info.max_tf);
        self.info.min_length = self.info.min_length.min(later.info.min_length);
        self.positions.append(&mut later.positions);
        later.close();
        let row_of = |key: &[u8]| -> ExecResult<i64> {
            format::block_row(key, &later.prefix)?
                .ok_or_else(|| ExecError::internal("a block key lost its row"))
        };
        let mut blocks = later.blocks.iter();
        if let Some((key, value)) = blocks.next() {
            for posting in format::decode_owned(row_of(key)?, value)? {
                self.push(
                    (posting.row, posting.tf, posting.length),
                    &posting.positions,
                    max_entry,
                );
            }
        }
        if let Some((key, value)) = blocks.next_back() {
            self.close();
            self.blocks.extend(blocks.cloned());
            self.open = BlockBuilder::from_value(row_of(key)?, value)?;
        }
        Ok(())
    }
}

/// A term as a hash key: its bytes inside the key when it is short (most terms are), so a
/// lookup compares bytes in the table itself instead of following a pointer to them — that
/// second cache miss per posting was a fifth of a build's time.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum TermKey {
    Inline {
        length: u8,
        bytes: [u8; INLINE_TERM],
    },
    Spilled(Box<str>),
}

/// The longest term a [`TermKey`] holds inline.
const INLINE_TERM: usize = 22;

impl std::hash::Hash for TermKey {
    /// The term's bytes alone (not the unused inline ones): a term has one form, inline
    /// when it fits, so equal keys hash alike.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            TermKey::Inline { length, bytes } => {
                state.write(bytes.get(..usize::from(*length)).unwrap_or_default());
            }
            TermKey::Spilled(term) => state.write(term.as_bytes()),
        }
    }
}

impl TermKey {
    pub(super) fn new(term: &str) -> TermKey {
        match u8::try_from(term.len()) {
            Ok(length) if term.len() <= INLINE_TERM => {
                let mut bytes = [0; INLINE_TERM];
                bytes[..term.len()].copy_from_slice(term.as_bytes());
                TermKey::Inline { length, bytes }
            }
            _ => TermKey::Spilled(term.into()),
        }
    }
}

/// The postings of a run of documents (or of several runs appended), gathered by term.
struct Run {
    /// Each term's place in `terms`. Hashed, not ordered: the entries are sorted once at
    /// the end anyway. foldhash, not the standard library's SipHash: a lookup per token is
    /// a fifth of a build, and foldhash is seeded per process too.
    places: HashMap<TermKey, usize, foldhash::fast::RandomState>,
    terms: Vec<(String, TermBuild)>,
    /// The documents' `'d'` entries, in row order.
    documents: Vec<(Vec<u8>, Vec<u8>)>,
    total_length: u64,
    last_row: Option<i64>,
    max_entry: usize,
    /// Scratch for [`Run::add`]: a document's (term place, position) pairs, and one term's
    /// positions.
    pairs: Vec<u64>,
    positions: Vec<u32>,
}

impl Run {
    fn new(usable_size: usize) -> Run {
        Run {
            places: HashMap::default(),
            terms: Vec::new(),
            documents: Vec::new(),
            total_length: 0,
            last_row: None,
            max_entry: max_entry_size(usable_size),
            pairs: Vec::new(),
            positions: Vec::new(),
        }
    }

    /// The place in `terms` of a term (as stored), added when new.
    fn term_place(&mut self, term: &str) -> usize {
        let key = TermKey::new(term);
        match self.places.get(&key) {
            Some(&at) => at,
            None => self.insert(key, term.to_owned(), TermBuild::new(term)),
        }
    }

    /// Adds a term not held yet; its place in `terms`.
    fn insert(&mut self, key: TermKey, term: String, build: TermBuild) -> usize {
        self.places.insert(key, self.terms.len());
        self.terms.push((term, build));
        self.terms.len() - 1
    }

    /// Adds a term (as the analyzer made it) at `position` to the document being gathered:
    /// looked up once and kept as its place in `terms` with the position.
    fn add_term(&mut self, term: &str, position: u32) -> ExecResult<()> {
        let place = self.term_place(&format::stored_term(term));
        let place = u32::try_from(place)
            .map_err(|_| ExecError::internal("full-text index build: too many terms"))?;
        self.pairs
            .push((u64::from(place) << 32) | u64::from(position));
        Ok(())
    }

    /// Adds document `row`, past every row held, of the terms given to [`Run::add_term`]
    /// since the last document.
    fn add(&mut self, row: i64, encoded: &mut Vec<u8>) -> ExecResult<()> {
        if self.last_row.is_some_and(|previous| previous >= row) {
            return Err(ExecError::internal(
                "full-text index build: rows must come in increasing order",
            ));
        }
        self.last_row = Some(row);
        let length = u32::try_from(self.pairs.len()).unwrap_or(u32::MAX);
        self.total_length += u64::from(length);
        self.documents
            .push((format::document_key(row), varint(u64::from(length))));
        let max_entry = self.max_entry;
        // The document's terms grouped: its (place, position) pairs sorted as integers.
        // Grouping by sorting the terms' strings was a third of a build; the order of a
        // document's terms does not matter here (the entries are sorted at the end).
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.sort_unstable();
        let mut positions = std::mem::take(&mut self.positions);
        let mut at = 0;
        while let Some(&first) = pairs.get(at) {
            let place = first >> 32;
            positions.clear();
            while let Some(&pair) = pairs.get(at)
                && pair >> 32 == place
            {
                // The low half is the position (the shift above put the place above it).
                positions.push((pair & u64::from(u32::MAX)) as u32);
                at += 1;
            }
            let (term, build) = usize::try_from(place)
                .ok()
                .and_then(|place| self.terms.get_mut(place))
                .ok_or_else(|| ExecError::internal("full-text index build lost a term"))?;
            let tf = u32::try_from(positions.len()).unwrap_or(u32::MAX);
            build.info.documents += 1;
            build.info.max_tf = build.info.max_tf.max(tf);
            build.info.min_length = build.info.min_length.min(length);
            encoded.clear();
            if tf > INLINE_POSITIONS {
                for (chunk, bytes) in position_chunks(&positions).into_iter().enumerate() {
                    let chunk = u16::try_from(chunk)
                        .map_err(|_| ExecError::internal("full-text index: too many positions"))?;
                    build
                        .positions
                        .push((format::positions_key(term, row, chunk), bytes));
                }
            } else {
                format::encode_positions(&positions, encoded);
            }
            build.push((row, tf, length), encoded, max_entry);
        }
        pairs.clear();
        self.pairs = pairs;
        self.positions = positions;
        Ok(())
    }

    /// Appends `later`, a run of rows past every row held.
    fn append(&mut self, later: Run) -> ExecResult<()> {
        if let (Some(last), Some(first)) = (self.last_row, later.documents.first()) {
            let first = crate::storage::keys::decode_row_id(&first.0)
                .map_err(|_| ExecError::internal("a document key lost its row"))?;
            if first <= last {
                return Err(ExecError::internal(
                    "full-text index build: runs must come in row order",
                ));
            }
        }
        self.last_row = later.last_row.or(self.last_row);
        self.total_length += later.total_length;
        self.documents.extend(later.documents);
        let max_entry = self.max_entry;
        for (term, build) in later.terms {
            let key = TermKey::new(&term);
            match self.places.get(&key) {
                Some(&at) => match self.terms.get_mut(at) {
                    Some((_, mine)) => mine.append(build, max_entry)?,
                    None => return Err(ExecError::internal("full-text index build lost a term")),
                },
                None => {
                    self.insert(key, term, build);
                }
            }
        }
        Ok(())
    }

    /// The entries, sorted by key — laid out in key order rather than sorted (sorting them
    /// was a fifth of a small build): the `'d'` entries (rows increasing), then the `'k'`
    /// skip entries per term in byte order (every block of the term but its last), then per
    /// term its blocks (rows increasing) and its entry, then `'s'`, then the `'x'` entries per
    /// term (rows, then chunks, increasing). A term's keys sort as its bytes do, because no
    /// term holds the 0x00 that ends it in a key.
    fn finish(self) -> ExecResult<Vec<(Vec<u8>, Vec<u8>)>> {
        // The terms' order found by sorting their places, not the terms with their builds
        // (a couple of hundred bytes each, moved at every swap).
        let mut order: Vec<usize> = (0..self.terms.len()).collect();
        order.sort_unstable_by(|&a, &b| self.terms[a].0.cmp(&self.terms[b].0));
        let mut terms: Vec<Option<(String, TermBuild)>> =
            self.terms.into_iter().map(Some).collect();
        let mut entries = self.documents;
        let documents = entries.len() as u64;
        let (mut blocks, mut positions) = (Vec::new(), Vec::new());
        for at in order {
            let Some((term, mut build)) = terms.get_mut(at).and_then(Option::take) else {
                return Err(ExecError::internal("full-text index build lost a term"));
            };
            build.close();
            let before_last = build.blocks.len().saturating_sub(1);
            for (key, value) in build.blocks.get(..before_last).unwrap_or_default() {
                let first = format::block_row(key, &build.prefix)?
                    .ok_or_else(|| ExecError::internal("a block key lost its row"))?;
                entries.push((
                    format::skip_key_of(key),
                    format::skip_of_block(first, value)?,
                ));
            }
            blocks.append(&mut build.blocks);
            blocks.push((format::term_key(&term), build.info.encode()));
            positions.append(&mut build.positions);
        }
        entries.append(&mut blocks);
        let stats = format::Stats {
            documents,
            total_length: self.total_length,
            layout: format::LAYOUT_SKIPS,
        };
        entries.push((format::stats_key().to_vec(), stats.encode()));
        entries.append(&mut positions);
        debug_assert!(entries.windows(2).all(|pair| pair[0].0 < pair[1].0));
        Ok(entries)
    }
}

/// The entries of an index over `count` documents, sorted by key, for a bulk load into an
/// empty tree: document `i` (in increasing row order) is what `analyze(i, sink)` gives —
/// its row, with each of its terms and its position given to `sink` (in any order), or
/// `None` for no document (NULL; then it gives `sink` nothing). Runs of `run`
/// documents ([`RUN`] but in tests) are gathered on up to `available_parallelism` threads
/// (each calls `analyze` for its own runs), then appended in order.
pub fn build_entries<A>(
    count: usize,
    run: usize,
    analyze: A,
    usable_size: usize,
) -> ExecResult<Vec<(Vec<u8>, Vec<u8>)>>
where
    A: Fn(usize, &mut dyn FnMut(&str, u32)) -> ExecResult<Option<i64>> + Sync,
{
    let run_length = run.max(1);
    let runs = count.div_ceil(run_length);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_THREADS)
        .min(runs.max(1));
    let gather = |run: usize| -> ExecResult<Run> {
        let mut gathered = Run::new(usable_size);
        let mut encoded = Vec::new();
        for i in run * run_length..((run + 1) * run_length).min(count) {
            let mut failed = None;
            let row = analyze(i, &mut |term, position| {
                if let Err(error) = gathered.add_term(term, position) {
                    failed.get_or_insert(error);
                }
            })?;
            if let Some(error) = failed {
                return Err(error);
            }
            if let Some(row) = row {
                gathered.add(row, &mut encoded)?;
            }
        }
        Ok(gathered)
    };
    let mut gathered: Vec<Option<ExecResult<Run>>> = (0..runs).map(|_| None).collect();
    if threads <= 1 {
        for (run, slot) in gathered.iter_mut().enumerate() {
            *slot = Some(gather(run));
        }
    } else {
        // Each thread takes the next run not yet taken; the results are put back in order.
        let next = AtomicUsize::new(0);
        let results = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let run = next.fetch_add(1, Ordering::Relaxed);
                            if run >= runs {
                                break done;
                            }
                            done.push((run, gather(run)));
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join())
                .collect::<Vec<_>>()
        });
        for result in results {
            let done = result.map_err(|_| {
                ExecError::internal("a full-text index build thread stopped unexpectedly")
            })?;
            for (run, built) in done {
                if let Some(slot) = gathered.get_mut(run) {
                    *slot = Some(built);
                }
            }
        }
    }
    // The first run is the start of the whole (appending it to an empty run would copy
    // every term once more: a tenth of a small build).
    let mut whole: Option<Run> = None;
    for built in gathered {
        let built =
            built.ok_or_else(|| ExecError::internal("a full-text index build run was lost"))??;
        match &mut whole {
            None => whole = Some(built),
            Some(whole) => whole.append(built)?,
        }
    }
    whole.unwrap_or_else(|| Run::new(usable_size)).finish()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic, reason = "tests")]

    use std::collections::BTreeMap;

    use super::*;
    use crate::exec::index_access::fts::format::{OwnedPosting, TAG_POSTINGS};
    use crate::types::text_search::Token;

    /// 1,000 documents over a skewed vocabulary: `common` in most, `lots` 40 times in some
    /// (positions kept apart), and every seventh document NULL.
    fn documents() -> Vec<Option<Vec<Token>>> {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..1000)
            .map(|i| {
                if i % 7 == 3 {
                    return None;
                }
                let many = i % 50 == 0;
                let length = if many { 80 } else { 3 + (next() % 40) as u32 };
                let tokens = (0..length)
                    .map(|position| {
                        let term = match next() % 10 {
                            _ if many && position % 2 == 0 => "lots".to_owned(),
                            0..=3 => "common".to_owned(),
                            _ => format!("w{}", next() % 300),
                        };
                        Token {
                            term,
                            position,
                            start: 0,
                            end: 0,
                        }
                    })
                    .collect();
                Some(tokens)
            })
            .collect()
    }

    fn build(documents: &[Option<Vec<Token>>], run: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
        let analyze = |i: usize, sink: &mut dyn FnMut(&str, u32)| -> ExecResult<Option<i64>> {
            Ok(documents[i].as_ref().map(|document| {
                for token in document {
                    sink(&token.term, token.position);
                }
                i as i64 * 3 - 100
            }))
        };
        build_entries(documents.len(), run, analyze, 4096).unwrap()
    }

    /// The entries with each term's blocks replaced by its postings, and its block count;
    /// each skip entry checked against its block (every block of a term but its last has
    /// one, with the block's bounds) and left out.
    #[allow(clippy::type_complexity, reason = "a test's summary")]
    fn postings(
        entries: &[(Vec<u8>, Vec<u8>)],
    ) -> (
        Vec<(Vec<u8>, Vec<u8>)>,
        BTreeMap<Vec<u8>, (Vec<OwnedPosting>, usize)>,
    ) {
        let (mut others, mut lists) = (Vec::new(), BTreeMap::new());
        let skips: BTreeMap<&[u8], &[u8]> = entries
            .iter()
            .filter(|(key, _)| key.first() == Some(&format::TAG_SKIP))
            .map(|(key, value)| (key.as_slice(), value.as_slice()))
            .collect();
        let mut skipped = 0;
        for (index, (key, value)) in entries.iter().enumerate() {
            if key.first() == Some(&format::TAG_SKIP) {
                continue;
            }
            if key.first() == Some(&TAG_POSTINGS) && format::term_of_key(key).unwrap().is_none() {
                let last_of_term = entries
                    .get(index + 1)
                    .is_some_and(|(next, _)| format::term_of_key(next).unwrap().is_some());
                let skip = skips.get(format::skip_key_of(key).as_slice());
                if last_of_term {
                    assert!(skip.is_none(), "the last block has no skip entry");
                } else {
                    let first = format::block_row(key, &key[..key.len() - 8])
                        .unwrap()
                        .unwrap();
                    assert_eq!(
                        skip.copied(),
                        Some(format::skip_of_block(first, value).unwrap().as_slice())
                    );
                    skipped += 1;
                }
                let prefix = key[..key.len() - 8].to_vec();
                let first = format::block_row(key, &prefix).unwrap().unwrap();
                let block = format::decode_owned(first, value).unwrap();
                assert!(!block.is_empty() && block.len() <= BLOCK_POSTINGS);
                let (list, blocks): &mut (Vec<OwnedPosting>, usize) =
                    lists.entry(prefix).or_default();
                assert!(list.last().is_none_or(|last| last.row < block[0].row));
                list.extend(block);
                *blocks += 1;
            } else {
                others.push((key.clone(), value.clone()));
            }
        }
        assert_eq!(skipped, skips.len(), "every skip entry has its block");
        (others, lists)
    }

    #[test]
    fn runs_appended_in_order_build_the_index_one_run_builds() {
        let documents = documents();
        let whole = build(&documents, usize::MAX);
        // A term has fewer than 128 postings in a run of 3 documents, so every seam joins
        // the later run's only block to the open one: the very entries of one run.
        assert_eq!(build(&documents, 3), whole);
        // Longer runs leave a partial block where a term had several in the later run, but
        // the same postings in the same order, and the same other entries.
        let (others, lists) = postings(&whole);
        for run in [200, 333] {
            let (run_others, run_lists) = postings(&build(&documents, run));
            assert_eq!(run_others, others);
            assert_eq!(run_lists.len(), lists.len());
            let seams = documents.len().div_ceil(run) - 1;
            for (prefix, (list, blocks)) in &lists {
                let (run_list, run_blocks) = &run_lists[prefix];
                assert_eq!(run_list, list);
                assert!(
                    *run_blocks <= blocks + seams,
                    "{run_blocks} blocks, {blocks}"
                );
            }
        }
        // In strictly increasing key order, as the bulk load needs.
        for entries in [&whole, &build(&documents, 200)] {
            assert!(entries.windows(2).all(|pair| pair[0].0 < pair[1].0));
        }
        // The common term and the repeated one are there, with positions kept apart.
        assert!(lists.keys().any(|prefix| prefix.starts_with(b"pcommon")));
        assert!(whole.iter().any(|(key, _)| key.starts_with(b"xlots")));
        // The common term has blocks enough for skip entries.
        assert!(whole.iter().any(|(key, _)| key.starts_with(b"kcommon\0")));
    }
}
