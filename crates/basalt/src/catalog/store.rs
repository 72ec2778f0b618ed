//! Reading and writing the catalog in its system tree.
//!
//! The catalog is a *table* tree (so entries of any size fit: a view's query text or a wide
//! table's definition can exceed an index page's entry limit and goes to overflow pages).
//! Each row has two cells: the entry's key (kind byte ‖ lower-cased name) and its encoded
//! definition. The whole catalog is read into memory when a snapshot needs it; writes find an
//! entry by scanning for its key, which is cheap at catalog sizes and happens only in DDL.

use crate::storage::btree::{CellValue, ColumnKind, TableTree, Value as StoredValue};
use crate::storage::{PageRead, PageWrite, Result, StorageError};

use super::{
    CATALOG_ROOT_SLOT, Catalog, SCHEMA_VERSION_SLOT, SchemaObject, decode_entry, encode_entry,
};

const KINDS: [ColumnKind; 2] = [ColumnKind::Var, ColumnKind::Var];

fn entry_key(kind: u8, name: &str) -> Vec<u8> {
    let mut key = vec![kind];
    key.extend_from_slice(name.to_lowercase().as_bytes());
    key
}

fn bytes_of(value: StoredValue<'_>) -> Result<Vec<u8>> {
    match value {
        StoredValue::Bytes(bytes) => Ok(bytes.into_owned()),
        other => Err(StorageError::corrupt(format!(
            "catalog row holds {other:?} instead of bytes"
        ))),
    }
}

/// One row of the catalog tree.
struct CatalogRow {
    row_id: i64,
    key: Vec<u8>,
    definition: Vec<u8>,
}

/// Every row of the catalog tree.
fn entries(tree: &TableTree, store: &impl PageRead) -> Result<Vec<CatalogRow>> {
    let mut out = Vec::new();
    let mut cursor = tree.cursor(store);
    let mut valid = cursor.first()?;
    while valid {
        let row_id = cursor
            .row_id()
            .ok_or_else(|| StorageError::corrupt("catalog cursor lost its row"))?;
        out.push(CatalogRow {
            row_id,
            key: bytes_of(cursor.value(0)?)?,
            definition: bytes_of(cursor.value(1)?)?,
        });
        valid = cursor.next()?;
    }
    Ok(out)
}

fn root_of(meta: u64) -> Result<u32> {
    u32::try_from(meta).map_err(|_| StorageError::corrupt("catalog root out of range"))
}

/// Loads the catalog as `store` sees it; `meta` reads the header's meta slots.
pub fn load_catalog(store: &impl PageRead, meta: impl Fn(usize) -> u64) -> Result<Catalog> {
    let root = meta(CATALOG_ROOT_SLOT);
    let version = meta(SCHEMA_VERSION_SLOT);
    if root == 0 {
        return Ok(Catalog {
            version,
            ..Catalog::default()
        });
    }
    let tree = TableTree::open(root_of(root)?);
    let objects = entries(&tree, store)?
        .into_iter()
        .map(|row| decode_entry(&row.definition).map_err(StorageError::from))
        .collect::<Result<Vec<_>>>()?;
    Ok(Catalog::from_objects(version, objects))
}

/// A write transaction's view of the meta slots, for catalog changes.
pub trait MetaSlots {
    fn meta(&self, slot: usize) -> u64;
    fn set_meta(&mut self, slot: usize, value: u64) -> Result<()>;
}

impl MetaSlots for crate::txn::WriteTxn {
    fn meta(&self, slot: usize) -> u64 {
        crate::txn::WriteTxn::meta(self, slot)
    }

    fn set_meta(&mut self, slot: usize, value: u64) -> Result<()> {
        crate::txn::WriteTxn::set_meta(self, slot, value)
    }
}

fn catalog_tree(txn: &mut (impl PageWrite + MetaSlots)) -> Result<TableTree> {
    let root = txn.meta(CATALOG_ROOT_SLOT);
    if root != 0 {
        return Ok(TableTree::open(root_of(root)?));
    }
    let tree = TableTree::create(txn)?;
    txn.set_meta(CATALOG_ROOT_SLOT, u64::from(tree.root()))?;
    Ok(tree)
}

/// Bumps the schema version: every cached catalog and prepared plan becomes stale.
fn bump_version(txn: &mut impl MetaSlots) -> Result<()> {
    let version = txn.meta(SCHEMA_VERSION_SLOT);
    txn.set_meta(SCHEMA_VERSION_SLOT, version + 1)
}

/// Adds or replaces an object.
pub fn put_object(txn: &mut (impl PageWrite + MetaSlots), object: &SchemaObject) -> Result<()> {
    let tree = catalog_tree(txn)?;
    let key = entry_key(object.kind_byte(), object.name());
    let definition = encode_entry(object);
    let existing = entries(&tree, &*txn)?;
    let row = [CellValue::Var(&key), CellValue::Var(&definition)];
    match existing.iter().find(|entry| entry.key == key) {
        Some(entry) => {
            tree.update(txn, entry.row_id, &KINDS, &row)?;
        }
        None => {
            let row_id = existing
                .iter()
                .map(|entry| entry.row_id)
                .max()
                .map_or(1, |max| max + 1);
            tree.insert(txn, row_id, &KINDS, &row)?;
        }
    }
    bump_version(txn)
}

/// Removes an object (by kind byte and name); returns whether it existed.
pub fn remove_object(txn: &mut (impl PageWrite + MetaSlots), kind: u8, name: &str) -> Result<bool> {
    let tree = catalog_tree(txn)?;
    let key = entry_key(kind, name);
    let existing = entries(&tree, &*txn)?;
    let removed = match existing.iter().find(|entry| entry.key == key) {
        Some(entry) => tree.delete(txn, entry.row_id)?,
        None => false,
    };
    bump_version(txn)?;
    Ok(removed)
}
