//! The binary form of catalog entries.
//!
//! Format version 5, little-endian: a version byte, then the object kind byte (`t`, `i`,
//! `v`, `s` for statistics, `r` for triggers, `q` for sequences), then the object's fields in declaration order. Strings are a
//! u32 length and UTF-8
//! bytes; optional strings are a presence byte then the string; lists are a u32 count then
//! the items; `DataType` is one byte (see [`data_type_byte`]). Decoding checks every length
//! against the remaining input, so a damaged entry is an error, never a panic.
//!
//! Version 2 added foreign key names; version 1 entries still decode, their foreign keys
//! taking PostgreSQL's default names. Version 3 added each column's generation expression
//! (an optional string after its default); older entries decode with none. Version 4 added
//! an index's storage parameters (a list of name and value strings after its implicit
//! byte); older index entries decode with none. Version 5 replaced a column's maximum length
//! (a presence byte and a u32) with its type modifier: a tag byte and two u32 arguments
//! ([`TypeModifier::to_catalog`]); older entries decode their length as a
//! [`TypeModifier::Length`].

use crate::storage::StorageError;
use crate::storage::keys::KeyOrder;
use crate::types::vector::kernels::Metric;
use crate::types::{DataType, TypeModifier};

use super::{
    ColumnDef, ForeignKeyDef, IndexDef, IndexMethod, IndexStatistics, ReferentialAction,
    SchemaObject, SequenceDef, TableDef, TableStatistics, TriggerDef, TriggerEvent, TriggerTiming,
    ViewDef,
};

const FORMAT_VERSION: u8 = 5;
/// The oldest version [`decode_entry`] reads.
const OLDEST_FORMAT_VERSION: u8 = 1;

/// A catalog entry that cannot be decoded.
#[derive(Debug, thiserror::Error)]
#[error("damaged catalog entry: {0}")]
pub struct CatalogError(pub String);

impl From<CatalogError> for StorageError {
    fn from(error: CatalogError) -> Self {
        StorageError::corrupt(error.to_string())
    }
}

fn data_type_byte(data_type: DataType) -> u8 {
    data_type.descriptor().catalog_tag
}

fn data_type_from_byte(byte: u8) -> Result<DataType, CatalogError> {
    DataType::from_catalog_tag(byte)
        .ok_or_else(|| CatalogError(format!("unknown type byte {byte}")))
}

fn action_byte(action: ReferentialAction) -> u8 {
    match action {
        ReferentialAction::NoAction => 0,
        ReferentialAction::Restrict => 1,
        ReferentialAction::Cascade => 2,
        ReferentialAction::SetNull => 3,
        ReferentialAction::SetDefault => 4,
    }
}

fn action_from_byte(byte: u8) -> Result<ReferentialAction, CatalogError> {
    Ok(match byte {
        0 => ReferentialAction::NoAction,
        1 => ReferentialAction::Restrict,
        2 => ReferentialAction::Cascade,
        3 => ReferentialAction::SetNull,
        4 => ReferentialAction::SetDefault,
        other => return Err(CatalogError(format!("unknown referential action {other}"))),
    })
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }
    fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    fn usize(&mut self, value: usize) {
        self.u32(u32::try_from(value).unwrap_or(u32::MAX));
    }
    fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    fn bool(&mut self, value: bool) {
        self.u8(u8::from(value));
    }
    fn str(&mut self, value: &str) {
        self.usize(value.len());
        self.0.extend_from_slice(value.as_bytes());
    }
    fn opt_str(&mut self, value: Option<&str>) {
        self.bool(value.is_some());
        if let Some(value) = value {
            self.str(value);
        }
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, count: usize) -> Result<&[u8], CatalogError> {
        if self.0.len() < count {
            return Err(CatalogError("entry is truncated".into()));
        }
        let (head, tail) = self.0.split_at(count);
        self.0 = tail;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, CatalogError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, CatalogError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }
    fn usize(&mut self) -> Result<usize, CatalogError> {
        Ok(self.u32()? as usize)
    }
    fn u64(&mut self) -> Result<u64, CatalogError> {
        let bytes = self.take(8)?;
        let mut array = [0u8; 8];
        array.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(array))
    }
    /// A count of items that each take at least one byte: bounded by the remaining input.
    fn count(&mut self) -> Result<usize, CatalogError> {
        let count = self.usize()?;
        if count > self.0.len() {
            return Err(CatalogError(format!(
                "list of {count} items in {} bytes",
                self.0.len()
            )));
        }
        Ok(count)
    }
    fn bool(&mut self) -> Result<bool, CatalogError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(CatalogError(format!("bad boolean byte {other}"))),
        }
    }
    fn str(&mut self) -> Result<String, CatalogError> {
        let length = self.usize()?;
        let bytes = self.take(length)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| CatalogError("name is not UTF-8".into()))
    }
    fn opt_str(&mut self) -> Result<Option<String>, CatalogError> {
        Ok(if self.bool()? {
            Some(self.str()?)
        } else {
            None
        })
    }
}

/// Serialises a schema object.
pub fn encode_entry(object: &SchemaObject) -> Vec<u8> {
    encode_entry_as(object, FORMAT_VERSION)
}

/// Serialises a schema object in format `version` (older versions leave out the fields they
/// did not have; only tests of old entries ask for them).
fn encode_entry_as(object: &SchemaObject, version: u8) -> Vec<u8> {
    let mut out = Writer(Vec::new());
    out.u8(version);
    out.u8(object.kind_byte());
    match object {
        SchemaObject::Table(table) => {
            out.str(&table.name);
            out.u32(table.root);
            out.usize(table.slot_count);
            out.usize(table.columns.len());
            for column in &table.columns {
                out.str(&column.name);
                out.u8(data_type_byte(column.data_type));
                out.str(&column.declared_type);
                if version >= 5 {
                    let (tag, first, second) = column
                        .data_type
                        .modifier()
                        .map_or((0, 0, 0), TypeModifier::to_catalog);
                    out.u8(tag);
                    out.u32(first);
                    out.u32(second);
                } else {
                    out.bool(column.max_length().is_some());
                    out.u32(column.max_length().unwrap_or(0));
                }
                out.bool(column.not_null);
                out.opt_str(column.default.as_deref());
                if version >= 3 {
                    out.opt_str(column.generated.as_deref());
                }
                out.usize(column.slot);
            }
            out.bool(table.row_id_column.is_some());
            out.usize(table.row_id_column.unwrap_or(0));
            out.usize(table.primary_key.len());
            table
                .primary_key
                .iter()
                .for_each(|&column| out.usize(column));
            out.usize(table.checks.len());
            table.checks.iter().for_each(|check| out.str(check));
            out.usize(table.foreign_keys.len());
            for key in &table.foreign_keys {
                out.str(&key.name);
                out.usize(key.columns.len());
                key.columns.iter().for_each(|&column| out.usize(column));
                out.str(&key.referenced_table);
                out.usize(key.referenced_columns.len());
                key.referenced_columns
                    .iter()
                    .for_each(|column| out.str(column));
                out.u8(action_byte(key.on_delete));
                out.u8(action_byte(key.on_update));
            }
        }
        SchemaObject::Index(index) => {
            out.str(&index.name);
            out.str(&index.table);
            out.usize(index.columns.len());
            for (column, order) in &index.columns {
                out.usize(*column);
                out.bool(order.descending);
                out.bool(order.nulls_first);
            }
            out.bool(index.unique);
            out.u8(match index.method {
                IndexMethod::BTree => 0,
                IndexMethod::Hnsw(Metric::L2) => 1,
                IndexMethod::Hnsw(Metric::NegativeInnerProduct) => 2,
                IndexMethod::Hnsw(Metric::Cosine) => 3,
                IndexMethod::Hnsw(Metric::L1) => 4,
                IndexMethod::Fts => 5,
            });
            out.u32(index.root);
            out.bool(index.implicit);
            if version >= 4 {
                out.usize(index.options.len());
                for (name, value) in &index.options {
                    out.str(name);
                    out.str(value);
                }
            }
        }
        SchemaObject::View(view) => {
            out.str(&view.name);
            out.usize(view.column_names.len());
            view.column_names.iter().for_each(|name| out.str(name));
            out.str(&view.query);
        }
        SchemaObject::Trigger(trigger) => {
            out.str(&trigger.name);
            out.str(&trigger.table);
            out.u8(match trigger.timing {
                TriggerTiming::Before => 0,
                TriggerTiming::After => 1,
                TriggerTiming::InsteadOf => 2,
            });
            let no_columns = Vec::new();
            let (event, columns) = match &trigger.event {
                TriggerEvent::Insert => (0, &no_columns),
                TriggerEvent::Update(columns) => (1, columns),
                TriggerEvent::Delete => (2, &no_columns),
            };
            out.u8(event);
            out.usize(columns.len());
            columns.iter().for_each(|column| out.str(column));
            out.opt_str(trigger.condition.as_deref());
            out.usize(trigger.body.len());
            trigger.body.iter().for_each(|statement| out.str(statement));
        }
        SchemaObject::Sequence(sequence) => {
            out.str(&sequence.name);
            out.u64(sequence.increment as u64);
            out.u64(sequence.min_value as u64);
            out.u64(sequence.max_value as u64);
            out.u64(sequence.start as u64);
            out.bool(sequence.cycle);
            out.u32(sequence.root);
            out.opt_str(sequence.owner.as_deref());
            out.opt_str(
                sequence
                    .identity
                    .as_ref()
                    .map(|(column, _)| column.as_str()),
            );
            out.bool(
                sequence
                    .identity
                    .as_ref()
                    .is_some_and(|(_, always)| *always),
            );
            out.bool(sequence.autoincrement);
        }
        SchemaObject::Statistics(statistics) => {
            out.str(&statistics.table);
            out.u32(statistics.table_root);
            out.u64(statistics.rows);
            out.usize(statistics.indexes.len());
            for index in &statistics.indexes {
                out.str(&index.index);
                out.u32(index.index_root);
                out.usize(index.rows_per_key.len());
                for rows in &index.rows_per_key {
                    out.u64(rows.to_bits());
                }
            }
        }
    }
    out.0
}

/// Deserialises a schema object, validating every length and reference.
pub fn decode_entry(bytes: &[u8]) -> Result<SchemaObject, CatalogError> {
    let mut input = Reader(bytes);
    let version = input.u8()?;
    if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(CatalogError(format!(
            "unknown catalog entry version {version}"
        )));
    }
    let object = match input.u8()? {
        b't' => {
            let name = input.str()?;
            let root = input.u32()?;
            let slot_count = input.usize()?;
            if slot_count > super::MAX_SLOTS_IN_FILE {
                return Err(CatalogError(format!(
                    "table {name} has {slot_count} column slots, more than {}",
                    super::MAX_SLOTS_IN_FILE
                )));
            }
            let column_count = input.count()?;
            let mut columns = Vec::with_capacity(column_count);
            for _ in 0..column_count {
                let name = input.str()?;
                let data_type = data_type_from_byte(input.u8()?)?;
                let declared_type = input.str()?;
                let modifier = if version >= 5 {
                    let (tag, first, second) = (input.u8()?, input.u32()?, input.u32()?);
                    TypeModifier::from_catalog(tag, first, second).map_err(|tag| {
                        CatalogError(format!("column {name} has unknown type modifier {tag}"))
                    })?
                } else {
                    let has_max = input.bool()?;
                    let max_length = input.u32()?;
                    has_max.then_some(TypeModifier::Length(max_length))
                };
                let data_type = data_type.with_modifier(modifier).ok_or_else(|| {
                    CatalogError(format!(
                        "column {name} of type {data_type} has a modifier the type does not take"
                    ))
                })?;
                let not_null = input.bool()?;
                let default = input.opt_str()?;
                let generated = if version >= 3 { input.opt_str()? } else { None };
                let slot = input.usize()?;
                if slot >= slot_count {
                    return Err(CatalogError(format!(
                        "column {name} has slot {slot} of {slot_count}"
                    )));
                }
                columns.push(ColumnDef {
                    name,
                    data_type,
                    declared_type,
                    not_null,
                    default,
                    generated,
                    slot,
                });
            }
            let has_row_id = input.bool()?;
            let row_id = input.usize()?;
            let row_id_column = has_row_id.then_some(row_id);
            let key_count = input.count()?;
            let primary_key = (0..key_count)
                .map(|_| input.usize())
                .collect::<Result<Vec<_>, _>>()?;
            let check_count = input.count()?;
            let checks = (0..check_count)
                .map(|_| input.str())
                .collect::<Result<Vec<_>, _>>()?;
            let foreign_key_count = input.count()?;
            let mut foreign_keys = Vec::with_capacity(foreign_key_count);
            for _ in 0..foreign_key_count {
                let key_name = if version >= 2 {
                    Some(input.str()?)
                } else {
                    None
                };
                let count = input.count()?;
                let key_columns = (0..count)
                    .map(|_| input.usize())
                    .collect::<Result<Vec<_>, _>>()?;
                let referenced_table = input.str()?;
                let count = input.count()?;
                let referenced_columns = (0..count)
                    .map(|_| input.str())
                    .collect::<Result<Vec<_>, _>>()?;
                let on_delete = action_from_byte(input.u8()?)?;
                let on_update = action_from_byte(input.u8()?)?;
                foreign_keys.push(ForeignKeyDef {
                    name: key_name.unwrap_or_default(),
                    columns: key_columns,
                    referenced_table,
                    referenced_columns,
                    on_delete,
                    on_update,
                });
            }
            let out_of_range = |column: &usize| *column >= columns.len();
            if row_id_column.as_ref().is_some_and(out_of_range)
                || primary_key.iter().any(out_of_range)
                || foreign_keys
                    .iter()
                    .flat_map(|key| &key.columns)
                    .any(out_of_range)
            {
                return Err(CatalogError(format!(
                    "table {name} refers to a column that does not exist"
                )));
            }
            let mut table = TableDef {
                name,
                columns,
                root,
                row_id_column,
                primary_key,
                checks,
                foreign_keys,
                slot_count,
            };
            for index in 0..table.foreign_keys.len() {
                if table.foreign_keys[index].name.is_empty() {
                    let name =
                        ForeignKeyDef::default_name(&table, &table.foreign_keys[index].columns);
                    table.foreign_keys[index].name = name;
                }
            }
            SchemaObject::Table(table)
        }
        b'i' => {
            let name = input.str()?;
            let table = input.str()?;
            let count = input.count()?;
            let mut columns = Vec::with_capacity(count);
            for _ in 0..count {
                let column = input.usize()?;
                let descending = input.bool()?;
                let nulls_first = input.bool()?;
                columns.push((
                    column,
                    KeyOrder {
                        descending,
                        nulls_first,
                    },
                ));
            }
            let unique = input.bool()?;
            let method = match input.u8()? {
                0 => IndexMethod::BTree,
                1 => IndexMethod::Hnsw(Metric::L2),
                2 => IndexMethod::Hnsw(Metric::NegativeInnerProduct),
                3 => IndexMethod::Hnsw(Metric::Cosine),
                4 => IndexMethod::Hnsw(Metric::L1),
                5 => IndexMethod::Fts,
                other => return Err(CatalogError(format!("unknown index method {other}"))),
            };
            let root = input.u32()?;
            let implicit = input.bool()?;
            let options = if version >= 4 {
                let count = input.count()?;
                (0..count)
                    .map(|_| Ok((input.str()?, input.str()?)))
                    .collect::<Result<Vec<_>, CatalogError>>()?
            } else {
                Vec::new()
            };
            SchemaObject::Index(IndexDef {
                name,
                table,
                columns,
                unique,
                method,
                root,
                implicit,
                options,
            })
        }
        b'v' => {
            let name = input.str()?;
            let count = input.count()?;
            let column_names = (0..count)
                .map(|_| input.str())
                .collect::<Result<Vec<_>, _>>()?;
            let query = input.str()?;
            SchemaObject::View(ViewDef {
                name,
                column_names,
                query,
            })
        }
        b'r' => {
            let name = input.str()?;
            let table = input.str()?;
            let timing = match input.u8()? {
                0 => TriggerTiming::Before,
                1 => TriggerTiming::After,
                2 => TriggerTiming::InsteadOf,
                other => return Err(CatalogError(format!("unknown trigger timing {other}"))),
            };
            let event = input.u8()?;
            let count = input.count()?;
            let columns = (0..count)
                .map(|_| input.str())
                .collect::<Result<Vec<_>, _>>()?;
            let event = match event {
                0 => TriggerEvent::Insert,
                1 => TriggerEvent::Update(columns),
                2 => TriggerEvent::Delete,
                other => return Err(CatalogError(format!("unknown trigger event {other}"))),
            };
            let condition = input.opt_str()?;
            let count = input.count()?;
            let body = (0..count)
                .map(|_| input.str())
                .collect::<Result<Vec<_>, _>>()?;
            SchemaObject::Trigger(TriggerDef {
                name,
                table,
                timing,
                event,
                condition,
                body,
            })
        }
        b'q' => {
            let name = input.str()?;
            let increment = input.u64()? as i64;
            let min_value = input.u64()? as i64;
            let max_value = input.u64()? as i64;
            let start = input.u64()? as i64;
            let cycle = input.bool()?;
            let root = input.u32()?;
            let owner = input.opt_str()?;
            let identity_column = input.opt_str()?;
            let always = input.bool()?;
            let autoincrement = input.bool()?;
            let identity = identity_column.map(|column| (column, always));
            if increment == 0 || min_value > max_value || !(min_value..=max_value).contains(&start)
            {
                return Err(CatalogError(format!(
                    "sequence {name} has inconsistent bounds"
                )));
            }
            SchemaObject::Sequence(SequenceDef {
                name,
                increment,
                min_value,
                max_value,
                start,
                cycle,
                root,
                owner,
                identity,
                autoincrement,
            })
        }
        b's' => {
            let table = input.str()?;
            let table_root = input.u32()?;
            let rows = input.u64()?;
            let count = input.count()?;
            let mut indexes = Vec::with_capacity(count);
            for _ in 0..count {
                let index = input.str()?;
                let index_root = input.u32()?;
                let count = input.count()?;
                let rows_per_key = (0..count)
                    .map(|_| input.u64().map(f64::from_bits))
                    .collect::<Result<Vec<_>, _>>()?;
                indexes.push(IndexStatistics {
                    index,
                    index_root,
                    rows_per_key,
                });
            }
            SchemaObject::Statistics(TableStatistics {
                table,
                table_root,
                rows,
                indexes,
            })
        }
        other => return Err(CatalogError(format!("unknown object kind {other}"))),
    };
    if !input.0.is_empty() {
        return Err(CatalogError("trailing bytes after the entry".into()));
    }
    Ok(object)
}

#[cfg(test)]
#[path = "encode_tests.rs"]
mod tests;
