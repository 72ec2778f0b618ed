//! SQL values and types: what a column holds, what an expression produces, what the API
//! returns.
//!
//! Basalt is statically typed like PostgreSQL: every column and every expression has one
//! [`DataType`] known when a statement is planned, and values are converted to it on the way
//! in (implicit casts follow PostgreSQL's rules). [`Value`] is the dynamic form used at the
//! API boundary, in constant folding, and on the row-at-a-time paths; the executor's hot
//! paths work on typed column vectors instead.
//!
//! Physical storage (see `storage::btree::ColumnKind`): INTEGER, REAL, DATE and TIMESTAMP
//! are 8 fixed bytes, BOOLEAN is 1, TEXT and BLOB are variable-length.
//!
//! Choices (documented in docs/sql.md):
//! * All integer types (SMALLINT, INT, INTEGER, BIGINT) are 64-bit; the declared name is kept
//!   for the wire protocol and `\d`-style introspection, and overflow of 64 bits is an error.
//! * NUMERIC and DECIMAL are stored as 64-bit binary floating point (REAL), as SQLite's NUMERIC
//!   affinity effectively does; exact decimal arithmetic is not provided.
//! * DATE is days since 1970-01-01; TIMESTAMP is microseconds since 1970-01-01 00:00:00, with
//!   no time zone (TIMESTAMPTZ values are converted to UTC).

mod value;

pub use value::{DataType, Value};
