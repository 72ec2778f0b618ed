//! [`TypeModifier`]: what a type name's parenthesised arguments add to the type —
//! `VARCHAR(20)`'s length — kept beside the [`DataType`](super::DataType) wherever a column's
//! declared type must be reported (the API's statement descriptions, and later the wire
//! protocol's `atttypmod`).

/// A declared type's modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TypeModifier {
    /// The maximum length in characters of `VARCHAR(n)` / `CHAR(n)`.
    Length(u32),
}
