//! A real PostgreSQL behind the runner's [`Engine`] trait, so a script's expected results can
//! be checked against PostgreSQL's own answers (`tests/postgres.rs`, `basalt-slt --db postgres`).
//!
//! Each [`PostgresEngine`] gets a database of its own, created fresh in a [`PgCluster`], so
//! scripts start empty and independent, as they do on Basalt's in-memory databases.
//!
//! SQL goes through the simple query protocol, so values arrive as PostgreSQL's text output,
//! the form `psql` shows. They become [`Cell`]s by column type, so that the runner formats
//! them with the same rules as Basalt's values: `boolean` becomes the integer 1 or 0 (Basalt's
//! API reads booleans as integers; PostgreSQL prints `t`/`f`), the integer types and `oid`
//! integers, `real` and `double precision` reals (so `T` columns print them as Basalt's doubles
//! print), and every other type its text. A `query` record's column types come from preparing
//! it first (prepared, not executed: a query runs once); a record PostgreSQL cannot prepare
//! (several statements in one) reads every column as text.
//!
//! An error becomes `<message> (SQLSTATE <code>)`, the shape of Basalt's errors, so the
//! scripts' `statement error SQLSTATE 22003` patterns judge both engines alike.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio_postgres::types::Type;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

use crate::engine::{Cell, Engine, Output};
use crate::pg_cluster::{PORT, PgCluster};

/// Numbers the databases the engines create in one process.
static NEXT_DATABASE: AtomicUsize = AtomicUsize::new(0);

/// A connection to a fresh database of a [`PgCluster`].
#[derive(Debug)]
pub struct PostgresEngine {
    runtime: tokio::runtime::Runtime,
    client: Client,
}

impl PostgresEngine {
    /// Creates a new database in `cluster` and connects to it.
    pub fn open(cluster: &PgCluster) -> Result<Self, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("tokio runtime: {error}"))?;
        let name = format!(
            "slt_{}_{}",
            std::process::id(),
            NEXT_DATABASE.fetch_add(1, Ordering::Relaxed)
        );
        let admin = connect(&runtime, cluster.socket_dir(), "postgres")?;
        runtime
            .block_on(admin.batch_execute(&format!("CREATE DATABASE {name}")))
            .map_err(|error| describe(&error))?;
        drop(admin);
        let client = connect(&runtime, cluster.socket_dir(), &name)?;
        Ok(PostgresEngine { runtime, client })
    }

    fn execute(&mut self, sql: &str, typed: bool) -> Result<Output, String> {
        let types: Option<Vec<Type>> = if typed {
            self.runtime
                .block_on(self.client.prepare(sql))
                .ok()
                .map(|statement| {
                    statement
                        .columns()
                        .iter()
                        .map(|column| column.type_().clone())
                        .collect()
                })
        } else {
            None
        };
        let messages = self
            .runtime
            .block_on(self.client.simple_query(sql))
            .map_err(|error| describe(&error))?;
        // The rows of the last statement that has result columns, as `Engine::run` asks.
        let mut output = Output::Statement;
        for message in messages {
            match message {
                SimpleQueryMessage::RowDescription(_) => output = Output::Rows(Vec::new()),
                SimpleQueryMessage::Row(row) => {
                    let mut cells = Vec::with_capacity(row.len());
                    for index in 0..row.len() {
                        let column_type = types.as_ref().and_then(|types| types.get(index));
                        cells.push(cell(row.get(index), column_type));
                    }
                    match &mut output {
                        Output::Rows(rows) => rows.push(cells),
                        Output::Statement => output = Output::Rows(vec![cells]),
                    }
                }
                _ => {}
            }
        }
        Ok(output)
    }
}

impl Engine for PostgresEngine {
    fn run(&mut self, sql: &str) -> Result<Output, String> {
        self.execute(sql, false)
    }

    fn query(&mut self, sql: &str) -> Result<Output, String> {
        self.execute(sql, true)
    }
}

fn connect(
    runtime: &tokio::runtime::Runtime,
    socket_dir: &Path,
    database: &str,
) -> Result<Client, String> {
    let mut config = tokio_postgres::Config::new();
    config
        .host_path(socket_dir)
        .port(PORT)
        .user("postgres")
        .dbname(database);
    let (client, connection) = runtime
        .block_on(config.connect(NoTls))
        .map_err(|error| format!("connecting to PostgreSQL: {error}"))?;
    // Driven whenever the runtime blocks on one of the client's requests.
    runtime.spawn(connection);
    Ok(client)
}

/// An error in Basalt's shape: the message, then the SQLSTATE.
fn describe(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} (SQLSTATE {})", db.message(), db.code().code()),
        None => error.to_string(),
    }
}

/// One text value as the cell Basalt would return for a column of `column_type`.
fn cell(text: Option<&str>, column_type: Option<&Type>) -> Cell {
    let Some(text) = text else {
        return Cell::Null;
    };
    let parsed = match column_type {
        Some(&Type::BOOL) => match text {
            "t" => Some(Cell::Integer(1)),
            "f" => Some(Cell::Integer(0)),
            _ => None,
        },
        Some(&Type::INT2 | &Type::INT4 | &Type::INT8 | &Type::OID) => {
            text.parse().ok().map(Cell::Integer)
        }
        Some(&Type::FLOAT4 | &Type::FLOAT8) => match text {
            "NaN" => Some(Cell::Real(f64::NAN)),
            "Infinity" => Some(Cell::Real(f64::INFINITY)),
            "-Infinity" => Some(Cell::Real(f64::NEG_INFINITY)),
            _ => text.parse().ok().map(Cell::Real),
        },
        _ => None,
    };
    parsed.unwrap_or_else(|| Cell::Text(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_by_type() {
        assert_eq!(cell(None, Some(&Type::BOOL)), Cell::Null);
        assert_eq!(cell(Some("t"), Some(&Type::BOOL)), Cell::Integer(1));
        assert_eq!(cell(Some("f"), Some(&Type::BOOL)), Cell::Integer(0));
        assert_eq!(cell(Some("-7"), Some(&Type::INT8)), Cell::Integer(-7));
        assert_eq!(cell(Some("2.5"), Some(&Type::FLOAT8)), Cell::Real(2.5));
        assert_eq!(
            cell(Some("-Infinity"), Some(&Type::FLOAT8)),
            Cell::Real(f64::NEG_INFINITY)
        );
        assert_eq!(
            cell(Some("12.50"), Some(&Type::NUMERIC)),
            Cell::Text("12.50".into())
        );
        assert_eq!(cell(Some("t"), None), Cell::Text("t".into()));
    }
}
