//! Reading and writing the catalog in its system tree.

use crate::storage::btree::IndexTree;
use crate::storage::{PageRead, PageWrite, Result, StorageError};

use super::{
    CATALOG_ROOT_SLOT, Catalog, SCHEMA_VERSION_SLOT, SchemaObject, decode_entry, encode_entry,
};

fn entry_key(kind: u8, name: &str) -> Vec<u8> {
    let mut key = vec![kind];
    key.extend_from_slice(name.to_lowercase().as_bytes());
    key
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
    let root =
        u32::try_from(root).map_err(|_| StorageError::corrupt("catalog root out of range"))?;
    let tree = IndexTree::open(root);
    let mut cursor = tree.cursor(store);
    let mut objects = Vec::new();
    let mut valid = cursor.first()?;
    while valid {
        objects.push(decode_entry(cursor.value())?);
        valid = cursor.next()?;
    }
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

fn catalog_tree(txn: &mut (impl PageWrite + MetaSlots)) -> Result<IndexTree> {
    let root = txn.meta(CATALOG_ROOT_SLOT);
    if root != 0 {
        let root =
            u32::try_from(root).map_err(|_| StorageError::corrupt("catalog root out of range"))?;
        return Ok(IndexTree::open(root));
    }
    let tree = IndexTree::create(txn)?;
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
    tree.upsert(
        txn,
        &entry_key(object.kind_byte(), object.name()),
        &encode_entry(object),
    )?;
    bump_version(txn)
}

/// Removes an object (by kind byte and name); returns whether it existed.
pub fn remove_object(txn: &mut (impl PageWrite + MetaSlots), kind: u8, name: &str) -> Result<bool> {
    let tree = catalog_tree(txn)?;
    let removed = tree.delete(txn, &entry_key(kind, name))?;
    bump_version(txn)?;
    Ok(removed)
}
