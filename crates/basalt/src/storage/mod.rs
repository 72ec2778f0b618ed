//! The storage engine: files, pages, the write-ahead log, and B+trees.
//!
//! Layers from the bottom: [`vfs`] (files) → [`page`] and [`format`] (page images, the file
//! header) → [`cache`] and [`wal`] → [`pager`] (snapshots of pages, commits, checkpoints) →
//! [`btree`] (table trees keyed by row id, index trees keyed by memcomparable bytes from
//! [`keys`]). Transactions (`crate::txn`) sit on the pager and hand B+trees a page view.

// Every narrowing cast in the file-format code states why it cannot lose bits.
#![cfg_attr(not(test), deny(clippy::cast_possible_truncation))]

pub mod btree;
pub mod cache;
pub mod deferred;
pub mod error;
pub mod format;
pub mod keys;
pub mod page;
pub mod pager;
pub mod vfs;
pub mod wal;

pub use error::{Result, StorageError};
pub use page::{PageBuf, PageNo, PageRead, PageRef, PageWrite};
