//! jsonb functions that build a new document from others: `jsonb_delete` (PostgreSQL's
//! `jsonb - text` and `jsonb - integer`) and `jsonb_concat` (`jsonb || jsonb`).
//!
//! Both work one level deep on jsonb's normalized text (see `types::json`): the members of
//! a normalized document are themselves normalized, so they are copied as they are, and a
//! result object is written with its keys unique and in jsonb's key order, which keeps the
//! result normalized without reparsing it. The rules are PostgreSQL 15's:
//!
//! * `doc - 'k'` drops key `k` from an object, or every string element equal to `k` from an
//!   array; `doc - n` drops element `n` of an array (negative counts from the end; out of
//!   range changes nothing). Deleting from a scalar, or by index from an object, is 22023.
//! * `a || b` merges two objects (`b`'s value wins a shared key); otherwise a side that is
//!   not an array counts as a one-element array and the two arrays are concatenated
//!   (`[1] || 2` is `[1, 2]`, `{"a": 1} || 1` is `[{"a": 1}, 1]`).

use super::{Param, ScalarFunction, check_args, strict_nulls};
use crate::types::json::{parse, write};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("jsonb_delete", delete_type, delete),
    function!("jsonb_concat", concat_type, concat),
];

fn delete_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb, Param::Any], &[])?;
    match args.get(1) {
        Some(DataType::Text(_) | DataType::Integer | DataType::Null) => Ok(DataType::Jsonb),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

fn concat_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb, Param::Jsonb], &[])?;
    Ok(DataType::Jsonb)
}

/// The jsonb text of argument `i`.
fn document<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a str, TypeError> {
    match args.get(i) {
        Some(Value::Jsonb(text)) => Ok(text.trim()),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

fn cannot_delete(what: &str) -> TypeError {
    TypeError::InvalidArgument(format!("cannot delete from {what}"))
}

/// `jsonb_delete(doc, key)` / `jsonb_delete(doc, index)`: `doc - key`, `doc - index`.
fn delete(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_delete";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let doc = document(name, args, 0)?;
    match (parse::shallow(doc)?, args.get(1)) {
        (parse::Shallow::Object(members), Some(Value::Text(key))) => {
            let kept: Vec<(&str, &str)> = members
                .iter()
                .filter(|(name, _)| name != key)
                .map(|(name, value)| (name.as_str(), *value))
                .collect();
            Ok(Value::Jsonb(object_text(&kept)))
        }
        (parse::Shallow::Array(items), Some(Value::Text(key))) => {
            let kept: Vec<&str> = items
                .into_iter()
                .filter(|item| {
                    !matches!(parse::shallow(item), Ok(parse::Shallow::String(s)) if s == *key)
                })
                .collect();
            Ok(Value::Jsonb(array_text(&kept)))
        }
        (parse::Shallow::Array(mut items), Some(Value::Integer(index))) => {
            let length = items.len() as i64;
            let position = if *index < 0 { length + index } else { *index };
            if (0..length).contains(&position) {
                items.remove(position as usize);
            }
            Ok(Value::Jsonb(array_text(&items)))
        }
        (parse::Shallow::Object(_), Some(Value::Integer(_))) => {
            Err(cannot_delete("object using integer index"))
        }
        (_, Some(Value::Text(_) | Value::Integer(_))) => Err(cannot_delete("scalar")),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

/// `jsonb_concat(a, b)`: `a || b`.
fn concat(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_concat";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (left, right) = (document(name, args, 0)?, document(name, args, 1)?);
    let (left_shallow, right_shallow) = (parse::shallow(left)?, parse::shallow(right)?);
    if let (parse::Shallow::Object(first), parse::Shallow::Object(second)) =
        (&left_shallow, &right_shallow)
    {
        let mut merged: Vec<(&str, &str)> = first
            .iter()
            .filter(|(key, _)| !second.iter().any(|(other, _)| other == key))
            .chain(second.iter())
            .map(|(key, value)| (key.as_str(), *value))
            .collect();
        merged.sort_by(|a, b| write::key_order(a.0, b.0));
        return Ok(Value::Jsonb(object_text(&merged)));
    }
    let mut elements = Vec::new();
    for (shallow, text) in [(left_shallow, left), (right_shallow, right)] {
        match shallow {
            parse::Shallow::Array(items) => elements.extend(items),
            _ => elements.push(text),
        }
    }
    Ok(Value::Jsonb(array_text(&elements)))
}

/// An object of normalized members, already unique and in key order.
fn object_text(members: &[(&str, &str)]) -> String {
    let mut out = String::from("{");
    for (index, (key, value)) in members.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        write::push_string(key, &mut out);
        out.push_str(": ");
        out.push_str(value);
    }
    out.push('}');
    out
}

/// An array of normalized elements.
fn array_text(items: &[&str]) -> String {
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jsonb(text: &str) -> Value {
        Value::Jsonb(crate::types::json::normalize_jsonb(text).unwrap())
    }

    fn text(value: Result<Value, TypeError>) -> String {
        match value.unwrap() {
            Value::Jsonb(text) => text,
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn delete_by_key_and_index() {
        let key = |doc: &str, key: &str| text(delete(&[jsonb(doc), Value::Text(key.into())]));
        let index = |doc: &str, index: i64| text(delete(&[jsonb(doc), Value::Integer(index)]));
        assert_eq!(
            key(r#"{"a": 1, "bb": [2], "c": {"a": 3}}"#, "a"),
            r#"{"c": {"a": 3}, "bb": [2]}"#
        );
        assert_eq!(key(r#"{"a": 1}"#, "z"), r#"{"a": 1}"#);
        assert_eq!(
            key(r#"["a", "b", "a", 1, ["a"], {"a": 1}]"#, "a"),
            r#"["b", 1, ["a"], {"a": 1}]"#
        );
        assert_eq!(key(r#"[1, "1"]"#, "1"), "[1]");
        assert_eq!(key("{}", "a"), "{}");
        assert_eq!(index("[1, 2, 3]", 0), "[2, 3]");
        assert_eq!(index("[1, 2, 3]", -1), "[1, 2]");
        assert_eq!(index("[1, 2, 3]", -3), "[2, 3]");
        assert_eq!(index("[1, 2, 3]", 3), "[1, 2, 3]");
        assert_eq!(index("[1, 2, 3]", -4), "[1, 2, 3]");
        assert_eq!(index("[]", 0), "[]");
        for (doc, argument) in [
            ("1", Value::Integer(0)),
            (r#""a""#, Value::Text("a".into())),
            (r#"{"a": 1}"#, Value::Integer(0)),
        ] {
            let error = delete(&[jsonb(doc), argument]).unwrap_err();
            assert!(matches!(error, TypeError::InvalidArgument(_)), "{doc}");
        }
        assert_eq!(delete(&[jsonb("[1]"), Value::Null]).unwrap(), Value::Null);
    }

    #[test]
    fn concat_merges_objects_and_wraps_the_rest() {
        let both = |a: &str, b: &str| text(concat(&[jsonb(a), jsonb(b)]));
        assert_eq!(
            both(r#"{"b": 1, "a": 2}"#, r#"{"a": 3, "cc": null}"#),
            r#"{"a": 3, "b": 1, "cc": null}"#
        );
        assert_eq!(both("[1, [2]]", "[3]"), "[1, [2], 3]");
        assert_eq!(both("[1]", "2"), "[1, 2]");
        assert_eq!(both("1", "[2]"), "[1, 2]");
        assert_eq!(both("1", "2"), "[1, 2]");
        assert_eq!(both(r#"{"a": 1}"#, "1"), r#"[{"a": 1}, 1]"#);
        assert_eq!(both("[]", "{}"), "[{}]");
        assert_eq!(both("{}", "{}"), "{}");
        assert_eq!(both("[]", "[]"), "[]");
    }
}
