//! Index writes a transaction has put off: entries an index method chose to merge into its
//! pages later, in one sorted pass, rather than one at a time as rows arrive.
//!
//! The full-text index is the one user. A document touches about seventy terms, each a B-tree
//! descent and two leaf rewrites; two hundred documents merged at once touch each distinct
//! term once (SQLite's FTS5 keeps its pending terms in memory until commit for the same
//! reason). The entries here are opaque to the storage layer: the index's root page, the
//! options its method needs to read them, and the entry's bytes.
//!
//! What it guarantees, with the write transaction (`txn::WriteTxn`), which owns one:
//! - An entry is *pending* until [`DeferredWrites::mark_merged`] says the index's pages hold
//!   it. The owner of the index merges every pending entry before anything reads or changes
//!   that index other than by adding entries, and before commit; `WriteTxn::commit`
//!   refuses to commit while any entry is pending, so none is ever lost silently.
//! - Savepoints: each records how many entries there were and how many were merged. Rolling
//!   back to it undoes the pages (merges included) and drops the entries added since, and the
//!   entries merged since become pending again — so merged entries are kept in memory while a
//!   savepoint that predates their merge is open, and let go once none is.

use std::sync::Arc;

use crate::storage::PageNo;

/// One put-off entry.
#[derive(Clone, Debug)]
pub struct DeferredEntry {
    /// The index's root page.
    pub root: PageNo,
    /// What the index method needs to read `entry` (for full text, its analyzer options).
    pub options: Arc<str>,
    /// The entry, as the index method encoded it.
    pub entry: Vec<u8>,
}

/// The put-off entries of one write transaction, oldest first.
#[derive(Debug, Default)]
pub struct DeferredWrites {
    entries: Vec<DeferredEntry>,
    /// `entries[..merged]` are in the index pages already (kept for savepoints).
    merged: usize,
    /// Bytes of the pending entries.
    pending_bytes: usize,
}

/// Where a savepoint found the entries: how many, and how many were merged.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DeferredMark {
    len: usize,
    merged: usize,
}

impl DeferredWrites {
    /// Adds a pending entry.
    pub fn push(&mut self, entry: DeferredEntry) {
        self.pending_bytes += entry.entry.len();
        self.entries.push(entry);
    }

    /// The entries not yet merged, oldest first.
    pub fn pending(&self) -> &[DeferredEntry] {
        self.entries.get(self.merged..).unwrap_or_default()
    }

    /// Whether any entry is waiting to be merged.
    pub fn has_pending(&self) -> bool {
        self.merged < self.entries.len()
    }

    /// The bytes of the pending entries (a caller merges early to bound its memory).
    pub fn pending_bytes(&self) -> usize {
        self.pending_bytes
    }

    /// Records that every pending entry is now in its index's pages.
    pub fn mark_merged(&mut self) {
        self.merged = self.entries.len();
        self.pending_bytes = 0;
    }

    pub(crate) fn mark(&self) -> DeferredMark {
        DeferredMark {
            len: self.entries.len(),
            merged: self.merged,
        }
    }

    /// Back to `mark`, as the pages go back to the savepoint that took it.
    pub(crate) fn rollback_to(&mut self, mark: DeferredMark) {
        self.entries.truncate(mark.len);
        self.merged = mark.merged.min(self.entries.len());
        self.pending_bytes = self.pending().iter().map(|e| e.entry.len()).sum();
    }

    /// Lets go of merged entries once no savepoint could bring them back.
    pub(crate) fn forget_merged(&mut self) {
        self.entries.drain(..self.merged);
        self.merged = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(byte: u8) -> DeferredEntry {
        DeferredEntry {
            root: 7,
            options: Arc::from(""),
            entry: vec![byte; 3],
        }
    }

    #[test]
    fn a_rollback_drops_later_entries_and_reopens_later_merges() {
        let mut deferred = DeferredWrites::default();
        deferred.push(entry(1));
        deferred.push(entry(2));
        deferred.mark_merged();
        deferred.push(entry(3));
        let mark = deferred.mark();
        deferred.push(entry(4));
        deferred.mark_merged();
        deferred.push(entry(5));
        assert_eq!(deferred.pending().len(), 1);
        deferred.rollback_to(mark);
        // Entry 3 was pending at the mark and is again; 4 and 5 came after it.
        let pending: Vec<u8> = deferred.pending().iter().map(|e| e.entry[0]).collect();
        assert_eq!(pending, vec![3]);
        assert_eq!(deferred.pending_bytes(), 3);
        deferred.mark_merged();
        deferred.forget_merged();
        assert!(!deferred.has_pending());
        assert!(deferred.entries.is_empty());
    }
}
