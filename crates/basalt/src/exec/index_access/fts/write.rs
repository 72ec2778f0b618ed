//! Keeping a full-text index in step with its rows: a document added (INSERT, the new side of
//! an UPDATE), a document removed (DELETE, the old side), and the bulk build of CREATE INDEX,
//! REINDEX and VACUUM.
//!
//! What it guarantees: after each call the index holds exactly the postings, term entries,
//! document entry and statistics of the documents added and not removed (`format` gives the
//! layout), inside the caller's transaction. Blocks stay within [`BLOCK_POSTINGS`] postings
//! and an entry's size; a block that would outgrow either is split (a posting appended past
//! a full last block starts a new one, so rows inserted in order leave full blocks), and a
//! block that shrinks below a quarter merges with the next block of its term when both fit
//! in one — the only merging there is, bounded to one block per term per write, so the index
//! never needs an OPTIMIZE.

use std::collections::BTreeMap;

use crate::exec::error::{ExecError, ExecResult};
use crate::storage::PageWrite;
use crate::storage::btree::IndexTree;
use crate::types::text_search::Token;

use super::format::{
    self, BLOCK_POSTINGS, INLINE_POSITIONS, POSITION_CHUNK_BYTES, Posting, TermInfo, corrupt,
    stored_term,
};

/// A document's terms (as stored) with their positions, in term order.
pub fn group_terms(tokens: &[Token]) -> BTreeMap<String, Vec<u32>> {
    let mut terms: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for token in tokens {
        terms
            .entry(stored_term(&token.term).into_owned())
            .or_default()
            .push(token.position);
    }
    terms
}

/// Adds document `row` (its tokens) to the index in `tree`.
pub fn add_document<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    row: i64,
    tokens: &[Token],
) -> ExecResult<()> {
    let length = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
    if !tree.insert(txn, &format::document_key(row), &varint(u64::from(length)))? {
        return Err(ExecError::internal(format!(
            "full-text index: row {row} is indexed twice"
        )));
    }
    for (term, positions) in group_terms(tokens) {
        let tf = u32::try_from(positions.len()).unwrap_or(u32::MAX);
        let key = format::term_key(&term);
        let mut info = match tree.get(&*txn, &key)? {
            Some(value) => TermInfo::decode(&value)?,
            None => TermInfo {
                documents: 0,
                max_tf: 0,
                min_length: u32::MAX,
            },
        };
        info.documents += 1;
        info.max_tf = info.max_tf.max(tf);
        info.min_length = info.min_length.min(length);
        tree.upsert(txn, &key, &info.encode())?;
        if tf > INLINE_POSITIONS {
            write_positions(tree, txn, &term, row, &positions)?;
        }
        let posting = Posting {
            row,
            tf,
            length,
            positions: if tf > INLINE_POSITIONS {
                Vec::new()
            } else {
                positions
            },
        };
        add_posting(tree, txn, &term, posting)?;
    }
    update_stats(tree, txn, 1, i64::from(length))
}

/// Removes document `row` (its tokens as they were indexed) from the index; whether it was
/// there.
pub fn remove_document<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    row: i64,
    tokens: &[Token],
) -> ExecResult<bool> {
    if !tree.delete(txn, &format::document_key(row))? {
        return Ok(false);
    }
    let length = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
    for (term, positions) in group_terms(tokens) {
        let key = format::term_key(&term);
        let mut info = match tree.get(&*txn, &key)? {
            Some(value) => TermInfo::decode(&value)?,
            None => return Err(corrupt("a document's term has no entry")),
        };
        info.documents = info.documents.saturating_sub(1);
        if info.documents == 0 {
            tree.delete(txn, &key)?;
        } else {
            tree.upsert(txn, &key, &info.encode())?;
        }
        if positions.len() > INLINE_POSITIONS as usize {
            delete_positions(tree, txn, &term, row)?;
        }
        remove_posting(tree, txn, &term, row)?;
    }
    update_stats(tree, txn, -1, -i64::from(length))?;
    Ok(true)
}

fn varint(value: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(4);
    crate::exec::spill::codec::write_varint(value, &mut out);
    out
}

fn update_stats<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    documents: i64,
    length: i64,
) -> ExecResult<()> {
    let (count, total) = match tree.get(&*txn, &format::stats_key())? {
        Some(value) => format::decode_stats(&value)?,
        None => (0, 0),
    };
    let count = count.saturating_add_signed(documents);
    let total = total.saturating_add_signed(length);
    tree.upsert(
        txn,
        &format::stats_key(),
        &format::encode_stats(count, total),
    )?;
    Ok(())
}

/// The block of `term` where `row` belongs: the last block starting at or before it, else
/// the term's first block; its first row and value.
fn find_block<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &W,
    prefix: &[u8],
    row: i64,
) -> ExecResult<Option<(i64, Vec<u8>)>> {
    let mut cursor = tree.cursor(txn);
    cursor.seek_le(&format::postings_key(prefix, row))?;
    if cursor.is_valid()
        && let Some(first) = format::block_row(cursor.key(), prefix)?
    {
        return Ok(Some((first, cursor.value().to_vec())));
    }
    cursor.seek_ge(prefix)?;
    if cursor.is_valid()
        && let Some(first) = format::block_row(cursor.key(), prefix)?
    {
        return Ok(Some((first, cursor.value().to_vec())));
    }
    Ok(None)
}

/// The largest block value a key of `key_len` bytes leaves room for.
fn value_budget<W: PageWrite + ?Sized>(txn: &W, key_len: usize) -> usize {
    crate::storage::btree::index_page::max_entry_size(txn.usable_size())
        .saturating_sub(key_len + crate::storage::btree::index_page::ENTRY_OVERHEAD)
}

fn add_posting<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    term: &str,
    posting: Posting,
) -> ExecResult<()> {
    let prefix = format::postings_prefix(term);
    let row = posting.row;
    let Some((first, value)) = find_block(tree, txn, &prefix, row)? else {
        return write_blocks(tree, txn, &prefix, None, vec![posting]);
    };
    let mut postings = Vec::new();
    format::decode_block(first, &value, true, &mut postings)?;
    let at = postings.partition_point(|p| p.row < row);
    if postings.get(at).is_some_and(|p| p.row == row) {
        return Err(corrupt("a row is posted twice under one term"));
    }
    postings.insert(at, posting);
    write_blocks(tree, txn, &prefix, Some(first), postings)
}

fn remove_posting<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    term: &str,
    row: i64,
) -> ExecResult<()> {
    let prefix = format::postings_prefix(term);
    let Some((first, value)) = find_block(tree, txn, &prefix, row)? else {
        return Err(corrupt("a document's term has no postings"));
    };
    let mut postings = Vec::new();
    format::decode_block(first, &value, true, &mut postings)?;
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
            let mut next = Vec::new();
            format::decode_block(next_first, cursor.value(), true, &mut next)?;
            drop(cursor);
            let key_len = prefix.len() + 8;
            let mut merged = postings.clone();
            merged.extend(next.iter().cloned());
            if merged.len() <= BLOCK_POSTINGS
                && format::encode_block(&merged).len() <= value_budget(txn, key_len)
            {
                tree.delete(txn, &format::postings_key(&prefix, next_first))?;
                return write_blocks(tree, txn, &prefix, Some(first), merged);
            }
        }
    }
    write_blocks(tree, txn, &prefix, Some(first), postings)
}

/// Replaces the block that started at `old_first` (if any) with `postings` (rows
/// increasing), split into as many blocks as its size needs.
fn write_blocks<W: PageWrite + ?Sized>(
    tree: IndexTree,
    txn: &mut W,
    prefix: &[u8],
    old_first: Option<i64>,
    postings: Vec<Posting>,
) -> ExecResult<()> {
    let budget = value_budget(txn, prefix.len() + 8);
    let blocks = pack(postings, budget);
    let new_first = blocks
        .first()
        .and_then(|block| block.first())
        .map(|p| p.row);
    if let Some(old) = old_first
        && new_first != Some(old)
    {
        tree.delete(txn, &format::postings_key(prefix, old))?;
    }
    for block in &blocks {
        let Some(first) = block.first() else {
            continue;
        };
        tree.upsert(
            txn,
            &format::postings_key(prefix, first.row),
            &format::encode_block(block),
        )?;
    }
    Ok(())
}

/// `postings` cut into blocks that fit: one block when it does; a posting appended past a
/// full block alone in a new one (in-order inserts keep blocks full); else halves.
fn pack(postings: Vec<Posting>, budget: usize) -> Vec<Vec<Posting>> {
    let fits = |block: &[Posting]| {
        block.len() <= BLOCK_POSTINGS && format::encode_block(block).len() <= budget
    };
    if postings.len() <= 1 || fits(&postings) {
        return vec![postings];
    }
    let mut postings = postings;
    let split = if fits(&postings[..postings.len() - 1]) {
        postings.len() - 1
    } else {
        postings.len() / 2
    };
    let right = postings.split_off(split);
    let mut blocks = pack(postings, budget);
    blocks.extend(pack(right, budget));
    blocks
}

/// A posting's positions encoded and cut into `'x'` chunks, each ending on a varint
/// boundary (a byte without its high bit ends one).
fn position_chunks(positions: &[u32]) -> Vec<Vec<u8>> {
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

/// Builds the entries of an index over `documents` (row, tokens) in one pass, sorted by key,
/// for a bulk load into an empty tree: postings are encoded into blocks as each term's list
/// grows, so memory holds the encoded index, not the documents' tokens.
pub fn build_entries(
    documents: impl Iterator<Item = ExecResult<(i64, Vec<Token>)>>,
    usable_size: usize,
) -> ExecResult<Vec<(Vec<u8>, Vec<u8>)>> {
    struct TermBuild {
        info: TermInfo,
        open: Vec<Posting>,
        blocks: Vec<(Vec<u8>, Vec<u8>)>,
        positions: Vec<(Vec<u8>, Vec<u8>)>,
    }
    let max_entry = crate::storage::btree::index_page::max_entry_size(usable_size);
    let mut terms: BTreeMap<String, TermBuild> = BTreeMap::new();
    let mut entries: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let (mut documents_count, mut total_length) = (0u64, 0u64);
    let mut previous_row: Option<i64> = None;
    let flush = |term: &str, build: &mut TermBuild| {
        let prefix = format::postings_prefix(term);
        let budget = max_entry
            .saturating_sub(prefix.len() + 8 + crate::storage::btree::index_page::ENTRY_OVERHEAD);
        for block in pack(std::mem::take(&mut build.open), budget) {
            if let Some(first) = block.first() {
                build.blocks.push((
                    format::postings_key(&prefix, first.row),
                    format::encode_block(&block),
                ));
            }
        }
    };
    for document in documents {
        let (row, tokens) = document?;
        if previous_row.is_some_and(|previous| previous >= row) {
            return Err(ExecError::internal(
                "full-text index build: rows must come in increasing order",
            ));
        }
        previous_row = Some(row);
        let length = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
        documents_count += 1;
        total_length += u64::from(length);
        entries.push((format::document_key(row), varint(u64::from(length))));
        for (term, positions) in group_terms(&tokens) {
            let tf = u32::try_from(positions.len()).unwrap_or(u32::MAX);
            let build = terms.entry(term.clone()).or_insert_with(|| TermBuild {
                info: TermInfo {
                    documents: 0,
                    max_tf: 0,
                    min_length: u32::MAX,
                },
                open: Vec::new(),
                blocks: Vec::new(),
                positions: Vec::new(),
            });
            build.info.documents += 1;
            build.info.max_tf = build.info.max_tf.max(tf);
            build.info.min_length = build.info.min_length.min(length);
            let inline = tf <= INLINE_POSITIONS;
            if !inline {
                for (chunk, bytes) in position_chunks(&positions).into_iter().enumerate() {
                    let chunk = u16::try_from(chunk)
                        .map_err(|_| ExecError::internal("full-text index: too many positions"))?;
                    build
                        .positions
                        .push((format::positions_key(&term, row, chunk), bytes));
                }
            }
            build.open.push(Posting {
                row,
                tf,
                length,
                positions: if inline { positions } else { Vec::new() },
            });
            if build.open.len() >= BLOCK_POSTINGS {
                flush(&term, build);
            }
        }
    }
    for (term, build) in &mut terms {
        flush(term, build);
    }
    entries.push((
        format::stats_key().to_vec(),
        format::encode_stats(documents_count, total_length),
    ));
    for (term, build) in terms {
        entries.push((format::term_key(&term), build.info.encode()));
        entries.extend(build.blocks);
        entries.extend(build.positions);
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}
