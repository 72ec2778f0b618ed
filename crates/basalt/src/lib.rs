//! Basalt: an embedded SQL database in one file.
//!
//! The crate is layered as `docs/architecture.md` describes. Today it holds the storage
//! engine ([`storage`]: files, pages, the write-ahead log, B+trees), the transaction layer
//! ([`txn`]: snapshots and the single writer) that everything above is built on, the shared
//! value types ([`types`]), and the SQL parsing layer ([`sql`]).

pub mod sql;
pub mod storage;
pub mod txn;
pub mod types;
