//! ARRAY values (`integer[]`, `text[]`, ...): PostgreSQL's arrays of a scalar element type,
//! of one or more dimensions, with NULL elements.
//!
//! What it guarantees: an [`Array`] is always well formed — its elements are of its element
//! type (or NULL), the product of its dimension lengths is its element count, it has at most
//! [`MAX_DIMENSIONS`] dimensions, and the empty array has no dimensions (as PostgreSQL's
//! `'{}'` has none). Values hold an array behind an [`Arc`] so `Value` stays 32 bytes and
//! copying a row does not copy its arrays.
//!
//! How it fits: `DataType::Array` names the element type (a `&'static DataType`, so the type
//! stays `Copy`); this module holds the value, its comparison (PostgreSQL's `array_cmp`:
//! element by element, NULL above everything, then the element count, the number of
//! dimensions, the lengths and the lower bounds), and submodules for the text form
//! ([`text`]), the stored cell and the order-preserving key ([`cell`]), and the functions and
//! operators on arrays ([`functions`]).

pub mod cell;
pub mod functions;
pub mod text;

use std::cmp::Ordering;
use std::sync::Arc;

use super::{DataType, TypeError, Value};

/// PostgreSQL's `MAXDIM`: arrays have at most six dimensions.
pub const MAX_DIMENSIONS: usize = 6;
/// The most elements one array may hold (PostgreSQL's `MaxArraySize` is about 134 million;
/// Basalt keeps arrays well inside one value's size limit).
pub const MAX_ELEMENTS: usize = 1 << 24;

/// One dimension of an array: its lower bound (1 unless given) and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dimension {
    /// The subscript of the first element.
    pub lower: i32,
    /// The number of elements along the dimension.
    pub length: u32,
}

/// An array value: its element type, its dimensions and its elements in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    element: DataType,
    dimensions: Vec<Dimension>,
    elements: Vec<Value>,
}

impl DataType {
    /// The array type whose elements are of this type (its modifier dropped: a
    /// `varchar(10)[]` holds text), `None` for a type arrays cannot hold (vectors, arrays).
    pub fn array_of(self) -> Option<DataType> {
        let element: &'static DataType = match self {
            DataType::Boolean => &DataType::Boolean,
            DataType::Integer => &DataType::Integer,
            DataType::Real => &DataType::Real,
            DataType::Numeric(_) => &DataType::Numeric(None),
            DataType::Text(_) => &DataType::Text(None),
            DataType::Blob => &DataType::Blob,
            DataType::Date => &DataType::Date,
            DataType::Timestamp => &DataType::Timestamp,
            DataType::TimestampTz => &DataType::TimestampTz,
            DataType::Time(_) => &DataType::Time(None),
            DataType::Interval => &DataType::Interval,
            DataType::Uuid => &DataType::Uuid,
            DataType::Json => &DataType::Json,
            DataType::Jsonb => &DataType::Jsonb,
            DataType::Null | DataType::Vector(_) | DataType::Array(_) => return None,
        };
        Some(DataType::Array(element))
    }

    /// The element type of an array type.
    pub fn element_type(self) -> Option<DataType> {
        match self {
            DataType::Array(element) => Some(*element),
            _ => None,
        }
    }

    /// Whether this is an array type.
    pub fn is_array(self) -> bool {
        matches!(self, DataType::Array(_))
    }
}

fn too_many_dimensions(count: usize) -> TypeError {
    TypeError::ProgramLimit(format!(
        "number of array dimensions ({count}) exceeds the maximum allowed ({MAX_DIMENSIONS})"
    ))
}

fn too_large() -> TypeError {
    TypeError::ProgramLimitExceeded("array size exceeds the maximum allowed")
}

impl Array {
    /// The empty array of `element`s (no dimensions).
    pub fn empty(element: DataType) -> Array {
        Array {
            element: element.unmodified(),
            dimensions: Vec::new(),
            elements: Vec::new(),
        }
    }

    /// A one-dimensional array with lower bound 1 (the empty array when `elements` is empty).
    pub fn from_elements(element: DataType, elements: Vec<Value>) -> Result<Array, TypeError> {
        let length = elements.len();
        Array::new(
            element,
            vec![Dimension {
                lower: 1,
                length: u32::try_from(length).map_err(|_| too_large())?,
            }],
            elements,
        )
    }

    /// An array of the given shape. Any zero-length dimension makes it the empty array;
    /// the element count must be the product of the lengths.
    pub fn new(
        element: DataType,
        dimensions: Vec<Dimension>,
        elements: Vec<Value>,
    ) -> Result<Array, TypeError> {
        if dimensions.len() > MAX_DIMENSIONS {
            return Err(too_many_dimensions(dimensions.len()));
        }
        if elements.len() > MAX_ELEMENTS {
            return Err(too_large());
        }
        if dimensions.is_empty() || dimensions.iter().any(|d| d.length == 0) {
            if !elements.is_empty() {
                return Err(TypeError::DataException(
                    "array elements do not match its dimensions".into(),
                ));
            }
            return Ok(Array::empty(element));
        }
        let mut count: usize = 1;
        for dimension in &dimensions {
            count = count
                .checked_mul(dimension.length as usize)
                .filter(|&c| c <= MAX_ELEMENTS)
                .ok_or_else(too_large)?;
            // The upper bound must fit an i32, as PostgreSQL checks.
            if i64::from(dimension.lower) + i64::from(dimension.length) - 1 > i64::from(i32::MAX) {
                return Err(TypeError::ProgramLimitExceeded(
                    "array upper bound is too large",
                ));
            }
        }
        if count != elements.len() {
            return Err(TypeError::DataException(
                "array elements do not match its dimensions".into(),
            ));
        }
        Ok(Array {
            element: element.unmodified(),
            dimensions,
            elements,
        })
    }

    /// The element type.
    pub fn element_type(&self) -> DataType {
        self.element
    }

    /// The array's type.
    pub fn data_type(&self) -> DataType {
        self.element.array_of().unwrap_or(DataType::Null)
    }

    /// The dimensions (none for the empty array).
    pub fn dimensions(&self) -> &[Dimension] {
        &self.dimensions
    }

    /// The elements in row-major order.
    pub fn elements(&self) -> &[Value] {
        &self.elements
    }

    /// The elements, taken.
    pub fn into_elements(self) -> Vec<Value> {
        self.elements
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// The number of dimensions.
    pub fn ndims(&self) -> usize {
        self.dimensions.len()
    }

    /// The array `ARRAY[items...]` of `element`s builds: each item cast to the element type
    /// (22P02 and the like when it does not convert), items that are arrays stacked as the
    /// sub-arrays of one more dimension (2202E when their shapes differ). What a client
    /// library uses to turn a list into an array parameter.
    pub fn construct(element: DataType, items: Vec<Value>) -> Result<Value, TypeError> {
        let mut args = Vec::with_capacity(items.len() + 1);
        args.push(Array::empty(element).into_value());
        for item in items {
            args.push(match item {
                Value::Null | Value::Array(_) => item,
                other => crate::types::cast(&other, element)?,
            });
        }
        functions::constructor(&args)
    }

    /// As a value.
    pub fn into_value(self) -> Value {
        Value::Array(Arc::new(self))
    }
}

/// PostgreSQL's `array_cmp`: elements pairwise in storage order (two NULLs equal, NULL
/// above any value), then fewer elements first, then fewer dimensions, then each
/// dimension's length and lower bound.
pub fn compare(a: &Array, b: &Array) -> Ordering {
    for (x, y) in a.elements.iter().zip(&b.elements) {
        let ordering = match (x, y) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Greater,
            (_, Value::Null) => Ordering::Less,
            _ => super::compare::sort_cmp(x, y),
        };
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    a.elements
        .len()
        .cmp(&b.elements.len())
        .then(a.dimensions.len().cmp(&b.dimensions.len()))
        .then_with(|| {
            let lengths =
                |array: &Array| -> Vec<u32> { array.dimensions.iter().map(|d| d.length).collect() };
            let lowers =
                |array: &Array| -> Vec<i32> { array.dimensions.iter().map(|d| d.lower).collect() };
            lengths(a)
                .cmp(&lengths(b))
                .then_with(|| lowers(a).cmp(&lowers(b)))
        })
}

#[cfg(test)]
mod tests;
