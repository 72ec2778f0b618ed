//! The [`Value`] enum and the [`DataType`] of a column or expression.
//!
//! A `DataType` carries its type modifier where the type takes one (`VARCHAR(20)` is
//! `Text(Some(20))`): a column's type is its declared type, and an expression that reads a
//! column unchanged has that type too, which is what statement descriptions report. Type
//! *checks* — casts, coercion, comparison — look through the modifier with
//! [`DataType::unmodified`]; only writes into a column and the type's own casts enforce it.

use std::fmt;

use super::interval::Interval;
use super::modifier::TypeModifier;

/// The type of a column or expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataType {
    /// The type of a bare `NULL` literal before context gives it one.
    Null,
    /// `BOOLEAN`.
    Boolean,
    /// `SMALLINT`, `INT`, `INTEGER`, `BIGINT`: 64-bit signed.
    Integer,
    /// `REAL`, `DOUBLE PRECISION`, `FLOAT`: 64-bit IEEE 754.
    Real,
    /// `NUMERIC`, `DECIMAL`: an exact decimal (see [`crate::types::numeric`]), with the
    /// declared `(precision, scale)` of `NUMERIC(p, s)` (`None` for `NUMERIC` and computed
    /// values, which keep each value's own scale).
    Numeric(Option<(u32, u32)>),
    /// `TEXT`, `VARCHAR(n)`, `CHAR(n)`: UTF-8, with the declared maximum length in
    /// characters (`None` for `TEXT` and for text computed by an expression).
    Text(Option<u32>),
    /// `BLOB`, `BYTEA`.
    Blob,
    /// `DATE`: days since 1970-01-01.
    Date,
    /// `TIMESTAMP`: microseconds since 1970-01-01 00:00:00 (no time zone).
    Timestamp,
    /// `TIMESTAMPTZ` (`TIMESTAMP WITH TIME ZONE`): an instant, microseconds since
    /// 1970-01-01 00:00:00 UTC, shown in the session's time zone (see
    /// [`crate::types::timezone`]).
    TimestampTz,
    /// `TIME` / `TIME(p)` (`TIME WITHOUT TIME ZONE`): microseconds since midnight, with the
    /// declared fractional-second precision `p` (0-6; `None` for `TIME` and computed
    /// values). See [`crate::types::time`].
    Time(Option<u32>),
    /// `INTERVAL`: months, days and microseconds (see [`crate::types::interval`]).
    Interval,
    /// `UUID`: 16 bytes (see [`crate::types::uuid`]).
    Uuid,
    /// `JSON`: validated JSON text, kept exactly as written.
    Json,
    /// `JSONB`: JSON in normalized form (keys sorted and unique, canonical whitespace).
    Jsonb,
    /// `VECTOR(n)`: pgvector's vector of `f32`, with the declared dimension (`None` for a
    /// `VECTOR` column of any dimension and for computed vectors). See [`crate::types::vector`].
    Vector(Option<u32>),
    /// `T[]` / `T ARRAY`: an array of the element type (see [`crate::types::array`]); the
    /// element type is one of the scalar types [`DataType::array_of`] accepts, without its
    /// modifier, held by a static reference so `DataType` stays `Copy`.
    Array(&'static DataType),
}

impl DataType {
    /// The SQL name used in messages and introspection.
    pub fn name(self) -> &'static str {
        self.descriptor().name
    }

    /// Whether values of this type are numbers (for arithmetic and numeric comparison).
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            DataType::Integer | DataType::Real | DataType::Numeric(_)
        )
    }

    /// Whether this is text (`TEXT`, or `VARCHAR(n)` of any length).
    pub fn is_text(self) -> bool {
        matches!(self, DataType::Text(_))
    }

    /// The type without its modifier: what casts, coercion and comparison look at.
    /// `VARCHAR(20)` and `TEXT` are the same type to them.
    pub fn unmodified(self) -> DataType {
        match self {
            DataType::Text(_) => DataType::Text(None),
            DataType::Vector(_) => DataType::Vector(None),
            DataType::Numeric(_) => DataType::Numeric(None),
            DataType::Time(_) => DataType::Time(None),
            other => other,
        }
    }

    /// The modifier this type carries, in its catalog and wire form.
    pub fn modifier(self) -> Option<TypeModifier> {
        match self {
            DataType::Text(length) => length.map(TypeModifier::Length),
            DataType::Vector(dimensions) => dimensions.map(TypeModifier::Dimensions),
            DataType::Numeric(typmod) => {
                typmod.map(|(precision, scale)| TypeModifier::PrecisionScale(precision, scale))
            }
            DataType::Time(precision) => precision.map(TypeModifier::Precision),
            _ => None,
        }
    }

    /// This type with `modifier` in place of its own, or `None` when the type does not
    /// take a modifier of that kind (a catalog entry pairing them is damaged).
    pub fn with_modifier(self, modifier: Option<TypeModifier>) -> Option<DataType> {
        match (self, modifier) {
            (data_type, None) => Some(data_type.unmodified()),
            (DataType::Text(_), Some(TypeModifier::Length(length))) => {
                Some(DataType::Text(Some(length)))
            }
            (DataType::Vector(_), Some(TypeModifier::Dimensions(dimensions))) => {
                Some(DataType::Vector(Some(dimensions)))
            }
            (DataType::Numeric(_), Some(TypeModifier::PrecisionScale(precision, scale))) => {
                Some(DataType::Numeric(Some((precision, scale))))
            }
            (DataType::Time(_), Some(TypeModifier::Precision(precision))) => {
                Some(DataType::Time(Some(precision)))
            }
            _ => None,
        }
    }

    /// The maximum length of `VARCHAR(n)` / `CHAR(n)`.
    pub fn max_length(self) -> Option<u32> {
        match self {
            DataType::Text(length) => length,
            _ => None,
        }
    }
}

impl fmt::Display for DataType {
    /// The type's name, without its modifier: messages about types speak of `text`
    /// whether the column was declared `VARCHAR(20)` or `TEXT`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One SQL value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A boolean.
    Boolean(bool),
    /// A 64-bit integer.
    Integer(i64),
    /// A 64-bit float.
    Real(f64),
    /// An exact decimal (`NUMERIC`).
    Numeric(super::numeric::Numeric),
    /// UTF-8 text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since 1970-01-01 00:00:00.
    Timestamp(i64),
    /// An instant: microseconds since 1970-01-01 00:00:00 UTC (`TIMESTAMPTZ`).
    TimestampTz(i64),
    /// A time of day: microseconds since midnight, 0 to 86,400,000,000 (`24:00:00`).
    Time(i64),
    /// A span of months, days and microseconds.
    Interval(Interval),
    /// A UUID's 16 bytes.
    Uuid([u8; 16]),
    /// JSON text, validated (see `types::json`); kept exactly as the input spelled it.
    Json(String),
    /// JSON text in jsonb's normalized form (see `types::json`).
    Jsonb(String),
    /// A vector of 1 to 16,000 finite `f32`s (see `types::vector`).
    Vector(Vec<f32>),
    /// An array (see `types::array`), shared: copying a row does not copy its arrays, and
    /// the variant keeps `Value` at 32 bytes.
    Array(std::sync::Arc<super::array::Array>),
}

impl Value {
    /// The value's type (`DataType::Null` for NULL).
    pub fn data_type(&self) -> DataType {
        match self {
            Value::Null => DataType::Null,
            Value::Boolean(_) => DataType::Boolean,
            Value::Integer(_) => DataType::Integer,
            Value::Real(_) => DataType::Real,
            Value::Numeric(_) => DataType::Numeric(None),
            Value::Text(_) => DataType::Text(None),
            Value::Blob(_) => DataType::Blob,
            Value::Date(_) => DataType::Date,
            Value::Timestamp(_) => DataType::Timestamp,
            Value::TimestampTz(_) => DataType::TimestampTz,
            Value::Time(_) => DataType::Time(None),
            Value::Interval(_) => DataType::Interval,
            Value::Uuid(_) => DataType::Uuid,
            Value::Json(_) => DataType::Json,
            Value::Jsonb(_) => DataType::Jsonb,
            Value::Vector(_) => DataType::Vector(None),
            Value::Array(array) => array.data_type(),
        }
    }

    /// Whether this is SQL NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether the value is of `data_type` (its modifier aside): one match, the check the
    /// write path and parameter binding make per value before converting it.
    pub fn is_of(&self, data_type: DataType) -> bool {
        matches!(
            (self, data_type),
            (Value::Null, DataType::Null)
                | (Value::Boolean(_), DataType::Boolean)
                | (Value::Integer(_), DataType::Integer)
                | (Value::Real(_), DataType::Real)
                | (Value::Numeric(_), DataType::Numeric(None))
                | (Value::Text(_), DataType::Text(_))
                | (Value::Blob(_), DataType::Blob)
                | (Value::Date(_), DataType::Date)
                | (Value::Timestamp(_), DataType::Timestamp)
                | (Value::TimestampTz(_), DataType::TimestampTz)
                | (Value::Time(_), DataType::Time(_))
                | (Value::Interval(_), DataType::Interval)
                | (Value::Uuid(_), DataType::Uuid)
                | (Value::Json(_), DataType::Json)
                | (Value::Jsonb(_), DataType::Jsonb)
                | (Value::Vector(_), DataType::Vector(_))
        ) || matches!((self, data_type), (Value::Array(array), DataType::Array(element))
                if array.element_type() == *element)
    }
}
