//! Basalt: an embedded SQL database in one file.
//!
//! The crate is layered as `docs/architecture.md` describes. Today it holds the storage
//! engine ([`storage`]: files, pages, the write-ahead log, B+trees) and the transaction layer
//! ([`txn`]: snapshots and the single writer) that everything above is built on.

pub mod storage;
pub mod txn;
pub mod types;
