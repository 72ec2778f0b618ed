//! Type decisions the binder makes: common types, literal conversion, SQL type names, and
//! scalar-function resolution — in one place so that switching them to `crate::types`'
//! registry and casts is a one-file change.
//!
//! The rules are `crate::types`' (PostgreSQL's) with SQLite-compatible leniency where the
//! sqllogictest corpus needs it: integers and booleans mix (a boolean is 0/1), and a column
//! declared with no type is TEXT.

use sqlparser::ast;

use crate::plan::expr::ScalarFunctionRef;
use crate::sqlstate;
use crate::types::{self, DataType, Value, vector};

use super::error::BindError;

/// The type two operands are converted to before comparing them (or unifying CASE branches,
/// UNION columns, IN lists): `None` when they cannot meet.
pub(super) fn common_type(a: DataType, b: DataType) -> Option<DataType> {
    use DataType::*;
    types::common_type(a, b).or(match (a, b) {
        // SQLite leniency: booleans are the integers 0 and 1.
        (Boolean, Integer) | (Integer, Boolean) => Some(Integer),
        (Boolean, Real) | (Real, Boolean) => Some(Real),
        _ => None,
    })
}

/// Whether a value of type `from` may be stored in a column of type `to` (PostgreSQL's
/// assignment casts, plus integer/boolean for SQLite).
pub(super) fn assignable(from: DataType, to: DataType) -> bool {
    use DataType::*;
    types::assignment_cast(from, to)
        || matches!(
            (from, to),
            (Boolean, Integer) | (Integer, Boolean) | (Date, Timestamp)
        )
}

/// Whether an explicit `CAST(x AS to)` from `from` is allowed.
pub(super) fn castable(from: DataType, to: DataType) -> bool {
    use DataType::*;
    let (from, to) = (from.unmodified(), to.unmodified());
    if let (Array(from), Array(to)) = (from, to) {
        return castable(*from, *to);
    }
    from == to
        || from == Null
        || from.is_text()
        || to.is_text()
        || (from.is_numeric() || from == Boolean) && (to.is_numeric() || to == Boolean)
        || matches!(
            (from, to),
            (Date, Timestamp)
                | (Timestamp, Date)
                | (Date | Timestamp, TimestampTz)
                | (TimestampTz, Date | Timestamp)
                | (Timestamp | TimestampTz | Interval, Time(_))
                | (Time(_), Interval)
                | (Text(_), Blob)
                | (Json, Jsonb)
                | (Jsonb, Json)
                | (Jsonb, Integer | Real | Boolean | Numeric(_))
        )
}

/// Converts literal text to `to` at bind time (PostgreSQL's "unknown" literal resolution),
/// 22P02 (or the conversion's own SQLSTATE) when the text is not of that form.
pub(super) fn convert_text(text: &str, to: DataType) -> Result<Value, BindError> {
    match to {
        DataType::Null | DataType::Text(_) => Ok(Value::Text(text.to_string())),
        // PostgreSQL's bytea input: `\x` then hex digits.
        DataType::Blob => Ok(Value::Blob(match text.strip_prefix("\\x") {
            Some(hex) => parse_hex(hex).ok_or_else(|| {
                BindError::new(
                    sqlstate::INVALID_TEXT_REPRESENTATION,
                    format!("invalid input syntax for type blob: \"{text}\""),
                )
            })?,
            None => text.as_bytes().to_vec(),
        })),
        _ => types::parse_literal_for(to, text).map_err(type_error),
    }
}

/// A conversion error from `crate::types` as a bind error with the same SQLSTATE.
pub(super) fn type_error(error: types::TypeError) -> BindError {
    BindError::new(error.sqlstate(), error.to_string())
}

/// Converts a constant at bind time, with the executor's own cast; `None` (the conversion
/// fails, e.g. out of range) leaves a cast for execution to report.
pub(super) fn fold_cast(value: &Value, to: DataType) -> Option<Value> {
    match (value, to) {
        (Value::Null, _) => Some(Value::Null),
        (Value::Text(text), to) => convert_text(text, to).ok(),
        (value, to) => types::cast(value, to).ok(),
    }
}

/// Hex digits to bytes (an even number of them).
pub(super) fn parse_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A declared SQL type → Basalt's type, carrying its modifier (the VARCHAR/CHAR length
/// limit): a column's type.
pub(super) fn sql_type(data_type: &ast::DataType) -> Result<DataType, BindError> {
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
        | T::Unsigned => DataType::Integer,
        T::Numeric(info) | T::Decimal(info) | T::Dec(info) => numeric_type(info)?,
        T::Float(_)
        | T::Float4
        | T::Float8
        | T::Float32
        | T::Float64
        | T::Real
        | T::Double(_)
        | T::DoublePrecision => DataType::Real,
        T::Character(n)
        | T::Char(n)
        | T::CharacterVarying(n)
        | T::CharVarying(n)
        | T::Varchar(n)
        | T::Nvarchar(n) => DataType::Text(length(n)),
        T::Text
        | T::TinyText
        | T::MediumText
        | T::LongText
        | T::String(_)
        | T::Clob(_)
        | T::CharacterLargeObject(_)
        | T::CharLargeObject(_)
        | T::Unspecified => DataType::Text(None),
        T::Blob(_)
        | T::Bytea
        | T::Binary(_)
        | T::Varbinary(_)
        | T::TinyBlob
        | T::MediumBlob
        | T::LongBlob
        | T::Bytes(_) => DataType::Blob,
        T::Bool | T::Boolean => DataType::Boolean,
        T::Date => DataType::Date,
        T::Timestamp(_, ast::TimezoneInfo::Tz | ast::TimezoneInfo::WithTimeZone) => {
            DataType::TimestampTz
        }
        T::Timestamp(_, _) | T::Datetime(_) | T::TimestampNtz(_) => DataType::Timestamp,
        T::Time(precision, ast::TimezoneInfo::None | ast::TimezoneInfo::WithoutTimeZone) => {
            // PostgreSQL warns and reduces a precision above 6 to 6; Basalt reduces it.
            DataType::Time(precision.map(|p| {
                u32::try_from(p).map_or(types::time::MAX_PRECISION, |p| {
                    p.min(types::time::MAX_PRECISION)
                })
            }))
        }
        T::Time(..) => {
            return Err(BindError::unsupported(format!(
                "type {data_type} (TIME WITH TIME ZONE; Basalt has TIME without one)"
            )));
        }
        T::Interval {
            fields: None,
            precision: None,
        } => DataType::Interval,
        // A column restricted to some fields or a seconds precision would have to enforce
        // them on every assignment; only the literal syntax (`INTERVAL '1' DAY`) has them.
        T::Interval { .. } => {
            return Err(BindError::unsupported(format!(
                "type {data_type} (INTERVAL with fields or a precision)"
            )));
        }
        T::Uuid => DataType::Uuid,
        T::JSON => DataType::Json,
        T::JSONB => DataType::Jsonb,
        T::Custom(name, arguments) if is_vector_type_name(name) => vector_type(arguments)?,
        T::Custom(name, _) => affinity_type(&name.to_string())?,
        T::Array(
            ast::ArrayElemTypeDef::SquareBracket(element, _)
            | ast::ArrayElemTypeDef::AngleBracket(element)
            | ast::ArrayElemTypeDef::Parenthesis(element)
            | ast::ArrayElemTypeDef::Qualified(element, _),
        ) => array_type(sql_type(element)?)?,
        other => return Err(BindError::unsupported(format!("type {other}"))),
    })
}

/// `T[]` of the element type `element` (`int[][]` is `int[]`: PostgreSQL does not enforce
/// declared dimensions either); 0A000 for element types Basalt's arrays cannot hold.
fn array_type(element: DataType) -> Result<DataType, BindError> {
    if element.is_array() {
        return Ok(element);
    }
    element
        .array_of()
        .ok_or_else(|| BindError::unsupported(format!("arrays of type {element}")))
}

/// `NUMERIC`, `NUMERIC(p)` or `NUMERIC(p, s)`: precision 1 to 1000 as PostgreSQL (22023);
/// a scale from 0 to 38, the most a value here has (0A000 beyond, and for PostgreSQL 15's
/// negative scales).
fn numeric_type(info: &ast::ExactNumberInfo) -> Result<DataType, BindError> {
    let (precision, scale) = match *info {
        ast::ExactNumberInfo::None => return Ok(DataType::Numeric(None)),
        ast::ExactNumberInfo::Precision(precision) => (precision, 0),
        ast::ExactNumberInfo::PrecisionAndScale(precision, scale) => (precision, scale),
    };
    if !(1..=1000).contains(&precision) {
        return Err(BindError::new(
            sqlstate::INVALID_PARAMETER_VALUE,
            format!("NUMERIC precision {precision} must be between 1 and 1000"),
        ));
    }
    if !(0..=i64::from(types::numeric::MAX_SCALE)).contains(&scale) {
        return Err(BindError::unsupported(format!(
            "NUMERIC scale {scale} (a scale must be between 0 and {})",
            types::numeric::MAX_SCALE
        )));
    }
    Ok(DataType::Numeric(Some((precision as u32, scale as u32))))
}

/// `VECTOR` or `VECTOR(n)`, with pgvector's checks of n (22023).
fn vector_type(arguments: &[String]) -> Result<DataType, BindError> {
    let invalid = || {
        BindError::new(
            sqlstate::INVALID_PARAMETER_VALUE,
            "invalid type modifier".to_string(),
        )
    };
    match arguments {
        [] => Ok(DataType::Vector(None)),
        [dimensions] => {
            let dimensions: i64 = dimensions.trim().parse().map_err(|_| invalid())?;
            let dimensions = vector::check_declared_dimensions(dimensions)
                .map_err(|error| BindError::new(error.sqlstate(), error.to_string()))?;
            Ok(DataType::Vector(Some(dimensions)))
        }
        _ => Err(invalid()),
    }
}

/// The type an explicit cast (`CAST(x AS t)`, `t 'literal'`) converts to: the declared
/// type without the modifiers a cast does not enforce. A cast to `VARCHAR(n)` does not
/// truncate (SQLite's behaviour; PostgreSQL would cut the text at n characters), so its
/// result is plain text rather than a type claiming a length its values may exceed.
pub(super) fn cast_target(data_type: &ast::DataType) -> Result<DataType, BindError> {
    Ok(match sql_type(data_type)? {
        DataType::Text(_) => DataType::Text(None),
        other => other,
    })
}

/// SQLite's affinity rules for type names sqlparser does not know (`INT UNSIGNED`,
/// `VARYING CHARACTER`, `STRING`...).
fn affinity_type(name: &str) -> Result<DataType, BindError> {
    let lower = name.to_ascii_lowercase();
    if lower == "jsonpath" {
        // Paths are validated text in casts and function arguments, never stored.
        return Err(BindError::unsupported(
            "type jsonpath as a column or storage type (a path is text: cast with ::jsonpath to check it)",
        ));
    }
    Ok(if lower.contains("int") {
        DataType::Integer
    } else if lower.contains("char")
        || lower.contains("clob")
        || lower.contains("text")
        || lower == "string"
    {
        DataType::Text(None)
    } else if lower.contains("blob") {
        DataType::Blob
    } else if lower.contains("real") || lower.contains("floa") || lower.contains("doub") {
        DataType::Real
    } else if lower.contains("num") {
        DataType::Numeric(None)
    } else if lower.contains("bool") {
        DataType::Boolean
    } else if matches!(
        lower.trim_start_matches("pg_catalog."),
        "oid" | "xid" | "cid" | "xid8"
    ) {
        // PostgreSQL's object identifiers, which Basalt's catalogs hold as integers.
        DataType::Integer
    } else if lower.trim_start_matches("pg_catalog.") == "name" {
        // PostgreSQL's identifier type (`pg_class.relname`): text here.
        DataType::Text(None)
    } else {
        return Err(BindError::new(
            sqlstate::UNDEFINED_OBJECT,
            format!("type \"{name}\" does not exist"),
        ));
    })
}

/// A resolved scalar function: the registry entry and its result type.
pub(super) struct ResolvedFunction {
    pub function: ScalarFunctionRef,
    pub data_type: DataType,
}

/// Resolves scalar function `name` (lower case) in `crate::types`' registry for arguments of
/// these types: `Ok(None)` when no function has that name, 42883 when it has but not for
/// these types.
pub(super) fn resolve_function(
    name: &str,
    args: &[DataType],
) -> Result<Option<ResolvedFunction>, BindError> {
    let Some(function) = types::scalar_function(name) else {
        return Ok(None);
    };
    let data_type = (function.return_type)(args).map_err(type_error)?;
    Ok(Some(ResolvedFunction {
        function: ScalarFunctionRef {
            name: function.name.to_string(),
            volatile: function.volatile,
        },
        data_type,
    }))
}

/// Whether `name` is pgvector's type: `vector`, or `public.vector` as pg_dump writes it
/// (qualified with the schema the extension was created in; Basalt's one schema is
/// `public`).
fn is_vector_type_name(name: &ast::ObjectName) -> bool {
    match crate::sql::object_name_parts(name).as_slice() {
        [vector] => vector.eq_ignore_ascii_case("vector"),
        [schema, vector] => schema == "public" && vector.eq_ignore_ascii_case("vector"),
        _ => false,
    }
}
