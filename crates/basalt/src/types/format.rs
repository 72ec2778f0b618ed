//! Text output of values: `impl Display for Value`, in PostgreSQL's text form.
//!
//! This is what `CAST(x AS TEXT)`, `||`, `concat` and the client API produce, so it follows
//! PostgreSQL's output functions:
//! * integers in plain decimal;
//! * reals as PostgreSQL's `float8out` (since version 12): the shortest text that reads back
//!   as the same double, in positional form for decimal exponents -4..=14 and otherwise as
//!   `1.5e+20` / `1e-05`; `Infinity`, `-Infinity`, `NaN`, and `-0` for negative zero;
//! * booleans as `true` / `false` (PostgreSQL's `boolout` and psql show `t` / `f`; Basalt's
//!   text form is the spelled-out word, which also reads back through
//!   [`super::cast`](mod@super::cast));
//! * text as is; blobs in PostgreSQL's `\x` hex form with lower-case digits;
//! * dates `YYYY-MM-DD`, timestamps `YYYY-MM-DD HH:MM:SS[.ffffff]` (see [`super::datetime`]);
//! * intervals in PostgreSQL's `postgres` style, `1 year 2 mons 3 days 04:05:06.5` (see
//!   [`super::interval`]); UUIDs in lower-case `8-4-4-4-12` hex (see [`super::uuid`]);
//! * json as its text, jsonb as its normalized text (see [`super::json`]);
//! * vectors as pgvector prints them, `[1,2.5,-0.03]` (see [`super::vector`]);
//! * arrays as PostgreSQL's `array_out` writes them, `{1,NULL,"a b"}` (see
//!   [`super::array::text`]);
//! * NULL as the empty string (callers that must distinguish NULL check for it first).

use std::fmt::{self, Write as _};

use super::Value;
use super::datetime::{format_date, format_timestamp};
use super::uuid::format_uuid;

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Boolean(b) => f.write_str(if *b { "true" } else { "false" }),
            Value::Integer(i) => write!(f, "{i}"),
            Value::Real(r) => f.write_str(&format_real(*r)),
            Value::Numeric(n) => write!(f, "{n}"),
            Value::Text(s) => f.write_str(s),
            Value::Blob(bytes) => {
                f.write_str("\\x")?;
                for byte in bytes {
                    write!(f, "{byte:02x}")?;
                }
                Ok(())
            }
            Value::Date(days) => f.write_str(&format_date(*days)),
            Value::Timestamp(micros) => f.write_str(&format_timestamp(*micros)),
            Value::TimestampTz(micros) => {
                f.write_str(&crate::types::timezone::format_timestamptz(*micros))
            }
            Value::Time(micros) => f.write_str(&super::time::format_time(*micros)),
            Value::Interval(interval) => write!(f, "{interval}"),
            Value::Uuid(uuid) => f.write_str(&format_uuid(uuid)),
            Value::Json(text) | Value::Jsonb(text) => f.write_str(text),
            Value::Vector(elements) => {
                let mut text = String::with_capacity(elements.len() * 8 + 2);
                super::vector::format(elements, &mut text);
                f.write_str(&text)
            }
            Value::Array(array) => {
                let mut text = String::new();
                super::array::text::format(array, &mut text);
                f.write_str(&text)
            }
        }
    }
}

/// Formats a double the way PostgreSQL's `float8out` does.
pub fn format_real(value: f64) -> String {
    if let Some(text) = special_form(value) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(24);
    let (negative, digits, exponent) = shortest_digits(value);
    push_shortest(negative, &digits, exponent, 15, &mut out);
    out
}

/// Appends an `f32` the way PostgreSQL's `float4out` does (what pgvector prints for each
/// element of a vector): the shortest digits, positional for decimal exponents -4..=5.
pub(crate) fn push_real4(value: f32, out: &mut String) {
    if let Some(text) = special_form(f64::from(value)) {
        out.push_str(text);
        return;
    }
    let text = format!("{:e}", value.abs());
    let (negative, digits, exponent) = split_scientific(&text, value.is_sign_negative());
    push_shortest(negative, &digits, exponent, 6, out);
}

/// The text of NaN, the infinities and the zeros, which have no digits to print.
fn special_form(value: f64) -> Option<&'static str> {
    Some(if value.is_nan() {
        "NaN"
    } else if value == f64::INFINITY {
        "Infinity"
    } else if value == f64::NEG_INFINITY {
        "-Infinity"
    } else if value == 0.0 {
        if value.is_sign_negative() { "-0" } else { "0" }
    } else {
        return None;
    })
}

/// Appends shortest `digits` (no leading or trailing zeros) whose first digit has decimal
/// `exponent`: positional for exponents `-4..positional_below`, otherwise exponential with
/// a sign and at least two exponent digits, as C's `%g` writes (`float8out` uses 15,
/// `float4out` 6).
fn push_shortest(
    negative: bool,
    digits: &str,
    exponent: i32,
    positional_below: i32,
    out: &mut String,
) {
    if negative {
        out.push('-');
    }
    if (-4..positional_below).contains(&exponent) {
        // Positional: the digits with the decimal point placed after `exponent + 1` digits.
        if exponent < 0 {
            out.push_str("0.");
            for _ in 0..(-exponent - 1) {
                out.push('0');
            }
            out.push_str(digits);
        } else {
            let int_len = usize::try_from(exponent).unwrap_or(0) + 1;
            if digits.len() <= int_len {
                out.push_str(digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
            } else {
                let (int_part, frac_part) = digits.split_at(int_len);
                out.push_str(int_part);
                out.push('.');
                out.push_str(frac_part);
            }
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.unsigned_abs());
    }
}

/// The shortest round-trip decimal digits of a finite non-zero double: (negative, digits
/// without leading or trailing zeros, decimal exponent of the first digit).
///
/// Rust's `{:e}` formatting already produces the shortest representation that reads back
/// exactly (like Ryu, which PostgreSQL uses); this only takes it apart.
pub(crate) fn shortest_digits(value: f64) -> (bool, String, i32) {
    split_scientific(&format!("{:e}", value.abs()), value.is_sign_negative())
}

/// Takes Rust's `{:e}` text of a magnitude (`1.5e20`) apart into digits and exponent.
fn split_scientific(text: &str, negative: bool) -> (bool, String, i32) {
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    (negative, digits.to_owned(), exponent.parse().unwrap_or(0))
}

/// Upper-case hex of bytes (SQLite's `hex()`).
pub(crate) fn upper_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02X}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_format_like_postgres() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e14, "100000000000000"),
            (1e15, "1e+15"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e300, "1e+300"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (123.456, "123.456"),
            (100.0, "100"),
        ];
        for (value, expected) in cases {
            assert_eq!(format_real(*value), *expected, "formatting {value:e}");
            if value.is_finite() {
                let back: f64 = expected.parse().unwrap_or(f64::NAN);
                assert_eq!(back.to_bits(), value.to_bits(), "round trip of {expected}");
            }
        }
    }

    #[test]
    fn values_display() {
        let cases: Vec<(Value, &str)> = vec![
            (Value::Null, ""),
            (Value::Boolean(true), "true"),
            (Value::Boolean(false), "false"),
            (Value::Integer(i64::MIN), "-9223372036854775808"),
            (Value::Real(2.0), "2"),
            (Value::Text("héllo".into()), "héllo"),
            (Value::Blob(vec![0xde, 0xad, 0x01]), "\\xdead01"),
            (Value::Blob(vec![]), "\\x"),
            (Value::Date(0), "1970-01-01"),
            (Value::Date(19_753), "2024-01-31"),
            (Value::Date(-719_163), "0001-12-31 BC"),
            (Value::Date(-719_528), "0001-01-01 BC"),
            (Value::Timestamp(0), "1970-01-01 00:00:00"),
            (
                Value::Timestamp(1_706_702_400_000_000),
                "2024-01-31 12:00:00",
            ),
            (
                Value::Timestamp(1_706_702_400_500_000),
                "2024-01-31 12:00:00.5",
            ),
            (Value::Timestamp(-1), "1969-12-31 23:59:59.999999"),
        ];
        for (value, expected) in cases {
            assert_eq!(value.to_string(), expected, "{value:?}");
        }
        // Extremes never panic.
        for value in [
            Value::Date(i32::MIN),
            Value::Date(i32::MAX),
            Value::Timestamp(i64::MIN),
            Value::Timestamp(i64::MAX),
        ] {
            assert!(!value.to_string().is_empty());
        }
    }

    #[test]
    fn hex_is_upper_case() {
        assert_eq!(upper_hex(&[0xab, 0x01]), "AB01");
        assert_eq!(upper_hex(&[]), "");
    }
}
