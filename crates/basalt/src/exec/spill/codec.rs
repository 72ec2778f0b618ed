//! The compact binary form of spilled rows, by column type.
//!
//! A row is a null bitmap (one bit per column), then each non-NULL value: booleans in one
//! byte, dates in four, other fixed-width values in eight (little-endian), intervals and
//! UUIDs in their 16 stored bytes, text, blobs and JSON text as a varint length and their bytes. The types are not stored: writer and reader share a
//! [`RowCodec`] built from the operator's column types. Decoding goes through the table
//! leaves' notion of a cell (`storage::btree::Value`: fixed bits or bytes) and
//! `ColumnVector::push_stored`, so it pushes straight into column vectors without a `Value` per
//! cell, and validates text as UTF-8. Damaged bytes are errors (XX001), never panics.

use std::borrow::Cow;

use crate::exec::batch::{Batch, ColumnData, ColumnVector};
use crate::exec::error::ExecResult;
use crate::storage::btree::Value as Cell;
use crate::types::{DataType, Interval, Numeric, Value, vector};

use super::corrupt;

/// Appends `value` as a LEB128 varint (record and value lengths).
pub(crate) fn write_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A varint and the bytes it took, or `None` if `bytes` do not hold a whole one.
pub(crate) fn read_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (index, &byte) in bytes.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7F) << (7 * index);
        if byte & 0x80 == 0 {
            return Some((value, index + 1));
        }
    }
    None
}

/// Encodes and decodes rows whose columns have fixed types.
#[derive(Clone, Debug)]
pub struct RowCodec {
    types: Vec<DataType>,
}

impl RowCodec {
    /// A codec for rows of `types`.
    pub fn new(types: &[DataType]) -> Self {
        RowCodec {
            types: types.to_vec(),
        }
    }

    /// The column types.
    pub fn types(&self) -> &[DataType] {
        &self.types
    }

    /// Appends row `row` of `batch`. A column whose vector is not of the codec's type is
    /// converted as `ColumnVector::push` would convert it (so a row reads back exactly as
    /// concatenating batches of those types would have stored it).
    pub fn encode(&self, batch: &Batch, row: usize, out: &mut Vec<u8>) {
        let bitmap = out.len();
        out.resize(bitmap + self.types.len().div_ceil(8), 0);
        for (index, &data_type) in self.types.iter().enumerate() {
            // A batch short of columns (never expected) reads back as NULLs, not as damage.
            let written = batch
                .columns
                .get(index)
                .is_some_and(|column| encode_cell(data_type, column, row, out));
            if !written {
                out[bitmap + index / 8] |= 1 << (index % 8);
            }
        }
    }

    /// Appends `key` and row `row` of `batch`.
    pub fn encode_keyed(&self, key: &[u8], batch: &Batch, row: usize, out: &mut Vec<u8>) {
        write_varint(key.len() as u64, out);
        out.extend_from_slice(key);
        self.encode(batch, row, out);
    }

    /// Decodes one row from the start of `bytes` and appends it to `batch` (whose columns
    /// have the codec's types). Returns the bytes read.
    pub fn decode(&self, bytes: &[u8], batch: &mut Batch) -> ExecResult<usize> {
        let bitmap_length = self.types.len().div_ceil(8);
        let bitmap = bytes
            .get(..bitmap_length)
            .ok_or_else(|| corrupt("short row"))?;
        let mut position = bitmap_length;
        for (index, (&data_type, column)) in self.types.iter().zip(&mut batch.columns).enumerate() {
            if bitmap[index / 8] & (1 << (index % 8)) != 0 {
                column.push_null();
                continue;
            }
            let cell = decode_cell(data_type, bytes, &mut position)?;
            column.push_stored(&cell).map_err(corrupt)?;
        }
        batch.rows += 1;
        Ok(position)
    }

    /// Decodes a record written by [`RowCodec::encode_keyed`]: the key into `key`, the row
    /// appended to `batch`.
    pub fn decode_keyed(
        &self,
        bytes: &[u8],
        key: &mut Vec<u8>,
        batch: &mut Batch,
    ) -> ExecResult<()> {
        let (length, used) = read_varint(bytes).ok_or_else(|| corrupt("bad key length"))?;
        let end = usize::try_from(length)
            .ok()
            .and_then(|length| used.checked_add(length))
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| corrupt("key runs past its record"))?;
        key.clear();
        key.extend_from_slice(&bytes[used..end]);
        self.decode(&bytes[end..], batch)?;
        Ok(())
    }
}

/// Appends the value of row `row` of `column` as a `data_type` value; false when it is NULL
/// (nothing appended).
fn encode_cell(data_type: DataType, column: &ColumnVector, row: usize, out: &mut Vec<u8>) -> bool {
    if column.is_null(row) {
        return false;
    }
    match (data_type, &column.data) {
        (DataType::Boolean, ColumnData::Boolean(values)) => {
            out.push(u8::from(values.get(row).copied().unwrap_or_default()));
        }
        (DataType::Integer, ColumnData::Integer(values))
        | (DataType::Timestamp, ColumnData::Timestamp(values))
        | (DataType::TimestampTz, ColumnData::TimestampTz(values))
        | (DataType::Time(_), ColumnData::Time(values)) => {
            out.extend_from_slice(&values.get(row).copied().unwrap_or_default().to_le_bytes());
        }
        (DataType::Real, ColumnData::Real(values)) => {
            out.extend_from_slice(&values.get(row).copied().unwrap_or_default().to_le_bytes());
        }
        (DataType::Date, ColumnData::Date(values)) => {
            out.extend_from_slice(&values.get(row).copied().unwrap_or_default().to_le_bytes());
        }
        (DataType::Numeric(_), ColumnData::Numeric(values)) => {
            push_numeric(values.get(row).copied().unwrap_or(Numeric::ZERO), out);
        }
        (DataType::Text(_), ColumnData::Text(values))
        | (DataType::Blob, ColumnData::Blob(values))
        | (DataType::Json, ColumnData::Json(values))
        | (DataType::Jsonb, ColumnData::Jsonb(values)) => {
            let bytes = values.get(row);
            write_varint(bytes.len() as u64, out);
            out.extend_from_slice(bytes);
        }
        (DataType::Interval, ColumnData::Interval(values)) => {
            out.extend_from_slice(
                values
                    .get(row)
                    .copied()
                    .unwrap_or(Interval::ZERO)
                    .as_bytes(),
            );
        }
        (DataType::Uuid, ColumnData::Uuid(values)) => {
            out.extend_from_slice(&values.get(row).copied().unwrap_or_default());
        }
        (DataType::Vector(_), ColumnData::Vector(values)) => {
            let elements = values.get(row);
            write_varint(elements.len() as u64 * 4, out);
            vector::to_le_bytes(elements, out);
        }
        // A vector of another type: convert through a value, as `ColumnVector::push` does.
        _ => match (data_type, column.get(row)) {
            (DataType::Boolean, Value::Boolean(v)) => out.push(u8::from(v)),
            (DataType::Integer, Value::Integer(v))
            | (DataType::Timestamp, Value::Timestamp(v))
            | (DataType::TimestampTz, Value::TimestampTz(v))
            | (DataType::Time(_), Value::Time(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (DataType::Real, Value::Real(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (DataType::Real, Value::Integer(v)) => out.extend_from_slice(&(v as f64).to_le_bytes()),
            (DataType::Date, Value::Date(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (DataType::Numeric(_), Value::Numeric(v)) => push_numeric(v, out),
            (DataType::Text(_), Value::Text(v))
            | (DataType::Json, Value::Json(v))
            | (DataType::Jsonb, Value::Jsonb(v)) => {
                write_varint(v.len() as u64, out);
                out.extend_from_slice(v.as_bytes());
            }
            (DataType::Blob, Value::Blob(v)) => {
                write_varint(v.len() as u64, out);
                out.extend_from_slice(&v);
            }
            (DataType::Interval, Value::Interval(v)) => out.extend_from_slice(v.as_bytes()),
            (DataType::Uuid, Value::Uuid(v)) => out.extend_from_slice(&v),
            (DataType::Vector(_), Value::Vector(v)) => {
                write_varint(v.len() as u64 * 4, out);
                vector::to_le_bytes(&v, out);
            }
            // Arrays as their stored cell behind a length, as a table leaf holds them.
            (DataType::Array(_), Value::Array(array)) => {
                let mut bytes = Vec::new();
                crate::types::array::cell::to_cell_bytes(&array, &mut bytes);
                write_varint(bytes.len() as u64, out);
                out.extend_from_slice(&bytes);
            }
            _ => return false,
        },
    }
    true
}

/// A numeric as its table-cell bytes behind a length, as text is written.
fn push_numeric(value: Numeric, out: &mut Vec<u8>) {
    let mut bytes = Vec::with_capacity(17);
    value.to_cell_bytes(&mut bytes);
    write_varint(bytes.len() as u64, out);
    out.extend_from_slice(&bytes);
}

/// Decodes one non-NULL `data_type` value at `*position`, advancing it.
fn decode_cell<'a>(
    data_type: DataType,
    bytes: &'a [u8],
    position: &mut usize,
) -> ExecResult<Cell<'a>> {
    Ok(match data_type {
        DataType::Null => Cell::Null,
        DataType::Boolean => Cell::Fixed(u64::from(take(bytes, position, 1)?[0])),
        DataType::Integer
        | DataType::Real
        | DataType::Timestamp
        | DataType::TimestampTz
        | DataType::Time(_) => {
            let mut fixed = [0u8; 8];
            fixed.copy_from_slice(take(bytes, position, 8)?);
            Cell::Fixed(u64::from_le_bytes(fixed))
        }
        DataType::Date => {
            let mut fixed = [0u8; 4];
            fixed.copy_from_slice(take(bytes, position, 4)?);
            // Cells hold dates sign-extended to 64 bits.
            Cell::Fixed(i64::from(i32::from_le_bytes(fixed)) as u64)
        }
        // Decoded as the 16 bytes a table leaf holds; `ColumnVector::push_stored` reads them.
        DataType::Interval | DataType::Uuid => {
            Cell::Bytes(Cow::Borrowed(take(bytes, position, 16)?))
        }
        // Vectors as their stored cell, little-endian f32s, as a table leaf holds them.
        DataType::Text(_)
        | DataType::Blob
        | DataType::Json
        | DataType::Jsonb
        | DataType::Numeric(_)
        | DataType::Vector(_)
        | DataType::Array(_) => {
            let (length, used) = read_varint(bytes.get(*position..).unwrap_or(&[]))
                .ok_or_else(|| corrupt("bad value length"))?;
            *position += used;
            let length = usize::try_from(length).map_err(|_| corrupt("value too long"))?;
            Cell::Bytes(Cow::Borrowed(take(bytes, position, length)?))
        }
    })
}

/// The `length` bytes at `*position`, advancing it.
fn take<'a>(bytes: &'a [u8], position: &mut usize, length: usize) -> ExecResult<&'a [u8]> {
    let value = position
        .checked_add(length)
        .and_then(|end| bytes.get(*position..end))
        .ok_or_else(|| corrupt("short row"))?;
    *position += length;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_of_another_type_convert_as_vector_push_does() {
        let codec = RowCodec::new(&[DataType::Real, DataType::Integer, DataType::Text(None)]);
        let mut batch =
            Batch::with_types(&[DataType::Integer, DataType::Null, DataType::Integer], 1);
        batch.push_row(&[Value::Integer(3), Value::Null, Value::Integer(9)]);
        let mut record = Vec::new();
        codec.encode(&batch, 0, &mut record);
        let mut out = Batch::with_types(codec.types(), 1);
        let used = codec.decode(&record, &mut out).unwrap();
        assert_eq!(used, record.len());
        assert_eq!(out.row(0), vec![Value::Real(3.0), Value::Null, Value::Null]);
        // Truncated records are errors, not panics.
        for length in 0..record.len() {
            let mut out = Batch::with_types(codec.types(), 1);
            assert!(codec.decode(&record[..length], &mut out).is_err() || length == 0);
        }
    }
}
