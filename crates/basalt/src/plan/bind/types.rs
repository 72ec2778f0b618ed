//! Type decisions the binder makes: common types, literal conversion, SQL type names, and
//! scalar-function resolution — in one place so that switching them to `crate::types`'
//! registry and casts is a one-file change.
//!
//! The rules follow PostgreSQL with SQLite-compatible leniency where the sqllogictest corpus
//! needs it: integers and booleans mix (a boolean is 0/1), and a column declared with no type
//! is TEXT.

use sqlparser::ast;

use crate::plan::expr::ScalarFunctionRef;
use crate::types::{DataType, Value};

use super::error::BindError;

/// The type two operands are converted to before comparing them (or unifying CASE branches,
/// UNION columns, IN lists): `None` when they cannot meet.
pub(super) fn common_type(a: DataType, b: DataType) -> Option<DataType> {
    use DataType::*;
    match (a, b) {
        _ if a == b => Some(a),
        (Null, other) | (other, Null) => Some(other),
        (Integer, Real) | (Real, Integer) => Some(Real),
        // SQLite leniency: booleans are the integers 0 and 1.
        (Boolean, Integer) | (Integer, Boolean) => Some(Integer),
        (Boolean, Real) | (Real, Boolean) => Some(Real),
        (Date, Timestamp) | (Timestamp, Date) => Some(Timestamp),
        _ => None,
    }
}

/// Whether a value of type `from` may be stored in a column of type `to` (PostgreSQL's
/// assignment casts, plus integer/boolean for SQLite).
pub(super) fn assignable(from: DataType, to: DataType) -> bool {
    use DataType::*;
    from == to
        || from == Null
        || to == Text
        || matches!(
            (from, to),
            (Integer, Real)
                | (Real, Integer)
                | (Boolean, Integer)
                | (Integer, Boolean)
                | (Date, Timestamp)
                | (Timestamp, Date)
        )
}

/// Whether an explicit `CAST(x AS to)` from `from` is allowed.
pub(super) fn castable(from: DataType, to: DataType) -> bool {
    use DataType::*;
    from == to
        || from == Null
        || from == Text
        || to == Text
        || (from.is_numeric() || from == Boolean) && (to.is_numeric() || to == Boolean)
        || matches!(
            (from, to),
            (Date, Timestamp) | (Timestamp, Date) | (Blob, Text) | (Text, Blob)
        )
}

/// Converts literal text to `to` at bind time (PostgreSQL's "unknown" literal resolution),
/// 22P02 when the text is not of that form.
pub(super) fn convert_text(text: &str, to: DataType) -> Result<Value, BindError> {
    let invalid = || {
        BindError::new(
            "22P02",
            format!("invalid input syntax for type {to}: \"{text}\""),
        )
    };
    let trimmed = text.trim();
    Ok(match to {
        DataType::Null | DataType::Text => Value::Text(text.to_string()),
        DataType::Integer => Value::Integer(trimmed.parse().map_err(|_| invalid())?),
        DataType::Real => Value::Real(trimmed.parse().map_err(|_| invalid())?),
        DataType::Boolean => Value::Boolean(parse_bool(trimmed).ok_or_else(invalid)?),
        DataType::Blob => Value::Blob(match text.strip_prefix("\\x") {
            Some(hex) => parse_hex(hex).ok_or_else(invalid)?,
            None => text.as_bytes().to_vec(),
        }),
        DataType::Date => Value::Date(parse_date(trimmed).ok_or_else(invalid)?),
        DataType::Timestamp => Value::Timestamp(parse_timestamp(trimmed).ok_or_else(invalid)?),
    })
}

/// Converts a constant at bind time when the conversion is exact; `None` leaves it to the
/// executor's cast (which knows rounding and range rules).
pub(super) fn fold_cast(value: &Value, to: DataType) -> Option<Value> {
    match (value, to) {
        (Value::Null, _) => Some(Value::Null),
        (value, to) if value.data_type() == to => Some(value.clone()),
        (Value::Integer(i), DataType::Real) => Some(Value::Real(*i as f64)),
        (Value::Boolean(b), DataType::Integer) => Some(Value::Integer(i64::from(*b))),
        (Value::Integer(i), DataType::Boolean) => Some(Value::Boolean(*i != 0)),
        (Value::Text(text), to) => convert_text(text, to).ok(),
        _ => None,
    }
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "t" | "true" | "y" | "yes" | "on" | "1" => Some(true),
        "f" | "false" | "n" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// Hex digits to bytes (an even number of them).
pub(super) fn parse_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `YYYY-MM-DD` → days since 1970-01-01.
fn parse_date(text: &str) -> Option<i32> {
    let mut parts = text.splitn(3, '-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: u32 = parts.next()?.parse().ok()?;
    let day: u32 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    i32::try_from(days_from_civil(year, month, day)).ok()
}

/// `YYYY-MM-DD[ T]HH:MM[:SS[.ffffff]]` → microseconds since 1970-01-01 00:00:00.
fn parse_timestamp(text: &str) -> Option<i64> {
    let (date, time) = match text.find([' ', 'T']) {
        Some(position) => (&text[..position], text[position + 1..].trim()),
        None => (text, ""),
    };
    let days = i64::from(parse_date(date)?);
    let mut micros = 0i64;
    if !time.is_empty() {
        let mut parts = time.splitn(3, ':');
        let hour: i64 = parts.next()?.parse().ok()?;
        let minute: i64 = parts.next()?.parse().ok()?;
        let seconds: f64 = match parts.next() {
            Some(seconds) => seconds.parse().ok()?,
            None => 0.0,
        };
        if !(0..24).contains(&hour) || !(0..60).contains(&minute) || !(0.0..61.0).contains(&seconds)
        {
            return None;
        }
        micros = (hour * 3600 + minute * 60) * 1_000_000 + (seconds * 1e6).round() as i64;
    }
    days.checked_mul(86_400_000_000)?.checked_add(micros)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Howard Hinnant's days-from-civil.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// A declared SQL type → Basalt's type and the VARCHAR/CHAR length limit.
pub(super) fn sql_type(data_type: &ast::DataType) -> Result<(DataType, Option<u32>), BindError> {
    use ast::DataType as T;
    let length = |length: &Option<ast::CharacterLength>| match length {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => u32::try_from(*length).ok(),
        _ => None,
    };
    Ok(match data_type {
        T::TinyInt(_)
        | T::Int2(_)
        | T::SmallInt(_)
        | T::MediumInt(_)
        | T::Int(_)
        | T::Int4(_)
        | T::Int8(_)
        | T::Int16
        | T::Int32
        | T::Int64
        | T::Integer(_)
        | T::BigInt(_)
        | T::Signed
        | T::SignedInteger
        | T::TinyIntUnsigned(_)
        | T::SmallIntUnsigned(_)
        | T::IntUnsigned(_)
        | T::IntegerUnsigned(_)
        | T::BigIntUnsigned(_)
        | T::UnsignedInteger
        | T::Unsigned => (DataType::Integer, None),
        T::Numeric(_)
        | T::Decimal(_)
        | T::Dec(_)
        | T::Float(_)
        | T::Float4
        | T::Float8
        | T::Float32
        | T::Float64
        | T::Real
        | T::Double(_)
        | T::DoublePrecision => (DataType::Real, None),
        T::Character(n)
        | T::Char(n)
        | T::CharacterVarying(n)
        | T::CharVarying(n)
        | T::Varchar(n)
        | T::Nvarchar(n) => (DataType::Text, length(n)),
        T::Text
        | T::TinyText
        | T::MediumText
        | T::LongText
        | T::String(_)
        | T::Clob(_)
        | T::CharacterLargeObject(_)
        | T::CharLargeObject(_)
        | T::Unspecified => (DataType::Text, None),
        T::Blob(_)
        | T::Bytea
        | T::Binary(_)
        | T::Varbinary(_)
        | T::TinyBlob
        | T::MediumBlob
        | T::LongBlob
        | T::Bytes(_) => (DataType::Blob, None),
        T::Bool | T::Boolean => (DataType::Boolean, None),
        T::Date => (DataType::Date, None),
        T::Timestamp(_, _) | T::Datetime(_) | T::TimestampNtz(_) => (DataType::Timestamp, None),
        T::Custom(name, _) => (affinity_type(&name.to_string())?, None),
        other => return Err(BindError::unsupported(format!("type {other}"))),
    })
}

/// SQLite's affinity rules for type names sqlparser does not know (`INT UNSIGNED`,
/// `VARYING CHARACTER`, `STRING`...).
fn affinity_type(name: &str) -> Result<DataType, BindError> {
    let lower = name.to_ascii_lowercase();
    Ok(if lower.contains("int") {
        DataType::Integer
    } else if lower.contains("char")
        || lower.contains("clob")
        || lower.contains("text")
        || lower == "string"
    {
        DataType::Text
    } else if lower.contains("blob") {
        DataType::Blob
    } else if lower.contains("real")
        || lower.contains("floa")
        || lower.contains("doub")
        || lower.contains("num")
    {
        DataType::Real
    } else if lower.contains("bool") {
        DataType::Boolean
    } else {
        return Err(BindError::new(
            "42704",
            format!("type \"{name}\" does not exist"),
        ));
    })
}

/// A resolved scalar function: the registry entry and its result type.
pub(super) struct ResolvedFunction {
    pub function: ScalarFunctionRef,
    pub data_type: DataType,
}

/// Resolves scalar function `name` (lower case) for arguments of these types: `Ok(None)` when
/// no function has that name, 42883 when it has but not for these types.
///
/// Until `crate::types::scalar_function` is available this is a small table of the common
/// SQLite and PostgreSQL functions.
pub(super) fn resolve_function(
    name: &str,
    args: &[DataType],
) -> Result<Option<ResolvedFunction>, BindError> {
    use DataType::*;
    let wrong = || {
        let types: Vec<&str> = args.iter().map(|t| t.name()).collect();
        BindError::undefined_function(format!(
            "function {name}({}) does not exist",
            types.join(", ")
        ))
    };
    let arity = |range: std::ops::RangeInclusive<usize>| {
        if range.contains(&args.len()) {
            Ok(())
        } else {
            Err(wrong())
        }
    };
    let first = args.first().copied().unwrap_or(Null);
    let numeric = |t: DataType| matches!(t, Integer | Real | Null | Boolean);
    let (data_type, volatile) = match name {
        "abs" | "sign" => {
            arity(1..=1)?;
            if !numeric(first) {
                return Err(wrong());
            }
            (if first == Real { Real } else { Integer }, false)
        }
        "ceil" | "ceiling" | "floor" | "trunc" => {
            arity(1..=2)?;
            (if first == Real { Real } else { Integer }, false)
        }
        "round" => {
            arity(1..=2)?;
            (Real, false)
        }
        "sqrt" | "exp" | "ln" | "log" | "log10" | "power" | "pow" | "sin" | "cos" | "tan"
        | "pi" | "degrees" | "radians" => (Real, false),
        "length" | "char_length" | "character_length" | "octet_length" | "instr" | "unicode"
        | "strpos" | "mod" => (Integer, false),
        "lower" | "upper" | "trim" | "ltrim" | "rtrim" | "btrim" | "replace" | "substr"
        | "substring" | "hex" | "quote" | "printf" | "format" | "concat" | "typeof" | "char"
        | "chr" | "left" | "right" | "reverse" | "lpad" | "rpad" | "repeat" | "concat_ws"
        | "md5" | "to_hex" | "initcap" => (Text, false),
        "random" => (Integer, true),
        "randomblob" | "zeroblob" | "unhex" => (Blob, false),
        "date" => (Date, false),
        "datetime" => (Timestamp, false),
        "likely" | "unlikely" => (first, false),
        "greatest" | "least" => {
            arity(1..=usize::MAX)?;
            let mut result = Null;
            for &arg in args {
                result = common_type(result, arg).ok_or_else(wrong)?;
            }
            (result, false)
        }
        _ => return Ok(None),
    };
    Ok(Some(ResolvedFunction {
        function: ScalarFunctionRef {
            name: name.to_string(),
            volatile,
        },
        data_type,
    }))
}
