//! `VACUUM`: rewrites the whole database file so it holds no free pages.
//!
//! Deleting rows frees pages onto the free list, and later writes reuse them, but the file
//! never gets shorter: a table that was large once keeps its size on disk. `VACUUM` rebuilds
//! the file from scratch, as SQLite's does. The caller's write transaction is restarted as
//! a file of the header page alone ([`WriteTxn::restart_as_empty_file`]); then every tree
//! the catalog knows — tables, indexes, sequence counters — is copied, in key order, from a
//! read snapshot of the same commit into fresh, densely packed trees (an index by its access
//! method, `super::index_access`), and the catalog is written again with their new root
//! pages. Nothing is decoded into SQL values: table rows move slot by slot as stored cells,
//! index entries as key bytes, so the copy is exact whatever the column types.
//!
//! Guarantees:
//! * The rebuilt database answers every query exactly as the old one did: same rows with
//!   the same row ids, same index entries, same sequence positions, same schema text. Rows
//!   written before an `ALTER TABLE ADD COLUMN` come out with the added slots present and
//!   NULL, which is what they read as before.
//! * It is one write transaction: a crash or an error part way leaves the old file intact,
//!   and readers on older snapshots keep their view until they finish.
//! * Root pages change, so the schema version is bumped (every prepared plan is re-planned)
//!   and ANALYZE statistics, which name the roots they were taken from, are carried over to
//!   the new roots.
//!
//! The caller (the API's `VACUUM` statement) takes the snapshot and the write transaction,
//! refuses to run inside an explicit transaction, commits, and then checkpoints so the file
//! is truncated at once when no older reader needs its tail.

use std::collections::HashMap;

use crate::catalog::{self, Catalog, SchemaObject};
use crate::storage::btree::{ColumnKind, OwnedValue, TableTree};
use crate::storage::{PageNo, StorageError};
use crate::txn::{ReadTxn, WriteTxn};

use super::error::ExecResult;
use super::index_access::{IndexAccess, IndexAm};

/// Rebuilds the database `source` sees into `target`, which must be a write transaction
/// on the same commit that has changed nothing yet.
pub fn rebuild(source: &ReadTxn, target: &mut WriteTxn) -> ExecResult<()> {
    let old_catalog = catalog::load_catalog(source, |slot| source.meta(slot))?;
    target.restart_as_empty_file()?;
    target.set_meta(catalog::CATALOG_ROOT_SLOT, 0)?;

    // Old root page -> new root page, for the statistics that name roots.
    let mut moved: HashMap<PageNo, PageNo> = HashMap::new();
    let mut objects = Vec::new();
    for table in old_catalog.tables.values() {
        let root = copy_table_tree(source, table.root, &table.slot_kinds(), target)?;
        moved.insert(table.root, root);
        let mut table = (**table).clone();
        table.root = root;
        objects.push(SchemaObject::Table(table));
    }
    for index in old_catalog.indexes.values() {
        let access = IndexAccess::of(index);
        let root = match old_catalog.table(&index.table) {
            // An HNSW graph is rebuilt from the rows, which drops its stale nodes.
            Some(table) if access.rebuilds_from_rows() => {
                let root = access.create(target)?;
                let mut fresh = (**index).clone();
                fresh.root = root;
                IndexAccess::of(&fresh)
                    .build(target, &super::ddl::read_all_rows(table, source)?)?;
                root
            }
            _ => access.copy_into(source, target)?,
        };
        moved.insert(index.root, root);
        let mut index = (**index).clone();
        index.root = root;
        objects.push(SchemaObject::Index(index));
    }
    for sequence in old_catalog.sequences.values() {
        let kinds = super::sequence::STATE_KINDS;
        let root = copy_table_tree(source, sequence.root, &kinds, target)?;
        let mut sequence = (**sequence).clone();
        sequence.root = root;
        objects.push(SchemaObject::Sequence(sequence));
    }
    objects.extend(carried_statistics(&old_catalog, &moved));
    objects.extend(
        old_catalog
            .views
            .values()
            .map(|view| SchemaObject::View((**view).clone())),
    );
    objects.extend(
        old_catalog
            .triggers
            .values()
            .map(|trigger| SchemaObject::Trigger((**trigger).clone())),
    );
    for object in &objects {
        catalog::put_object(target, object)?;
    }
    // put_object bumped the version once per object from the old value; one more than the
    // old version is all that matters, and any bump does that.
    Ok(())
}

/// Statistics whose table (and indexes) survive, re-pointed at the new roots. Statistics
/// already stale (taken from a root no longer in the catalog) are dropped, as they would
/// be ignored anyway.
fn carried_statistics(old_catalog: &Catalog, moved: &HashMap<PageNo, PageNo>) -> Vec<SchemaObject> {
    old_catalog
        .statistics
        .values()
        .filter_map(|statistics| {
            let mut statistics = (**statistics).clone();
            statistics.table_root = *moved.get(&statistics.table_root)?;
            statistics
                .indexes
                .retain_mut(|index| match moved.get(&index.index_root) {
                    Some(&root) => {
                        index.index_root = root;
                        true
                    }
                    None => false,
                });
            Some(SchemaObject::Statistics(statistics))
        })
        .collect()
}

/// Copies the table tree at `root` in `source` into a new tree in `target` whose rows have
/// `kinds` slots; returns the new root.
fn copy_table_tree(
    source: &ReadTxn,
    root: PageNo,
    kinds: &[ColumnKind],
    target: &mut WriteTxn,
) -> ExecResult<PageNo> {
    let tree = TableTree::create(target)?;
    let mut cursor = TableTree::open(root).cursor(source);
    let mut valid = cursor.first()?;
    let mut failure = None;
    let rows = until_error(&mut failure, || {
        if !valid {
            return Ok(None);
        }
        let row = owned_row(&cursor, kinds.len())?;
        valid = cursor.next()?;
        Ok(Some(row))
    });
    tree.bulk_load(target, kinds, rows)?;
    if let Some(error) = failure {
        return Err(error.into());
    }
    Ok(tree.root())
}

/// The row the cursor is on: its id and `slots` values (slots the row's leaf lacks, added by
/// a later ALTER TABLE, are NULL).
fn owned_row(
    cursor: &crate::storage::btree::TableCursor<&ReadTxn>,
    slots: usize,
) -> crate::storage::Result<(i64, Vec<OwnedValue>)> {
    let row_id = cursor
        .row_id()
        .ok_or_else(|| StorageError::corrupt("table cursor lost its row"))?;
    let present = cursor.column_count();
    let mut values = Vec::with_capacity(slots);
    for slot in 0..slots {
        values.push(if slot < present {
            cursor.value(slot)?.into_owned()
        } else {
            OwnedValue::Null
        });
    }
    Ok((row_id, values))
}

/// The items `next` yields until it returns `None` or an error. The loaders pull their
/// input one item at a time and cannot take a fallible iterator, so the first read error
/// ends the input and is kept in `failure` for the caller to report after the load. Index
/// access methods copy their storage with it too (`IndexAm::copy_into`).
pub(crate) fn until_error<'a, T>(
    failure: &'a mut Option<StorageError>,
    mut next: impl FnMut() -> crate::storage::Result<Option<T>> + 'a,
) -> impl Iterator<Item = T> + 'a {
    std::iter::from_fn(move || {
        if failure.is_some() {
            return None;
        }
        match next() {
            Ok(item) => item,
            Err(error) => {
                *failure = Some(error);
                None
            }
        }
    })
}
