//! Writing JSON text: jsonb's normalized form, the compact form of SQLite's functions,
//! string escaping, numbers as PostgreSQL's `numeric` prints them, and SQL values as JSON
//! (`to_json`).
//!
//! jsonb's form is PostgreSQL's `jsonb_out`: `{"a": 1, "b": [1, 2]}` — one space after
//! each `:` and `,`, none elsewhere; object keys unique (the last duplicate wins) and sorted
//! as jsonb stores them, shorter keys first and equal lengths bytewise; numbers as
//! `numeric` prints them (`1e2` → `100`, `1.50` stays `1.50`, `-0` → `0`).

use std::fmt::Write as _;

use super::super::datetime::{format_date, format_timestamp};
use super::super::format::format_real;
use super::super::{TypeError, Value};
use super::parse::Tree;

/// The largest decimal exponent a jsonb number may have, as PostgreSQL's numeric input
/// allows; beyond it the number is out of range (22003).
const MAX_EXPONENT: i64 = 1000;

/// `tree` in jsonb's normalized text form.
pub fn normalized(tree: &Tree<'_>) -> Result<String, TypeError> {
    let mut out = String::new();
    write_normalized(tree, &mut out)?;
    Ok(out)
}

fn write_normalized(tree: &Tree<'_>, out: &mut String) -> Result<(), TypeError> {
    match tree {
        Tree::Null => out.push_str("null"),
        Tree::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Tree::Number(text) => out.push_str(&numeric_text(text)?),
        Tree::String(s) => {
            if s.contains('\0') {
                return Err(TypeError::UntranslatableCharacter(
                    "unsupported Unicode escape sequence: \\u0000 cannot be converted to text",
                ));
            }
            push_string(s, out);
        }
        Tree::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_normalized(item, out)?;
            }
            out.push(']');
        }
        Tree::Object(members) => {
            out.push('{');
            for (index, (key, value)) in unique_sorted_members(members).into_iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                if key.contains('\0') {
                    return Err(TypeError::UntranslatableCharacter(
                        "unsupported Unicode escape sequence: \\u0000 cannot be converted to text",
                    ));
                }
                push_string(key, out);
                out.push_str(": ");
                write_normalized(value, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// An object's members as jsonb keeps them: one per key (the last one written) in jsonb's
/// key order.
pub fn unique_sorted_members<'t, 'a>(
    members: &'t [(String, Tree<'a>)],
) -> Vec<(&'t str, &'t Tree<'a>)> {
    let mut sorted: Vec<(usize, &'t str, &'t Tree<'a>)> = members
        .iter()
        .enumerate()
        .map(|(position, (key, value))| (position, key.as_str(), value))
        .collect();
    // Later duplicates first within a key, so dedup keeps the last one written.
    sorted.sort_by(|a, b| key_order(a.1, b.1).then(b.0.cmp(&a.0)));
    sorted.dedup_by(|later, earlier| later.1 == earlier.1);
    sorted
        .into_iter()
        .map(|(_, key, value)| (key, value))
        .collect()
}

/// jsonb's order of object keys: by length in bytes, then bytewise.
pub fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// `tree` in the compact form SQLite's JSON functions return: no whitespace at all, members
/// in input order.
pub fn compact(tree: &Tree<'_>) -> String {
    let mut out = String::new();
    write_compact(tree, &mut out);
    out
}

fn write_compact(tree: &Tree<'_>, out: &mut String) {
    match tree {
        Tree::Null => out.push_str("null"),
        Tree::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Tree::Number(text) => out.push_str(text),
        Tree::String(s) => push_string(s, out),
        Tree::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_compact(item, out);
            }
            out.push(']');
        }
        Tree::Object(members) => {
            out.push('{');
            for (index, (key, value)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                push_string(key, out);
                out.push(':');
                write_compact(value, out);
            }
            out.push('}');
        }
    }
}

/// Appends `s` as a JSON string, escaped as PostgreSQL's `escape_json` does: the short
/// escapes for `"`, `\`, backspace, form feed, newline, carriage return and tab,
/// `\u00XX` for other control characters, everything else as is.
pub fn push_string(s: &str, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ch if u32::from(ch) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(ch));
            }
            ch => out.push(ch),
        }
    }
    out.push('"');
}

/// A JSON number's parts: sign, all digits (integer then fraction part) and the decimal
/// exponent that places the point after `integer_digits + exponent` digits.
#[derive(Clone, Copy, Debug)]
pub struct Decimal<'a> {
    pub negative: bool,
    pub integer: &'a str,
    pub fraction: &'a str,
    pub exponent: i64,
}

/// Splits a JSON number (already validated syntax). The exponent saturates far beyond any
/// usable range, where callers refuse it.
pub fn decimal(text: &str) -> Decimal<'_> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => {
            let digits = unsigned.get(at + 1..).unwrap_or("");
            let (sign, digits) = match digits.as_bytes().first() {
                Some(b'-') => (-1i64, digits.get(1..).unwrap_or("")),
                Some(b'+') => (1, digits.get(1..).unwrap_or("")),
                _ => (1, digits),
            };
            let magnitude = digits.bytes().fold(0i64, |value, digit| {
                value
                    .saturating_mul(10)
                    .saturating_add(i64::from(digit.wrapping_sub(b'0')))
            });
            (unsigned.get(..at).unwrap_or(""), sign * magnitude)
        }
        None => (unsigned, 0),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    Decimal {
        negative,
        integer,
        fraction,
        exponent,
    }
}

/// A JSON number as PostgreSQL's `numeric` prints it: positional notation, as many
/// fraction digits as the input's scale (`1.50` → `1.50`, `1.5e1` → `15`, `1e-2` →
/// `0.01`), no sign on zero. Exponents beyond ±1000 are out of range (22003).
pub fn numeric_text(text: &str) -> Result<String, TypeError> {
    let parts = decimal(text);
    if !(-MAX_EXPONENT..=MAX_EXPONENT).contains(&parts.exponent) {
        return Err(TypeError::ValueOutOfRange {
            text: text.to_owned(),
            type_name: "numeric",
        });
    }
    let digits: String = [parts.integer, parts.fraction].concat();
    // The point goes after `point` digits; it may fall before the first or after the last.
    let point = parts.integer.len() as i64 + parts.exponent;
    let (integer, fraction) = if point <= 0 {
        let zeros = "0".repeat(usize::try_from(-point).unwrap_or(0));
        (String::from("0"), format!("{zeros}{digits}"))
    } else if point as usize >= digits.len() {
        let zeros = "0".repeat(point as usize - digits.len());
        (format!("{digits}{zeros}"), String::new())
    } else {
        let (integer, fraction) = digits.split_at(point as usize);
        (integer.to_owned(), fraction.to_owned())
    };
    let integer = integer.trim_start_matches('0');
    let integer = if integer.is_empty() { "0" } else { integer };
    let zero = integer == "0" && fraction.bytes().all(|digit| digit == b'0');
    let mut out = String::with_capacity(integer.len() + fraction.len() + 2);
    if parts.negative && !zero {
        out.push('-');
    }
    out.push_str(integer);
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(&fraction);
    }
    Ok(out)
}

/// Appends SQL `value` as JSON text, as PostgreSQL's `to_json` converts it: NULL as `null`,
/// booleans and finite numbers bare, non-finite reals and everything else as strings of
/// their text form (timestamps in ISO 8601 with a `T`), json and jsonb values as they are.
pub fn push_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Real(r) if r.is_finite() => out.push_str(&format_real(*r)),
        Value::Real(r) => push_string(&format_real(*r), out),
        Value::Numeric(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Text(s) => push_string(s, out),
        Value::Blob(_) | Value::Interval(_) | Value::Uuid(_) | Value::Vector(_) => {
            push_string(&value.to_string(), out)
        }
        Value::Date(days) => push_string(&format_date(*days), out),
        Value::Timestamp(micros) => {
            push_string(&format_timestamp(*micros).replacen(' ', "T", 1), out)
        }
        Value::Time(micros) => push_string(&super::super::time::format_time(*micros), out),
        Value::TimestampTz(micros) => {
            push_string(&crate::types::timezone::json_timestamptz(*micros), out)
        }
        // PostgreSQL appends a json value's text verbatim, whitespace and all.
        Value::Json(text) | Value::Jsonb(text) => out.push_str(text),
        // An array is a JSON array (nested per dimension), as `array_to_json` writes it.
        Value::Array(array) => {
            let mut next = 0;
            push_array_level(array, 0, &mut next, out);
        }
    }
}

fn push_array_level(array: &crate::types::Array, level: usize, next: &mut usize, out: &mut String) {
    let Some(dimension) = array.dimensions().get(level) else {
        out.push_str("[]");
        return;
    };
    out.push('[');
    for i in 0..dimension.length {
        if i > 0 {
            out.push(',');
        }
        if level + 1 < array.dimensions().len() {
            push_array_level(array, level + 1, next, out);
        } else {
            push_value(array.elements().get(*next).unwrap_or(&Value::Null), out);
            *next += 1;
        }
    }
    out.push(']');
}

/// SQL `value` as an object key, as `json_build_object` and `json_object_agg` need it: its
/// text form (numbers and booleans included) as a JSON string. NULL and JSON values are
/// not keys.
pub fn push_key(value: &Value, out: &mut String) -> Result<(), TypeError> {
    match value {
        Value::Null => Err(TypeError::NullValueNotAllowed(
            "null value not allowed for object key",
        )),
        Value::Json(_) | Value::Jsonb(_) => Err(TypeError::InvalidArgument(
            "key value must be scalar, not array, composite, or json".to_owned(),
        )),
        Value::Text(s) => {
            push_string(s, out);
            Ok(())
        }
        other => {
            let mut text = String::new();
            push_value(other, &mut text);
            match text.strip_prefix('"') {
                // Already a string (dates, timestamps, non-finite reals, blobs).
                Some(_) => out.push_str(&text),
                None => push_string(&text, out),
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_tree;
    use super::*;

    fn jsonb(text: &str) -> String {
        normalized(&parse_tree(text).unwrap()).unwrap()
    }

    #[test]
    fn normalized_form_is_postgresql_jsonb_output() {
        assert_eq!(
            jsonb(" {\"b\":[1,2,{}], \"aa\":true,\"a\":null, \"b\": \"x\"} "),
            "{\"a\": null, \"b\": \"x\", \"aa\": true}"
        );
        assert_eq!(jsonb("[ ]"), "[]");
        assert_eq!(jsonb("{ }"), "{}");
        assert_eq!(
            jsonb("\"tab\\there\\u0001/\\/\""),
            "\"tab\\there\\u0001//\""
        );
        assert_eq!(jsonb("\"\\u00e9\""), "\"é\"");
        assert_eq!(
            normalized(&parse_tree("\"a\\u0000\"").unwrap())
                .unwrap_err()
                .code(),
            "22P05"
        );
    }

    #[test]
    fn numbers_print_as_numeric() {
        let cases = [
            ("1", "1"),
            ("-0", "0"),
            ("-0.0", "0.0"),
            ("1.50", "1.50"),
            ("1e2", "100"),
            ("1E+2", "100"),
            ("1.5e1", "15"),
            ("1.25e1", "12.5"),
            ("1e-2", "0.01"),
            ("-12.5e-3", "-0.0125"),
            ("0.000", "0.000"),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
            ("0e10", "0"),
        ];
        for (input, expected) in cases {
            assert_eq!(numeric_text(input).unwrap(), expected, "{input}");
        }
        assert_eq!(numeric_text("1e1001").unwrap_err().code(), "22003");
        assert_eq!(
            numeric_text("1e-99999999999999999999").unwrap_err().code(),
            "22003"
        );
    }

    #[test]
    fn sql_values_as_json() {
        let json = |value: Value| {
            let mut out = String::new();
            push_value(&value, &mut out);
            out
        };
        assert_eq!(json(Value::Null), "null");
        assert_eq!(json(Value::Integer(-3)), "-3");
        assert_eq!(json(Value::Real(1.5)), "1.5");
        assert_eq!(json(Value::Real(f64::NAN)), "\"NaN\"");
        assert_eq!(json(Value::Text("a\"b".into())), "\"a\\\"b\"");
        assert_eq!(json(Value::Boolean(true)), "true");
        assert_eq!(json(Value::Date(0)), "\"1970-01-01\"");
        assert_eq!(
            json(Value::Timestamp(1_706_702_400_500_000)),
            "\"2024-01-31T12:00:00.5\""
        );
        assert_eq!(json(Value::Blob(vec![1, 255])), "\"\\\\x01ff\"");
        assert_eq!(json(Value::Json(" [1,2] ".into())), " [1,2] ");
        let key = |value: Value| {
            let mut out = String::new();
            push_key(&value, &mut out)
                .map(|()| out)
                .map_err(|e| e.code())
        };
        assert_eq!(key(Value::Integer(2)), Ok("\"2\"".to_owned()));
        assert_eq!(key(Value::Boolean(false)), Ok("\"false\"".to_owned()));
        assert_eq!(key(Value::Date(0)), Ok("\"1970-01-01\"".to_owned()));
        assert_eq!(key(Value::Null), Err("22004"));
        assert_eq!(key(Value::Jsonb("{}".into())), Err("22023"));
    }
}
