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
}

impl PageSource {
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
