//! The transaction an execution reads from, as a cheap, cloneable page source.
//!
//! Operators own their cursors (so query results can stream after the call that started
//! them returns), and cursors own their page source. A read transaction is shared as an
//! `Arc`; a write transaction sits behind a mutex that is held only for the duration of one
//! page fetch or one modification, so a statement can scan the table it is about to change
//! (cursors keep the page images they pinned; writes copy on write).

use std::sync::Arc;

use parking_lot::Mutex;

use crate::storage::{PageNo, PageRead, PageRef, Result};
use crate::txn::{ReadTxn, WriteTxn};

/// Where an execution reads pages from.
#[derive(Clone, Debug)]
pub enum PageSource {
    /// A read-only snapshot.
    Read(Arc<ReadTxn>),
    /// The write transaction (its own changes included).
    Write(Arc<Mutex<WriteTxn>>),
}

impl PageRead for PageSource {
    fn page(&self, page_no: PageNo) -> Result<PageRef> {
        match self {
            PageSource::Read(txn) => txn.page(page_no),
            PageSource::Write(txn) => txn.lock().page(page_no),
        }
    }

    fn usable_size(&self) -> usize {
        match self {
            PageSource::Read(txn) => txn.usable_size(),
            PageSource::Write(txn) => txn.lock().usable_size(),
        }
    }

    fn generation(&self) -> Option<u64> {
        match self {
            PageSource::Read(txn) => txn.generation(),
            PageSource::Write(txn) => txn.lock().generation(),
        }
    }
}

impl PageSource {
    /// Merges the documents the write transaction has put off adding to its full-text
    /// indexes (`fts::deferred`): what anything reading a full-text index calls first, so a
    /// transaction sees its own writes. Nothing to do for a read snapshot.
    pub fn merge_deferred(&self) -> crate::exec::error::ExecResult<()> {
        match self {
            PageSource::Read(_) => Ok(()),
            PageSource::Write(txn) => {
                crate::exec::index_access::fts::deferred::merge_pending(&mut *txn.lock())
            }
        }
    }

    /// The file header as this source sees it (page count, free list).
    pub fn header(&self) -> crate::storage::format::Header {
        match self {
            PageSource::Read(txn) => *txn.header(),
            PageSource::Write(txn) => *txn.lock().header(),
        }
    }

    /// Meta slot `slot` as this source sees it.
    pub fn meta(&self, slot: usize) -> u64 {
        match self {
            PageSource::Read(txn) => txn.meta(slot),
            PageSource::Write(txn) => txn.lock().meta(slot),
        }
    }

    /// Whether meta slot `slot` as this source sees it is a committed value: always for a
    /// read snapshot, and for the write transaction until it changes the slot itself.
    pub fn sees_committed_meta(&self, slot: usize) -> bool {
        match self {
            PageSource::Read(_) => true,
            PageSource::Write(txn) => {
                let txn = txn.lock();
                txn.meta(slot) == txn.committed_meta(slot)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::btree::{CellValue, ColumnKind, TableTree};
    use crate::storage::page::PageWrite;
    use crate::txn::{Store, StoreOptions};

    /// A statement reads through the write transaction while the same transaction changes
    /// pages; a cursor that outlives such changes must see them. Its remembered interior
    /// pages must be dropped when the tree splits under it and when a savepoint rolls back.
    #[test]
    fn a_cursor_kept_across_writes_sees_splits_and_rollbacks() {
        let store = Store::open_in_memory(StoreOptions::default()).unwrap();
        let txn = Arc::new(Mutex::new(store.begin_write().unwrap()));
        let tree = TableTree::create(&mut *txn.lock()).unwrap();
        let insert = |row_ids: &mut dyn Iterator<Item = i64>| {
            for row_id in row_ids {
                let value = [CellValue::Fixed(row_id as u64 * 3)];
                assert!(
                    tree.insert(&mut *txn.lock(), row_id, &[ColumnKind::Fixed8], &value)
                        .unwrap()
                );
            }
        };
        let mut cursor = tree.cursor(PageSource::Write(txn.clone()));
        let found = |cursor: &mut crate::storage::btree::TableCursor<PageSource>, row_id| {
            cursor.seek_ge(row_id).unwrap()
                && cursor.value_ref(0).unwrap()
                    == crate::storage::btree::ValueRef::Fixed(row_id as u64 * 3)
        };

        insert(&mut (0..20_000).map(|i| i * 2));
        assert!(found(&mut cursor, 10_000));
        assert!(!found(&mut cursor, 10_001));
        // Odd row ids fill every leaf again and split the interior levels the cursor saw.
        insert(&mut (0..20_000).map(|i| i * 2 + 1));
        for row_id in (1..40_000).step_by(997) {
            assert!(found(&mut cursor, row_id), "row {row_id} after the splits");
        }

        let savepoint = txn.lock().savepoint();
        insert(&mut (40_000..60_000));
        assert!(found(&mut cursor, 59_999));
        txn.lock().rollback_to_savepoint(savepoint).unwrap();
        assert!(
            !cursor.seek_ge(45_000).unwrap(),
            "rolled back rows are gone"
        );
        assert!(found(&mut cursor, 39_999));
        // The page list itself changed back too: allocate and free through the same source.
        let page_no = txn.lock().allocate_page().unwrap();
        txn.lock().free_page(page_no).unwrap();
        assert!(found(&mut cursor, 12_345));
    }
}
