//! Reading a full-text index: its statistics, term entries, and postings lists walked by
//! cursors that skip whole blocks.
//!
//! What it guarantees: a [`PostingList`] yields a term's (or a prefix's, or a phrase's)
//! postings in increasing row order, each once, with its tf and the document's length, and
//! for every block the bounds (largest tf, smallest length, last row) that hold for each of
//! its postings — what block-max WAND (`search`) skips by. A phrase's and a prefix's lists
//! are computed from their terms' postings when opened (a phrase from positions, matching
//! exactly what `types::text_search::matcher` matches in a document's text).
//!
//! In an index with skip entries (layout 2, `format`) a term's cursor passes blocks by their
//! skip entries, many to a page, and reads a block itself only to decode it; past the skip
//! entries it reads the blocks that have none (the term's last) by their own headers, which
//! is how it reads every block of a layout-1 index.

use crate::exec::error::ExecResult;
use crate::storage::PageRead;
use crate::storage::btree::{IndexCursor, IndexTree};
use crate::types::text_search::query::Query;

use super::format::{
    self, BLOCK_POSTINGS, BlockBounds, INLINE_POSITIONS, Impacts, Posting, Reader, Stats, TermInfo,
    corrupt, stored_term,
};

/// A read handle on one full-text index.
#[derive(Debug, Clone)]
pub struct FtsReader<S: PageRead + Clone> {
    tree: IndexTree,
    store: S,
    /// Whether the index keeps skip entries, once read (a layout changes only with a new
    /// build, which a reader never sees halfway).
    skips: std::cell::OnceCell<bool>,
}

impl<S: PageRead + Clone> FtsReader<S> {
    pub fn new(tree: IndexTree, store: S) -> FtsReader<S> {
        FtsReader {
            tree,
            store,
            skips: std::cell::OnceCell::new(),
        }
    }

    /// The statistics entry (an empty index's when there is none).
    fn read_stats(&self) -> ExecResult<Stats> {
        let stats = match self.tree.get(&self.store, &format::stats_key())? {
            Some(value) => Stats::decode(&value)?,
            None => Stats::empty(),
        };
        let _ = self.skips.set(stats.has_skips());
        Ok(stats)
    }

    /// Documents indexed and their total length.
    pub fn stats(&self) -> ExecResult<(u64, u64)> {
        let stats = self.read_stats()?;
        Ok((stats.documents, stats.total_length))
    }

    fn has_skips(&self) -> ExecResult<bool> {
        match self.skips.get() {
            Some(&skips) => Ok(skips),
            None => Ok(self.read_stats()?.has_skips()),
        }
    }

    /// The entry of a term (as the analyzer made it), if any document holds it.
    pub fn term(&self, term: &str) -> ExecResult<Option<TermInfo>> {
        let stored = stored_term(term);
        self.tree
            .get(&self.store, &format::term_key(&stored))?
            .map(|value| TermInfo::decode(&value))
            .transpose()
    }

    /// The terms (as stored) that begin with `prefix`, in order: from each term's first
    /// key, a seek to its entry (past its blocks) and on.
    pub fn terms_with_prefix(&self, prefix: &str) -> ExecResult<Vec<String>> {
        let mut start = vec![format::TAG_POSTINGS];
        start.extend_from_slice(prefix.as_bytes());
        let mut cursor = self.tree.cursor(self.store.clone());
        let mut terms = Vec::new();
        cursor.seek_ge(&start)?;
        while cursor.is_valid() && cursor.key().starts_with(&start) {
            if let Some(term) = format::term_of_key(cursor.key())? {
                terms.push(term.to_owned());
                cursor.next()?;
                continue;
            }
            // A block: its term is the key less the row and the 0x00 before it.
            let key = cursor.key();
            let term = key
                .get(1..key.len().saturating_sub(9))
                .ok_or_else(|| corrupt("block key"))?;
            let term = std::str::from_utf8(term).map_err(|_| corrupt("a term is not UTF-8"))?;
            let entry = format::term_key(term);
            cursor.seek_ge(&entry)?;
        }
        Ok(terms)
    }

    /// Every indexed row (non-NULL document), in order.
    pub fn documents(&self) -> ExecResult<Vec<i64>> {
        let mut cursor = self.tree.cursor(self.store.clone());
        let mut rows = Vec::new();
        cursor.seek_ge(&[format::TAG_DOCUMENT])?;
        while cursor.is_valid() && cursor.key().first() == Some(&format::TAG_DOCUMENT) {
            rows.push(
                crate::storage::keys::decode_row_id(cursor.key())
                    .map_err(|_| corrupt("document key"))?,
            );
            cursor.next()?;
        }
        Ok(rows)
    }

    /// The postings of a term as stored.
    pub fn term_postings(&self, stored: &str) -> ExecResult<TermCursor<S>> {
        let skips = match self.has_skips()? {
            true => Some(self.tree.cursor(self.store.clone())),
            false => None,
        };
        Ok(TermCursor {
            term: stored.to_owned(),
            prefix: format::postings_prefix(stored),
            skip_prefix: format::skip_prefix(stored),
            skips,
            on_skips: false,
            last_skipped: None,
            cursor: self.tree.cursor(self.store.clone()),
            cursor_block: None,
            tree: self.tree,
            store: self.store.clone(),
            value: Vec::new(),
            block: Vec::new(),
            header: None,
            decoded: false,
            target: i64::MIN,
            at: 0,
        })
    }

    /// What is wrong with a term's skip entries (layout 2), if anything: each block of the
    /// term but its last has one, with bounds that hold for its block and end before the
    /// next block, and there are no others.
    pub fn skips_problem(&self, stored: &str) -> ExecResult<Option<String>> {
        if !self.has_skips()? {
            return Ok(None);
        }
        let prefix = format::postings_prefix(stored);
        let mut blocks = Vec::new();
        let mut cursor = self.tree.cursor(self.store.clone());
        cursor.seek_ge(&prefix)?;
        while cursor.is_valid()
            && let Some(first) = format::block_row(cursor.key(), &prefix)?
        {
            let mut postings = Vec::new();
            format::decode_block(first, cursor.value(), &mut postings)?;
            blocks.push((first, postings));
            cursor.next()?;
        }
        let skip_prefix = format::skip_prefix(stored);
        let mut skips = Vec::new();
        cursor.seek_ge(&skip_prefix)?;
        while cursor.is_valid()
            && let Some(first) = format::block_row(cursor.key(), &skip_prefix)?
        {
            skips.push(format::decode_skip(first, cursor.value())?);
            cursor.next()?;
        }
        if skips.len() + 1 != blocks.len().max(1) {
            return Ok(Some(format!(
                "{} skip entries for {} blocks",
                skips.len(),
                blocks.len()
            )));
        }
        for (index, (skip, (first, postings))) in skips.iter().zip(&blocks).enumerate() {
            let next_first = blocks.get(index + 1).map_or(i64::MAX, |(first, _)| *first);
            let bounded = postings.iter().all(|posting| {
                posting.row <= skip.last_row
                    && skip
                        .impacts
                        .points()
                        .iter()
                        .any(|&(tf, length)| tf >= posting.tf && length <= posting.length)
            });
            if skip.first_row != *first || skip.last_row >= next_first || !bounded {
                return Ok(Some(format!(
                    "the skip entry of the block at row {first} does not bound it"
                )));
            }
        }
        Ok(None)
    }

    /// The list of a query item: a term's postings, or a prefix's or phrase's computed.
    pub fn item_list(&self, item: &Query) -> ExecResult<PostingList<S>> {
        match item {
            Query::Term(term) => {
                let mut cursor = self.term_postings(&stored_term(term))?;
                cursor.start()?;
                Ok(PostingList::Term(Box::new(cursor)))
            }
            Query::Prefix(prefix) => Ok(PostingList::Computed(Computed::new(
                self.prefix_postings(prefix)?,
            ))),
            Query::Phrase(terms) => Ok(PostingList::Computed(Computed::new(
                self.phrase_postings(terms)?,
            ))),
            Query::And(_) | Query::Or(_) | Query::Not(_) => Err(
                crate::exec::error::ExecError::internal("a posting list of a compound query"),
            ),
        }
    }

    /// Every document with a term beginning with `prefix`: tf is the sum over those terms.
    fn prefix_postings(&self, prefix: &str) -> ExecResult<Vec<Posting>> {
        let mut merged: Vec<Posting> = Vec::new();
        for term in self.terms_with_prefix(prefix)? {
            let mut cursor = self.term_postings(&term)?;
            cursor.start()?;
            let mut list = Vec::new();
            while let Some(posting) = cursor.current() {
                list.push(posting.clone());
                cursor.next()?;
            }
            merged = merge_sum(merged, list);
        }
        Ok(merged)
    }

    /// Every document where the phrase occurs: tf is how often it starts there.
    fn phrase_postings(&self, terms: &[(String, u32)]) -> ExecResult<Vec<Posting>> {
        let mut cursors = Vec::with_capacity(terms.len());
        for (term, _) in terms {
            let mut cursor = self.term_postings(&stored_term(term))?;
            cursor.start()?;
            cursors.push(cursor);
        }
        let mut out = Vec::new();
        let Some(first) = cursors.first() else {
            return Ok(out);
        };
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); cursors.len()];
        let mut target = match first.current() {
            Some(posting) => posting.row,
            None => return Ok(out),
        };
        'rows: loop {
            // Bring every cursor to the first row >= target that all of them hold.
            for cursor in cursors.iter_mut() {
                cursor.advance_to(target)?;
                match cursor.current() {
                    None => break 'rows,
                    Some(posting) if posting.row > target => {
                        target = posting.row;
                        continue 'rows;
                    }
                    Some(_) => {}
                }
            }
            for (cursor, positions) in cursors.iter().zip(lists.iter_mut()) {
                cursor.positions(positions)?;
            }
            let Some((starts, rest)) = lists.split_first() else {
                break;
            };
            let count = starts
                .iter()
                .filter(|&&start| {
                    rest.iter()
                        .zip(&terms[1..])
                        .all(|(positions, (_, offset))| {
                            start
                                .checked_add(*offset)
                                .is_some_and(|p| positions.binary_search(&p).is_ok())
                        })
                })
                .count();
            if count > 0
                && let Some(posting) = cursors[0].current()
            {
                out.push(Posting {
                    row: target,
                    tf: u32::try_from(count).unwrap_or(u32::MAX),
                    length: posting.length,
                    positions: 0..0,
                });
            }
            cursors[0].next()?;
            match cursors[0].current() {
                Some(posting) => target = posting.row,
                None => break,
            }
        }
        Ok(out)
    }
}

/// Two postings lists (rows increasing) merged, the tf of a row in both summed.
fn merge_sum(a: Vec<Posting>, b: Vec<Posting>) -> Vec<Posting> {
    if a.is_empty() {
        return b;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.row == y.row => {
                let (Some(mut x), Some(y)) = (a.next(), b.next()) else {
                    break;
                };
                x.tf = x.tf.saturating_add(y.tf);
                out.push(x);
            }
            (Some(x), Some(y)) if x.row < y.row => out.extend(a.next()),
            (Some(_), Some(_)) | (None, Some(_)) => out.extend(b.next()),
            (Some(_), None) => out.extend(a.next()),
            (None, None) => break,
        }
    }
    out
}

/// A cursor over one term's blocks.
///
/// A block is read in two steps: its bounds when the cursor reaches it (from its skip entry,
/// or its header when it has none), enough for skipping; its postings only when a posting is
/// asked for ([`TermCursor::settle`]). So a search that skips a block by its bounds never
/// reads the block.
#[derive(Debug)]
pub struct TermCursor<S: PageRead + Clone> {
    term: String,
    prefix: Vec<u8>,
    skip_prefix: Vec<u8>,
    /// On the term's skip entries (layout 2), while `on_skips`.
    skips: Option<IndexCursor<S>>,
    on_skips: bool,
    /// The first row of the last skip entry read: the blocks without one come after it.
    last_skipped: Option<i64>,
    /// On blocks: the one being decoded, or (past the skip entries) the current one.
    cursor: IndexCursor<S>,
    /// The first row of the block `cursor` stands on, when it stands on one.
    cursor_block: Option<i64>,
    tree: IndexTree,
    store: S,
    /// The current block's value once decoded (postings locate their positions in it).
    value: Vec<u8>,
    block: Vec<Posting>,
    /// The current block's bounds: from its skip entry or header, then, once decoded, from
    /// its header (exact where a skip entry may be loose).
    header: Option<BlockBounds>,
    /// Whether `block` holds the current block's postings.
    decoded: bool,
    /// The row the cursor was moved to: its posting is the first at or after it.
    target: i64,
    at: usize,
}

impl<S: PageRead + Clone> TermCursor<S> {
    /// Positions on the term's first posting.
    pub fn start(&mut self) -> ExecResult<()> {
        self.last_skipped = None;
        self.cursor_block = None;
        match &mut self.skips {
            Some(skips) => {
                skips.seek_ge(&self.skip_prefix)?;
                self.on_skips = true;
            }
            None => {
                self.cursor.seek_ge(&self.prefix)?;
                self.on_skips = false;
            }
        }
        self.load()?;
        self.settle()
    }

    /// Reads the bounds of the block the cursor is on (its skip entry's, or its header's
    /// past them), or ends the list.
    fn load(&mut self) -> ExecResult<()> {
        self.at = 0;
        self.header = None;
        self.decoded = false;
        if self.on_skips {
            if let Some(skips) = &self.skips
                && skips.is_valid()
                && let Some(first) = format::block_row(skips.key(), &self.skip_prefix)?
            {
                self.header = Some(format::decode_skip(first, skips.value())?);
                self.target = first;
                self.last_skipped = Some(first);
                return Ok(());
            }
            // Past the skip entries: the blocks that have none, by their own headers.
            self.on_skips = false;
            match self.last_skipped {
                Some(first) => self
                    .cursor
                    .seek_gt(&format::postings_key(&self.prefix, first))?,
                None => self.cursor.seek_ge(&self.prefix)?,
            };
        }
        self.cursor_block = None;
        if !self.cursor.is_valid() {
            return Ok(());
        }
        if let Some(first) = format::block_row(self.cursor.key(), &self.prefix)? {
            // The value is copied only when the block is decoded: a block skipped by its
            // header is never copied.
            self.header = Some(
                format::decode_header(first, self.cursor.value())?
                    .0
                    .bounds(),
            );
            self.target = first;
            self.cursor_block = Some(first);
        }
        Ok(())
    }

    /// Moves to the next block and reads its bounds.
    fn step(&mut self) -> ExecResult<()> {
        match (&mut self.skips, self.on_skips) {
            (Some(skips), true) => {
                skips.next()?;
            }
            _ => {
                self.cursor.next()?;
            }
        }
        self.load()
    }

    /// Moves to the block whose rows may hold `row`: the last starting at or before it.
    fn seek_block(&mut self, row: i64) -> ExecResult<()> {
        match (&mut self.skips, self.on_skips) {
            (Some(skips), true) => {
                skips.seek_le(&format::postings_key(&self.skip_prefix, row))?;
            }
            _ => {
                self.cursor
                    .seek_le(&format::postings_key(&self.prefix, row))?;
            }
        }
        self.load()
    }

    /// Stands the block cursor on the block starting at `first` (named by a skip entry).
    fn position_block(&mut self, first: i64) -> ExecResult<()> {
        // Decoding every block in turn (an intersection, a phrase): the block is the next
        // key, a step instead of a descent.
        let stepped = self.cursor_block.is_some_and(|at| at < first)
            && self.cursor.next()?
            && format::block_row(self.cursor.key(), &self.prefix)? == Some(first);
        if !stepped {
            self.cursor
                .seek_ge(&format::postings_key(&self.prefix, first))?;
            if !(self.cursor.is_valid()
                && format::block_row(self.cursor.key(), &self.prefix)? == Some(first))
            {
                return Err(corrupt("a skip entry without its block"));
            }
        }
        self.cursor_block = Some(first);
        Ok(())
    }

    /// Decodes the current block if need be and stands on the first posting at or after
    /// the target row.
    pub fn settle(&mut self) -> ExecResult<()> {
        let Some(header) = self.header else {
            return Ok(());
        };
        if !self.decoded {
            if self.cursor_block != Some(header.first_row) {
                self.position_block(header.first_row)?;
            }
            self.value.clear();
            self.value.extend_from_slice(self.cursor.value());
            let exact = format::decode_block(header.first_row, &self.value, &mut self.block)?;
            self.header = Some(exact.bounds());
            self.decoded = true;
            self.at = 0;
        }
        let target = self.target;
        // Moves are mostly to the next posting or a few on (intersections, phrases, every
        // posting in turn): a few steps before a binary search of the rest of the block.
        let mut steps = 0;
        while self.block.get(self.at).is_some_and(|p| p.row < target) {
            self.at += 1;
            steps += 1;
            if steps == 4 {
                let rest = self.block.get(self.at..).unwrap_or_default();
                self.at += rest.partition_point(|p| p.row < target);
                break;
            }
        }
        if self.at >= self.block.len() {
            // Only when the target is past the block, which moves never leave.
            self.step()?;
            return self.settle();
        }
        Ok(())
    }

    /// The current posting; `None` at the end, or before [`TermCursor::settle`].
    pub fn current(&self) -> Option<&Posting> {
        self.header.as_ref()?;
        if !self.decoded {
            return None;
        }
        self.block.get(self.at)
    }

    /// A row no greater than the current posting's, without decoding; `None` at the end.
    pub fn row_bound(&self) -> Option<i64> {
        let header = self.header.as_ref()?;
        if self.decoded {
            self.block.get(self.at).map(|p| p.row)
        } else {
            Some(self.target.max(header.first_row))
        }
    }

    /// The current block's bounds.
    pub fn block(&self) -> Option<&BlockBounds> {
        self.header.as_ref()
    }

    pub fn next(&mut self) -> ExecResult<()> {
        self.settle()?;
        if self.header.is_none() {
            return Ok(());
        }
        self.at += 1;
        if self.at >= self.block.len() {
            self.step()?;
            self.settle()?;
        } else {
            self.target = self.block[self.at].row;
        }
        Ok(())
    }

    /// Moves to the first posting at or after `row`.
    pub fn advance_to(&mut self, row: i64) -> ExecResult<()> {
        self.advance_shallow(row)?;
        self.settle()
    }

    /// Moves toward `row` reading block headers only: afterwards the current block ends at
    /// or after `row` (or starts after it), and [`TermCursor::settle`] finds the posting.
    pub fn advance_shallow(&mut self, row: i64) -> ExecResult<()> {
        let Some(header) = self.header else {
            return Ok(());
        };
        if self.row_bound().is_some_and(|bound| bound >= row) {
            return Ok(());
        }
        if row > header.last_row {
            // Skips mostly go one block on; a longer one finds its block by key.
            self.step()?;
            if let Some(next) = self.header
                && next.last_row < row
            {
                self.seek_block(row)?;
                if self.header.is_some_and(|found| found.last_row < row) {
                    // The next block starts past `row` (else the seek would have found it).
                    self.step()?;
                }
            }
        }
        if self.header.is_some() && row > self.target {
            self.target = row;
        }
        if self.decoded {
            // Still in a decoded block: stand on the posting now (no decoding needed).
            self.settle()?;
        }
        Ok(())
    }

    /// The current posting's positions (from the block, or its `'x'` entries) into `out`.
    pub fn positions(&self, out: &mut Vec<u32>) -> ExecResult<()> {
        out.clear();
        let Some(posting) = self.current() else {
            return Ok(());
        };
        if posting.tf <= INLINE_POSITIONS {
            let bytes = self
                .value
                .get(posting.positions.clone())
                .ok_or_else(|| corrupt("positions past the block"))?;
            return format::decode_positions(&mut Reader::new(bytes), posting.tf, out);
        }
        let mut bytes = Vec::new();
        let mut chunk = 0u16;
        while let Some(value) = self.tree.get(
            &self.store,
            &format::positions_key(&self.term, posting.row, chunk),
        )? {
            bytes.extend_from_slice(&value);
            chunk = chunk.wrapping_add(1);
            if chunk == 0 {
                break;
            }
        }
        let mut reader = Reader::new(&bytes);
        format::decode_positions(&mut reader, posting.tf, out)?;
        if !reader.is_empty() {
            return Err(corrupt("more positions than the posting's tf"));
        }
        Ok(())
    }
}

/// A postings list computed in memory (a prefix's or a phrase's), with the bounds of each
/// run of [`BLOCK_POSTINGS`] postings standing for blocks.
#[derive(Debug, Clone)]
pub struct Computed {
    postings: Vec<Posting>,
    /// Per run: its impacts.
    bounds: Vec<Impacts>,
    at: usize,
}

impl Computed {
    fn new(postings: Vec<Posting>) -> Computed {
        let bounds = postings
            .chunks(BLOCK_POSTINGS)
            .map(|run| {
                let mut impacts = Impacts::default();
                for posting in run {
                    impacts.add(posting.tf, posting.length);
                }
                impacts
            })
            .collect();
        Computed {
            postings,
            bounds,
            at: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.postings.len()
    }
}

/// One query item's postings, in row order.
#[derive(Debug)]
pub enum PostingList<S: PageRead + Clone> {
    Term(Box<TermCursor<S>>),
    Computed(Computed),
}

impl<S: PageRead + Clone> PostingList<S> {
    /// A row no greater than the current posting's, without decoding a block.
    pub fn row_bound(&self) -> Option<i64> {
        match self {
            PostingList::Term(cursor) => cursor.row_bound(),
            PostingList::Computed(list) => list.postings.get(list.at).map(|p| p.row),
        }
    }

    /// Moves toward `row` without decoding blocks ([`TermCursor::advance_shallow`]).
    pub fn advance_shallow(&mut self, row: i64) -> ExecResult<()> {
        match self {
            PostingList::Term(cursor) => cursor.advance_shallow(row),
            PostingList::Computed(_) => self.advance_to(row),
        }
    }

    /// Stands on the current posting, decoding its block if need be.
    pub fn settle(&mut self) -> ExecResult<()> {
        match self {
            PostingList::Term(cursor) => cursor.settle(),
            PostingList::Computed(_) => Ok(()),
        }
    }

    pub fn current(&self) -> Option<&Posting> {
        match self {
            PostingList::Term(cursor) => cursor.current(),
            PostingList::Computed(list) => list.postings.get(list.at),
        }
    }

    pub fn next(&mut self) -> ExecResult<()> {
        match self {
            PostingList::Term(cursor) => cursor.next(),
            PostingList::Computed(list) => {
                list.at = (list.at + 1).min(list.postings.len());
                Ok(())
            }
        }
    }

    pub fn advance_to(&mut self, row: i64) -> ExecResult<()> {
        match self {
            PostingList::Term(cursor) => cursor.advance_to(row),
            PostingList::Computed(list) => {
                if list.postings.get(list.at).is_some_and(|p| p.row < row) {
                    list.at += list.postings[list.at..].partition_point(|p| p.row < row);
                }
                Ok(())
            }
        }
    }

    /// The bounds of the block the current posting is in: its impacts and last row.
    pub fn block_bounds(&self) -> Option<(Impacts, i64)> {
        match self {
            PostingList::Term(cursor) => cursor
                .block()
                .map(|header| (header.impacts, header.last_row)),
            PostingList::Computed(list) => {
                let run = list.at / BLOCK_POSTINGS;
                let impacts = *list.bounds.get(run)?;
                let last = ((run + 1) * BLOCK_POSTINGS).min(list.postings.len()) - 1;
                Some((impacts, list.postings.get(last)?.row))
            }
        }
    }

    /// Bounds over the whole list: (largest tf, smallest length).
    pub fn list_bounds(&self, info: Option<TermInfo>) -> (u32, u32) {
        match self {
            PostingList::Term(_) => info.map_or((0, u32::MAX), |i| (i.max_tf, i.min_length)),
            PostingList::Computed(list) => (
                list.bounds.iter().map(Impacts::max_tf).max().unwrap_or(0),
                list.bounds
                    .iter()
                    .map(Impacts::min_length)
                    .min()
                    .unwrap_or(u32::MAX),
            ),
        }
    }

    /// Every row still ahead in the list, consuming it.
    pub fn drain_rows(&mut self) -> ExecResult<Vec<i64>> {
        let mut rows = Vec::new();
        while let Some(posting) = self.current() {
            rows.push(posting.row);
            self.next()?;
        }
        Ok(rows)
    }
}
