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
pub use schema::{SchemaKind, SchemaObject, quote_identifier};
pub use session::{
    ColumnDescription, Execution, InterruptHandle, ParameterDescription, Session,
    StatementDescription,
};
pub use statement::{CachedStatement, Row, RowIndex, Rows, Statement};
pub use value::{FromSql, ToSql, ValueRef};
