//! Basalt: an embedded SQL database in one file.
//!
//! The public surface is the API: [`Database`], the owned [`Session`] and the
//! rusqlite-shaped [`Connection`] / [`Statement`] / [`Rows`] over it, [`Value`] and
//! [`DataType`] with their descriptors ([`TypeDescriptor`]), [`Error`] with its SQLSTATE from
//! [`sqlstate`], and the SQL dialect ([`BasaltDialect`]) for tools that tokenize Basalt's SQL.
//! Everything else is the engine, private to the crate and layered as
//! `docs/architecture.md` describes: `storage` (files, pages, the write-ahead log, B+trees)
//! and `txn` (snapshots and the single writer) at the bottom; `catalog` (schema objects
//! persisted in a system tree) and `types` (SQL values) beside them; and the SQL engine
//! above: `sql` (parsing), `plan` (bound statements) and `exec` (vectorised operators over
//! column batches).

mod api;
mod catalog;
mod exec;
mod plan;
mod sql;
pub mod sqlstate;
// The storage engine is public only with the `internals` feature, which the crate's own
// storage-level tests, benchmarks and fuzz targets enable; the rest of its API (crash
// simulation, page-level checks, raw tree access) is theirs, so it is dead code without it.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod storage;
#[cfg(not(feature = "internals"))]
#[allow(
    dead_code,
    unused_imports,
    reason = "parts of the storage API serve only the storage-level tests (feature `internals`)"
)]
mod storage;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod txn;
#[cfg(not(feature = "internals"))]
#[allow(
    dead_code,
    reason = "parts of the transaction API serve only the storage-level tests (feature `internals`)"
)]
mod txn;
mod types;

pub use api::{
    CachedStatement, Connection, Database, Error, ErrorKind, FromSql, InterruptHandle, Options,
    Params, Result, Row, RowIndex, Rows, Statement, ToSql, Transaction, ValueRef,
};
pub use api::{
    ColumnDescription, Execution, ParameterDescription, Session, SessionTimeouts,
    StatementDescription,
};
pub use api::{
    PostgresOptions, PostgresSchema, PostgresTable, SchemaKind, SchemaObject, SequencePosition,
    quote_identifier, split_statements,
};
pub use sql::BasaltDialect;
pub use sqlstate::SqlState;
pub use storage::pager::Synchronous;
pub use types::array::Dimension as ArrayDimension;
/// The calendar arithmetic of `DATE` and `TIMESTAMP` values (days since 1970-01-01), for
/// bindings that convert them to their language's date types.
pub use types::datetime::{civil_from_days, days_from_civil};
pub use types::{
    Array, DataType, Interval, ModifierKind, Numeric, TypeDescriptor, TypeModifier, Value,
};
