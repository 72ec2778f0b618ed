//! Row keys: one byte string per row, for sorting, grouping, DISTINCT, joins and set
//! operations.
//!
//! The storage layer's memcomparable encoding (`storage::keys`) already gives SQL order
//! under `memcmp`, with ASC/DESC and NULLS FIRST/LAST, and one canonical encoding per value
//! (−0.0 is 0.0, one NaN). So sorting rows is sorting their encoded keys, and two rows are
//! equal for GROUP BY / DISTINCT / UNION (NULLs equal to each other) exactly when their
//! ascending encodings are equal.

use crate::storage::keys::{self, KeyOrder, KeyValue};

/// A hash table keyed by row keys, for grouping, joins, DISTINCT and set operations:
/// foldhash rather than the standard library's SipHash, which was a fifth of an INTERSECT
/// of two 2,500-row tables. Seeded at random per table, as SipHash's `RandomState` is.
pub type RowKeyMap<V> = std::collections::HashMap<Vec<u8>, V, foldhash::fast::RandomState>;

/// A set of row keys ([`RowKeyMap`]'s hasher).
pub type RowKeySet = std::collections::HashSet<Vec<u8>, foldhash::fast::RandomState>;
use crate::types::{json, vector};

use super::batch::{ColumnData, ColumnVector};

/// Appends the encoding of row `row` of `vector` under `order`.
pub fn encode_cell(vector: &ColumnVector, row: usize, order: KeyOrder, out: &mut Vec<u8>) {
    if vector.is_null(row) {
        keys::encode_value(&KeyValue::Null, order, out);
        return;
    }
    let value = match &vector.data {
        ColumnData::Null(_) => KeyValue::Null,
        ColumnData::Boolean(values) => {
            KeyValue::Boolean(values.get(row).copied().unwrap_or_default())
        }
        ColumnData::Integer(values) => {
            KeyValue::Integer(values.get(row).copied().unwrap_or_default())
        }
        ColumnData::Real(values) => KeyValue::Real(values.get(row).copied().unwrap_or_default()),
        // Numerics key by their value (1.0 and 1.00 alike), see `Numeric::key_bytes`.
        ColumnData::Numeric(values) => {
            KeyValue::Fixed32(values.get(row).map_or([0; 32], |n| n.key_bytes()))
        }
        ColumnData::Text(values) => KeyValue::Text(values.get_str(row)),
        ColumnData::Blob(values) => KeyValue::Blob(values.get(row)),
        ColumnData::Date(values) => {
            KeyValue::Integer(i64::from(values.get(row).copied().unwrap_or_default()))
        }
        ColumnData::Timestamp(values)
        | ColumnData::TimestampTz(values)
        | ColumnData::Time(values) => {
            KeyValue::Integer(values.get(row).copied().unwrap_or_default())
        }
        // Intervals key by their span, so intervals SQL calls equal group and join together.
        ColumnData::Interval(values) => {
            KeyValue::Integer128(values.get(row).map_or(0, |interval| interval.span()))
        }
        ColumnData::Uuid(values) => KeyValue::Blob(values.get(row).map_or(&[], |uuid| uuid)),
        // json has no ordering or equality (the binder refuses to sort or group it); its
        // text is a consistent stand-in should a plan ever compare it.
        ColumnData::Json(values) => KeyValue::Text(values.get_str(row)),
        ColumnData::Jsonb(values) => {
            // jsonb orders as `types::json` defines: its own memcomparable encoding, carried
            // as a blob (prefix-free, so later columns still compare correctly).
            let mut encoded = Vec::new();
            json::sort_key(values.get_str(row), &mut encoded);
            keys::encode_value(&KeyValue::Blob(&encoded), order, out);
            return;
        }
        ColumnData::Array(_, values) => {
            // Arrays order as PostgreSQL's `array_cmp` (see `types::array::cell::key_bytes`).
            let mut encoded = Vec::new();
            if let Some(crate::types::Value::Array(array)) = values.get(row) {
                crate::types::array::cell::key_bytes(array, &mut encoded);
            }
            keys::encode_value(&KeyValue::Blob(&encoded), order, out);
            return;
        }
        ColumnData::Vector(values) => {
            // Vectors order as pgvector's `vector_cmp` (see `types::vector::key_bytes`).
            let mut encoded = Vec::new();
            vector::key_bytes(values.get(row), &mut encoded);
            keys::encode_value(&KeyValue::Blob(&encoded), order, out);
            return;
        }
    };
    keys::encode_value(&value, order, out);
}

/// The key of row `row` over `columns`, each ascending (for equality and hashing).
pub fn equality_key(columns: &[&ColumnVector], row: usize, out: &mut Vec<u8>) {
    out.clear();
    for column in columns {
        encode_cell(column, row, KeyOrder::ASC, out);
    }
}

/// Whether row `row` has a NULL in any of `columns` (such keys never join).
pub fn any_null(columns: &[&ColumnVector], row: usize) -> bool {
    columns.iter().any(|column| column.is_null(row))
}
