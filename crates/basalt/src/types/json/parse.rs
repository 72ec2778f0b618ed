//! Reading JSON text: validation with positioned errors, one level of structure at a time
//! ([`shallow`]), and the whole tree ([`parse_tree`]).
//!
//! serde_json does the lexing. Its `RawValue` hands back each member's exact source text,
//! which is what keeps `json` values byte-exact (`->` on a json value returns the member as
//! it was written) and numbers as written (no rounding through `f64`). A value is therefore
//! read level by level: [`shallow`] splits an object into `(key, member text)` pairs or an
//! array into member texts, and callers descend only where they need to. Object members
//! keep their input order and their duplicates; which duplicate counts is the caller's
//! business (PostgreSQL: the last).
//!
//! Errors are 22P02 `invalid input syntax for type json` naming the line and column of the
//! offending character in the whole input, also for errors found inside a member (a lone
//! UTF-16 surrogate in an escape is only noticed when the string is decoded). Nesting deeper
//! than [`MAX_DEPTH`] is refused (54000) rather than risking the stack.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::super::TypeError;

/// The deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = 200;

/// One level of a JSON value: scalars decoded, members as their source text.
#[derive(Clone, Debug, PartialEq)]
pub enum Shallow<'a> {
    Null,
    Boolean(bool),
    /// The number's text, exactly as written (valid JSON number syntax).
    Number(&'a str),
    /// The decoded string.
    String(String),
    /// The members' source texts, in order.
    Array(Vec<&'a str>),
    /// The members as (decoded key, value source text), in input order, duplicates kept.
    Object(Vec<(String, &'a str)>),
}

/// A whole JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree<'a> {
    Null,
    Boolean(bool),
    /// The number's text, exactly as written.
    Number(&'a str),
    String(String),
    Array(Vec<Tree<'a>>),
    /// Members in input order, duplicates kept.
    Object(Vec<(String, Tree<'a>)>),
}

/// The JSON value of `text` with surrounding whitespace removed, checked to be exactly one
/// well-formed value (strings are not decoded yet: see [`parse_tree`] for full validation).
pub fn top_level(text: &str) -> Result<&str, TypeError> {
    serde_json::from_str::<&RawValue>(text)
        .map(RawValue::get)
        .map_err(|error| syntax_error(text, text, &error))
}

/// Validates `text` as one JSON value, as the `json` type's input does: syntax, string
/// escapes and nesting depth.
pub fn validate(text: &str) -> Result<(), TypeError> {
    parse_tree(text).map(|_| ())
}

/// The whole value of `text` (which may have surrounding whitespace).
pub fn parse_tree(text: &str) -> Result<Tree<'_>, TypeError> {
    let value = top_level(text)?;
    tree(text, value, 0)
}

fn tree<'a>(input: &str, value: &'a str, depth: usize) -> Result<Tree<'a>, TypeError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    Ok(match shallow_within(input, value)? {
        Shallow::Null => Tree::Null,
        Shallow::Boolean(b) => Tree::Boolean(b),
        Shallow::Number(n) => Tree::Number(n),
        Shallow::String(s) => Tree::String(s),
        Shallow::Array(members) => Tree::Array(
            members
                .into_iter()
                .map(|member| tree(input, member, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Shallow::Object(members) => Tree::Object(
            members
                .into_iter()
                .map(|(key, member)| Ok((key, tree(input, member, depth + 1)?)))
                .collect::<Result<_, TypeError>>()?,
        ),
    })
}

/// One level of `value`, a JSON value without surrounding whitespace that was already
/// checked (by [`top_level`] or as a member of a checked value).
pub fn shallow(value: &str) -> Result<Shallow<'_>, TypeError> {
    shallow_within(value, value)
}

/// [`shallow`] of `value`, a slice of `input`, reporting error positions within `input`.
fn shallow_within<'a>(input: &str, value: &'a str) -> Result<Shallow<'a>, TypeError> {
    let error = |e: serde_json::Error| syntax_error(input, value, &e);
    Ok(match value.as_bytes().first() {
        Some(b'{') => Shallow::Object(serde_json::from_str::<Members<'a>>(value).map_err(error)?.0),
        Some(b'[') => Shallow::Array(
            serde_json::from_str::<Vec<&'a RawValue>>(value)
                .map_err(error)?
                .into_iter()
                .map(RawValue::get)
                .collect(),
        ),
        Some(b'"') => Shallow::String(serde_json::from_str::<String>(value).map_err(error)?),
        Some(b't') => Shallow::Boolean(true),
        Some(b'f') => Shallow::Boolean(false),
        Some(b'n') => Shallow::Null,
        Some(b'-' | b'0'..=b'9') => Shallow::Number(value),
        _ => {
            return Err(TypeError::InvalidJson(format!(
                "unexpected value \"{value}\""
            )));
        }
    })
}

/// An object's members in order, duplicates kept (serde_json's map types would merge them).
struct Members<'a>(Vec<(String, &'a str)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value: &'de RawValue = map.next_value()?;
                    members.push((key, value.get()));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

fn too_deep() -> TypeError {
    TypeError::ProgramLimitExceeded("JSON value nested too deeply")
}

/// A serde_json error in `part` (a slice of `input`) as a 22P02 error naming the position
/// in `input`: serde_json counts lines and columns (in bytes, from 1) within what it parsed.
fn syntax_error(input: &str, part: &str, error: &serde_json::Error) -> TypeError {
    let description = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let description = description
        .strip_suffix(&suffix)
        .unwrap_or(&description)
        .to_string();
    if error.line() == 0 {
        return TypeError::InvalidJson(description);
    }
    // Where `part` starts in `input` (it is a subslice, or `input` itself).
    let start = (part.as_ptr() as usize)
        .checked_sub(input.as_ptr() as usize)
        .filter(|start| start + part.len() <= input.len())
        .unwrap_or(0);
    let prefix = input.get(..start).unwrap_or("");
    let lines_before = prefix.matches('\n').count();
    let line = lines_before + error.line();
    let column = if error.line() == 1 {
        let line_start = prefix.rfind('\n').map_or(0, |newline| newline + 1);
        start - line_start + error.column()
    } else {
        error.column()
    };
    TypeError::InvalidJson(format!("{description} at line {line}, column {column}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        let error = validate(text).unwrap_err();
        assert_eq!(error.code(), "22P02", "{text:?}");
        error.to_string()
    }

    #[test]
    fn shallow_keeps_member_text_order_and_duplicates() {
        let value = top_level(" {\"b\": 1.50, \"a\" : [1,  2], \"b\": null} ").unwrap();
        assert_eq!(
            shallow(value).unwrap(),
            Shallow::Object(vec![
                ("b".into(), "1.50"),
                ("a".into(), "[1,  2]"),
                ("b".into(), "null"),
            ])
        );
        assert_eq!(
            shallow("[\"x\\n\", true, -0.0e5]").unwrap(),
            Shallow::Array(vec!["\"x\\n\"", "true", "-0.0e5"])
        );
        assert_eq!(shallow("\"\\u00e9\"").unwrap(), Shallow::String("é".into()));
    }

    #[test]
    fn errors_name_the_position() {
        assert_eq!(
            message("{\"a\": 1,}"),
            "invalid input syntax for type json: key must be a string at line 1, column 9"
        );
        assert_eq!(
            message("[1,\n 2 x]"),
            "invalid input syntax for type json: expected `,` or `]` at line 2, column 4"
        );
        assert!(message("").contains("EOF while parsing a value"));
        assert!(message("01").contains("line 1"));
        assert!(message("[1] 2").contains("trailing characters at line 1, column 5"));
        assert!(message("{'a': 1}").contains("line 1, column 2"));
        // A lone surrogate is found when the member is decoded; the column is still the
        // one in the whole input.
        let lone = message("[1, \"\\ud800\"]");
        assert!(lone.ends_with("line 1, column 12"), "{lone}");
        assert!(message("NaN").contains("line 1"));
    }

    #[test]
    fn large_numbers_and_deep_nesting() {
        assert_eq!(
            parse_tree("1e400").unwrap(),
            Tree::Number("1e400"),
            "numbers are kept as text, not read as doubles"
        );
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(validate(&deep).is_ok());
        let deeper = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
        assert_eq!(validate(&deeper).unwrap_err().code(), "54000");
    }
}
