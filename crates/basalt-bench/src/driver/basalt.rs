//! The `basalt` and `basalt-full` drivers: Basalt's embedded API exactly as an application
//! uses it — `Database::open_with`, one `Connection` per thread, `prepare_cached` on every
//! call, parameters bound as values, rows streamed with `Rows::next` and read with
//! `Row::get_ref` (borrowed text and blobs, no copies).

use std::time::Duration;

use anyhow::Context as _;

use super::{
    BUSY_TIMEOUT_MS, Db, Location, OpenOptions, RowRef, RowSink, STATEMENT_CACHE, Session, Val,
};

/// Basalt's durability setting for a profile.
#[derive(Clone, Copy, Debug)]
pub enum Durability {
    /// Sync at checkpoints (SQLite's WAL + NORMAL).
    Normal,
    /// Sync every commit (SQLite's FULL).
    Full,
}

/// Opens a Basalt database with the suite's settings.
pub fn open(
    location: &Location,
    durability: Durability,
    open_options: &OpenOptions,
) -> anyhow::Result<Box<dyn Db>> {
    let options = basalt::Options {
        cache_size: open_options.cache_bytes,
        synchronous: match durability {
            Durability::Normal => basalt::Synchronous::Normal,
            Durability::Full => basalt::Synchronous::Full,
        },
        busy_timeout: Duration::from_millis(BUSY_TIMEOUT_MS),
        statement_cache_capacity: STATEMENT_CACHE,
        ..basalt::Options::default()
    };
    let database = match location {
        Location::File(path) => basalt::Database::open_with(path, options)
            .with_context(|| format!("opening {}", path.display()))?,
        Location::Memory => basalt::Database::open_in_memory_with(options)?,
    };
    Ok(Box::new(BasaltDb {
        database,
        path: match location {
            Location::File(path) => Some(path.clone()),
            Location::Memory => None,
        },
        foreign_keys: open_options.foreign_keys,
    }))
}

struct BasaltDb {
    database: basalt::Database,
    /// The file, for [`Db::file_bytes`] (`None` in memory).
    path: Option<std::path::PathBuf>,
    /// `PRAGMA foreign_keys` for every connection, as the workload says (Basalt's default
    /// is on; set explicitly like the SQLite driver does).
    foreign_keys: bool,
}

impl Db for BasaltDb {
    fn connect(&self) -> anyhow::Result<Box<dyn Session>> {
        let connection = self.database.connect();
        connection.execute_batch(if self.foreign_keys {
            "PRAGMA foreign_keys = ON"
        } else {
            "PRAGMA foreign_keys = OFF"
        })?;
        Ok(Box::new(BasaltSession { connection }))
    }

    fn file_bytes(&self) -> anyhow::Result<Option<u64>> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        self.database.checkpoint()?;
        Ok(Some(std::fs::metadata(path)?.len()))
    }
}

struct BasaltSession {
    connection: basalt::Connection,
}

/// Parameters as Basalt values: the same vector Basalt builds from a tuple of parameters.
fn values(params: &[Val<'_>]) -> Vec<basalt::Value> {
    params
        .iter()
        .map(|param| match *param {
            Val::Null => basalt::Value::Null,
            Val::Int(v) => basalt::Value::Integer(v),
            Val::Real(v) => basalt::Value::Real(v),
            Val::Text(v) => basalt::Value::Text(v.to_string()),
            Val::Blob(v) => basalt::Value::Blob(v.to_vec()),
            Val::Vector(v) => basalt::Value::Vector(v.to_vec()),
        })
        .collect()
}

impl Session for BasaltSession {
    fn execute(&mut self, sql: &str, params: &[Val<'_>]) -> anyhow::Result<u64> {
        let mut statement = self.connection.prepare_cached(sql)?;
        Ok(statement.execute(values(params))? as u64)
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[Val<'_>],
        sink: &mut dyn RowSink,
    ) -> anyhow::Result<()> {
        let mut statement = self.connection.prepare_cached(sql)?;
        let mut rows = statement.query(values(params))?;
        while let Some(row) = rows.next()? {
            sink.row(&BasaltRow(&row))?;
        }
        Ok(())
    }

    fn execute_batch(&mut self, sql: &str) -> anyhow::Result<()> {
        self.connection.execute_batch(sql)?;
        Ok(())
    }

    fn is_retryable(&self, error: &anyhow::Error) -> bool {
        error
            .downcast_ref::<basalt::Error>()
            .is_some_and(|error| error.kind() == basalt::ErrorKind::Busy)
    }
}

struct BasaltRow<'a, 'r>(&'r basalt::Row<'a>);

impl RowRef for BasaltRow<'_, '_> {
    fn column_count(&self) -> usize {
        self.0.column_count()
    }

    fn value(&self, column: usize) -> anyhow::Result<Val<'_>> {
        Ok(match self.0.get_ref(column)? {
            basalt::ValueRef::Null => Val::Null,
            basalt::ValueRef::Boolean(v) => Val::Int(i64::from(v)),
            basalt::ValueRef::Integer(v) => Val::Int(v),
            basalt::ValueRef::Real(v) => Val::Real(v),
            // NUMERIC results (a decimal literal's arithmetic, as the hybrid workload's
            // `0.5 / (60 + r)`) compare as numbers, as the DuckDB driver reads DECIMAL.
            basalt::ValueRef::Numeric(v) => Val::Real(v.to_f64()),
            basalt::ValueRef::Text(v) => Val::Text(v),
            basalt::ValueRef::Blob(v) => Val::Blob(v),
            basalt::ValueRef::Date(v) => Val::Int(i64::from(v)),
            basalt::ValueRef::Timestamp(v) => Val::Int(v),
            basalt::ValueRef::Uuid(v) => Val::Blob(v),
            // No workload reads intervals, and `Val` has no owned form to hold one.
            basalt::ValueRef::Interval(_) => {
                anyhow::bail!("interval results are not supported by the benchmark drivers")
            }
            basalt::ValueRef::Json(v) | basalt::ValueRef::Jsonb(v) => Val::Text(v),
            basalt::ValueRef::Vector(v) => Val::Vector(v),
            // A type added after this driver: no workload reads it yet.
            other => anyhow::bail!("the benchmark drivers cannot read {other:?}"),
        })
    }
}
