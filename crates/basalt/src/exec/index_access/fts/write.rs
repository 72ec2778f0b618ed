//! Keeping a full-text index in step with its rows: a document added (INSERT, the new side of
//! an UPDATE) and a document removed (DELETE, the old side). The bulk build of CREATE INDEX,
//! REINDEX and VACUUM is `build`'s.
//!
//! What it guarantees: after each call the index holds exactly the postings, term entries,
//! document entry and statistics of the documents added and not removed (`format` gives the
//! layout), inside the caller's transaction. Blocks stay within [`BLOCK_POSTINGS`] postings
//! and an entry's size; a block that would outgrow either is split (a posting appended past
//! a full last block starts a new one, so rows inserted in order leave full blocks), and a
//! block that shrinks below a quarter merges with the next block of its term when both fit
//! in one — the only merging there is, bounded to one block per term per write, so the index
//! never needs an OPTIMIZE. In an index of layout 2 every block of a term but its last has a
//! skip entry with its bounds (`format`, "Skip entries"); each write below keeps them so: an
//! append to the last block writes no skip entry, a new last block gives the block before it
//! one, and a block rewritten or removed inside the list takes its skip entry along.

use std::borrow::Cow;

use crate::exec::error::{ExecError, ExecResult};
use crate::storage::btree::IndexTree;
use crate::storage::btree::index_page::{ENTRY_OVERHEAD, max_entry_size};
use crate::storage::{PageNo, PageWrite};
use crate::types::text_search::Token;

use super::build::TermKey;
use super::format::{
    self, BLOCK_POSTINGS, BlockBuilder, INLINE_POSITIONS, OwnedPosting, POSITION_CHUNK_BYTES,
    TermInfo, corrupt, stored_term,
};

/// A document's terms (as stored) with their positions, in term order: one sort of the
/// tokens, no allocation per term (a B-tree map of strings to vectors was a fifth of a bulk
/// build's time).
pub struct GroupedTerms<'t> {
    /// Each distinct term and the range of its positions in `positions`, in term order.
    groups: Vec<(Cow<'t, str>, std::ops::Range<usize>)>,
    /// Every token's position, grouped by term, increasing within a term.
    positions: Vec<u32>,
}

impl<'t> GroupedTerms<'t> {
    /// Each term with its positions, in term order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u32])> {
        self.groups.iter().map(|(term, range)| {
            (
                term.as_ref(),
                self.positions.get(range.clone()).unwrap_or(&[]),
            )
        })
    }
}

/// Groups `tokens` by stored term (see [`GroupedTerms`]).
pub fn group_terms(tokens: &[Token]) -> GroupedTerms<'_> {
    let mut pairs: Vec<(Cow<'_, str>, u32)> = tokens
        .iter()
        .map(|token| (stored_term(&token.term), token.position))
        .collect();
    // By term, then position: a term's positions come out increasing.
    pairs.sort_unstable();
    let mut groups: Vec<(Cow<'_, str>, std::ops::Range<usize>)> = Vec::new();
    let mut positions = Vec::with_capacity(pairs.len());
    for (term, position) in pairs {
        match groups.last_mut() {
            Some((last, range)) if *last == term => range.end += 1,
            _ => groups.push((term, positions.len()..positions.len() + 1)),
        }
        positions.push(position);
    }
    GroupedTerms { groups, positions }
}

/// Adds document `row` (its tokens) to the index in `tree`.
pub fn add_document<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    row: i64,
    tokens: &[Token],
) -> ExecResult<()> {
    let length = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
    let stats = read_stats(tree, txn)?;
    let skips = stats.has_skips();
    if !tree.insert(txn, &format::document_key(row), &varint(u64::from(length)))? {
        return Err(ExecError::internal(format!(
            "full-text index: row {row} is indexed twice"
        )));
    }
    let mut encoded = Vec::new();
    for (term, positions) in group_terms(tokens).iter() {
        let tf = u32::try_from(positions.len()).unwrap_or(u32::MAX);
        encoded.clear();
        if tf > INLINE_POSITIONS {
            write_positions(tree, txn, term, row, positions)?;
        } else {
            format::encode_positions(positions, &mut encoded);
        }
        let posting = OwnedPosting {
            row,
            tf,
            length,
            positions: std::mem::take(&mut encoded),
        };
        add_posting(tree, txn, skips, term, posting)?;
    }
    update_stats(tree, txn, stats, 1, i64::from(length))
}

/// Documents to add to an index together ([`add_batch`]): their terms interned as they are
/// analyzed, each occurrence kept as three integers, so grouping them by term is a sort of
/// integers rather than of strings (the sort of strings was a fifth of a commit's merge).
#[derive(Default)]
pub struct DocumentBatch {
    /// Each term's place in `terms`.
    places: std::collections::HashMap<TermKey, u32, foldhash::fast::RandomState>,
    /// The terms as stored, by place.
    terms: Vec<String>,
    /// (term place, document index, position) of every occurrence.
    occurrences: Vec<(u32, u32, u32)>,
    /// (row, length) of every document, by index.
    documents: Vec<(i64, u32)>,
}

impl DocumentBatch {
    /// Adds document `row`: `analyze` gives each of its terms (as the analyzer made them)
    /// with its position to the sink, and returns whether there was a document (not all
    /// NULL).
    pub fn add(
        &mut self,
        row: i64,
        analyze: impl FnOnce(&mut dyn FnMut(&str, u32)) -> bool,
    ) -> ExecResult<()> {
        let index = u32::try_from(self.documents.len())
            .map_err(|_| ExecError::internal("full-text index: too many pending documents"))?;
        let before = self.occurrences.len();
        let (places, terms, occurrences) =
            (&mut self.places, &mut self.terms, &mut self.occurrences);
        let mut sink = |term: &str, position: u32| {
            let stored = stored_term(term);
            let key = TermKey::new(&stored);
            let place = match places.get(&key) {
                Some(&place) => place,
                None => {
                    // Fewer than 2^32 terms: each is at least a byte of a document, and
                    // the pending documents are bounded far below that.
                    let place = u32::try_from(terms.len()).unwrap_or(u32::MAX);
                    places.insert(key, place);
                    terms.push(stored.into_owned());
                    place
                }
            };
            occurrences.push((place, index, position));
        };
        if analyze(&mut sink) {
            let length = u32::try_from(self.occurrences.len() - before).unwrap_or(u32::MAX);
            self.documents.push((row, length));
        }
        Ok(())
    }
}

/// Adds the documents of `batch` to the index in `tree` in one pass: their document
/// entries in row order, then their postings term by term, so a term the documents share is
/// sought and its last block rewritten once for all of them rather than once per document,
/// and the corpus statistics once. The same index as adding them one at a time.
pub fn add_batch<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    batch: DocumentBatch,
) -> ExecResult<()> {
    let DocumentBatch {
        terms,
        occurrences,
        documents,
        ..
    } = batch;
    // Documents by row, terms by their stored bytes: each one's rank in that order.
    let ranks = |count: usize, order: &mut dyn FnMut(&u32, &u32) -> std::cmp::Ordering| {
        let mut sorted: Vec<u32> = (0..u32::try_from(count).unwrap_or(u32::MAX)).collect();
        sorted.sort_unstable_by(|a, b| order(a, b));
        let mut rank = vec![0u32; count];
        for (at, &item) in sorted.iter().enumerate() {
            if let Some(slot) = rank.get_mut(item as usize) {
                *slot = u32::try_from(at).unwrap_or(u32::MAX);
            }
        }
        (sorted, rank)
    };
    let stats = read_stats(tree, txn)?;
    let skips = stats.has_skips();
    let row_of = |index: &u32| documents.get(*index as usize).map_or(i64::MAX, |d| d.0);
    let (by_row, document_rank) = ranks(documents.len(), &mut |a, b| row_of(a).cmp(&row_of(b)));
    let term_of = |place: &u32| terms.get(*place as usize).map_or("", String::as_str);
    let (by_term, term_rank) = ranks(terms.len(), &mut |a, b| term_of(a).cmp(term_of(b)));
    let mut total_length = 0i64;
    for index in &by_row {
        let (row, length) = documents
            .get(*index as usize)
            .copied()
            .ok_or_else(|| ExecError::internal("full-text index: a pending document lost"))?;
        total_length += i64::from(length);
        if !tree.insert(txn, &format::document_key(row), &varint(u64::from(length)))? {
            return Err(ExecError::internal(format!(
                "full-text index: row {row} is indexed twice"
            )));
        }
    }
    // Every occurrence as (term rank, document rank, position), sorted: grouped by term,
    // then by row, with each document's positions increasing.
    let rank = |ranks: &[u32], at: u32| ranks.get(at as usize).copied().unwrap_or(u32::MAX);
    let mut keys: Vec<(u32, u32, u32)> = occurrences
        .iter()
        .map(|&(place, document, position)| {
            (
                rank(&term_rank, place),
                rank(&document_rank, document),
                position,
            )
        })
        .collect();
    keys.sort_unstable();
    let (mut postings, mut positions) = (Vec::new(), Vec::new());
    let mut at = 0;
    while let Some(&(term_at, ..)) = keys.get(at) {
        let term = by_term
            .get(term_at as usize)
            .map(term_of)
            .ok_or_else(|| ExecError::internal("full-text index: a pending term lost"))?;
        while let Some(&(next_term, document_at, _)) = keys.get(at)
            && next_term == term_at
        {
            positions.clear();
            while let Some(&(t, d, position)) = keys.get(at)
                && (t, d) == (term_at, document_at)
            {
                positions.push(position);
                at += 1;
            }
            let (row, length) = by_row
                .get(document_at as usize)
                .and_then(|&index| documents.get(index as usize))
                .copied()
                .ok_or_else(|| ExecError::internal("full-text index: a pending document lost"))?;
            postings.push(posting_of(tree, txn, term, row, length, &positions)?);
        }
        add_postings(tree, txn, skips, term, std::mem::take(&mut postings))?;
    }
    let count = i64::try_from(documents.len()).unwrap_or(i64::MAX);
    update_stats(tree, txn, stats, count, total_length)
}

/// The posting of `row` under `term`, its positions inline or, when there are many, written
/// as chunks of their own.
fn posting_of<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    term: &str,
    row: i64,
    length: u32,
    positions: &[u32],
) -> ExecResult<OwnedPosting> {
    let tf = u32::try_from(positions.len()).unwrap_or(u32::MAX);
    let mut encoded = Vec::new();
    if tf > INLINE_POSITIONS {
        write_positions(tree, txn, term, row, positions)?;
    } else {
        format::encode_positions(positions, &mut encoded);
    }
    Ok(OwnedPosting {
        row,
        tf,
        length,
        positions: encoded,
    })
}

/// Adds postings (rows increasing, none indexed under `term` yet) to the term's blocks and
/// counts them in its entry. Past the term's last row — documents inserted in row order —
/// they fill the last block and then new full blocks; otherwise each goes where it belongs.
fn add_postings<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    skips: bool,
    term: &str,
    postings: Vec<OwnedPosting>,
) -> ExecResult<()> {
    if postings.len() <= 1 {
        for posting in postings {
            add_posting(tree, txn, skips, term, posting)?;
        }
        return Ok(());
    }
    let prefix = format::postings_prefix(term);
    let (entry, last) = entry_and_last_block(tree, txn, term, &prefix)?;
    let first_new = postings.first().map_or(i64::MIN, |p| p.row);
    let mut open = match &last {
        Some(found) => {
            let (header, _) = format::decode_header(found.first, &found.value)?;
            if first_new <= header.last_row {
                for posting in postings {
                    add_posting(tree, txn, skips, term, posting)?;
                }
                return Ok(());
            }
            Some(BlockBuilder::from_value(found.first, &found.value)?)
        }
        None => None,
    };
    let mut info = term_info(entry.as_ref())?;
    let budget = value_budget(txn.usable_size(), prefix.len() + 8);
    let mut blocks: Vec<BlockBuilder> = Vec::new();
    let held = open.as_ref().map_or(0, BlockBuilder::count);
    let mut current = open.take().unwrap_or_default();
    for posting in &postings {
        info.documents += 1;
        info.max_tf = info.max_tf.max(posting.tf);
        info.min_length = info.min_length.min(posting.length);
        let size = current.posting_size(
            posting.row,
            posting.tf,
            posting.length,
            posting.positions.len(),
        );
        if current.count() > 0
            && (current.count() >= BLOCK_POSTINGS || current.size_with(size) > budget)
        {
            blocks.push(std::mem::take(&mut current));
        }
        current.push(posting.row, posting.tf, posting.length, &posting.positions);
    }
    blocks.push(current);
    // The first block replaces the last one found (same first row) in its leaf; the rest
    // are new keys. Every block but the new last one gets its skip entry (the old last block
    // had none).
    let mut hint = entry.as_ref().and_then(|(_, leaf)| *leaf);
    if skips {
        for block in blocks.iter().take(blocks.len().saturating_sub(1)) {
            let key = format::postings_key(&format::skip_prefix(term), block.first_row());
            tree.upsert(txn, &key, &block.skip())?;
            hint = None;
        }
    }
    for (i, block) in blocks.iter().enumerate() {
        let key = format::postings_key(&prefix, block.first_row());
        match (i, &last) {
            // The last block was full: it stays as it is.
            (0, Some(_)) if block.count() == held => {}
            (0, Some(found)) => tree.replace_near(txn, found.leaf, &key, &block.finish())?,
            _ => {
                tree.upsert(txn, &key, &block.finish())?;
                hint = None;
            }
        }
    }
    tree.replace_near(txn, hint, &format::term_key(term), &info.encode())?;
    Ok(())
}

/// Removes document `row` (its tokens as they were indexed) from the index; whether it was
/// there.
pub fn remove_document<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    row: i64,
    tokens: &[Token],
) -> ExecResult<bool> {
    let stats = read_stats(tree, txn)?;
    let skips = stats.has_skips();
    if !tree.delete(txn, &format::document_key(row))? {
        return Ok(false);
    }
    let length = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
    for (term, positions) in group_terms(tokens).iter() {
        let key = format::term_key(term);
        let (found, hint) = lookup(tree, txn, &key)?;
        let mut info = match found {
            Some(value) => TermInfo::decode(&value)?,
            None => return Err(corrupt("a document's term has no entry")),
        };
        info.documents = info.documents.saturating_sub(1);
        if info.documents == 0 {
            tree.delete(txn, &key)?;
        } else {
            tree.replace_near(txn, hint, &key, &info.encode())?;
        }
        if positions.len() > INLINE_POSITIONS as usize {
            delete_positions(tree, txn, term, row)?;
        }
        remove_posting(tree, txn, skips, term, row)?;
    }
    update_stats(tree, txn, stats, -1, -i64::from(length))?;
    Ok(true)
}

pub(super) fn varint(value: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(4);
    crate::exec::spill::codec::write_varint(value, &mut out);
    out
}

/// The value stored under `key`, and the leaf it is in (a hint for replacing it).
fn lookup<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &W,
    key: &[u8],
) -> ExecResult<(Option<Vec<u8>>, Option<PageNo>)> {
    let mut cursor = tree.cursor(txn);
    if cursor.seek_ge(key)? {
        return Ok((Some(cursor.value().to_vec()), cursor.leaf_page()));
    }
    Ok((None, None))
}

/// The index's statistics entry (that of an empty index of the current layout when there
/// is none yet), read once per write: its layout decides the write, its counts are updated
/// at the end ([`update_stats`]).
fn read_stats<W: PageWrite + ?Sized>(tree: IndexTree, txn: &W) -> ExecResult<format::Stats> {
    match tree.get(txn, &format::stats_key())? {
        Some(value) => format::Stats::decode(&value),
        None => Ok(format::Stats::empty()),
    }
}

/// Writes `stats` (as [`read_stats`] read them at the write's start: nothing else changes
/// them in between) with `documents` and `length` added.
fn update_stats<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    mut stats: format::Stats,
    documents: i64,
    length: i64,
) -> ExecResult<()> {
    stats.documents = stats.documents.saturating_add_signed(documents);
    stats.total_length = stats.total_length.saturating_add_signed(length);
    tree.upsert(txn, &format::stats_key(), &stats.encode())?;
    Ok(())
}

/// A block of a term as found: its first row, its value, the leaf it is in, and whether
/// another block of the term follows it (so, in layout 2, whether it has a skip entry).
struct FoundBlock {
    first: i64,
    value: Vec<u8>,
    leaf: Option<PageNo>,
    followed: bool,
}

/// The block of `term` where `row` belongs: the last block starting at or before it, else
/// the term's first block.
fn find_block<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &W,
    prefix: &[u8],
    row: i64,
) -> ExecResult<Option<FoundBlock>> {
    let mut cursor = tree.cursor(txn);
    cursor.seek_le(&format::postings_key(prefix, row))?;
    if !(cursor.is_valid() && format::block_row(cursor.key(), prefix)?.is_some()) {
        cursor.seek_ge(prefix)?;
    }
    if cursor.is_valid()
        && let Some(first) = format::block_row(cursor.key(), prefix)?
    {
        let (value, leaf) = (cursor.value().to_vec(), cursor.leaf_page());
        cursor.next()?;
        let followed = cursor.is_valid() && format::block_row(cursor.key(), prefix)?.is_some();
        return Ok(Some(FoundBlock {
            first,
            value,
            leaf,
            followed,
        }));
    }
    Ok(None)
}

/// The largest block value a key of `key_len` bytes leaves room for.
fn value_budget(usable_size: usize, key_len: usize) -> usize {
    max_entry_size(usable_size).saturating_sub(key_len + ENTRY_OVERHEAD)
}

/// A term's entry as found: its value and the leaf it is in.
type FoundEntry = (Vec<u8>, Option<PageNo>);

/// The term's entry and its last block, found with one seek (the entry sorts right after
/// the block): (entry value, its leaf), (last block, if any).
fn entry_and_last_block<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &W,
    term: &str,
    prefix: &[u8],
) -> ExecResult<(Option<FoundEntry>, Option<FoundBlock>)> {
    let mut cursor = tree.cursor(txn);
    let entry = if cursor.seek_le(&format::term_key(term))? {
        let found = (cursor.value().to_vec(), cursor.leaf_page());
        cursor.prev()?;
        Some(found)
    } else {
        None
    };
    let block = match cursor.is_valid() {
        true => format::block_row(cursor.key(), prefix)?.map(|first| FoundBlock {
            first,
            value: cursor.value().to_vec(),
            leaf: cursor.leaf_page(),
            followed: false,
        }),
        false => None,
    };
    Ok((entry, block))
}

/// A term's entry as found, or the entry of a term with no documents yet.
fn term_info(entry: Option<&FoundEntry>) -> ExecResult<TermInfo> {
    match entry {
        Some((value, _)) => TermInfo::decode(value),
        None => Ok(TermInfo {
            documents: 0,
            max_tf: 0,
            min_length: u32::MAX,
        }),
    }
}

/// Adds a posting to its term's blocks and counts it in the term's entry.
fn add_posting<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    skips: bool,
    term: &str,
    posting: OwnedPosting,
) -> ExecResult<()> {
    let prefix = format::postings_prefix(term);
    let row = posting.row;
    let (tf, length) = (posting.tf, posting.length);
    let (entry, last) = entry_and_last_block(tree, txn, term, &prefix)?;
    let mut info = term_info(entry.as_ref())?;
    info.documents += 1;
    info.max_tf = info.max_tf.max(tf);
    info.min_length = info.min_length.min(length);
    let budget = value_budget(txn.usable_size(), prefix.len() + 8);
    // The entry's leaf stays a valid hint only while no block write could have freed it
    // (a rewrite may merge leaves; an in-place append or a split frees none).
    let mut hint = entry.as_ref().and_then(|(_, leaf)| *leaf);
    match last {
        None => write_blocks(tree, txn, (&prefix, skips), (None, false), vec![posting])?,
        Some(found) => {
            let (header, _) = format::decode_header(found.first, &found.value)?;
            if row > header.last_row {
                // Past the term's last row (every insert in row order): append the
                // posting's bytes to the last block, or start a new block when it is full.
                let mut builder = BlockBuilder::from_value(found.first, &found.value)?;
                let delta =
                    (row as u64 ^ (1 << 63)).wrapping_sub(header.last_row as u64 ^ (1 << 63));
                let size = format::posting_size(delta, tf, length, posting.positions.len());
                if builder.count() < BLOCK_POSTINGS && builder.size_with(size) <= budget {
                    builder.push(row, tf, length, &posting.positions);
                    tree.replace_near(
                        txn,
                        found.leaf,
                        &format::postings_key(&prefix, found.first),
                        &builder.finish(),
                    )?;
                } else {
                    // A new last block (the full one before it gets its skip entry).
                    write_blocks(tree, txn, (&prefix, skips), (None, false), vec![posting])?;
                    hint = None;
                }
            } else {
                // Inside the list: the block where the row belongs, rewritten.
                let Some(found) = find_block(tree, txn, &prefix, row)? else {
                    return Err(corrupt("a term's blocks vanished"));
                };
                let mut postings = format::decode_owned(found.first, &found.value)?;
                let at = postings.partition_point(|p| p.row < row);
                if postings.get(at).is_some_and(|p| p.row == row) {
                    return Err(corrupt("a row is posted twice under one term"));
                }
                postings.insert(at, posting);
                write_blocks(
                    tree,
                    txn,
                    (&prefix, skips),
                    (Some(&found), found.followed),
                    postings,
                )?;
                hint = None;
            }
        }
    }
    tree.replace_near(txn, hint, &format::term_key(term), &info.encode())?;
    Ok(())
}

fn remove_posting<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    skips: bool,
    term: &str,
    row: i64,
) -> ExecResult<()> {
    let prefix = format::postings_prefix(term);
    let Some(found) = find_block(tree, txn, &prefix, row)? else {
        return Err(corrupt("a document's term has no postings"));
    };
    let first = found.first;
    let mut postings = format::decode_owned(first, &found.value)?;
    let Ok(at) = postings.binary_search_by_key(&row, |p| p.row) else {
        return Err(corrupt("a document is missing from its term's postings"));
    };
    postings.remove(at);
    if postings.len() < BLOCK_POSTINGS / 4 {
        // Merge with the next block when both fit in one.
        let mut cursor = tree.cursor(&*txn);
        if cursor.seek_gt(&format::postings_key(&prefix, first))?
            && let Some(next_first) = format::block_row(cursor.key(), &prefix)?
        {
            let next = format::decode_owned(next_first, cursor.value())?;
            cursor.next()?;
            let next_followed =
                cursor.is_valid() && format::block_row(cursor.key(), &prefix)?.is_some();
            drop(cursor);
            let mut merged = postings.clone();
            merged.extend(next);
            let budget = value_budget(txn.usable_size(), prefix.len() + 8);
            if let [block] = pack(&merged, budget).as_slice()
                && block.count() == merged.len()
            {
                let next_key = format::postings_key(&prefix, next_first);
                tree.delete(txn, &next_key)?;
                if skips {
                    // The next block had a skip entry (it followed this one); the merged
                    // block is followed when the next one was.
                    tree.delete(txn, &format::skip_key_of(&next_key))?;
                }
                return write_blocks(
                    tree,
                    txn,
                    (&prefix, skips),
                    (Some(&found), next_followed),
                    merged,
                );
            }
        }
    }
    write_blocks(
        tree,
        txn,
        (&prefix, skips),
        (Some(&found), found.followed),
        postings,
    )
}

/// Replaces the block `old` (if any; `None` adds blocks past the term's last) with
/// `postings` (rows increasing), split into as many blocks as its size needs; `followed`
/// says whether a block of the term will follow them. With skip entries (`skips`), keeps
/// them: each new block followed by another of the term has one, the term's last has none
/// (`old.followed` says whether the old block had one).
fn write_blocks<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    (prefix, skips): (&[u8], bool),
    (old, followed): (Option<&FoundBlock>, bool),
    postings: Vec<OwnedPosting>,
) -> ExecResult<()> {
    let budget = value_budget(txn.usable_size(), prefix.len() + 8);
    let blocks = pack(&postings, budget);
    let new_first = blocks.first().map(BlockBuilder::first_row);
    if let Some(old) = old
        && new_first != Some(old.first)
    {
        let key = format::postings_key(prefix, old.first);
        tree.delete(txn, &key)?;
        if skips && old.followed {
            tree.delete(txn, &format::skip_key_of(&key))?;
        }
    }
    for (i, block) in blocks.iter().enumerate() {
        let key = format::postings_key(prefix, block.first_row());
        tree.upsert(txn, &key, &block.finish())?;
        if skips && (followed || i + 1 < blocks.len()) {
            tree.upsert(txn, &format::skip_key_of(&key), &block.skip())?;
        } else if skips && old.is_some_and(|old| old.followed && old.first == block.first_row()) {
            // The old block had a skip entry and its rows now end the term (it took in the
            // last block): the term's last block has none.
            tree.delete(txn, &format::skip_key_of(&key))?;
        }
    }
    if skips && !followed && blocks.is_empty() && old.is_some() {
        // The term's last block is gone: the block before it, now the last, loses its skip
        // entry.
        let old_first = old.map_or(i64::MIN, |old| old.first);
        let mut cursor = tree.cursor(&*txn);
        if cursor.seek_lt(&format::postings_key(prefix, old_first))?
            && format::block_row(cursor.key(), prefix)?.is_some()
        {
            let key = format::skip_key_of(cursor.key());
            drop(cursor);
            tree.delete(txn, &key)?;
        }
    }
    if skips && old.is_none() {
        // Blocks added past the last one: the block before them, the last until now, gets
        // its skip entry.
        let mut cursor = tree.cursor(&*txn);
        if let Some(first) = new_first
            && cursor.seek_lt(&format::postings_key(prefix, first))?
            && let Some(before) = format::block_row(cursor.key(), prefix)?
        {
            let (key, value) = (
                format::skip_key_of(cursor.key()),
                format::skip_of_block(before, cursor.value())?,
            );
            drop(cursor);
            tree.upsert(txn, &key, &value)?;
        }
    }
    Ok(())
}

/// `postings` (rows increasing) as blocks that fit: one when it does, else halves.
fn pack(postings: &[OwnedPosting], budget: usize) -> Vec<BlockBuilder> {
    if postings.is_empty() {
        return Vec::new();
    }
    let mut block = BlockBuilder::default();
    for posting in postings {
        block.push(posting.row, posting.tf, posting.length, &posting.positions);
    }
    if postings.len() == 1 || (block.count() <= BLOCK_POSTINGS && block.size_with(0) <= budget) {
        return vec![block];
    }
    let (left, right) = postings.split_at(postings.len() / 2);
    let mut blocks = pack(left, budget);
    blocks.extend(pack(right, budget));
    blocks
}

/// A posting's positions encoded and cut into `'x'` chunks, each ending on a varint
/// boundary (a byte without its high bit ends one).
pub(super) fn position_chunks(positions: &[u32]) -> Vec<Vec<u8>> {
    let mut encoded = Vec::new();
    format::encode_positions(positions, &mut encoded);
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < encoded.len() {
        let mut end = (start + POSITION_CHUNK_BYTES).min(encoded.len());
        while end < encoded.len() && encoded[end - 1] & 0x80 != 0 {
            end += 1;
        }
        chunks.push(encoded[start..end].to_vec());
        start = end;
    }
    chunks
}

/// Writes the positions of a posting with many occurrences as `'x'` chunks.
fn write_positions<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    term: &str,
    row: i64,
    positions: &[u32],
) -> ExecResult<()> {
    for (chunk, bytes) in position_chunks(positions).into_iter().enumerate() {
        let chunk = u16::try_from(chunk)
            .map_err(|_| ExecError::internal("full-text index: too many positions"))?;
        tree.upsert(txn, &format::positions_key(term, row, chunk), &bytes)?;
    }
    Ok(())
}

fn delete_positions<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    term: &str,
    row: i64,
) -> ExecResult<()> {
    let mut chunk = 0u16;
    while tree.delete(txn, &format::positions_key(term, row, chunk))? {
        chunk = chunk.wrapping_add(1);
        if chunk == 0 {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(term: &str, position: u32) -> Token {
        Token {
            term: term.to_string(),
            position,
            start: 0,
            end: 0,
        }
    }

    #[test]
    fn terms_group_in_term_order_with_increasing_positions() {
        let long = "x".repeat(300);
        let tokens = [
            token("pear", 0),
            token("apple", 1),
            token(&long, 2),
            token("pear", 3),
            token("apple", 4),
            token("fig", 6),
            token("pear", 7),
        ];
        let grouped = group_terms(&tokens);
        let got: Vec<(String, Vec<u32>)> = grouped
            .iter()
            .map(|(term, positions)| (term.to_string(), positions.to_vec()))
            .collect();
        let stored_long = stored_term(&long).into_owned();
        let mut want = vec![
            ("apple".to_string(), vec![1, 4]),
            ("fig".to_string(), vec![6]),
            ("pear".to_string(), vec![0, 3, 7]),
            (stored_long, vec![2]),
        ];
        want.sort();
        assert_eq!(got, want);
        assert_eq!(group_terms(&[]).iter().count(), 0);
    }
}
