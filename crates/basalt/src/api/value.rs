//! Converting Rust values to SQL parameters ([`ToSql`]) and result columns to Rust values
//! ([`FromSql`]), following rusqlite's conventions.

use crate::exec::batch::{ColumnData, ColumnVector};
use crate::sqlstate;
use crate::types::{DataType, Interval, Numeric, Value};

use super::error::{Error, Result};

/// A borrowed view of one result value: text and blobs point into the result batch.
/// Its `to_owned().to_string()` is PostgreSQL's text form of the value (what the CLI and the
/// sqllogictest runner print for dates, timestamps, intervals and UUIDs).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum ValueRef<'a> {
    Null,
    Boolean(bool),
    Integer(i64),
    Real(f64),
    /// A NUMERIC: an exact decimal (see [`Numeric`]).
    Numeric(Numeric),
    Text(&'a str),
    Blob(&'a [u8]),
    Date(i32),
    Timestamp(i64),
    /// A TIMESTAMPTZ: microseconds since 1970-01-01 00:00:00 UTC.
    TimestampTz(i64),
    /// A TIME: microseconds since midnight.
    Time(i64),
    /// An INTERVAL (months, days, microseconds; see [`Interval`]).
    Interval(Interval),
    /// A UUID's 16 bytes, pointing into the result batch like a blob's.
    Uuid(&'a [u8; 16]),
    /// A `json` value: its text, exactly as it was written.
    Json(&'a str),
    /// A `jsonb` value: its text in jsonb's normalized form.
    Jsonb(&'a str),
    /// A `vector` value: its elements, pointing into the result batch.
    Vector(&'a [f32]),
    /// An array (`integer[]`, `text[]`, ...; see [`crate::types::Array`]).
    Array(&'a crate::types::Array),
}

impl ValueRef<'_> {
    /// An owned copy.
    pub fn to_owned(self) -> Value {
        match self {
            ValueRef::Null => Value::Null,
            ValueRef::Boolean(v) => Value::Boolean(v),
            ValueRef::Integer(v) => Value::Integer(v),
            ValueRef::Real(v) => Value::Real(v),
            ValueRef::Numeric(v) => Value::Numeric(v),
            ValueRef::Text(v) => Value::Text(v.to_string()),
            ValueRef::Blob(v) => Value::Blob(v.to_vec()),
            ValueRef::Date(v) => Value::Date(v),
            ValueRef::Timestamp(v) => Value::Timestamp(v),
            ValueRef::TimestampTz(v) => Value::TimestampTz(v),
            ValueRef::Time(v) => Value::Time(v),
            ValueRef::Interval(v) => Value::Interval(v),
            ValueRef::Uuid(v) => Value::Uuid(*v),
            ValueRef::Json(v) => Value::Json(v.to_string()),
            ValueRef::Jsonb(v) => Value::Jsonb(v.to_string()),
            ValueRef::Vector(v) => Value::Vector(v.to_vec()),
            ValueRef::Array(v) => Value::Array(std::sync::Arc::new(v.clone())),
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            ValueRef::Null => "null",
            ValueRef::Boolean(_) => DataType::Boolean.name(),
            ValueRef::Integer(_) => DataType::Integer.name(),
            ValueRef::Real(_) => DataType::Real.name(),
            ValueRef::Numeric(_) => DataType::Numeric(None).name(),
            ValueRef::Text(_) => DataType::Text(None).name(),
            ValueRef::Blob(_) => DataType::Blob.name(),
            ValueRef::Date(_) => DataType::Date.name(),
            ValueRef::Timestamp(_) => DataType::Timestamp.name(),
            ValueRef::TimestampTz(_) => DataType::TimestampTz.name(),
            ValueRef::Time(_) => DataType::Time(None).name(),
            ValueRef::Interval(_) => DataType::Interval.name(),
            ValueRef::Uuid(_) => DataType::Uuid.name(),
            ValueRef::Json(_) => DataType::Json.name(),
            ValueRef::Jsonb(_) => DataType::Jsonb.name(),
            ValueRef::Vector(_) => DataType::Vector(None).name(),
            ValueRef::Array(v) => v.data_type().name(),
        }
    }
}

/// Row `row` of `vector` as a borrowed value.
pub(crate) fn value_ref(vector: &ColumnVector, row: usize) -> ValueRef<'_> {
    if vector.is_null(row) {
        return ValueRef::Null;
    }
    match &vector.data {
        ColumnData::Null(_) => ValueRef::Null,
        ColumnData::Boolean(v) => v.get(row).map_or(ValueRef::Null, |&v| ValueRef::Boolean(v)),
        ColumnData::Integer(v) => v.get(row).map_or(ValueRef::Null, |&v| ValueRef::Integer(v)),
        ColumnData::Real(v) => v.get(row).map_or(ValueRef::Null, |&v| ValueRef::Real(v)),
        ColumnData::Numeric(v) => v.get(row).map_or(ValueRef::Null, |&v| ValueRef::Numeric(v)),
        ColumnData::Text(v) => ValueRef::Text(v.get_str(row)),
        ColumnData::Blob(v) => ValueRef::Blob(v.get(row)),
        ColumnData::Date(v) => v.get(row).map_or(ValueRef::Null, |&v| ValueRef::Date(v)),
        ColumnData::Timestamp(v) => v
            .get(row)
            .map_or(ValueRef::Null, |&v| ValueRef::Timestamp(v)),
        ColumnData::TimestampTz(v) => v
            .get(row)
            .map_or(ValueRef::Null, |&v| ValueRef::TimestampTz(v)),
        ColumnData::Time(v) => v.get(row).map_or(ValueRef::Null, |&v| ValueRef::Time(v)),
        ColumnData::Interval(v) => v
            .get(row)
            .map_or(ValueRef::Null, |&v| ValueRef::Interval(v)),
        ColumnData::Uuid(v) => v.get(row).map_or(ValueRef::Null, ValueRef::Uuid),
        ColumnData::Json(v) => ValueRef::Json(v.get_str(row)),
        ColumnData::Jsonb(v) => ValueRef::Jsonb(v.get_str(row)),
        ColumnData::Vector(v) => ValueRef::Vector(v.get(row)),
        ColumnData::Array(_, v) => v.get(row).map_or(ValueRef::Null, value_as_ref),
    }
}

impl<'a> From<&'a Value> for ValueRef<'a> {
    /// A borrowed view of an owned value (an array's elements, for example).
    fn from(value: &'a Value) -> Self {
        value_as_ref(value)
    }
}

/// A value as a borrowed view (array elements, read through [`FromSql`]).
fn value_as_ref(value: &Value) -> ValueRef<'_> {
    match value {
        Value::Null => ValueRef::Null,
        Value::Boolean(v) => ValueRef::Boolean(*v),
        Value::Integer(v) => ValueRef::Integer(*v),
        Value::Real(v) => ValueRef::Real(*v),
        Value::Numeric(v) => ValueRef::Numeric(*v),
        Value::Text(v) => ValueRef::Text(v),
        Value::Blob(v) => ValueRef::Blob(v),
        Value::Date(v) => ValueRef::Date(*v),
        Value::Timestamp(v) => ValueRef::Timestamp(*v),
        Value::TimestampTz(v) => ValueRef::TimestampTz(*v),
        Value::Time(v) => ValueRef::Time(*v),
        Value::Interval(v) => ValueRef::Interval(*v),
        Value::Uuid(v) => ValueRef::Uuid(v),
        Value::Json(v) => ValueRef::Json(v),
        Value::Jsonb(v) => ValueRef::Jsonb(v),
        Value::Vector(v) => ValueRef::Vector(v),
        Value::Array(v) => ValueRef::Array(v),
    }
}

/// Reads an array result as a `Vec` of its elements (in storage order, every dimension
/// flattened), each read as `T`.
fn array_elements<'a, T: FromSql<'a>>(value: ValueRef<'a>, wanted: &str) -> Result<Vec<T>> {
    match value {
        ValueRef::Array(array) => array
            .elements()
            .iter()
            .map(|element| T::from_sql(value_as_ref(element)))
            .collect(),
        other => Err(mismatch(other, wanted)),
    }
}

/// `Vec<T>` from an array result, for element types that are not bytes (`Vec<u8>` is a
/// blob and `Vec<f32>` a vector).
macro_rules! array_from_sql {
    ($($t:ty),*) => {$(
        impl<'a> FromSql<'a> for Vec<$t> {
            fn from_sql(value: ValueRef<'a>) -> Result<Self> {
                array_elements(value, concat!("Vec<", stringify!($t), ">"))
            }
        }
    )*};
}

array_from_sql!(
    i64,
    i32,
    f64,
    bool,
    String,
    Numeric,
    Option<i64>,
    Option<i32>,
    Option<f64>,
    Option<bool>,
    Option<String>
);

impl<'a> FromSql<'a> for crate::types::Array {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Array(array) => Ok(array.clone()),
            other => Err(mismatch(other, "Array")),
        }
    }
}

/// A one-dimensional array parameter of `element`s. Past Basalt's limit on one array's
/// elements (16 million) the parameter is NULL.
fn array_parameter(element: DataType, values: Vec<Value>) -> Value {
    crate::types::Array::from_elements(element, values)
        .map_or(Value::Null, crate::types::Array::into_value)
}

/// `[T]` and `Vec<T>` as array parameters (`= ANY($1)`), of the element type of `T`.
macro_rules! array_to_sql {
    ($($t:ty => $element:expr),* $(,)?) => {$(
        impl ToSql for [$t] {
            fn to_sql(&self) -> Value {
                array_parameter($element, self.iter().map(ToSql::to_sql).collect())
            }
        }
        impl ToSql for Vec<$t> {
            fn to_sql(&self) -> Value {
                self.as_slice().to_sql()
            }
        }
    )*};
}

array_to_sql!(
    i64 => DataType::Integer,
    i32 => DataType::Integer,
    f64 => DataType::Real,
    bool => DataType::Boolean,
    String => DataType::Text(None),
    &str => DataType::Text(None),
    Numeric => DataType::Numeric(None),
    Option<i64> => DataType::Integer,
    Option<f64> => DataType::Real,
    Option<String> => DataType::Text(None),
    Option<&str> => DataType::Text(None),
);

impl ToSql for crate::types::Array {
    fn to_sql(&self) -> Value {
        self.clone().into_value()
    }
}

fn mismatch(value: ValueRef<'_>, wanted: &str) -> Error {
    Error::new(
        sqlstate::DATATYPE_MISMATCH,
        format!("cannot read a {} value as {wanted}", value.type_name()),
    )
}

/// Types a result column can be read as.
pub trait FromSql<'a>: Sized {
    /// Converts a result value.
    fn from_sql(value: ValueRef<'a>) -> Result<Self>;
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        Ok(value.to_owned())
    }
}

impl<'a> FromSql<'a> for i64 {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Integer(v) => Ok(v),
            ValueRef::Boolean(v) => Ok(i64::from(v)),
            other => Err(mismatch(other, "i64")),
        }
    }
}

impl<'a> FromSql<'a> for i32 {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        let wide = i64::from_sql(value)?;
        i32::try_from(wide).map_err(|_| {
            Error::new(
                sqlstate::NUMERIC_VALUE_OUT_OF_RANGE,
                format!("{wide} does not fit in i32"),
            )
        })
    }
}

impl<'a> FromSql<'a> for f64 {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Real(v) => Ok(v),
            ValueRef::Integer(v) => Ok(v as f64),
            // The nearest double to the exact decimal.
            ValueRef::Numeric(v) => Ok(v.to_f64()),
            other => Err(mismatch(other, "f64")),
        }
    }
}

impl<'a> FromSql<'a> for bool {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Boolean(v) => Ok(v),
            ValueRef::Integer(v) => Ok(v != 0),
            other => Err(mismatch(other, "bool")),
        }
    }
}

impl<'a> FromSql<'a> for String {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Text(v) | ValueRef::Json(v) | ValueRef::Jsonb(v) => Ok(v.to_string()),
            ValueRef::Null => Err(mismatch(value, "String")),
            // Dates, timestamps and numbers read as their SQL text form.
            other => Ok(other.to_owned().to_string()),
        }
    }
}

impl<'a> FromSql<'a> for &'a str {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            // JSON reads as its text (PostgreSQL's text output of json and jsonb).
            ValueRef::Text(v) | ValueRef::Json(v) | ValueRef::Jsonb(v) => Ok(v),
            other => Err(mismatch(other, "&str")),
        }
    }
}

impl<'a> FromSql<'a> for Vec<u8> {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Blob(v) => Ok(v.to_vec()),
            ValueRef::Text(v) => Ok(v.as_bytes().to_vec()),
            other => Err(mismatch(other, "Vec<u8>")),
        }
    }
}

impl<'a> FromSql<'a> for &'a [u8] {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Blob(v) => Ok(v),
            ValueRef::Text(v) => Ok(v.as_bytes()),
            other => Err(mismatch(other, "&[u8]")),
        }
    }
}

impl<'a> FromSql<'a> for Vec<f32> {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Vector(v) => Ok(v.to_vec()),
            other => Err(mismatch(other, "Vec<f32>")),
        }
    }
}

impl<'a> FromSql<'a> for &'a [f32] {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Vector(v) => Ok(v),
            other => Err(mismatch(other, "&[f32]")),
        }
    }
}

impl<'a> FromSql<'a> for Numeric {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Numeric(v) => Ok(v),
            ValueRef::Integer(v) => Ok(Numeric::from_i64(v)),
            other => Err(mismatch(other, "Numeric")),
        }
    }
}

impl ToSql for Numeric {
    fn to_sql(&self) -> Value {
        Value::Numeric(*self)
    }
}

impl<'a, T: FromSql<'a>> FromSql<'a> for Option<T> {
    fn from_sql(value: ValueRef<'a>) -> Result<Self> {
        match value {
            ValueRef::Null => Ok(None),
            other => T::from_sql(other).map(Some),
        }
    }
}

/// Types usable as statement parameters.
pub trait ToSql {
    /// The SQL value.
    fn to_sql(&self) -> Value;
}

impl ToSql for Value {
    fn to_sql(&self) -> Value {
        self.clone()
    }
}

macro_rules! to_sql_integer {
    ($($t:ty),*) => {$(
        impl ToSql for $t {
            fn to_sql(&self) -> Value {
                Value::Integer(i64::from(*self))
            }
        }
    )*};
}
to_sql_integer!(i8, i16, i32, i64, u8, u16, u32);

impl ToSql for f64 {
    fn to_sql(&self) -> Value {
        Value::Real(*self)
    }
}

impl ToSql for f32 {
    fn to_sql(&self) -> Value {
        Value::Real(f64::from(*self))
    }
}

impl ToSql for bool {
    fn to_sql(&self) -> Value {
        Value::Boolean(*self)
    }
}

impl ToSql for str {
    fn to_sql(&self) -> Value {
        Value::Text(self.to_string())
    }
}

impl ToSql for String {
    fn to_sql(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl ToSql for [u8] {
    fn to_sql(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}

impl ToSql for Vec<u8> {
    fn to_sql(&self) -> Value {
        Value::Blob(self.clone())
    }
}

/// A vector parameter (`VECTOR`), bound without a text round trip.
impl ToSql for [f32] {
    fn to_sql(&self) -> Value {
        Value::Vector(self.to_vec())
    }
}

impl ToSql for Vec<f32> {
    fn to_sql(&self) -> Value {
        Value::Vector(self.clone())
    }
}

impl<const N: usize> ToSql for [f32; N] {
    fn to_sql(&self) -> Value {
        Value::Vector(self.to_vec())
    }
}

impl<T: ToSql> ToSql for Option<T> {
    fn to_sql(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToSql::to_sql)
    }
}

impl<T: ToSql + ?Sized> ToSql for &T {
    fn to_sql(&self) -> Value {
        (**self).to_sql()
    }
}
