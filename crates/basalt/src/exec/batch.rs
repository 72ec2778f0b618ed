//! Column vectors and batches: the unit of data flowing between operators.
//!
//! A [`Batch`] is a few hundred to a few thousand rows stored column by column; each column
//! is a [`ColumnVector`] of one [`DataType`]: a typed array plus a null mask. Null slots hold a
//! placeholder value (0, false, empty) so kernels can run over the whole array and then
//! combine masks, instead of branching per row. Text and blobs live in one byte arena per
//! vector ([`BytesVector`]), so filling a batch from a page does not allocate per value.
//!
//! Operators read vectors with typed accessors in their hot loops and fall back to
//! [`ColumnVector::get`] (a `Value` per row) on the long tail of rarely used paths.

use crate::types::{DataType, Interval, Numeric, Value};

/// Rows per batch produced by scans.
pub const BATCH_SIZE: usize = 1024;
/// Bytes after which a scan ends a batch before [`BATCH_SIZE`] rows (checked per leaf), so
/// a batch of wide rows fits a core's L2 cache with room to spare.
pub const BATCH_BYTES: usize = 256 << 10;

/// Variable-length values (text or blob) in one arena: value `i` is
/// `bytes[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BytesVector {
    offsets: Vec<u32>,
    bytes: Vec<u8>,
}

impl BytesVector {
    /// An empty vector with room for `rows` values.
    pub fn with_capacity(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        BytesVector {
            offsets,
            bytes: Vec::new(),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Appends a value.
    pub fn push(&mut self, value: &[u8]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.bytes.extend_from_slice(value);
        // Batches are bounded in size, so a vector's arena stays far below 4 GiB; saturate
        // rather than wrap if a caller ever builds a giant one.
        self.offsets
            .push(u32::try_from(self.bytes.len()).unwrap_or(u32::MAX));
    }

    /// Value `row` (empty if out of range).
    pub fn get(&self, row: usize) -> &[u8] {
        match (self.offsets.get(row), self.offsets.get(row + 1)) {
            (Some(&start), Some(&end)) => {
                self.bytes.get(start as usize..end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// Value `row` as text. Text vectors only ever receive valid UTF-8.
    pub fn get_str(&self, row: usize) -> &str {
        std::str::from_utf8(self.get(row)).unwrap_or("")
    }

    /// Removes every value, keeping the allocations.
    pub fn clear(&mut self) {
        self.offsets.clear();
        self.offsets.push(0);
        self.bytes.clear();
    }
}

/// VECTOR values in one arena of `f32`s: value `i` is `values[offsets[i]..offsets[i + 1]]`,
/// so a distance kernel reads it as a slice without copying, and filling a batch from a page
/// does not allocate per vector.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FloatsVector {
    offsets: Vec<u32>,
    values: Vec<f32>,
}

impl FloatsVector {
    /// An empty vector with room for `rows` values.
    pub fn with_capacity(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        FloatsVector {
            offsets,
            values: Vec::new(),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn end_value(&mut self) {
        self.offsets
            .push(u32::try_from(self.values.len()).unwrap_or(u32::MAX));
    }

    /// Appends a value.
    pub fn push(&mut self, value: &[f32]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.values.extend_from_slice(value);
        self.end_value();
    }

    /// Appends a value stored little-endian (a table cell); `false` when the bytes are not
    /// whole `f32`s, and nothing is appended then.
    pub fn push_le_bytes(&mut self, bytes: &[u8]) -> bool {
        if !bytes.len().is_multiple_of(4) {
            return false;
        }
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        crate::types::vector::append_le_bytes(bytes, &mut self.values);
        self.end_value();
        true
    }

    /// Value `row` (empty if out of range).
    pub fn get(&self, row: usize) -> &[f32] {
        match (self.offsets.get(row), self.offsets.get(row + 1)) {
            (Some(&start), Some(&end)) => {
                self.values.get(start as usize..end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// Removes every value, keeping the allocations.
    pub fn clear(&mut self) {
        self.offsets.clear();
        self.offsets.push(0);
        self.values.clear();
    }
}

/// The typed values of one column of a batch.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    /// Every value is NULL (the type of a bare NULL literal).
    Null(usize),
    Boolean(Vec<bool>),
    Integer(Vec<i64>),
    Real(Vec<f64>),
    /// NUMERIC: exact decimals, as `Value::Numeric`.
    Numeric(Vec<Numeric>),
    Text(BytesVector),
    Blob(BytesVector),
    Date(Vec<i32>),
    Timestamp(Vec<i64>),
    /// TIMESTAMPTZ: microseconds since the epoch, UTC.
    TimestampTz(Vec<i64>),
    /// TIME: microseconds since midnight.
    Time(Vec<i64>),
    Interval(Vec<Interval>),
    Uuid(Vec<[u8; 16]>),
    /// JSON text (always valid UTF-8), as `Value::Json`.
    Json(BytesVector),
    /// Normalized JSON text, as `Value::Jsonb`.
    Jsonb(BytesVector),
    /// Vectors, as `Value::Vector`.
    Vector(FloatsVector),
    /// Arrays of the array type named (`Value::Array`, or `Value::Null` in a NULL slot):
    /// each shares its value's allocation, so moving rows does not copy elements.
    Array(DataType, Vec<Value>),
}

/// One column of a batch: typed values plus a null mask (empty = no NULLs).
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnVector {
    pub data: ColumnData,
    /// `nulls[i]` is true when row `i` is NULL; an empty mask means no row is NULL.
    pub nulls: Vec<bool>,
}

impl ColumnVector {
    /// An empty vector of `data_type` with room for `rows` values.
    pub fn with_capacity(data_type: DataType, rows: usize) -> ColumnVector {
        let data = match data_type {
            DataType::Null => ColumnData::Null(0),
            DataType::Boolean => ColumnData::Boolean(Vec::with_capacity(rows)),
            DataType::Integer => ColumnData::Integer(Vec::with_capacity(rows)),
            DataType::Real => ColumnData::Real(Vec::with_capacity(rows)),
            DataType::Numeric(_) => ColumnData::Numeric(Vec::with_capacity(rows)),
            DataType::Text(_) => ColumnData::Text(BytesVector::with_capacity(rows)),
            DataType::Blob => ColumnData::Blob(BytesVector::with_capacity(rows)),
            DataType::Date => ColumnData::Date(Vec::with_capacity(rows)),
            DataType::Timestamp => ColumnData::Timestamp(Vec::with_capacity(rows)),
            DataType::TimestampTz => ColumnData::TimestampTz(Vec::with_capacity(rows)),
            DataType::Time(_) => ColumnData::Time(Vec::with_capacity(rows)),
            DataType::Interval => ColumnData::Interval(Vec::with_capacity(rows)),
            DataType::Uuid => ColumnData::Uuid(Vec::with_capacity(rows)),
            DataType::Json => ColumnData::Json(BytesVector::with_capacity(rows)),
            DataType::Jsonb => ColumnData::Jsonb(BytesVector::with_capacity(rows)),
            DataType::Vector(_) => ColumnData::Vector(FloatsVector::with_capacity(rows)),
            DataType::Array(_) => ColumnData::Array(data_type, Vec::with_capacity(rows)),
        };
        ColumnVector {
            data,
            nulls: Vec::new(),
        }
    }

    /// A vector of `rows` copies of `value`, of type `data_type`.
    pub fn constant(value: &Value, data_type: DataType, rows: usize) -> ColumnVector {
        let mut vector = ColumnVector::with_capacity(data_type, rows);
        for _ in 0..rows {
            vector.push(value);
        }
        vector
    }

    /// The type of the values.
    pub fn data_type(&self) -> DataType {
        match &self.data {
            ColumnData::Null(_) => DataType::Null,
            ColumnData::Boolean(_) => DataType::Boolean,
            ColumnData::Integer(_) => DataType::Integer,
            ColumnData::Real(_) => DataType::Real,
            ColumnData::Numeric(_) => DataType::Numeric(None),
            ColumnData::Text(_) => DataType::Text(None),
            ColumnData::Blob(_) => DataType::Blob,
            ColumnData::Date(_) => DataType::Date,
            ColumnData::Timestamp(_) => DataType::Timestamp,
            ColumnData::TimestampTz(_) => DataType::TimestampTz,
            ColumnData::Time(_) => DataType::Time(None),
            ColumnData::Interval(_) => DataType::Interval,
            ColumnData::Uuid(_) => DataType::Uuid,
            ColumnData::Json(_) => DataType::Json,
            ColumnData::Jsonb(_) => DataType::Jsonb,
            ColumnData::Vector(_) => DataType::Vector(None),
            ColumnData::Array(data_type, _) => *data_type,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match &self.data {
            ColumnData::Null(rows) => *rows,
            ColumnData::Boolean(values) => values.len(),
            ColumnData::Integer(values) => values.len(),
            ColumnData::Real(values) => values.len(),
            ColumnData::Numeric(values) => values.len(),
            ColumnData::Text(values)
            | ColumnData::Blob(values)
            | ColumnData::Json(values)
            | ColumnData::Jsonb(values) => values.len(),
            ColumnData::Date(values) => values.len(),
            ColumnData::Timestamp(values)
            | ColumnData::TimestampTz(values)
            | ColumnData::Time(values) => values.len(),
            ColumnData::Interval(values) => values.len(),
            ColumnData::Uuid(values) => values.len(),
            ColumnData::Vector(values) => values.len(),
            ColumnData::Array(_, values) => values.len(),
        }
    }

    /// Whether row `row` is NULL.
    pub fn is_null(&self, row: usize) -> bool {
        matches!(self.data, ColumnData::Null(_)) || self.nulls.get(row).copied().unwrap_or(false)
    }

    /// Marks row `row` (already pushed) as NULL or not, creating the mask on demand.
    fn set_null(&mut self, row: usize, null: bool) {
        if null && self.nulls.is_empty() {
            self.nulls = vec![false; self.len()];
        }
        if !self.nulls.is_empty() {
            if self.nulls.len() <= row {
                self.nulls.resize(row + 1, false);
            }
            self.nulls[row] = null;
        }
    }

    /// Row `row` as a [`Value`] (the slow, general path).
    pub fn get(&self, row: usize) -> Value {
        if self.is_null(row) {
            return Value::Null;
        }
        match &self.data {
            ColumnData::Null(_) => Value::Null,
            ColumnData::Boolean(values) => {
                values.get(row).map_or(Value::Null, |&v| Value::Boolean(v))
            }
            ColumnData::Integer(values) => {
                values.get(row).map_or(Value::Null, |&v| Value::Integer(v))
            }
            ColumnData::Real(values) => values.get(row).map_or(Value::Null, |&v| Value::Real(v)),
            ColumnData::Numeric(values) => {
                values.get(row).map_or(Value::Null, |&v| Value::Numeric(v))
            }
            ColumnData::Text(values) => Value::Text(values.get_str(row).to_string()),
            ColumnData::Blob(values) => Value::Blob(values.get(row).to_vec()),
            ColumnData::Date(values) => values.get(row).map_or(Value::Null, |&v| Value::Date(v)),
            ColumnData::Timestamp(values) => values
                .get(row)
                .map_or(Value::Null, |&v| Value::Timestamp(v)),
            ColumnData::TimestampTz(values) => values
                .get(row)
                .map_or(Value::Null, |&v| Value::TimestampTz(v)),
            ColumnData::Time(values) => values.get(row).map_or(Value::Null, |&v| Value::Time(v)),
            ColumnData::Interval(values) => {
                values.get(row).map_or(Value::Null, |&v| Value::Interval(v))
            }
            ColumnData::Uuid(values) => values.get(row).map_or(Value::Null, |&v| Value::Uuid(v)),
            ColumnData::Json(values) => Value::Json(values.get_str(row).to_string()),
            ColumnData::Jsonb(values) => Value::Jsonb(values.get_str(row).to_string()),
            ColumnData::Vector(values) => Value::Vector(values.get(row).to_vec()),
            ColumnData::Array(_, values) => values.get(row).cloned().unwrap_or(Value::Null),
        }
    }

    /// Appends `value`, which must be NULL or of the vector's type (callers cast first);
    /// a value of another type is stored as NULL rather than corrupting the vector.
    pub fn push(&mut self, value: &Value) {
        let row = self.len();
        match (&mut self.data, value) {
            (ColumnData::Null(rows), _) => {
                *rows += 1;
                return;
            }
            (ColumnData::Boolean(values), Value::Boolean(v)) => values.push(*v),
            (ColumnData::Integer(values), Value::Integer(v)) => values.push(*v),
            (ColumnData::Real(values), Value::Real(v)) => values.push(*v),
            (ColumnData::Real(values), Value::Integer(v)) => values.push(*v as f64),
            (ColumnData::Numeric(values), Value::Numeric(v)) => values.push(*v),
            (ColumnData::Text(values), Value::Text(v)) => values.push(v.as_bytes()),
            (ColumnData::Blob(values), Value::Blob(v)) => values.push(v),
            (ColumnData::Date(values), Value::Date(v)) => values.push(*v),
            (ColumnData::Timestamp(values), Value::Timestamp(v)) => values.push(*v),
            (ColumnData::TimestampTz(values), Value::TimestampTz(v)) => values.push(*v),
            (ColumnData::Time(values), Value::Time(v)) => values.push(*v),
            (ColumnData::Interval(values), Value::Interval(v)) => values.push(*v),
            (ColumnData::Uuid(values), Value::Uuid(v)) => values.push(*v),
            (ColumnData::Json(values), Value::Json(v))
            | (ColumnData::Jsonb(values), Value::Jsonb(v)) => values.push(v.as_bytes()),
            (ColumnData::Vector(values), Value::Vector(v)) => values.push(v),
            (ColumnData::Array(data_type, values), Value::Array(array))
                if array.data_type() == *data_type =>
            {
                values.push(value.clone())
            }
            (data, _) => {
                push_placeholder(data);
                self.set_null(row, true);
                return;
            }
        }
        self.set_null(row, false);
    }

    /// Appends a NULL.
    pub fn push_null(&mut self) {
        let row = self.len();
        push_placeholder(&mut self.data);
        if !matches!(self.data, ColumnData::Null(_)) {
            self.set_null(row, true);
        }
    }

    /// Appends a value stored in a table leaf (`storage::btree::Value`), decoding it for this
    /// vector's type without building a [`Value`]. Text that is not UTF-8 is an error.
    pub fn push_stored(
        &mut self,
        stored: &crate::storage::btree::Value<'_>,
    ) -> Result<(), &'static str> {
        use crate::storage::btree::Value as Stored;
        let row = self.len();
        match (&mut self.data, stored) {
            (_, Stored::Null) => {
                self.push_null();
                return Ok(());
            }
            (ColumnData::Boolean(values), Stored::Fixed(bits)) => values.push(bits & 0xFF != 0),
            (ColumnData::Integer(values), Stored::Fixed(bits)) => values.push(*bits as i64),
            (ColumnData::Real(values), Stored::Fixed(bits)) => values.push(f64::from_bits(*bits)),
            (ColumnData::Date(values), Stored::Fixed(bits)) => values.push(*bits as i64 as i32),
            (
                ColumnData::Timestamp(values)
                | ColumnData::TimestampTz(values)
                | ColumnData::Time(values),
                Stored::Fixed(bits),
            ) => values.push(*bits as i64),
            (ColumnData::Text(values), Stored::Bytes(bytes)) => {
                if std::str::from_utf8(bytes).is_err() {
                    return Err("stored text is not UTF-8");
                }
                values.push(bytes)
            }
            (ColumnData::Blob(values), Stored::Bytes(bytes)) => values.push(bytes),
            (ColumnData::Numeric(values), Stored::Bytes(bytes)) => {
                values.push(Numeric::from_cell_bytes(bytes).ok_or("stored numeric is malformed")?)
            }
            (ColumnData::Interval(values), Stored::Bytes(bytes)) => {
                values.push(Interval::from_bytes(bytes).ok_or("stored interval is not 16 bytes")?)
            }
            (ColumnData::Uuid(values), Stored::Bytes(bytes)) => values.push(
                <[u8; 16]>::try_from(bytes.as_ref()).map_err(|_| "stored uuid is not 16 bytes")?,
            ),
            (ColumnData::Json(values) | ColumnData::Jsonb(values), Stored::Bytes(bytes)) => {
                if std::str::from_utf8(bytes).is_err() {
                    return Err("stored JSON is not UTF-8");
                }
                values.push(bytes)
            }
            (ColumnData::Vector(values), Stored::Bytes(bytes)) => {
                if !values.push_le_bytes(bytes) {
                    return Err("stored vector is not a whole number of f32s");
                }
            }
            (ColumnData::Array(_, values), Stored::Bytes(bytes)) => values.push(
                crate::types::array::cell::from_cell_bytes(bytes)
                    .ok_or("stored array is malformed")?
                    .into_value(),
            ),
            _ => return Err("stored value does not match the column type"),
        }
        self.set_null(row, false);
        Ok(())
    }

    /// Appends `count` fixed-width values stored little-endian in `bytes` (`width` bytes
    /// each, as a table leaf's value array holds them), with the leaf's null bitmap (bit set
    /// = NULL) starting at row `first` of the leaf. The bulk counterpart of
    /// [`ColumnVector::push_stored`] for fixed values.
    pub fn extend_fixed(
        &mut self,
        bytes: &[u8],
        width: usize,
        null_bitmap: &[u8],
        first: usize,
        count: usize,
    ) -> Result<(), &'static str> {
        let start = self.len();
        let values = bytes
            .get(first * width..(first + count) * width)
            .ok_or("value array shorter than the leaf's row count")?;
        let bits = |chunk: &[u8]| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            u64::from_le_bytes(word)
        };
        match &mut self.data {
            ColumnData::Integer(to)
            | ColumnData::Timestamp(to)
            | ColumnData::TimestampTz(to)
            | ColumnData::Time(to)
                if width == 8 =>
            {
                to.extend(values.chunks_exact(8).map(|chunk| bits(chunk) as i64))
            }
            ColumnData::Real(to) if width == 8 => to.extend(
                values
                    .chunks_exact(8)
                    .map(|chunk| f64::from_bits(bits(chunk))),
            ),
            ColumnData::Integer(to)
            | ColumnData::Timestamp(to)
            | ColumnData::TimestampTz(to)
            | ColumnData::Time(to) => {
                to.extend(values.chunks_exact(width).map(|chunk| bits(chunk) as i64))
            }
            ColumnData::Date(to) => to.extend(
                values
                    .chunks_exact(width)
                    .map(|chunk| bits(chunk) as i64 as i32),
            ),
            ColumnData::Boolean(to) => to.extend(
                values
                    .chunks_exact(width)
                    .map(|chunk| bits(chunk) & 0xFF != 0),
            ),
            _ => return Err("stored fixed value does not match the column type"),
        }
        let is_null = |row: usize| {
            null_bitmap
                .get(row / 8)
                .is_some_and(|byte| byte & (1 << (row % 8)) != 0)
        };
        let any_null = (first..first + count).any(is_null);
        if any_null || !self.nulls.is_empty() {
            if self.nulls.is_empty() {
                self.nulls = vec![false; start];
            }
            self.nulls.extend((first..first + count).map(is_null));
        }
        Ok(())
    }

    /// Appends row `row` of `other` (same type).
    pub fn push_from(&mut self, other: &ColumnVector, row: usize) {
        let target_row = self.len();
        let null = other.is_null(row);
        match (&mut self.data, &other.data) {
            (ColumnData::Boolean(to), ColumnData::Boolean(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (ColumnData::Integer(to), ColumnData::Integer(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (ColumnData::Real(to), ColumnData::Real(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (ColumnData::Numeric(to), ColumnData::Numeric(from)) => {
                to.push(from.get(row).copied().unwrap_or(Numeric::ZERO))
            }
            (ColumnData::Text(to), ColumnData::Text(from))
            | (ColumnData::Blob(to), ColumnData::Blob(from))
            | (ColumnData::Json(to), ColumnData::Json(from))
            | (ColumnData::Jsonb(to), ColumnData::Jsonb(from)) => to.push(from.get(row)),
            (ColumnData::Date(to), ColumnData::Date(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (ColumnData::Timestamp(to), ColumnData::Timestamp(from))
            | (ColumnData::TimestampTz(to), ColumnData::TimestampTz(from))
            | (ColumnData::Time(to), ColumnData::Time(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (ColumnData::Interval(to), ColumnData::Interval(from)) => {
                to.push(from.get(row).copied().unwrap_or(Interval::ZERO))
            }
            (ColumnData::Uuid(to), ColumnData::Uuid(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (ColumnData::Vector(to), ColumnData::Vector(from)) => to.push(from.get(row)),
            (ColumnData::Array(_, to), ColumnData::Array(_, from)) => {
                to.push(from.get(row).cloned().unwrap_or(Value::Null))
            }
            _ => {
                let value = other.get(row);
                self.push(&value);
                return;
            }
        }
        self.set_null(target_row, null);
    }

    /// The rows at `positions`, in that order.
    pub fn gather(&self, positions: &[u32]) -> ColumnVector {
        let mut out = ColumnVector::with_capacity(self.data_type(), positions.len());
        for &position in positions {
            out.push_from(self, position as usize);
        }
        out
    }

    /// Bytes the values take in memory (what memory budgets count): the typed array, the
    /// text or blob bytes with their offsets, and the null mask.
    pub fn estimated_bytes(&self) -> usize {
        let values = match &self.data {
            ColumnData::Null(_) => 0,
            ColumnData::Boolean(values) => values.len(),
            ColumnData::Integer(values) => values.len() * 8,
            ColumnData::Real(values) => values.len() * 8,
            ColumnData::Numeric(values) => values.len() * 32,
            ColumnData::Text(values)
            | ColumnData::Blob(values)
            | ColumnData::Json(values)
            | ColumnData::Jsonb(values) => values.offsets.len() * 4 + values.bytes.len(),
            ColumnData::Date(values) => values.len() * 4,
            ColumnData::Timestamp(values)
            | ColumnData::TimestampTz(values)
            | ColumnData::Time(values) => values.len() * 8,
            ColumnData::Interval(values) => values.len() * 16,
            ColumnData::Uuid(values) => values.len() * 16,
            ColumnData::Vector(values) => values.offsets.len() * 4 + values.values.len() * 4,
            // The handle plus the elements, estimated at 32 bytes each.
            ColumnData::Array(_, values) => values
                .iter()
                .map(|v| match v {
                    Value::Array(array) => 64 + array.elements().len() * 32,
                    _ => 32,
                })
                .sum(),
        };
        values + self.nulls.len()
    }

    /// Removes every row, keeping allocations.
    pub fn clear(&mut self) {
        match &mut self.data {
            ColumnData::Null(rows) => *rows = 0,
            ColumnData::Boolean(values) => values.clear(),
            ColumnData::Integer(values) => values.clear(),
            ColumnData::Real(values) => values.clear(),
            ColumnData::Numeric(values) => values.clear(),
            ColumnData::Text(values)
            | ColumnData::Blob(values)
            | ColumnData::Json(values)
            | ColumnData::Jsonb(values) => values.clear(),
            ColumnData::Date(values) => values.clear(),
            ColumnData::Timestamp(values)
            | ColumnData::TimestampTz(values)
            | ColumnData::Time(values) => values.clear(),
            ColumnData::Interval(values) => values.clear(),
            ColumnData::Uuid(values) => values.clear(),
            ColumnData::Vector(values) => values.clear(),
            ColumnData::Array(_, values) => values.clear(),
        }
        self.nulls.clear();
    }
}

fn push_placeholder(data: &mut ColumnData) {
    match data {
        ColumnData::Null(rows) => *rows += 1,
        ColumnData::Boolean(values) => values.push(false),
        ColumnData::Integer(values) => values.push(0),
        ColumnData::Real(values) => values.push(0.0),
        ColumnData::Numeric(values) => values.push(Numeric::ZERO),
        ColumnData::Text(values)
        | ColumnData::Blob(values)
        | ColumnData::Json(values)
        | ColumnData::Jsonb(values) => values.push(&[]),
        ColumnData::Date(values) => values.push(0),
        ColumnData::Timestamp(values)
        | ColumnData::TimestampTz(values)
        | ColumnData::Time(values) => values.push(0),
        ColumnData::Interval(values) => values.push(Interval::ZERO),
        ColumnData::Uuid(values) => values.push([0; 16]),
        ColumnData::Vector(values) => values.push(&[]),
        ColumnData::Array(_, values) => values.push(Value::Null),
    }
}

/// Rows of several columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub columns: Vec<ColumnVector>,
    /// Row count (kept separately so a batch with no columns can still have rows).
    pub rows: usize,
}

impl Batch {
    /// An empty batch with one vector per type.
    pub fn with_types(types: &[DataType], capacity: usize) -> Batch {
        Batch {
            columns: types
                .iter()
                .map(|&t| ColumnVector::with_capacity(t, capacity))
                .collect(),
            rows: 0,
        }
    }

    /// Appends one row of values.
    pub fn push_row(&mut self, row: &[Value]) {
        for (column, value) in self.columns.iter_mut().zip(row) {
            column.push(value);
        }
        self.rows += 1;
    }

    /// Row `row` as values.
    pub fn row(&self, row: usize) -> Vec<Value> {
        self.columns.iter().map(|column| column.get(row)).collect()
    }

    /// The rows at `positions`.
    pub fn gather(&self, positions: &[u32]) -> Batch {
        Batch {
            columns: self.columns.iter().map(|c| c.gather(positions)).collect(),
            rows: positions.len(),
        }
    }

    /// Bytes the rows take in memory (see [`ColumnVector::estimated_bytes`]).
    pub fn estimated_bytes(&self) -> usize {
        self.columns.iter().map(ColumnVector::estimated_bytes).sum()
    }

    /// Removes every row, keeping allocations.
    pub fn clear(&mut self) {
        self.columns.iter_mut().for_each(ColumnVector::clear);
        self.rows = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_get_gather_and_nulls() {
        let mut batch = Batch::with_types(&[DataType::Integer, DataType::Text(None)], 4);
        batch.push_row(&[Value::Integer(1), Value::Text("a".into())]);
        batch.push_row(&[Value::Null, Value::Text("bcd".into())]);
        batch.push_row(&[Value::Integer(3), Value::Null]);
        assert_eq!(batch.rows, 3);
        assert_eq!(batch.row(1), vec![Value::Null, Value::Text("bcd".into())]);
        let gathered = batch.gather(&[2, 0]);
        assert_eq!(gathered.row(0), vec![Value::Integer(3), Value::Null]);
        assert_eq!(
            gathered.row(1),
            vec![Value::Integer(1), Value::Text("a".into())]
        );
        assert!(!gathered.columns[0].is_null(1));
        let constant = ColumnVector::constant(&Value::Real(2.5), DataType::Real, 3);
        assert_eq!(constant.get(2), Value::Real(2.5));
        assert!(ColumnVector::constant(&Value::Null, DataType::Null, 2).is_null(1));
    }
}
