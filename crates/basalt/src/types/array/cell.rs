//! An array's stored cell (what a table leaf and a spill file hold) and its
//! order-preserving key (what sorts, groups, DISTINCT, joins and indexes compare).
//!
//! The cell, documented byte by byte in `docs/file-format.md`: the element type's catalog tag
//! (1 byte), the number of dimensions `n` (1 byte, 0 for the empty array), `n` times the
//! lower bound (i32 LE) and the length (u32 LE), then per element a presence byte (0 NULL,
//! 1 a value) and, for a value, its body: BOOLEAN 1 byte; INTEGER, TIMESTAMP and TIMESTAMPTZ
//! an i64 LE; REAL the f64's bits LE; DATE an i32 LE; INTERVAL its 16 stored bytes; UUID its
//! 16 bytes; NUMERIC a length byte then its cell bytes; TEXT, BYTEA, JSON and JSONB a u32 LE
//! length then the bytes. Decoding checks every length and tag and returns `None` for a
//! damaged cell, never panicking.
//!
//! The key: per element `0x02` then the element's ascending key column encoding
//! (`storage::keys`; jsonb its own sort key carried as a blob) or `0x03` for a NULL element,
//! then `0x01`, then the number of dimensions, each length (u32 big-endian) and each lower
//! bound (i32 big-endian, sign bit flipped). Byte order of two keys is [`super::compare`]'s
//! order: elements first (NULL above values), a shorter array with equal elements first
//! (`0x01` is below both element markers), then the shape. The caller carries the key as a
//! blob column, which keeps it prefix-free among the key's other columns.

use super::{Array, Dimension, MAX_DIMENSIONS};
use crate::storage::keys::{self, KeyOrder, KeyValue};
use crate::types::{DataType, Interval, Numeric, Value, json};

/// Appends `array`'s stored cell.
pub fn to_cell_bytes(array: &Array, out: &mut Vec<u8>) {
    out.push(array.element.descriptor().catalog_tag);
    // At most MAX_DIMENSIONS, so the count fits a byte.
    out.push(array.dimensions.len() as u8);
    for dimension in &array.dimensions {
        out.extend_from_slice(&dimension.lower.to_le_bytes());
        out.extend_from_slice(&dimension.length.to_le_bytes());
    }
    for element in &array.elements {
        push_element(element, out);
    }
}

fn push_length_prefixed(bytes: &[u8], out: &mut Vec<u8>) {
    // Arrays are bounded far below 4 GiB (one value's size limit).
    out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn push_element(value: &Value, out: &mut Vec<u8>) {
    if value.is_null() {
        out.push(0);
        return;
    }
    out.push(1);
    match value {
        Value::Boolean(b) => out.push(u8::from(*b)),
        Value::Integer(v) | Value::Timestamp(v) | Value::TimestampTz(v) | Value::Time(v) => {
            out.extend_from_slice(&v.to_le_bytes())
        }
        Value::Real(v) => out.extend_from_slice(&v.to_bits().to_le_bytes()),
        Value::Date(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::Interval(v) => out.extend_from_slice(v.as_bytes()),
        Value::Uuid(v) => out.extend_from_slice(v),
        Value::Numeric(v) => {
            let mut bytes = Vec::with_capacity(17);
            v.to_cell_bytes(&mut bytes);
            out.push(bytes.len() as u8);
            out.extend_from_slice(&bytes);
        }
        Value::Text(s) | Value::Json(s) | Value::Jsonb(s) => {
            push_length_prefixed(s.as_bytes(), out)
        }
        Value::Blob(b) => push_length_prefixed(b, out),
        // Arrays never hold these (`DataType::array_of`); written as an empty body that the
        // decoder rejects rather than a panic.
        Value::Null | Value::Vector(_) | Value::Array(_) => {}
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Option<&'a [u8]> {
        if self.bytes.len() < count {
            return None;
        }
        let (head, tail) = self.bytes.split_at(count);
        self.bytes = tail;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.array::<1>()?[0])
    }

    fn length_prefixed(&mut self) -> Option<&'a [u8]> {
        let length = u32::from_le_bytes(self.array()?) as usize;
        self.take(length)
    }
}

/// The array a stored cell holds; `None` when the cell is damaged.
pub fn from_cell_bytes(bytes: &[u8]) -> Option<Array> {
    let mut reader = Reader { bytes };
    let element = DataType::from_catalog_tag(reader.u8()?)?;
    element.array_of()?;
    let count = reader.u8()? as usize;
    if count > MAX_DIMENSIONS {
        return None;
    }
    let mut dimensions = Vec::with_capacity(count);
    let mut elements_count: usize = 1;
    for _ in 0..count {
        let lower = i32::from_le_bytes(reader.array()?);
        let length = u32::from_le_bytes(reader.array()?);
        elements_count = elements_count.checked_mul(length as usize)?;
        dimensions.push(Dimension { lower, length });
    }
    if count == 0 {
        elements_count = 0;
    }
    // Every element takes at least its presence byte: a damaged count cannot allocate more
    // than the cell's size.
    if elements_count > reader.bytes.len() {
        return None;
    }
    let mut elements = Vec::with_capacity(elements_count);
    for _ in 0..elements_count {
        elements.push(read_element(&mut reader, element)?);
    }
    if !reader.bytes.is_empty() {
        return None;
    }
    Array::new(element, dimensions, elements).ok()
}

fn read_element(reader: &mut Reader<'_>, element: DataType) -> Option<Value> {
    match reader.u8()? {
        0 => return Some(Value::Null),
        1 => {}
        _ => return None,
    }
    Some(match element {
        DataType::Boolean => Value::Boolean(reader.u8()? != 0),
        DataType::Integer => Value::Integer(i64::from_le_bytes(reader.array()?)),
        DataType::Timestamp => Value::Timestamp(i64::from_le_bytes(reader.array()?)),
        DataType::TimestampTz => Value::TimestampTz(i64::from_le_bytes(reader.array()?)),
        DataType::Time(_) => Value::Time(i64::from_le_bytes(reader.array()?)),
        DataType::Real => Value::Real(f64::from_bits(u64::from_le_bytes(reader.array()?))),
        DataType::Date => Value::Date(i32::from_le_bytes(reader.array()?)),
        DataType::Interval => Value::Interval(Interval::from_bytes(reader.take(16)?)?),
        DataType::Uuid => Value::Uuid(reader.array()?),
        DataType::Numeric(_) => {
            let length = reader.u8()? as usize;
            Value::Numeric(Numeric::from_cell_bytes(reader.take(length)?)?)
        }
        DataType::Text(_) => {
            Value::Text(String::from_utf8(reader.length_prefixed()?.to_vec()).ok()?)
        }
        DataType::Json => Value::Json(String::from_utf8(reader.length_prefixed()?.to_vec()).ok()?),
        DataType::Jsonb => {
            Value::Jsonb(String::from_utf8(reader.length_prefixed()?.to_vec()).ok()?)
        }
        DataType::Blob => Value::Blob(reader.length_prefixed()?.to_vec()),
        DataType::Null | DataType::Vector(_) | DataType::Array(_) => return None,
    })
}

/// Appends `array`'s order-preserving key (see the module comment).
pub fn key_bytes(array: &Array, out: &mut Vec<u8>) {
    for element in &array.elements {
        if element.is_null() {
            out.push(0x03);
            continue;
        }
        out.push(0x02);
        push_element_key(element, out);
    }
    out.push(0x01);
    out.push(array.dimensions.len() as u8);
    for dimension in &array.dimensions {
        out.extend_from_slice(&dimension.length.to_be_bytes());
    }
    for dimension in &array.dimensions {
        out.extend_from_slice(&((dimension.lower as u32) ^ (1 << 31)).to_be_bytes());
    }
}

/// An element's ascending key column, as `exec::operators::scan::encode_key_value` keys a
/// value of the element's type.
fn push_element_key(value: &Value, out: &mut Vec<u8>) {
    let key = match value {
        Value::Boolean(v) => KeyValue::Boolean(*v),
        Value::Integer(v) | Value::Timestamp(v) | Value::TimestampTz(v) | Value::Time(v) => {
            KeyValue::Integer(*v)
        }
        Value::Real(v) => KeyValue::Real(*v),
        Value::Numeric(v) => KeyValue::Fixed32(v.key_bytes()),
        Value::Text(v) | Value::Json(v) => KeyValue::Text(v),
        Value::Blob(v) => KeyValue::Blob(v),
        Value::Date(v) => KeyValue::Integer(i64::from(*v)),
        Value::Interval(v) => KeyValue::Integer128(v.span()),
        Value::Uuid(v) => KeyValue::Blob(v),
        Value::Jsonb(v) => {
            let mut encoded = Vec::new();
            json::sort_key(v, &mut encoded);
            keys::encode_value(&KeyValue::Blob(&encoded), KeyOrder::ASC, out);
            return;
        }
        Value::Null | Value::Vector(_) | Value::Array(_) => KeyValue::Null,
    };
    keys::encode_value(&key, KeyOrder::ASC, out);
}
