//! JSON values: the `json` and `jsonb` types' input, output, comparison and navigation.
//!
//! Both types are held as text (`Value::Json` / `Value::Jsonb`, stored as variable-length
//! UTF-8 bytes), which keeps storage, spilling and the client API simple; structure is read
//! on demand with serde_json (see [`parse`]) when an operator or function needs it.
//!
//! * `json` keeps its input exactly, whitespace, key order and duplicate keys included, once
//!   [`validate_json`] has accepted it — PostgreSQL's `json`.
//! * `jsonb` holds the normalized text [`normalize_jsonb`] produces — PostgreSQL's `jsonb`
//!   output form: keys unique (the last wins) and sorted by length then bytes, one space
//!   after `:` and `,`, numbers as `numeric` prints them. Two equal jsonb values may still
//!   differ in text (`1.0` and `1`), so comparisons go through [`order`], never through the
//!   text.
//!
//! Invalid input is 22P02 naming the line and column. Nothing here panics on any input.

pub mod jsonpath;
pub mod order;
pub mod parse;
pub mod path;
pub mod write;

pub use order::{compare, contains, sort_key};

use super::TypeError;

/// Checks `text` for the `json` type: the value is the text itself, unchanged.
pub fn validate_json(text: &str) -> Result<(), TypeError> {
    parse::validate(text)
}

/// The normalized jsonb text of JSON `text` (22P02 if it is not JSON; 22P05 for `\u0000`,
/// which jsonb cannot hold; 22003 for numbers beyond `numeric`'s range).
pub fn normalize_jsonb(text: &str) -> Result<String, TypeError> {
    write::normalized(&parse::parse_tree(text)?)
}

/// The type of a JSON value as `json_typeof` names it, from its first character.
pub fn type_name(value: &str) -> &'static str {
    match value.trim_start().as_bytes().first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}
