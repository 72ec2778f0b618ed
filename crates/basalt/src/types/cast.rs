//! Casts between SQL types and the rules for when the binder may insert them silently.
//!
//! * [`cast`] is an explicit `CAST(x AS t)` / `x::t` with PostgreSQL's semantics; the executor
//!   also calls it for the implicit and assignment casts the binder inserts.
//! * [`implicit_cast`] and [`assignment_cast`] say which casts the binder may insert without
//!   being asked (in expressions, and when storing into a column).
//! * [`common_type`] resolves the one type of UNION columns, CASE/COALESCE branches and the
//!   two sides of a comparison.
//!
//! Casting never panics; a value that does not fit the target is a [`TypeError`] with
//! PostgreSQL's SQLSTATE. NULL casts to NULL of any type.

use super::datetime::{
    date_to_timestamp, format_date, format_timestamp, parse_date, parse_timestamp,
    timestamp_to_date,
};
use super::interval::Interval;
use super::interval::parse::parse_interval;
use super::numeric::{self, Numeric};
use super::uuid::parse_uuid;
use super::{DataType, TypeError, Value, json, time, timezone, vector};

/// Converts `value` to type `to` (an explicit cast).
///
/// Supported, beyond the identity: integer ↔ real (real → integer rounds half away from zero
/// and errors outside the integer range or for NaN/infinity); integer ↔ boolean (non-zero is
/// true); anything ↔ text (text is trimmed before parsing numbers, booleans, dates and
/// timestamps; output is [`Value`]'s `Display` form); text → blob (the UTF-8 bytes); date ↔
/// timestamp (midnight; the date containing the instant); text → interval and uuid in
/// their input forms ([`super::interval::parse`], [`super::uuid`]). Anything else is
/// [`TypeError::CannotCoerce`].
/// timestamp (midnight; the date containing the instant); text → json (validated) and
/// jsonb (normalized); json ↔ jsonb; jsonb → integer, real, boolean (of a jsonb number or
/// boolean); text → vector (pgvector's `[1,2,3]`), and a vector to `VECTOR(n)` checking its
/// dimension. Anything else is [`TypeError::CannotCoerce`].
pub fn cast(value: &Value, to: DataType) -> Result<Value, TypeError> {
    let cannot = || TypeError::CannotCoerce {
        from: value.data_type(),
        to,
    };
    Ok(match (value, to) {
        (Value::Null, _) => Value::Null,
        (_, DataType::Null) => return Err(cannot()),
        // A cast to VECTOR(n) checks the dimension, as pgvector's typmod coercion does.
        (Value::Vector(elements), DataType::Vector(dimensions)) => {
            vector::check_dimensions(dimensions, elements.len())?;
            value.clone()
        }
        // A cast to NUMERIC(p, s) rounds to s and checks p, as PostgreSQL's typmod coercion.
        (Value::Numeric(n), DataType::Numeric(typmod)) => Value::Numeric(with_typmod(*n, typmod)?),
        // A cast to TIME(p) rounds to p fractional digits, as PostgreSQL's time_scale.
        (Value::Time(t), DataType::Time(precision)) => {
            Value::Time(time::round_to_precision(*t, precision))
        }
        (v, t) if v.data_type() == t.unmodified() => v.clone(),
        // Arrays convert element by element (PostgreSQL's array coercion).
        (Value::Array(array), DataType::Array(element)) => {
            return super::array::functions::cast_elements(array, *element);
        }

        (Value::Text(s), t) => return parse_text(s, t),
        (v, DataType::Text(_)) => Value::Text(v.to_string()),

        (Value::Json(s), DataType::Jsonb) => Value::Jsonb(json::normalize_jsonb(s)?),
        // jsonb text is valid json text.
        (Value::Jsonb(s), DataType::Json) => Value::Json(s.clone()),
        (
            Value::Jsonb(s),
            DataType::Integer | DataType::Real | DataType::Boolean | DataType::Numeric(_),
        ) => {
            return jsonb_scalar(s, to);
        }

        (Value::Integer(i), DataType::Numeric(typmod)) => {
            Value::Numeric(with_typmod(Numeric::from_i64(*i), typmod)?)
        }
        (Value::Real(r), DataType::Numeric(typmod)) => {
            Value::Numeric(with_typmod(Numeric::from_f64(*r)?, typmod)?)
        }
        (Value::Numeric(n), DataType::Integer) => Value::Integer(n.to_i64()?),
        (Value::Numeric(n), DataType::Real) => Value::Real(n.to_f64()),

        (Value::Integer(i), DataType::Real) => Value::Real(*i as f64),
        (Value::Real(r), DataType::Integer) => Value::Integer(real_to_integer(*r)?),
        (Value::Integer(i), DataType::Boolean) => Value::Boolean(*i != 0),
        (Value::Boolean(b), DataType::Integer) => Value::Integer(i64::from(*b)),
        (Value::Date(d), DataType::Timestamp) => Value::Timestamp(date_to_timestamp(*d)?),
        (Value::Timestamp(t), DataType::Date) => Value::Date(timestamp_to_date(*t)),
        // TIMESTAMP and DATE are local times; TIMESTAMPTZ converts through the session zone,
        // as PostgreSQL's casts do.
        (Value::Timestamp(t), DataType::TimestampTz) => {
            Value::TimestampTz(timezone::local_to_utc(&timezone::session_zone(), *t)?)
        }
        (Value::Date(d), DataType::TimestampTz) => Value::TimestampTz(timezone::local_to_utc(
            &timezone::session_zone(),
            date_to_timestamp(*d)?,
        )?),
        (Value::TimestampTz(t), DataType::Timestamp) => {
            Value::Timestamp(timezone::utc_to_local(&timezone::session_zone(), *t)?)
        }
        (Value::TimestampTz(t), DataType::Date) => Value::Date(timestamp_to_date(
            timezone::utc_to_local(&timezone::session_zone(), *t)?,
        )),
        (Value::Timestamp(t), DataType::Time(precision)) => Value::Time(time::round_to_precision(
            time::from_timestamp(*t),
            precision,
        )),
        (Value::TimestampTz(t), DataType::Time(precision)) => {
            Value::Time(time::round_to_precision(
                time::from_timestamp(timezone::utc_to_local(&timezone::session_zone(), *t)?),
                precision,
            ))
        }
        (Value::Interval(i), DataType::Time(precision)) => {
            Value::Time(time::round_to_precision(time::from_interval(*i), precision))
        }
        (Value::Time(t), DataType::Interval) => Value::Interval(Interval::new(0, 0, *t)),
        _ => return Err(cannot()),
    })
}

/// Parses `text` as a literal of `data_type`: `cast(&Value::Text(text), data_type)`.
pub fn parse_literal_for(data_type: DataType, text: &str) -> Result<Value, TypeError> {
    parse_text(text, data_type)
}

/// Whether the binder may convert `from` to `to` silently inside an expression (PostgreSQL's
/// implicit casts among Basalt's types): the identity, NULL to anything, integer → real and
/// date → timestamp.
///
/// Text literals are not covered: the binder types a quoted literal as "unknown" and casts it
/// to whatever its context needs, as PostgreSQL does.
pub fn implicit_cast(from: DataType, to: DataType) -> bool {
    let (from, to) = (from.unmodified(), to.unmodified());
    if let (DataType::Array(from), DataType::Array(to)) = (from, to) {
        return implicit_cast(*from, *to);
    }
    from == to
        || matches!(
            (from, to),
            (DataType::Null, _)
                | (DataType::Integer, DataType::Real)
                | (DataType::Integer, DataType::Numeric(_))
                | (DataType::Numeric(_), DataType::Real)
                | (DataType::Date, DataType::Timestamp)
                | (DataType::Date | DataType::Timestamp, DataType::TimestampTz)
                | (DataType::Time(_), DataType::Interval)
        )
}

/// Whether the binder may convert `from` to `to` when storing into a column of type `to`
/// (PostgreSQL's assignment casts): the implicit casts, plus real → integer (rounding),
/// timestamp → date, json ↔ jsonb, and anything → text.
pub fn assignment_cast(from: DataType, to: DataType) -> bool {
    if let (DataType::Array(from), DataType::Array(to)) = (from, to) {
        return assignment_cast(*from, *to);
    }
    implicit_cast(from, to)
        || matches!(
            (from, to),
            (DataType::Real | DataType::Numeric(_), DataType::Integer)
                | (DataType::Real, DataType::Numeric(_))
                | (DataType::Timestamp, DataType::Date)
                | (DataType::TimestampTz, DataType::Timestamp | DataType::Date)
                | (
                    DataType::Timestamp | DataType::TimestampTz | DataType::Interval,
                    DataType::Time(_)
                )
                | (DataType::Json, DataType::Jsonb)
                | (DataType::Jsonb, DataType::Json)
                | (_, DataType::Text(_))
        )
}

/// The type two expressions are converted to when they must agree (UNION columns, CASE and
/// COALESCE branches, the sides of a comparison): the same type, the other type for NULL,
/// real for integer and real, timestamp for date and timestamp; otherwise `None` (a type
/// error for the binder to report).
pub fn common_type(a: DataType, b: DataType) -> Option<DataType> {
    let (a, b) = (a.unmodified(), b.unmodified());
    match (a, b) {
        _ if a == b => Some(a),
        (DataType::Null, other) | (other, DataType::Null) => Some(other),
        (DataType::Array(x), DataType::Array(y)) => common_type(*x, *y)?.array_of(),
        (DataType::Integer | DataType::Numeric(_), DataType::Real)
        | (DataType::Real, DataType::Integer | DataType::Numeric(_)) => Some(DataType::Real),
        (DataType::Integer, DataType::Numeric(_)) | (DataType::Numeric(_), DataType::Integer) => {
            Some(DataType::Numeric(None))
        }
        (DataType::Date, DataType::Timestamp) | (DataType::Timestamp, DataType::Date) => {
            Some(DataType::Timestamp)
        }
        (DataType::Date | DataType::Timestamp, DataType::TimestampTz)
        | (DataType::TimestampTz, DataType::Date | DataType::Timestamp) => {
            Some(DataType::TimestampTz)
        }
        _ => None,
    }
}

/// Checks a text value against a `VARCHAR(n)` / `CHAR(n)` limit of `max` characters:
/// an error for an assignment (22001), truncation for an explicit cast (as PostgreSQL does).
/// PostgreSQL's exception that trailing spaces may be cut silently is honoured.
pub fn enforce_char_length(text: &str, max: usize, explicit: bool) -> Result<String, TypeError> {
    match text.char_indices().nth(max) {
        None => Ok(text.to_owned()),
        Some((cut, _)) => {
            let (kept, rest) = text.split_at(cut);
            if explicit || rest.chars().all(|c| c == ' ') {
                Ok(kept.to_owned())
            } else {
                Err(TypeError::StringTooLong { max })
            }
        }
    }
}

/// Real → integer as PostgreSQL's numeric → bigint: round half away from zero, error when
/// the result does not fit (NaN and infinities never fit).
pub(crate) fn real_to_integer(r: f64) -> Result<i64, TypeError> {
    let rounded = r.round();
    // i64 covers [-2^63, 2^63); both bounds are exact doubles.
    const LOW: f64 = -9_223_372_036_854_775_808.0;
    const HIGH: f64 = 9_223_372_036_854_775_808.0;
    if (LOW..HIGH).contains(&rounded) {
        Ok(rounded as i64)
    } else {
        Err(TypeError::integer_overflow())
    }
}

fn parse_text(text: &str, to: DataType) -> Result<Value, TypeError> {
    Ok(match to {
        DataType::Null => {
            return Err(TypeError::CannotCoerce {
                from: DataType::Text(None),
                to,
            });
        }
        DataType::Text(_) => Value::Text(text.to_owned()),
        DataType::Blob => Value::Blob(text.as_bytes().to_vec()),
        DataType::Integer => Value::Integer(parse_integer(text)?),
        DataType::Real => Value::Real(parse_real(text)?),
        DataType::Numeric(typmod) => Value::Numeric(with_typmod(numeric::parse(text)?, typmod)?),
        DataType::Boolean => Value::Boolean(parse_boolean(text)?),
        DataType::Date => Value::Date(parse_date(text)?),
        DataType::Timestamp => Value::Timestamp(parse_timestamp(text)?),
        DataType::TimestampTz => Value::TimestampTz(timezone::parse_timestamptz(text)?),
        DataType::Time(precision) => {
            Value::Time(time::round_to_precision(time::parse_time(text)?, precision))
        }
        DataType::Interval => Value::Interval(parse_interval(text)?),
        DataType::Uuid => Value::Uuid(parse_uuid(text)?),
        DataType::Json => {
            json::validate_json(text)?;
            Value::Json(text.to_owned())
        }
        DataType::Jsonb => Value::Jsonb(json::normalize_jsonb(text)?),
        DataType::Vector(dimensions) => {
            let elements = vector::parse(text)?;
            vector::check_dimensions(dimensions, elements.len())?;
            Value::Vector(elements)
        }
        DataType::Array(element) => super::array::text::parse(text, *element)?.into_value(),
    })
}

/// jsonb → integer, real or boolean, as PostgreSQL's casts: only a jsonb number (or, for
/// boolean, a jsonb boolean) converts; anything else is 22023 naming what it was.
fn jsonb_scalar(text: &str, to: DataType) -> Result<Value, TypeError> {
    let kind = json::type_name(text);
    let wanted = if to == DataType::Boolean {
        "boolean"
    } else {
        "number"
    };
    if kind != wanted {
        return Err(TypeError::InvalidArgument(format!(
            "cannot cast jsonb {kind} to type {to}"
        )));
    }
    match to {
        DataType::Boolean => Ok(Value::Boolean(text.trim() == "true")),
        // Whole numbers convert exactly; others round as numeric → bigint does.
        DataType::Integer => match parse_integer(text) {
            Ok(integer) => Ok(Value::Integer(integer)),
            Err(_) => Ok(Value::Integer(real_to_integer(parse_real(text)?)?)),
        },
        DataType::Numeric(typmod) => {
            Ok(Value::Numeric(with_typmod(numeric::parse(text)?, typmod)?))
        }
        _ => Ok(Value::Real(parse_real(text)?)),
    }
}

/// A NUMERIC value under an optional `(precision, scale)` modifier.
pub(crate) fn with_typmod(n: Numeric, typmod: Option<(u32, u32)>) -> Result<Numeric, TypeError> {
    match typmod {
        Some((precision, scale)) => n.apply_typmod(precision, scale),
        None => Ok(n),
    }
}

/// Decimal integer text with optional sign and surrounding whitespace.
pub(crate) fn parse_integer(text: &str) -> Result<i64, TypeError> {
    let trimmed = text.trim();
    let invalid = || TypeError::InvalidTextRepresentation {
        type_name: "integer",
        text: text.to_owned(),
    };
    let (negative, digits) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, trimmed.get(1..).unwrap_or("")),
        Some(b'+') => (false, trimmed.get(1..).unwrap_or("")),
        _ => (false, trimmed),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    // Accumulate negatively so that i64::MIN parses.
    let mut value: i64 = 0;
    for b in digits.bytes() {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_sub(i64::from(b - b'0')))
            .ok_or_else(|| TypeError::ValueOutOfRange {
                text: text.to_owned(),
                type_name: "integer",
            })?;
    }
    if negative {
        Ok(value)
    } else {
        value
            .checked_neg()
            .ok_or_else(|| TypeError::ValueOutOfRange {
                text: text.to_owned(),
                type_name: "integer",
            })
    }
}

/// Real text: decimal or exponential notation, `NaN`, `Infinity`/`inf` with optional sign,
/// case-insensitive, surrounding whitespace ignored. Overflow and underflow are errors, as
/// in PostgreSQL.
pub(crate) fn parse_real(text: &str) -> Result<f64, TypeError> {
    let trimmed = text.trim();
    let invalid = || TypeError::InvalidTextRepresentation {
        type_name: "real",
        text: text.to_owned(),
    };
    // Rust's parser accepts exactly PostgreSQL's spellings plus nothing exotic, except that
    // it needs a digit somewhere for the numeric forms; both agree on "1.", ".5", "1e5".
    let unsigned = trimmed.trim_start_matches(['+', '-']);
    if trimmed.len() - unsigned.len() > 1 {
        return Err(invalid());
    }
    let special = unsigned.eq_ignore_ascii_case("nan")
        || unsigned.eq_ignore_ascii_case("inf")
        || unsigned.eq_ignore_ascii_case("infinity");
    if !special
        && !unsigned
            .bytes()
            .all(|b| b.is_ascii_digit() || b".eE+-".contains(&b))
    {
        return Err(invalid());
    }
    let value: f64 = trimmed.parse().map_err(|_| invalid())?;
    let out_of_range = || TypeError::ValueOutOfRange {
        text: text.to_owned(),
        type_name: "real",
    };
    if value.is_infinite() && !special {
        return Err(out_of_range());
    }
    if value == 0.0 && !special {
        // Underflow: a non-zero mantissa that rounded to zero.
        let mantissa = unsigned.split(['e', 'E']).next().unwrap_or("");
        if mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
            return Err(out_of_range());
        }
    }
    Ok(value)
}

/// PostgreSQL's boolean spellings: any prefix of `true`/`false`/`yes`/`no`, `on`, `off`
/// (at least `of`), `1`, `0`; case-insensitive, surrounding whitespace ignored.
pub(crate) fn parse_boolean(text: &str) -> Result<bool, TypeError> {
    let lower = text.trim().to_ascii_lowercase();
    let prefix_of = |word: &str| !lower.is_empty() && word.starts_with(lower.as_str());
    if prefix_of("true") || prefix_of("yes") || lower == "on" || lower == "1" {
        Ok(true)
    } else if prefix_of("false")
        || prefix_of("no")
        || lower == "off"
        || lower == "of"
        || lower == "0"
    {
        Ok(false)
    } else {
        Err(TypeError::InvalidTextRepresentation {
            type_name: "boolean",
            text: text.to_owned(),
        })
    }
}

/// The text form of a value for string operations (`||`, `concat`): `Display`, except that
/// dates and timestamps use the dedicated formatters directly.
pub(crate) fn text_form(value: &Value) -> String {
    match value {
        Value::Text(s) => s.clone(),
        Value::Date(d) => format_date(*d),
        Value::Timestamp(t) => format_timestamp(*t),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Value {
        Value::Text(s.to_owned())
    }

    #[test]
    fn null_casts_to_null() {
        for to in crate::types::descriptor::ALL_TYPES {
            assert_eq!(cast(&Value::Null, to), Ok(Value::Null));
        }
    }

    #[test]
    fn numeric_casts() {
        let cases: Vec<(Value, DataType, Result<Value, &str>)> = vec![
            (Value::Integer(3), DataType::Real, Ok(Value::Real(3.0))),
            (Value::Real(2.5), DataType::Integer, Ok(Value::Integer(3))),
            (Value::Real(-2.5), DataType::Integer, Ok(Value::Integer(-3))),
            (
                Value::Real(2.4999),
                DataType::Integer,
                Ok(Value::Integer(2)),
            ),
            (Value::Real(-0.5), DataType::Integer, Ok(Value::Integer(-1))),
            (
                Value::Real(9_223_372_036_854_775_808.0),
                DataType::Integer,
                Err("22003"),
            ),
            (
                Value::Real(9_223_372_036_854_774_784.0),
                DataType::Integer,
                Ok(Value::Integer(9_223_372_036_854_774_784)),
            ),
            (
                Value::Real(-9_223_372_036_854_775_808.0),
                DataType::Integer,
                Ok(Value::Integer(i64::MIN)),
            ),
            (Value::Real(f64::NAN), DataType::Integer, Err("22003")),
            (Value::Real(f64::INFINITY), DataType::Integer, Err("22003")),
            (
                Value::Integer(0),
                DataType::Boolean,
                Ok(Value::Boolean(false)),
            ),
            (
                Value::Integer(-7),
                DataType::Boolean,
                Ok(Value::Boolean(true)),
            ),
            (
                Value::Boolean(true),
                DataType::Integer,
                Ok(Value::Integer(1)),
            ),
            (Value::Real(1.0), DataType::Boolean, Err("42846")),
            (Value::Integer(1), DataType::Date, Err("42846")),
            (Value::Blob(vec![1]), DataType::Integer, Err("42846")),
            (Value::Integer(1), DataType::Null, Err("42846")),
        ];
        for (value, to, expected) in cases {
            let got = cast(&value, to).map_err(|e| e.code());
            assert_eq!(got, expected, "cast({value:?} as {to})");
        }
    }

    #[test]
    fn text_parsing() {
        let cases: Vec<(&str, DataType, Result<Value, &str>)> = vec![
            (" 42 ", DataType::Integer, Ok(Value::Integer(42))),
            (
                "-9223372036854775808",
                DataType::Integer,
                Ok(Value::Integer(i64::MIN)),
            ),
            (
                "9223372036854775807",
                DataType::Integer,
                Ok(Value::Integer(i64::MAX)),
            ),
            ("9223372036854775808", DataType::Integer, Err("22003")),
            ("+7", DataType::Integer, Ok(Value::Integer(7))),
            ("abc", DataType::Integer, Err("22P02")),
            ("", DataType::Integer, Err("22P02")),
            ("-", DataType::Integer, Err("22P02")),
            ("1.5", DataType::Integer, Err("22P02")),
            ("1 2", DataType::Integer, Err("22P02")),
            (" 1.5e3 ", DataType::Real, Ok(Value::Real(1500.0))),
            (".5", DataType::Real, Ok(Value::Real(0.5))),
            (
                "-Infinity",
                DataType::Real,
                Ok(Value::Real(f64::NEG_INFINITY)),
            ),
            ("inf", DataType::Real, Ok(Value::Real(f64::INFINITY))),
            ("1e400", DataType::Real, Err("22003")),
            ("1e-400", DataType::Real, Err("22003")),
            ("0e-400", DataType::Real, Ok(Value::Real(0.0))),
            ("--1", DataType::Real, Err("22P02")),
            ("1x", DataType::Real, Err("22P02")),
            ("infinityy", DataType::Real, Err("22P02")),
            ("t", DataType::Boolean, Ok(Value::Boolean(true))),
            (" TRUE ", DataType::Boolean, Ok(Value::Boolean(true))),
            ("Yes", DataType::Boolean, Ok(Value::Boolean(true))),
            ("on", DataType::Boolean, Ok(Value::Boolean(true))),
            ("1", DataType::Boolean, Ok(Value::Boolean(true))),
            ("f", DataType::Boolean, Ok(Value::Boolean(false))),
            ("no", DataType::Boolean, Ok(Value::Boolean(false))),
            ("OFF", DataType::Boolean, Ok(Value::Boolean(false))),
            ("0", DataType::Boolean, Ok(Value::Boolean(false))),
            ("o", DataType::Boolean, Err("22P02")),
            ("", DataType::Boolean, Err("22P02")),
            ("truee", DataType::Boolean, Err("22P02")),
            (
                "héllo",
                DataType::Blob,
                Ok(Value::Blob("héllo".as_bytes().to_vec())),
            ),
            ("2024-01-31", DataType::Date, Ok(Value::Date(19_753))),
            (
                "2024-01-31 12:00:00",
                DataType::Date,
                Ok(Value::Date(19_753)),
            ),
            ("2024-02-29", DataType::Date, Ok(Value::Date(19_782))),
            ("2023-02-29", DataType::Date, Err("22008")),
            ("1900-02-29", DataType::Date, Err("22008")),
            ("2000-02-29", DataType::Date, Ok(Value::Date(11_016))),
            ("2024-13-01", DataType::Date, Err("22008")),
            ("2024-00-10", DataType::Date, Err("22008")),
            ("0000-01-01", DataType::Date, Err("22008")),
            ("2024-01-31x", DataType::Date, Err("22007")),
            ("not a date", DataType::Date, Err("22007")),
            ("", DataType::Date, Err("22007")),
            ("epoch", DataType::Date, Ok(Value::Date(0))),
            ("0001-01-01 BC", DataType::Date, Ok(Value::Date(-719_528))),
            (
                "2024-01-31 12:00:00",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_702_400_000_000)),
            ),
            (
                "2024-01-31T12:00:00.5",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_702_400_500_000)),
            ),
            (
                "2024-01-31 12:00",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_702_400_000_000)),
            ),
            (
                "2024-01-31 13:30:00+01:30",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_702_400_000_000)),
            ),
            (
                "2024-01-31 07:00:00-0500",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_702_400_000_000)),
            ),
            (
                "2024-01-31T12:00:00Z",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_702_400_000_000)),
            ),
            (
                "2024-01-31 12:00:00.0000005",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_702_400_000_001)),
            ),
            (
                "2024-01-30 24:00:00",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_659_200_000_000)),
            ),
            (
                "2024-01-31",
                DataType::Timestamp,
                Ok(Value::Timestamp(1_706_659_200_000_000)),
            ),
            ("2024-01-31 24:00:01", DataType::Timestamp, Err("22008")),
            ("2024-01-31 12:60:00", DataType::Timestamp, Err("22008")),
            ("2024-01-31 12:00:00+16", DataType::Timestamp, Err("22008")),
            ("2024-01-31 12", DataType::Timestamp, Err("22007")),
            ("2024-01-31 12:00:00.", DataType::Timestamp, Err("22007")),
            ("9999999-01-01", DataType::Timestamp, Err("22008")),
            ("x", DataType::Null, Err("42846")),
        ];
        for (input, to, expected) in cases {
            let got = cast(&text(input), to).map_err(|e| e.code());
            assert_eq!(got, expected, "cast({input:?} as {to})");
        }
    }

    #[test]
    fn error_messages_name_the_input() {
        let err = cast(&text("abc"), DataType::Integer).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid input syntax for type integer: \"abc\""
        );
        let err = cast(&Value::Integer(1), DataType::Date).unwrap_err();
        assert_eq!(err.to_string(), "cannot cast type integer to date");
    }

    #[test]
    fn text_output() {
        let cases: Vec<(Value, &str)> = vec![
            (Value::Integer(-5), "-5"),
            (Value::Real(0.5), "0.5"),
            (Value::Boolean(false), "false"),
            (Value::Blob(vec![0, 255]), "\\x00ff"),
            (Value::Date(19_753), "2024-01-31"),
            (
                Value::Timestamp(1_706_702_400_000_000),
                "2024-01-31 12:00:00",
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(cast(&value, DataType::Text(None)), Ok(text(expected)));
        }
    }

    #[test]
    fn round_trips_through_text() {
        let values = [
            Value::Integer(i64::MIN),
            Value::Integer(i64::MAX),
            Value::Real(0.1),
            Value::Real(-1.5e-300),
            Value::Real(f64::INFINITY),
            Value::Boolean(true),
            Value::Boolean(false),
            Value::Date(-719_528),
            Value::Date(11_016),
            Value::Date(2_932_896),
            Value::Timestamp(-62_135_596_800_000_001),
            Value::Timestamp(1_706_702_400_123_456),
            Value::Timestamp(951_782_400_000_000),
        ];
        for value in values {
            let as_text = cast(&value, DataType::Text(None)).unwrap();
            let back = cast(&as_text, value.data_type());
            assert_eq!(back, Ok(value.clone()), "via {as_text:?}");
        }
        // Leap days of every fourth year from 1600 to 2400 survive the round trip.
        for year in (1600..=2400).step_by(4) {
            let s = format!("{year:04}-02-29");
            let got = cast(&text(&s), DataType::Date);
            if year % 100 == 0 && year % 400 != 0 {
                assert_eq!(got.map_err(|e| e.code()), Err("22008"), "{s}");
            } else {
                let date = got.unwrap();
                assert_eq!(date.to_string(), s);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn every_date_round_trips(days in proptest::prelude::any::<i32>()) {
            let value = Value::Date(days);
            let as_text = cast(&value, DataType::Text(None)).unwrap();
            proptest::prop_assert_eq!(cast(&as_text, DataType::Date), Ok(value));
        }

        #[test]
        fn every_timestamp_round_trips(micros in proptest::prelude::any::<i64>()) {
            let value = Value::Timestamp(micros);
            let as_text = cast(&value, DataType::Text(None)).unwrap();
            proptest::prop_assert_eq!(cast(&as_text, DataType::Timestamp), Ok(value));
        }

        #[test]
        fn every_real_round_trips(x in proptest::prelude::any::<f64>()) {
            let as_text = cast(&Value::Real(x), DataType::Text(None)).unwrap();
            match cast(&as_text, DataType::Real) {
                Ok(Value::Real(y)) => proptest::prop_assert!(
                    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
                ),
                other => proptest::prop_assert!(false, "{:?} -> {:?}", as_text, other),
            }
        }

        #[test]
        fn text_never_panics(s in ".{0,12}") {
            for to in [DataType::Integer, DataType::Real, DataType::Boolean, DataType::Date,
                       DataType::Timestamp, DataType::Blob] {
                let _ = cast(&Value::Text(s.clone()), to);
            }
        }
    }

    #[test]
    fn dates_and_timestamps_convert() {
        assert_eq!(
            cast(&Value::Date(1), DataType::Timestamp),
            Ok(Value::Timestamp(86_400_000_000))
        );
        assert_eq!(
            cast(&Value::Timestamp(-1), DataType::Date),
            Ok(Value::Date(-1))
        );
        assert_eq!(
            cast(&Value::Date(i32::MAX), DataType::Timestamp).map_err(|e| e.code()),
            Err("22008")
        );
    }

    #[test]
    fn type_rules() {
        use DataType::*;
        assert!(implicit_cast(Integer, Real));
        assert!(implicit_cast(Null, Blob));
        assert!(implicit_cast(Date, Timestamp));
        assert!(!implicit_cast(Real, Integer));
        assert!(!implicit_cast(Integer, Text(None)));
        assert!(assignment_cast(Real, Integer));
        assert!(assignment_cast(Integer, Text(None)));
        assert!(!assignment_cast(Text(None), Integer));
        assert_eq!(common_type(Integer, Real), Some(Real));
        assert_eq!(common_type(Null, Text(None)), Some(Text(None)));
        assert_eq!(common_type(Null, Null), Some(Null));
        assert_eq!(common_type(Timestamp, Date), Some(Timestamp));
        assert_eq!(common_type(Text(None), Text(None)), Some(Text(None)));
        assert_eq!(common_type(Text(None), Integer), None);
        assert_eq!(common_type(Boolean, Integer), None);
    }

    #[test]
    fn char_length_limits() {
        assert_eq!(
            enforce_char_length("héllo", 5, false),
            Ok("héllo".to_owned())
        );
        assert_eq!(enforce_char_length("héllo", 2, true), Ok("hé".to_owned()));
        assert_eq!(enforce_char_length("hé   ", 2, false), Ok("hé".to_owned()));
        assert_eq!(
            enforce_char_length("héllo", 2, false).map_err(|e| e.code()),
            Err("22001")
        );
    }
}
