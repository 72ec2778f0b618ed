//! Column kinds and the value types a table tree reads and writes.
//!
//! A table tree does not know SQL types. It knows only how a column is *stored*: as a
//! fixed-width little-endian integer of 1, 2, 4 or 8 bytes, or as a variable-length byte
//! string ([`ColumnKind`]). The SQL layer maps its types onto these classes (INTEGER, REAL and
//! TIMESTAMP to `Fixed8`, BOOLEAN to `Fixed1`, TEXT, BLOB and VECTOR to `Var`) and does any
//! sign extension or float reinterpretation itself.
//!
//! Values travel in four shapes, each for one direction of the data flow:
//!
//! * [`CellValue`] — what a caller hands to `insert` / `update`;
//! * [`ValueRef`] — a value as it lies in a leaf page, borrowed from the page, with long
//!   values still pointing at their overflow chain (reading one never allocates);
//! * [`Value`] — what a cursor returns when asked for the full value: inline bytes borrowed,
//!   overflow chains read into an owned buffer;
//! * [`OwnedValue`] — a value detached from any page, for convenience APIs and tests.

use std::borrow::Cow;

use crate::storage::page::PageNo;

/// Physical storage class of a column. The discriminant is the byte stored in leaf pages and
/// equals the value width for fixed-width kinds.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnKind {
    /// Variable-length bytes, stored in the page heap or an overflow chain.
    Var = 0,
    /// One byte.
    Fixed1 = 1,
    /// Two bytes, little-endian.
    Fixed2 = 2,
    /// Four bytes, little-endian.
    Fixed4 = 4,
    /// Eight bytes, little-endian.
    Fixed8 = 8,
}

impl ColumnKind {
    /// The kind stored as `byte`, or `None` for a byte no kind uses.
    pub fn from_byte(byte: u8) -> Option<ColumnKind> {
        match byte {
            0 => Some(ColumnKind::Var),
            1 => Some(ColumnKind::Fixed1),
            2 => Some(ColumnKind::Fixed2),
            4 => Some(ColumnKind::Fixed4),
            8 => Some(ColumnKind::Fixed8),
            _ => None,
        }
    }

    /// The byte that stores this kind in a page.
    pub fn to_byte(self) -> u8 {
        self as u8
    }

    /// Width of a fixed-width value, `None` for `Var`.
    pub fn fixed_width(self) -> Option<usize> {
        match self {
            ColumnKind::Var => None,
            other => Some(other as usize),
        }
    }

    /// Bytes one row occupies in this column's value array: the value width, or the 4-byte
    /// heap descriptor of a `Var` column.
    pub fn slot_width(self) -> usize {
        match self {
            ColumnKind::Var => 4,
            other => other as usize,
        }
    }
}

/// A value to write into a table tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellValue<'a> {
    /// SQL NULL (allowed in any column).
    Null,
    /// A fixed-width value; the column's low `width` bytes are stored, little-endian.
    Fixed(u64),
    /// Variable-length bytes for a `Var` column.
    Var(&'a [u8]),
}

/// A value as stored in a leaf page, borrowed from the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRef<'a> {
    /// SQL NULL, or a column the page does not have (added by a later ALTER TABLE).
    Null,
    /// A fixed-width value, zero-extended to 64 bits.
    Fixed(u64),
    /// Variable-length bytes stored inline in the page heap.
    Var(&'a [u8]),
    /// Variable-length bytes whose first `prefix.len()` bytes lie in the page heap and the
    /// rest (at least one byte) in an overflow chain.
    Overflow {
        /// First page of the chain.
        first_page: PageNo,
        /// Length of the whole value in bytes, prefix included.
        total_len: u64,
        /// The value's first bytes, stored inline (possibly empty).
        prefix: &'a [u8],
    },
}

impl ValueRef<'_> {
    /// Bytes this value takes in the page heap: the inline bytes, or the overflow entry
    /// (12-byte pointer plus inline prefix).
    pub(crate) fn heap_len(&self) -> usize {
        match self {
            ValueRef::Null | ValueRef::Fixed(_) => 0,
            ValueRef::Var(bytes) => bytes.len(),
            ValueRef::Overflow { prefix, .. } => {
                super::table_leaf::OVERFLOW_POINTER_LEN + prefix.len()
            }
        }
    }

    /// The overflow chain of this value, as (first page, bytes in the chain); `None` for a
    /// value without one. A length not above the prefix (impossible for a value read from
    /// a validated page) yields a chain of length 0, which chain readers reject.
    pub fn chain(&self) -> Option<(PageNo, u64)> {
        match self {
            ValueRef::Overflow {
                first_page,
                total_len,
                prefix,
            } => Some((*first_page, total_len.saturating_sub(prefix.len() as u64))),
            _ => None,
        }
    }
}

/// A value as a cursor returns it: inline bytes borrowed from the page, overflow chains read
/// into an owned buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    /// SQL NULL.
    Null,
    /// A fixed-width value, zero-extended to 64 bits.
    Fixed(u64),
    /// Variable-length bytes.
    Bytes(Cow<'a, [u8]>),
}

impl Value<'_> {
    /// Detaches the value from the page it was read from.
    pub fn into_owned(self) -> OwnedValue {
        match self {
            Value::Null => OwnedValue::Null,
            Value::Fixed(value) => OwnedValue::Fixed(value),
            Value::Bytes(bytes) => OwnedValue::Bytes(bytes.into_owned()),
        }
    }
}

/// A value detached from any page.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OwnedValue {
    /// SQL NULL.
    Null,
    /// A fixed-width value, zero-extended to 64 bits.
    Fixed(u64),
    /// Variable-length bytes.
    Bytes(Vec<u8>),
}

/// A row handed to [`super::TableTree::bulk_load`]: cells borrowed from the caller's
/// buffers (`Vec<CellValue>`), or values owned by the row itself (`Vec<OwnedValue>`, what a
/// copy from another tree produces, since a cursor's borrowed values do not outlive its
/// next step).
pub trait LoadRow {
    /// The row's cells.
    fn cells(&self) -> Cow<'_, [CellValue<'_>]>;
}

impl LoadRow for Vec<CellValue<'_>> {
    fn cells(&self) -> Cow<'_, [CellValue<'_>]> {
        Cow::Borrowed(self.as_slice())
    }
}

impl LoadRow for Vec<OwnedValue> {
    fn cells(&self) -> Cow<'_, [CellValue<'_>]> {
        Cow::Owned(self.iter().map(OwnedValue::as_cell).collect())
    }
}

impl OwnedValue {
    /// The value as a [`CellValue`] borrowing from `self`, for writing it back.
    pub fn as_cell(&self) -> CellValue<'_> {
        match self {
            OwnedValue::Null => CellValue::Null,
            OwnedValue::Fixed(value) => CellValue::Fixed(*value),
            OwnedValue::Bytes(bytes) => CellValue::Var(bytes),
        }
    }
}
