//! Documents added to a full-text index inside a transaction, put off and merged into the
//! index's pages in one pass ([`write::add_batch`]): at commit, before anything in the
//! transaction reads or otherwise changes a full-text index, and whenever the put-off
//! documents outgrow [`MERGE_BYTES`]. The transaction keeps them (`storage::deferred`),
//! with savepoints that know which were merged.
//!
//! Why: a document is about seventy distinct terms, and adding it alone costs each term a
//! B-tree descent and two leaf rewrites; merged together, documents that share a term share
//! that work, and the corpus statistics are written once. What it guarantees: the index
//! after a merge is the one adding each document at once would have built, and nothing reads
//! an index while documents of its transaction are still put off (the callers named in each
//! function's doc merge first).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::exec::error::ExecResult;
use crate::storage::btree::IndexTree;
use crate::storage::deferred::DeferredEntry;
use crate::storage::{PageNo, PageWrite};

use super::{decode_entry, write};

/// Put-off documents past this many bytes of entries are merged at once, bounding the
/// memory a long loading transaction holds (a 100-word document's entry is about 700 bytes).
pub const MERGE_BYTES: usize = 32 << 20;

/// Puts off adding the document of `entry` (an index entry: the row id and its texts) to the
/// index at `root`, read with the analyzer options `options` gives; `false` when `txn` keeps
/// no put-off entries (the caller adds it at once).
pub fn defer<W: PageWrite + ?Sized>(
    txn: &mut W,
    root: PageNo,
    options: impl FnOnce() -> String,
    entry: &[u8],
) -> ExecResult<bool> {
    let Some(deferred) = txn.deferred_writes() else {
        return Ok(false);
    };
    // Documents of one index share one copy of its options, and a document after another of
    // the same index takes it without formatting them again: an index's options cannot
    // change while documents of it are pending (a drop merges them first).
    let options = match deferred.pending().last() {
        Some(last) if last.root == root => last.options.clone(),
        _ => Arc::from(options()),
    };
    deferred.push(DeferredEntry {
        root,
        options,
        entry: entry.to_vec(),
    });
    if deferred.pending_bytes() >= MERGE_BYTES {
        merge_pending(txn)?;
    }
    Ok(true)
}

/// Merges every put-off document of `txn` into its index: before a commit, and before
/// anything reads a full-text index or changes one other than by adding documents.
pub fn merge_pending<W: PageWrite + ?Sized>(txn: &mut W) -> ExecResult<()> {
    let Some(deferred) = txn.deferred_writes() else {
        return Ok(());
    };
    if !deferred.has_pending() {
        return Ok(());
    }
    let pending = deferred.pending().to_vec();
    // Per index, its analyzer options and its documents, in the order they came.
    let mut indexes: BTreeMap<PageNo, (Arc<str>, Vec<&[u8]>)> = BTreeMap::new();
    for entry in &pending {
        indexes
            .entry(entry.root)
            .or_insert_with(|| (entry.options.clone(), Vec::new()))
            .1
            .push(&entry.entry);
    }
    for (root, (options, entries)) in indexes {
        let analyzer = crate::types::text_search::analyzer::cached(&options)?;
        let mut batch = write::DocumentBatch::default();
        for entry in entries {
            let (row, texts) = decode_entry(entry)?;
            batch.add(row, |sink| {
                analyzer.each_term_of_texts(texts.iter().copied(), sink)
            })?;
        }
        write::add_batch(IndexTree::open(root), txn, batch)?;
    }
    if let Some(deferred) = txn.deferred_writes() {
        deferred.mark_merged();
    }
    Ok(())
}
