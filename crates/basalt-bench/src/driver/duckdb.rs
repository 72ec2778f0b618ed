//! The `duckdb` driver (cargo feature `duckdb`): the `duckdb` crate with its bundled DuckDB at
//! default settings, used through its rusqlite-like API — `prepare_cached`, bound parameters,
//! `Rows::next`, `Row::get_ref`.
//!
//! DuckDB is the analytics comparator (groups A and B). It types results more finely than
//! SQLite or Basalt — `SUM` over integers is a 128-bit `HUGEINT`, `INTEGER` is 32-bit — so
//! values are widened to the suite's [`Val`] here; a value that does not fit is an error
//! rather than a silent truncation.

use std::sync::Mutex;

use anyhow::Context as _;
use duckdb::types::{ToSqlOutput, ValueRef};

use super::{Db, Location, RowRef, RowSink, STATEMENT_CACHE, Session, Val};

/// Opens a DuckDB database at its defaults.
pub fn open(location: &Location) -> anyhow::Result<Box<dyn Db>> {
    let connection = match location {
        Location::File(path) => {
            duckdb::Connection::open(path).with_context(|| format!("opening {}", path.display()))?
        }
        Location::Memory => duckdb::Connection::open_in_memory()?,
    };
    Ok(Box::new(DuckDb {
        root: Mutex::new(connection),
    }))
}

/// DuckDB shares one database instance between connections made with `try_clone`.
struct DuckDb {
    root: Mutex<duckdb::Connection>,
}

impl Db for DuckDb {
    fn connect(&self) -> anyhow::Result<Box<dyn Session>> {
        let root = self
            .root
            .lock()
            .map_err(|_| anyhow::anyhow!("DuckDB connection mutex poisoned"))?;
        let connection = root.try_clone()?;
        connection.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        Ok(Box::new(DuckSession { connection }))
    }
}

struct DuckSession {
    connection: duckdb::Connection,
}

impl duckdb::ToSql for Val<'_> {
    fn to_sql(&self) -> duckdb::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Val::Null => ValueRef::Null,
            Val::Int(v) => ValueRef::BigInt(v),
            Val::Real(v) => ValueRef::Double(v),
            Val::Text(v) => ValueRef::Text(v.as_bytes()),
            Val::Blob(v) => ValueRef::Blob(v),
            // No DuckDB workload binds vectors; the blob of little-endian f32s, as SQLite
            // gets, keeps the conversion total.
            Val::Vector(v) => {
                return Ok(ToSqlOutput::Owned(duckdb::types::Value::Blob(
                    super::vector_bytes(v),
                )));
            }
        }))
    }
}

impl Session for DuckSession {
    fn execute(&mut self, sql: &str, params: &[Val<'_>]) -> anyhow::Result<u64> {
        let mut statement = self.connection.prepare_cached(sql)?;
        Ok(statement.execute(duckdb::params_from_iter(params.iter()))? as u64)
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[Val<'_>],
        sink: &mut dyn RowSink,
    ) -> anyhow::Result<()> {
        let mut statement = self.connection.prepare_cached(sql)?;
        let mut rows = statement.query(duckdb::params_from_iter(params.iter()))?;
        // DuckDB knows a statement's columns once it has run.
        let columns = rows
            .as_ref()
            .map_or(0, |statement| statement.column_count());
        while let Some(row) = rows.next()? {
            sink.row(&DuckRow { row, columns })?;
        }
        Ok(())
    }

    fn execute_batch(&mut self, sql: &str) -> anyhow::Result<()> {
        self.connection.execute_batch(sql)?;
        Ok(())
    }

    fn is_retryable(&self, error: &anyhow::Error) -> bool {
        // DuckDB reports write-write conflicts between transactions as errors whose message
        // says so; it has no busy code.
        error
            .downcast_ref::<duckdb::Error>()
            .is_some_and(|error| error.to_string().contains("Conflict"))
    }
}

struct DuckRow<'a, 'r> {
    row: &'r duckdb::Row<'a>,
    columns: usize,
}

impl RowRef for DuckRow<'_, '_> {
    fn column_count(&self) -> usize {
        self.columns
    }

    fn value(&self, column: usize) -> anyhow::Result<Val<'_>> {
        let value = self.row.get_ref(column)?;
        Ok(match value {
            ValueRef::Null => Val::Null,
            ValueRef::Boolean(v) => Val::Int(i64::from(v)),
            ValueRef::TinyInt(v) => Val::Int(i64::from(v)),
            ValueRef::SmallInt(v) => Val::Int(i64::from(v)),
            ValueRef::Int(v) => Val::Int(i64::from(v)),
            ValueRef::BigInt(v) => Val::Int(v),
            ValueRef::HugeInt(v) => Val::Int(
                i64::try_from(v).with_context(|| format!("HUGEINT {v} does not fit in i64"))?,
            ),
            ValueRef::UTinyInt(v) => Val::Int(i64::from(v)),
            ValueRef::USmallInt(v) => Val::Int(i64::from(v)),
            ValueRef::UInt(v) => Val::Int(i64::from(v)),
            ValueRef::UBigInt(v) => Val::Int(
                i64::try_from(v).with_context(|| format!("UBIGINT {v} does not fit in i64"))?,
            ),
            ValueRef::Float(v) => Val::Real(f64::from(v)),
            ValueRef::Double(v) => Val::Real(v),
            ValueRef::Decimal(v) => Val::Real(
                v.to_string()
                    .parse::<f64>()
                    .with_context(|| format!("DECIMAL {v} is not a number"))?,
            ),
            ValueRef::Text(v) => Val::Text(std::str::from_utf8(v)?),
            ValueRef::Blob(v) => Val::Blob(v),
            other => anyhow::bail!(
                "column {column}: DuckDB type {:?} has no counterpart in the suite",
                other.data_type()
            ),
        })
    }
}
