//! Column vectors and batches: the unit of data flowing between operators.
//!
//! A [`Batch`] is a few hundred to a few thousand rows stored column by column; each column
//! is a [`Vector`] of one [`DataType`]: a typed array plus a null mask. Null slots hold a
//! placeholder value (0, false, empty) so kernels can run over the whole array and then
//! combine masks, instead of branching per row. Text and blobs live in one byte arena per
//! vector ([`BytesVector`]), so filling a batch from a page does not allocate per value.
//!
//! Operators read vectors with typed accessors in their hot loops and fall back to
//! [`Vector::get`] (a `Value` per row) on the long tail of rarely used paths.

use crate::types::{DataType, Interval, Value};

/// Rows per batch produced by scans.
pub const BATCH_SIZE: usize = 1024;

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

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

/// The typed values of one column of a batch.
#[derive(Clone, Debug, PartialEq)]
pub enum VectorData {
    /// Every value is NULL (the type of a bare NULL literal).
    Null(usize),
    Boolean(Vec<bool>),
    Integer(Vec<i64>),
    Real(Vec<f64>),
    Text(BytesVector),
    Blob(BytesVector),
    Date(Vec<i32>),
    Timestamp(Vec<i64>),
    Interval(Vec<Interval>),
    Uuid(Vec<[u8; 16]>),
    /// JSON text (always valid UTF-8), as `Value::Json`.
    Json(BytesVector),
    /// Normalized JSON text, as `Value::Jsonb`.
    Jsonb(BytesVector),
}

/// One column of a batch: typed values plus a null mask (empty = no NULLs).
#[derive(Clone, Debug, PartialEq)]
pub struct Vector {
    pub data: VectorData,
    /// `nulls[i]` is true when row `i` is NULL; an empty mask means no row is NULL.
    pub nulls: Vec<bool>,
}

impl Vector {
    /// An empty vector of `data_type` with room for `rows` values.
    pub fn with_capacity(data_type: DataType, rows: usize) -> Vector {
        let data = match data_type {
            DataType::Null => VectorData::Null(0),
            DataType::Boolean => VectorData::Boolean(Vec::with_capacity(rows)),
            DataType::Integer => VectorData::Integer(Vec::with_capacity(rows)),
            DataType::Real => VectorData::Real(Vec::with_capacity(rows)),
            DataType::Text => VectorData::Text(BytesVector::with_capacity(rows)),
            DataType::Blob => VectorData::Blob(BytesVector::with_capacity(rows)),
            DataType::Date => VectorData::Date(Vec::with_capacity(rows)),
            DataType::Timestamp => VectorData::Timestamp(Vec::with_capacity(rows)),
            DataType::Interval => VectorData::Interval(Vec::with_capacity(rows)),
            DataType::Uuid => VectorData::Uuid(Vec::with_capacity(rows)),
            DataType::Json => VectorData::Json(BytesVector::with_capacity(rows)),
            DataType::Jsonb => VectorData::Jsonb(BytesVector::with_capacity(rows)),
        };
        Vector {
            data,
            nulls: Vec::new(),
        }
    }

    /// A vector of `rows` copies of `value`, of type `data_type`.
    pub fn constant(value: &Value, data_type: DataType, rows: usize) -> Vector {
        let mut vector = Vector::with_capacity(data_type, rows);
        for _ in 0..rows {
            vector.push(value);
        }
        vector
    }

    /// The type of the values.
    pub fn data_type(&self) -> DataType {
        match &self.data {
            VectorData::Null(_) => DataType::Null,
            VectorData::Boolean(_) => DataType::Boolean,
            VectorData::Integer(_) => DataType::Integer,
            VectorData::Real(_) => DataType::Real,
            VectorData::Text(_) => DataType::Text,
            VectorData::Blob(_) => DataType::Blob,
            VectorData::Date(_) => DataType::Date,
            VectorData::Timestamp(_) => DataType::Timestamp,
            VectorData::Interval(_) => DataType::Interval,
            VectorData::Uuid(_) => DataType::Uuid,
            VectorData::Json(_) => DataType::Json,
            VectorData::Jsonb(_) => DataType::Jsonb,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match &self.data {
            VectorData::Null(rows) => *rows,
            VectorData::Boolean(values) => values.len(),
            VectorData::Integer(values) => values.len(),
            VectorData::Real(values) => values.len(),
            VectorData::Text(values)
            | VectorData::Blob(values)
            | VectorData::Json(values)
            | VectorData::Jsonb(values) => values.len(),
            VectorData::Date(values) => values.len(),
            VectorData::Timestamp(values) => values.len(),
            VectorData::Interval(values) => values.len(),
            VectorData::Uuid(values) => values.len(),
        }
    }

    /// Whether the vector has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether row `row` is NULL.
    pub fn is_null(&self, row: usize) -> bool {
        matches!(self.data, VectorData::Null(_)) || self.nulls.get(row).copied().unwrap_or(false)
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
            VectorData::Null(_) => Value::Null,
            VectorData::Boolean(values) => {
                values.get(row).map_or(Value::Null, |&v| Value::Boolean(v))
            }
            VectorData::Integer(values) => {
                values.get(row).map_or(Value::Null, |&v| Value::Integer(v))
            }
            VectorData::Real(values) => values.get(row).map_or(Value::Null, |&v| Value::Real(v)),
            VectorData::Text(values) => Value::Text(values.get_str(row).to_string()),
            VectorData::Blob(values) => Value::Blob(values.get(row).to_vec()),
            VectorData::Date(values) => values.get(row).map_or(Value::Null, |&v| Value::Date(v)),
            VectorData::Timestamp(values) => values
                .get(row)
                .map_or(Value::Null, |&v| Value::Timestamp(v)),
            VectorData::Interval(values) => {
                values.get(row).map_or(Value::Null, |&v| Value::Interval(v))
            }
            VectorData::Uuid(values) => values.get(row).map_or(Value::Null, |&v| Value::Uuid(v)),
            VectorData::Json(values) => Value::Json(values.get_str(row).to_string()),
            VectorData::Jsonb(values) => Value::Jsonb(values.get_str(row).to_string()),
        }
    }

    /// Appends `value`, which must be NULL or of the vector's type (callers cast first);
    /// a value of another type is stored as NULL rather than corrupting the vector.
    pub fn push(&mut self, value: &Value) {
        let row = self.len();
        match (&mut self.data, value) {
            (VectorData::Null(rows), _) => {
                *rows += 1;
                return;
            }
            (VectorData::Boolean(values), Value::Boolean(v)) => values.push(*v),
            (VectorData::Integer(values), Value::Integer(v)) => values.push(*v),
            (VectorData::Real(values), Value::Real(v)) => values.push(*v),
            (VectorData::Real(values), Value::Integer(v)) => values.push(*v as f64),
            (VectorData::Text(values), Value::Text(v)) => values.push(v.as_bytes()),
            (VectorData::Blob(values), Value::Blob(v)) => values.push(v),
            (VectorData::Date(values), Value::Date(v)) => values.push(*v),
            (VectorData::Timestamp(values), Value::Timestamp(v)) => values.push(*v),
            (VectorData::Interval(values), Value::Interval(v)) => values.push(*v),
            (VectorData::Uuid(values), Value::Uuid(v)) => values.push(*v),
            (VectorData::Json(values), Value::Json(v))
            | (VectorData::Jsonb(values), Value::Jsonb(v)) => values.push(v.as_bytes()),
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
        if !matches!(self.data, VectorData::Null(_)) {
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
            (VectorData::Boolean(values), Stored::Fixed(bits)) => values.push(bits & 0xFF != 0),
            (VectorData::Integer(values), Stored::Fixed(bits)) => values.push(*bits as i64),
            (VectorData::Real(values), Stored::Fixed(bits)) => values.push(f64::from_bits(*bits)),
            (VectorData::Date(values), Stored::Fixed(bits)) => values.push(*bits as i64 as i32),
            (VectorData::Timestamp(values), Stored::Fixed(bits)) => values.push(*bits as i64),
            (VectorData::Text(values), Stored::Bytes(bytes)) => {
                if std::str::from_utf8(bytes).is_err() {
                    return Err("stored text is not UTF-8");
                }
                values.push(bytes)
            }
            (VectorData::Blob(values), Stored::Bytes(bytes)) => values.push(bytes),
            (VectorData::Interval(values), Stored::Bytes(bytes)) => {
                values.push(Interval::from_bytes(bytes).ok_or("stored interval is not 16 bytes")?)
            }
            (VectorData::Uuid(values), Stored::Bytes(bytes)) => values.push(
                <[u8; 16]>::try_from(bytes.as_ref()).map_err(|_| "stored uuid is not 16 bytes")?,
            ),
            (VectorData::Json(values) | VectorData::Jsonb(values), Stored::Bytes(bytes)) => {
                if std::str::from_utf8(bytes).is_err() {
                    return Err("stored JSON is not UTF-8");
                }
                values.push(bytes)
            }
            _ => return Err("stored value does not match the column type"),
        }
        self.set_null(row, false);
        Ok(())
    }

    /// Appends `count` fixed-width values stored little-endian in `bytes` (`width` bytes
    /// each, as a table leaf's value array holds them), with the leaf's null bitmap (bit set
    /// = NULL) starting at row `first` of the leaf. The bulk counterpart of
    /// [`Vector::push_stored`] for fixed values.
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
            VectorData::Integer(to) | VectorData::Timestamp(to) if width == 8 => {
                to.extend(values.chunks_exact(8).map(|chunk| bits(chunk) as i64))
            }
            VectorData::Real(to) if width == 8 => to.extend(
                values
                    .chunks_exact(8)
                    .map(|chunk| f64::from_bits(bits(chunk))),
            ),
            VectorData::Integer(to) | VectorData::Timestamp(to) => {
                to.extend(values.chunks_exact(width).map(|chunk| bits(chunk) as i64))
            }
            VectorData::Date(to) => to.extend(
                values
                    .chunks_exact(width)
                    .map(|chunk| bits(chunk) as i64 as i32),
            ),
            VectorData::Boolean(to) => to.extend(
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
    pub fn push_from(&mut self, other: &Vector, row: usize) {
        let target_row = self.len();
        let null = other.is_null(row);
        match (&mut self.data, &other.data) {
            (VectorData::Boolean(to), VectorData::Boolean(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (VectorData::Integer(to), VectorData::Integer(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (VectorData::Real(to), VectorData::Real(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (VectorData::Text(to), VectorData::Text(from))
            | (VectorData::Blob(to), VectorData::Blob(from))
            | (VectorData::Json(to), VectorData::Json(from))
            | (VectorData::Jsonb(to), VectorData::Jsonb(from)) => to.push(from.get(row)),
            (VectorData::Date(to), VectorData::Date(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (VectorData::Timestamp(to), VectorData::Timestamp(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
            }
            (VectorData::Interval(to), VectorData::Interval(from)) => {
                to.push(from.get(row).copied().unwrap_or(Interval::ZERO))
            }
            (VectorData::Uuid(to), VectorData::Uuid(from)) => {
                to.push(from.get(row).copied().unwrap_or_default())
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
    pub fn gather(&self, positions: &[u32]) -> Vector {
        let mut out = Vector::with_capacity(self.data_type(), positions.len());
        for &position in positions {
            out.push_from(self, position as usize);
        }
        out
    }

    /// Bytes the values take in memory (what memory budgets count): the typed array, the
    /// text or blob bytes with their offsets, and the null mask.
    pub fn estimated_bytes(&self) -> usize {
        let values = match &self.data {
            VectorData::Null(_) => 0,
            VectorData::Boolean(values) => values.len(),
            VectorData::Integer(values) => values.len() * 8,
            VectorData::Real(values) => values.len() * 8,
            VectorData::Text(values)
            | VectorData::Blob(values)
            | VectorData::Json(values)
            | VectorData::Jsonb(values) => values.offsets.len() * 4 + values.bytes.len(),
            VectorData::Date(values) => values.len() * 4,
            VectorData::Timestamp(values) => values.len() * 8,
            VectorData::Interval(values) => values.len() * 16,
            VectorData::Uuid(values) => values.len() * 16,
        };
        values + self.nulls.len()
    }

    /// Removes every row, keeping allocations.
    pub fn clear(&mut self) {
        match &mut self.data {
            VectorData::Null(rows) => *rows = 0,
            VectorData::Boolean(values) => values.clear(),
            VectorData::Integer(values) => values.clear(),
            VectorData::Real(values) => values.clear(),
            VectorData::Text(values)
            | VectorData::Blob(values)
            | VectorData::Json(values)
            | VectorData::Jsonb(values) => values.clear(),
            VectorData::Date(values) => values.clear(),
            VectorData::Timestamp(values) => values.clear(),
            VectorData::Interval(values) => values.clear(),
            VectorData::Uuid(values) => values.clear(),
        }
        self.nulls.clear();
    }
}

fn push_placeholder(data: &mut VectorData) {
    match data {
        VectorData::Null(rows) => *rows += 1,
        VectorData::Boolean(values) => values.push(false),
        VectorData::Integer(values) => values.push(0),
        VectorData::Real(values) => values.push(0.0),
        VectorData::Text(values)
        | VectorData::Blob(values)
        | VectorData::Json(values)
        | VectorData::Jsonb(values) => values.push(&[]),
        VectorData::Date(values) => values.push(0),
        VectorData::Timestamp(values) => values.push(0),
        VectorData::Interval(values) => values.push(Interval::ZERO),
        VectorData::Uuid(values) => values.push([0; 16]),
    }
}

/// Rows of several columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub columns: Vec<Vector>,
    /// Row count (kept separately so a batch with no columns can still have rows).
    pub rows: usize,
}

impl Batch {
    /// An empty batch with one vector per type.
    pub fn with_types(types: &[DataType], capacity: usize) -> Batch {
        Batch {
            columns: types
                .iter()
                .map(|&t| Vector::with_capacity(t, capacity))
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

    /// Bytes the rows take in memory (see [`Vector::estimated_bytes`]).
    pub fn estimated_bytes(&self) -> usize {
        self.columns.iter().map(Vector::estimated_bytes).sum()
    }

    /// Removes every row, keeping allocations.
    pub fn clear(&mut self) {
        self.columns.iter_mut().for_each(Vector::clear);
        self.rows = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_get_gather_and_nulls() {
        let mut batch = Batch::with_types(&[DataType::Integer, DataType::Text], 4);
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
        let constant = Vector::constant(&Value::Real(2.5), DataType::Real, 3);
        assert_eq!(constant.get(2), Value::Real(2.5));
        assert!(Vector::constant(&Value::Null, DataType::Null, 2).is_null(1));
    }
}
