//! Conversion between SQL values and the cells of a table tree's rows.
//!
//! A table row is one cell per physical slot (see `catalog::TableDef::slot_count`); each
//! column's value is stored in its slot as the catalog's storage kind says: INTEGER as the
//! i64's bits, REAL as the f64's bits, DATE as the i32 sign-extended, TIMESTAMP as the i64,
//! BOOLEAN as one byte, TEXT as UTF-8 bytes, BLOB as bytes, JSON and JSONB as the UTF-8
//! bytes of their (validated, for JSONB normalized) text, INTERVAL as its 16-byte stored
//! form (months i32, days i32, microseconds i64, little-endian), UUID as its 16 bytes,
//! VECTOR as its elements' 4-byte little-endian `f32`s (the cell's length gives the
//! dimension), NUMERIC as its scale byte and trimmed two's-complement mantissa
//! (`types::numeric::Numeric::to_cell_bytes`), arrays as `types::array::cell` encodes them.
//! Slots of dropped columns hold NULL.

use crate::catalog::TableDef;
use crate::storage::btree::{CellValue, Value as StoredValue};
use crate::storage::{Result, StorageError};
use crate::types::{DataType, Interval, Value, vector};

/// The cells of one row: `values` are the table's columns in table order, already of the
/// columns' types (or NULL). Vectors and numerics are stored as bytes built in
/// `vector_bytes` (cleared first) for the cells to borrow.
pub fn row_to_cells<'a>(
    table: &TableDef,
    values: &'a [Value],
    vector_bytes: &'a mut Vec<Vec<u8>>,
) -> RowCells<'a> {
    let mut cells = RowCells::nulls(table.slot_count);
    let mut has_vectors = false;
    for (column, value) in table.columns.iter().zip(values) {
        has_vectors |= matches!(
            value,
            Value::Vector(_) | Value::Numeric(_) | Value::Array(_)
        );
        if let Some(slot) = cells.get_mut(column.slot) {
            *slot = scalar_cell(value);
        }
    }
    // Vectors and numerics are encoded after the others, since their cells borrow bytes
    // built here rather than the values.
    if has_vectors {
        vector_bytes.clear();
        for value in values.iter().take(table.columns.len()) {
            match value {
                Value::Vector(elements) => {
                    let mut bytes = Vec::with_capacity(elements.len() * 4);
                    vector::to_le_bytes(elements, &mut bytes);
                    vector_bytes.push(bytes);
                }
                Value::Numeric(number) => {
                    let mut bytes = Vec::with_capacity(17);
                    number.to_cell_bytes(&mut bytes);
                    vector_bytes.push(bytes);
                }
                Value::Array(array) => {
                    let mut bytes = Vec::new();
                    crate::types::array::cell::to_cell_bytes(array, &mut bytes);
                    vector_bytes.push(bytes);
                }
                _ => {}
            }
        }
        let vector_bytes: &'a Vec<Vec<u8>> = vector_bytes;
        let mut next_vector = vector_bytes.iter();
        for (column, value) in table.columns.iter().zip(values) {
            if let Value::Vector(_) | Value::Numeric(_) | Value::Array(_) = value
                && let (Some(slot), Some(bytes)) = (cells.get_mut(column.slot), next_vector.next())
            {
                *slot = CellValue::Var(bytes);
            }
        }
    }
    cells
}

/// Rows of up to this many slots get their cells on the stack.
const INLINE_CELLS: usize = 16;

/// The cells of one row ([`row_to_cells`]): on the stack for a row of up to
/// [`INLINE_CELLS`] slots, so writing the usual row allocates nothing here (an insert costs a
/// few thousand instructions; an allocation and its free, a few hundred).
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "the inline variant is the point: a few hundred bytes of stack per row written"
)]
pub enum RowCells<'a> {
    /// The first `.1` cells of the array.
    Inline([CellValue<'a>; INLINE_CELLS], usize),
    /// A wider row's cells.
    Heap(Vec<CellValue<'a>>),
}

impl RowCells<'_> {
    /// `slots` NULL cells.
    fn nulls(slots: usize) -> Self {
        if slots <= INLINE_CELLS {
            RowCells::Inline([CellValue::Null; INLINE_CELLS], slots)
        } else {
            RowCells::Heap(vec![CellValue::Null; slots])
        }
    }
}

impl<'a> std::ops::Deref for RowCells<'a> {
    type Target = [CellValue<'a>];

    fn deref(&self) -> &[CellValue<'a>] {
        match self {
            RowCells::Inline(cells, len) => cells.get(..*len).unwrap_or(&[]),
            RowCells::Heap(cells) => cells,
        }
    }
}

impl std::ops::DerefMut for RowCells<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            RowCells::Inline(cells, len) => cells.get_mut(..*len).unwrap_or(&mut []),
            RowCells::Heap(cells) => cells,
        }
    }
}

/// One value other than a vector as a cell (a vector is NULL here; `row_to_cells` puts its
/// bytes in afterwards).
#[inline]
fn scalar_cell(value: &Value) -> CellValue<'_> {
    match value {
        Value::Null => CellValue::Null,
        Value::Boolean(v) => CellValue::Fixed(u64::from(*v)),
        Value::Integer(v) => CellValue::Fixed(*v as u64),
        Value::Real(v) => CellValue::Fixed(v.to_bits()),
        Value::Date(v) => CellValue::Fixed(i64::from(*v) as u64),
        Value::Timestamp(v) | Value::TimestampTz(v) | Value::Time(v) => CellValue::Fixed(*v as u64),
        Value::Text(v) | Value::Json(v) | Value::Jsonb(v) => CellValue::Var(v.as_bytes()),
        Value::Blob(v) => CellValue::Var(v),
        Value::Interval(v) => CellValue::Var(v.as_bytes()),
        Value::Uuid(v) => CellValue::Var(v),
        Value::Vector(_) | Value::Numeric(_) | Value::Array(_) => CellValue::Null,
    }
}

/// Decodes a stored value of a column of type `data_type`.
pub fn stored_to_value(stored: StoredValue<'_>, data_type: DataType) -> Result<Value> {
    Ok(match (stored, data_type) {
        (StoredValue::Null, _) => Value::Null,
        (StoredValue::Fixed(bits), DataType::Boolean) => Value::Boolean(bits & 0xFF != 0),
        (StoredValue::Fixed(bits), DataType::Integer) => Value::Integer(bits as i64),
        (StoredValue::Fixed(bits), DataType::Real) => Value::Real(f64::from_bits(bits)),
        (StoredValue::Fixed(bits), DataType::Date) => Value::Date(bits as i64 as i32),
        (StoredValue::Fixed(bits), DataType::Timestamp) => Value::Timestamp(bits as i64),
        (StoredValue::Fixed(bits), DataType::TimestampTz) => Value::TimestampTz(bits as i64),
        (StoredValue::Fixed(bits), DataType::Time(_)) => Value::Time(bits as i64),
        (StoredValue::Bytes(bytes), DataType::Text(_)) => Value::Text(
            String::from_utf8(bytes.into_owned())
                .map_err(|_| StorageError::corrupt("stored text is not UTF-8"))?,
        ),
        (StoredValue::Bytes(bytes), DataType::Blob) => Value::Blob(bytes.into_owned()),
        (StoredValue::Bytes(bytes), DataType::Numeric(_)) => Value::Numeric(
            crate::types::Numeric::from_cell_bytes(&bytes)
                .ok_or_else(|| StorageError::corrupt("stored numeric is malformed"))?,
        ),
        (StoredValue::Bytes(bytes), DataType::Interval) => Value::Interval(
            Interval::from_bytes(&bytes)
                .ok_or_else(|| StorageError::corrupt("stored interval is not 16 bytes"))?,
        ),
        (StoredValue::Bytes(bytes), DataType::Uuid) => Value::Uuid(
            <[u8; 16]>::try_from(bytes.as_ref())
                .map_err(|_| StorageError::corrupt("stored uuid is not 16 bytes"))?,
        ),
        (StoredValue::Bytes(bytes), DataType::Json) => Value::Json(
            String::from_utf8(bytes.into_owned())
                .map_err(|_| StorageError::corrupt("stored JSON is not UTF-8"))?,
        ),
        (StoredValue::Bytes(bytes), DataType::Jsonb) => Value::Jsonb(
            String::from_utf8(bytes.into_owned())
                .map_err(|_| StorageError::corrupt("stored JSON is not UTF-8"))?,
        ),
        (StoredValue::Bytes(bytes), DataType::Vector(_)) => {
            let mut elements = Vec::new();
            if !vector::decode_le_bytes(&bytes, &mut elements) {
                return Err(StorageError::corrupt(
                    "stored vector is not a whole number of f32s",
                ));
            }
            Value::Vector(elements)
        }
        (StoredValue::Bytes(bytes), DataType::Array(_)) => {
            crate::types::array::cell::from_cell_bytes(&bytes)
                .ok_or_else(|| StorageError::corrupt("stored array is malformed"))?
                .into_value()
        }
        (stored, data_type) => {
            return Err(StorageError::corrupt(format!(
                "stored value {stored:?} does not fit a {data_type} column"
            )));
        }
    })
}

/// The column values (in table order) of the row `cursor` is on. Rows written before a
/// column was added have fewer slots; the missing ones read as NULL.
pub fn read_row_values<S: crate::storage::PageRead>(
    cursor: &crate::storage::btree::TableCursor<S>,
    table: &TableDef,
) -> Result<Vec<Value>> {
    let mut values = Vec::with_capacity(table.columns.len());
    for column in &table.columns {
        if column.slot >= cursor.column_count() {
            values.push(Value::Null);
        } else {
            values.push(stored_to_value(
                cursor.value(column.slot)?,
                column.data_type,
            )?);
        }
    }
    Ok(values)
}
