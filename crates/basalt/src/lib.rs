//! Basalt: an embedded SQL database in one file.
//!
//! The crate is layered as `docs/architecture.md` describes: [`storage`] (files, pages, the
//! write-ahead log, B+trees) and [`txn`] (snapshots and the single writer) at the bottom;
//! [`catalog`] (schema objects persisted in a system tree) and [`types`] (SQL values) beside
//! them; and the SQL engine above: [`sql`] (parsing), [`plan`] (bound statements) and
//! [`exec`] (vectorised operators over column batches). Every error carries a SQLSTATE from
//! [`sqlstate`].

mod api;
pub mod catalog;
pub mod exec;
pub mod plan;
pub mod sql;
pub mod sqlstate;
pub mod storage;
pub mod txn;
pub mod types;

pub use api::{
    CachedStatement, Connection, Database, Error, ErrorKind, FromSql, InterruptHandle, Options,
    Params, Result, Row, RowIndex, Rows, Statement, ToSql, Transaction, ValueRef,
};
pub use api::{ColumnDescription, Execution, ParameterDescription, Session, StatementDescription};
pub use api::{SchemaKind, SchemaObject, quote_identifier};
pub use sqlstate::SqlState;
pub use storage::pager::Synchronous;
pub use types::{DataType, TypeModifier, Value};
