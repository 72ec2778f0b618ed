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
//! are 8 fixed bytes, BOOLEAN is 1, TEXT, BLOB, JSON and JSONB are variable-length, and
//! INTERVAL and UUID are variable-length cells of exactly 16 bytes.
//!
//! Choices (documented in docs/sql.md):
//! * All integer types (SMALLINT, INT, INTEGER, BIGINT) are 64-bit; the declared name is kept
//!   for the wire protocol and `\d`-style introspection, and overflow of 64 bits is an error.
//! * NUMERIC and DECIMAL are exact decimals of up to 38 significant digits (a 128-bit
//!   mantissa and a scale, see [`numeric`]), variable-length cells of 2 to 17 bytes.
//! * DATE is days since 1970-01-01; TIMESTAMP is microseconds since 1970-01-01 00:00:00, with
//!   no time zone (TIMESTAMPTZ values are converted to UTC).

//!
//! The single-value semantics live here, for the binder and the executor to call:
//! * [`cast`](mod@cast): explicit casts, and the implicit/assignment cast and common-type rules;
//! * [`compare`](mod@compare): SQL comparison, the total sort order, grouping equality and hashing;
//! * [`arith`]: arithmetic, `||`, bitwise operators;
//! * [`pattern`]: LIKE / ILIKE / GLOB;
//! * [`functions`]: the scalar function registry;
//! * [`datetime`]: calendar math, date/time parsing and formatting;
//! * [`interval`]: INTERVAL values, their arithmetic, text forms and `age`;
//! * [`uuid`](mod@uuid): UUID text forms and random generation;
//! * [`numeric`]: NUMERIC values, their arithmetic, rounding and text forms;
//! * [`array`]: ARRAY values (`integer[]`, `text[]`), their text form, order, cells, keys
//!   and functions;
//! * [`vector`]: VECTOR values (pgvector's type), their text form, order and distances;
//! * [`json`]: JSON validation, jsonb normalization, ordering, containment and paths;
//! * `format`: `Display for Value` in PostgreSQL's text output form.
//!
//! None of it panics, whatever the input: failures are [`TypeError`]s carrying PostgreSQL's
//! SQLSTATE codes.

pub mod arith;
pub mod array;
pub mod cast;
pub mod compare;
pub mod datetime;
mod descriptor;
mod error;
mod format;
pub mod functions;
pub mod interval;
pub mod json;
mod modifier;
pub mod numeric;
pub mod pattern;
pub mod text_search;
pub mod time;
pub mod timezone;
pub mod uuid;
mod value;
pub mod vector;

pub use array::Array;
pub use cast::{assignment_cast, cast, common_type, implicit_cast, parse_literal_for};
pub use compare::compare;
pub use descriptor::{TypeDescriptor, VECTOR_OID};
pub use error::TypeError;
pub use functions::scalar_function;
pub use interval::Interval;
pub use modifier::{ModifierKind, TypeModifier};
pub use numeric::Numeric;
pub use value::{DataType, Value};
