//! The embedded API: [`Database`], [`Connection`], [`Statement`], [`Rows`], [`Row`],
//! [`Transaction`], and the [`ToSql`] / [`FromSql`] conversions, following rusqlite's
//! conventions so code written for rusqlite reads naturally here; and under it the owned
//! [`Session`] (named statements, portals, describe, partial execution, cancel) that a
//! server or binding holds per client.
//!
//! ```
//! let db = basalt::Database::open_in_memory()?;
//! let conn = db.connect();
//! conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL)", ())?;
//! conn.execute("INSERT INTO users (email) VALUES (?)", ("a@example.com",))?;
//! let email: String = conn.query_row("SELECT email FROM users WHERE id = ?", (1,), |row| row.get(0))?;
//! assert_eq!(email, "a@example.com");
//! # Ok::<(), basalt::Error>(())
//! ```

mod connection;
mod database;
mod error;
mod params;
pub(crate) mod schema;
mod session;
mod statement;
mod value;

pub use connection::{Connection, Transaction};
pub use database::{Database, Options};
pub use error::{Error, ErrorKind, Result};
pub use params::Params;
pub use schema::{
    PostgresOptions, PostgresSchema, PostgresTable, SchemaKind, SchemaObject, SequencePosition,
    quote_identifier,
};
pub use session::{
    ColumnDescription, Execution, InterruptHandle, ParameterDescription, Session, SessionTimeouts,
    StatementDescription,
};
pub use statement::{CachedStatement, Row, RowIndex, Rows, Statement};
pub use value::{FromSql, ToSql, ValueRef};

/// The byte range of each statement in `sql`, in order, without the `;` between them and the
/// whitespace and comments around them; empty statements are skipped. The statements are
/// parsed to find where they end (a trigger's body holds `;`), so a syntax error anywhere is
/// reported before any statement runs — what a server needs to run a multi-statement message
/// one statement at a time as PostgreSQL does (the wire protocol's simple query).
pub fn split_statements(sql: &str) -> Result<Vec<std::ops::Range<usize>>> {
    crate::sql::split_statements(sql)
        .map(|statements| statements.into_iter().map(|(_, range)| range).collect())
        .map_err(|error| Error::syntax(&error, sql))
}
